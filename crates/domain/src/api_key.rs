//! API key secrets: generated once, shown once, stored only as a hash.
//!
//! A key looks like `vpk_` followed by 40 base62 characters. Its first 12
//! characters (`vpk_` and 8 more) are the prefix, stored in clear to find the
//! row and to show in listings; the SHA-256 of the whole key is stored and
//! compared in constant time. Keys carry 238 bits of randomness, so a fast
//! hash is the right tool (a password hash would only slow every request).
//!
//! A key also carries its [`Scopes`]: `read` (every `GET` of the public
//! API) and `write` (everything that changes something); a key with both has
//! full access, the default.

use std::fmt;
use std::str::FromStr;

use rand::Rng;
use rand::distr::Alphanumeric;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

const SCHEME: &str = "vpk_";
const RANDOM_LEN: usize = 40;
/// Length of the clear prefix stored to look a key up.
pub const PREFIX_LEN: usize = 12;

/// A freshly generated API key: the secret to show once, and what to store.
#[derive(Debug, Clone)]
pub struct NewApiKeySecret {
    /// The whole key, shown to the user once.
    pub secret: String,
    /// The clear prefix.
    pub prefix: String,
    /// SHA-256 of the key.
    pub hash: [u8; 32],
}

/// Generates a new random API key.
pub fn generate() -> NewApiKeySecret {
    let random: String = rand::rng()
        .sample_iter(&Alphanumeric)
        .take(RANDOM_LEN)
        .map(char::from)
        .collect();
    let secret = format!("{SCHEME}{random}");
    NewApiKeySecret {
        prefix: secret[..PREFIX_LEN].to_owned(),
        hash: hash(&secret),
        secret,
    }
}

/// SHA-256 of a presented key.
pub fn hash(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The lookup prefix of a presented key, or `None` when it cannot be a key of ours.
pub fn prefix_of(presented: &str) -> Option<&str> {
    let well_formed = presented.len() == SCHEME.len() + RANDOM_LEN
        && presented.starts_with(SCHEME)
        && presented[SCHEME.len()..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric());
    well_formed.then(|| &presented[..PREFIX_LEN])
}

/// Whether `presented` hashes to `stored`, compared in constant time.
pub fn verify(presented: &str, stored: &[u8]) -> bool {
    hash(presented).ct_eq(stored).into()
}

/// One thing a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Reads: answers that change nothing.
    Read,
    /// Writes: tracking, editing, deleting, refreshing, sending.
    Write,
}

impl Scope {
    /// The spelling of the interfaces and the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Write => "write",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a key may do: `read` alone (read only), or `read` and `write` (full
/// access, the default and what keys made before scopes existed have). A
/// key that may write but not read is not a thing: a write answers what it
/// wrote, which is a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scopes {
    write: bool,
}

/// Scopes that cannot be a key's, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopesError {
    /// No scope at all.
    #[error("at least one scope is needed: `read` (read only) or `read,write` (full access)")]
    Empty,
    /// A name that is no scope.
    #[error("unknown scope `{0}`: the scopes are `read` and `write`")]
    Unknown(String),
    /// `write` without `read`.
    #[error("`write` needs `read`: give `read` (read only) or `read,write` (full access)")]
    WriteWithoutRead,
}

impl Scopes {
    /// `read` and `write`: everything.
    pub const FULL: Scopes = Scopes { write: true };
    /// `read` alone.
    pub const READ_ONLY: Scopes = Scopes { write: false };

    /// Whether these scopes include `scope`.
    pub fn allows(self, scope: Scope) -> bool {
        match scope {
            Scope::Read => true,
            Scope::Write => self.write,
        }
    }

    /// Whether these scopes include `write`.
    pub fn allows_write(self) -> bool {
        self.write
    }

    /// The scopes, `read` first.
    pub fn list(self) -> Vec<Scope> {
        if self.write {
            vec![Scope::Read, Scope::Write]
        } else {
            vec![Scope::Read]
        }
    }

