//! Tracked videos on SQLite.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::{AssertSqlSafe, Sqlite, Transaction};
use uuid::Uuid;
use vidpulse_domain::patch::VideoPatch;
use vidpulse_domain::plan::Limits;
use vidpulse_domain::schedule::FAILING_AFTER_FAILURES;
use vidpulse_domain::{OrgId, Plan, VideoId};

use super::SqliteStore;
use crate::StoreError;
use crate::closes;
use crate::refresh::relink;
use crate::rollup;
use crate::rollup::{Scope, Shares};
use crate::rows::{VideoJsonRow, list_order, state_name, visible_readings};
use crate::videos::{
    ListQuery, Page, PatchOutcome, RecordStamp, StatementsByLookup, TagsResult, TrackBatch,
    TrackOutcome, TrackedVideo, VideoLookup, VideoRecord, VideoStore,
};
use crate::videos::{QuotaPolicy, quota_day};

/// The columns of a [`VideoJsonRow`] but its history: a tracked video `tv`
/// joined with its catalog row `pv`, and its tags as JSON.
const RECORD_HEAD: &str = "
    tv.id AS video_id, pv.platform, pv.external_id, pv.url, pv.title, pv.thumbnail_url,
    pv.author_username, pv.published_at, tv.created_at, tv.tracking_started_at,
    tv.tracking_ends_at, pv.gone_at IS NOT NULL AS gone, pv.failures, tv.notes, tv.budget,
    tv.campaign, tv.video_status, tv.workflow_status, tv.ecpm, tv.revision,
    pv.revision AS catalog_revision,
    (SELECT json_group_array(t.name) FROM video_tags vt JOIN tags t ON t.id = vt.tag_id
      WHERE vt.tracked_video_id = tv.id) AS tags_json";

