//! The catalog row of a creator and an organization's tracked account of
//! it, with its tags: what a job, a discovery and a dashboard add share.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use vidpulse_domain::names::{Campaign, handle_key};
use vidpulse_domain::plan::Limits;
use vidpulse_domain::{OrgId, Plan};

use super::store::IN_FLIGHT;
use super::*;
use crate::StoreError;
use crate::sql::{Dialect, Tx};

/// Inserts or refreshes the catalog row of a platform account, and records
/// its follower count of the day when the read has one; returns its id.
pub(crate) async fn upsert_creator<D: Dialect>(
    tx: &mut Tx<D>,
    p: &CreatorProfile,
    now: DateTime<Utc>,
) -> Result<Uuid, StoreError> {
    let id: Uuid = D::query(
        "INSERT INTO creators
           (id, platform, channel_id, username, username_key, display_name, avatar_url,
            follower_count, last_fetched_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
         ON CONFLICT (platform, channel_id) DO UPDATE SET
           username = excluded.username, username_key = excluded.username_key,
           display_name = coalesce(excluded.display_name, creators.display_name),
           avatar_url = coalesce(excluded.avatar_url, creators.avatar_url),
           follower_count = coalesce(excluded.follower_count, creators.follower_count),
           last_fetched_at = excluded.last_fetched_at
         RETURNING id",
    )
    .bind(Uuid::now_v7())
    .bind(p.platform.id())
    .bind(&p.channel_id)
    .bind(&p.username)
    .bind(handle_key(&p.username))
    .bind(&p.display_name)
    .bind(&p.avatar_url)
    .bind(p.follower_count)
    .bind(now)
    .fetch_scalar(&mut **tx)
    .await?;
    if let Some(count) = p.follower_count {
        super::followers::record_followers(tx, id, count, now).await?;
    }
    Ok(id)
}

/// Opens (or reactivates) the organization's tracked account of the
/// setup's creator, with its settings; returns its id.
pub(crate) async fn open_account<D: Dialect>(
    tx: &mut Tx<D>,
    org: uuid::Uuid,
    setup: &crate::creators::AccountSetup,
    initial_videos_count: i64,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<uuid::Uuid, crate::StoreError> {
    let creator_id = match &setup.creator {
        crate::creators::SetupCreator::Profile(p) => upsert_creator(tx, p, now).await?,
        crate::creators::SetupCreator::Known(id) => *id,
    };
    // A campaign named in any letter case is the organization's campaign
    // of that name, created when absent: the account carries its stored
    // name, which its new videos get.
    let campaign = match setup.campaign.as_deref().map(Campaign::parse) {
        Some(Ok(Some(name))) => {
            Some(crate::campaigns::attach::<D>(&mut **tx, OrgId(org), &name, now).await?)
        }
        Some(Ok(None)) | None => None,
        Some(Err(e)) => {
            return Err(crate::StoreError::Corrupt(format!(
                "campaign of a creator setup: {e}"
            )));
        }
    };
    // Discovery starts when the backfill succeeds (the job sets
    // `next_discovery_at`).
    let id: uuid::Uuid = D::query(
        "INSERT INTO tracked_accounts
           (id, organization_id, creator_id, is_active, initial_videos_count,
            daily_videos_count, campaign, discovered_since, created_at, updated_at)
         VALUES ($1, $2, $3, TRUE, $4, $5, $6, $7, $7, $7)
         ON CONFLICT (organization_id, creator_id) DO UPDATE SET
           is_active = TRUE, initial_videos_count = excluded.initial_videos_count,
           daily_videos_count = coalesce(excluded.daily_videos_count,
                                         tracked_accounts.daily_videos_count),
           campaign = coalesce(excluded.campaign, tracked_accounts.campaign),
           discovered_since = excluded.discovered_since, next_discovery_at = NULL,
           discovery_note = NULL, updated_at = excluded.updated_at
         RETURNING id",
    )
    .bind(uuid::Uuid::now_v7())
    .bind(org)
    .bind(creator_id)
    .bind(initial_videos_count)
    .bind(setup.daily_videos_count)
    .bind(&campaign)
    .bind(now)
    .fetch_scalar(&mut **tx)
    .await?;
    if let Some(tags) = &setup.tag_ids {
        replace_account_tags(tx, org, id, tags).await?;
    }
    Ok(id)
}

/// Replaces the tags of a tracked account (of organization `org`;
/// ids of other organizations' tags are ignored): its videos lose
/// the old ones and get the new ones.
pub(crate) async fn replace_account_tags<D: Dialect>(
    tx: &mut Tx<D>,
    org: uuid::Uuid,
    account: uuid::Uuid,
    tag_ids: &[uuid::Uuid],
) -> Result<(), crate::StoreError> {
    D::query(
        "DELETE FROM video_tags
         WHERE tag_id IN (SELECT tag_id FROM account_tags WHERE tracked_account_id = $1)
           AND tracked_video_id IN (SELECT id FROM tracked_videos
                                    WHERE tracked_account_id = $1 AND organization_id = $2)",
    )
    .bind(account)
    .bind(org)
    .execute(&mut **tx)
    .await?;
    D::query("DELETE FROM account_tags WHERE tracked_account_id = $1")
        .bind(account)
        .execute(&mut **tx)
        .await?;
    for tag in tag_ids {
        D::query(
            "INSERT INTO account_tags (tracked_account_id, tag_id)
             SELECT $1, id FROM tags WHERE id = $2 AND organization_id = $3
             ON CONFLICT DO NOTHING",
        )
        .bind(account)
        .bind(tag)
        .bind(org)
        .execute(&mut **tx)
        .await?;
    }
    D::query(
        "INSERT INTO video_tags (tracked_video_id, tag_id)
         SELECT tv.id, at.tag_id FROM tracked_videos tv
         JOIN account_tags at ON at.tracked_account_id = tv.tracked_account_id
         WHERE tv.tracked_account_id = $1 AND tv.organization_id = $2
         ON CONFLICT DO NOTHING",
    )
    .bind(account)
    .bind(org)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Activates or deactivates organization `org`'s tracked account `id` at
/// `now` (an activated one's discovery is due at once unless it is
/// scheduled). Resuming a paused account takes a place under the plan's
/// creator cap, counted under the organization's row lock as a new track
/// does; pausing, or resuming an active account, always passes.
pub(crate) async fn set_active<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    id: Uuid,
    active: bool,
    now: DateTime<Utc>,
) -> Result<AccountChange, StoreError> {
    let limits = locked_limits(tx, org).await?;
    let was_active: Option<bool> =
        D::query("SELECT is_active FROM tracked_accounts WHERE id = $1 AND organization_id = $2")
            .bind(id)
            .bind(org.0)
            .fetch_scalar_optional(&mut **tx)
            .await?;
    let Some(was_active) = was_active else {
        return Ok(AccountChange::NotFound);
    };
    if active && !was_active {
        let in_use = creators_in_use(tx, org).await?;
        if in_use + 1 > limits.creator_cap {
            return Ok(AccountChange::CreatorCapReached {
                cap: limits.creator_cap,
                in_use,
            });
        }
    }
    D::query(sqlx::AssertSqlSafe(format!(
        "UPDATE tracked_accounts SET is_active = {p3_bool}, updated_at = $4,
           next_discovery_at = CASE WHEN {p3_bool} THEN coalesce(next_discovery_at, $4)
                                    ELSE next_discovery_at END
         WHERE id = $1 AND organization_id = $2",
        p3_bool = D::typed("$3", "BOOLEAN")
    )))
    .bind(id)
    .bind(org.0)
    .bind(active)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(AccountChange::Done)
}

/// The plan limits of organization `org`, its row locked (PostgreSQL) so
/// that the checks against them made in this transaction hold until it ends.
pub(crate) async fn locked_limits<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
) -> Result<Limits, StoreError> {
    let (plan, quota, cap): (String, Option<i64>, Option<i64>) =
        D::query(sqlx::AssertSqlSafe(format!(
            "SELECT plan, video_quota, creator_cap FROM organizations WHERE id = $1 {org_lock}",
            org_lock = D::ORG_LOCK
        )))
        .bind(org.0)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(StoreError::NotFound)?;
    let plan: Plan = plan
        .parse()
        .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
    Ok(Limits::of(plan, quota, cap))
}

/// The places under the creator cap organization `org` uses: its active
/// tracked accounts and its jobs in flight for a creator it does not track
/// yet (a job for an account it has counts as that account).
pub(crate) async fn creators_in_use<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
) -> Result<i64, StoreError> {
    D::query(sqlx::AssertSqlSafe(format!(
        "SELECT (SELECT count(*) FROM tracked_accounts WHERE organization_id = $1 AND is_active)
              + (SELECT count(*) FROM creator_jobs
                 WHERE organization_id = $1 AND tracked_account_id IS NULL AND {IN_FLIGHT})"
    )))
    .bind(org.0)
    .fetch_scalar(&mut **tx)
    .await
}
