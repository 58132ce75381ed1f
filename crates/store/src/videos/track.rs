//! Tracking a batch of videos inside a transaction, within the
//! organization's quota: shared by the track endpoint and creator jobs.

use std::ops::ControlFlow;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::plan::Limits;
use vidpulse_domain::webhooks::EventType;
use vidpulse_domain::{OrgId, Plan, Platform, VideoId, VideoRef};

use super::*;
use crate::StoreError;
use crate::closes;
use crate::refresh::relink;
use crate::rollup::{self, Scope, ScopeDialect, Shares};
use crate::sql::{Dialect, Tx};
use crate::webhooks::Subscribers;

/// The organization's videos still in their tracking window at `now`: the
/// day counts after today's (`tracked_video_ends`, kept by triggers) plus
/// today's videos counted one by one. Call it holding the organization's
/// lock (see [`track_in`]) so that no concurrent track changes the answer.
pub(crate) async fn videos_in_use<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let (today, tomorrow) = quota_day(now);
    D::query(
        "SELECT CAST((SELECT coalesce(sum(videos), 0) FROM tracked_video_ends
                 WHERE organization_id = $1 AND end_day > $3) AS BIGINT)
              + (SELECT count(*) FROM tracked_videos
                 WHERE organization_id = $1 AND tracking_ends_at > $2
                   AND tracking_ends_at < $4)",
    )
    .bind(org.0)
    .bind(now)
    .bind(today)
    .bind(tomorrow)
    .fetch_scalar(&mut **tx)
    .await
}

/// A video of a batch by platform and the platform's id: how a batch spots
/// a video it lists twice.
type VideoKey<'a> = (Platform, &'a str);

/// Tracks a batch inside `tx`, charging `reason` per newly tracked video.
/// [`QuotaPolicy::AllOrNothing`] refuses the whole batch past the quota;
/// [`QuotaPolicy::WhatFits`] tracks new videos in order until the quota is
/// full and leaves the rest out of the result.
///
/// In steps: lock the organization and read its quota, find the videos it
/// tracks already, measure the room left, start the tracking of each new
/// video that fits (catalog row, tracking row, the creator's tags, the
/// charge), then join the readings already taken to the new closes, settle
/// the rollup and write the events.
pub(crate) async fn track_in<D: ScopeDialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    reason: &str,
    policy: QuotaPolicy,
) -> Result<TrackOutcome, StoreError> {
    let (plan, quota) = lock_quota(tx, batch.organization_id).await?;
    let known = tracked_already(tx, batch).await?;
    let requested = known.iter().filter(|(_, id)| id.is_none()).count() as i64;
    let allowed = match room(tx, batch, policy, (plan, quota), requested).await? {
        ControlFlow::Continue(allowed) => allowed,
        ControlFlow::Break(refused) => return Ok(refused),
    };
    // A creator's campaign running past the window tracks its new videos
    // longer (`campaigns::tracking`).
    let window_end = batch.now + batch.window;
    let ends = match &batch.campaign {
        Some(name) => {
            let ends_on = crate::campaigns::tracking::campaign_ends_on::<D>(
                &mut **tx,
                batch.organization_id,
                name,
            )
            .await?;
            crate::campaigns::tracking::tracking_end(window_end, ends_on)
        }
        None => window_end,
    };
    let account_author = account_author(tx, batch.account).await?;
    let mut results = Vec::with_capacity(batch.videos.len());
    let mut started: Vec<(VideoKey, Uuid)> = Vec::new();
    let mut new_catalog_ids = Vec::new();
    let mut tracked_now = Vec::new();
    for v in &batch.videos {
        let key = (v.platform, v.external_id.as_str());
        // Listed before in this batch, or tracked before it.
        let existing = started
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, id)| *id)
            .or_else(|| {
                known
                    .iter()
                    .find(|(k, _)| *k == key)
                    .and_then(|(_, id)| *id)
            });
        if let Some(id) = existing {
            results.push(TrackedVideo {
                video_id: VideoId(id),
                newly_tracked: false,
                credits: 0,
            });
            continue;
        }
        if started.len() as i64 >= allowed {
            // What fits is tracked; the rest is skipped (QuotaPolicy::WhatFits).
            continue;
        }
        let own_author = v.handle().or(account_author.as_deref());
        let ends = (window_end, ends);
        let (video_id, catalog_id) = start_tracking(tx, batch, v, ends, own_author, reason).await?;
        started.push((key, video_id.0));
        new_catalog_ids.push(catalog_id);
        tracked_now.push((video_id, v));
        results.push(TrackedVideo {
            video_id,
            newly_tracked: true,
            credits: batch.credits_per_video,
        });
    }
    join_closes(tx, batch, &new_catalog_ids).await?;
    let scope = Scope::tracked_by(batch.organization_id.0, new_catalog_ids);
    rollup::settle(tx, &scope, Shares::new()).await?;
    announce_tracked(tx, batch, reason, account_author.as_deref(), &tracked_now).await?;
    Ok(TrackOutcome::Tracked(results))
}

