//! Users, memberships and settings: the shared SQL of [`crate::users`].

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Sqlite;
use vidpulse_domain::{OrgId, UserId};

use super::SqliteStore;
use crate::StoreError;
use crate::users::{self, Membership, User, UserStore};

#[async_trait]
impl UserStore for SqliteStore {
    async fn user_for_identity(
        &self,
        subject: &str,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<User, StoreError> {
        let mut tx = self.write_tx().await?;
        let user = users::user_for_identity::<Sqlite>(&mut tx, true, subject, email, now).await?;
        tx.commit().await?;
        Ok(user)
    }

    async fn register_organization(
        &self,
        user: UserId,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<OrgId, StoreError> {
        let mut tx = self.write_tx().await?;
        let id = users::register_organization::<Sqlite>(&mut tx, true, user, name, now).await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn memberships(&self, user: UserId) -> Result<Vec<Membership>, StoreError> {
        users::memberships(&self.pool, true, user).await
    }

    async fn setting_or_insert(&self, key: &str, value: &str) -> Result<String, StoreError> {
        let mut tx = self.write_tx().await?;
        let stored = users::setting_or_insert::<Sqlite>(&mut tx, true, key, value).await?;
        tx.commit().await?;
        Ok(stored)
    }
}
