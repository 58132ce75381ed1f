//! Creator jobs: queuing one (docs/api.md: POST /v1/bloggers/track, and the
//! dashboard's POST /blogger/add and /blogger/add-from-tracking) and the job
//! as the client polls it (GET /v1/bloggers/jobs/{job_id} and GET
//! /blogger/jobs/{job_id}).

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_store::{CreatorJob, JOB_TIMEOUT, JobStatus, NewCreatorJob, StartJob};

use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// A job's error.
#[derive(Debug, Serialize, ToSchema)]
pub struct JobError {
    /// `PLATFORM_NOT_FOUND`, `EXTERNAL_API_ERROR` or `JOB_TIMEOUT`.
    pub code: String,
    /// What happened.
    pub message: String,
}

/// `data.result` of a succeeded job.
#[derive(Debug, Serialize, ToSchema)]
pub struct JobResult {
    /// The organization's tracked account.
    pub tracked_account_id: Uuid,
    /// The creator.
    pub blogger_id: Uuid,
    /// Platform id.
    pub platform: &'static str,
    /// The handle as the platform spells it.
    pub username: String,
    /// Whether the creator is tracked now.
    pub is_active: bool,
    /// Videos backfilled.
    pub initial_videos_count: i64,
    /// New videos tracked a day at most (`null`: the service default, 5).
    pub daily_videos_count: Option<i64>,
    /// Campaign.
    pub campaign: Option<String>,
    /// eCPM.
    pub ecpm: Option<f64>,
    /// When the creator's videos were last listed.
    pub last_scraped_at: Option<DateTime<Utc>>,
}

/// A creator-track job; which fields are present depends on `status`.
#[derive(Debug, Serialize, ToSchema)]
pub struct JobView {
    /// The job.
    pub job_id: Uuid,
    /// `queued`, `processing`, `succeeded` or `error`.
    pub status: &'static str,
    /// Platform id, from the request.
    pub platform: &'static str,
    /// Username, from the request.
    pub username: String,
    /// When it was queued.
    pub created_at: DateTime<Utc>,
    /// When a worker took it; null while queued.
    pub started_at: Option<DateTime<Utc>>,
    /// Seconds since it started: present while processing, null while queued,
    /// absent in terminal states.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_seconds: Option<Option<f64>>,
    /// Present once succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracked_account_id: Option<Uuid>,
    /// Present once succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blogger_id: Option<Uuid>,
    /// Present once succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_reactivation: Option<bool>,
    /// Set in terminal states.
    pub completed_at: Option<DateTime<Utc>>,
    /// Seconds from start to completion.
    pub duration_seconds: Option<f64>,
    /// Only when succeeded.
    pub result: Option<JobResult>,
    /// Only when status is `error`.
    pub error: Option<JobError>,
}

fn seconds(from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    ((to - from).num_milliseconds().max(0) as f64) / 1000.0
}

impl JobView {
    fn of(job: CreatorJob, now: DateTime<Utc>) -> Self {
        let terminal = matches!(job.status, JobStatus::Succeeded | JobStatus::Error);
        let succeeded = job.status == JobStatus::Succeeded;
        let account = job.account.filter(|_| succeeded);
        let elapsed_seconds = match job.status {
            JobStatus::Queued => Some(None),
            JobStatus::Processing => Some(job.started_at.map(|s| seconds(s, now))),
            _ => None,
        };
        let duration_seconds = match (job.started_at, job.completed_at) {
            (Some(s), Some(c)) if terminal => Some(seconds(s, c)),
            _ => None,
        };
        let error = (job.status == JobStatus::Error).then(|| JobError {
            code: job
                .error_code
                .clone()
                .unwrap_or_else(|| "EXTERNAL_API_ERROR".into()),
            message: job.error_message.clone().unwrap_or_default(),
        });
        Self {
            job_id: job.id,
            status: job.status.as_str(),
            platform: job.platform.id(),
            username: job.username,
            created_at: job.created_at,
            started_at: job.started_at,
            elapsed_seconds,
            tracked_account_id: account.as_ref().map(|a| a.tracked_account_id),
            blogger_id: account.as_ref().map(|a| a.creator_id),
            is_reactivation: if succeeded { job.is_reactivation } else { None },
            completed_at: job.completed_at.filter(|_| terminal),
            duration_seconds,
            result: account.map(|a| JobResult {
                tracked_account_id: a.tracked_account_id,
                blogger_id: a.creator_id,
                platform: a.platform.id(),
                username: a.username,
                is_active: a.is_active,
                initial_videos_count: a.initial_videos_count,
                daily_videos_count: a.daily_videos_count,
                campaign: a.campaign,
                ecpm: a.ecpm,
                last_scraped_at: a.last_scraped_at,
            }),
            error,
        }
    }
}

