//! Creators (docs/api.md, "Creators": POST /v1/bloggers/track,
//! GET /v1/bloggers/jobs/{job_id}, GET /v1/bloggers/by-username/{username}).
//!
//! Tracking a creator is a job: the request is checked and queued in one
//! transaction and answered 202 at once; the worker resolves the channel,
//! creates (or reactivates) the tracked account and backfills its most
//! recent videos; the client polls the job.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::IntoResponse;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::Platform;
use vidpulse_store::{CreatorJob, JOB_TIMEOUT, JobStatus, NewCreatorJob, StartJob, TrackedAccount};

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::{JsonBody, PathParam, QueryParams};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Videos backfilled when `initial_videos_count` is not given.
pub const DEFAULT_INITIAL_VIDEOS: i64 = 10;
/// Most videos a backfill may ask for.
pub const MAX_INITIAL_VIDEOS: i64 = 50;
/// Longest username, in characters.
pub const USERNAME_MAX_CHARS: usize = 100;
/// Seconds a client waits before its first poll (`Retry-After`).
const FIRST_POLL_SECONDS: u64 = 1;
/// What a job usually takes, for `estimated_duration_seconds`.
const ESTIMATED_SECONDS: u64 = 15;

/// The creator routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(track))
        .routes(routes!(job))
        .routes(routes!(by_username))
}

/// Body of a creator track request.
#[derive(Debug, ToSchema)]
#[allow(
    dead_code,
    reason = "documents the body that the handler validates by hand"
)]
pub struct CreatorTrackRequest {
    /// `tiktok`, `instagram` or `youtube`.
    platform: String,
    /// The handle, with or without a leading `@`.
    username: String,
    /// Most recent videos to track at once, 0 to 50 (default 10), charged 30
    /// credits each like tracked videos.
    initial_videos_count: Option<i64>,
}

/// Polling advice.
#[derive(Debug, Serialize, ToSchema)]
pub struct Polling {
    /// Seconds to wait before the first poll.
    pub retry_after_seconds: u64,
}

/// `data` of a 202 answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct JobAccepted {
    /// The job.
    pub job_id: Uuid,
    /// `queued`.
    pub status: &'static str,
    /// Where to poll.
    pub status_url: String,
    /// Platform id.
    pub platform: &'static str,
    /// Username, without `@`.
    pub username: String,
    /// What a job usually takes.
    pub estimated_duration_seconds: u64,
    /// Polling advice.
    pub polling: Polling,
}

fn body_object(body: &Value) -> Result<&serde_json::Map<String, Value>, ApiError> {
    body.as_object()
        .ok_or_else(|| ApiError::validation("body", "The body must be a JSON object"))
}

/// Parses a platform id (any case).
fn platform_of(field: &str, value: Option<&str>) -> Result<Platform, ApiError> {
    let Some(raw) = value else {
        return Err(ApiError::validation(
            field,
            format!("`{field}` is required: tiktok, instagram or youtube"),
        ));
    };
    Platform::ALL
        .into_iter()
        .find(|p| p.id().eq_ignore_ascii_case(raw.trim()))
        .ok_or_else(|| {
            ApiError::validation(
                field,
                format!("`{field}` must be tiktok, instagram or youtube; got `{raw}`"),
            )
        })
}

/// A username without its leading `@`, checked: letters, digits, `.`, `_`, `-`.
pub fn parse_username(field: &str, raw: &str) -> Result<String, ApiError> {
    let name = raw.trim();
    let name = name.strip_prefix('@').unwrap_or(name);
    if name.is_empty() {
        return Err(ApiError::validation(
            field,
            format!("`{field}` is required"),
        ));
    }
    if name.chars().count() > USERNAME_MAX_CHARS {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must be at most {USERNAME_MAX_CHARS} characters"),
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Err(ApiError::validation(
            field,
            format!(
                "`{field}` may hold only letters, digits, `.`, `_` and `-` (after an optional `@`)"
            ),
        ));
    }
    Ok(name.to_owned())
}

pub(crate) fn parse_track(body: &Value) -> Result<(Platform, String, i64), ApiError> {
    let obj = body_object(body)?;
    let platform = match obj.get("platform") {
        None | Some(Value::Null) => platform_of("platform", None)?,
        Some(Value::String(s)) => platform_of("platform", Some(s))?,
        Some(_) => {
            return Err(ApiError::validation(
                "platform",
                "`platform` must be a string: tiktok, instagram or youtube",
            ));
        }
    };
    let username = match obj.get("username") {
        None | Some(Value::Null) => {
            return Err(ApiError::validation("username", "`username` is required"));
        }
        Some(Value::String(s)) => parse_username("username", s)?,
        Some(_) => {
            return Err(ApiError::validation(
                "username",
                "`username` must be a string",
            ));
        }
    };
    let count = match obj.get("initial_videos_count") {
        None | Some(Value::Null) => DEFAULT_INITIAL_VIDEOS,
        Some(v) => v
            .as_i64()
            .filter(|n| (0..=MAX_INITIAL_VIDEOS).contains(n))
            .ok_or_else(|| {
                ApiError::validation(
                    "initial_videos_count",
                    format!(
                        "`initial_videos_count` must be a whole number from 0 to {MAX_INITIAL_VIDEOS}; got {v}"
                    ),
                )
            })?,
    };
    Ok((platform, username, count))
}

