//! Dashboard identity: JWT bearer tokens with pinned algorithms.
//!
//! - Without `VIDPULSE_JWT_JWKS_URL`: HS256 only, signed with
//!   `VIDPULSE_JWT_SECRET` or, when it is unset, a secret generated once and
//!   kept in the database (so every node and `vidpulse admin issue-token`
//!   agree).
//! - With it: RS256 or ES256 only, against the JWKS at that address (the
//!   operator's identity provider), cached and fetched again when a token
//!   names an unknown `kid` (at most every [`IdentityConfig::jwks_refresh_floor`]).
//!   A key is used only for its own algorithm: an RSA key never checks an
//!   HS256 or ES256 signature.
//!
//! A token whose header names another algorithm (`none` included) is
//! refused before its signature is looked at. Issuer and audience are
//! checked when configured; `exp` is required.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use chrono::{DateTime, Duration, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use tokio::sync::{Mutex, OnceCell, RwLock};
use vidpulse_domain::names::EmailAddress;
use vidpulse_store::{Store, StoreError, User};

use crate::error::{ApiError, ErrorCode};
use crate::sign_in::session::SessionAuth;
use crate::state::AppState;

/// Clock skew tolerated on `exp`, in seconds.
pub const LEEWAY_SECS: i64 = 30;

/// The settings key of the generated secret.
pub const SECRET_SETTING: &str = "jwt_secret";

/// Identity settings.
#[derive(Debug, Clone)]
pub struct IdentityConfig {
    /// HS256 secret; `None`: the one kept in the database.
    pub secret: Option<String>,
    /// Required `iss`, when set.
    pub issuer: Option<String>,
    /// Required `aud`, when set.
    pub audience: Option<String>,
    /// Verify RS256/ES256 tokens against this JWKS instead of HS256.
    pub jwks_url: Option<String>,
    /// Least time between two fetches of the JWKS.
    pub jwks_refresh_floor: StdDuration,
}

impl Default for IdentityConfig {
    fn default() -> Self {
        Self {
            secret: None,
            issuer: None,
            audience: None,
            jwks_url: None,
            jwks_refresh_floor: StdDuration::from_secs(30),
        }
    }
}

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// The token is bad: 401 with this message.
    Invalid(&'static str),
    /// The keys to check it cannot be had now: 503.
    Unavailable(String),
}

/// The largest JWKS document read.
const MAX_JWKS_BYTES: usize = 256 * 1024;

/// Keys of the identity provider, by `kid`, with the algorithm each serves.
#[derive(Debug)]
struct Jwks {
    url: String,
    client: reqwest::Client,
    floor: StdDuration,
    keys: RwLock<HashMap<String, (DecodingKey, Algorithm)>>,
    fetched: Mutex<Option<Instant>>,
}

impl Jwks {
    fn new(url: String, floor: StdDuration) -> Self {
        let client = reqwest::Client::builder()
            .timeout(StdDuration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Self {
            url,
            client,
            floor,
            keys: RwLock::new(HashMap::new()),
            fetched: Mutex::new(None),
        }
    }

    /// The key `kid`, fetching the set again when it is unknown (not more
    /// often than the floor).
    async fn key(&self, kid: &str) -> Result<Option<(DecodingKey, Algorithm)>, TokenError> {
        if let Some(k) = self.keys.read().await.get(kid) {
            return Ok(Some(k.clone()));
        }
        let mut fetched = self.fetched.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(k) = self.keys.read().await.get(kid) {
            return Ok(Some(k.clone()));
        }
        if fetched.is_some_and(|t| t.elapsed() < self.floor) {
            return Ok(None);
        }
        let keys = self.fetch().await?;
        *fetched = Some(Instant::now());
        let found = keys.get(kid).cloned();
        *self.keys.write().await = keys;
        Ok(found)
    }

    async fn fetch(&self) -> Result<HashMap<String, (DecodingKey, Algorithm)>, TokenError> {
        let unavailable = |why: String| {
            tracing::warn!(url = %self.url, error = %why, "JWKS fetch failed");
            TokenError::Unavailable("The identity provider's keys cannot be read now".into())
        };
        let response = self
            .client
            .get(&self.url)
            .send()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        if !response.status().is_success() {
            return Err(unavailable(format!("status {}", response.status())));
        }
        if response
            .content_length()
            .is_some_and(|n| n as usize > MAX_JWKS_BYTES)
        {
            return Err(unavailable("document too large".into()));
        }
        let body = response
            .bytes()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        if body.len() > MAX_JWKS_BYTES {
            return Err(unavailable("document too large".into()));
        }
        let set: jsonwebtoken::jwk::JwkSet =
            serde_json::from_slice(&body).map_err(|e| unavailable(e.to_string()))?;
        Ok(set
            .keys
            .iter()
            .filter_map(|jwk| {
                let kid = jwk.common.key_id.clone()?;
                let alg = key_algorithm(jwk)?;
                let key = DecodingKey::from_jwk(jwk).ok()?;
                Some((kid, (key, alg)))
            })
            .collect())
    }
}

/// The one algorithm a JWK may verify: RS256 for RSA keys, ES256 for P-256
/// keys; a key whose `alg` says otherwise, or of another type, is skipped.
fn key_algorithm(jwk: &jsonwebtoken::jwk::Jwk) -> Option<Algorithm> {
    use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, KeyAlgorithm};
    let (alg, expected) = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => (Algorithm::RS256, KeyAlgorithm::RS256),
        AlgorithmParameters::EllipticCurve(p) if p.curve == EllipticCurve::P256 => {
            (Algorithm::ES256, KeyAlgorithm::ES256)
        }
        _ => return None,
    };
    match jwk.common.key_algorithm {
        None => Some(alg),
        Some(a) if a == expected => Some(alg),
        Some(_) => None,
    }
}

