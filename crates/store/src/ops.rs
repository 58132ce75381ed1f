//! What an operator watches and what keeps the service in shape: the
//! refresh queue's depth and lag and the creator jobs by state (`GET
//! /metrics`), and the observations' housekeeping (partitions, retention).
//! One implementation for both backends (`ops_store_impl`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;

/// The state of the work queues at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueStats {
    /// Videos due for a read (`next_refresh_at` passed) and not claimed.
    pub due_videos: i64,
    /// The earliest due time among them: `now` minus it is the refresh lag.
    pub oldest_due_at: Option<DateTime<Utc>>,
    /// Videos some worker holds a claim on.
    pub claimed_videos: i64,
    /// Creator jobs by status (`queued`, `processing`, `succeeded`, `error`).
    pub jobs: Vec<(String, i64)>,
}

/// What one housekeeping pass over the observations did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Housekeeping {
    /// Monthly partitions created ahead (PostgreSQL).
    pub partitions_created: u64,
    /// Monthly partitions dropped whole by the retention (PostgreSQL).
    pub partitions_dropped: u64,
    /// Observations deleted one by one by the retention.
    pub rows_deleted: u64,
}

/// Operational reads and upkeep.
#[async_trait]
pub trait OpsStore {
    /// The queues as of `now`.
    async fn queue_stats(&self, now: DateTime<Utc>) -> Result<QueueStats, StoreError>;

    /// Reads one tracked video's id by key: the cheapest real read through
    /// the store's pool, the ceiling the HTTP load test compares with.
    async fn probe_row(&self, id: uuid::Uuid) -> Result<Option<uuid::Uuid>, StoreError>;

    /// Keeps the observations' storage: on PostgreSQL the monthly partitions
    /// of this month and the next three exist; with a `retention`,
    /// observations captured before `now - retention` are gone (whole months
    /// dropped on PostgreSQL). Daily closes, and so analytics, are kept.
    async fn housekeep_observations(
        &self,
        now: DateTime<Utc>,
        retention: Option<chrono::Duration>,
    ) -> Result<Housekeeping, StoreError>;
}

/// Implements [`OpsStore`] for a backend (see [`crate::users::user_store_impl`]).
macro_rules! ops_store_impl {
    ($store:ty, $sqlite:expr) => {
        #[async_trait::async_trait]
        impl $crate::ops::OpsStore for $store {
            async fn queue_stats(
                &self,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::ops::QueueStats, $crate::StoreError> {
                use $crate::users::sql;
                let (due_videos, oldest_due_at): (i64, Option<chrono::DateTime<chrono::Utc>>) =
                    sqlx::query_as(sql(
                        "SELECT count(*), min(next_refresh_at) FROM platform_videos
                         WHERE next_refresh_at IS NOT NULL AND next_refresh_at <= $1
                           AND (lease_until IS NULL OR lease_until <= $1)",
                        $sqlite,
                    ))
                    .bind(now)
                    .fetch_one(&self.pool)
                    .await?;
                let claimed_videos: i64 = sqlx::query_scalar(sql(
                    "SELECT count(*) FROM platform_videos WHERE lease_until > $1",
                    $sqlite,
                ))
                .bind(now)
                .fetch_one(&self.pool)
                .await?;
                let jobs: Vec<(String, i64)> = sqlx::query_as(sql(
                    "SELECT status, count(*) FROM creator_jobs GROUP BY status ORDER BY status",
                    $sqlite,
                ))
                .fetch_all(&self.pool)
                .await?;
                Ok($crate::ops::QueueStats {
                    due_videos,
                    oldest_due_at,
                    claimed_videos,
                    jobs,
                })
            }

            async fn housekeep_observations(
                &self,
                now: chrono::DateTime<chrono::Utc>,
                retention: Option<chrono::Duration>,
            ) -> Result<$crate::ops::Housekeeping, $crate::StoreError> {
                super::housekeeping::observations(self, now, retention).await
            }

            async fn probe_row(
                &self,
                id: uuid::Uuid,
            ) -> Result<Option<uuid::Uuid>, $crate::StoreError> {
                use $crate::users::sql;
                Ok(
                    sqlx::query_scalar(sql("SELECT id FROM tracked_videos WHERE id = $1", $sqlite))
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await?,
                )
            }
        }
    };
}
pub(crate) use ops_store_impl;
