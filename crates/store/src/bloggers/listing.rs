//! What an organization sees of its creators: the tracked ones, with their
//! videos summed, and any catalog creator it knows.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;

use super::{BloggerSummary, KnownCreator, ProfileRef, Tag};
use crate::StoreError;
use crate::creators::CreatorProfile;
use crate::error::parse_platform;
use crate::sql::{Dialect, SqlStore};

/// A tracked account with its creator, profile and videos summed.
#[derive(sqlx::FromRow)]
struct BloggerRow {
    tracking_id: Uuid,
    blogger_id: Uuid,
    platform: String,
    username: String,
    channel_name: Option<String>,
    followers: Option<i64>,
    is_active: bool,
    campaign: Option<String>,
    budget_per_video: Option<i64>,
    initial_videos_count: i64,
    daily_videos_count: Option<i64>,
    last_scraped_at: Option<DateTime<Utc>>,
    videos_tracked: i64,
    total_views: i64,
    profile_id: Option<Uuid>,
    profile_name: Option<String>,
}

/// A tag on a tracked account.
#[derive(sqlx::FromRow)]
struct AccountTagRow {
    tracked_account_id: Uuid,
    id: Uuid,
    name: String,
    created_at: DateTime<Utc>,
}

/// [`crate::BloggerStore::bloggers`].
pub(super) async fn bloggers<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
) -> Result<Vec<BloggerSummary>, StoreError> {
    let mut conn = store.read().await?;
    let rows: Vec<BloggerRow> = D::query(
        "SELECT ta.id AS tracking_id, c.id AS blogger_id, c.platform, c.username,
                c.display_name AS channel_name, c.follower_count AS followers,
                ta.is_active, ta.campaign, ta.budget_per_video,
                ta.initial_videos_count, ta.daily_videos_count, ta.last_scraped_at,
                CAST(count(pv.id) AS BIGINT) AS videos_tracked,
                CAST(coalesce(sum(pv.views), 0) AS BIGINT) AS total_views,
                cp.id AS profile_id, cp.name AS profile_name
         FROM tracked_accounts ta
         JOIN creators c ON c.id = ta.creator_id
         LEFT JOIN creator_profiles cp ON cp.id = ta.creator_profile_id
         LEFT JOIN tracked_videos tv ON tv.tracked_account_id = ta.id
         LEFT JOIN platform_videos pv ON pv.id = tv.platform_video_id
         WHERE ta.organization_id = $1
         GROUP BY ta.id, c.id, c.platform, c.username, c.display_name,
                  c.follower_count, ta.is_active, ta.campaign, ta.budget_per_video,
                  ta.initial_videos_count, ta.daily_videos_count, ta.last_scraped_at,
                  c.username_key, cp.id, cp.name
         ORDER BY c.username_key, c.platform",
    )
    .bind(org.0)
    .fetch_all(&mut *conn)
    .await?;
    let tag_rows: Vec<AccountTagRow> = D::query(
        "SELECT at.tracked_account_id, t.id, t.name, t.created_at
         FROM account_tags at JOIN tags t ON t.id = at.tag_id
         WHERE t.organization_id = $1
         ORDER BY t.name_lower, t.id",
    )
    .bind(org.0)
    .fetch_all(&mut *conn)
    .await?;
    let mut tags: HashMap<Uuid, Vec<Tag>> = HashMap::new();
    for t in tag_rows {
        tags.entry(t.tracked_account_id).or_default().push(Tag {
            id: t.id,
            name: t.name,
            created_at: t.created_at,
        });
    }
    rows.into_iter()
        .map(|r| {
            Ok(BloggerSummary {
                creator_profile: r
                    .profile_id
                    .zip(r.profile_name)
                    .map(|(id, name)| ProfileRef { id, name }),
                tags: tags.remove(&r.tracking_id).unwrap_or_default(),
                tracking_id: r.tracking_id,
                blogger_id: r.blogger_id,
                platform: parse_platform(&r.platform)?,
                username: r.username,
                channel_name: r.channel_name,
                number_of_subscribers: r.followers,
                is_active: r.is_active,
                campaign: r.campaign,
                budget_per_video: r.budget_per_video,
                initial_videos_count: r.initial_videos_count,
                daily_videos_count: r.daily_videos_count,
                last_scraped_at: r.last_scraped_at,
                videos_tracked: r.videos_tracked,
                total_views: r.total_views,
            })
        })
        .collect()
}

/// A catalog creator as last read.
#[derive(sqlx::FromRow)]
struct CreatorRow {
    platform: String,
    channel_id: String,
    username: String,
    display_name: Option<String>,
    avatar_url: Option<String>,
    follower_count: Option<i64>,
}

/// [`crate::BloggerStore::known_creator`].
pub(super) async fn known_creator<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    creator_id: Uuid,
) -> Result<Option<KnownCreator>, StoreError> {
    let row: Option<CreatorRow> = D::query(
        "SELECT c.platform, c.channel_id, c.username, c.display_name, c.avatar_url,
                c.follower_count
         FROM creators c
         WHERE c.id = $1 AND (
           EXISTS (SELECT 1 FROM tracked_accounts ta
                   WHERE ta.creator_id = c.id AND ta.organization_id = $2)
           OR EXISTS (SELECT 1 FROM creator_jobs j
                      WHERE j.organization_id = $2 AND j.platform = c.platform
                        AND j.username_key = c.username_key
                        AND j.status = 'succeeded')
           OR EXISTS (SELECT 1 FROM tracked_videos tv
                      JOIN platform_videos pv ON pv.id = tv.platform_video_id
                      WHERE tv.organization_id = $2 AND pv.platform = c.platform
                        AND lower(coalesce(pv.author_username, tv.own_author)) = c.username_key))",
    )
    .bind(creator_id)
    .bind(org.0)
    .fetch_optional(&mut *store.read().await?)
    .await?;
    row.map(|r| {
        Ok(KnownCreator {
            id: creator_id,
            profile: CreatorProfile {
                platform: parse_platform(&r.platform)?,
                channel_id: r.channel_id,
                username: r.username,
                display_name: r.display_name,
                avatar_url: r.avatar_url,
                follower_count: r.follower_count,
            },
        })
    })
    .transpose()
}
