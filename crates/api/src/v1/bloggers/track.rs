//! Tracking a creator (docs/api.md: POST /v1/bloggers/track):
//! queued as a job, answered 202 at once.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_store::{CreatorJob, JobStatus, NewCreatorJob, StartJob};

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::JsonBody;
use crate::input::{Bounded, Fault, Refusals, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::bloggers::{
    DEFAULT_INITIAL_VIDEOS, MAX_INITIAL_VIDEOS, PlatformId, Username, bad_platform, bad_username,
};

/// Seconds a client waits before its first poll (`Retry-After`).
const FIRST_POLL_SECONDS: u64 = 1;
/// What a job usually takes, for `estimated_duration_seconds`.
const ESTIMATED_SECONDS: u64 = 15;

/// Body of a creator track request.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreatorTrackRequest {
    /// `tiktok`, `instagram` or `youtube`.
    #[schema(value_type = String)]
    platform: PlatformId,
    /// The handle, with or without a leading `@`.
    #[schema(value_type = String)]
    username: Username,
    /// Most recent videos to track at once, 0 to 50 (default 10), charged 30
    /// credits each like tracked videos.
    #[schema(value_type = Option<i64>)]
    initial_videos_count: Option<Bounded<0, MAX_INITIAL_VIDEOS>>,
}

impl Refusals for CreatorTrackRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "platform" => bad_platform("platform", fault.sent()),
            "username" => bad_username("username", fault.sent()),
            "initial_videos_count" => bad_initial_count(fault.sent()),
            _ => not_an_object(),
        }
    }
}

/// The answer to a faulty `initial_videos_count` of a creator track (and of
/// the dashboard's add, which words it alike).
pub(crate) fn bad_initial_count(sent: Option<&Value>) -> ApiError {
    let sent = sent.unwrap_or(&Value::Null);
    ApiError::validation(
        "initial_videos_count",
        format!(
            "`initial_videos_count` must be a whole number from 0 to {MAX_INITIAL_VIDEOS}; got {sent}"
        ),
    )
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
pub(super) async fn track(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    body: JsonBody<CreatorTrackRequest>,
) -> Result<impl IntoResponse, ApiError> {
    app.limits.check_creator_track(auth.key_id).await?;
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let CreatorTrackRequest {
        platform: PlatformId(platform),
        username: Username(username),
        initial_videos_count,
    } = body.parse()?;
    let initial = initial_videos_count.map_or(DEFAULT_INITIAL_VIDEOS, |Bounded(n)| n);
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

#[cfg(test)]
mod tests {
    use serde_json::json;
    use vidpulse_domain::Platform;

    use super::*;
    use crate::input::Input;

    #[test]
    fn track_bodies_are_checked_field_by_field() {
        let field = |v: Value| {
            CreatorTrackRequest::from_json(&v)
                .unwrap_err()
                .field
                .clone()
                .unwrap()
        };
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
        let ok = CreatorTrackRequest::from_json(&json!({"platform": "TikTok", "username": "@a"}))
            .unwrap();
        assert_eq!(ok.platform, PlatformId(Platform::TikTok));
        assert_eq!(ok.username, Username("a".to_owned()));
        assert_eq!(ok.initial_videos_count, None);
    }
}
