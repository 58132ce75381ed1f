//! A creator read on an organization's ask (docs/api.md: POST
//! /v1/bloggers/by-username/{username}/refresh): one tracked account's
//! discovery claimed now, under the lease the daily discovery takes (so the
//! two never run at once), with the organization's cooldown between two
//! asks (`tracked_accounts.refresh_asked_at`, migration 0036).

use chrono::{DateTime, Duration, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::OrgId;

use super::store::{claimed_discoveries, track_discovered};
use super::{DiscoveryAsk, DiscoveryOutcome, ManualDiscovery};
use crate::StoreError;
use crate::rollup::ScopeDialect;
use crate::sql::{Dialect, SqlStore, rollback_with};

/// What the ask reads of the account: whether it is active, the last ask
/// and the lease of a discovery under way.
type AskRow = (bool, Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// [`crate::CreatorStore::ask_discovery`].
pub(super) async fn ask<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    account: Uuid,
    now: DateTime<Utc>,
    cooldown: Duration,
    lease: Duration,
) -> Result<DiscoveryAsk, StoreError> {
    let mut tx = store.write_tx().await?;
    let row: Option<AskRow> = D::query(AssertSqlSafe(format!(
        "SELECT is_active, refresh_asked_at, discovery_lease_until FROM tracked_accounts
         WHERE id = $1 AND organization_id = $2 {row_lock}",
        row_lock = D::ROW_LOCK
    )))
    .bind(account)
    .bind(org.0)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((active, asked_at, lease_until)) = row else {
        return rollback_with(tx, Ok(DiscoveryAsk::NotFound)).await;
    };
    if !active {
        return rollback_with(tx, Ok(DiscoveryAsk::Paused)).await;
    }
    if let Some(retry_at) = asked_at.map(|at| at + cooldown).filter(|at| *at > now) {
        return rollback_with(tx, Ok(DiscoveryAsk::TooSoon { retry_at })).await;
    }
    if lease_until.is_some_and(|until| until > now) {
        return rollback_with(tx, Ok(DiscoveryAsk::InFlight)).await;
    }
    let token = Uuid::new_v4();
    D::query(
        "UPDATE tracked_accounts SET discovery_lease_until = $2, discovery_lease_token = $3
         WHERE id = $1",
    )
    .bind(account)
    .bind(now + lease)
    .bind(token)
    .execute(&mut *tx)
    .await?;
    let claimed = claimed_discoveries(&mut tx, token).await?.pop();
    tx.commit().await?;
    claimed
        .map(DiscoveryAsk::Claimed)
        .ok_or_else(|| StoreError::Corrupt(format!("account {account} claimed, not read back")))
}

/// [`crate::CreatorStore::save_manual_discovery`].
pub(super) async fn save<D: ScopeDialect>(
    store: &SqlStore<D>,
    read: &ManualDiscovery,
) -> Result<Option<DiscoveryOutcome>, StoreError> {
    let mut tx = store.write_tx().await?;
    let claimed: Option<Uuid> = D::query(AssertSqlSafe(format!(
        "SELECT organization_id FROM tracked_accounts
         WHERE id = $1 AND discovery_lease_token = $2 {row_lock}",
        row_lock = D::ROW_LOCK
    )))
    .bind(read.tracked_account_id)
    .bind(read.lease_token)
    .fetch_scalar_optional(&mut *tx)
    .await?;
    let Some(org) = claimed else {
        return rollback_with(tx, Ok(None)).await;
    };
    let (videos_tracked, videos_skipped) = track_discovered(
        &mut tx,
        OrgId(org),
        read.tracked_account_id,
        Some(&read.profile),
        &read.new_videos,
        (read.api_key_id.map(|k| k.0), read.request_id.clone()),
        read.now,
    )
    .await?;
    let note = super::discovery_note(None, videos_skipped, read.now);
    D::query(
        "UPDATE tracked_accounts SET
           last_scraped_at = $2, discovered_since = $2, refresh_asked_at = $2,
           discovery_note = $3, discovery_lease_until = NULL, discovery_lease_token = NULL,
           updated_at = $2
         WHERE id = $1",
    )
    .bind(read.tracked_account_id)
    .bind(read.now)
    .bind(note)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(DiscoveryOutcome {
        videos_tracked,
        videos_skipped,
    }))
}

/// [`crate::CreatorStore::release_discovery`].
pub(super) async fn release<D: Dialect>(
    store: &SqlStore<D>,
    account: Uuid,
    token: Uuid,
) -> Result<(), StoreError> {
    let mut tx = store.write_tx().await?;
    D::query(
        "UPDATE tracked_accounts SET discovery_lease_until = NULL, discovery_lease_token = NULL
         WHERE id = $1 AND discovery_lease_token = $2",
    )
    .bind(account)
    .bind(token)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
