//! What an operator watches and what keeps the service in shape: the
//! refresh queue's depth and lag and the creator jobs by state (`GET
//! /metrics`), and the observations' housekeeping (partitions, retention).
//! Written once for both backends; the housekeeping itself is each backend's
//! own (`Dialect::housekeep_observations`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;
use crate::sql::{Dialect, SqlStore, Tx};

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

#[async_trait]
impl<D: Dialect> OpsStore for SqlStore<D> {
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

/// Deletes every reading (the platform's and imported) captured before
/// `until`, in `tx`, moving the revision of each video whose history shrinks
/// (its kept answers are stale); returns how many were deleted. Shared by
/// both backends' housekeeping.
pub(crate) async fn delete_readings_before<D: Dialect>(
    tx: &mut Tx<D>,
    until: DateTime<Utc>,
) -> Result<u64, StoreError> {
    D::query(
        "UPDATE platform_videos SET revision = revision + 1
         WHERE id IN (SELECT platform_video_id FROM observations WHERE captured_at < $1
                      UNION SELECT platform_video_id FROM imported_observations WHERE captured_at < $1)",
    )
    .bind(until)
    .execute(&mut **tx)
    .await?;
    let platform = D::query("DELETE FROM observations WHERE captured_at < $1")
        .bind(until)
        .execute(&mut **tx)
        .await?;
    let imported = D::query("DELETE FROM imported_observations WHERE captured_at < $1")
        .bind(until)
        .execute(&mut **tx)
        .await?;
    Ok(platform + imported)
}
