//! Creators: track jobs (the public resource and the queue at once), the
//! organization's tracked accounts, and their daily discovery of new videos.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use vidpulse_domain::{ApiKeyId, OrgId, Platform, VideoRef};

use sqlx::AssertSqlSafe;
use vidpulse_domain::Plan;
use vidpulse_domain::names::handle_key;
use vidpulse_domain::plan::Limits;

use crate::StoreError;
use crate::rows::{
    ACCOUNT_COLUMNS, AccountRow, ClaimedJobRow, DUE_DISCOVERY_COLUMNS, DueDiscoveryRow,
    JOB_COLUMNS, JobRow,
};
use crate::sql::{Dialect, SqlStore, Tx};
use crate::videos::{QuotaPolicy, TrackBatch, TrackOutcome, track_in, videos_in_use};

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
        username: &str,
    ) -> Result<Option<TrackedAccount>, StoreError>;

    /// Activates or deactivates a tracked account; false when unknown to the
    /// organization. Deactivating stops discovery; its videos keep tracking.
    async fn set_account_active(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
        active: bool,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

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

pub(crate) fn discovery_note(result: &DiscoveryResult, skipped: usize) -> Option<String> {
    match (&result.note, skipped) {
        (Some(note), _) => Some(note.clone()),
        (None, 0) => None,
        (None, n) => Some(format!(
            "tracked-video quota full: {n} new video(s) skipped on {}",
            result.now.date_naive()
        )),
    }
}

const IN_FLIGHT: &str = "status IN ('queued', 'processing')";

#[async_trait]
impl<D: Dialect> CreatorStore for SqlStore<D> {
    async fn start_creator_job(&self, job: &NewCreatorJob) -> Result<StartJob, StoreError> {
        let mut tx = self.write_tx().await?;
        let (plan, quota, cap): (String, Option<i64>, Option<i64>) =
            D::query(AssertSqlSafe(format!(
                "SELECT plan, video_quota, creator_cap FROM organizations WHERE id = $1 {org_lock}",
                org_lock = D::ORG_LOCK
            )))
            .bind(job.organization_id.0)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotFound)?;
        let plan: Plan = plan
            .parse()
            .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
        let limits = Limits::of(plan, quota, cap);
        let key = handle_key(&job.username);

        let account: Option<(Uuid, bool)> = D::query(
            "SELECT ta.id, ta.is_active FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.organization_id = $1 AND c.platform = $2
               AND (c.username_key = $3 OR c.channel_id = $4)
             ORDER BY ta.is_active DESC LIMIT 1",
        )
        .bind(job.organization_id.0)
        .bind(job.platform.id())
        .bind(&key)
        .bind(job.setup.as_ref().and_then(AccountSetup::channel_id))
        .fetch_optional(&mut *tx)
        .await?;
        let refetching = job.refetch && matches!(account, Some((_, true)));
        if let Some((id, true)) = account
            && !refetching
        {
            return Ok(StartJob::AlreadyTracked {
                tracked_account_id: id,
            });
        }
        let in_flight: Option<Uuid> = D::query(AssertSqlSafe(format!(
            "SELECT id FROM creator_jobs
             WHERE organization_id = $1 AND platform = $2 AND username_key = $3 AND {IN_FLIGHT}"
        )))
        .bind(job.organization_id.0)
        .bind(job.platform.id())
        .bind(&key)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        if let Some(job_id) = in_flight {
            return Ok(StartJob::InFlight {
                job_id,
                reactivation: account.is_some(),
            });
        }

        let active: i64 = D::query(
            "SELECT count(*) FROM tracked_accounts WHERE organization_id = $1 AND is_active",
        )
        .bind(job.organization_id.0)
        .fetch_scalar(&mut *tx)
        .await?;
        let (pending_jobs, pending_videos): (i64, i64) = D::query(AssertSqlSafe(format!(
            "SELECT CAST(coalesce(sum(CASE WHEN tracked_account_id IS NULL THEN 1 ELSE 0 END), 0) AS BIGINT),
                    CAST(coalesce(sum(initial_videos_count), 0) AS BIGINT)
             FROM creator_jobs WHERE organization_id = $1 AND {IN_FLIGHT}"
        )))
        .bind(job.organization_id.0)
        .fetch_one(&mut *tx)
        .await?;
        // Jobs of an account that exists count as that account (active), not
        // as a creator to come. A refetch tracks no new creator: only the
        // videos count against limits.
        if !refetching && active + pending_jobs + 1 > limits.creator_cap {
            return Ok(StartJob::CreatorCapReached {
                cap: limits.creator_cap,
                in_use: active + pending_jobs,
            });
        }
        let videos = videos_in_use(&mut tx, job.organization_id, job.now).await?;
        if videos + pending_videos + job.initial_videos_count > limits.video_quota {
            return Ok(StartJob::QuotaExceeded {
                quota: limits.video_quota,
                in_use: videos + pending_videos,
                requested: job.initial_videos_count,
            });
        }

        let account_id = match &job.setup {
            Some(setup) => Some(
                open_account(
                    &mut tx,
                    job.organization_id.0,
                    setup,
                    job.initial_videos_count,
                    job.now,
                )
                .await?,
            ),
            None if refetching => account.map(|(id, _)| id),
            None => None,
        };
        let id = Uuid::now_v7();
        D::query(
            "INSERT INTO creator_jobs
               (id, organization_id, api_key_id, request_id, platform, username, username_key,
                initial_videos_count, status, created_at, tracked_account_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9, $10)",
        )
        .bind(id)
        .bind(job.organization_id.0)
        .bind(job.api_key_id.map(|k| k.0))
        .bind(&job.request_id)
        .bind(job.platform.id())
        .bind(&job.username)
        .bind(&key)
        .bind(job.initial_videos_count)
        .bind(job.now)
        .bind(account_id)
        .execute(&mut *tx)
        .await?;
        let created = load_job(&mut tx, job.organization_id, id)
            .await?
            .ok_or(StoreError::NotFound)?;
        tx.commit().await?;
        Ok(StartJob::Queued(Box::new(created)))
    }

    async fn creator_job(
        &self,
        org: OrgId,
        job_id: Uuid,
    ) -> Result<Option<CreatorJob>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        let row = D::query(AssertSqlSafe(job_sql()))
            .bind(job_id)
            .bind(org.0)
            .fetch_optional::<JobRow>(&mut *conn)
            .await?;
        row.map(CreatorJob::try_from).transpose()
    }

    async fn claim_creator_job(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        let mut tx = self.write_tx().await?;
        let row = D::query(AssertSqlSafe(format!(
            "UPDATE creator_jobs SET status = 'processing', started_at = coalesce(started_at, $1),
               lease_until = $2, lease_token = $3, attempts = attempts + 1
             WHERE id = (
               SELECT id FROM creator_jobs
               WHERE status = 'queued'
                  OR (status = 'processing' AND (lease_until IS NULL OR lease_until <= $1))
               ORDER BY created_at LIMIT 1 {claim_lock})
             RETURNING id, organization_id, api_key_id, request_id, platform, username,
                       initial_videos_count, lease_token, attempts",
            claim_lock = D::CLAIM_LOCK
        )))
        .bind(now)
        .bind(now + lease)
        .bind(Uuid::new_v4())
        .fetch_optional::<ClaimedJobRow>(&mut *tx)
        .await?;
        tx.commit().await?;
        row.map(ClaimedJob::try_from).transpose()
    }

    async fn finish_creator_job(
        &self,
        success: &JobSuccess,
    ) -> Result<Option<JobFinished>, StoreError> {
        let mut tx = self.write_tx().await?;
        let job: Option<(Uuid, Option<Uuid>, String, i64)> = D::query(AssertSqlSafe(format!(
            "SELECT organization_id, api_key_id, request_id, initial_videos_count FROM creator_jobs
             WHERE id = $1 AND lease_token = $2 AND status = 'processing' {row_lock}",
            row_lock = D::ROW_LOCK
        )))
        .bind(success.job_id)
        .bind(success.lease_token)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((org, api_key_id, request_id, initial)) = job else {
            return Ok(None);
        };
        let creator_id = upsert_creator(&mut tx, &success.profile, success.now).await?;
        let account: Option<(Uuid, bool)> = D::query(
            "SELECT id, is_active FROM tracked_accounts WHERE organization_id = $1 AND creator_id = $2",
        )
        .bind(org)
        .bind(creator_id)
        .fetch_optional(&mut *tx)
        .await?;
        let (account_id, is_reactivation) = match account {
            None => {
                let id = Uuid::now_v7();
                D::query(
                    "INSERT INTO tracked_accounts
                       (id, organization_id, creator_id, is_active, initial_videos_count,
                        last_scraped_at, discovered_since, next_discovery_at, created_at, updated_at)
                     VALUES ($1, $2, $3, TRUE, $4, $5, $5, $6, $5, $5)",
                )
                .bind(id)
                .bind(org)
                .bind(creator_id)
                .bind(initial)
                .bind(success.now)
                .bind(success.next_discovery_at)
                .execute(&mut *tx)
                .await?;
                (id, false)
            }
            Some((id, was_active)) => {
                D::query(
                    "UPDATE tracked_accounts SET is_active = TRUE, initial_videos_count = $2,
                       last_scraped_at = $3, discovered_since = $3, next_discovery_at = $4,
                       discovery_note = NULL, updated_at = $3
                     WHERE id = $1",
                )
                .bind(id)
                .bind(initial)
                .bind(success.now)
                .bind(success.next_discovery_at)
                .execute(&mut *tx)
                .await?;
                (id, !was_active)
            }
        };
        let batch = creator_batch(
            OrgId(org),
            api_key_id,
            request_id,
            &success.backfill,
            success.now,
        );
        let batch = with_account_defaults(&mut tx, batch, account_id).await?;
        let (videos_tracked, videos_skipped) =
            track_what_fits(&mut tx, &batch, "creator_backfill").await?;
        D::query(
            "UPDATE creator_jobs SET status = 'succeeded', completed_at = $2, lease_until = NULL,
               lease_token = NULL, tracked_account_id = $3, is_reactivation = $4
             WHERE id = $1",
        )
        .bind(success.job_id)
        .bind(success.now)
        .bind(account_id)
        .bind(is_reactivation)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(JobFinished {
            tracked_account_id: account_id,
            is_reactivation,
            videos_tracked,
            videos_skipped,
        }))
    }

    async fn fail_creator_job(
        &self,
        job_id: Uuid,
        lease_token: Uuid,
        code: &str,
        message: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = D::query(
            "UPDATE creator_jobs SET status = 'error', error_code = $3, error_message = $4,
               completed_at = $5, lease_until = NULL, lease_token = NULL
             WHERE id = $1 AND lease_token = $2 AND status = 'processing'",
        )
        .bind(job_id)
        .bind(lease_token)
        .bind(code)
        .bind(message)
        .bind(now)
        .execute(&mut *self.read().await?)
        .await?;
        Ok(done == 1)
    }

    async fn retry_creator_job(
        &self,
        job_id: Uuid,
        lease_token: Uuid,
        retry_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = D::query(
            "UPDATE creator_jobs SET lease_until = $3, lease_token = NULL
             WHERE id = $1 AND lease_token = $2 AND status = 'processing'",
        )
        .bind(job_id)
        .bind(lease_token)
        .bind(retry_at)
        .execute(&mut *self.read().await?)
        .await?;
        Ok(done == 1)
    }

    async fn sweep_creator_jobs(
        &self,
        now: DateTime<Utc>,
        timeout: Duration,
    ) -> Result<u64, StoreError> {
        let done = D::query(
            "UPDATE creator_jobs SET status = 'error', error_code = $3, error_message = $4,
               completed_at = $1, lease_until = NULL, lease_token = NULL
             WHERE (status = 'processing' AND started_at <= $2)
                OR (status = 'queued' AND created_at <= $2)",
        )
        .bind(now)
        .bind(now - timeout)
        .bind(JOB_TIMEOUT)
        .bind(timeout_message(timeout))
        .execute(&mut *self.read().await?)
        .await?;
        Ok(done)
    }

    async fn tracked_account_by_username(
        &self,
        org: OrgId,
        platform: Option<Platform>,
        username: &str,
    ) -> Result<Option<TrackedAccount>, StoreError> {
        let row = D::query(AssertSqlSafe(format!(
            "SELECT {ACCOUNT_COLUMNS} FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.organization_id = $1 AND c.username_key = $2
               AND ({platform} IS NULL OR c.platform = $3)
             ORDER BY ta.is_active DESC, ta.created_at DESC LIMIT 1",
            platform = D::typed("$3", "TEXT")
        )))
        .bind(org.0)
        .bind(handle_key(username))
        .bind(platform.map(|p| p.id()))
        .fetch_optional::<AccountRow>(&mut *self.read().await?)
        .await?;
        Ok(match row {
            Some(r) => r.into_account()?,
            None => None,
        })
    }

    async fn set_account_active(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
        active: bool,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = D::query(AssertSqlSafe(format!(
            "UPDATE tracked_accounts SET is_active = {p3_bool}, updated_at = $4,
               next_discovery_at = CASE WHEN {p3_bool} THEN coalesce(next_discovery_at, $4)
                                        ELSE next_discovery_at END
             WHERE id = $1 AND organization_id = $2",
            p3_bool = D::typed("$3", "BOOLEAN")
        )))
        .bind(tracked_account_id)
        .bind(org.0)
        .bind(active)
        .bind(now)
        .execute(&mut *self.read().await?)
        .await?;
        Ok(done == 1)
    }

    async fn claim_due_discoveries(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueDiscovery>, StoreError> {
        let mut tx = self.write_tx().await?;
        let token = Uuid::new_v4();
        D::query(AssertSqlSafe(format!(
            "UPDATE tracked_accounts SET discovery_lease_until = $2, discovery_lease_token = $3
             WHERE id IN (
               SELECT id FROM tracked_accounts
               WHERE is_active AND next_discovery_at IS NOT NULL AND next_discovery_at <= $1
                 AND (discovery_lease_until IS NULL OR discovery_lease_until <= $1)
               ORDER BY next_discovery_at LIMIT $4 {claim_lock})",
            claim_lock = D::CLAIM_LOCK
        )))
        .bind(now)
        .bind(now + lease)
        .bind(token)
        .bind(limit)
        .execute(&mut *tx)
        .await?;
        let rows = D::query(AssertSqlSafe(format!(
            "SELECT {DUE_DISCOVERY_COLUMNS} FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.discovery_lease_token = $1"
        )))
        .bind(token)
        .fetch_all::<DueDiscoveryRow>(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.into_iter().map(DueDiscovery::try_from).collect()
    }

    async fn finish_discovery(
        &self,
        result: &DiscoveryResult,
    ) -> Result<DiscoveryOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let claimed: Option<Uuid> = D::query(AssertSqlSafe(format!(
            "SELECT organization_id FROM tracked_accounts
             WHERE id = $1 AND discovery_lease_token = $2 {row_lock}",
            row_lock = D::ROW_LOCK
        )))
        .bind(result.tracked_account_id)
        .bind(result.lease_token)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        let Some(org) = claimed else {
            return Ok(DiscoveryOutcome::default());
        };
        if let Some(profile) = &result.profile {
            upsert_creator(&mut tx, profile, result.now).await?;
        }
        let batch = creator_batch(
            OrgId(org),
            None,
            format!("discovery:{}", result.tracked_account_id),
            &result.new_videos,
            result.now,
        );
        let batch = with_account_defaults(&mut tx, batch, result.tracked_account_id).await?;
        let (videos_tracked, videos_skipped) =
            track_what_fits(&mut tx, &batch, "creator_discovery").await?;
        let note = discovery_note(result, videos_skipped);
        let listed = result.profile.is_some();
        D::query(AssertSqlSafe(format!(
            "UPDATE tracked_accounts SET
               last_scraped_at = CASE WHEN {p3_bool} THEN $2 ELSE last_scraped_at END,
               discovered_since = CASE WHEN {p3_bool} THEN $2 ELSE discovered_since END,
               next_discovery_at = $4, discovery_note = $5,
               discovery_lease_until = NULL, discovery_lease_token = NULL, updated_at = $2
             WHERE id = $1",
            p3_bool = D::typed("$3", "BOOLEAN")
        )))
        .bind(result.tracked_account_id)
        .bind(result.now)
        .bind(listed)
        .bind(result.next_discovery_at)
        .bind(note)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(DiscoveryOutcome {
            videos_tracked,
            videos_skipped,
        })
    }
}