/// The in-window history `tv`'s organization sees (the platform's readings,
/// and its own imports at instants the platform has none) as JSON (`[at,
/// views, likes, comments, reposts, saves]` tuples).
const HISTORY_JSON: &str = concat!(
    "
    (SELECT json_group_array(json_array(o.captured_at, o.views, o.likes, o.comments, o.reposts, o.saves))
       FROM ",
    visible_readings!(),
    " o)"
);

/// The statements of [`VideoStore::video`].
static READ_VIDEO: StatementsByLookup = StatementsByLookup::new(
    |lookup| {
        format!(
            "SELECT {RECORD_HEAD}, {HISTORY_JSON} AS history_json
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = ?1 AND {lookup}"
        )
    },
    BY_ID,
    BY_EXTERNAL_ID,
);

/// The statements of [`VideoStore::record_stamp`].
static READ_STAMP: StatementsByLookup = StatementsByLookup::new(
    |lookup| {
        format!(
            "SELECT tv.id, tv.revision, pv.revision
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = ?1 AND {lookup}"
        )
    },
    BY_ID,
    BY_EXTERNAL_ID,
);

/// How a single read finds its video by id ...
const BY_ID: &str = "tv.id = ?2";
/// ... and by external id (the most recently tracked, across platforms).
const BY_EXTERNAL_ID: &str = "pv.external_id = ?2 ORDER BY tv.created_at DESC LIMIT 1";

#[async_trait]
impl VideoStore for SqliteStore {
    async fn track_videos(&self, batch: TrackBatch) -> Result<TrackOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let outcome = track_in(&mut tx, &batch, "video_track", QuotaPolicy::AllOrNothing).await?;
        if matches!(outcome, TrackOutcome::Tracked(_)) {
            tx.commit().await?;
        }
        Ok(outcome)
    }

    async fn list_videos(
        &self,
        org: OrgId,
        query: &ListQuery,
        now: DateTime<Utc>,
    ) -> Result<Page<VideoRecord>, StoreError> {
        let order = list_order(query);
        // The page's ids first (an index walk for the default order), then
        // the wide columns (tags, history) of those rows only; the count apart.
        let sql = format!(
            "WITH page AS (
               SELECT tv.id AS page_id {LIST_FROM}
               ORDER BY {order} LIMIT ?6 OFFSET ?7)
             SELECT {RECORD_HEAD}, {HISTORY_JSON} AS history_json
             FROM page JOIN tracked_videos tv ON tv.id = page.page_id
             JOIN platform_videos pv ON pv.id = tv.platform_video_id
             ORDER BY {order}"
        );
        let rows = sqlx::query_as::<_, VideoJsonRow>(AssertSqlSafe(sql))
            .bind(org.0)
            .bind(query.platform.map(|p| p.id()))
            .bind(query.status.map(state_name))
            .bind(now)
            .bind(FAILING_AFTER_FAILURES)
            .bind(query.limit)
            .bind(query.offset)
            .fetch_all(&self.pool)
            .await?;
        let total: i64 = if query.platform.is_none() && query.status.is_none() {
            // Unfiltered: the organization's index alone answers.
            sqlx::query_scalar("SELECT count(*) FROM tracked_videos WHERE organization_id = ?1")
                .bind(org.0)
                .fetch_one(&self.pool)
                .await?
        } else {
            sqlx::query_scalar(AssertSqlSafe(format!("SELECT count(*) {LIST_FROM}")))
                .bind(org.0)
                .bind(query.platform.map(|p| p.id()))
                .bind(query.status.map(state_name))
                .bind(now)
                .bind(FAILING_AFTER_FAILURES)
                .fetch_one(&self.pool)
                .await?
        };
        let items = rows
            .into_iter()
            .map(|r| r.into_record(now))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Page { items, total })
    }

    async fn video(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
        now: DateTime<Utc>,
    ) -> Result<Option<VideoRecord>, StoreError> {
        let row: Option<VideoJsonRow> = READ_VIDEO.fetch(&self.pool, org, lookup).await?;
        row.map(|r| r.into_record(now)).transpose()
    }

    async fn record_stamp(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
    ) -> Result<Option<RecordStamp>, StoreError> {
        let row: Option<(Uuid, i64, i64)> = READ_STAMP.fetch(&self.pool, org, lookup).await?;
        Ok(row.map(RecordStamp::from))
    }

    async fn patch_video(
        &self,
        org: OrgId,
        external_id: &str,
        patch: &VideoPatch,
        now: DateTime<Utc>,
    ) -> Result<Option<PatchOutcome>, StoreError> {
        let mut tx = self.write_tx().await?;
        let Some((video_id, catalog_id)): Option<(Uuid, i64)> = sqlx::query_as(
            "SELECT tv.id, tv.platform_video_id FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = ?1 AND pv.external_id = ?2
             ORDER BY tv.created_at DESC LIMIT 1",
        )
        .bind(org.0)
        .bind(external_id)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(None);
        };
        // A new campaign moves the video's analytics to another cell.
        let scope = match patch.campaign {
            Some(_) => Scope::tracked_by(org.0, [catalog_id]),
            None => Scope::default(),
        };
        let before = rollup::shares(&mut tx, &scope).await?;
        sqlx::query(
            "UPDATE tracked_videos SET
               notes = CASE WHEN ?2 THEN ?3 ELSE notes END,
               budget = CASE WHEN ?4 THEN ?5 ELSE budget END,
               campaign = CASE WHEN ?6 THEN ?7 ELSE campaign END,
               video_status = coalesce(?8, video_status),
               workflow_status = coalesce(?9, workflow_status),
               ecpm = CASE WHEN ?10 THEN ?11 ELSE ecpm END,
               updated_at = ?12
             WHERE id = ?1",
        )
        .bind(video_id)
        .bind(patch.notes.is_some())
        .bind(patch.notes.clone().flatten())
        .bind(patch.budget.is_some())
        .bind(patch.budget.flatten())
        .bind(patch.campaign.is_some())
        .bind(patch.campaign.clone().flatten())
        .bind(patch.video_status.map(|s| s.as_str()))
        .bind(patch.status.map(|s| s.as_str()))
        .bind(patch.ecpm.is_some())
        .bind(patch.ecpm.flatten())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        rollup::settle(&mut tx, &scope, before).await?;
        let tags = match &patch.tags {
            Some(names) => Some(attach_tags(&mut tx, org, video_id, names, now).await?),
            None => None,
        };
        tx.commit().await?;
        Ok(Some(PatchOutcome {
            video_id: VideoId(video_id),
            external_id: external_id.to_owned(),
            updated_fields: patch.written_columns(),
            tags,
        }))
    }
}

