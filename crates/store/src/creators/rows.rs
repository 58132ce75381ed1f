//! The creator role's rows, as both backends read them: tracked accounts
//! (with their creator), creator jobs, claimed jobs and due discoveries,
//! and the columns each is selected with.

use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::{ApiKeyId, OrgId};

use super::{ClaimedJob, CreatorJob, CreatorProfile, DueDiscovery, JobStatus, TrackedAccount};
use crate::StoreError;
use crate::error::{corrupt, parse_platform};

/// The columns of an [`AccountRow`]: a tracked account `ta` joined with its
/// creator `c` (LEFT JOINs leave them all NULL).
pub(crate) const ACCOUNT_COLUMNS: &str = "
    ta.id AS tracked_account_id, c.id AS creator_id, c.platform AS account_platform,
    c.channel_id, c.username AS account_username, c.display_name, c.avatar_url,
    c.follower_count, c.last_fetched_at, ta.is_active, ta.initial_videos_count AS account_initial,
    ta.daily_videos_count, ta.campaign, ta.ecpm, ta.last_scraped_at, ta.discovery_note,
    ta.budget_per_video";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AccountRow {
    pub tracked_account_id: Option<Uuid>,
    pub creator_id: Option<Uuid>,
    pub account_platform: Option<String>,
    pub channel_id: Option<String>,
    pub account_username: Option<String>,
    pub display_name: Option<String>,
    pub avatar_url: Option<String>,
    pub follower_count: Option<i64>,
    pub last_fetched_at: Option<DateTime<Utc>>,
    pub is_active: Option<bool>,
    pub account_initial: Option<i64>,
    pub daily_videos_count: Option<i64>,
    pub campaign: Option<String>,
    pub ecpm: Option<f64>,
    pub last_scraped_at: Option<DateTime<Utc>>,
    pub discovery_note: Option<String>,
    pub budget_per_video: Option<i64>,
}

impl AccountRow {
    /// The account, or `None` when the join found none.
    pub(crate) fn into_account(self) -> Result<Option<TrackedAccount>, StoreError> {
        let (
            Some(tracked_account_id),
            Some(creator_id),
            Some(platform),
            Some(channel_id),
            Some(username),
            Some(last_fetched_at),
            Some(is_active),
            Some(initial_videos_count),
        ) = (
            self.tracked_account_id,
            self.creator_id,
            self.account_platform,
            self.channel_id,
            self.account_username,
            self.last_fetched_at,
            self.is_active,
            self.account_initial,
        )
        else {
            return Ok(None);
        };
        Ok(Some(TrackedAccount {
            tracked_account_id,
            creator_id,
            platform: parse_platform(&platform)?,
            channel_id,
            username,
            display_name: self.display_name,
            avatar_url: self.avatar_url,
            follower_count: self.follower_count,
            last_fetched_at,
            is_active,
            initial_videos_count,
            daily_videos_count: self.daily_videos_count,
            campaign: self.campaign,
            ecpm: self.ecpm,
            last_scraped_at: self.last_scraped_at,
            discovery_note: self.discovery_note,
            budget_per_video: self.budget_per_video,
        }))
    }
}

/// The columns of a [`JobRow`] (`j` is the job; the account columns follow).
pub(crate) const JOB_COLUMNS: &str = "
    j.id, j.status, j.platform, j.username, j.initial_videos_count, j.created_at, j.started_at,
    j.completed_at, j.is_reactivation, j.error_code, j.error_message";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct JobRow {
    pub id: Uuid,
    pub status: String,
    pub platform: String,
    pub username: String,
    pub initial_videos_count: i64,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub is_reactivation: Option<bool>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    #[sqlx(flatten)]
    pub account: AccountRow,
}

impl TryFrom<JobRow> for CreatorJob {
    type Error = StoreError;
    fn try_from(r: JobRow) -> Result<Self, StoreError> {
        Ok(CreatorJob {
            id: r.id,
            status: JobStatus::parse(&r.status).ok_or_else(|| corrupt(&r.status))?,
            platform: parse_platform(&r.platform)?,
            username: r.username,
            initial_videos_count: r.initial_videos_count,
            created_at: r.created_at,
            started_at: r.started_at,
            completed_at: r.completed_at,
            is_reactivation: r.is_reactivation,
            error_code: r.error_code,
            error_message: r.error_message,
            account: r.account.into_account()?,
        })
    }
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ClaimedJobRow {
    pub id: Uuid,
    pub organization_id: Uuid,
    pub api_key_id: Option<Uuid>,
    pub request_id: String,
    pub platform: String,
    pub username: String,
    pub initial_videos_count: i64,
    pub lease_token: Uuid,
    pub attempts: i64,
}

impl TryFrom<ClaimedJobRow> for ClaimedJob {
    type Error = StoreError;
    fn try_from(r: ClaimedJobRow) -> Result<Self, StoreError> {
        Ok(ClaimedJob {
            id: r.id,
            organization_id: OrgId(r.organization_id),
            api_key_id: r.api_key_id.map(ApiKeyId),
            request_id: r.request_id,
            platform: parse_platform(&r.platform)?,
            username: r.username,
            initial_videos_count: r.initial_videos_count,
            lease_token: r.lease_token,
            attempts: r.attempts,
        })
    }
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct DueDiscoveryRow {
    pub tracked_account_id: Uuid,
    pub organization_id: Uuid,
    pub platform: String,
    pub channel_id: String,
    pub username: String,
    pub display_name: Option<String>,
    pub avatar_url: Option<String>,
    pub follower_count: Option<i64>,
    pub daily_videos_count: Option<i64>,
    pub discovered_since: DateTime<Utc>,
    pub discovery_lease_token: Uuid,
}

impl TryFrom<DueDiscoveryRow> for DueDiscovery {
    type Error = StoreError;
    fn try_from(r: DueDiscoveryRow) -> Result<Self, StoreError> {
        Ok(DueDiscovery {
            tracked_account_id: r.tracked_account_id,
            organization_id: OrgId(r.organization_id),
            profile: CreatorProfile {
                platform: parse_platform(&r.platform)?,
                channel_id: r.channel_id,
                username: r.username,
                display_name: r.display_name,
                avatar_url: r.avatar_url,
                follower_count: r.follower_count,
            },
            daily_videos_count: r.daily_videos_count,
            discovered_since: r.discovered_since,
            lease_token: r.discovery_lease_token,
        })
    }
}

/// The columns of a [`DueDiscoveryRow`].
pub(crate) const DUE_DISCOVERY_COLUMNS: &str = "
    ta.id AS tracked_account_id, ta.organization_id, c.platform, c.channel_id, c.username,
    c.display_name, c.avatar_url, c.follower_count, ta.daily_videos_count, ta.discovered_since,
    ta.discovery_lease_token";
