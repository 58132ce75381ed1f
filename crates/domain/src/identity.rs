//! Identities of dashboard users.

use sha2::{Digest, Sha256};

/// The stable subject the built-in development identity gives an e-mail
/// address: `local|` and 24 hex digits of the SHA-256 of its [`email_key`].
pub fn dev_subject(email: &str) -> String {
    let digest = Sha256::digest(email_key(email).as_bytes());
    format!("local|{}", &hex::encode(digest)[..24])
}

/// The form e-mail addresses are stored and compared in, everywhere: trimmed,
/// with ASCII letters lowercased and nothing else changed. Addresses that
/// differ only by Unicode case folding (`\u{212A}ate@a.test`, with a KELVIN
/// SIGN, and `kate@a.test`) are different addresses.
pub fn email_key(email: &str) -> String {
    email.trim().to_ascii_lowercase()
}

/// Whether `email` looks like an e-mail address: one `@` with text on both
/// sides, a dot in the domain, no spaces or control characters (NUL
/// included), at most 254 bytes.
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
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
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

/// How many members of an organization hold each managing role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Managers {
    /// Members whose role is `admin`.
    pub admins: i64,
    /// Members whose role is `owner`.
    pub owners: i64,
}

/// Whether a member with role `target` may leave an organization whose
/// managers are `managers`: an organization always keeps at least one
/// member whose role is `admin` (so the last one stays, even against an
/// owner), and at least one member who can manage it at all.
pub fn may_remove(target: Role, managers: Managers) -> bool {
    match target {
        Role::Admin => managers.admins > 1,
        Role::Owner => managers.admins + managers.owners > 1,
        Role::Viewer | Role::Editor => true,
    }
}

/// Whether a member with role `by` may remove a member with role `target`
/// from an organization whose managers are `managers`: only an owner removes
/// an owner, [`may_remove`] keeps the organization managed, and an
/// organization that has an owner keeps one.
pub fn removal(by: Role, target: Role, managers: Managers) -> Removal {
    if target == Role::Owner && by < Role::Owner {
        Removal::NeedsRole(Role::Owner)
    } else if !may_remove(target, managers) {
        Removal::LastAdmin
    } else if target == Role::Owner && managers.owners <= 1 {
        Removal::LastOwner
    } else {
        Removal::Allowed
    }
}

/// Whether a member with role `by` may change a member's role from `from`
/// to `to` in an organization whose managers are `managers`: only an owner
/// makes or unmakes an owner, the organization keeps a member whose role
/// is `admin` and someone to manage it (as for [`removal`]), and its last
/// owner stays owner.
pub fn role_change(by: Role, from: Role, to: Role, managers: Managers) -> Removal {
    if (from == Role::Owner || to == Role::Owner) && by < Role::Owner {
        return Removal::NeedsRole(Role::Owner);
    }
    let leaves_managers = match (from, to) {
        (Role::Admin, to) if to != Role::Admin => managers.admins <= 1,
        (Role::Owner, Role::Viewer | Role::Editor) => managers.admins + managers.owners <= 1,
        _ => false,
    };
    if leaves_managers {
        Removal::LastAdmin
    } else if from == Role::Owner && to != Role::Owner && managers.owners <= 1 {
        Removal::LastOwner
    } else {
        Removal::Allowed
    }
}

/// The answer of [`removal`] and [`role_change`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// The member may be removed.
    Allowed,
    /// Only a member with this role (or above) may remove them.
    NeedsRole(Role),
    /// They are the last admin, or the last who can manage the organization.
    LastAdmin,
    /// They are the organization's only owner, who stays owner.
    LastOwner,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_owner_changes_owners_and_the_last_admin_stays_admin() {
        let two = Managers {
            admins: 2,
            owners: 1,
        };
        let change = |by, from, to, m| role_change(by, from, to, m);
        assert_eq!(
            change(Role::Admin, Role::Editor, Role::Owner, two),
            Removal::NeedsRole(Role::Owner)
        );
        assert_eq!(
            change(Role::Admin, Role::Owner, Role::Viewer, two),
            Removal::NeedsRole(Role::Owner)
        );
        assert_eq!(
            change(Role::Owner, Role::Editor, Role::Owner, two),
            Removal::Allowed
        );
        assert_eq!(
            change(Role::Admin, Role::Viewer, Role::Admin, two),
            Removal::Allowed
        );
        assert_eq!(
            change(Role::Admin, Role::Admin, Role::Editor, two),
            Removal::Allowed
        );
        let one_admin = Managers {
            admins: 1,
            owners: 1,
        };
        assert_eq!(
            change(Role::Owner, Role::Admin, Role::Owner, one_admin),
            Removal::LastAdmin,
            "the last admin stays admin, even to become owner"
        );
        assert_eq!(
            change(Role::Owner, Role::Owner, Role::Admin, one_admin),
            Removal::LastOwner,
            "the only owner stays owner"
        );
        let two_owners = Managers {
            admins: 1,
            owners: 2,
        };
        assert_eq!(
            change(Role::Owner, Role::Owner, Role::Admin, two_owners),
            Removal::Allowed
        );
        assert_eq!(
            change(Role::Owner, Role::Owner, Role::Viewer, two_owners),
            Removal::Allowed
        );
        let lone_owner = Managers {
            admins: 0,
            owners: 1,
        };
        assert_eq!(
            change(Role::Owner, Role::Owner, Role::Editor, lone_owner),
            Removal::LastAdmin
        );
    }

    #[test]
    fn only_an_owner_removes_an_owner_and_someone_always_manages() {
        let two = Managers {
            admins: 2,
            owners: 2,
        };
        assert_eq!(
            removal(Role::Admin, Role::Owner, two),
            Removal::NeedsRole(Role::Owner)
        );
        assert_eq!(removal(Role::Owner, Role::Owner, two), Removal::Allowed);
        assert_eq!(removal(Role::Admin, Role::Editor, two), Removal::Allowed);
        let one_admin = Managers {
            admins: 1,
            owners: 3,
        };
        assert_eq!(
            removal(Role::Owner, Role::Admin, one_admin),
            Removal::LastAdmin
        );
        let one_owner = Managers {
            admins: 2,
            owners: 1,
        };
        assert_eq!(
            removal(Role::Owner, Role::Owner, one_owner),
            Removal::LastOwner
        );
    }

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
    fn email_keys_fold_ascii_case_only() {
        assert_eq!(email_key(" Kate@A.test "), "kate@a.test");
        assert_ne!(email_key("\u{212A}ate@a.test"), email_key("kate@a.test"));
        assert_ne!(email_key("\u{130}@a.test"), email_key("i\u{307}@a.test"));
    }

    #[test]
    fn the_last_admin_stays() {
        let m = |admins, owners| Managers { admins, owners };
        assert!(
            !may_remove(Role::Admin, m(1, 1)),
            "an owner beside does not count"
        );
        assert!(may_remove(Role::Admin, m(2, 0)));
        assert!(may_remove(Role::Owner, m(1, 1)));
        assert!(!may_remove(Role::Owner, m(0, 1)), "nobody would manage it");
        assert!(may_remove(Role::Viewer, m(1, 0)));
        assert!(may_remove(Role::Editor, m(0, 0)));
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
            "a\u{0}@b.de",
        ] {
            assert!(!is_plausible_email(bad), "{bad}");
        }
    }
}