/// Links tags (created when unknown, matched ignoring case) to a tracked video.
async fn attach_tags(
    tx: &mut Transaction<'static, Sqlite>,
    org: OrgId,
    video_id: Uuid,
    names: &[String],
    now: DateTime<Utc>,
) -> Result<TagsResult, StoreError> {
    let mut attached = Vec::with_capacity(names.len());
    let mut created = Vec::new();
    for name in names {
        let lower = name.to_lowercase();
        let existing: Option<(Uuid, String)> = sqlx::query_as(
            "SELECT id, name FROM tags WHERE organization_id = ?1 AND name_lower = ?2",
        )
        .bind(org.0)
        .bind(&lower)
        .fetch_optional(&mut **tx)
        .await?;
        let (tag_id, stored) = match existing {
            Some(found) => found,
            None => {
                let id = Uuid::now_v7();
                sqlx::query(
                    "INSERT INTO tags (id, organization_id, name, name_lower, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .bind(id)
                .bind(org.0)
                .bind(name)
                .bind(&lower)
                .bind(now)
                .execute(&mut **tx)
                .await?;
                created.push(name.clone());
                (id, name.clone())
            }
        };
        sqlx::query("INSERT INTO video_tags (tracked_video_id, tag_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING")
            .bind(video_id)
            .bind(tag_id)
            .execute(&mut **tx)
            .await?;
        attached.push(stored);
    }
    let total: i64 =
        sqlx::query_scalar("SELECT count(*) FROM video_tags WHERE tracked_video_id = ?1")
            .bind(video_id)
            .fetch_one(&mut **tx)
            .await?;
    Ok(TagsResult {
        attached,
        created,
        total,
    })
}

/// The listing's rows. Parameters: ?1 organization, ?2 platform or NULL,
/// ?3 state name or NULL, ?4 now, ?5 failing threshold.
const LIST_FROM: &str = "
    FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
    WHERE tv.organization_id = ?1
      AND (?2 IS NULL OR pv.platform = ?2)
      AND (?3 IS NULL OR ?3 = CASE
            WHEN pv.gone_at IS NOT NULL OR pv.failures >= ?5 THEN 'failed'
            WHEN tv.tracking_ends_at <= ?4 THEN 'completed'
            ELSE 'active' END)";

/// The organization's videos still in their tracking window at `now`: the
/// day counts after today's (`tracked_video_ends`, kept by triggers) plus
/// today's videos counted one by one. Call it holding the organization's
/// lock (see [`track_in`]) so that no concurrent track changes the answer.
pub(super) async fn videos_in_use(
    tx: &mut Transaction<'static, Sqlite>,
    org: OrgId,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let (today, tomorrow) = quota_day(now);
    Ok(sqlx::query_scalar(
        "SELECT (SELECT coalesce(sum(videos), 0) FROM tracked_video_ends
                 WHERE organization_id = ?1 AND end_day > ?3)
              + (SELECT count(*) FROM tracked_videos
                 WHERE organization_id = ?1 AND tracking_ends_at > ?2
                   AND tracking_ends_at < ?4)",
    )
    .bind(org.0)
    .bind(now)
    .bind(today)
    .bind(tomorrow)
    .fetch_one(&mut **tx)
    .await?)
}