/// Organization `org`'s creator job `job_id` as it stands: 404 for an
/// unknown job (or another organization's), 410 `JOB_TIMEOUT` for one the
/// timeout sweep closed.
pub(crate) async fn job_view(
    app: &AppState,
    org: OrgId,
    job_id: &str,
) -> Result<JobView, ApiError> {
    let not_found = || ApiError::not_found("Job not found");
    let id = Uuid::parse_str(job_id).map_err(|_| not_found())?;
    let job = app
        .store
        .creator_job(org, id)
        .await?
        .ok_or_else(not_found)?;
    if job.error_code.as_deref() == Some(JOB_TIMEOUT) {
        return Err(ApiError::new(
            StatusCode::GONE,
            ErrorCode::JobTimeout,
            job.error_message
                .unwrap_or_else(|| "The job ran past its timeout".into()),
        )
        .with_details(json!({ "job_id": id })));
    }
    Ok(JobView::of(job, app.clock.now()))
}

/// Queues creator job `job` (the public track and the dashboard's adds) and
/// wakes the worker: the queued job, or the error answering why the
/// organization may not start it.
pub(crate) async fn start_job(
    app: &AppState,
    job: &NewCreatorJob,
) -> Result<Box<CreatorJob>, ApiError> {
    let who = format!("@{} on {}", job.username, job.platform.display_name());
    let queued = queued_or_refused(app.store.start_creator_job(job).await?, &who)?;
    app.jobs_wake.notify_one();
    Ok(queued)
}

/// 422 `TRACKED_CREATORS_LIMIT`: tracking or resuming one more creator
/// would pass the organization's creator cap `cap`, `in_use` places taken.
pub(crate) fn creator_cap_reached(cap: i64, in_use: i64) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::TrackedCreatorsLimit,
        format!(
            "Tracked-creator limit reached: the organization may track {cap} creators; \
             {in_use} are tracked or being added"
        ),
    )
    .with_details(json!({ "limit": cap, "current_usage": in_use }))
}

/// The queued job of a start, or the error answering why it was refused.
fn queued_or_refused(outcome: StartJob, who: &str) -> Result<Box<CreatorJob>, ApiError> {
    match outcome {
        StartJob::Queued(job) => Ok(job),
        StartJob::AlreadyTracked { tracked_account_id } => Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::CreatorAlreadyTracked,
            format!("The organization already tracks {who}"),
        )
        .with_details(json!({ "tracked_account_id": tracked_account_id }))),
        StartJob::InFlight {
            job_id,
            reactivation,
        } => {
            let (code, message) = if reactivation {
                (
                    ErrorCode::CreatorReactivateInFlight,
                    format!("{who} is deactivated and a job reactivating it is in flight"),
                )
            } else {
                (
                    ErrorCode::CreatorTrackInFlight,
                    format!("A job tracking {who} is in flight"),
                )
            };
            Err(ApiError::new(StatusCode::CONFLICT, code, message)
                .with_details(json!({ "job_id": job_id, "status_url": job_status_url(job_id) })))
        }
        StartJob::CreatorCapReached { cap, in_use } => Err(creator_cap_reached(cap, in_use)),
        StartJob::QuotaExceeded {
            quota,
            in_use,
            requested,
        } => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::SubscriptionLimit,
            format!(
                "Tracked-video quota reached: the organization may track {quota} videos; \
                     {in_use} are tracked or reserved and this backfill would add {requested}"
            ),
        )
        .with_details(json!({ "quota": quota, "current_usage": in_use, "requested": requested }))),
    }
}

/// Where a client polls job `job_id`.
pub(crate) fn job_status_url(job_id: Uuid) -> String {
    format!("/v1/bloggers/jobs/{job_id}")
}
