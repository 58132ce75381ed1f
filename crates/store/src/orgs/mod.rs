//! Organizations, their plans, their limits and what they use of them, and
//! their API keys.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use vidpulse_domain::api_key::Scopes;
use vidpulse_domain::plan::Limits;
use vidpulse_domain::{ApiKeyId, OrgId, Plan};

use crate::StoreError;

mod rows;
mod store;

pub(crate) use rows::{API_KEY_COLUMNS, ApiKeyRow};
pub(crate) use store::lock_org;

/// An organization (tenant).
#[derive(Debug, Clone, PartialEq)]
pub struct Organization {
    /// Its id.
    pub id: OrgId,
    /// Its name.
    pub name: String,
    /// Its plan.
    pub plan: Plan,
    /// Operator override of the plan's video quota.
    pub video_quota_override: Option<i64>,
    /// Operator override of the plan's creator cap.
    pub creator_cap_override: Option<i64>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

impl Organization {
    /// The limits in force: the plan's, with this organization's overrides.
    pub fn limits(&self) -> Limits {
        Limits::of(
            self.plan,
            self.video_quota_override,
            self.creator_cap_override,
        )
    }
}

/// What `create_organization` needs.
#[derive(Debug, Clone)]
pub struct NewOrganization {
    /// The name.
    pub name: String,
    /// The plan.
    pub plan: Plan,
    /// When set, this user (created when unknown) becomes the `owner`.
    pub owner_email: Option<String>,
    /// The identity subject to give an owner created here.
    pub owner_subject: Option<String>,
    /// The creation time.
    pub now: DateTime<Utc>,
}

/// What an organization uses of its plan's limits, counted as the checks
/// that enforce them count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanUse {
    /// Videos whose tracking window is open: what the tracked-video quota
    /// counts.
    pub tracked_videos: i64,
    /// Active tracked creators, and creator jobs in flight that add a new
    /// one: what the creator cap counts.
    pub creators: i64,
    /// Trend searches charged since the start of the month asked about.
    pub trend_searches: i64,
}

/// An API key as stored: never the key itself, only its hash.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiKeyRecord {
    /// Its id.
    pub id: ApiKeyId,
    /// The organization it acts for.
    pub organization_id: OrgId,
    /// A label chosen by its creator.
    pub name: Option<String>,
    /// The clear prefix, for lookup and display.
    pub prefix: String,
    /// SHA-256 of the key.
    pub key_hash: Vec<u8>,
    /// What it may do (migration 0035; older keys have full access).
    pub scopes: Scopes,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it was last used (flushed in batches, so a few seconds late).
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it was revoked.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// What `create_api_key` stores.
#[derive(Debug, Clone)]
pub struct NewApiKey {
    /// The organization.
    pub organization_id: OrgId,
    /// A label.
    pub name: Option<String>,
    /// The clear prefix.
    pub prefix: String,
    /// SHA-256 of the key.
    pub key_hash: Vec<u8>,
    /// What it may do.
    pub scopes: Scopes,
    /// The creation time.
    pub now: DateTime<Utc>,
}

/// An API key with the organization it belongs to: what authentication needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiKeyOwner {
    /// The key.
    pub key: ApiKeyRecord,
    /// Its organization.
    pub organization: Organization,
}

/// Organizations and API keys.
#[async_trait]
pub trait OrgStore {
    /// Creates an organization (and its owner's membership, when named).
    async fn create_organization(&self, new: NewOrganization) -> Result<Organization, StoreError>;

    /// One organization.
    async fn organization(&self, id: OrgId) -> Result<Option<Organization>, StoreError>;

    /// Changes an organization's plan and overrides; `None` when it does not exist.
    async fn set_plan(
        &self,
        id: OrgId,
        plan: Plan,
        video_quota: Option<i64>,
        creator_cap: Option<i64>,
    ) -> Result<Option<Organization>, StoreError>;

    /// Organization `id` and what it uses of its limits at `now`, its trend
    /// searches counted from `month_start`, read in one snapshot; `None`
    /// when it does not exist.
    async fn plan_use(
        &self,
        id: OrgId,
        now: DateTime<Utc>,
        month_start: DateTime<Utc>,
    ) -> Result<Option<(Organization, PlanUse)>, StoreError>;

    /// Stores a new API key; fails with `NotFound` when the organization does not exist.
    async fn create_api_key(&self, new: NewApiKey) -> Result<ApiKeyRecord, StoreError>;

    /// The unrevoked keys whose clear prefix is `prefix`, with their organizations.
    async fn api_keys_by_prefix(&self, prefix: &str) -> Result<Vec<ApiKeyOwner>, StoreError>;
}
