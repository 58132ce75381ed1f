//! The dashboard's bloggers, stored: the one implementation of
//! [`BloggerStore`] for both backends, each method one concern's function.

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;

use super::{
    BloggerChanges, BloggerStore, BloggerSummary, GroupInto, Grouped, KnownCreator, SetTags, Tag,
};
use super::{listing, manage, profiles, tags};
use crate::StoreError;
use crate::rollup::ScopeDialect;
use crate::sql::SqlStore;

#[async_trait]
impl<D: ScopeDialect> BloggerStore for SqlStore<D> {
    async fn bloggers(&self, org: OrgId) -> Result<Vec<BloggerSummary>, StoreError> {
        listing::bloggers(self, org).await
    }

    async fn set_blogger_campaign(
        &self,
        org: OrgId,
        tracking_id: Uuid,
        campaign: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        manage::set_campaign(self, org, tracking_id, campaign, now).await
    }

    async fn delete_blogger(&self, org: OrgId, tracking_id: Uuid) -> Result<bool, StoreError> {
        manage::delete(self, org, tracking_id).await
    }

    async fn delete_blogger_with_videos(
        &self,
        org: OrgId,
        tracking_id: Uuid,
    ) -> Result<Option<u64>, StoreError> {
        manage::delete_with_videos(self, org, tracking_id).await
    }

    async fn set_blogger_budget(
        &self,
        org: OrgId,
        tracking_id: Uuid,
        budget: Option<i64>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        manage::set_setting(self, "budget_per_video", org, tracking_id, budget, now).await
    }

    async fn update_blogger(
        &self,
        org: OrgId,
        tracking_id: Uuid,
        changes: &BloggerChanges,
        now: DateTime<Utc>,
    ) -> Result<crate::AccountChange, StoreError> {
        manage::update(self, org, tracking_id, changes, now).await
    }

    async fn blogger_tags(
        &self,
        org: OrgId,
        tracking_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<Tag>>, StoreError> {
        tags::of_accounts(self, org, tracking_ids).await
    }

    async fn tags(&self, org: OrgId) -> Result<Vec<Tag>, StoreError> {
        tags::list(self, org).await
    }

    async fn create_tag(
        &self,
        org: OrgId,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<(Tag, bool), StoreError> {
        tags::create(self, org, name, now).await
    }

    async fn set_blogger_tags(
        &self,
        org: OrgId,
        tracking_id: Uuid,
        tag_ids: &[Uuid],
    ) -> Result<SetTags, StoreError> {
        tags::set_on_account(self, org, tracking_id, tag_ids).await
    }

    async fn known_creator(
        &self,
        org: OrgId,
        creator_id: Uuid,
    ) -> Result<Option<KnownCreator>, StoreError> {
        listing::known_creator(self, org, creator_id).await
    }

    async fn group_bloggers(
        &self,
        org: OrgId,
        into: GroupInto<'_>,
        blogger_ids: &[Uuid],
        now: DateTime<Utc>,
    ) -> Result<Grouped, StoreError> {
        profiles::group(self, org, into, blogger_ids, now).await
    }
}