/// Start tracking a creator: queues a job and answers 202 at once. Paid plans.
#[utoipa::path(
    post, path = "/v1/bloggers/track", tag = "creators",
    request_body = CreatorTrackRequest,
    responses(
        (status = 202, description = "Queued; poll `Location` after `Retry-After` seconds", body = Envelope<JobAccepted>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED"),
        (status = 409, description = "CREATOR_ALREADY_TRACKED, CREATOR_TRACK_IN_FLIGHT (with `job_id`) or CREATOR_REACTIVATE_IN_FLIGHT (with `job_id`)"),
        (status = 422, description = "TRACKED_CREATORS_LIMIT or SUBSCRIPTION_LIMIT"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED (60 a minute per key)"),
    ),
    security(("api_key" = []))
)]
async fn track(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    JsonBody(body): JsonBody,
) -> Result<impl IntoResponse, ApiError> {
    app.limits.check_creator_track(auth.key_id).await?;
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let (platform, username, initial) = parse_track(&body)?;
    let job = NewCreatorJob {
        organization_id: auth.org.id,
        api_key_id: Some(auth.key_id),
        request_id: ctx.id.clone(),
        platform,
        username: username.clone(),
        initial_videos_count: initial,
        now: app.clock.now(),
        refetch: false,
        setup: None,
    };
    let who = format!("@{username} on {}", platform.display_name());
    let queued = queued_or_refused(app.store.start_creator_job(&job).await?, &who)?;
    app.jobs_wake.notify_one();
    let url = status_url(queued.id);
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&url) {
        headers.insert(header::LOCATION, v);
    }
    headers.insert(header::RETRY_AFTER, HeaderValue::from(FIRST_POLL_SECONDS));
    let data = JobAccepted {
        job_id: queued.id,
        status: JobStatus::Queued.as_str(),
        status_url: url,
        platform: platform.id(),
        username: queued.username,
        estimated_duration_seconds: ESTIMATED_SECONDS,
        polling: Polling {
            retry_after_seconds: FIRST_POLL_SECONDS,
        },
    };
    Ok((StatusCode::ACCEPTED, headers, ok(data, Meta::of(&ctx))))
}

/// The queued job of a start, or the error answering why it was refused
/// (shared by the public track and the dashboard's blogger adds).
pub(crate) fn queued_or_refused(outcome: StartJob, who: &str) -> Result<Box<CreatorJob>, ApiError> {
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
                .with_details(json!({ "job_id": job_id, "status_url": status_url(job_id) })))
        }
        StartJob::CreatorCapReached { cap, in_use } => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::TrackedCreatorsLimit,
            format!(
                "Tracked-creator limit reached: the organization may track {cap} creators; \
                     {in_use} are tracked or being added"
            ),
        )
        .with_details(json!({ "limit": cap, "current_usage": in_use }))),
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

fn status_url(job_id: Uuid) -> String {
    format!("/v1/bloggers/jobs/{job_id}")
}

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

/// A creator-track job. Free; 404 for unknown jobs and other organizations'
/// alike; 410 once the timeout sweep has closed it.
#[utoipa::path(
    get, path = "/v1/bloggers/jobs/{job_id}", tag = "creators",
    params(("job_id" = String, Path, description = "The job id from POST /v1/bloggers/track")),
    responses(
        (status = 200, description = "The job", body = Envelope<JobView>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
        (status = 410, description = "JOB_TIMEOUT: re-issue POST /v1/bloggers/track to retry"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED (60 a minute per key)"),
    ),
    security(("api_key" = []))
)]
async fn job(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    PathParam(job_id): PathParam,
) -> Result<Json<Envelope<JobView>>, ApiError> {
    app.limits.check_job_status(auth.key_id).await?;
    let not_found = || ApiError::not_found("Job not found");
    let id = Uuid::parse_str(&job_id).map_err(|_| not_found())?;
    let job = app
        .store
        .creator_job(auth.org.id, id)
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
    Ok(ok(JobView::of(job, app.clock.now()), Meta::of(&ctx)))
}

