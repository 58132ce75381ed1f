//! The names users type that vidpulse normalises: e-mail addresses, creator
//! handles, tag names and campaigns. Each has one constructor that checks and
//! trims it, keeps the text as given for display, and gives the one key it is
//! stored and compared by, so no caller lowercases anything itself.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, de};

/// Longest handle, in characters (after the optional `@`).
pub const HANDLE_MAX_CHARS: usize = 100;
/// Longest campaign, in characters, after trimming.
pub const CAMPAIGN_MAX_CHARS: usize = 200;
/// Longest tag name, in characters, after trimming.
pub const TAG_MAX_CHARS: usize = 80;

/// An e-mail address: trimmed, one `@` with text on both sides, a dot in the
/// domain, no spaces or control characters, at most 254 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EmailAddress(String);

impl EmailAddress {
    /// The address in `raw`, or why it is not one.
    pub fn parse(raw: &str) -> Result<Self, NameError> {
        let email = raw.trim();
        if crate::identity::is_plausible_email(email) {
            Ok(Self(email.to_owned()))
        } else {
            Err(NameError::NotAnEmail)
        }
    }

    /// The address as given (trimmed).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form it is stored and compared in: ASCII letters lowercased,
    /// nothing else folded (`K` with a KELVIN SIGN is not `k`).
    pub fn key(&self) -> String {
        crate::identity::email_key(&self.0)
    }
}

/// A creator's handle on a platform, without its leading `@`: letters,
/// digits, `.`, `_` and `-`, at most [`HANDLE_MAX_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Handle(String);

impl Handle {
    /// The handle in `raw` (`@` and surrounding spaces dropped), or why it is not one.
    pub fn parse(raw: &str) -> Result<Self, NameError> {
        let name = raw.trim();
        let name = name.strip_prefix('@').unwrap_or(name);
        if name.is_empty() {
            return Err(NameError::Empty);
        }
        if name.chars().count() > HANDLE_MAX_CHARS {
            return Err(NameError::TooLong(HANDLE_MAX_CHARS));
        }
        if let Some(bad) = name
            .chars()
            .find(|c| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-')))
        {
            return Err(NameError::BadCharacter(bad));
        }
        Ok(Self(name.to_owned()))
    }

    /// The handle as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form handles are compared in (platforms treat them case-insensitively).
    pub fn key(&self) -> String {
        handle_key(&self.0)
    }
}

impl FromStr for Handle {
    type Err = NameError;
    fn from_str(raw: &str) -> Result<Self, NameError> {
        Self::parse(raw)
    }
}

impl<'de> Deserialize<'de> for Handle {
    /// A string holding a handle ([`Handle::parse`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Self::parse(&raw).map_err(|e| de::Error::custom(format!("the handle {e}")))
    }
}

/// The comparison key of a stored handle (see [`Handle::key`]).
pub fn handle_key(handle: &str) -> String {
    handle.to_lowercase()
}

/// A tag name: trimmed, not empty, at most [`TAG_MAX_CHARS`]; tags that
/// differ only by case are one tag.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TagName(String);

impl TagName {
    /// The tag name in `raw`, or why it is not one.
    pub fn parse(raw: &str) -> Result<Self, NameError> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(NameError::Empty);
        }
        if name.chars().count() > TAG_MAX_CHARS {
            return Err(NameError::TooLong(TAG_MAX_CHARS));
        }
        Ok(Self(name.to_owned()))
    }

    /// The name as given (trimmed).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form tags are stored and matched by.
    pub fn key(&self) -> String {
        tag_key(&self.0)
    }
}

impl FromStr for TagName {
    type Err = NameError;
    fn from_str(raw: &str) -> Result<Self, NameError> {
        Self::parse(raw)
    }
}

/// The matching key of a stored tag name (see [`TagName::key`]).
pub fn tag_key(name: &str) -> String {
    name.to_lowercase()
}

/// A campaign: trimmed, at most [`CAMPAIGN_MAX_CHARS`] of letters, digits,
/// spaces and `- _ . ( ) | : % &`. A campaign is one per organization in
/// any letter case ([`Campaign::key`]); records show the spelling it was
/// created with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Campaign(String);

impl Campaign {
    /// The campaign in `raw`; `Ok(None)` when it is empty (which clears a
    /// video's campaign), or why it is not one.
    pub fn parse(raw: &str) -> Result<Option<Self>, NameError> {
        let s = raw.trim();
        if s.is_empty() {
            return Ok(None);
        }
        if s.chars().count() > CAMPAIGN_MAX_CHARS {
            return Err(NameError::TooLong(CAMPAIGN_MAX_CHARS));
        }
        if let Some(bad) = s
            .chars()
            .find(|c| !(c.is_alphanumeric() || *c == ' ' || "-_.()|:%&".contains(*c)))
        {
            return Err(NameError::BadCharacter(bad));
        }
        Ok(Some(Self(s.to_owned())))
    }