fn job_sql() -> String {
    format!(
        "SELECT {JOB_COLUMNS}, {ACCOUNT_COLUMNS} FROM creator_jobs j
         LEFT JOIN tracked_accounts ta ON ta.id = j.tracked_account_id
         LEFT JOIN creators c ON c.id = ta.creator_id
         WHERE j.id = $1 AND j.organization_id = $2"
    )
}

async fn load_job<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    id: Uuid,
) -> Result<Option<CreatorJob>, StoreError> {
    let row = D::query(AssertSqlSafe(job_sql()))
        .bind(id)
        .bind(org.0)
        .fetch_optional::<JobRow>(&mut **tx)
        .await?;
    row.map(CreatorJob::try_from).transpose()
}

/// Inserts or refreshes the catalog row of a platform account; returns its id.
async fn upsert_creator<D: Dialect>(
    tx: &mut Tx<D>,
    p: &CreatorProfile,
    now: DateTime<Utc>,
) -> Result<Uuid, StoreError> {
    D::query(
        "INSERT INTO creators
           (id, platform, channel_id, username, username_key, display_name, avatar_url,
            follower_count, last_fetched_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
         ON CONFLICT (platform, channel_id) DO UPDATE SET
           username = excluded.username, username_key = excluded.username_key,
           display_name = coalesce(excluded.display_name, creators.display_name),
           avatar_url = coalesce(excluded.avatar_url, creators.avatar_url),
           follower_count = coalesce(excluded.follower_count, creators.follower_count),
           last_fetched_at = excluded.last_fetched_at
         RETURNING id",
    )
    .bind(Uuid::now_v7())
    .bind(p.platform.id())
    .bind(&p.channel_id)
    .bind(&p.username)
    .bind(handle_key(&p.username))
    .bind(&p.display_name)
    .bind(&p.avatar_url)
    .bind(p.follower_count)
    .bind(now)
    .fetch_scalar(&mut **tx)
    .await
}

/// Tracks what the quota allows; returns (newly tracked, skipped).
async fn track_what_fits<D: Dialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    reason: &str,
) -> Result<(usize, usize), StoreError> {
    match track_in(tx, batch, reason, QuotaPolicy::WhatFits).await? {
        TrackOutcome::Tracked(results) => Ok((
            results.iter().filter(|r| r.newly_tracked).count(),
            batch.videos.len().saturating_sub(results.len()),
        )),
        TrackOutcome::QuotaExceeded { .. } => Ok((0, batch.videos.len())),
    }
}

