//! Manual refreshes (POST /v1/videos/…/refresh): a video read now, on a
//! client's ask. One upstream read serves every organization that asks
//! within the cooldown; an organization that asked within it already is
//! told when to ask again. The read itself goes through the refresh queue's
//! lease, so it never races a worker's read of the same video.

use chrono::{DateTime, Duration, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::RefreshOutcome;
use vidpulse_domain::webhooks::EventType;

use super::store::{observed_scope, save_one};
use super::{DueVideo, ManualRead, RefreshAsk, RefreshWrite};
use crate::StoreError;
use crate::credits::{Charge, insert_charge};
use crate::error::parse_platform;
use crate::rollup::{self, ScopeDialect};
use crate::sql::{Dialect, SqlStore, Tx, rollback_with};
use crate::videos::VideoLookup;
use crate::webhooks::anyone_subscribes;

/// The ask's view of the tracked video and its catalog row.
#[derive(sqlx::FromRow)]
struct AskRow {
    tracked_video_id: Uuid,
    tracking_ends_at: DateTime<Utc>,
    refresh_asked_at: Option<DateTime<Utc>>,
    catalog_id: i64,
    platform: String,
    external_id: String,
    stats_updated_at: Option<DateTime<Utc>>,
    gone_at: Option<DateTime<Utc>>,
    lease_until: Option<DateTime<Utc>>,
    tracking_started_at: DateTime<Utc>,
    refresh_until: DateTime<Utc>,
    failures: i64,
    next_refresh_at: Option<DateTime<Utc>>,
}

const ASK_COLUMNS: &str = "tv.id AS tracked_video_id, tv.tracking_ends_at, tv.refresh_asked_at,
       pv.id AS catalog_id, pv.platform, pv.external_id, pv.stats_updated_at, pv.gone_at,
       pv.lease_until, pv.tracking_started_at, pv.refresh_until, pv.failures, pv.next_refresh_at";

/// [`crate::RefreshStore::ask_refresh`].
pub(crate) async fn ask<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    video: &VideoLookup,
    now: DateTime<Utc>,
    cooldown: Duration,
    lease: Duration,
) -> Result<RefreshAsk, StoreError> {
    let mut tx = store.write_tx().await?;
    let Some(row) = find::<D>(&mut tx, org, video).await? else {
        return rollback_with(tx, Ok(RefreshAsk::NotFound)).await;
    };
    if row.tracking_ends_at <= now {
        return rollback_with(tx, Ok(RefreshAsk::Ended)).await;
    }
    if row.gone_at.is_some() {
        return rollback_with(tx, Ok(RefreshAsk::Gone)).await;
    }
    if let Some(asked) = row.refresh_asked_at
        && asked + cooldown > now
    {
        return rollback_with(
            tx,
            Ok(RefreshAsk::TooSoon {
                retry_at: asked + cooldown,
            }),
        )
        .await;
    }
    if let Some(read_at) = row.stats_updated_at
        && read_at + cooldown > now
    {
        mark_asked::<D>(&mut tx, row.tracked_video_id, now).await?;
        tx.commit().await?;
        return Ok(RefreshAsk::Served { read_at });
    }
    if row.lease_until.is_some_and(|until| until > now) {
        return rollback_with(tx, Ok(RefreshAsk::InFlight)).await;
    }
    let token = Uuid::new_v4();
    D::query("UPDATE platform_videos SET lease_until = $2, lease_token = $3 WHERE id = $1")
        .bind(row.catalog_id)
        .bind(now + lease)
        .bind(token)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(RefreshAsk::Claimed(ManualRead {
        tracked_video_id: row.tracked_video_id,
        due: DueVideo {
            id: row.catalog_id,
            platform: parse_platform(&row.platform)?,
            external_id: row.external_id,
            tracking_started_at: row.tracking_started_at,
            refresh_until: row.refresh_until,
            failures: row.failures,
            lease_token: token,
        },
        next_refresh_at: row.next_refresh_at,
    }))
}

/// The organization's video `video` names with its catalog row, locked.
async fn find<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    video: &VideoLookup,
) -> Result<Option<AskRow>, StoreError> {
    let lock = D::ROW_LOCK;
    let query = match video {
        VideoLookup::Id(id) => D::query(AssertSqlSafe(format!(
            "SELECT {ASK_COLUMNS}
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND tv.id = $2 {lock}"
        )))
        .bind(org.0)
        .bind(id.0),
        VideoLookup::ExternalId(external_id) => D::query(AssertSqlSafe(format!(
            "SELECT {ASK_COLUMNS}
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND pv.external_id = $2
             ORDER BY tv.created_at DESC LIMIT 1 {lock}"
        )))
        .bind(org.0)
        .bind(external_id.as_str()),
    };
    query.fetch_optional::<AskRow>(&mut **tx).await
}

/// Records that tracked video `id` was answered a refresh at `at`.
async fn mark_asked<D: Dialect>(
    tx: &mut Tx<D>,
    id: Uuid,
    at: DateTime<Utc>,
) -> Result<(), StoreError> {
    D::query("UPDATE tracked_videos SET refresh_asked_at = $2 WHERE id = $1")
        .bind(id)
        .bind(at)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// [`crate::RefreshStore::save_manual_refresh`].
pub(crate) async fn save<D: ScopeDialect>(
    store: &SqlStore<D>,
    read: &ManualRead,
    write: &RefreshWrite,
    charge: &Charge,
) -> Result<bool, StoreError> {
    let mut tx = store.write_tx().await?;
    let saved = match write.outcome {
        // A failed manual read leaves the video as the schedule had it.
        RefreshOutcome::Failed { .. } => {
            D::query(
                "UPDATE platform_videos SET lease_until = NULL, lease_token = NULL
                 WHERE id = $1 AND lease_token = $2",
            )
            .bind(write.video_id)
            .bind(write.lease_token)
            .execute(&mut *tx)
            .await?;
            false
        }
        RefreshOutcome::Gone { .. } => save_one(&mut tx, write, false).await?,
        RefreshOutcome::Observed { .. } => {
            let writes = std::slice::from_ref(write);
            let scope = observed_scope::<D>(&mut tx, writes).await?;
            let before = rollup::shares(&mut tx, &scope).await?;
            let milestones = anyone_subscribes(&mut tx, EventType::VideoMilestone).await?;
            let saved = save_one(&mut tx, write, milestones).await?;
            rollup::settle(&mut tx, &scope, before).await?;
            if saved {
                mark_asked::<D>(&mut tx, read.tracked_video_id, write.read_at).await?;
                insert_charge(&mut tx, charge).await?;
            }
            saved
        }
    };
    tx.commit().await?;
    Ok(saved)
}
