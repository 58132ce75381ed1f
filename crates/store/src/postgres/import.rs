//! Statistics import on PostgreSQL.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use vidpulse_domain::{ObservationSource, OrgId};

use super::PgStore;
use super::refresh::insert_observations;
use super::rollup;
use crate::StoreError;
use crate::closes::Reading;
use crate::import::{ImportOutcome, ImportRow, ImportStore, by_video};
use crate::rollup::Scope;

#[async_trait]
impl ImportStore for PgStore {
    async fn import_observations(
        &self,
        org: OrgId,
        rows: &[ImportRow],
        window: Duration,
        now: DateTime<Utc>,
    ) -> Result<ImportOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        let exists: Option<Uuid> =
            sqlx::query_scalar("SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE")
                .bind(org.0)
                .fetch_optional(&mut *tx)
                .await?;
        if exists.is_none() {
            return Err(StoreError::NotFound);
        }
        let mut outcome = ImportOutcome::default();
        let videos = by_video(rows);
        // Catalog rows first: the analytics scope is every close of these videos.
        let mut catalog_ids = Vec::with_capacity(videos.len());
        for v in &videos {
            let ends = v.earliest + window;
            let catalog_id: i64 = sqlx::query_scalar(
                "INSERT INTO platform_videos
                   (platform, external_id, url, title, author_username, published_at,
                    tracking_started_at, refresh_until, next_refresh_at, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $8::TIMESTAMPTZ > $9::TIMESTAMPTZ THEN $9::TIMESTAMPTZ END, $9)
                 ON CONFLICT (platform, external_id) DO UPDATE SET
                   title = coalesce(platform_videos.title, excluded.title),
                   author_username = coalesce(platform_videos.author_username, excluded.author_username),
                   published_at = coalesce(platform_videos.published_at, excluded.published_at)
                 RETURNING id",
            )
            .bind(v.platform.id())
            .bind(v.external_id)
            .bind(&v.url)
            .bind(v.title)
            .bind(v.channel_username)
            .bind(v.published_at)
            .bind(v.earliest)
            .bind(ends)
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            catalog_ids.push(catalog_id);
        }
        let scope = Scope::videos(catalog_ids.iter().map(|id| (*id, None)));
        let before = rollup::shares(&mut tx, &scope).await?;
        let mut readings = Vec::with_capacity(rows.len());
        for (v, &catalog_id) in videos.iter().zip(&catalog_ids) {
            let ends = v.earliest + window;
            let tracked: Option<(Uuid, DateTime<Utc>)> = sqlx::query_as(
                "SELECT id, tracking_started_at FROM tracked_videos
                 WHERE organization_id = $1 AND platform_video_id = $2",
            )
            .bind(org.0)
            .bind(catalog_id)
            .fetch_optional(&mut *tx)
            .await?;
            match tracked {
                None => {
                    sqlx::query(
                        "INSERT INTO tracked_videos
                           (id, organization_id, platform_video_id, tracking_started_at,
                            tracking_ends_at, created_at, updated_at)
                         VALUES ($1, $2, $3, $4, $5, $6, $6)",
                    )
                    .bind(Uuid::now_v7())
                    .bind(org.0)
                    .bind(catalog_id)
                    .bind(v.earliest)
                    .bind(ends)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                    outcome.videos_created += 1;
                }
                Some((id, started)) if started > v.earliest => {
                    sqlx::query(
                        "UPDATE tracked_videos SET tracking_started_at = $2, updated_at = $3 WHERE id = $1",
                    )
                    .bind(id)
                    .bind(v.earliest)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                }
                Some(_) => {}
            }
            readings.extend(v.rows.iter().map(|row| Reading {
                video_id: catalog_id,
                at: row.captured_at,
                counters: row.counters,
            }));
            let c = &v.latest.counters;
            sqlx::query(
                "UPDATE platform_videos SET views = $2, likes = $3, comments = $4, reposts = $5,
                   saves = $6, stats_updated_at = $7
                 WHERE id = $1 AND (stats_updated_at IS NULL OR stats_updated_at < $7)",
            )
            .bind(catalog_id)
            .bind(c.views)
            .bind(c.likes)
            .bind(c.comments)
            .bind(c.reposts)
            .bind(c.saves)
            .bind(v.latest.captured_at)
            .execute(&mut *tx)
            .await?;
        }
        let stored = insert_observations(&mut tx, &readings, ObservationSource::Import).await?;
        outcome.snapshots_imported += stored;
        outcome.snapshots_skipped += readings.len() - stored;
        rollup::settle(&mut tx, &scope, before).await?;
        tx.commit().await?;
        Ok(outcome)
    }
}
