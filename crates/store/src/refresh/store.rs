//! The refresh queue, stored: the one implementation of [`RefreshStore`] for
//! both backends, and the writes of a read that other roles share.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde_json::json;
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::webhooks::{EventType, milestones_reached};
use vidpulse_domain::{Anchor, Counters, Observation, OrgId, RefreshOutcome, VideoMeta};

use super::manual;
use super::{DueVideo, ManualRead, RefreshAsk, RefreshStore, RefreshWrite};
use crate::StoreError;
use crate::closes::{self, Owner, Reading};
use crate::credits::Charge;
use crate::error::parse_platform;
use crate::rollup::{self, Scope, ScopeDialect, relink_sql};
use crate::sql::{Builder, Conn, Dialect, SqlStore, Tx};
use crate::videos::VideoLookup;
use crate::webhooks::{anyone_subscribes, emit_to_trackers};

/// The closes whose analytics shares the counters read in `writes` can move
/// (only reads whose lease still holds): each video's close of the read day
/// and after, or every close when the read changes the video's author.
pub(crate) async fn observed_scope<D: Dialect>(
    conn: &mut Conn<D>,
    writes: &[RefreshWrite],
) -> Result<Scope, StoreError> {
    let held_sql = held_sql::<D>();
    let mut scope = Scope::default();
    for w in writes {
        let RefreshOutcome::Observed { meta, .. } = &w.outcome else {
            continue;
        };
        let held: Option<(Option<String>,)> = D::query(AssertSqlSafe(held_sql.as_str()))
            .bind(w.video_id)
            .bind(w.lease_token)
            .fetch_optional(&mut *conn)
            .await?;
        if let Some((author,)) = held {
            scope.add(w.video_id, shares_from(w, meta, author.as_deref()));
        }
    }
    Ok(scope)
}

/// The first day whose analytics shares a read can move: the read's day, or
/// `None` (every day) when it changes the video's author, which moves all
/// of the video's closes to another creator.
fn shares_from(
    w: &RefreshWrite,
    meta: &VideoMeta,
    stored_author: Option<&str>,
) -> Option<NaiveDate> {
    match meta.author_username.as_deref() {
        Some(new) if Some(new) != stored_author => None,
        _ => Some(w.read_at.date_naive()),
    }
}

