//! Dashboard identity: JWT bearer tokens, HS256 only, signed with
//! `VIDPULSE_JWT_SECRET` or, when it is unset, a secret generated once and
//! kept in the database (so every node and `vidpulse admin issue-token`
//! agree). The algorithm is pinned: a token whose header names anything else
//! (`none`, `RS256`, ..) is refused before its signature is looked at.
//! Issuer and audience are checked when configured; `exp` is required.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use chrono::{DateTime, Duration, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;
use vidpulse_domain::identity::is_plausible_email;
use vidpulse_store::{Store, StoreError, User};

use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// Clock skew tolerated on `exp`, in seconds.
pub const LEEWAY_SECS: i64 = 30;

/// The settings key of the generated secret.
pub const SECRET_SETTING: &str = "jwt_secret";

/// Identity settings.
#[derive(Debug, Clone, Default)]
pub struct IdentityConfig {
    /// HS256 secret; `None`: the one kept in the database.
    pub secret: Option<String>,
    /// Required `iss`, when set.
    pub issuer: Option<String>,
    /// Required `aud`, when set.
    pub audience: Option<String>,
}

/// The claims vidpulse reads from a dashboard token.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Claims {
    /// Subject: the user's stable id at the identity provider.
    pub sub: String,
    /// The user's e-mail address.
    #[serde(default)]
    pub email: Option<String>,
    /// Expiry, seconds since the epoch.
    pub exp: i64,
    /// Issued at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iat: Option<i64>,
    /// Issuer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iss: Option<String>,
    /// Audience.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aud: Option<String>,
}

/// Verifies dashboard tokens; the secret is resolved on first use.
#[derive(Debug)]
pub struct Identity {
    config: IdentityConfig,
    secret: OnceCell<Vec<u8>>,
}

impl Identity {
    /// An identity with `config`.
    pub fn new(config: IdentityConfig) -> Self {
        Self {
            config,
            secret: OnceCell::new(),
        }
    }

    /// The HS256 secret: the configured one, else the database's (created
    /// on first use).
    pub async fn secret(&self, store: &dyn Store) -> Result<&[u8], StoreError> {
        self.secret
            .get_or_try_init(|| async {
                match &self.config.secret {
                    Some(s) => Ok(s.as_bytes().to_vec()),
                    None => {
                        let fresh = hex::encode(rand::random::<[u8; 32]>());
                        let stored = store.setting_or_insert(SECRET_SETTING, &fresh).await?;
                        Ok(stored.into_bytes())
                    }
                }
            })
            .await
            .map(Vec::as_slice)
    }

    /// Checks `token` at `now` (the service's clock, so expiry is testable)
    /// and returns its claims.
    pub fn verify(
        &self,
        secret: &[u8],
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Claims, &'static str> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_required_spec_claims(&["exp", "sub"]);
        // Expiry is checked below against `now`, with the same leeway.
        validation.validate_exp = false;
        match &self.config.issuer {
            Some(iss) => {
                validation.set_issuer(&[iss]);
                validation.required_spec_claims.insert("iss".to_owned());
            }
            None => validation.iss = None,
        }
        match &self.config.audience {
            Some(aud) => {
                validation.set_audience(&[aud]);
                validation.required_spec_claims.insert("aud".to_owned());
            }
            None => validation.validate_aud = false,
        }
        let data =
            jsonwebtoken::decode::<Claims>(token, &DecodingKey::from_secret(secret), &validation)
                .map_err(|e| {
                use jsonwebtoken::errors::ErrorKind;
                match e.kind() {
                    ErrorKind::ExpiredSignature => "The token has expired",
                    ErrorKind::InvalidSignature => "The token's signature does not verify",
                    ErrorKind::InvalidAlgorithm => "The token is not signed with HS256",
                    ErrorKind::InvalidIssuer => "The token's issuer is not accepted",
                    ErrorKind::InvalidAudience => "The token's audience is not accepted",
                    ErrorKind::MissingRequiredClaim(_) => "The token lacks a required claim",
                    _ => "The token is malformed",
                }
            })?;
        if data.claims.exp + LEEWAY_SECS < now.timestamp() {
            return Err("The token has expired");
        }
        Ok(data.claims)
    }

    /// Signs a token for `sub` and `email` valid for `ttl` from `now`, with
    /// the configured issuer and audience.
    pub fn issue(
        &self,
        secret: &[u8],
        sub: &str,
        email: &str,
        now: DateTime<Utc>,
        ttl: Duration,
    ) -> Result<String, jsonwebtoken::errors::Error> {
        let claims = Claims {
            sub: sub.to_owned(),
            email: Some(email.to_owned()),
            exp: (now + ttl).timestamp(),
            iat: Some(now.timestamp()),
            iss: self.config.issuer.clone(),
            aud: self.config.audience.clone(),
        };
        jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &EncodingKey::from_secret(secret),
        )
    }
}

