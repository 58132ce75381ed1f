//! The analytics cache: totals (grouped), increments and the videos'
//! leaderboard as this API node computed them, kept under the
//! organization's analytics revision.
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
//!
//! The videos' leaderboard ranks every matching video by its gain (a
//! hundred milliseconds or more at 100,000 videos); the gains read the daily
//! closes and tracking windows whose every change moves the same revision,
//! and so does every write that may change a place's title, link or creator
//! (a reading, an import: `rollup::settle` moves the revision of every
//! organization that sees a close of the videos it touched), so its places
//! are kept alike, whole.

use std::sync::Arc;

use moka::sync::Cache;
use vidpulse_domain::analytics::{AnalyticsQuery, GroupBy, GroupMetrics, Metrics, into_groups};
use vidpulse_domain::{OrgId, Platform};
use vidpulse_store::analytics::reads_rollup;
use vidpulse_store::{AnalyticsRow, Store, StoreError, TopVideo, TopVideosQuery};

/// Which answer an entry is: the organization and the question.
type Key<Q = AnalyticsQuery> = (OrgId, Q);

/// An answer kept under the revision it was computed at (or after).
#[derive(Debug)]
struct Kept<T> {
    revision: i64,
    answer: Arc<T>,
}

/// The totals of a question: their sum and their groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupedTotals {
    /// The sum over every group.
    pub total: Metrics,
    /// The groups, most views first (then by key); none for `group_by=none`.
    pub groups: Vec<GroupMetrics>,
}

impl GroupedTotals {
    /// The totals' rows grouped by `group_by`'s key (several rows may share
    /// one: spellings of a creator, a creator on several platforms).
    pub fn of(group_by: GroupBy, rows: &[AnalyticsRow]) -> Self {
        let groups = into_groups(rows.iter().map(|r| {
            let (key, label) = row_key(group_by, r);
            (key, label, r.metrics)
        }));
        let mut total = Metrics::default();
        for g in &groups {
            total += g.metrics;
        }
        Self {
            total,
            groups: if group_by == GroupBy::None {
                Vec::new()
            } else {
                groups
            },
        }
    }
}

/// The group key and label of an analytics row under `group_by`.
pub fn row_key(group_by: GroupBy, r: &AnalyticsRow) -> (String, String) {
    group_by
        .key_of(
            r.platform.unwrap_or(Platform::TikTok),
            r.author.as_deref(),
            r.campaign.as_deref(),
        )
        .unwrap_or_else(|| ("total".to_owned(), "Total".to_owned()))
}

/// The most bytes each kind of kept answers takes, roughly.
const CAPACITY_BYTES: u64 = 32 << 20;

/// Bytes a kept row or group costs, roughly (its strings and five counters).
const ROW_BYTES: usize = 160;

/// A cache of answers of one kind, bounded by their size (`rows` counts
/// an answer's rows).
fn bounded<Q, T>(rows: fn(&T) -> usize) -> Cache<Key<Q>, Arc<Kept<T>>>
where
    Q: std::hash::Hash + Eq + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    Cache::builder()
        .max_capacity(CAPACITY_BYTES)
        .weigher(move |_: &Key<Q>, kept: &Arc<Kept<T>>| {
            u32::try_from(256 + rows(&kept.answer) * ROW_BYTES).unwrap_or(u32::MAX)
        })
        .build()
}

/// The kept answers: totals grouped, increments as rows, the videos'
/// leaderboard as its places.
#[derive(Debug, Clone)]
pub struct AnalyticsCache {
    totals: Cache<Key, Arc<Kept<GroupedTotals>>>,
    increments: Cache<Key, Arc<Kept<Vec<AnalyticsRow>>>>,
    top_videos: Cache<Key<TopVideosQuery>, Arc<Kept<Vec<TopVideo>>>>,
}

impl Default for AnalyticsCache {
    fn default() -> Self {
        Self {
            totals: bounded(|t: &GroupedTotals| t.groups.len()),
            increments: bounded(Vec::len),
            top_videos: bounded(Vec::len),
        }
    }
}

impl AnalyticsCache {
    /// The totals of `query` for `org` (`AnalyticsStore::analytics_totals`),
    /// grouped, kept or computed.
    pub async fn totals(
        &self,
        store: &dyn Store,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Arc<GroupedTotals>, StoreError> {
        kept_or_computed(
            &self.totals,
            store,
            org,
            query,
            reads_rollup(query),
            || async {
                let rows = store.analytics_totals(org, query).await?;
                Ok(GroupedTotals::of(query.group_by, &rows))
            },
        )
        .await
    }

    /// The increments of `query` for `org`
    /// (`AnalyticsStore::analytics_increments`), kept or computed.
    pub async fn increments(
        &self,
        store: &dyn Store,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Arc<Vec<AnalyticsRow>>, StoreError> {
        kept_or_computed(
            &self.increments,
            store,
            org,
            query,
            reads_rollup(query),
            || store.analytics_increments(org, query),
        )
        .await
    }

    /// The places of the videos' leaderboard `query` for `org` (ranked by
    /// `VideoStore::top_video_gains`, their fields read by
    /// `VideoStore::top_videos_of`), kept or computed.
    pub async fn top_videos(
        &self,
        store: &dyn Store,
        org: OrgId,
        query: &TopVideosQuery,
    ) -> Result<Arc<Vec<TopVideo>>, StoreError> {
        kept_or_computed(&self.top_videos, store, org, query, true, || async {
            let ranked = store.top_video_gains(org, query).await?;
            store.top_videos_of(org, &ranked).await
        })
        .await
    }
}

/// The answer `cache` keeps for `query` while the organization's analytics
/// revision holds, else `compute`'s (kept); a question that does not move
/// with the revision alone (`keepable` false) is always computed.
async fn kept_or_computed<Q, T, F, Fut>(
    cache: &Cache<Key<Q>, Arc<Kept<T>>>,
    store: &dyn Store,
    org: OrgId,
    query: &Q,
    keepable: bool,
    compute: F,
) -> Result<Arc<T>, StoreError>
where
    Q: std::hash::Hash + Eq + Clone + Send + Sync + 'static,
    T: Send + Sync + 'static,
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<T, StoreError>>,
{
    if !keepable {
        return compute().await.map(Arc::new);
    }
    // The revision first: an answer computed after it is at least as new,
    // so it never passes for a revision it is older than.
    let revision = store.analytics_revision(org).await?;
    let key = (org, query.clone());
    if let Some(kept) = cache.get(&key)
        && kept.revision == revision
    {
        return Ok(kept.answer.clone());
    }
    let answer = Arc::new(compute().await?);
    cache.insert(
        key,
        Arc::new(Kept {
            revision,
            answer: answer.clone(),
        }),
    );
    Ok(answer)
}
