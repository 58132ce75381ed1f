//! What an operator watches and what keeps the service in shape: the
//! refresh queue's depth and lag and the creator jobs by state (`GET
//! /metrics`), and the observations' housekeeping (partitions, retention).
//! Written once for both backends; the housekeeping itself is each backend's
//! own (`housekeeping::HousekeepingDialect`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;

mod housekeeping;
mod store;

pub(crate) use housekeeping::{HousekeepingDialect, delete_readings_before};

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
