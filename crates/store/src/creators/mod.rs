//! Creators: track jobs (the public resource and the queue at once), the
//! organization's tracked accounts, and their daily discovery of new videos.

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use uuid::Uuid;
use vidpulse_domain::names::Handle;
use vidpulse_domain::{ApiKeyId, OrgId, Platform, VideoRef};

use crate::StoreError;
use crate::videos::Page;

/// State of a creator-track job (docs/api.md, "Creators").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    /// Waiting for a worker.
    Queued,
    /// A worker has it.
    Processing,
    /// Done: the creator is tracked.
    Succeeded,
    /// Done: it failed (`error_code` says why).
    Error,
}

impl JobStatus {
    /// The status as the API and the database spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Processing => "processing",
            JobStatus::Succeeded => "succeeded",
            JobStatus::Error => "error",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "queued" => JobStatus::Queued,
            "processing" => JobStatus::Processing,
            "succeeded" => JobStatus::Succeeded,
            "error" => JobStatus::Error,
            _ => return None,
        })
    }
}

/// The error code of a job closed by the timeout sweep.
pub const JOB_TIMEOUT: &str = "JOB_TIMEOUT";

/// A request to start tracking a creator.
#[derive(Debug, Clone)]
pub struct NewCreatorJob {
    /// The organization.
    pub organization_id: OrgId,
    /// The key that asked (for the ledger of the backfill).
    pub api_key_id: Option<ApiKeyId>,
    /// The request id (for the ledger of the backfill).
    pub request_id: String,
    /// Platform.
    pub platform: Platform,
    /// The handle, without `@`, as the caller spelled it.
    pub username: String,
    /// Most recent videos to track when the job succeeds.
    pub initial_videos_count: i64,
    /// Now.
    pub now: DateTime<Utc>,
    /// Fetch the initial videos again for a creator the organization tracks
    /// actively (dashboard: fetch-initial-videos) instead of refusing it as
    /// already tracked; the creator cap does not apply.
    pub refetch: bool,
    /// Open the tracked account at once, with these settings, and let the
    /// job backfill it (dashboard: blogger/add and add-from-tracking).
    pub setup: Option<AccountSetup>,
}

/// The tracked account a dashboard add opens when its job is queued: active
/// at once (so it is listed and counted), its videos backfilled by the job,
/// its daily discovery started when the backfill succeeds.
#[derive(Debug, Clone)]
pub struct AccountSetup {
    /// The creator.
    pub creator: SetupCreator,
    /// New videos per day at most (`None`: the service default, or the
    /// account's own when it is reactivated).
    pub daily_videos_count: Option<i64>,
    /// Campaign its videos get (`None` keeps a reactivated account's).
    pub campaign: Option<String>,
    /// Tags its videos get, ids of the organization's tags; `None` keeps a
    /// reactivated account's.
    pub tag_ids: Option<Vec<Uuid>>,
}

impl AccountSetup {
    /// The platform's id of the account, when it was just read.
    pub fn channel_id(&self) -> Option<&str> {
        match &self.creator {
            SetupCreator::Profile(p) => Some(&p.channel_id),
            SetupCreator::Known(_) => None,
        }
    }
}

/// Where the creator of an [`AccountSetup`] comes from.
#[derive(Debug, Clone)]
pub enum SetupCreator {
    /// Just read from the platform: the catalog row is inserted or refreshed.
    Profile(CreatorProfile),
    /// A catalog row the organization knows (no platform call).
    Known(Uuid),
}

/// What a change of a tracked account's state did
/// ([`CreatorStore::set_account_active`], an update of a blogger).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountChange {
    /// Written.
    Done,
    /// The organization has no such tracked account; nothing written.
    NotFound,
    /// Resuming it would pass the plan's creator cap: `in_use` places of
    /// `cap` are taken (active accounts and jobs for new creators); nothing
    /// written.
    CreatorCapReached {
        /// The organization's creator cap.
        cap: i64,
        /// The places taken.
        in_use: i64,
    },
}

/// What [`CreatorStore::start_creator_job`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum StartJob {
    /// The job is queued.
    Queued(Box<CreatorJob>),
    /// The organization tracks this creator already, actively.
    AlreadyTracked {
        /// Its tracked account.
        tracked_account_id: Uuid,
    },
    /// A job for this creator is in flight.
    InFlight {
        /// That job.
        job_id: Uuid,
        /// Whether the creator is a deactivated one (the job reactivates it).
        reactivation: bool,
    },
    /// Tracking one more creator would pass the organization's cap.
    CreatorCapReached {
        /// The cap.
        cap: i64,
        /// Active creators plus jobs in flight.
        in_use: i64,
    },
    /// The backfill would pass the tracked-video quota.
    QuotaExceeded {
        /// The quota.
        quota: i64,
        /// Videos tracked now plus the backfills of jobs in flight.
        in_use: i64,
        /// Videos this job would add.
        requested: i64,
    },
}

