//! Campaign analytics, aggregated in the database from `daily_closes` with
//! the rules of `vidpulse_domain::analytics` (docs/api.md,
//! "Analytics"). One SQL text serves both backends: `Dialect` spells the few
//! functions that differ. An organization sees the days of its own tracking
//! window of each video.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::{AnalyticsQuery, Metrics};

use crate::StoreError;

mod statements;
mod store;

pub(crate) use statements::{AggRow, AnalyticsDialect};

#[cfg(feature = "testing")]
pub use store::explain;

/// One aggregated row: the grouping columns the query asked for (the others
/// are `None`, and extra ones may be set), the day for increments, and the
/// five sums. Several rows may share a group key (spellings of one creator,
/// or one creator on several platforms): callers merge them by key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyticsRow {
    /// The day (increments only).
    pub day: Option<NaiveDate>,
    /// Platform, when grouped by it.
    pub platform: Option<vidpulse_domain::Platform>,
    /// Author username as stored, when grouped by creator.
    pub author: Option<String>,
    /// Campaign, when grouped by it.
    pub campaign: Option<String>,
    /// The sums.
    pub metrics: Metrics,
}

/// One tracked video's increments on one day (dashboard `for_date`).
#[derive(Debug, Clone, PartialEq)]
pub struct DayIncrement {
    /// The organization's video id.
    pub video_id: uuid::Uuid,
    /// The platform's id of the video.
    pub external_id: String,
    /// Thumbnail.
    pub thumbnail_url: Option<String>,
    /// Page URL.
    pub url: String,
    /// Author handle.
    pub author_username: Option<String>,
    /// Platform.
    pub platform: vidpulse_domain::Platform,
    /// Campaign tag.
    pub campaign: Option<String>,
    /// Publish time.
    pub published_at: Option<DateTime<Utc>>,
    /// When the organization started tracking it.
    pub created_at: DateTime<Utc>,
    /// The increments of the day (the increments rule).
    pub metrics: Metrics,
}

/// Which videos and order a `for_date` listing wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayIncrementQuery {
    /// The day.
    pub day: NaiveDate,
    /// The metric to sort by, largest first: one of `views` .. `saves`.
    pub sort_by: &'static str,
    /// At most this many rows.
    pub limit: i64,
    /// Only this platform.
    pub platform: Option<vidpulse_domain::Platform>,
    /// Only this campaign.
    pub campaign: Option<String>,
}

/// Analytics over an organization's tracked videos.
#[async_trait]
pub trait AnalyticsStore {
    /// Each tracked video's increments on one day, for the videos with a
    /// reading that day inside the organization's tracking window.
    async fn day_increments(
        &self,
        org: OrgId,
        query: &DayIncrementQuery,
    ) -> Result<Vec<DayIncrement>, StoreError>;

    /// Per group: the sum over videos of `close(last day ≤ to) − baseline`.
    async fn analytics_totals(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Vec<AnalyticsRow>, StoreError>;

    /// Per day with an observation and group: the sum of the daily increments.
    async fn analytics_increments(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Vec<AnalyticsRow>, StoreError>;

    /// The version of the organization's analytics (0 before its first
    /// change): moved in the same transaction as every change of its
    /// rollup, so totals and increments that [`reads_rollup`] are the same
    /// while it holds. Read it before the answer it validates.
    async fn analytics_revision(&self, org: OrgId) -> Result<i64, StoreError>;
}

/// Whether the rollup alone answers `query`'s totals and increments (no
/// publish or tracking filter, a rollup table with its columns): then they
/// change only with [`AnalyticsStore::analytics_revision`].
pub fn reads_rollup(query: &AnalyticsQuery) -> bool {
    statements::rollup_table(query).is_some()
}

/// The metric names `for_date` may sort by.
pub const SORT_METRICS: [&str; 5] = ["views", "likes", "comments", "reposts", "saves"];