/// `batch` with the tracked account's campaign and budget per video, which
/// the videos it tracks take.
async fn with_account_defaults<D: Dialect>(
    tx: &mut Tx<D>,
    mut batch: crate::videos::TrackBatch,
    account: Uuid,
) -> Result<crate::videos::TrackBatch, StoreError> {
    let (campaign, budget): (Option<String>, Option<i64>) =
        D::query("SELECT campaign, budget_per_video FROM tracked_accounts WHERE id = $1")
            .bind(account)
            .fetch_one(&mut **tx)
            .await?;
    batch.campaign = campaign;
    batch.budget = budget;
    batch.account = Some(account);
    Ok(batch)
}

/// Opens (or reactivates) the organization's tracked account of the
/// setup's creator, with its settings; returns its id.
pub(crate) async fn open_account<D: Dialect>(
    tx: &mut Tx<D>,
    org: uuid::Uuid,
    setup: &crate::creators::AccountSetup,
    initial_videos_count: i64,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<uuid::Uuid, crate::StoreError> {
    let creator_id = match &setup.creator {
        crate::creators::SetupCreator::Profile(p) => upsert_creator(tx, p, now).await?,
        crate::creators::SetupCreator::Known(id) => *id,
    };
    // Discovery starts when the backfill succeeds (the job sets
    // `next_discovery_at`).
    let id: uuid::Uuid = D::query(
        "INSERT INTO tracked_accounts
           (id, organization_id, creator_id, is_active, initial_videos_count,
            daily_videos_count, campaign, discovered_since, created_at, updated_at)
         VALUES ($1, $2, $3, TRUE, $4, $5, $6, $7, $7, $7)
         ON CONFLICT (organization_id, creator_id) DO UPDATE SET
           is_active = TRUE, initial_videos_count = excluded.initial_videos_count,
           daily_videos_count = coalesce(excluded.daily_videos_count,
                                         tracked_accounts.daily_videos_count),
           campaign = coalesce(excluded.campaign, tracked_accounts.campaign),
           discovered_since = excluded.discovered_since, next_discovery_at = NULL,
           discovery_note = NULL, updated_at = excluded.updated_at
         RETURNING id",
    )
    .bind(uuid::Uuid::now_v7())
    .bind(org)
    .bind(creator_id)
    .bind(initial_videos_count)
    .bind(setup.daily_videos_count)
    .bind(&setup.campaign)
    .bind(now)
    .fetch_scalar(&mut **tx)
    .await?;
    if let Some(tags) = &setup.tag_ids {
        replace_account_tags(tx, org, id, tags).await?;
    }
    Ok(id)
}

/// Replaces the tags of a tracked account (of organization `org`;
/// ids of other organizations' tags are ignored): its videos lose
/// the old ones and get the new ones.
pub(crate) async fn replace_account_tags<D: Dialect>(
    tx: &mut Tx<D>,
    org: uuid::Uuid,
    account: uuid::Uuid,
    tag_ids: &[uuid::Uuid],
) -> Result<(), crate::StoreError> {
    D::query(
        "DELETE FROM video_tags
         WHERE tag_id IN (SELECT tag_id FROM account_tags WHERE tracked_account_id = $1)
           AND tracked_video_id IN (SELECT id FROM tracked_videos
                                    WHERE tracked_account_id = $1 AND organization_id = $2)",
    )
    .bind(account)
    .bind(org)
    .execute(&mut **tx)
    .await?;
    D::query("DELETE FROM account_tags WHERE tracked_account_id = $1")
        .bind(account)
        .execute(&mut **tx)
        .await?;
    for tag in tag_ids {
        D::query(
            "INSERT INTO account_tags (tracked_account_id, tag_id)
             SELECT $1, id FROM tags WHERE id = $2 AND organization_id = $3
             ON CONFLICT DO NOTHING",
        )
        .bind(account)
        .bind(tag)
        .bind(org)
        .execute(&mut **tx)
        .await?;
    }
    D::query(
        "INSERT INTO video_tags (tracked_video_id, tag_id)
         SELECT tv.id, at.tag_id FROM tracked_videos tv
         JOIN account_tags at ON at.tracked_account_id = tv.tracked_account_id
         WHERE tv.tracked_account_id = $1 AND tv.organization_id = $2
         ON CONFLICT DO NOTHING",
    )
    .bind(account)
    .bind(org)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
