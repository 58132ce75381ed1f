//! Campaigns, stored: the one implementation of [`CampaignStore`] for both
//! backends (the statements live in `crud.rs` and `report.rs`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use vidpulse_domain::analytics::{Baseline, DateRange};
use vidpulse_domain::{CampaignId, OrgId};

use super::{
    CampaignChanges, CampaignListQuery, CampaignRecord, CampaignRefusal, CampaignStore,
    CampaignVideoFigures, NewCampaign, crud, report,
};
use crate::StoreError;
use crate::backend::Db;
use crate::sql::SqlStore;

#[async_trait]
impl<D: Db> CampaignStore for SqlStore<D> {
    async fn create_campaign(
        &self,
        org: OrgId,
        new: NewCampaign,
        now: DateTime<Utc>,
    ) -> Result<Result<CampaignRecord, CampaignRefusal>, StoreError> {
        crud::create(self, org, new, now).await
    }

    async fn campaigns(
        &self,
        org: OrgId,
        query: &CampaignListQuery,
    ) -> Result<(Vec<CampaignRecord>, i64), StoreError> {
        crud::list(self, org, query).await
    }

    async fn campaign(
        &self,
        org: OrgId,
        id: CampaignId,
    ) -> Result<Option<CampaignRecord>, StoreError> {
        crud::get(self, org, id).await
    }

    async fn update_campaign(
        &self,
        org: OrgId,
        id: CampaignId,
        changes: CampaignChanges,
        now: DateTime<Utc>,
    ) -> Result<Result<CampaignRecord, CampaignRefusal>, StoreError> {
        crud::update(self, org, id, changes, now).await
    }

    async fn delete_campaign(
        &self,
        org: OrgId,
        id: CampaignId,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        crud::delete(self, org, id, now).await
    }

    async fn campaign_video_figures(
        &self,
        org: OrgId,
        name: &str,
        window: DateRange,
        baseline: Baseline,
    ) -> Result<Vec<CampaignVideoFigures>, StoreError> {
        report::video_figures(self, org, name, window, baseline).await
    }
}
