//! Importing history, stored: the one implementation of [`ImportStore`] for
//! both backends.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::{OrgId, Platform};

use super::{ImportOutcome, ImportRow, ImportStore};
use crate::StoreError;
use crate::closes::{self, Owner, Reading};
use crate::refresh::{insert_observations, relink};
use crate::rollup::{self, Scope, ScopeDialect};
use crate::sql::{SqlStore, rollback_with};

/// The rows of each video, in first-seen order, with the earliest instant
/// and the first value given of each metadata column.
struct ImportVideo<'a> {
    pub platform: Platform,
    pub external_id: &'a str,
    pub earliest: DateTime<Utc>,
    pub latest: &'a ImportRow,
    /// The URL the importing organization gave (or its canonical form).
    pub url: String,
    /// The URL a catalog row made by the import takes: the canonical one,
    /// from the platform and id alone (no handle the importer gave).
    pub catalog_url: String,
    pub channel_username: Option<&'a str>,
    pub title: Option<&'a str>,
    pub published_at: Option<DateTime<Utc>>,
    pub rows: Vec<&'a ImportRow>,
}

/// The rows grouped per video, videos sorted by platform and id.
fn by_video(rows: &[ImportRow]) -> Vec<ImportVideo<'_>> {
    let mut index: std::collections::HashMap<(Platform, &str), usize> =
        std::collections::HashMap::new();
    let mut out: Vec<ImportVideo<'_>> = Vec::new();
    for row in rows {
        let key = (row.platform, row.external_id.as_str());
        let i = *index.entry(key).or_insert_with(|| {
            out.push(ImportVideo {
                platform: row.platform,
                external_id: &row.external_id,
                earliest: row.captured_at,
                latest: row,
                url: String::new(),
                catalog_url: vidpulse_domain::video_url::canonical_url(
                    row.platform,
                    &row.external_id,
                    None,
                ),
                channel_username: None,
                title: None,
                published_at: None,
                rows: Vec::new(),
            });
            out.len() - 1
        });
        let v = &mut out[i];
        v.earliest = v.earliest.min(row.captured_at);
        if row.captured_at > v.latest.captured_at {
            v.latest = row;
        }
        if v.url.is_empty()
            && let Some(u) = &row.url
        {
            v.url = u.clone();
        }
        v.channel_username = v.channel_username.or(row.channel_username.as_deref());
        v.title = v.title.or(row.title.as_deref());
        v.published_at = v.published_at.or(row.published_at);
        v.rows.push(row);
    }
    for v in &mut out {
        if v.url.is_empty() {
            v.url = vidpulse_domain::video_url::canonical_url(
                v.platform,
                v.external_id,
                v.channel_username,
            );
        }
    }
    // A fixed order for the catalog rows an import locks: two imports (or an
    // import and a tracking) of the same videos cannot wait on each other in
    // a cycle.
    out.sort_by(|a, b| (a.platform.id(), a.external_id).cmp(&(b.platform.id(), b.external_id)));
    out
}

