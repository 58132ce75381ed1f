//! The dashboard's view of tracked creators ("bloggers"): the listing with a
//! summary of their videos, and the settings their new videos inherit.
//!
//! The role is written once for both backends (`store`), by concern: the
//! listing and the creators an organization knows (`listing`), a tracked
//! account's settings and its removal (`manage`), tags (`tags`), and creator
//! profiles (`profiles`).

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::names::{Campaign, TagName};
use vidpulse_domain::{OrgId, Platform};

use crate::StoreError;
use crate::creators::CreatorProfile;

mod listing;
mod manage;
mod profiles;
mod store;
mod tags;

pub(crate) use tags::find_or_create as find_or_create_tag;

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

/// Changes to a tracked creator's settings, all written or none; a field
/// left `None` stays as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BloggerChanges {
    /// Resume (`true`) or pause (`false`) its daily discovery.
    pub is_active: Option<bool>,
    /// The campaign its new videos get (`Some(None)` clears): the
    /// organization's campaign of that name in any letter case, created
    /// when absent.
    pub campaign: Option<Option<Campaign>>,
    /// New videos its discovery tracks per visit (`Some(None)`: the
    /// service's default).
    pub daily_videos_count: Option<Option<i64>>,
    /// The budget its new videos get (`Some(None)` clears).
    pub budget_per_video: Option<Option<i64>>,
    /// Its tags from now on, by name (matched ignoring case, created when
    /// unknown; `[]` clears): as [`BloggerStore::set_blogger_tags`], its
    /// videos lose the tags taken off and get the ones put on.
    pub tags: Option<Vec<TagName>>,
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

    /// Applies `changes` to the organization's tracked account in one
    /// transaction. Nothing is written (no tag or campaign created) when the
    /// organization has no such account, or when resuming it would pass the
    /// creator cap.
    async fn update_blogger(
        &self,
        org: OrgId,
        tracking_id: Uuid,
        changes: &BloggerChanges,
        now: DateTime<Utc>,
    ) -> Result<crate::AccountChange, StoreError>;

    /// The tags of these tracked accounts of the organization, by tracked
    /// account id, each list by name (accounts without tags, and other
    /// organizations' ids, are left out).
    async fn blogger_tags(
        &self,
        org: OrgId,
        tracking_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<Tag>>, StoreError>;

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