    /// Scopes from their names (any order, repeats and surrounding spaces
    /// ignored, names in lower case).
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, ScopesError> {
        let (mut read, mut write) = (false, false);
        for name in names {
            match name.trim() {
                "read" => read = true,
                "write" => write = true,
                other => return Err(ScopesError::Unknown(other.to_owned())),
            }
        }
        match (read, write) {
            (false, false) => Err(ScopesError::Empty),
            (false, true) => Err(ScopesError::WriteWithoutRead),
            (true, write) => Ok(Scopes { write }),
        }
    }
}

impl Default for Scopes {
    fn default() -> Self {
        Scopes::FULL
    }
}

/// `read` or `read,write`: how the database and the command line write them.
impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.write { "read,write" } else { "read" })
    }
}

/// Comma-separated names: `read`, `read,write` (`write,read` too).
impl FromStr for Scopes {
    type Err = ScopesError;
    fn from_str(s: &str) -> Result<Self, ScopesError> {
        if s.trim().is_empty() {
            return Err(ScopesError::Empty);
        }
        Scopes::from_names(s.split(','))
    }
}

/// A JSON array of names: `["read"]`, `["read", "write"]`.
impl Serialize for Scopes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let list = self.list();
        let mut seq = serializer.serialize_seq(Some(list.len()))?;
        for scope in list {
            seq.serialize_element(scope.as_str())?;
        }
        seq.end()
    }
}

/// From a JSON array of names, refused as [`Scopes::from_names`] refuses them.
impl<'de> Deserialize<'de> for Scopes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> Visitor<'de> for Names {
            type Value = Scopes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of scope names")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scopes, A::Error> {
                let mut names: Vec<String> = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    names.push(name);
                }
                Scopes::from_names(names.iter().map(String::as_str)).map_err(de::Error::custom)
            }
        }
        deserializer.deserialize_seq(Names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_parse_and_render() {
        assert_eq!("read".parse(), Ok(Scopes::READ_ONLY));
        assert_eq!("read,write".parse(), Ok(Scopes::FULL));
        assert_eq!(" write , read ".parse(), Ok(Scopes::FULL));
        assert_eq!("read,read".parse(), Ok(Scopes::READ_ONLY));
        assert_eq!("".parse::<Scopes>(), Err(ScopesError::Empty));
        assert_eq!(
            "write".parse::<Scopes>(),
            Err(ScopesError::WriteWithoutRead)
        );
        assert_eq!(
            "read,admin".parse::<Scopes>(),
            Err(ScopesError::Unknown("admin".into()))
        );
        assert_eq!(
            "Read".parse::<Scopes>(),
            Err(ScopesError::Unknown("Read".into()))
        );
        for scopes in [Scopes::FULL, Scopes::READ_ONLY] {
            assert_eq!(scopes.to_string().parse(), Ok(scopes));
            let json = serde_json::to_value(scopes).unwrap();
            assert_eq!(serde_json::from_value::<Scopes>(json).unwrap(), scopes);
        }
        assert_eq!(
            serde_json::to_value(Scopes::FULL).unwrap(),
            serde_json::json!(["read", "write"])
        );
        assert!(serde_json::from_value::<Scopes>(serde_json::json!([])).is_err());
        assert!(serde_json::from_value::<Scopes>(serde_json::json!("read")).is_err());
        assert_eq!(Scopes::default(), Scopes::FULL);
        assert!(Scopes::READ_ONLY.allows(Scope::Read));
        assert!(!Scopes::READ_ONLY.allows(Scope::Write));
        assert!(Scopes::FULL.allows_write());
    }

    #[test]
    fn generated_keys_verify_and_have_a_prefix() {
        let k = generate();
        assert_eq!(prefix_of(&k.secret), Some(k.prefix.as_str()));
        assert!(verify(&k.secret, &k.hash));
        assert!(!verify(&generate().secret, &k.hash));
        assert_ne!(generate().secret, k.secret);
    }

    #[test]
    fn malformed_keys_have_no_prefix() {
        assert_eq!(prefix_of(""), None);
        assert_eq!(prefix_of("vpk_short"), None);
        assert_eq!(prefix_of(&format!("xxx_{}", "a".repeat(40))), None);
        assert_eq!(prefix_of(&format!("vpk_{}", "é".repeat(20))), None);
    }
}
