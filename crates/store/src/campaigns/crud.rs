//! Creating, listing, reading, changing and deleting campaigns.

use chrono::{DateTime, Utc};
use vidpulse_domain::{CampaignId, OrgId};

use super::{CampaignChanges, CampaignListQuery, CampaignRecord, CampaignRefusal, NewCampaign};
use crate::StoreError;
use crate::backend::Db;
use crate::sql::SqlStore;

pub(super) async fn create<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    new: NewCampaign,
    now: DateTime<Utc>,
) -> Result<Result<CampaignRecord, CampaignRefusal>, StoreError> {
    let _ = (store, org, new, now);
    todo!("issue 37: campaigns CRUD")
}

pub(super) async fn list<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    query: &CampaignListQuery,
) -> Result<(Vec<CampaignRecord>, i64), StoreError> {
    let _ = (store, org, query);
    todo!("issue 37: campaigns CRUD")
}

pub(super) async fn get<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    id: CampaignId,
) -> Result<Option<CampaignRecord>, StoreError> {
    let _ = (store, org, id);
    todo!("issue 37: campaigns CRUD")
}

pub(super) async fn update<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    id: CampaignId,
    changes: CampaignChanges,
    now: DateTime<Utc>,
) -> Result<Result<CampaignRecord, CampaignRefusal>, StoreError> {
    let _ = (store, org, id, changes, now);
    todo!("issue 37: campaigns CRUD")
}

pub(super) async fn delete<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    id: CampaignId,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let _ = (store, org, id, now);
    todo!("issue 37: campaigns CRUD")
}