/// A creator tracked by the organization.
#[derive(Debug, Serialize, ToSchema)]
pub struct BloggerView {
    /// The creator's id (`blogger_id` of its job).
    pub id: Uuid,
    /// Platform id.
    pub platform: &'static str,
    /// Handle, without `@`.
    pub channel_username: String,
    /// The platform's id of the account.
    pub channel_id: String,
    /// Display name.
    pub display_name: Option<String>,
    /// Avatar URL.
    pub avatar_url: Option<String>,
    /// Followers; null when the platform does not say.
    pub follower_count: Option<i64>,
    /// Whether the organization tracks it now.
    pub is_active: bool,
    /// The last time the platform profile was read (daily).
    pub last_fetched_at: DateTime<Utc>,
    /// The organization's tracked account.
    pub tracked_account_id: Uuid,
    /// Videos backfilled when tracking started.
    pub initial_videos_count: i64,
    /// New videos tracked a day at most (`null`: the service default, 5).
    pub daily_videos_count: Option<i64>,
    /// When its videos were last listed.
    pub last_scraped_at: Option<DateTime<Utc>>,
    /// Why the last daily discovery skipped videos, if it did.
    pub discovery_note: Option<String>,
}

impl From<TrackedAccount> for BloggerView {
    fn from(a: TrackedAccount) -> Self {
        Self {
            id: a.creator_id,
            platform: a.platform.id(),
            channel_username: a.username,
            channel_id: a.channel_id,
            display_name: a.display_name,
            avatar_url: a.avatar_url,
            follower_count: a.follower_count,
            is_active: a.is_active,
            last_fetched_at: a.last_fetched_at,
            tracked_account_id: a.tracked_account_id,
            initial_videos_count: a.initial_videos_count,
            daily_videos_count: a.daily_videos_count,
            last_scraped_at: a.last_scraped_at,
            discovery_note: a.discovery_note,
        }
    }
}

/// `data` of a creator lookup.
#[derive(Debug, Serialize, ToSchema)]
pub struct BloggerData {
    /// The creator.
    pub blogger: BloggerView,
}

/// Look up a creator the organization tracks. Free; never calls a platform.
#[utoipa::path(
    get, path = "/v1/bloggers/by-username/{username}", tag = "creators",
    params(
        ("username" = String, Path, description = "The handle; a leading `@` must be sent as `%40`"),
        ("platform" = Option<String>, Query, description = "tiktok, instagram or youtube; omitted: any platform"),
    ),
    responses(
        (status = 200, description = "The creator", body = Envelope<BloggerData>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "BLOGGER_NOT_TRACKED"),
    ),
    security(("api_key" = []))
)]
async fn by_username(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    PathParam(username): PathParam,
    q: QueryParams,
) -> Result<Json<Envelope<BloggerData>>, ApiError> {
    let username = parse_username("username", &username)?;
    let platform = match q.get("platform") {
        None | Some("") => None,
        Some(p) => Some(platform_of("platform", Some(p))?),
    };
    let account = app
        .store
        .tracked_account_by_username(auth.org.id, platform, &username)
        .await?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::BloggerNotTracked,
                format!("The organization does not track @{username}"),
            )
        })?;
    Ok(ok(
        BloggerData {
            blogger: account.into(),
        },
        Meta::of(&ctx),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_lose_their_at_and_keep_their_case() {
        assert_eq!(
            parse_username("u", " @Mira.Cooks_1 ").unwrap(),
            "Mira.Cooks_1"
        );
        assert_eq!(parse_username("u", "ñandú-9").unwrap(), "ñandú-9");
        for bad in ["", "@", "a b", "a/b", "@@a", "<script>"] {
            assert!(parse_username("u", bad).is_err(), "{bad}");
        }
        assert!(parse_username("u", &"a".repeat(101)).is_err());
    }

    #[test]
    fn track_bodies_are_checked_field_by_field() {
        let field = |v: Value| parse_track(&v).unwrap_err().field.clone().unwrap();
        assert_eq!(field(json!([])), "body");
        assert_eq!(field(json!({"username": "a"})), "platform");
        assert_eq!(field(json!({"platform": 3, "username": "a"})), "platform");
        assert_eq!(
            field(json!({"platform": "vimeo", "username": "a"})),
            "platform"
        );
        assert_eq!(field(json!({"platform": "tiktok"})), "username");
        assert_eq!(
            field(json!({"platform": "tiktok", "username": 7})),
            "username"
        );
        for bad in [json!(-1), json!(51), json!(2.5), json!("3"), json!(true)] {
            let body = json!({"platform": "tiktok", "username": "a", "initial_videos_count": bad});
            assert_eq!(field(body), "initial_videos_count");
        }
        let ok = parse_track(&json!({"platform": "TikTok", "username": "@a"})).unwrap();
        assert_eq!(
            ok,
            (Platform::TikTok, "a".to_owned(), DEFAULT_INITIAL_VIDEOS)
        );
    }
}
