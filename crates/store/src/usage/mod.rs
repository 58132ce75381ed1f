//! Per-organization request counters and the usage report.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use vidpulse_domain::{ApiKeyId, OrgId};

use crate::StoreError;

mod store;

/// Requests of one organization on one day through one key, aggregated in
/// memory and added in batches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageDelta {
    /// The organization.
    pub organization_id: OrgId,
    /// The UTC day.
    pub day: NaiveDate,
    /// The key used.
    pub api_key_id: ApiKeyId,
    /// Requests.
    pub requests: i64,
    /// Requests answered below 400.
    pub successes: i64,
    /// Requests answered 400 or above.
    pub errors: i64,
    /// Sum of response times, in milliseconds.
    pub response_ms_total: i64,
    /// The latest use of the key in this batch.
    pub last_used_at: DateTime<Utc>,
}

/// One day of an organization's usage.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageDay {
    /// The UTC day.
    pub day: NaiveDate,
    /// Requests.
    pub total_requests: i64,
    /// Requests answered below 400.
    pub successful_requests: i64,
    /// Requests answered 400 or above.
    pub error_requests: i64,
    /// Credits charged (from the ledger).
    pub credits_used: i64,
    /// Mean response time in milliseconds.
    pub avg_response_time_ms: f64,
    /// Distinct API keys used.
    pub unique_api_keys: i64,
    /// Scheduled reads of the organization's videos the daily read cap
    /// skipped ([`crate::RefreshStore::cap_reads`]).
    pub reads_skipped: i64,
}

/// Usage counters.
#[async_trait]
pub trait UsageStore {
    /// Adds batched request counters and records the keys' last use.
    async fn add_usage(&self, deltas: &[UsageDelta]) -> Result<(), StoreError>;

    /// The organization's days with requests or charges from `since` on, newest first.
    async fn usage_history(
        &self,
        org: OrgId,
        since: NaiveDate,
    ) -> Result<Vec<UsageDay>, StoreError>;
}
