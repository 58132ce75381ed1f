//! The refresh queue on PostgreSQL: claims skip rows another worker holds
//! locked, so workers never wait on each other or claim the same video.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use sqlx::{Postgres, Transaction};
use uuid::Uuid;
use vidpulse_domain::{Counters, ObservationSource};

use super::PgStore;
use super::rollup;
use crate::StoreError;
use crate::refresh::{DueVideo, RefreshOutcome, RefreshStore, RefreshWrite, shares_from};
use crate::rollup::Scope;
use crate::rows::DueRow;

#[async_trait]
impl RefreshStore for PgStore {
    async fn claim_due_videos(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueVideo>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query_as::<_, DueRow>(
            "UPDATE platform_videos SET lease_until = $2, lease_token = $3
             WHERE id IN (
               SELECT id FROM platform_videos
               WHERE next_refresh_at IS NOT NULL AND next_refresh_at <= $1
                 AND (lease_until IS NULL OR lease_until < $1)
               ORDER BY next_refresh_at LIMIT $4
               FOR UPDATE SKIP LOCKED)
             RETURNING id, platform, external_id, tracking_started_at, refresh_until, failures, lease_token",
        )
        .bind(now)
        .bind(now + lease)
        .bind(Uuid::new_v4())
        .bind(limit)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.into_iter().map(DueVideo::try_from).collect()
    }

    async fn save_refreshes(&self, writes: &[RefreshWrite]) -> Result<usize, StoreError> {
        let mut tx = self.pool.begin().await?;
        let scope = observed_scope(&mut tx, writes).await?;
        let before = rollup::shares(&mut tx, &scope).await?;
        let mut saved = 0;
        for w in writes {
            if save_one(&mut tx, w).await? {
                saved += 1;
            }
        }
        rollup::settle(&mut tx, &scope, before).await?;
        tx.commit().await?;
        Ok(saved)
    }

    async fn next_refresh_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT next_refresh_at FROM platform_videos
             WHERE next_refresh_at IS NOT NULL ORDER BY next_refresh_at LIMIT 1",
        )
        .fetch_optional(&self.pool)
        .await?)
    }
}

/// The closes whose analytics shares the counters read in `writes` can move
/// (only reads whose lease still holds): each video's close of the read day
/// and after, or every close when the read changes the video's author.
async fn observed_scope(
    tx: &mut Transaction<'static, Postgres>,
    writes: &[RefreshWrite],
) -> Result<Scope, StoreError> {
    let mut scope = Scope::default();
    for w in writes {
        let RefreshOutcome::Observed { meta, .. } = &w.outcome else {
            continue;
        };
        let held: Option<(Option<String>,)> = sqlx::query_as(
            "SELECT author_username FROM platform_videos WHERE id = $1 AND lease_token = $2 FOR UPDATE",
        )
        .bind(w.video_id)
        .bind(w.lease_token)
        .fetch_optional(&mut **tx)
        .await?;
        if let Some((author,)) = held {
            scope.add(w.video_id, shares_from(w, meta, author.as_deref()));
        }
    }
    Ok(scope)
}

/// Saves one read if its lease still holds; returns whether it did.
async fn save_one(
    tx: &mut Transaction<'static, Postgres>,
    w: &RefreshWrite,
) -> Result<bool, StoreError> {
    // A tracking that started after this read began needs a read of its own:
    // schedule it at once instead of at the computed time.
    const NEXT: &str = "next_refresh_at = CASE WHEN gone_at IS NOT NULL THEN NULL
                          WHEN tracking_started_at > $3 THEN tracking_started_at ELSE $4 END,
                        lease_until = NULL, lease_token = NULL";
    let held = match &w.outcome {
        RefreshOutcome::Observed { counters, meta, source } => {
            let held = sqlx::query(sqlx::AssertSqlSafe(format!(
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
            .rows_affected()
                == 1;
            if held {
                insert_observation(tx, w.video_id, w.read_at, counters, *source).await?;
            }
            held
        }
        RefreshOutcome::Gone { reason } => {
            sqlx::query(
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
            .rows_affected()
                == 1
        }
        RefreshOutcome::Failed { error } => {
            sqlx::query(sqlx::AssertSqlSafe(format!(
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
            .rows_affected()
                == 1
        }
    };
    Ok(held)
}

/// Appends an observation and moves the video's daily close. An observation
/// at an instant already recorded is ignored (imports are idempotent).
pub(crate) async fn insert_observation(
    tx: &mut Transaction<'static, Postgres>,
    video_id: i64,
    at: DateTime<Utc>,
    c: &Counters,
    source: ObservationSource,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO observations
           (platform_video_id, captured_at, views, likes, comments, reposts, saves, source)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING",
    )
    .bind(video_id)
    .bind(at)
    .bind(c.views)
    .bind(c.likes)
    .bind(c.comments)
    .bind(c.reposts)
    .bind(c.saves)
    .bind(source.as_str())
    .execute(&mut **tx)
    .await?
    .rows_affected()
        == 1;
    if inserted {
        sqlx::query(
            "INSERT INTO daily_closes (platform_video_id, day,
               first_at, first_views, first_likes, first_comments, first_reposts, first_saves,
               last_at, last_views, last_likes, last_comments, last_reposts, last_saves)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (platform_video_id, day) DO UPDATE SET
               first_views    = CASE WHEN excluded.first_at < daily_closes.first_at THEN excluded.first_views ELSE daily_closes.first_views END,
               first_likes    = CASE WHEN excluded.first_at < daily_closes.first_at THEN excluded.first_likes ELSE daily_closes.first_likes END,
               first_comments = CASE WHEN excluded.first_at < daily_closes.first_at THEN excluded.first_comments ELSE daily_closes.first_comments END,
               first_reposts  = CASE WHEN excluded.first_at < daily_closes.first_at THEN excluded.first_reposts ELSE daily_closes.first_reposts END,
               first_saves    = CASE WHEN excluded.first_at < daily_closes.first_at THEN excluded.first_saves ELSE daily_closes.first_saves END,
               first_at       = LEAST(daily_closes.first_at, excluded.first_at),
               last_views     = CASE WHEN excluded.last_at > daily_closes.last_at THEN excluded.last_views ELSE daily_closes.last_views END,
               last_likes     = CASE WHEN excluded.last_at > daily_closes.last_at THEN excluded.last_likes ELSE daily_closes.last_likes END,
               last_comments  = CASE WHEN excluded.last_at > daily_closes.last_at THEN excluded.last_comments ELSE daily_closes.last_comments END,
               last_reposts   = CASE WHEN excluded.last_at > daily_closes.last_at THEN excluded.last_reposts ELSE daily_closes.last_reposts END,
               last_saves     = CASE WHEN excluded.last_at > daily_closes.last_at THEN excluded.last_saves ELSE daily_closes.last_saves END,
               last_at        = GREATEST(daily_closes.last_at, excluded.last_at)",
        )
        .bind(video_id)
        .bind(at.date_naive())
        .bind(at)
        .bind(c.views)
        .bind(c.likes)
        .bind(c.comments)
        .bind(c.reposts)
        .bind(c.saves)
        .execute(&mut **tx)
        .await?;
        rollup::relink(tx, video_id, at.date_naive()).await?;
    }
    Ok(inserted)
}
