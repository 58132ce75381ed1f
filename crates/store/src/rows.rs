//! Row types shared by both backends, and their conversion to records.
//!
//! Both schemas decode into the same Rust types (UUIDs, `DateTime<Utc>`,
//! `i64`, `f64`, text), so one `FromRow` struct serves SQLite and PostgreSQL;
//! only the SQL differs. A video record's tags and history are the
//! exception: JSON on SQLite, arrays on PostgreSQL (see [`IntoRecord`]).

use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::names::tag_key;
use vidpulse_domain::patch::{VideoStatus, WorkflowStatus};
use vidpulse_domain::schedule::FAILING_AFTER_FAILURES;
use vidpulse_domain::{ApiKeyId, Observation, OrgId, Plan, Platform, VideoId};

use crate::StoreError;
use crate::creators::{
    ClaimedJob, CreatorJob, CreatorProfile, DueDiscovery, JobStatus, TrackedAccount,
};
use crate::orgs::{ApiKeyOwner, ApiKeyRecord, Organization};
use crate::refresh::DueVideo;
use crate::videos::{RecordStamp, VideoRecord, VideoState};

pub(crate) fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

pub(crate) fn parse_platform(s: &str) -> Result<Platform, StoreError> {
    Platform::from_id(s).map_err(corrupt)
}

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
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

impl From<ApiKeyRow> for ApiKeyRecord {
    fn from(r: ApiKeyRow) -> Self {
        ApiKeyRecord {
            id: ApiKeyId(r.id),
            organization_id: OrgId(r.organization_id),
            name: r.name,
            prefix: r.prefix,
            key_hash: r.key_hash,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
            revoked_at: r.revoked_at,
        }
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
            key: r.key.into(),
            organization,
        })
    }
}

/// A tracked video with its catalog columns: the part of a record both
/// backends read alike. Tags and history come beside it, in each backend's
/// own form ([`IntoRecord`]).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct VideoRow {
    pub video_id: Uuid,
    pub platform: String,
    pub external_id: String,
    pub url: String,
    pub title: Option<String>,
    pub thumbnail_url: Option<String>,
    pub author_username: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub tracking_started_at: DateTime<Utc>,
    pub tracking_ends_at: DateTime<Utc>,
    pub gone: bool,
    pub failures: i64,
    pub notes: Option<String>,
    pub budget: Option<i64>,
    pub campaign: Option<String>,
    pub video_status: String,
    pub workflow_status: String,
    pub ecpm: Option<f64>,
    /// The tracked video's revision.
    pub revision: i64,
    /// The catalog video's revision.
    pub catalog_revision: i64,
}

pub(crate) fn video_state(
    gone: bool,
    failures: i64,
    ends: DateTime<Utc>,
    now: DateTime<Utc>,
) -> VideoState {
    if gone || failures >= FAILING_AFTER_FAILURES {
        VideoState::Failed
    } else if ends <= now {
        VideoState::Completed
    } else {
        VideoState::Active
    }
}

/// A backend's row of a video record ([`crate::sql::Dialect::RecordRow`]):
/// what it selects and how it becomes a record.
pub(crate) trait IntoRecord {
    /// What a video record selects: a tracked video `tv` joined with its
    /// catalog row `pv` ([`record_head`]), its tags and its in-window history.
    const COLUMNS: &'static str;

    /// What a record's `FROM` joins beyond `tv` and `pv`.
    const JOIN: &'static str = "";

    /// The record it holds, its state as at `now`.
    fn into_record(self, now: DateTime<Utc>) -> Result<VideoRecord, StoreError>;
}

impl VideoRow {
    /// The record, from these columns, the video's tag names and its
    /// in-window readings (both in any order).
    pub(crate) fn into_record(
        self,
        mut tags: Vec<String>,
        mut history: Vec<Observation>,
        now: DateTime<Utc>,
    ) -> Result<VideoRecord, StoreError> {
        tags.sort_by_key(|t| tag_key(t));
        history.sort_by_key(|o| o.captured_at);
        let last = history.last();
        Ok(VideoRecord {
            video_id: VideoId(self.video_id),
            platform: parse_platform(&self.platform)?,
            external_id: self.external_id,
            url: self.url,
            title: self.title,
            thumbnail_url: self.thumbnail_url,
            author_username: self.author_username,
            published_at: self.published_at,
            latest: last.map(|o| o.counters).unwrap_or_default(),
            stats_updated_at: last.map(|o| o.captured_at),
            created_at: self.created_at,
            tracking_started_at: self.tracking_started_at,
            tracking_ends_at: self.tracking_ends_at,
            state: video_state(self.gone, self.failures, self.tracking_ends_at, now),
            notes: self.notes,
            budget: self.budget,
            campaign: self.campaign,
            video_status: VideoStatus::parse(&self.video_status)
                .ok_or_else(|| corrupt(format!("video_status `{}`", self.video_status)))?,
            workflow_status: WorkflowStatus::parse(&self.workflow_status)
                .ok_or_else(|| corrupt(format!("workflow_status `{}`", self.workflow_status)))?,
            ecpm: self.ecpm,
            tags,
            history,
            stamp: RecordStamp {
                video_id: VideoId(self.video_id),
                revision: self.revision,
                catalog_revision: self.catalog_revision,
            },
        })
    }
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct DueRow {
    pub id: i64,
    pub platform: String,
    pub external_id: String,
    pub tracking_started_at: DateTime<Utc>,
    pub refresh_until: DateTime<Utc>,
    pub failures: i64,
    pub lease_token: Uuid,
}

impl TryFrom<DueRow> for DueVideo {
    type Error = StoreError;
    fn try_from(r: DueRow) -> Result<Self, StoreError> {
        Ok(DueVideo {
            id: r.id,
            platform: parse_platform(&r.platform)?,
            external_id: r.external_id,
            tracking_started_at: r.tracking_started_at,
            refresh_until: r.refresh_until,
            failures: r.failures,
            lease_token: r.lease_token,
        })
    }
}

/// A usage row: day, requests, successes, errors, response ms total, credits, keys.
pub(crate) type UsageRow = (chrono::NaiveDate, i64, i64, i64, i64, i64, i64);

pub(crate) fn usage_day(
    (day, total, ok, errors, ms, credits, keys): UsageRow,
) -> crate::usage::UsageDay {
    crate::usage::UsageDay {
        day,
        total_requests: total,
        successful_requests: ok,
        error_requests: errors,
        credits_used: credits,
        avg_response_time_ms: if total > 0 {
            ms as f64 / total as f64
        } else {
            0.0
        },
        unique_api_keys: keys,
    }
}

/// The spelling of a listing state filter in SQL.
pub(crate) fn state_name(state: VideoState) -> &'static str {
    match state {
        VideoState::Active => "active",
        VideoState::Completed => "completed",
        VideoState::Failed => "failed",
    }
}

