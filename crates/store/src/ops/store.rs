//! Operational reads and upkeep, stored: the one implementation of
//! [`OpsStore`] for both backends.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::housekeeping::HousekeepingDialect;
use super::{Housekeeping, OpsStore, QueueStats};
use crate::StoreError;
use crate::sql::SqlStore;

#[async_trait]
impl<D: HousekeepingDialect> OpsStore for SqlStore<D> {
    async fn queue_stats(&self, now: DateTime<Utc>) -> Result<QueueStats, StoreError> {
        let mut conn = self.read().await?;
        let (due_videos, oldest_due_at): (i64, Option<DateTime<Utc>>) = D::query(
            "SELECT count(*), min(next_refresh_at) FROM platform_videos
             WHERE next_refresh_at IS NOT NULL AND next_refresh_at <= $1
               AND (lease_until IS NULL OR lease_until <= $1)",
        )
        .bind(now)
        .fetch_one(&mut *conn)
        .await?;
        let claimed_videos: i64 =
            D::query("SELECT count(*) FROM platform_videos WHERE lease_until > $1")
                .bind(now)
                .fetch_scalar(&mut *conn)
                .await?;
        let jobs: Vec<(String, i64)> =
            D::query("SELECT status, count(*) FROM creator_jobs GROUP BY status ORDER BY status")
                .fetch_all(&mut *conn)
                .await?;
        Ok(QueueStats {
            due_videos,
            oldest_due_at,
            claimed_videos,
            jobs,
        })
    }

    async fn housekeep_observations(
        &self,
        now: DateTime<Utc>,
        retention: Option<chrono::Duration>,
    ) -> Result<Housekeeping, StoreError> {
        D::housekeep_observations(self, now, retention).await
    }

    async fn probe_row(&self, id: uuid::Uuid) -> Result<Option<uuid::Uuid>, StoreError> {
        D::query("SELECT id FROM tracked_videos WHERE id = $1")
            .bind(id)
            .fetch_scalar_optional(&mut *self.read().await?)
            .await
    }
}
