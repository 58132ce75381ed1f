//! A tracked account's own settings (campaign, budget, daily count, tags,
//! pause) and its removal, with or without its videos.

use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::names::Campaign;

use super::BloggerChanges;
use crate::StoreError;
use crate::creators::AccountChange;
use crate::rollup::{self, Scope, ScopeDialect};
use crate::sql::{Bind, Conn, Dialect, SqlStore, Tx, rollback_with};

/// Untie a tracked account (`$1` of organization `$2`) from its videos and
/// jobs, then delete it; the last statement's count says whether it existed.
const FORGET_ACCOUNT: [&str; 3] = [
    "UPDATE tracked_videos SET tracked_account_id = NULL
     WHERE tracked_account_id = $1 AND organization_id = $2",
    "UPDATE creator_jobs SET tracked_account_id = NULL
     WHERE tracked_account_id = $1 AND organization_id = $2",
    "DELETE FROM tracked_accounts WHERE id = $1 AND organization_id = $2",
];

/// Delete the videos a tracked account brought in (`$1` of organization
/// `$2`), tags first; the last statement's count is the videos deleted.
const DELETE_VIDEOS: [&str; 2] = [
    "DELETE FROM video_tags WHERE tracked_video_id IN (
       SELECT id FROM tracked_videos WHERE tracked_account_id = $1 AND organization_id = $2)",
    "DELETE FROM tracked_videos WHERE tracked_account_id = $1 AND organization_id = $2",
];

/// Delete the organization's (`$1`) creator profiles that no tracked
/// account belongs to any more.
const DROP_EMPTY_PROFILES: &str = "DELETE FROM creator_profiles
     WHERE organization_id = $1 AND NOT EXISTS (
       SELECT 1 FROM tracked_accounts ta WHERE ta.creator_profile_id = creator_profiles.id)";

/// Whether organization `org` has tracked account `tracking_id`.
pub(super) async fn account_exists<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    tracking_id: Uuid,
) -> Result<bool, StoreError> {
    let n: i64 =
        D::query("SELECT count(*) FROM tracked_accounts WHERE id = $1 AND organization_id = $2")
            .bind(tracking_id)
            .bind(org.0)
            .fetch_scalar(conn)
            .await?;
    Ok(n > 0)
}

/// Sets `column`, a setting the account's new videos get (its budget per
/// video); `false` when organization `org` has no such account.
pub(super) async fn set_setting<'t, D: Dialect, T: Bind<'t>>(
    store: &SqlStore<D>,
    column: &'static str,
    org: OrgId,
    tracking_id: Uuid,
    value: T,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let mut tx = store.write_tx().await?;
    let done = D::query(sqlx::AssertSqlSafe(format!(
        "UPDATE tracked_accounts SET {column} = $3, updated_at = $4
         WHERE id = $1 AND organization_id = $2"
    )))
    .bind(tracking_id)
    .bind(org.0)
    .bind(value)
    .bind(now)
    .execute(&mut *tx)
    .await?
        == 1;
    tx.commit().await?;
    Ok(done)
}

/// Sets the campaign the account's new videos get: a name in any letter
/// case is the organization's campaign of that name, created when absent,
/// and the account carries its stored name; `None` (or a blank name)
/// clears. `false` when organization `org` has no such account (nothing
/// is created then).
pub(super) async fn set_campaign<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    tracking_id: Uuid,
    campaign: Option<&str>,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let name = match campaign.map(Campaign::parse) {
        Some(Ok(name)) => name,
        None => None,
        Some(Err(e)) => return Err(StoreError::Corrupt(format!("campaign of a creator: {e}"))),
    };
    let mut tx = store.write_tx().await?;
    if !account_exists::<D>(&mut tx, org, tracking_id).await? {
        return rollback_with(tx, Ok(false)).await;
    }
    write_campaign(&mut tx, org, tracking_id, name.as_ref(), now).await?;
    tx.commit().await?;
    Ok(true)
}

/// Gives the account (known to be organization `org`'s) the campaign
/// `name`, the organization's campaign of that name, created when absent;
/// `None` clears.
async fn write_campaign<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    tracking_id: Uuid,
    name: Option<&Campaign>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let stored = match name {
        Some(name) => Some(crate::campaigns::attach::<D>(tx, org, name, now).await?),
        None => None,
    };
    D::query(
        "UPDATE tracked_accounts SET campaign = $3, updated_at = $4
         WHERE id = $1 AND organization_id = $2",
    )
    .bind(tracking_id)
    .bind(org.0)
    .bind(stored)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// [`crate::BloggerStore::update_blogger`].
