//! Passwords: argon2id (the crate's defaults, OWASP's recommended cost:
//! 19 MiB, 2 passes), stored as PHC strings, hashed off the async threads
//! and a few at a time (each hash holds its memory while it runs).

use std::sync::Arc;

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// Fewest characters of a password.
pub const MIN_CHARS: usize = 10;
/// Most characters of a password.
pub const MAX_CHARS: usize = 1024;

/// Checks `password` against the rules: [`MIN_CHARS`] to [`MAX_CHARS`]
/// characters, not only white space.
pub fn check(password: &str) -> Result<(), ApiError> {
    let chars = password.chars().count();
    if password.trim().is_empty() || !(MIN_CHARS..=MAX_CHARS).contains(&chars) {
        return Err(ApiError::validation(
            "password",
            format!("A password has {MIN_CHARS} to {MAX_CHARS} characters"),
        ));
    }
    Ok(())
}

/// Hashes and verifies passwords, at most a few at a time.
#[derive(Debug, Clone)]
pub struct Passwords {
    slots: Arc<Semaphore>,
    /// A hash of no one's password, verified against when an address has
    /// none, so an unknown address takes as long to refuse as a wrong password.
    decoy: Arc<String>,
}

impl Default for Passwords {
    fn default() -> Self {
        Self::new(4)
    }
}

impl Passwords {
    /// At most `at_once` hashes run at a time.
    pub fn new(at_once: usize) -> Self {
        let decoy = hash_now("vidpulse decoy password").unwrap_or_default();
        Self {
            slots: Arc::new(Semaphore::new(at_once.max(1))),
            decoy: Arc::new(decoy),
        }
    }

    /// The PHC string of `password`.
    pub async fn hash(&self, password: &str) -> Result<String, ApiError> {
        let _slot = self
            .slots
            .acquire()
            .await
            .map_err(|e| ApiError::internal(&e))?;
        let password = password.to_owned();
        tokio::task::spawn_blocking(move || hash_now(&password))
            .await
            .map_err(|e| ApiError::internal(&e))?
            .map_err(|e| ApiError::internal(&HashError(e)))
    }

    /// Whether `password` matches `stored` (a PHC string); `None` is
    /// checked against the decoy and never matches.
    pub async fn verify(&self, password: &str, stored: Option<&str>) -> Result<bool, ApiError> {
        let _slot = self
            .slots
            .acquire()
            .await
            .map_err(|e| ApiError::internal(&e))?;
        let known = stored.is_some();
        let stored = stored.unwrap_or(&self.decoy).to_owned();
        let password = password.to_owned();
        let matches = tokio::task::spawn_blocking(move || {
            PasswordHash::new(&stored)
                .map(|parsed| {
                    Argon2::default()
                        .verify_password(password.as_bytes(), &parsed)
                        .is_ok()
                })
                .unwrap_or(false)
        })
        .await
        .map_err(|e| ApiError::internal(&e))?;
        Ok(known && matches)
    }
}

fn hash_now(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>())?;
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)?
        .to_string())
}

#[derive(Debug, thiserror::Error)]
#[error("password hashing failed: {0}")]
struct HashError(argon2::password_hash::Error);

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_its_password_only() {
        let passwords = Passwords::new(2);
        let stored = passwords.hash("correct horse battery").await.unwrap();
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert!(
            passwords
                .verify("correct horse battery", Some(&stored))
                .await
                .unwrap()
        );
        assert!(
            !passwords
                .verify("correct horse batterY", Some(&stored))
                .await
                .unwrap()
        );
        assert!(!passwords.verify("anything", None).await.unwrap());
        assert!(
            !passwords
                .verify("x", Some("not a phc string"))
                .await
                .unwrap()
        );
        // Two hashes of one password differ by their salt.
        assert_ne!(
            stored,
            passwords.hash("correct horse battery").await.unwrap()
        );
    }

    #[test]
    fn the_rules_bound_the_length() {
        assert!(check("short").is_err());
        assert!(check("          ").is_err());
        assert!(check(&"x".repeat(MAX_CHARS + 1)).is_err());
        assert!(check("ten chars!").is_ok());
        assert!(check(&"é".repeat(MAX_CHARS)).is_ok());
    }
}