#[async_trait]
impl<D: ScopeDialect> ImportStore for SqlStore<D> {
    async fn import_observations(
        &self,
        org: OrgId,
        rows: &[ImportRow],
        window: Duration,
        now: DateTime<Utc>,
    ) -> Result<ImportOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let exists: Option<Uuid> = D::query(AssertSqlSafe(format!(
            "SELECT id FROM organizations WHERE id = $1 {}",
            D::ORG_LOCK
        )))
        .bind(org.0)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        if exists.is_none() {
            return rollback_with(tx, Err(StoreError::NotFound)).await;
        }
        let mut outcome = ImportOutcome::default();
        let videos = by_video(rows);
        // Catalog rows first: the analytics scope is every close of these videos.
        let mut catalog_ids = Vec::with_capacity(videos.len());
        let (ends_at, now_at) = (D::typed("$5", "TIMESTAMPTZ"), D::typed("$6", "TIMESTAMPTZ"));
        // The catalog takes no metadata from an import: what an organization
        // says of a video is its own (`tracked_videos.own_*`, migration 0029),
        // and another organization sees the platform's word only.
        let upsert = format!(
            "INSERT INTO platform_videos
                   (platform, external_id, url, tracking_started_at, refresh_until,
                    next_refresh_at, created_at)
                 VALUES ($1, $2, $3, $4, $5, CASE WHEN {ends_at} > {now_at} THEN {now_at} END, $6)
                 ON CONFLICT (platform, external_id) DO UPDATE SET url = platform_videos.url
                 RETURNING id"
        );
        for v in &videos {
            let ends = v.earliest + window;
            let catalog_id: i64 = D::query(AssertSqlSafe(upsert.as_str()))
                .bind(v.platform.id())
                .bind(v.external_id)
                .bind(&v.catalog_url)
                .bind(v.earliest)
                .bind(ends)
                .bind(now)
                .fetch_scalar(&mut *tx)
                .await?;
            catalog_ids.push(catalog_id);
        }
        let scope = Scope::videos(catalog_ids.iter().map(|id| (*id, None)));
        let before = rollup::shares(&mut tx, &scope).await?;
        let mut readings = Vec::with_capacity(rows.len());
        let mut revealed = BTreeMap::new();
        for (v, &catalog_id) in videos.iter().zip(&catalog_ids) {
            let ends = v.earliest + window;
            let tracked: Option<(Uuid, DateTime<Utc>)> = D::query(
                "SELECT id, tracking_started_at FROM tracked_videos
                 WHERE organization_id = $1 AND platform_video_id = $2",
            )
            .bind(org.0)
            .bind(catalog_id)
            .fetch_optional(&mut *tx)
            .await?;
            match tracked {
                None => {
                    D::query(
                        "INSERT INTO tracked_videos
                           (id, organization_id, platform_video_id, tracking_started_at,
                            tracking_ends_at, window_ends_at, created_at, updated_at, platform,
                            own_url, own_author, own_title, own_published_at)
                         VALUES ($1, $2, $3, $4, $5, $5, $6, $6,
                                 (SELECT platform FROM platform_videos WHERE id = $3),
                                 $7, $8, $9, $10)",
                    )
                    .bind(Uuid::now_v7())
                    .bind(org.0)
                    .bind(catalog_id)
                    .bind(v.earliest)
                    .bind(ends)
                    .bind(now)
                    .bind(&v.url)
                    .bind(v.channel_username)
                    .bind(v.title)
                    .bind(v.published_at)
                    .execute(&mut *tx)
                    .await?;
                    outcome.videos_created += 1;
                    // The platform's readings since the new start (another
                    // organization tracks the video) are this one's to see.
                    revealed.extend(
                        closes::reveal_platform_readings::<D>(
                            &mut tx,
                            org.0,
                            &[catalog_id],
                            v.earliest,
                            None,
                        )
                        .await?,
                    );
                }
                Some((id, started)) => {
                    if started > v.earliest {
                        D::query(
                            "UPDATE tracked_videos SET tracking_started_at = $2, updated_at = $3 WHERE id = $1",
                        )
                        .bind(id)
                        .bind(v.earliest)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                        // The platform's readings between the new and the old
                        // start are this organization's to see now.
                        revealed.extend(
                            closes::reveal_platform_readings::<D>(
                                &mut tx,
                                org.0,
                                &[catalog_id],
                                v.earliest,
                                Some(started),
                            )
                            .await?,
                        );
                    }
                    // The import fills what the organization had not said.
                    D::query(
                        "UPDATE tracked_videos SET
                           own_url = coalesce(own_url, $2),
                           own_author = coalesce(own_author, $3),
                           own_title = coalesce(own_title, $4),
                           own_published_at = coalesce(own_published_at, $5)
                         WHERE id = $1",
                    )
                    .bind(id)
                    .bind(&v.url)
                    .bind(v.channel_username)
                    .bind(v.title)
                    .bind(v.published_at)
                    .execute(&mut *tx)
                    .await?;
                }
            }
            // The listing's publish-time copy (migration 0020) is the
            // platform's time, else the one the organization gave.
            D::query(
                "UPDATE tracked_videos SET published_at = coalesce(
                   (SELECT pv.published_at FROM platform_videos pv WHERE pv.id = $2), own_published_at)
                 WHERE organization_id = $1 AND platform_video_id = $2",
            )
            .bind(org.0)
            .bind(catalog_id)
            .execute(&mut *tx)
            .await?;
            readings.extend(v.rows.iter().map(|row| Reading {
                video_id: catalog_id,
                at: row.captured_at,
                counters: row.counters,
            }));
        }
        relink(&mut tx, revealed).await?;
        let stored = insert_observations::<D>(&mut tx, &readings, Owner::Import(org.0)).await?;
        outcome.snapshots_imported += stored;
        outcome.snapshots_skipped += readings.len() - stored;
        rollup::settle(&mut tx, &scope, before).await?;
        tx.commit().await?;
        Ok(outcome)
    }
}
