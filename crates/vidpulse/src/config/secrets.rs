//! Secret settings (keys, tokens, the JWT secret, the SMTP URL with its
//! password): parsed into [`SecretString`], whose `Debug` prints
//! `[REDACTED]`, and declared with `hide_env_values` so `--help` never shows
//! what the environment holds.

use secrecy::{ExposeSecret, SecretString};

/// The shortest HS256 secret accepted: as many bytes as the hash's output.
pub const MIN_JWT_SECRET_BYTES: usize = 32;

/// Parses a secret: trimmed, not empty.
pub(super) fn parse_secret(s: &str) -> Result<SecretString, String> {
    let s = s.trim();
    if s.is_empty() {
        Err("must not be empty".into())
    } else {
        Ok(SecretString::from(s))
    }
}

/// Parses the development identity's HS256 secret: at least
/// [`MIN_JWT_SECRET_BYTES`] bytes, so it cannot be guessed.
pub(super) fn parse_jwt_secret(s: &str) -> Result<SecretString, String> {
    let secret = parse_secret(s)?;
    let len = secret.expose_secret().len();
    if len < MIN_JWT_SECRET_BYTES {
        return Err(format!(
            "must be at least {MIN_JWT_SECRET_BYTES} bytes (it is {len}); \
             `openssl rand -base64 48` makes one"
        ));
    }
    Ok(secret)
}

/// The value of an optional secret, for the crate that uses it.
pub(super) fn exposed(secret: Option<&SecretString>) -> Option<String> {
    secret.map(|s| s.expose_secret().to_owned())
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::config::Cli;

    /// Variables whose values are secret (or may carry a password).
    const SECRET_VARIABLES: [&str; 8] = [
        "DATABASE_URL",
        "VIDPULSE_REDIS_URL",
        "VIDPULSE_SMTP_URL",
        "VIDPULSE_JWT_SECRET",
        "VIDPULSE_YOUTUBE_API_KEY",
        "VIDPULSE_TIKTOK_CLIENT_KEY",
        "VIDPULSE_TIKTOK_CLIENT_SECRET",
        "VIDPULSE_INSTAGRAM_ACCESS_TOKEN",
    ];

    #[test]
    fn jwt_secrets_are_long_enough() {
        assert!(parse_jwt_secret("x").is_err());
        assert!(parse_jwt_secret(&"x".repeat(31)).is_err());
        assert!(parse_jwt_secret(&"x".repeat(32)).is_ok());
        assert!(parse_secret("  ").is_err());
    }

    #[test]
    fn help_never_shows_a_secret_variable_s_value() {
        fn walk(cmd: &clap::Command, seen: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let Some(env) = arg.get_env().and_then(|e| e.to_str()) else {
                    continue;
                };
                if SECRET_VARIABLES.contains(&env) {
                    assert!(arg.is_hide_env_values_set(), "{env} shows its value");
                    seen.push(env.to_owned());
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, seen);
            }
        }
        let mut seen = Vec::new();
        walk(&Cli::command(), &mut seen);
        for env in SECRET_VARIABLES {
            assert!(seen.iter().any(|s| s == env), "{env} is not a setting");
        }
    }

    #[test]
    fn debug_output_redacts_secrets() {
        let jwt = "jwt-secret-that-is-long-enough-0123456789";
        let cli = Cli::try_parse_from([
            "vidpulse",
            "serve",
            "--jwt-secret",
            jwt,
            "--smtp-url",
            "smtp://user:smtp-password@mail.test:587",
            "--youtube-api-key",
            "youtube-key-value",
            "--tiktok-client-key",
            "tiktok-key-value",
            "--tiktok-client-secret",
            "tiktok-secret-value",
            "--instagram-access-token",
            "instagram-token-value",
            "--instagram-user-id",
            "17841400000000000",
        ])
        .unwrap();
        let debug = format!("{cli:?}");
        for secret in [
            jwt,
            "smtp-password",
            "youtube-key-value",
            "tiktok-key-value",
            "tiktok-secret-value",
            "instagram-token-value",
        ] {
            assert!(!debug.contains(secret), "{secret} in {debug}");
        }
        assert!(debug.contains("REDACTED"));
    }
}
