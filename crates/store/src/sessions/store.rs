//! Sign-in, stored: the one implementation of [`SessionStore`] for both
//! backends.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use vidpulse_domain::UserId;
use vidpulse_domain::identity::email_key;

use super::{NewSession, Session, SessionStore};
use crate::StoreError;
use crate::sql::{Dialect, SqlStore, rollback_with};
use crate::users::User;

/// How often a session's `last_seen_at` is written at most: reads within a
/// minute of the last write leave it as it is.
const LAST_SEEN_PRECISION: Duration = Duration::seconds(60);

/// A user row with its password hash: id, subject, e-mail, language, hash.
type PasswordRow = (Uuid, Option<String>, String, String, Option<String>);

fn split((id, subject, email, language, hash): PasswordRow) -> (User, Option<String>) {
    (
        User {
            id: UserId(id),
            subject,
            email,
            language,
        },
        hash,
    )
}

#[derive(sqlx::FromRow)]
struct SessionUserRow {
    #[sqlx(flatten)]
    session: Session,
    user_id: Uuid,
    subject: Option<String>,
    email: String,
    language: String,
}

const SESSION_COLUMNS: &str = "s.id, s.created_at, s.last_seen_at, s.expires_at, s.user_agent";

#[async_trait]
impl<D: Dialect> SessionStore for SqlStore<D> {
    async fn password_of(&self, email: &str) -> Result<Option<(User, Option<String>)>, StoreError> {
        let row: Option<PasswordRow> = D::query(
            "SELECT id, subject, email, language, password_hash FROM users WHERE email_lower = $1",
        )
        .bind(email_key(email))
        .fetch_optional(&mut *self.read().await?)
        .await?;
        Ok(row.map(split))
    }

    async fn user_by_email(&self, email: &str, now: DateTime<Utc>) -> Result<User, StoreError> {
        let mut tx = self.write_tx().await?;
        // The no-op update makes the conflicting row answer `RETURNING`.
        let row: PasswordRow = D::query(
            "INSERT INTO users (id, subject, email, email_lower, created_at)
             VALUES ($1, NULL, $2, $3, $4)
             ON CONFLICT (email_lower) DO UPDATE SET email_lower = excluded.email_lower
             RETURNING id, subject, email, language, password_hash",
        )
        .bind(UserId::new().0)
        .bind(email.trim())
        .bind(email_key(email))
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(split(row).0)
    }

    async fn start_session(&self, new: NewSession<'_>) -> Result<Uuid, StoreError> {
        let id = Uuid::new_v4();
        let mut tx = self.write_tx().await?;
        D::query("DELETE FROM sessions WHERE user_id = $1 AND expires_at <= $2")
            .bind(new.user.0)
            .bind(new.now)
            .execute(&mut *tx)
            .await?;
        D::query(
            "INSERT INTO sessions (id, token_hash, user_id, created_at, last_seen_at, expires_at, user_agent)
             VALUES ($1, $2, $3, $4, $4, $5, $6)",
        )
        .bind(id)
        .bind(new.token_hash)
        .bind(new.user.0)
        .bind(new.now)
        .bind(new.expires_at)
        .bind(new.user_agent)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn session(
        &self,
        token_hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Option<(Session, User)>, StoreError> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS}, u.id AS user_id, u.subject, u.email, u.language
             FROM sessions s JOIN users u ON u.id = s.user_id
             WHERE s.token_hash = $1 AND s.expires_at > $2"
        );
        let row: Option<SessionUserRow> = D::query(sqlx::AssertSqlSafe(sql))
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&mut *self.read().await?)
            .await?;
        let Some(mut row) = row else {
            return Ok(None);
        };
        if now - row.session.last_seen_at >= LAST_SEEN_PRECISION {
            let mut tx = self.write_tx().await?;
            D::query("UPDATE sessions SET last_seen_at = $2 WHERE id = $1")
                .bind(row.session.id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            row.session.last_seen_at = now;
        }
        let user = User {
            id: UserId(row.user_id),
            subject: row.subject,
            email: row.email,
            language: row.language,
        };
        Ok(Some((row.session, user)))
    }

    async fn sessions(&self, user: UserId, now: DateTime<Utc>) -> Result<Vec<Session>, StoreError> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s
             WHERE s.user_id = $1 AND s.expires_at > $2
             ORDER BY s.last_seen_at DESC, s.id"
        );
        D::query(sqlx::AssertSqlSafe(sql))
            .bind(user.0)
            .bind(now)
            .fetch_all(&mut *self.read().await?)
            .await
    }

    async fn end_session(&self, user: UserId, id: Uuid) -> Result<bool, StoreError> {
        let mut tx = self.write_tx().await?;
        let ended = D::query("DELETE FROM sessions WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user.0)
            .execute(&mut *tx)
            .await?
            == 1;
        tx.commit().await?;
        Ok(ended)
    }

    async fn end_session_by_token(&self, token_hash: &[u8]) -> Result<bool, StoreError> {
        let mut tx = self.write_tx().await?;
        let ended = D::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&mut *tx)
            .await?
            == 1;
        tx.commit().await?;
        Ok(ended)
    }

    async fn create_password_link(
        &self,
        user: UserId,
        token_hash: &[u8],
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write_tx().await?;
        // Links used or expired are of no further use: keep the table small.
        D::query("DELETE FROM password_links WHERE user_id = $1 AND (used_at IS NOT NULL OR expires_at <= $2)")
            .bind(user.0)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        D::query(
            "INSERT INTO password_links (token_hash, user_id, created_at, expires_at)
             VALUES ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(user.0)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn use_password_link(
        &self,
        token_hash: &[u8],
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<User>, StoreError> {
        let mut tx = self.write_tx().await?;
        let user: Option<Uuid> = D::query(
            "UPDATE password_links SET used_at = $2
             WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
             RETURNING user_id",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        let Some(user) = user else {
            return rollback_with(tx, Ok(None)).await;
        };
        let row: PasswordRow = D::query(
            "UPDATE users SET password_hash = $2 WHERE id = $1
             RETURNING id, subject, email, language, password_hash",
        )
        .bind(user)
        .bind(password_hash)
        .fetch_one(&mut *tx)
        .await?;
        D::query("DELETE FROM sessions WHERE user_id = $1")
            .bind(user)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(split(row).0))
    }
}