/// A creator-track job as its organization sees it, with the tracked account
/// it produced once it succeeded.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatorJob {
    /// Its id.
    pub id: Uuid,
    /// Status.
    pub status: JobStatus,
    /// Platform.
    pub platform: Platform,
    /// The username as the request gave it (without `@`).
    pub username: String,
    /// Videos to backfill.
    pub initial_videos_count: i64,
    /// When it was queued.
    pub created_at: DateTime<Utc>,
    /// When a worker first took it.
    pub started_at: Option<DateTime<Utc>>,
    /// When it ended.
    pub completed_at: Option<DateTime<Utc>>,
    /// Whether it reactivated a deactivated creator (once succeeded).
    pub is_reactivation: Option<bool>,
    /// Error code (status `error`).
    pub error_code: Option<String>,
    /// Error message (status `error`).
    pub error_message: Option<String>,
    /// The tracked account (once succeeded).
    pub account: Option<TrackedAccount>,
}

/// A creator as one organization tracks it.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackedAccount {
    /// The organization's tracked account.
    pub tracked_account_id: Uuid,
    /// The creator (shared catalog id; the API's `blogger_id`).
    pub creator_id: Uuid,
    /// Platform.
    pub platform: Platform,
    /// The platform's id of the account.
    pub channel_id: String,
    /// The handle, without `@`, as the platform spells it.
    pub username: String,
    /// Display name.
    pub display_name: Option<String>,
    /// Avatar URL.
    pub avatar_url: Option<String>,
    /// Followers; `None` when the platform does not say.
    pub follower_count: Option<i64>,
    /// When the platform profile was last read.
    pub last_fetched_at: DateTime<Utc>,
    /// Whether the organization tracks it now.
    pub is_active: bool,
    /// Videos backfilled when tracking started.
    pub initial_videos_count: i64,
    /// New videos tracked per day at most (`None`: the service default).
    pub daily_videos_count: Option<i64>,
    /// Campaign label.
    pub campaign: Option<String>,
    /// eCPM.
    pub ecpm: Option<f64>,
    /// When its videos were last listed.
    pub last_scraped_at: Option<DateTime<Utc>>,
    /// Why the last discovery skipped videos, if it did.
    pub discovery_note: Option<String>,
    /// Budget its new videos get.
    pub budget_per_video: Option<i64>,
}

/// A job a worker has claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedJob {
    /// The job.
    pub id: Uuid,
    /// The organization.
    pub organization_id: OrgId,
    /// The key that asked.
    pub api_key_id: Option<ApiKeyId>,
    /// The request that asked.
    pub request_id: String,
    /// Platform.
    pub platform: Platform,
    /// Username (without `@`).
    pub username: String,
    /// Videos to backfill.
    pub initial_videos_count: i64,
    /// Proves the claim when finishing.
    pub lease_token: Uuid,
    /// Claims so far, this one included.
    pub attempts: i64,
}

/// A platform account as read from the platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatorProfile {
    /// Platform.
    pub platform: Platform,
    /// The platform's id of the account.
    pub channel_id: String,
    /// Handle without `@`.
    pub username: String,
    /// Display name.
    pub display_name: Option<String>,
    /// Avatar URL.
    pub avatar_url: Option<String>,
    /// Followers.
    pub follower_count: Option<i64>,
}

/// Videos to start tracking for a creator, charged like tracked videos.
#[derive(Debug, Clone)]
pub struct CreatorVideos {
    /// The videos, newest first; those past the quota are skipped.
    pub videos: Vec<VideoRef>,
    /// How long tracking lasts.
    pub window: Duration,
    /// Credits per newly tracked video.
    pub credits_per_video: i64,
}

/// A successful job, to record.
#[derive(Debug, Clone)]
pub struct JobSuccess {
    /// The job.
    pub job_id: Uuid,
    /// Its claim.
    pub lease_token: Uuid,
    /// The account as the platform describes it.
    pub profile: CreatorProfile,
    /// The backfill.
    pub backfill: CreatorVideos,
    /// Now.
    pub now: DateTime<Utc>,
    /// The first daily discovery.
    pub next_discovery_at: DateTime<Utc>,
}

/// What recording a successful job did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFinished {
    /// The tracked account.
    pub tracked_account_id: Uuid,
    /// Whether a deactivated account was reactivated.
    pub is_reactivation: bool,
    /// Videos newly tracked.
    pub videos_tracked: usize,
    /// Videos skipped because the quota was full.
    pub videos_skipped: usize,
}