/// Locks the organization's row (concurrent tracks queue here, so the quota
/// check and the inserts after it see each other); its plan and video quota.
async fn lock_quota<D: Dialect>(tx: &mut Tx<D>, org: OrgId) -> Result<(Plan, i64), StoreError> {
    let (plan, quota_override): (String, Option<i64>) = D::query(AssertSqlSafe(format!(
        "SELECT plan, video_quota FROM organizations WHERE id = $1 {}",
        D::ORG_LOCK
    )))
    .bind(org.0)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or(StoreError::NotFound)?;
    let plan: Plan = plan
        .parse()
        .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
    Ok((plan, Limits::of(plan, quota_override, None).video_quota))
}

/// Each distinct video of the batch (its first occurrence) with the
/// organization's id of it when it tracks it already.
async fn tracked_already<'b, D: Dialect>(
    tx: &mut Tx<D>,
    batch: &'b TrackBatch,
) -> Result<Vec<(VideoKey<'b>, Option<Uuid>)>, StoreError> {
    let mut known: Vec<(VideoKey, Option<Uuid>)> = Vec::new();
    for v in &batch.videos {
        let key = (v.platform, v.external_id.as_str());
        if known.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let existing: Option<Uuid> = D::query(
            "SELECT tv.id FROM tracked_videos tv
             JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND pv.platform = $2 AND pv.external_id = $3",
        )
        .bind(batch.organization_id.0)
        .bind(v.platform.id())
        .bind(&v.external_id)
        .fetch_scalar_optional(&mut **tx)
        .await?;
        known.push((key, existing));
    }
    Ok(known)
}

/// How many of the `requested` new videos may be tracked under the quota of
/// `plan`: what is left of it, or, under [`QuotaPolicy::AllOrNothing`] when
/// they do not all fit, the refusal to answer (`Break`).
async fn room<D: Dialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    policy: QuotaPolicy,
    (plan, quota): (Plan, i64),
    requested: i64,
) -> Result<ControlFlow<TrackOutcome, i64>, StoreError> {
    if requested == 0 {
        return Ok(ControlFlow::Continue(0));
    }
    let in_use = videos_in_use(tx, batch.organization_id, batch.now).await?;
    if policy == QuotaPolicy::AllOrNothing && in_use + requested > quota {
        return Ok(ControlFlow::Break(TrackOutcome::QuotaExceeded {
            plan,
            quota,
            in_use,
            requested,
        }));
    }
    Ok(ControlFlow::Continue((quota - in_use).max(0)))
}

/// The username of the tracked creator `account` whose backfill or
/// discovery the batch is: that creator's videos are its.
async fn account_author<D: Dialect>(
    tx: &mut Tx<D>,
    account: Option<Uuid>,
) -> Result<Option<String>, StoreError> {
    let Some(account) = account else {
        return Ok(None);
    };
    D::query(
        "SELECT c.username FROM tracked_accounts ta
         JOIN creators c ON c.id = ta.creator_id WHERE ta.id = $1",
    )
    .bind(account)
    .fetch_scalar_optional(&mut **tx)
    .await
}

/// Starts the organization's tracking of `v` until `ends` (its window's
/// end, and its tracking's, later in a campaign): its catalog row,
/// its tracking row, the tracked creator's tags and the charge; the new
/// video's id and its catalog id.
async fn start_tracking<D: Dialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    v: &VideoRef,
    ends: (DateTime<Utc>, DateTime<Utc>),
    own_author: Option<&str>,
    reason: &str,
) -> Result<(VideoId, i64), StoreError> {
    let catalog_id = upsert_catalog(tx, batch, v, ends.1, own_author).await?;
    let video_id = VideoId::new();
    insert_tracking(tx, batch, v, (video_id, catalog_id), ends, own_author).await?;
    if let Some(account) = batch.account {
        inherit_tags(tx, video_id, account).await?;
    }
    charge_tracking(tx, batch, video_id, reason).await?;
    Ok((video_id, catalog_id))
}

/// Inserts `v`'s catalog row, or moves an existing one's refresh window to
/// cover this tracking; its catalog id.
async fn upsert_catalog<D: Dialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    v: &VideoRef,
    ends: DateTime<Utc>,
    own_author: Option<&str>,
) -> Result<i64, StoreError> {
    D::query(AssertSqlSafe(format!(
        "INSERT INTO platform_videos
           (platform, external_id, url, tracking_started_at, refresh_until, next_refresh_at,
            created_at, author_username)
         VALUES ($1, $2, $3, $4, $5, $4, $4, $6)
         ON CONFLICT (platform, external_id) DO UPDATE SET
           tracking_started_at = excluded.tracking_started_at,
           refresh_until = {}(platform_videos.refresh_until, excluded.refresh_until),
           next_refresh_at = CASE
             WHEN platform_videos.gone_at IS NOT NULL THEN NULL
             WHEN platform_videos.next_refresh_at < excluded.next_refresh_at
               THEN platform_videos.next_refresh_at
             ELSE excluded.next_refresh_at END
         RETURNING id",
        D::GREATEST
    )))
    .bind(v.platform.id())
    .bind(&v.external_id)
    .bind(&v.canonical_url)
    .bind(batch.now)
    .bind(ends)
    // Only a new catalog row takes it: an existing row keeps its author
    // (changing it would move other organizations' analytics shares);
    // the tracking keeps its own (`own_author`).
    .bind(own_author)
    .fetch_scalar(&mut **tx)
    .await
}

