//! The web app's session: a random token in an `HttpOnly` cookie (only its
//! SHA-256 is stored), and the CSRF token derived from it that every
//! state-changing request must send back in `X-CSRF-Token`.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use chrono::{DateTime, Utc};
use cookie::{Cookie, SameSite};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use vidpulse_store::{Session, User};

use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// The session cookie's name.
pub const COOKIE: &str = "vidpulse_session";

/// The header that carries the CSRF token.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// How long a session lasts from sign-in.
pub const SESSION_DAYS: i64 = 30;

/// A new session token: 32 random bytes, as hex.
pub fn new_token() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// What the store keeps of `token`: its SHA-256.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// What the store keeps of a link's `token` as sent (trimmed), when it has
/// the shape of the tokens [`new_token`] makes; `None` for any other text,
/// which no link carries (and which is then never hashed or looked up).
pub fn sent_token_hash(token: &str) -> Option<[u8; 32]> {
    let token = token.trim();
    (token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())).then(|| token_hash(token))
}

/// The CSRF token of the session `token` names: a hash only the holder of
/// the cookie can compute, so another site cannot send it.
pub fn csrf_token(token: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"vidpulse csrf\0");
    hasher.update(token.as_bytes());
    hex::encode(hasher.finalize())
}

/// The session token the request's cookies carry.
pub fn token_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == COOKIE && !c.value().is_empty())
        .map(|c| c.value().to_owned())
}

/// Whether the app is served over HTTPS (then the cookie is `Secure`).
fn secure(app: &AppState) -> bool {
    [&app.config.public_url, &app.config.mail.dashboard_url]
        .iter()
        .any(|url| url.starts_with("https://"))
}

/// The `Set-Cookie` value that keeps `token` until `expires_at`.
pub fn set_cookie(app: &AppState, token: &str, expires_at: DateTime<Utc>) -> HeaderValue {
    let max_age = (expires_at - app.clock.now()).num_seconds().max(0);
    cookie_header(
        Cookie::build((COOKIE, token.to_owned())).max_age(cookie::time::Duration::seconds(max_age)),
        app,
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(app: &AppState) -> HeaderValue {
    cookie_header(
        Cookie::build((COOKIE, "")).max_age(cookie::time::Duration::ZERO),
        app,
    )
}

fn cookie_header(cookie: cookie::CookieBuilder<'static>, app: &AppState) -> HeaderValue {
    let cookie = cookie
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure(app))
        .build();
    // Hex, digits and fixed attributes: always a valid header value.
    HeaderValue::from_str(&cookie.to_string()).unwrap_or(HeaderValue::from_static(""))
}

/// A request signed in with a session cookie (and, when it changes state,
/// carrying the session's CSRF token).
#[derive(Debug, Clone)]
pub struct SessionAuth {
    /// Who is signed in.
    pub user: User,
    /// The session.
    pub session: Session,
    /// The session's token, as the cookie carries it.
    pub token: String,
}

impl SessionAuth {
    /// Whether `parts` carries a session cookie at all.
    pub fn offered(parts: &Parts) -> bool {
        token_of(&parts.headers).is_some()
    }
}

fn session_ended() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        ErrorCode::InvalidToken,
        "The session has ended; sign in again",
    )
}

impl FromRequestParts<AppState> for SessionAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, ApiError> {
        let Some(token) = token_of(&parts.headers) else {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::MissingAuth,
                "Sign in first",
            ));
        };
        // A token of another shape was never issued: no need to ask.
        if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(session_ended());
        }
        let (session, user) = app
            .store
            .session(&token_hash(&token), app.clock.now())
            .await?
            .ok_or_else(session_ended)?;
        let safe = matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS);
        if !safe {
            let sent = parts
                .headers
                .get(CSRF_HEADER)
                .map(HeaderValue::as_bytes)
                .unwrap_or_default();
            if !bool::from(sent.ct_eq(csrf_token(&token).as_bytes())) {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    ErrorCode::CsrfFailed,
                    "This request needs the session's `X-CSRF-Token` header",
                ));
            }
        }
        Ok(Self {
            user,
            session,
            token,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, HeaderValue::from_static("a=1; b=2"));
        assert_eq!(token_of(&headers), None);
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("theme=dark; vidpulse_session=abc"),
        );
        assert_eq!(token_of(&headers).as_deref(), Some("abc"));
    }

    #[test]
    fn only_tokens_of_the_issued_shape_are_hashed() {
        let token = new_token();
        assert_eq!(
            sent_token_hash(&format!(" {token}\n")),
            Some(token_hash(&token))
        );
        for other in ["", "abc", &"g".repeat(64), &format!("{token}0")] {
            assert_eq!(sent_token_hash(other), None, "{other}");
        }
    }

    #[test]
    fn tokens_are_random_and_their_csrf_tokens_differ_from_them() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_ne!(csrf_token(&a), a);
        assert_ne!(csrf_token(&a), csrf_token(&b));
        assert_eq!(csrf_token(&a), csrf_token(&a));
    }
}
