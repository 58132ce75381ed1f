//! Tracking a creator (docs/api.md: POST /v1/bloggers/track):
//! queued as a job ([`start_job`]), answered 202 at once.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::names::Handle;
use vidpulse_store::{JobStatus, NewCreatorJob};

use crate::app::bloggers::{
    DEFAULT_INITIAL_VIDEOS, MAX_INITIAL_VIDEOS, PlatformId, bad_initial_count, bad_platform,
    bad_username, job_status_url, start_job,
};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::input::{Bounded, Fault, Refusals, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;

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
    username: Handle,
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
        username,
        initial_videos_count,
    } = body.parse()?;
    let initial = initial_videos_count.map_or(DEFAULT_INITIAL_VIDEOS, |Bounded(n)| n);
    let job = NewCreatorJob {
        organization_id: auth.org.id,
        api_key_id: Some(auth.key_id),
        request_id: ctx.id.clone(),
        platform,
        username: username.as_str().to_owned(),
        initial_videos_count: initial,
        now: app.clock.now(),
        refetch: false,
        setup: None,
    };
    let queued = start_job(&app, &job).await?;
    let url = job_status_url(queued.id);
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
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
        assert_eq!(ok.username.as_str(), "a");
        assert_eq!(ok.initial_videos_count, None);
    }
}
