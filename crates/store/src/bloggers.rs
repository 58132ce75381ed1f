//! The dashboard's view of tracked creators ("bloggers"): the listing with a
//! summary of their videos, and the settings their new videos inherit. One
//! implementation for both backends ([`blogger_store_impl`]).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::{OrgId, Platform};

use crate::StoreError;

/// One tracked creator of an organization, with its videos summed.
#[derive(Debug, Clone, PartialEq)]
pub struct BloggerSummary {
    /// The tracked account (`tracking_id`).
    pub tracking_id: Uuid,
    /// The creator (`blogger_id`).
    pub blogger_id: Uuid,
    /// Platform.
    pub platform: Platform,
    /// Handle.
    pub username: String,
    /// Display name.
    pub channel_name: Option<String>,
    /// Followers.
    pub number_of_subscribers: Option<i64>,
    /// Whether discovery runs.
    pub is_active: bool,
    /// Campaign its new videos get.
    pub campaign: Option<String>,
    /// Budget its new videos get.
    pub budget_per_video: Option<i64>,
    /// Videos backfilled at the start.
    pub initial_videos_count: i64,
    /// New videos per day at most (`None`: the service default).
    pub daily_videos_count: Option<i64>,
    /// When its videos were last listed.
    pub last_scraped_at: Option<DateTime<Utc>>,
    /// The videos its backfill and discovery tracked for the organization.
    pub videos_tracked: i64,
    /// Their latest views, summed.
    pub total_views: i64,
}

/// Tracked creators as the dashboard manages them.
#[async_trait]
pub trait BloggerStore {
    /// The organization's tracked creators, by handle then platform.
    async fn bloggers(&self, org: OrgId) -> Result<Vec<BloggerSummary>, StoreError>;

