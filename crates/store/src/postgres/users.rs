//! Users, memberships and settings: the shared SQL of [`crate::users`].

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Postgres;
use vidpulse_domain::{OrgId, UserId};

use super::PgStore;
use crate::StoreError;
use crate::users::{self, Membership, User, UserStore};

#[async_trait]
impl UserStore for PgStore {
    async fn user_for_identity(
        &self,
        subject: &str,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<User, StoreError> {
        let mut tx = self.pool.begin().await?;
        let user =
            users::user_for_identity::<Postgres>(&mut tx, false, subject, email, now).await?;
        tx.commit().await?;
        Ok(user)
    }

    async fn register_organization(
        &self,
        user: UserId,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<OrgId, StoreError> {
        let mut tx = self.pool.begin().await?;
        let id = users::register_organization::<Postgres>(&mut tx, false, user, name, now).await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn memberships(&self, user: UserId) -> Result<Vec<Membership>, StoreError> {
        users::memberships(&self.pool, false, user).await
    }

    async fn setting_or_insert(&self, key: &str, value: &str) -> Result<String, StoreError> {
        let mut tx = self.pool.begin().await?;
        let stored = users::setting_or_insert::<Postgres>(&mut tx, false, key, value).await?;
        tx.commit().await?;
        Ok(stored)
    }
}
