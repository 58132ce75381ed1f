//! The analytics cache: totals and increments as this API node computed
//! them from the rollup, kept under the organization's analytics revision.
//!
//! A totals read sums the window's rollup cells (some 2,000 rows for 30
//! days of a busy organization, a millisecond or more), and the same
//! question comes back often (a dashboard's refresh, a report's schedule).
//! Every write that moves an organization's rollup moves its revision in
//! the same transaction (`AnalyticsStore::analytics_revision`), so a read
//! asks the database for the revision alone (one small row) and answers
//! from here while it holds. The database stays the judge, so nodes never
//! disagree. Questions the rollup does not answer alone (publish or
//! tracking filters) are always computed.

use std::sync::Arc;

use moka::sync::Cache;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::AnalyticsQuery;
use vidpulse_store::analytics::reads_rollup;
use vidpulse_store::{AnalyticsRow, Store, StoreError};

/// Which answer an entry is: the organization, the question, and whether
/// it asks for increments (else totals).
type Key = (OrgId, AnalyticsQuery, bool);

/// Rows kept under the revision they were computed at (or after).
#[derive(Debug)]
struct Kept {
    revision: i64,
    rows: Vec<AnalyticsRow>,
}

/// The most bytes the kept rows take, roughly.
const CAPACITY_BYTES: u64 = 64 << 20;

/// Bytes a kept row costs, roughly (its strings and five counters).
const ROW_BYTES: usize = 160;

/// The kept answers, bounded by their size.
#[derive(Debug, Clone)]
pub struct AnalyticsCache(Cache<Key, Arc<Kept>>);

impl Default for AnalyticsCache {
    fn default() -> Self {
        Self(
            Cache::builder()
                .max_capacity(CAPACITY_BYTES)
                .weigher(|_: &Key, kept: &Arc<Kept>| {
                    u32::try_from(256 + kept.rows.len() * ROW_BYTES).unwrap_or(u32::MAX)
                })
                .build(),
        )
    }
}

impl AnalyticsCache {
    /// The totals of `query` for `org`
    /// (`AnalyticsStore::analytics_totals`), kept or computed.
    pub async fn totals(
        &self,
        store: &dyn Store,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        self.rows(store, org, query, false).await
    }

    /// The increments of `query` for `org`
    /// (`AnalyticsStore::analytics_increments`), kept or computed.
    pub async fn increments(
        &self,
        store: &dyn Store,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        self.rows(store, org, query, true).await
    }

    async fn rows(
        &self,
        store: &dyn Store,
        org: OrgId,
        query: &AnalyticsQuery,
        increments: bool,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        let compute = || async {
            if increments {
                store.analytics_increments(org, query).await
            } else {
                store.analytics_totals(org, query).await
            }
        };
        if !reads_rollup(query) {
            return compute().await;
        }
        // The revision first: rows computed after it are at least as new,
        // so they never pass for a revision they are older than.
        let revision = store.analytics_revision(org).await?;
        let key = (org, query.clone(), increments);
        if let Some(kept) = self.0.get(&key)
            && kept.revision == revision
        {
            return Ok(kept.rows.clone());
        }
        let rows = compute().await?;
        self.0.insert(
            key,
            Arc::new(Kept {
                revision,
                rows: rows.clone(),
            }),
        );
        Ok(rows)
    }
}