/// The listing's ORDER BY: the sort key with nulls last, then the id as
/// tiebreaker; `gain` names the column a gained sort orders by.
pub(crate) fn list_order(query: &crate::videos::ListQuery, gain: &str) -> String {
    use crate::videos::{SortKey, SortOrder};
    let column = match query.sort {
        SortKey::CreatedAt => "tv.created_at",
        SortKey::Views => "pv.views",
        SortKey::Likes => "pv.likes",
        SortKey::Comments => "pv.comments",
        SortKey::UpdatedAt => "pv.stats_updated_at",
        SortKey::PublishedAt => "tv.published_at",
        SortKey::Gained(_) => gain,
    };
    let dir = match query.order {
        SortOrder::Asc => "ASC",
        SortOrder::Desc => "DESC",
    };
    // `created_at` is never null: without `NULLS LAST` the order is the
    // index's (organization_id, created_at, id), read without a sort.
    if query.sort == SortKey::CreatedAt {
        format!("{column} {dir}, tv.id {dir}")
    } else {
        format!("{column} {dir} NULLS LAST, tv.id {dir}")
    }
}

/// The columns of an [`AccountRow`]: a tracked account `ta` joined with its
/// creator `c` (LEFT JOINs leave them all NULL).
pub(crate) const ACCOUNT_COLUMNS: &str = "
    ta.id AS tracked_account_id, c.id AS creator_id, c.platform AS account_platform,
    c.channel_id, c.username AS account_username, c.display_name, c.avatar_url,
    c.follower_count, c.last_fetched_at, ta.is_active, ta.initial_videos_count AS account_initial,
    ta.daily_videos_count, ta.campaign, ta.ecpm, ta.last_scraped_at, ta.discovery_note";

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

/// The readings of catalog video `pv` that tracking `tv`'s organization sees
/// inside its window: the platform's, and its own imports at instants the
/// platform has none. One SQL text for both backends' record reads, as a
/// macro so it can be `concat!`ed into their constant statements.
macro_rules! visible_readings {
    () => {
        "(SELECT captured_at, views, likes, comments, reposts, saves
            FROM observations
           WHERE platform_video_id = pv.id
             AND captured_at >= tv.tracking_started_at AND captured_at <= tv.tracking_ends_at
          UNION ALL
          SELECT i.captured_at, i.views, i.likes, i.comments, i.reposts, i.saves
            FROM imported_observations i
           WHERE i.organization_id = tv.organization_id AND i.platform_video_id = pv.id
             AND i.captured_at >= tv.tracking_started_at AND i.captured_at <= tv.tracking_ends_at
             AND NOT EXISTS (SELECT 1 FROM observations x
                              WHERE x.platform_video_id = pv.id AND x.captured_at = i.captured_at))"
    };
}
pub(crate) use visible_readings;

/// The columns of a video record both backends read alike: a tracked video
/// `tv` joined with its catalog row `pv` (then each backend adds its tags and
/// history, see [`IntoRecord::COLUMNS`]). A macro so it can be `concat!`ed.
macro_rules! record_head {
    () => {
        "
    tv.id AS video_id, pv.platform, pv.external_id, coalesce(tv.own_url, pv.url) AS url,
    coalesce(pv.title, tv.own_title) AS title, pv.thumbnail_url,
    coalesce(pv.author_username, tv.own_author) AS author_username,
    coalesce(pv.published_at, tv.own_published_at) AS published_at,
    tv.created_at, tv.tracking_started_at,
    tv.tracking_ends_at, pv.gone_at IS NOT NULL AS gone, pv.failures, tv.notes, tv.budget,
    tv.campaign, tv.video_status, tv.workflow_status, tv.ecpm, tv.revision,
    pv.revision AS catalog_revision,"
    };
}
pub(crate) use record_head;
