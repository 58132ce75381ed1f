//! Statistics import on SQLite.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;

use super::SqliteStore;
use super::refresh::{insert_observations, relink};
use super::rollup;
use crate::StoreError;
use crate::closes::{self, Owner, Reading};
use crate::import::{ImportOutcome, ImportRow, ImportStore, by_video};
use crate::rollup::Scope;

#[async_trait]
impl ImportStore for SqliteStore {
    async fn import_observations(
        &self,
        org: OrgId,
        rows: &[ImportRow],
        window: Duration,
        now: DateTime<Utc>,
    ) -> Result<ImportOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let exists: Option<Uuid> = sqlx::query_scalar("SELECT id FROM organizations WHERE id = ?1")
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
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, CASE WHEN ?8 > ?9 THEN ?9 END, ?9)
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
        let mut revealed = BTreeMap::new();
        for (v, &catalog_id) in videos.iter().zip(&catalog_ids) {
            let ends = v.earliest + window;
            let tracked: Option<(Uuid, DateTime<Utc>)> = sqlx::query_as(
                "SELECT id, tracking_started_at FROM tracked_videos
                 WHERE organization_id = ?1 AND platform_video_id = ?2",
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
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
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
                    // The platform's readings since the new start (another
                    // organization tracks the video) are this one's to see.
                    revealed.extend(
                        closes::reveal_platform_readings::<sqlx::Sqlite>(
                            &mut tx,
                            &crate::analytics::SQLITE,
                            org.0,
                            &[catalog_id],
                            v.earliest,
                            None,
                        )
                        .await?,
                    );
                }
                Some((id, started)) if started > v.earliest => {
                    sqlx::query(
                        "UPDATE tracked_videos SET tracking_started_at = ?2, updated_at = ?3 WHERE id = ?1",
                    )
                    .bind(id)
                    .bind(v.earliest)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                    // The platform's readings between the new and the old
                    // start are this organization's to see now.
                    revealed.extend(
                        closes::reveal_platform_readings::<sqlx::Sqlite>(
                            &mut tx,
                            &crate::analytics::SQLITE,
                            org.0,
                            &[catalog_id],
                            v.earliest,
                            Some(started),
                        )
                        .await?,
                    );
                }
                Some(_) => {}
            }
            readings.extend(v.rows.iter().map(|row| Reading {
                video_id: catalog_id,
                at: row.captured_at,
                counters: row.counters,
            }));
        }
        relink(&mut tx, revealed).await?;
        let stored = insert_observations(&mut tx, &readings, Owner::Import(org.0)).await?;
        outcome.snapshots_imported += stored;
        outcome.snapshots_skipped += readings.len() - stored;
        rollup::settle(&mut tx, &scope, before).await?;
        tx.commit().await?;
        Ok(outcome)
    }
}
