//! The rows of organizations and API keys, as both backends read them.

use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::api_key::Scopes;
use vidpulse_domain::{ApiKeyId, OrgId, Plan};

use super::{ApiKeyOwner, ApiKeyRecord, Organization};
use crate::StoreError;
use crate::error::corrupt;

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct OrgRow {
    pub id: Uuid,
    pub name: String,
    pub plan: String,
    pub video_quota: Option<i64>,
    pub creator_cap: Option<i64>,
    pub created_at: DateTime<Utc>,
}

impl TryFrom<OrgRow> for Organization {
    type Error = StoreError;
    fn try_from(r: OrgRow) -> Result<Self, StoreError> {
        Ok(Organization {
            id: OrgId(r.id),
            name: r.name,
            plan: r.plan.parse::<Plan>().map_err(corrupt)?,
            video_quota_override: r.video_quota,
            creator_cap_override: r.creator_cap,
            created_at: r.created_at,
        })
    }
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ApiKeyRow {
    pub id: Uuid,
    pub organization_id: Uuid,
    pub name: Option<String>,
    pub prefix: String,
    pub key_hash: Vec<u8>,
    pub scopes: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// The columns of an [`ApiKeyRow`], in its order.
pub(crate) const API_KEY_COLUMNS: &str =
    "id, organization_id, name, prefix, key_hash, scopes, created_at, last_used_at, revoked_at";

impl TryFrom<ApiKeyRow> for ApiKeyRecord {
    type Error = StoreError;
    fn try_from(r: ApiKeyRow) -> Result<Self, StoreError> {
        Ok(ApiKeyRecord {
            id: ApiKeyId(r.id),
            organization_id: OrgId(r.organization_id),
            name: r.name,
            prefix: r.prefix,
            key_hash: r.key_hash,
            scopes: r.scopes.parse::<Scopes>().map_err(corrupt)?,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
            revoked_at: r.revoked_at,
        })
    }
}

/// A key joined with its organization; organization columns are prefixed `org_`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ApiKeyOwnerRow {
    #[sqlx(flatten)]
    pub key: ApiKeyRow,
    pub org_name: String,
    pub org_plan: String,
    pub org_video_quota: Option<i64>,
    pub org_creator_cap: Option<i64>,
    pub org_created_at: DateTime<Utc>,
}

impl TryFrom<ApiKeyOwnerRow> for ApiKeyOwner {
    type Error = StoreError;
    fn try_from(r: ApiKeyOwnerRow) -> Result<Self, StoreError> {
        let organization = Organization::try_from(OrgRow {
            id: r.key.organization_id,
            name: r.org_name,
            plan: r.org_plan,
            video_quota: r.org_video_quota,
            creator_cap: r.org_creator_cap,
            created_at: r.org_created_at,
        })?;
        Ok(ApiKeyOwner {
            key: r.key.try_into()?,
            organization,
        })
    }
}
