//! The dashboard's view of tracked creators ("bloggers"): the listing with a
//! summary of their videos, and the settings their new videos inherit. One
//! implementation for both backends (`blogger_store_impl`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::{OrgId, Platform};

use crate::StoreError;
use crate::creators::CreatorProfile;

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
    /// The creator profile it belongs to, if any.
    pub creator_profile: Option<ProfileRef>,
    /// Its tags (its videos carry them), by name.
    pub tags: Vec<Tag>,
}

/// A creator profile, as a blogger names it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRef {
    /// The profile (`creator_id` of the dashboard API).
    pub id: Uuid,
    /// Its name.
    pub name: String,
}

/// One of an organization's tags.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// Its id (`tag_ids` of the dashboard API).
    pub id: Uuid,
    /// Its name as first written.
    pub name: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// What replacing a blogger's tags did.
#[derive(Debug, Clone, PartialEq)]
pub enum SetTags {
    /// Done: the tags now on the blogger and its videos.
    Done(Vec<Tag>),
    /// The organization has no such tracked account.
    UnknownBlogger,
    /// These ids are not tags of the organization; nothing was written.
    UnknownTags(Vec<Uuid>),
}

/// A catalog creator an organization knows (tracks, tracked, or tracks
/// videos of).
#[derive(Debug, Clone, PartialEq)]
pub struct KnownCreator {
    /// The catalog id (`blogger_id`).
    pub id: Uuid,
    /// As last read from the platform.
    pub profile: CreatorProfile,
}

/// The profile bloggers are grouped into.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GroupInto<'a> {
    /// A new profile with this name (`None`: the first blogger's channel name).
    New(Option<&'a str>),
    /// An existing profile of the organization.
    Existing(Uuid),
}

/// A creator profile and the bloggers in it.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatorGroup {
    /// The profile (`creator_id`).
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// The catalog ids (`blogger_id`) of its tracked accounts, sorted.
    pub blogger_ids: Vec<Uuid>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// What grouping bloggers did.
#[derive(Debug, Clone, PartialEq)]
pub enum Grouped {
    /// Done.
    Done(CreatorGroup),
    /// The organization has no such profile; nothing was written.
    UnknownProfile,
    /// The organization tracks none of these creators; nothing was written.
    UnknownBloggers(Vec<Uuid>),
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

    /// The organization's tags, by name.
    async fn tags(&self, org: OrgId) -> Result<Vec<Tag>, StoreError>;