pub(super) async fn update<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    tracking_id: Uuid,
    changes: &BloggerChanges,
    now: DateTime<Utc>,
) -> Result<AccountChange, StoreError> {
    let mut tx = store.write_tx().await?;
    if !account_exists::<D>(&mut tx, org, tracking_id).await? {
        return rollback_with(tx, Ok(AccountChange::NotFound)).await;
    }
    if let Some(active) = changes.is_active {
        let change =
            crate::creators::set_active::<D>(&mut tx, org, tracking_id, active, now).await?;
        if change != AccountChange::Done {
            return rollback_with(tx, Ok(change)).await;
        }
    }
    if let Some(campaign) = &changes.campaign {
        write_campaign(&mut tx, org, tracking_id, campaign.as_ref(), now).await?;
    }
    for (statement, value) in [
        (SET_DAILY_VIDEOS, changes.daily_videos_count),
        (SET_BUDGET, changes.budget_per_video),
    ] {
        if let Some(value) = value {
            D::query(statement)
                .bind(tracking_id)
                .bind(org.0)
                .bind(value)
                .bind(now)
                .execute(&mut *tx)
                .await?;
        }
    }
    if let Some(names) = &changes.tags {
        let mut ids = Vec::with_capacity(names.len());
        for name in names {
            ids.push(super::find_or_create_tag(&mut tx, org, name, now).await?.0);
        }
        crate::creators::replace_account_tags(&mut tx, org.0, tracking_id, &ids).await?;
    }
    tx.commit().await?;
    Ok(AccountChange::Done)
}

/// Set the daily count (`$3`) of tracked account `$1` of organization `$2`.
const SET_DAILY_VIDEOS: &str =
    "UPDATE tracked_accounts SET daily_videos_count = $3, updated_at = $4
     WHERE id = $1 AND organization_id = $2";

/// Set the budget per video (`$3`) of tracked account `$1` of organization `$2`.
const SET_BUDGET: &str = "UPDATE tracked_accounts SET budget_per_video = $3, updated_at = $4
     WHERE id = $1 AND organization_id = $2";

/// Runs `statements`, each on tracked account `$1` of organization `$2`;
/// the last one's count of rows.
async fn run_on_account<D: Dialect>(
    tx: &mut Tx<D>,
    statements: &[&'static str],
    org: OrgId,
    tracking_id: Uuid,
) -> Result<u64, StoreError> {
    let mut count = 0;
    for statement in statements {
        count = D::query(*statement)
            .bind(tracking_id)
            .bind(org.0)
            .execute(&mut **tx)
            .await?;
    }
    Ok(count)
}

/// Deletes the tracked account (its videos stay, untied) and the profiles
/// left empty; whether it existed.
async fn forget_account<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    tracking_id: Uuid,
) -> Result<bool, StoreError> {
    let deleted = run_on_account(tx, &FORGET_ACCOUNT, org, tracking_id).await?;
    D::query(DROP_EMPTY_PROFILES)
        .bind(org.0)
        .execute(&mut **tx)
        .await?;
    Ok(deleted == 1)
}

/// [`crate::BloggerStore::delete_blogger`].
pub(super) async fn delete<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    tracking_id: Uuid,
) -> Result<bool, StoreError> {
    let mut tx = store.write_tx().await?;
    let deleted = forget_account(&mut tx, org, tracking_id).await?;
    tx.commit().await?;
    Ok(deleted)
}

/// [`crate::BloggerStore::delete_blogger_with_videos`].
pub(super) async fn delete_with_videos<D: ScopeDialect>(
    store: &SqlStore<D>,
    org: OrgId,
    tracking_id: Uuid,
) -> Result<Option<u64>, StoreError> {
    let mut tx = store.write_tx().await?;
    if !account_exists::<D>(&mut tx, org, tracking_id).await? {
        return rollback_with(tx, Ok(None)).await;
    }
    let catalog: Vec<i64> = D::query(
        "SELECT platform_video_id FROM tracked_videos
         WHERE tracked_account_id = $1 AND organization_id = $2",
    )
    .bind(tracking_id)
    .bind(org.0)
    .fetch_column(&mut *tx)
    .await?;
    // The videos' statistics leave the organization's rollup.
    let scope = Scope::tracked_by(org.0, catalog);
    let before = rollup::shares(&mut tx, &scope).await?;
    let videos = run_on_account(&mut tx, &DELETE_VIDEOS, org, tracking_id).await?;
    rollup::settle(&mut tx, &scope, before).await?;
    forget_account(&mut tx, org, tracking_id).await?;
    tx.commit().await?;
    Ok(Some(videos))
}