    /// Sets the campaign the creator's new videos get; `false` when the
    /// organization has no such tracked account.
    async fn set_blogger_campaign(
        &self,
        org: OrgId,
        tracking_id: Uuid,
        campaign: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Stops tracking a creator: the tracked account goes, its videos stay
    /// (no longer tied to it). `false` when the organization has no such account.
    async fn delete_blogger(&self, org: OrgId, tracking_id: Uuid) -> Result<bool, StoreError>;

    /// Stops tracking a creator and deletes the organization's videos its
    /// backfill and discovery tracked (their statistics leave the
    /// organization's analytics); `None` when unknown, else how many videos went.
    async fn delete_blogger_with_videos(
        &self,
        org: OrgId,
        tracking_id: Uuid,
    ) -> Result<Option<u64>, StoreError>;

    /// Sets the budget the creator's new videos get; `false` when unknown.
    async fn set_blogger_budget(
        &self,
        org: OrgId,
        tracking_id: Uuid,
        budget: Option<i64>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
}

/// Untie a tracked account (`$1` of organization `$2`) from its videos and
/// jobs, then delete it; the last statement's count says whether it existed.
pub(crate) const FORGET_ACCOUNT: [&str; 3] = [
    "UPDATE tracked_videos SET tracked_account_id = NULL
     WHERE tracked_account_id = $1 AND organization_id = $2",
    "UPDATE creator_jobs SET tracked_account_id = NULL
     WHERE tracked_account_id = $1 AND organization_id = $2",
    "DELETE FROM tracked_accounts WHERE id = $1 AND organization_id = $2",
];

/// Delete the videos a tracked account brought in (`$1` of organization
/// `$2`), tags first; the last statement's count is the videos deleted.
pub(crate) const DELETE_VIDEOS: [&str; 2] = [
    "DELETE FROM video_tags WHERE tracked_video_id IN (
       SELECT id FROM tracked_videos WHERE tracked_account_id = $1 AND organization_id = $2)",
    "DELETE FROM tracked_videos WHERE tracked_account_id = $1 AND organization_id = $2",
];

/// Implements [`BloggerStore`] for a backend (see [`crate::users::user_store_impl`]).
macro_rules! blogger_store_impl {
    ($store:ty, $sqlite:expr) => {
        #[async_trait::async_trait]
        impl $crate::bloggers::BloggerStore for $store {
            async fn bloggers(
                &self,
                org: vidpulse_domain::OrgId,
            ) -> Result<Vec<$crate::bloggers::BloggerSummary>, $crate::StoreError> {
                use $crate::users::sql;
                #[derive(sqlx::FromRow)]
                struct Row {
                    tracking_id: uuid::Uuid,
                    blogger_id: uuid::Uuid,
                    platform: String,
                    username: String,
                    channel_name: Option<String>,
                    followers: Option<i64>,
                    is_active: bool,
                    campaign: Option<String>,
                    budget_per_video: Option<i64>,
                    initial_videos_count: i64,
                    daily_videos_count: Option<i64>,
                    last_scraped_at: Option<chrono::DateTime<chrono::Utc>>,
                    videos_tracked: i64,
                    total_views: i64,
                }
                let rows: Vec<Row> = sqlx::query_as(sql(
                    "SELECT ta.id AS tracking_id, c.id AS blogger_id, c.platform, c.username,
                            c.display_name AS channel_name, c.follower_count AS followers,
                            ta.is_active, ta.campaign, ta.budget_per_video,
                            ta.initial_videos_count, ta.daily_videos_count, ta.last_scraped_at,
                            CAST(count(pv.id) AS BIGINT) AS videos_tracked,
                            CAST(coalesce(sum(pv.views), 0) AS BIGINT) AS total_views
                     FROM tracked_accounts ta
                     JOIN creators c ON c.id = ta.creator_id
                     LEFT JOIN tracked_videos tv ON tv.tracked_account_id = ta.id
                     LEFT JOIN platform_videos pv ON pv.id = tv.platform_video_id
                     WHERE ta.organization_id = $1
                     GROUP BY ta.id, c.id, c.platform, c.username, c.display_name,
                              c.follower_count, ta.is_active, ta.campaign, ta.budget_per_video,
                              ta.initial_videos_count, ta.daily_videos_count, ta.last_scraped_at,
                              c.username_key
                     ORDER BY c.username_key, c.platform",
                    $sqlite,
                ))
                .bind(org.0)
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter()
                    .map(|r| {
                        Ok($crate::bloggers::BloggerSummary {
                            tracking_id: r.tracking_id,
                            blogger_id: r.blogger_id,
                            platform: $crate::rows::parse_platform(&r.platform)?,
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

            async fn set_blogger_campaign(
                &self,
                org: vidpulse_domain::OrgId,
                tracking_id: uuid::Uuid,
                campaign: Option<&str>,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::StoreError> {
                use $crate::users::sql;
                let mut tx = self.write_tx().await?;
                let done = sqlx::query(sql(
                    "UPDATE tracked_accounts SET campaign = $3, updated_at = $4
                     WHERE id = $1 AND organization_id = $2",
                    $sqlite,
                ))
                .bind(tracking_id)
                .bind(org.0)
                .bind(campaign)
                .bind(now)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                    == 1;
                tx.commit().await?;
                Ok(done)
            }

            async fn delete_blogger(
                &self,
                org: vidpulse_domain::OrgId,
                tracking_id: uuid::Uuid,
            ) -> Result<bool, $crate::StoreError> {
                use $crate::users::sql;
                let mut tx = self.write_tx().await?;
                let mut deleted = 0;
                for statement in $crate::bloggers::FORGET_ACCOUNT {
                    deleted = sqlx::query(sql(statement, $sqlite))
                        .bind(tracking_id)
                        .bind(org.0)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                }
                tx.commit().await?;
                Ok(deleted == 1)
            }

            async fn delete_blogger_with_videos(
                &self,
                org: vidpulse_domain::OrgId,
                tracking_id: uuid::Uuid,
            ) -> Result<Option<u64>, $crate::StoreError> {
                use $crate::users::sql;
                let mut tx = self.write_tx().await?;
                let exists: i64 = sqlx::query_scalar(sql(
                    "SELECT count(*) FROM tracked_accounts WHERE id = $1 AND organization_id = $2",
                    $sqlite,
                ))
                .bind(tracking_id)
                .bind(org.0)
                .fetch_one(&mut *tx)
                .await?;
                if exists == 0 {
                    return Ok(None);
                }
                let catalog: Vec<i64> = sqlx::query_scalar(sql(
                    "SELECT platform_video_id FROM tracked_videos
                     WHERE tracked_account_id = $1 AND organization_id = $2",
                    $sqlite,
                ))
                .bind(tracking_id)
                .bind(org.0)
                .fetch_all(&mut *tx)
                .await?;
                // The videos' statistics leave the organization's rollup.
                let scope = $crate::rollup::Scope::tracked_by(org.0, catalog);
                let before = super::rollup::shares(&mut tx, &scope).await?;
                let mut videos = 0;
                for statement in $crate::bloggers::DELETE_VIDEOS {
                    videos = sqlx::query(sql(statement, $sqlite))
                        .bind(tracking_id)
                        .bind(org.0)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                }
                super::rollup::settle(&mut tx, &scope, before).await?;
                for statement in $crate::bloggers::FORGET_ACCOUNT {
                    sqlx::query(sql(statement, $sqlite))
                        .bind(tracking_id)
                        .bind(org.0)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(Some(videos))
            }

            async fn set_blogger_budget(
                &self,
                org: vidpulse_domain::OrgId,
                tracking_id: uuid::Uuid,
                budget: Option<i64>,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::StoreError> {
                use $crate::users::sql;
                let mut tx = self.write_tx().await?;
                let done = sqlx::query(sql(
                    "UPDATE tracked_accounts SET budget_per_video = $3, updated_at = $4
                     WHERE id = $1 AND organization_id = $2",
                    $sqlite,
                ))
                .bind(tracking_id)
                .bind(org.0)
                .bind(budget)
                .bind(now)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                    == 1;
                tx.commit().await?;
                Ok(done)
            }
        }
    };
}
pub(crate) use blogger_store_impl;
