//! Idempotent requests (docs/api.md, "Idempotent requests"): the
//! `Idempotency-Key` a client sends with a `POST` of the public API, what
//! makes a retry "the same request", which answers are kept for retries and
//! for how long.

use chrono::Duration;
use sha2::{Digest, Sha256};

/// Longest key, in characters.
pub const KEY_MAX_CHARS: usize = 255;

/// How long a key and its answer are kept: a retry within this time gets the
/// first answer; after it, the key is new again.
pub fn retention() -> Duration {
    Duration::hours(24)
}

/// A client's `Idempotency-Key`: 1 to [`KEY_MAX_CHARS`] visible ASCII
/// characters (`!` to `~`: no spaces, no control characters), so a UUID, a
/// ULID or a base64 token fits as it is. Compared exactly (case matters).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

/// Why a key was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The header is empty.
    #[error("the Idempotency-Key header is empty")]
    Empty,
    /// Longer than [`KEY_MAX_CHARS`].
    #[error("the Idempotency-Key must be at most {KEY_MAX_CHARS} characters")]
    TooLong,
    /// A character outside `!` to `~`.
    #[error("the Idempotency-Key may hold only visible ASCII characters (`!` to `~`, no spaces)")]
    BadCharacter,
}

impl IdempotencyKey {
    /// Reads a key as the header carries it.
    pub fn parse(raw: &[u8]) -> Result<Self, KeyError> {
        if raw.is_empty() {
            return Err(KeyError::Empty);
        }
        if raw.len() > KEY_MAX_CHARS {
            return Err(KeyError::TooLong);
        }
        if !raw.iter().all(|b| (b'!'..=b'~').contains(b)) {
            return Err(KeyError::BadCharacter);
        }
        // Visible ASCII is UTF-8.
        let text = String::from_utf8_lossy(raw).into_owned();
        Ok(Self(text))
    }

    /// The key as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What makes a retry the same request as the first: its method, its path
/// and query string, and its body byte for byte, hashed (SHA-256, lowercase
/// hex). Each part is length-prefixed, so no two requests share a
/// fingerprint by moving bytes from one part to the next.
pub fn fingerprint(method: &str, path_and_query: &str, body: &[u8]) -> String {
    let mut hash = Sha256::new();
    for part in [method.as_bytes(), path_and_query.as_bytes(), body] {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part);
    }
    hex::encode(hash.finalize())
}

/// Whether an answer of this status is kept for retries: every answer but
/// a server error (5xx) and a refusal to be tried later (429), which a
/// retry should have another go at.
pub fn keeps_answer(status: u16) -> bool {
    status != 429 && status < 500
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_visible_ascii_of_at_most_255_characters() {
        for good in [
            "a",
            "0c6e2b9a-5f3d-4c1e-9a7b-2d8f6e4c1a3b",
            "01HZX3K7Q8R9S0T1V2W3X4Y5Z6",
            "dGhpcyBpcyBhIHRlc3Q=",
            "order:42/retry#1",
        ] {
            assert_eq!(
                IdempotencyKey::parse(good.as_bytes()).unwrap().as_str(),
                good
            );
        }
        assert!(IdempotencyKey::parse("x".repeat(255).as_bytes()).is_ok());
        assert_eq!(
            IdempotencyKey::parse("x".repeat(256).as_bytes()),
            Err(KeyError::TooLong)
        );
        assert_eq!(IdempotencyKey::parse(b""), Err(KeyError::Empty));
        for bad in ["a b", "tab\there", "é", "nul\0", "line\nbreak", "\x7f"] {
            assert_eq!(
                IdempotencyKey::parse(bad.as_bytes()),
                Err(KeyError::BadCharacter),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn fingerprints_tell_requests_apart() {
        let a = fingerprint("POST", "/v1/videos/track", br#"{"urls":[]}"#);
        assert_eq!(
            a,
            fingerprint("POST", "/v1/videos/track", br#"{"urls":[]}"#)
        );
        assert_eq!(a.len(), 64);
        assert_ne!(
            a,
            fingerprint("POST", "/v1/videos/track", br#"{"urls": []}"#)
        );
        assert_ne!(
            a,
            fingerprint("POST", "/v1/bloggers/track", br#"{"urls":[]}"#)
        );
        assert_ne!(
            fingerprint("POST", "/v1/a", b"b"),
            fingerprint("POST", "/v1/ab", b""),
            "parts cannot trade bytes"
        );
    }

    #[test]
    fn every_answer_but_server_errors_and_429_is_kept() {
        for kept in [200, 201, 202, 204, 400, 401, 402, 404, 409, 422] {
            assert!(keeps_answer(kept), "{kept}");
        }
        for retried in [429, 500, 502, 503, 504] {
            assert!(!keeps_answer(retried), "{retried}");
        }
    }
}
