//! Signing in to the web app: passwords, server-side sessions and the
//! one-time links that set a password.
//!
//! Tokens never reach the database: sessions and links are found by the
//! SHA-256 of their token, which the caller computes.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::UserId;

use crate::StoreError;
use crate::users::User;

mod store;

/// A signed-in browser, as its user lists them.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Session {
    /// The session's public id (not its token).
    pub id: Uuid,
    /// When it was started (at sign-in).
    pub created_at: DateTime<Utc>,
    /// When it was last used, to the minute.
    pub last_seen_at: DateTime<Utc>,
    /// When it ends.
    pub expires_at: DateTime<Utc>,
    /// The browser's `User-Agent` at sign-in.
    pub user_agent: Option<String>,
}

/// A session to start.
#[derive(Debug, Clone)]
pub struct NewSession<'a> {
    /// SHA-256 of the token the cookie carries.
    pub token_hash: &'a [u8],
    /// Whose session it is.
    pub user: UserId,
    /// The browser's `User-Agent`.
    pub user_agent: Option<&'a str>,
    /// Now.
    pub now: DateTime<Utc>,
    /// When it ends.
    pub expires_at: DateTime<Utc>,
}

/// Passwords, sessions and password links.
#[async_trait]
pub trait SessionStore {
    /// The user with address `email` (compared as e-mail keys) and their
    /// password hash (`None` when they have none yet); `None` when no user
    /// has the address.
    async fn password_of(&self, email: &str) -> Result<Option<(User, Option<String>)>, StoreError>;

    /// The user with address `email`, created (with no identity subject
    /// and no password) when there is none.
    async fn user_by_email(&self, email: &str, now: DateTime<Utc>) -> Result<User, StoreError>;

    /// Starts a session; its public id. Ends the user's expired sessions.
    async fn start_session(&self, new: NewSession<'_>) -> Result<Uuid, StoreError>;

    /// The session whose token hashes to `token_hash` and its user, unless
    /// it has expired; notes `now` as its last use.
    async fn session(
        &self,
        token_hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Option<(Session, User)>, StoreError>;

    /// The user's sessions that have not expired, the most recently used first.
    async fn sessions(&self, user: UserId, now: DateTime<Utc>) -> Result<Vec<Session>, StoreError>;

    /// Ends session `id` of `user`; `false` when the user has no such session.
    async fn end_session(&self, user: UserId, id: Uuid) -> Result<bool, StoreError>;

    /// Ends the session whose token hashes to `token_hash` (signing out).
    async fn end_session_by_token(&self, token_hash: &[u8]) -> Result<bool, StoreError>;

    /// Records a link that lets `user` set their password until `expires_at`.
    async fn create_password_link(
        &self,
        user: UserId,
        token_hash: &[u8],
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Uses the link whose token hashes to `token_hash`: when it is known,
    /// unused and unexpired, sets its user's password to `password_hash`,
    /// marks the link used and ends the user's sessions, in one
    /// transaction; that user. `None` otherwise (nothing written).
    async fn use_password_link(
        &self,
        token_hash: &[u8],
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<User>, StoreError>;
}
