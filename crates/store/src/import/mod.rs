//! Importing historical statistics (`vidpulse admin import-stats`, docs/operations.md,
//! "Importing history"): all rows in one transaction, idempotent.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use vidpulse_domain::{Counters, OrgId, Platform};

use crate::StoreError;

mod store;

/// One snapshot of one video, already validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRow {
    /// Platform.
    pub platform: Platform,
    /// The platform's id of the video.
    pub external_id: String,
    /// When the counters were read.
    pub captured_at: DateTime<Utc>,
    /// The counters (`None`: unknown).
    pub counters: Counters,
    /// Page URL.
    pub url: Option<String>,
    /// Creator handle without `@`.
    pub channel_username: Option<String>,
    /// Title or caption.
    pub title: Option<String>,
    /// Publish time.
    pub published_at: Option<DateTime<Utc>>,
}

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportOutcome {
    /// Videos the organization did not track before.
    pub videos_created: usize,
    /// Snapshots stored.
    pub snapshots_imported: usize,
    /// Snapshots already stored (same video and instant), left as they were.
    pub snapshots_skipped: usize,
}

/// Imports of statistics.
#[async_trait]
pub trait ImportStore {
    /// Stores every row or none: videos unknown to the organization become
    /// tracked from their earliest snapshot (for `window`); a video tracked
    /// from a later instant has its tracking start moved back; snapshots
    /// feed observations and daily closes. Not charged; no quota check.
    async fn import_observations(
        &self,
        org: OrgId,
        rows: &[ImportRow],
        window: Duration,
        now: DateTime<Utc>,
    ) -> Result<ImportOutcome, StoreError>;
}
