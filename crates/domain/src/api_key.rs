//! API key secrets: generated once, shown once, stored only as a hash.
//!
//! A key looks like `vpk_` followed by 40 base62 characters. Its first 12
//! characters (`vpk_` and 8 more) are the prefix, stored in clear to find the
//! row and to show in listings; the SHA-256 of the whole key is stored and
//! compared in constant time. Keys carry 238 bits of randomness, so a fast
//! hash is the right tool (a password hash would only slow every request).

use rand::Rng;
use rand::distr::Alphanumeric;
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

#[cfg(test)]
mod tests {
    use super::*;

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