/// An account whose daily discovery is due, claimed by a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueDiscovery {
    /// The tracked account.
    pub tracked_account_id: Uuid,
    /// The organization.
    pub organization_id: OrgId,
    /// The account on the platform.
    pub profile: CreatorProfile,
    /// New videos to track at most.
    pub daily_videos_count: Option<i64>,
    /// Videos published before this are not new.
    pub discovered_since: DateTime<Utc>,
    /// Proves the claim.
    pub lease_token: Uuid,
}

/// The result of one discovery, to record.
#[derive(Debug, Clone)]
pub struct DiscoveryResult {
    /// The tracked account.
    pub tracked_account_id: Uuid,
    /// Its claim.
    pub lease_token: Uuid,
    /// The profile as read now (`None` when the read failed).
    pub profile: Option<CreatorProfile>,
    /// New videos to track, newest first.
    pub new_videos: CreatorVideos,
    /// Now.
    pub now: DateTime<Utc>,
    /// The next discovery.
    pub next_discovery_at: DateTime<Utc>,
    /// Why this run could not do its work, if it could not.
    pub note: Option<String>,
}

/// What recording a discovery did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiscoveryOutcome {
    /// Videos newly tracked.
    pub videos_tracked: usize,
    /// Videos skipped because the quota was full.
    pub videos_skipped: usize,
}

/// What an organization's ask to read one of its creators now found
/// ([`CreatorStore::ask_discovery`]).
#[derive(Debug, Clone, PartialEq)]
pub enum DiscoveryAsk {
    /// The organization has no such tracked account.
    NotFound,
    /// The account is paused: it is not read.
    Paused,
    /// The organization asked within the cooldown already: ask again at
    /// `retry_at`.
    TooSoon {
        /// When an ask will be taken.
        retry_at: DateTime<Utc>,
    },
    /// A discovery of the account is under way (the daily one, or another
    /// ask): ask again in a moment.
    InFlight,
    /// Read it under this claim, then [`CreatorStore::save_manual_discovery`]
    /// or [`CreatorStore::release_discovery`].
    Claimed(DueDiscovery),
}

/// A discovery read on an organization's ask, to record.
#[derive(Debug, Clone)]
pub struct ManualDiscovery {
    /// The tracked account.
    pub tracked_account_id: Uuid,
    /// Its claim.
    pub lease_token: Uuid,
    /// The profile as read now.
    pub profile: CreatorProfile,
    /// New videos to track, newest first.
    pub new_videos: CreatorVideos,
    /// The key that asked (for the ledger of the videos tracked).
    pub api_key_id: Option<ApiKeyId>,
    /// The request that asked (for the ledger).
    pub request_id: String,
    /// Now.
    pub now: DateTime<Utc>,
}

/// Persistence of creators and their jobs.
#[async_trait]
pub trait CreatorStore {
    /// Queues a job unless the creator is tracked, a job is in flight or a cap
    /// would be passed; all checked in one transaction, nothing written
    /// otherwise. The in-flight rule is also a unique index.
    async fn start_creator_job(&self, job: &NewCreatorJob) -> Result<StartJob, StoreError>;

    /// One job of the organization; `None` for another organization's.
    async fn creator_job(&self, org: OrgId, job_id: Uuid)
    -> Result<Option<CreatorJob>, StoreError>;