/// Tracks a batch inside `tx`, charging `reason` per newly tracked video.
/// [`QuotaPolicy::AllOrNothing`] refuses the whole batch past the quota;
/// [`QuotaPolicy::WhatFits`] tracks new videos in order until the quota is
/// full and leaves the rest out of the result.
pub(super) async fn track_in(
    tx: &mut Transaction<'static, Sqlite>,
    batch: &TrackBatch,
    reason: &str,
    policy: QuotaPolicy,
) -> Result<TrackOutcome, StoreError> {
    let (plan, quota_override): (String, Option<i64>) =
        sqlx::query_as("SELECT plan, video_quota FROM organizations WHERE id = ?1")
            .bind(batch.organization_id.0)
            .fetch_optional(&mut **tx)
            .await?
            .ok_or(StoreError::NotFound)?;
    let plan: Plan = plan
        .parse()
        .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
    let quota = Limits::of(plan, quota_override, None).video_quota;

    // Which videos the organization tracks already (first occurrence wins).
    let mut known: Vec<((vidpulse_domain::Platform, &str), Option<Uuid>)> = Vec::new();
    for v in &batch.videos {
        let key = (v.platform, v.external_id.as_str());
        if known.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let existing: Option<Uuid> = sqlx::query_scalar(
            "SELECT tv.id FROM tracked_videos tv
             JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = ?1 AND pv.platform = ?2 AND pv.external_id = ?3",
        )
        .bind(batch.organization_id.0)
        .bind(v.platform.id())
        .bind(&v.external_id)
        .fetch_optional(&mut **tx)
        .await?;
        known.push((key, existing));
    }
    let requested = known.iter().filter(|(_, id)| id.is_none()).count() as i64;
    let mut allowed = requested;
    if requested > 0 {
        let in_use = videos_in_use(tx, batch.organization_id, batch.now).await?;
        allowed = (quota - in_use).max(0);
        if policy == QuotaPolicy::AllOrNothing && in_use + requested > quota {
            return Ok(TrackOutcome::QuotaExceeded {
                plan,
                quota,
                in_use,
                requested,
            });
        }
    }

    let ends = batch.now + batch.window;
    // A creator's backfill and discoveries are that creator's videos.
    let account_author: Option<String> = match batch.account {
        Some(account) => {
            sqlx::query_scalar(
                "SELECT c.username FROM tracked_accounts ta
                 JOIN creators c ON c.id = ta.creator_id WHERE ta.id = ?1",
            )
            .bind(account)
            .fetch_optional(&mut **tx)
            .await?
        }
        None => None,
    };
    let mut results = Vec::with_capacity(batch.videos.len());
    let mut started: Vec<((vidpulse_domain::Platform, &str), Uuid)> = Vec::new();
    let mut new_catalog_ids = Vec::new();
    for v in &batch.videos {
        let key = (v.platform, v.external_id.as_str());
        if let Some((_, id)) = started.iter().find(|(k, _)| *k == key) {
            results.push(TrackedVideo {
                video_id: VideoId(*id),
                newly_tracked: false,
            });
            continue;
        }
        let existing = known
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, id)| *id);
        if let Some(id) = existing {
            results.push(TrackedVideo {
                video_id: VideoId(id),
                newly_tracked: false,
            });
            continue;
        }
        if started.len() as i64 >= allowed {
            // What fits is tracked; the rest is skipped (QuotaPolicy::WhatFits).
            continue;
        }
        let catalog_id: i64 = sqlx::query_scalar(
            "INSERT INTO platform_videos
               (platform, external_id, url, tracking_started_at, refresh_until, next_refresh_at,
                created_at, author_username)
             VALUES (?1, ?2, ?3, ?4, ?5, ?4, ?4, ?6)
             ON CONFLICT (platform, external_id) DO UPDATE SET
               tracking_started_at = excluded.tracking_started_at,
               refresh_until = max(platform_videos.refresh_until, excluded.refresh_until),
               next_refresh_at = CASE
                 WHEN platform_videos.gone_at IS NOT NULL THEN NULL
                 WHEN platform_videos.next_refresh_at < excluded.next_refresh_at
                   THEN platform_videos.next_refresh_at
                 ELSE excluded.next_refresh_at END
             RETURNING id",
        )
        .bind(v.platform.id())
        .bind(&v.external_id)
        .bind(&v.canonical_url)
        .bind(batch.now)
        .bind(ends)
        // Only a new catalog row takes it: an existing row keeps its author
        // (changing it would move other organizations' analytics shares).
        .bind(v.handle().or(account_author.as_deref()))
        .fetch_one(&mut **tx)
        .await?;
        let video_id = VideoId::new();
        sqlx::query(
            "INSERT INTO tracked_videos
               (id, organization_id, platform_video_id, tracking_started_at, tracking_ends_at,
                created_at, updated_at, campaign, budget, tracked_account_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?4, ?4, ?6, ?7, ?8)",
        )
        .bind(video_id.0)
        .bind(batch.organization_id.0)
        .bind(catalog_id)
        .bind(batch.now)
        .bind(ends)
        .bind(&batch.campaign)
        .bind(batch.budget)
        .bind(batch.account)
        .execute(&mut **tx)
        .await?;
        if let Some(account) = batch.account {
            // The tracked creator's tags go to its new videos.
            sqlx::query(
                "INSERT INTO video_tags (tracked_video_id, tag_id)
                 SELECT ?1, tag_id FROM account_tags WHERE tracked_account_id = ?2",
            )
            .bind(video_id.0)
            .bind(account)
            .execute(&mut **tx)
            .await?;
        }
        sqlx::query(
            "INSERT INTO credit_ledger
               (organization_id, api_key_id, request_id, amount, reason, subject, created_at)
             VALUES (?1, ?2, ?3, ?4, ?7, ?5, ?6)",
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
        started.push((key, video_id.0));
        new_catalog_ids.push(catalog_id);
        results.push(TrackedVideo {
            video_id,
            newly_tracked: true,
        });
    }
    // A video another organization already reads may have a reading taken
    // at this very instant, which this tracking sees: it joins its closes.
    let revealed = closes::reveal_platform_readings::<Sqlite>(
        tx,
        batch.organization_id.0,
        &new_catalog_ids,
        batch.now,
        None,
    )
    .await?;
    relink(tx, revealed).await?;
    let scope = Scope::tracked_by(batch.organization_id.0, new_catalog_ids);
    rollup::settle(tx, &scope, Shares::new()).await?;
    Ok(TrackOutcome::Tracked(results))
}
