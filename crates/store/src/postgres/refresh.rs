//! The refresh queue on PostgreSQL: claims skip rows another worker holds
//! locked, so workers never wait on each other or claim the same video.

use async_trait::async_trait;
use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sqlx::{AssertSqlSafe, Postgres, Transaction};
use uuid::Uuid;

use super::PgStore;
use super::rollup;
use crate::StoreError;
use crate::analytics::POSTGRES;
use crate::closes::{self, Owner, Reading};
use crate::refresh::{DueVideo, RefreshOutcome, RefreshStore, RefreshWrite, observed_scope};
use crate::rollup::{Scope, relink_sql};
use crate::rows::DueRow;

/// The author of a video whose lease is still held (see [`observed_scope`]).
const HELD: &str =
    "SELECT author_username FROM platform_videos WHERE id = $1 AND lease_token = $2 FOR UPDATE";

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
        // The reads whose lease holds (locked on PostgreSQL) and the shares they move.
        let scope = observed_scope::<Postgres>(&mut tx, HELD, writes).await?;
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
                let reading = Reading {
                    video_id: w.video_id,
                    at: w.read_at,
                    counters: *counters,
                };
                insert_observations(tx, &[reading], Owner::Platform(*source)).await?;
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

/// Appends readings and moves the daily closes of those who see them
/// ([`closes::insert_observations`]), then relinks the closes after them.
/// Returns how many readings were new.
pub(crate) async fn insert_observations(
    tx: &mut Transaction<'static, Postgres>,
    readings: &[Reading],
    owner: Owner,
) -> Result<usize, StoreError> {
    let (inserted, first) =
        closes::insert_observations::<Postgres>(tx, &POSTGRES, readings, owner).await?;
    relink(tx, first).await?;
    Ok(inserted)
}

/// Relinks the closes of each video from its day on, after closes were
/// written there.
pub(crate) async fn relink(
    tx: &mut Transaction<'static, Postgres>,
    first: BTreeMap<i64, NaiveDate>,
) -> Result<(), StoreError> {
    if !first.is_empty() {
        let scope = Scope::videos(first.into_iter().map(|(id, day)| (id, Some(day))));
        sqlx::query(AssertSqlSafe(relink_sql(rollup::SCOPE)))
            .bind(scope.ids())
            .bind(scope.days())
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