/// The longest `sub` claim accepted (it is stored with the user).
const MAX_SUBJECT_BYTES: usize = 255;

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
    /// Not before, seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
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
    jwks: Option<Jwks>,
}

impl Identity {
    /// An identity with `config`.
    pub fn new(config: IdentityConfig) -> Self {
        let jwks = config
            .jwks_url
            .clone()
            .map(|url| Jwks::new(url, config.jwks_refresh_floor));
        Self {
            config,
            secret: OnceCell::new(),
            jwks,
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
    /// with the configured keys and returns its claims.
    pub async fn verify_token(
        &self,
        store: &dyn Store,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Claims, TokenError> {
        let Some(jwks) = &self.jwks else {
            let secret = self
                .secret(store)
                .await
                .map_err(|e| TokenError::Unavailable(e.to_string()))?;
            return self.verify(secret, token, now).map_err(TokenError::Invalid);
        };
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| TokenError::Invalid("The token is malformed"))?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(TokenError::Invalid(
                "The token is not signed with RS256 or ES256",
            ));
        }
        let kid = header
            .kid
            .ok_or(TokenError::Invalid("The token names no key (`kid`)"))?;
        let (key, alg) = jwks.key(&kid).await?.ok_or(TokenError::Invalid(
            "The token's key is not the identity provider's",
        ))?;
        if alg != header.alg {
            return Err(TokenError::Invalid(
                "The token's algorithm does not match its key",
            ));
        }
        self.verify_with(&key, alg, token, now)
            .map_err(TokenError::Invalid)
    }

    /// Checks an HS256 `token` signed with `secret` at `now`.
    pub fn verify(
        &self,
        secret: &[u8],
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Claims, &'static str> {
        self.verify_with(
            &DecodingKey::from_secret(secret),
            Algorithm::HS256,
            token,
            now,
        )
    }

    fn verify_with(
        &self,
        key: &DecodingKey,
        alg: Algorithm,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Claims, &'static str> {
        let mut validation = Validation::new(alg);
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
        let data = jsonwebtoken::decode::<Claims>(token, key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            match e.kind() {
                ErrorKind::ExpiredSignature => "The token has expired",
                ErrorKind::InvalidSignature => "The token's signature does not verify",
                ErrorKind::InvalidAlgorithm => {
                    "The token is not signed with the expected algorithm"
                }
                ErrorKind::InvalidIssuer => "The token's issuer is not accepted",
                ErrorKind::InvalidAudience => "The token's audience is not accepted",
                ErrorKind::MissingRequiredClaim(_) => "The token lacks a required claim",
                _ => "The token is malformed",
            }
        })?;
        if data.claims.exp + LEEWAY_SECS < now.timestamp() {
            return Err("The token has expired");
        }
        if data
            .claims
            .nbf
            .is_some_and(|nbf| nbf - LEEWAY_SECS > now.timestamp())
        {
            return Err("The token is not valid yet");
        }
        let sub = &data.claims.sub;
        if sub.is_empty() || sub.len() > MAX_SUBJECT_BYTES || sub.chars().any(char::is_control) {
            return Err(
                "The token's `sub` claim must be 1 to 255 bytes without control characters",
            );
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
            nbf: None,
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
            // The web app's session stands in for the token.
            if SessionAuth::offered(parts) {
                let session = SessionAuth::from_request_parts(parts, app).await?;
                return Ok(Self { user: session.user });
            }
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
        let claims = identity
            .verify_token(app.store.as_ref(), token, app.clock.now())
            .await
            .map_err(|e| match e {
                TokenError::Invalid(why) => invalid_token(why),
                TokenError::Unavailable(why) => ApiError::new(
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::ServiceUnavailable,
                    why,
                ),
            })?;
        let email = claims
            .email
            .as_deref()
            .and_then(|e| EmailAddress::parse(e).ok())
            .ok_or_else(|| invalid_token("The token has no valid `email` claim"))?;
        let email = email.as_str();
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
            ..IdentityConfig::default()
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

    /// A token with these claims, signed with `s3cret`.
    fn signed(claims: &serde_json::Value) -> String {
        jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            claims,
            &EncodingKey::from_secret(b"s3cret"),
        )
        .unwrap()
    }

    #[test]
    fn tokens_not_valid_yet_and_unusable_subjects_are_refused() {
        let id = identity(None, None);
        let now = Utc::now();
        let exp = (now + Duration::hours(1)).timestamp();
        let token = |sub: &str, nbf: Option<i64>| {
            let mut c = serde_json::json!({"sub": sub, "email": "a@b.co", "exp": exp});
            if let Some(nbf) = nbf {
                c["nbf"] = nbf.into();
            }
            signed(&c)
        };
        let later = (now + Duration::minutes(10)).timestamp();
        assert_eq!(
            id.verify(b"s3cret", &token("x", Some(later)), now),
            Err("The token is not valid yet")
        );
        assert!(
            id.verify(b"s3cret", &token("x", Some(now.timestamp())), now)
                .is_ok()
        );
        for bad in [
            String::new(),
            "x".repeat(256),
            "a\u{0}b".to_owned(),
            "a\nb".to_owned(),
        ] {
            assert!(
                id.verify(b"s3cret", &token(&bad, None), now).is_err(),
                "{bad:?}"
            );
        }
        assert!(
            id.verify(b"s3cret", &token(&"x".repeat(255), None), now)
                .is_ok()
        );
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