    /// The campaign as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The campaign, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The form campaigns are matched by: lower case (Unicode rules).
    pub fn key(&self) -> String {
        campaign_key(&self.0)
    }
}

/// The form a campaign name is matched by: lower case (Unicode rules).
pub fn campaign_key(name: &str) -> String {
    name.to_lowercase()
}

impl fmt::Display for Campaign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a name was refused. The messages leave the field out: the caller
/// names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing but spaces.
    #[error("is required")]
    Empty,
    /// Longer than the limit, in characters.
    #[error("must be at most {0} characters")]
    TooLong(usize),
    /// A character the name may not hold.
    #[error("may not contain `{0}`")]
    BadCharacter(char),
    /// Not an e-mail address.
    #[error("is not an e-mail address")]
    NotAnEmail,
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case("@Mira.Cooks", "Mira.Cooks", "mira.cooks")]
    #[case("  mira_cooks ", "mira_cooks", "mira_cooks")]
    #[case("Ünïcode-1", "Ünïcode-1", "ünïcode-1")]
    fn handles_drop_the_at_and_compare_by_lowercase(
        #[case] raw: &str,
        #[case] shown: &str,
        #[case] key: &str,
    ) {
        let h = Handle::parse(raw).unwrap();
        assert_eq!((h.as_str(), h.key().as_str()), (shown, key));
    }

    #[rstest]
    #[case("", NameError::Empty)]
    #[case("@", NameError::Empty)]
    #[case("a b", NameError::BadCharacter(' '))]
    #[case("a/b", NameError::BadCharacter('/'))]
    fn bad_handles_say_why(#[case] raw: &str, #[case] why: NameError) {
        assert_eq!(Handle::parse(raw), Err(why));
    }

    #[test]
    fn long_handles_are_refused() {
        assert_eq!(
            Handle::parse(&"a".repeat(101)),
            Err(NameError::TooLong(HANDLE_MAX_CHARS))
        );
        assert!(Handle::parse(&"a".repeat(100)).is_ok());
    }

    #[test]
    fn emails_fold_ascii_case_only() {
        let e = EmailAddress::parse("  Kate@A.Test ").unwrap();
        assert_eq!(
            (e.as_str(), e.key().as_str()),
            ("Kate@A.Test", "kate@a.test")
        );
        let kelvin = EmailAddress::parse("\u{212A}ate@a.test").unwrap();
        assert_ne!(kelvin.key(), e.key());
        assert_eq!(EmailAddress::parse("no-at"), Err(NameError::NotAnEmail));
    }

    #[test]
    fn campaigns_clear_when_empty_and_refuse_other_characters() {
        assert_eq!(Campaign::parse("   "), Ok(None));
        assert_eq!(
            Campaign::parse(" Summer 2026 (EU) | part:1 & 50% ")
                .unwrap()
                .unwrap()
                .as_str(),
            "Summer 2026 (EU) | part:1 & 50%"
        );
        assert_eq!(Campaign::parse("a,b"), Err(NameError::BadCharacter(',')));
        assert_eq!(
            Campaign::parse(&"x".repeat(201)),
            Err(NameError::TooLong(CAMPAIGN_MAX_CHARS))
        );
    }

    #[test]
    fn tags_are_trimmed_and_matched_by_lowercase() {
        let t = TagName::parse(" Food ").unwrap();
        assert_eq!((t.as_str(), t.key().as_str()), ("Food", "food"));
        assert_eq!(TagName::parse("  "), Err(NameError::Empty));
    }

    proptest! {
        #[test]
        fn a_parsed_name_parses_to_itself(raw in "[@ ]?[a-zA-Z0-9._-]{1,100} ?") {
            let h = Handle::parse(&raw).unwrap();
            prop_assert_eq!(Handle::parse(h.as_str()).unwrap(), h.clone());
            prop_assert_eq!(handle_key(h.as_str()), h.key());
        }

        #[test]
        fn campaigns_round_trip(raw in "[a-zA-Z0-9 ()|:%&._-]{0,200}") {
            if let Some(c) = Campaign::parse(&raw).unwrap() {
                prop_assert_eq!(Campaign::parse(c.as_str()).unwrap(), Some(c.clone()));
            }
        }
    }
}