/// Inserts the organization's tracking `video_id` of catalog video
/// `catalog_id`, with the batch's campaign, budget and creator, its window
/// ending at `ends.0` and its tracking at `ends.1`.
async fn insert_tracking<D: Dialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    v: &VideoRef,
    (video_id, catalog_id): (VideoId, i64),
    ends: (DateTime<Utc>, DateTime<Utc>),
    own_author: Option<&str>,
) -> Result<(), StoreError> {
    D::query(
        "INSERT INTO tracked_videos
           (id, organization_id, platform_video_id, tracking_started_at, tracking_ends_at,
            created_at, updated_at, campaign, budget, tracked_account_id, platform,
            own_url, own_author, window_ends_at)
         VALUES ($1, $2, $3, $4, $5, $4, $4, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(video_id.0)
    .bind(batch.organization_id.0)
    .bind(catalog_id)
    .bind(batch.now)
    .bind(ends.1)
    .bind(&batch.campaign)
    .bind(batch.budget)
    .bind(batch.account)
    .bind(v.platform.id())
    .bind(&v.canonical_url)
    .bind(own_author)
    .bind(ends.0)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Gives the new video the tags of the tracked creator `account`.
async fn inherit_tags<D: Dialect>(
    tx: &mut Tx<D>,
    video_id: VideoId,
    account: Uuid,
) -> Result<(), StoreError> {
    D::query(
        "INSERT INTO video_tags (tracked_video_id, tag_id)
         SELECT $1, tag_id FROM account_tags WHERE tracked_account_id = $2",
    )
    .bind(video_id.0)
    .bind(account)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Writes the ledger's charge of `reason` for the new video.
async fn charge_tracking<D: Dialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    video_id: VideoId,
    reason: &str,
) -> Result<(), StoreError> {
    D::query(
        "INSERT INTO credit_ledger
           (organization_id, api_key_id, request_id, amount, reason, subject, created_at)
         VALUES ($1, $2, $3, $4, $7, $5, $6)",
    )
    .bind(batch.organization_id.0)
    .bind(batch.api_key_id.map(|k| k.0))
    .bind(&batch.request_id)
    .bind(batch.credits_per_video)
    .bind(video_id.0.to_string())
    .bind(batch.now)
    .bind(reason)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Joins to the new videos' closes the readings another organization's
/// reads took at this very instant, which this tracking sees.
async fn join_closes<D: ScopeDialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    new_catalog_ids: &[i64],
) -> Result<(), StoreError> {
    let revealed = closes::reveal_platform_readings::<D>(
        tx,
        batch.organization_id.0,
        new_catalog_ids,
        batch.now,
        None,
    )
    .await?;
    relink(tx, revealed).await
}

/// Writes `video.tracked` for each video the batch newly tracked and, for a
/// creator's daily discovery, `creator.video_discovered` too (to the
/// organization's subscribed endpoints, in the tracking's transaction).
async fn announce_tracked<D: Dialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    reason: &str,
    creator: Option<&str>,
    tracked: &[(VideoId, &vidpulse_domain::VideoRef)],
) -> Result<(), StoreError> {
    if tracked.is_empty() {
        return Ok(());
    }
    let org = batch.organization_id.0;
    let mut kinds = vec![EventType::VideoTracked];
    if reason == "creator_discovery" {
        kinds.push(EventType::CreatorVideoDiscovered);
    }
    for kind in kinds {
        let subscribers = Subscribers::of(tx, org, kind).await?;
        if subscribers.is_empty() {
            continue;
        }
        for (video_id, v) in tracked {
            let mut data = json!({
                "video_id": video_id.0,
                "external_video_id": v.external_id,
                "platform": v.platform.id(),
                "url": v.canonical_url,
                "tracked_at": batch.now.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
                "source": match reason {
                    "creator_backfill" => "creator_backfill",
                    "creator_discovery" => "creator_discovery",
                    _ => "api",
                },
            });
            if let (Some(account), Value::Object(fields)) = (batch.account, &mut data) {
                fields.insert(
                    "creator".into(),
                    json!({ "tracked_account_id": account, "username": creator }),
                );
            }
            subscribers.emit(tx, data, batch.now).await?;
        }
    }
    Ok(())
}
