//! The organization's tracked accounts as the public API lists them: a
//! filtered page, and the totals each account's answer carries (its videos,
//! their views, its follower gains).

use std::collections::HashMap;

use chrono::NaiveDate;
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::{OrgId, Platform};

use super::TrackedAccount;
use super::followers::{FollowerGains, follower_gains};
use super::rows::{ACCOUNT_COLUMNS, AccountRow};
use crate::StoreError;
use crate::sql::{Builder, Dialect, SqlStore};
use crate::videos::Page;

/// Which of the organization's tracked accounts to list, and which page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountQuery {
    /// Only accounts on this platform.
    pub platform: Option<Platform>,
    /// Only accounts tracked now (`true`) or paused (`false`).
    pub active: Option<bool>,
    /// Page size.
    pub limit: i64,
    /// Accounts skipped.
    pub offset: i64,
}

/// What a tracked account's answer sums up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CreatorTotals {
    /// The videos its backfill and discovery tracked for the organization.
    pub videos_tracked: i64,
    /// Their latest views, summed.
    pub views: i64,
    /// Its follower gains.
    pub followers: FollowerGains,
}

/// Appends the filters of `query` (each only when set) to a statement whose
/// `WHERE` names the organization.
fn push_filters<D: Dialect>(q: &mut Builder<D>, query: &AccountQuery) {
    if let Some(platform) = query.platform {
        q.push(" AND c.platform = ").push_bind(platform.id());
    }
    if let Some(active) = query.active {
        q.push(" AND ta.is_active = ").push_bind(active);
    }
}

/// [`crate::CreatorStore::tracked_accounts`].
pub(crate) async fn tracked_accounts<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    query: &AccountQuery,
) -> Result<Page<TrackedAccount>, StoreError> {
    const FROM: &str = " FROM tracked_accounts ta JOIN creators c ON c.id = ta.creator_id
                        WHERE ta.organization_id = ";
    let mut conn = store.read().await?;
    let mut count = Builder::<D>::new(AssertSqlSafe(format!(
        "SELECT CAST(count(*) AS BIGINT){FROM}"
    )));
    count.push_bind(org.0);
    push_filters(&mut count, query);
    let total: i64 = count.build().fetch_scalar(&mut *conn).await?;

    // Most recently tracked first: the organization's tracking of the
    // creator began at `ta.created_at` (a reactivation keeps it); the id
    // (time-ordered) breaks ties.
    let mut page = Builder::<D>::new(AssertSqlSafe(format!("SELECT {ACCOUNT_COLUMNS}{FROM}")));
    page.push_bind(org.0);
    push_filters(&mut page, query);
    page.push(" ORDER BY ta.created_at DESC, ta.id DESC LIMIT ")
        .push_bind(query.limit)
        .push(" OFFSET ")
        .push_bind(query.offset);
    let rows: Vec<AccountRow> = page.build().fetch_all(&mut *conn).await?;
    let items = rows
        .into_iter()
        .filter_map(|r| r.into_account().transpose())
        .collect::<Result<_, _>>()?;
    Ok(Page { items, total })
}

/// The videos of one tracked account, summed.
#[derive(sqlx::FromRow)]
struct TotalsRow {
    tracked_account_id: Uuid,
    creator_id: Uuid,
    videos_tracked: i64,
    views: i64,
}

/// [`crate::CreatorStore::creator_totals`].
pub(crate) async fn creator_totals<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    accounts: &[Uuid],
    today: NaiveDate,
) -> Result<HashMap<Uuid, CreatorTotals>, StoreError> {
    if accounts.is_empty() {
        return Ok(HashMap::new());
    }
    // The same sums as the dashboard's listing (`bloggers::listing`).
    let mut q = Builder::<D>::new(
        "SELECT ta.id AS tracked_account_id, ta.creator_id,
                CAST(count(pv.id) AS BIGINT) AS videos_tracked,
                CAST(coalesce(sum(pv.views), 0) AS BIGINT) AS views
         FROM tracked_accounts ta
         LEFT JOIN tracked_videos tv ON tv.tracked_account_id = ta.id
         LEFT JOIN platform_videos pv ON pv.id = tv.platform_video_id
         WHERE ta.organization_id = ",
    );
    q.push_bind(org.0)
        .push(" AND ta.id IN (")
        .push_list(accounts.iter().copied())
        .push(") GROUP BY ta.id, ta.creator_id");
    let rows: Vec<TotalsRow> = q.build().fetch_all(&mut *store.read().await?).await?;
    let creators: Vec<Uuid> = rows.iter().map(|r| r.creator_id).collect();
    let gains = follower_gains(store, &creators, today).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let totals = CreatorTotals {
                videos_tracked: r.videos_tracked,
                views: r.views,
                followers: gains.get(&r.creator_id).copied().unwrap_or_default(),
            };
            (r.tracked_account_id, totals)
        })
        .collect())
}