/// A request with a valid dashboard token: the user it names (created on
/// first sight from `sub` and `email`).
#[derive(Debug, Clone)]
pub struct UserAuth {
    /// The user.
    pub user: User,
}

fn invalid_token(message: &str) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::UNAUTHORIZED,
        ErrorCode::InvalidToken,
        message,
    )
}

impl FromRequestParts<AppState> for UserAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, ApiError> {
        let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
            return Err(ApiError::new(
                axum::http::StatusCode::UNAUTHORIZED,
                ErrorCode::MissingAuth,
                "Authorization header with a Bearer token is required",
            ));
        };
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| invalid_token("Authorization must be `Bearer <token>`"))?;
        let identity: &Arc<Identity> = &app.identity;
        let secret = identity.secret(app.store.as_ref()).await?;
        let claims = identity
            .verify(secret, token, app.clock.now())
            .map_err(invalid_token)?;
        let email = claims
            .email
            .as_deref()
            .map(str::trim)
            .filter(|e| is_plausible_email(e))
            .ok_or_else(|| invalid_token("The token has no valid `email` claim"))?;
        let now = app.clock.now();
        match app.store.user_for_identity(&claims.sub, email, now).await {
            Ok(user) => Ok(Self { user }),
            Err(StoreError::Conflict { .. }) => Err(ApiError::new(
                axum::http::StatusCode::CONFLICT,
                ErrorCode::IdentityConflict,
                "This e-mail address belongs to another identity",
            )),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn identity(issuer: Option<&str>, audience: Option<&str>) -> Identity {
        Identity::new(IdentityConfig {
            secret: Some("s3cret".into()),
            issuer: issuer.map(str::to_owned),
            audience: audience.map(str::to_owned),
        })
    }

    #[test]
    fn tokens_round_trip_and_bad_ones_are_refused() {
        let id = identity(Some("vidpulse"), Some("dashboard"));
        let now = Utc::now();
        let t = id
            .issue(
                b"s3cret",
                "local|ab",
                "ann@example.com",
                now,
                Duration::hours(1),
            )
            .unwrap();
        let c = id.verify(b"s3cret", &t, now).unwrap();
        assert_eq!(
            (c.sub.as_str(), c.email.as_deref()),
            ("local|ab", Some("ann@example.com"))
        );
        // Wrong secret, expired, other issuer or audience, garbage.
        assert!(id.verify(b"other", &t, now).is_err());
        let old = Utc.with_ymd_and_hms(2020, 1, 1, 0, 0, 0).unwrap();
        let expired = id
            .issue(b"s3cret", "x", "a@b.co", old, Duration::hours(1))
            .unwrap();
        assert_eq!(
            id.verify(b"s3cret", &expired, now),
            Err("The token has expired")
        );
        let foreign = identity(Some("someone-else"), Some("dashboard"))
            .issue(b"s3cret", "x", "a@b.co", now, Duration::hours(1))
            .unwrap();
        assert!(id.verify(b"s3cret", &foreign, now).is_err());
        let no_aud = identity(Some("vidpulse"), None)
            .issue(b"s3cret", "x", "a@b.co", now, Duration::hours(1))
            .unwrap();
        assert!(id.verify(b"s3cret", &no_aud, now).is_err());
        assert!(id.verify(b"s3cret", "not.a.token", now).is_err());
    }

    #[test]
    fn alg_none_and_other_algorithms_are_refused() {
        use base64_like::url;
        let id = identity(None, None);
        let exp = (Utc::now() + Duration::hours(1)).timestamp();
        let payload = url(&format!(r#"{{"sub":"x","email":"a@b.co","exp":{exp}}}"#));
        for alg in ["none", "HS512", "RS256"] {
            let header = url(&format!(r#"{{"alg":"{alg}","typ":"JWT"}}"#));
            let token = format!("{header}.{payload}.");
            assert!(id.verify(b"s3cret", &token, Utc::now()).is_err(), "{alg}");
        }
    }

    /// Unpadded URL-safe base64, enough for crafting headers in tests.
    mod base64_like {
        pub fn url(s: &str) -> String {
            const A: &[u8; 64] =
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let b = s.as_bytes();
            let mut out = String::new();
            for chunk in b.chunks(3) {
                let n = chunk.iter().fold(0u32, |acc, x| (acc << 8) | u32::from(*x))
                    << (8 * (3 - chunk.len()));
                for i in 0..=chunk.len() {
                    out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
                }
            }
            out
        }
    }
}