    /// Creates a tag, or finds the one of that name in any case; `true` when
    /// it was created.
    async fn create_tag(
        &self,
        org: OrgId,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<(Tag, bool), StoreError>;

    /// Replaces a tracked creator's tags; its videos lose the tags taken off
    /// and get the ones put on, and its future videos get them too.
    async fn set_blogger_tags(
        &self,
        org: OrgId,
        tracking_id: Uuid,
        tag_ids: &[Uuid],
    ) -> Result<SetTags, StoreError>;

    /// A catalog creator the organization knows: one it tracks, one a
    /// creator job of it tracked before (deleted since), or the author of
    /// one of its tracked videos; `None` otherwise.
    async fn known_creator(
        &self,
        org: OrgId,
        creator_id: Uuid,
    ) -> Result<Option<KnownCreator>, StoreError>;

    /// Moves the organization's tracked accounts of these creators (catalog
    /// ids) into a creator profile, new or existing; profiles left empty go.
    async fn group_bloggers(
        &self,
        org: OrgId,
        into: GroupInto<'_>,
        blogger_ids: &[Uuid],
        now: DateTime<Utc>,
    ) -> Result<Grouped, StoreError>;
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

/// Delete the organization's (`$1`) creator profiles that no tracked
/// account belongs to any more.
pub(crate) const DROP_EMPTY_PROFILES: &str = "DELETE FROM creator_profiles
     WHERE organization_id = $1 AND NOT EXISTS (
       SELECT 1 FROM tracked_accounts ta WHERE ta.creator_profile_id = creator_profiles.id)";

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
                    profile_id: Option<uuid::Uuid>,
                    profile_name: Option<String>,
                }
                let rows: Vec<Row> = sqlx::query_as(sql(
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
                    $sqlite,
                ))
                .bind(org.0)
                .fetch_all(&self.pool)
                .await?;
                #[derive(sqlx::FromRow)]
                struct TagRow {
                    tracked_account_id: uuid::Uuid,
                    id: uuid::Uuid,
                    name: String,
                    created_at: chrono::DateTime<chrono::Utc>,
                }
                let tag_rows: Vec<TagRow> = sqlx::query_as(sql(
                    "SELECT at.tracked_account_id, t.id, t.name, t.created_at
                     FROM account_tags at JOIN tags t ON t.id = at.tag_id
                     WHERE t.organization_id = $1
                     ORDER BY t.name_lower, t.id",
                    $sqlite,
                ))
                .bind(org.0)
                .fetch_all(&self.pool)
                .await?;
                let mut tags: std::collections::HashMap<uuid::Uuid, Vec<$crate::bloggers::Tag>> =
                    std::collections::HashMap::new();
                for t in tag_rows {
                    tags.entry(t.tracked_account_id)
                        .or_default()
                        .push($crate::bloggers::Tag {
                            id: t.id,
                            name: t.name,
                            created_at: t.created_at,
                        });
                }
                rows.into_iter()
                    .map(|r| {
                        Ok($crate::bloggers::BloggerSummary {
                            creator_profile: r.profile_id.zip(r.profile_name).map(|(id, name)| {
                                $crate::bloggers::ProfileRef { id, name }
                            }),
                            tags: tags.remove(&r.tracking_id).unwrap_or_default(),
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
                sqlx::query(sql($crate::bloggers::DROP_EMPTY_PROFILES, $sqlite))
                    .bind(org.0)
                    .execute(&mut *tx)
                    .await?;
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
                let before = $crate::rollup::shares(&mut tx, &scope).await?;
                let mut videos = 0;
                for statement in $crate::bloggers::DELETE_VIDEOS {
                    videos = sqlx::query(sql(statement, $sqlite))
                        .bind(tracking_id)
                        .bind(org.0)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                }
                $crate::rollup::settle(&mut tx, &scope, before).await?;
                for statement in $crate::bloggers::FORGET_ACCOUNT {
                    sqlx::query(sql(statement, $sqlite))
                        .bind(tracking_id)
                        .bind(org.0)
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query(sql($crate::bloggers::DROP_EMPTY_PROFILES, $sqlite))
                    .bind(org.0)
                    .execute(&mut *tx)
                    .await?;
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

            async fn tags(
                &self,
                org: vidpulse_domain::OrgId,
            ) -> Result<Vec<$crate::bloggers::Tag>, $crate::StoreError> {
                use $crate::users::sql;
                let rows: Vec<(uuid::Uuid, String, chrono::DateTime<chrono::Utc>)> =
                    sqlx::query_as(sql(
                        "SELECT id, name, created_at FROM tags WHERE organization_id = $1
                         ORDER BY name_lower",
                        $sqlite,
                    ))
                    .bind(org.0)
                    .fetch_all(&self.pool)
                    .await?;
                Ok(rows
                    .into_iter()
                    .map(|(id, name, created_at)| $crate::bloggers::Tag {
                        id,
                        name,
                        created_at,
                    })
                    .collect())
            }

            async fn create_tag(
                &self,
                org: vidpulse_domain::OrgId,
                name: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<($crate::bloggers::Tag, bool), $crate::StoreError> {
                use $crate::users::sql;
                let mut tx = self.write_tx().await?;
                let created: Option<uuid::Uuid> = sqlx::query_scalar(sql(
                    "INSERT INTO tags (id, organization_id, name, name_lower, created_at)
                     VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (organization_id, name_lower) DO NOTHING
                     RETURNING id",
                    $sqlite,
                ))
                .bind(uuid::Uuid::now_v7())
                .bind(org.0)
                .bind(name)
                .bind(name.to_lowercase())
                .bind(now)
                .fetch_optional(&mut *tx)
                .await?;
                let (id, name, created_at): (uuid::Uuid, String, chrono::DateTime<chrono::Utc>) =
                    sqlx::query_as(sql(
                        "SELECT id, name, created_at FROM tags
                         WHERE organization_id = $1 AND name_lower = $2",
                        $sqlite,
                    ))
                    .bind(org.0)
                    .bind(name.to_lowercase())
                    .fetch_one(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok((
                    $crate::bloggers::Tag {
                        id,
                        name,
                        created_at,
                    },
                    created.is_some(),
                ))
            }

            async fn set_blogger_tags(
                &self,
                org: vidpulse_domain::OrgId,
                tracking_id: uuid::Uuid,
                tag_ids: &[uuid::Uuid],
            ) -> Result<$crate::bloggers::SetTags, $crate::StoreError> {
                use $crate::bloggers::{SetTags, Tag};
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
                    return Ok(SetTags::UnknownBlogger);
                }
                let mut tags = Vec::with_capacity(tag_ids.len());
                let mut unknown = Vec::new();
                for id in tag_ids {
                    let tag: Option<(String, chrono::DateTime<chrono::Utc>)> =
                        sqlx::query_as(sql(
                            "SELECT name, created_at FROM tags WHERE id = $1 AND organization_id = $2",
                            $sqlite,
                        ))
                        .bind(id)
                        .bind(org.0)
                        .fetch_optional(&mut *tx)
                        .await?;
                    match tag {
                        Some((name, created_at)) => tags.push(Tag {
                            id: *id,
                            name,
                            created_at,
                        }),
                        None => unknown.push(*id),
                    }
                }
                if !unknown.is_empty() {
                    return Ok(SetTags::UnknownTags(unknown));
                }
                $crate::creators::replace_account_tags(&mut tx, org.0, tracking_id, tag_ids).await?;
                tx.commit().await?;
                tags.sort_by(|a, b| a.name.to_lowercase().cmp(&b.name.to_lowercase()));
                tags.dedup_by_key(|t| t.id);
                Ok(SetTags::Done(tags))
            }

            async fn known_creator(
                &self,
                org: vidpulse_domain::OrgId,
                creator_id: uuid::Uuid,
            ) -> Result<Option<$crate::bloggers::KnownCreator>, $crate::StoreError> {
                use $crate::users::sql;
                #[derive(sqlx::FromRow)]
                struct Row {
                    platform: String,
                    channel_id: String,
                    username: String,
                    display_name: Option<String>,
                    avatar_url: Option<String>,
                    follower_count: Option<i64>,
                }
                let row: Option<Row> = sqlx::query_as(sql(
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
                                    AND lower(pv.author_username) = c.username_key))",
                    $sqlite,
                ))
                .bind(creator_id)
                .bind(org.0)
                .fetch_optional(&self.pool)
                .await?;
                row.map(|r| {
                    Ok($crate::bloggers::KnownCreator {
                        id: creator_id,
                        profile: $crate::creators::CreatorProfile {
                            platform: $crate::rows::parse_platform(&r.platform)?,
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

            async fn group_bloggers(
                &self,
                org: vidpulse_domain::OrgId,
                into: $crate::bloggers::GroupInto<'_>,
                blogger_ids: &[uuid::Uuid],
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::bloggers::Grouped, $crate::StoreError> {
                use $crate::bloggers::{CreatorGroup, GroupInto, Grouped};
                use $crate::users::sql;
                let mut tx = self.write_tx().await?;
                // The accounts, in id order (row locks in one order on PostgreSQL).
                let mut accounts = Vec::with_capacity(blogger_ids.len());
                let mut unknown = Vec::new();
                for id in blogger_ids {
                    let found: Option<(uuid::Uuid, Option<uuid::Uuid>, String, Option<String>)> =
                        sqlx::query_as(sql(
                            "SELECT ta.id, ta.creator_profile_id, c.username, c.display_name
                             FROM tracked_accounts ta JOIN creators c ON c.id = ta.creator_id
                             WHERE ta.creator_id = $1 AND ta.organization_id = $2",
                            $sqlite,
                        ))
                        .bind(id)
                        .bind(org.0)
                        .fetch_optional(&mut *tx)
                        .await?;
                    match found {
                        Some(found) => accounts.push(found),
                        None => unknown.push(*id),
                    }
                }
                if !unknown.is_empty() {
                    return Ok(Grouped::UnknownBloggers(unknown));
                }
                let profile = match into {
                    GroupInto::Existing(id) => {
                        let found: Option<uuid::Uuid> = sqlx::query_scalar(sql(
                            "SELECT id FROM creator_profiles WHERE id = $1 AND organization_id = $2",
                            $sqlite,
                        ))
                        .bind(id)
                        .bind(org.0)
                        .fetch_optional(&mut *tx)
                        .await?;
                        match found {
                            Some(id) => id,
                            None => return Ok(Grouped::UnknownProfile),
                        }
                    }
                    GroupInto::New(name) => {
                        let name = match name {
                            Some(name) => name.to_owned(),
                            None => accounts
                                .first()
                                .map(|(_, _, username, display)| {
                                    display.clone().unwrap_or_else(|| username.clone())
                                })
                                .unwrap_or_default(),
                        };
                        let id = uuid::Uuid::now_v7();
                        sqlx::query(sql(
                            "INSERT INTO creator_profiles (id, organization_id, name, created_at, updated_at)
                             VALUES ($1, $2, $3, $4, $4)",
                            $sqlite,
                        ))
                        .bind(id)
                        .bind(org.0)
                        .bind(name)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                        id
                    }
                };
                accounts.sort_by_key(|a| a.0);
                let mut left: Vec<uuid::Uuid> = Vec::new();
                for (account, previous, _, _) in &accounts {
                    sqlx::query(sql(
                        "UPDATE tracked_accounts SET creator_profile_id = $1, updated_at = $2
                         WHERE id = $3",
                        $sqlite,
                    ))
                    .bind(profile)
                    .bind(now)
                    .bind(account)
                    .execute(&mut *tx)
                    .await?;
                    if let Some(previous) = previous
                        && *previous != profile
                    {
                        left.push(*previous);
                    }
                }
                left.sort();
                left.dedup();
                for previous in left {
                    sqlx::query(sql(
                        "DELETE FROM creator_profiles WHERE id = $1 AND NOT EXISTS (
                           SELECT 1 FROM tracked_accounts WHERE creator_profile_id = $1)",
                        $sqlite,
                    ))
                    .bind(previous)
                    .execute(&mut *tx)
                    .await?;
                }
                sqlx::query(sql(
                    "UPDATE creator_profiles SET updated_at = $2 WHERE id = $1",
                    $sqlite,
                ))
                .bind(profile)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                let (name, created_at): (String, chrono::DateTime<chrono::Utc>) =
                    sqlx::query_as(sql(
                        "SELECT name, created_at FROM creator_profiles WHERE id = $1",
                        $sqlite,
                    ))
                    .bind(profile)
                    .fetch_one(&mut *tx)
                    .await?;
                let blogger_ids: Vec<uuid::Uuid> = sqlx::query_scalar(sql(
                    "SELECT creator_id FROM tracked_accounts WHERE creator_profile_id = $1
                     ORDER BY creator_id",
                    $sqlite,
                ))
                .bind(profile)
                .fetch_all(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(Grouped::Done(CreatorGroup {
                    id: profile,
                    name,
                    blogger_ids,
                    created_at,
                }))
            }
        }
    };
}
pub(crate) use blogger_store_impl;