    /// Claims the oldest queued job, or a processing one whose lease ran out
    /// (its worker died), moving it to `processing`.
    async fn claim_creator_job(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<ClaimedJob>, StoreError>;

    /// Records success: creator upserted, account created or reactivated,
    /// backfill tracked and charged, job `succeeded`, in one transaction.
    /// `None` when the claim was lost (swept or retaken): nothing written.
    async fn finish_creator_job(
        &self,
        success: &JobSuccess,
    ) -> Result<Option<JobFinished>, StoreError>;

    /// Ends the job in `error`; false when the claim was lost.
    async fn fail_creator_job(
        &self,
        job_id: Uuid,
        lease_token: Uuid,
        code: &str,
        message: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Gives the job back to be claimed again from `retry_at` (a transient
    /// failure); false when the claim was lost.
    async fn retry_creator_job(
        &self,
        job_id: Uuid,
        lease_token: Uuid,
        retry_at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Closes jobs that started (or, never started, were queued) before
    /// `now - timeout` with [`JOB_TIMEOUT`]; returns how many.
    async fn sweep_creator_jobs(
        &self,
        now: DateTime<Utc>,
        timeout: Duration,
    ) -> Result<u64, StoreError>;

    /// The organization's tracked account of `username` (any case, without
    /// `@`), on `platform` when given (the most recently created otherwise).
    async fn tracked_account_by_username(
        &self,
        org: OrgId,
        platform: Option<Platform>,
        username: &Handle,
    ) -> Result<Option<TrackedAccount>, StoreError>;

    /// The organization's tracked account `tracked_account_id`; `None` for
    /// another organization's, or none.
    async fn tracked_account(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
    ) -> Result<Option<TrackedAccount>, StoreError>;

    /// Activates or deactivates a tracked account. Deactivating stops
    /// discovery (its videos keep tracking); resuming a paused account takes
    /// a place under the creator cap, refused when none is left.
    async fn set_account_active(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
        active: bool,
        now: DateTime<Utc>,
    ) -> Result<AccountChange, StoreError>;

    /// Organization `org` asks to read its tracked account now (profile and
    /// new videos, as a daily discovery does): refused when the account is
    /// paused, when the organization asked within `cooldown`, or while a
    /// discovery of it is under way; otherwise claimed for `lease`, the
    /// claim the daily discovery takes ([`DiscoveryAsk`]).
    async fn ask_discovery(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
        now: DateTime<Utc>,
        cooldown: Duration,
        lease: Duration,
    ) -> Result<DiscoveryAsk, StoreError>;

    /// Records a discovery read on an ask, in one transaction: the profile,
    /// the new videos tracked as the quota allows and charged, the ask (the
    /// cooldown runs from it), the claim freed; the daily schedule is left
    /// as it is. `None` when the claim was lost: nothing written.
    async fn save_manual_discovery(
        &self,
        read: &ManualDiscovery,
    ) -> Result<Option<DiscoveryOutcome>, StoreError>;

    /// Frees an ask's claim without writing anything (the platform failed):
    /// the ask does not count toward the cooldown.
    async fn release_discovery(
        &self,
        tracked_account_id: Uuid,
        lease_token: Uuid,
    ) -> Result<(), StoreError>;

    /// Claims active accounts whose discovery is due.
    async fn claim_due_discoveries(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueDiscovery>, StoreError>;

    /// Records a discovery: profile refreshed, new videos tracked as the quota
    /// allows, next discovery set. Nothing is written when the claim was lost.
    async fn finish_discovery(
        &self,
        result: &DiscoveryResult,
    ) -> Result<DiscoveryOutcome, StoreError>;

    /// A page of the organization's tracked accounts, most recently tracked
    /// first, with how many match in all.
    async fn tracked_accounts(
        &self,
        org: OrgId,
        query: &AccountQuery,
    ) -> Result<Page<TrackedAccount>, StoreError>;

    /// The totals of these tracked accounts of the organization, by tracked
    /// account id (ids of other organizations are left out); follower gains
    /// end on `today`.
    async fn creator_totals(
        &self,
        org: OrgId,
        tracked_account_ids: &[Uuid],
        today: NaiveDate,
    ) -> Result<HashMap<Uuid, CreatorTotals>, StoreError>;

    /// The follower gains of these catalog creators ending on `today`, by
    /// creator id (every id asked for that exists).
    async fn follower_gains(
        &self,
        creator_ids: &[Uuid],
        today: NaiveDate,
    ) -> Result<HashMap<Uuid, FollowerGains>, StoreError>;

    /// The recorded follower days of the organization's tracked account from
    /// `from` to `to` (inclusive), ascending; `None` when the organization
    /// has no such account.
    async fn follower_history(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Option<Vec<FollowerDay>>, StoreError>;
}

/// The track batch of a creator's backfill or discovery.
pub(crate) fn creator_batch(
    org: OrgId,
    api_key_id: Option<Uuid>,
    request_id: String,
    videos: &CreatorVideos,
    now: DateTime<Utc>,
) -> crate::videos::TrackBatch {
    crate::videos::TrackBatch {
        organization_id: org,
        api_key_id: api_key_id.map(vidpulse_domain::ApiKeyId),
        request_id,
        now,
        window: videos.window,
        credits_per_video: videos.credits_per_video,
        videos: videos.videos.clone(),
        campaign: None,
        budget: None,
        account: None,
    }
}

pub(crate) fn timeout_message(timeout: Duration) -> String {
    format!(
        "The job ran longer than {} seconds and was closed; track the creator again to retry",
        timeout.num_seconds()
    )
}

/// The note a discovery at `now` leaves on its account: why it could not do
/// its work (`note`), or how many new videos the full quota `skipped`.
pub(crate) fn discovery_note(
    note: Option<&str>,
    skipped: usize,
    now: DateTime<Utc>,
) -> Option<String> {
    match (note, skipped) {
        (Some(note), _) => Some(note.to_owned()),
        (None, 0) => None,
        (None, n) => Some(format!(
            "tracked-video quota full: {n} new video(s) skipped on {}",
            now.date_naive()
        )),
    }
}

mod accounts;
mod followers;
mod listing;
mod refresh;
mod rows;
mod store;

pub use followers::{FollowerDay, FollowerGains};
pub use listing::{AccountQuery, CreatorTotals};

pub(crate) use accounts::{
    creators_in_use, locked_limits, open_account, replace_account_tags, set_active, upsert_creator,
};