/// Per tracking of the listed videos that gave an author or imported a
/// reading: its video, author and latest imported reading (the primary key
/// finds it), earliest tracking first; the `IN (` list follows.
const ANCHORS_SQL: &str = "
    SELECT tv.platform_video_id, tv.own_author, i.captured_at,
           i.views, i.likes, i.comments, i.reposts, i.saves
    FROM tracked_videos tv
    LEFT JOIN imported_observations i
      ON i.organization_id = tv.organization_id AND i.platform_video_id = tv.platform_video_id
     AND i.captured_at = (SELECT max(j.captured_at) FROM imported_observations j
                           WHERE j.organization_id = tv.organization_id
                             AND j.platform_video_id = tv.platform_video_id)
    WHERE (tv.own_author IS NOT NULL OR i.captured_at IS NOT NULL)
      AND tv.platform_video_id IN (";

/// A row of [`ANCHORS_SQL`].
type AnchorRow = (
    i64,
    Option<String>,
    Option<DateTime<Utc>>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// The author of a video whose lease is still held (see [`observed_scope`]).
fn held_sql<D: Dialect>() -> String {
    format!(
        "SELECT author_username FROM platform_videos WHERE id = $1 AND lease_token = $2 {}",
        D::ROW_LOCK
    )
}

#[async_trait]
impl<D: ScopeDialect> RefreshStore for SqlStore<D> {
    async fn claim_due_videos(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueVideo>, StoreError> {
        let mut tx = self.write_tx().await?;
        let rows = D::query(AssertSqlSafe(format!(
            "UPDATE platform_videos SET lease_until = $2, lease_token = $3
             WHERE id IN (
               SELECT id FROM platform_videos
               WHERE next_refresh_at IS NOT NULL AND next_refresh_at <= $1
                 AND (lease_until IS NULL OR lease_until < $1)
               ORDER BY next_refresh_at LIMIT $4
               {})
             RETURNING id, platform, external_id, tracking_started_at, refresh_until, failures, lease_token",
            D::CLAIM_LOCK
        )))
        .bind(now)
        .bind(now + lease)
        .bind(Uuid::new_v4())
        .bind(limit)
        .fetch_all::<DueRow>(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.into_iter().map(DueVideo::try_from).collect()
    }

    async fn save_refreshes(&self, writes: &[RefreshWrite]) -> Result<usize, StoreError> {
        let mut tx = self.write_tx().await?;
        // The reads whose lease holds (locked on PostgreSQL) and the shares they move.
        let scope = observed_scope::<D>(&mut tx, writes).await?;
        let before = rollup::shares(&mut tx, &scope).await?;
        let milestones = anyone_subscribes(&mut tx, EventType::VideoMilestone).await?;
        let mut saved = 0;
        for w in writes {
            if save_one(&mut tx, w, milestones).await? {
                saved += 1;
            }
        }
        rollup::settle(&mut tx, &scope, before).await?;
        tx.commit().await?;
        Ok(saved)
    }

    async fn cap_reads(
        &self,
        due: Vec<DueVideo>,
        now: DateTime<Utc>,
        cap: i64,
    ) -> Result<Vec<DueVideo>, StoreError> {
        super::cap::cap_reads(self, due, now, cap).await
    }

    async fn next_refresh_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        Ok(D::query(
            "SELECT next_refresh_at FROM platform_videos
             WHERE next_refresh_at IS NOT NULL ORDER BY next_refresh_at LIMIT 1",
        )
        .fetch_scalar_optional(&mut *self.read().await?)
        .await?)
    }

    async fn video_anchors(&self, videos: &[i64]) -> Result<BTreeMap<i64, Anchor>, StoreError> {
        let mut anchors: BTreeMap<i64, Anchor> = BTreeMap::new();
        if videos.is_empty() {
            return Ok(anchors);
        }
        let mut conn = self.read().await?;
        for chunk in videos.chunks(closes::CHUNK) {
            let mut q = Builder::<D>::new(ANCHORS_SQL);
            q.push_list(chunk.iter().copied())
                .push(") ORDER BY tv.platform_video_id, tv.created_at, tv.id");
            let rows: Vec<AnchorRow> = q.build().fetch_all(&mut *conn).await?;
            for (video, author, at, views, likes, comments, reposts, saves) in rows {
                let anchor = anchors.entry(video).or_default();
                anchor.author = anchor.author.take().or(author);
                let Some(captured_at) = at else { continue };
                if anchor.reading.is_none_or(|r| r.captured_at < captured_at) {
                    let counters = Counters {
                        views,
                        likes,
                        comments,
                        reposts,
                        saves,
                    };
                    anchor.reading = Some(Observation {
                        captured_at,
                        counters,
                    });
                }
            }
        }
        Ok(anchors)
    }

    async fn ask_refresh(
        &self,
        org: OrgId,
        video: &VideoLookup,
        now: DateTime<Utc>,
        cooldown: Duration,
        lease: Duration,
    ) -> Result<RefreshAsk, StoreError> {
        manual::ask(self, org, video, now, cooldown, lease).await
    }

    async fn save_manual_refresh(
        &self,
        read: &ManualRead,
        write: &RefreshWrite,
        charge: &Charge,
    ) -> Result<bool, StoreError> {
        manual::save(self, read, write, charge).await
    }
}

/// Saves one read if its lease still holds; returns whether it did. The
/// events it causes are written with it: `video.milestone` for each view
/// milestone it reaches (when `milestones`: someone subscribes to them),
/// `video.unavailable` for a video the platform reports gone.
pub(crate) async fn save_one<D: ScopeDialect>(
    tx: &mut Tx<D>,
    w: &RefreshWrite,
    milestones: bool,
) -> Result<bool, StoreError> {
    // A tracking that started after this read began needs a read of its own:
    // schedule it at once instead of at the computed time. So does a
    // tracking a campaign extended while it was read (the read was computed
    // as its last), and one a campaign shortened is read no later than its
    // new end (`campaigns::tracking`).
    const NEXT: &str = "next_refresh_at = CASE WHEN gone_at IS NOT NULL THEN NULL
                          WHEN tracking_started_at > $3 THEN tracking_started_at
                          WHEN $4 IS NULL THEN CASE WHEN refresh_until > $3 THEN $3 END
                          WHEN $4 > refresh_until THEN refresh_until ELSE $4 END,
                        lease_until = NULL, lease_token = NULL";
    let held = match &w.outcome {
        RefreshOutcome::Observed { counters, meta, source } => {
            // The views before this reading, to tell the milestones it reaches.
            let before: Option<Option<i64>> = match milestones {
                true => {
                    D::query("SELECT views FROM platform_videos WHERE id = $1 AND lease_token = $2")
                        .bind(w.video_id)
                        .bind(w.lease_token)
                        .fetch_scalar_optional(&mut **tx)
                        .await?
                }
                false => None,
            };
            let held = D::query(AssertSqlSafe(format!(
                "UPDATE platform_videos SET {NEXT},
                   views = $5, likes = $6, comments = $7, reposts = $8, saves = $9,
                   stats_updated_at = $3,
                   title = coalesce($10, title), thumbnail_url = coalesce($11, thumbnail_url),
                   author_username = coalesce($12, author_username),
                   author_display_name = coalesce($13, author_display_name),
                   published_at = coalesce($14, published_at),
                   url = coalesce($15, url),
                   failures = 0, last_error = NULL
                 WHERE id = $1 AND lease_token = $2"
            )))
            .bind(w.video_id)
            .bind(w.lease_token)
            .bind(w.read_at)
            .bind(w.next_refresh_at)
            .bind(counters.views)
            .bind(counters.likes)
            .bind(counters.comments)
            .bind(counters.reposts)
            .bind(counters.saves)
            .bind(&meta.title)
            .bind(&meta.thumbnail_url)
            .bind(&meta.author_username)
            .bind(&meta.author_display_name)
            .bind(meta.published_at)
            .bind(&meta.canonical_url)
            .execute(&mut **tx)
            .await?
                == 1;
            if held {
                let reading = Reading {
                    video_id: w.video_id,
                    at: w.read_at,
                    counters: *counters,
                };
                insert_observations::<D>(tx, &[reading], Owner::Platform(*source)).await?;
                for milestone in milestones_reached(before.flatten(), counters.views) {
                    let extra = json!({ "milestone": milestone, "views": counters.views });
                    emit_to_trackers(tx, w.video_id, EventType::VideoMilestone, w.read_at, &extra)
                        .await?;
                }
            }
            held
        }
        RefreshOutcome::Gone { reason } => {
            let held = D::query(
                "UPDATE platform_videos SET gone_at = $3, last_error = $4, next_refresh_at = NULL,
                   lease_until = NULL, lease_token = NULL
                 WHERE id = $1 AND lease_token = $2",
            )
            .bind(w.video_id)
            .bind(w.lease_token)
            .bind(w.read_at)
            .bind(reason)
            .execute(&mut **tx)
            .await?
                == 1;
            if held {
                let extra = json!({ "reason": reason });
                emit_to_trackers(tx, w.video_id, EventType::VideoUnavailable, w.read_at, &extra)
                    .await?;
            }
            held
        }
        RefreshOutcome::Failed { error } => {
            D::query(AssertSqlSafe(format!(
                "UPDATE platform_videos SET {NEXT}, failures = platform_videos.failures + 1, last_error = $5
                 WHERE id = $1 AND lease_token = $2"
            )))
            .bind(w.video_id)
            .bind(w.lease_token)
            .bind(w.read_at)
            .bind(w.next_refresh_at)
            .bind(error)
            .execute(&mut **tx)
            .await?
                == 1
        }
    };
    Ok(held)
}

/// Appends readings and moves the daily closes of those who see them
/// ([`closes::insert_observations`]), then relinks the closes after them.
/// Returns how many readings were new.
pub(crate) async fn insert_observations<D: ScopeDialect>(
    tx: &mut Tx<D>,
    readings: &[Reading],
    owner: Owner,
) -> Result<usize, StoreError> {
    let (inserted, first) = closes::insert_observations::<D>(tx, readings, owner).await?;
    relink(tx, first).await?;
    Ok(inserted)
}

/// Relinks the closes of each video from its day on, after closes were
/// written there.
pub(crate) async fn relink<D: ScopeDialect>(
    tx: &mut Tx<D>,
    first: BTreeMap<i64, NaiveDate>,
) -> Result<(), StoreError> {
    if !first.is_empty() {
        let scope = Scope::videos(first.into_iter().map(|(id, day)| (id, Some(day))));
        D::bind_scope(D::query(AssertSqlSafe(relink_sql(D::SCOPE_TABLE))), &scope)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct DueRow {
    pub id: i64,
    pub platform: String,
    pub external_id: String,
    pub tracking_started_at: DateTime<Utc>,
    pub refresh_until: DateTime<Utc>,
    pub failures: i64,
    pub lease_token: Uuid,
}

impl TryFrom<DueRow> for DueVideo {
    type Error = StoreError;
    fn try_from(r: DueRow) -> Result<Self, StoreError> {
        Ok(DueVideo {
            id: r.id,
            platform: parse_platform(&r.platform)?,
            external_id: r.external_id,
            tracking_started_at: r.tracking_started_at,
            refresh_until: r.refresh_until,
            failures: r.failures,
            lease_token: r.lease_token,
        })
    }
}
