//! Identities of dashboard users.

use sha2::{Digest, Sha256};

/// The stable subject the built-in development identity gives an e-mail
/// address: `local|` and 24 hex digits of the SHA-256 of the lowercased address.
pub fn dev_subject(email: &str) -> String {
    let digest = Sha256::digest(email.trim().to_lowercase().as_bytes());
    format!("local|{}", &hex::encode(digest)[..24])
}

/// Whether `email` looks like an e-mail address: one `@` with text on both
/// sides, a dot in the domain, no spaces, at most 254 characters.
pub fn is_plausible_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    email.len() <= 254
        && !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(char::is_whitespace)
}

/// A member's role in an organization, weakest first: each can do what the
/// ones before it can.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Reads.
    Viewer,
    /// Reads and manages creators and videos.
    Editor,
    /// Also manages the team, the settings and the API keys.
    Admin,
    /// Everything an admin can, and cannot be removed by an admin.
    Owner,
}

impl Role {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Editor => "editor",
            Role::Admin => "admin",
            Role::Owner => "owner",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "viewer" => Role::Viewer,
            "editor" => Role::Editor,
            "admin" => Role::Admin,
            "owner" => Role::Owner,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_ignore_case_and_spaces() {
        assert_eq!(
            dev_subject("Ann@Example.com "),
            dev_subject("ann@example.com")
        );
        assert_ne!(
            dev_subject("ann@example.com"),
            dev_subject("bob@example.com")
        );
        assert!(dev_subject("a@b.co").starts_with("local|"));
    }

    #[test]
    fn roles_order_by_power_and_round_trip() {
        assert!(Role::Viewer < Role::Editor && Role::Editor < Role::Admin);
        assert!(Role::Admin < Role::Owner);
        for r in [Role::Viewer, Role::Editor, Role::Admin, Role::Owner] {
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
        assert_eq!(Role::parse("Admin"), None);
    }

    #[test]
    fn plausible_emails() {
        assert!(is_plausible_email("ann@example.com"));
        for bad in [
            "",
            "ann",
            "@example.com",
            "ann@",
            "ann@example",
            "a b@c.de",
            "a@b@c.de",
            "a@.de",
        ] {
            assert!(!is_plausible_email(bad), "{bad}");
        }
    }
}
