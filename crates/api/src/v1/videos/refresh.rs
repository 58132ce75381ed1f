//! Reading a video now (docs/api.md: POST /v1/videos/by-id/{video_id}/refresh
//! and its by-external-id twin). One upstream read serves every organization
//! that asks within the cooldown; 1 credit only for a request that made a
//! fresh read.

use std::collections::HashMap;
use std::time::Duration as StdDuration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::{ApiKeyId, OrgId, VideoId};
use vidpulse_platforms::{ReadOutcome, SourceError};
use vidpulse_store::{Charge, ManualRead, RefreshAsk, RefreshOutcome, RefreshWrite, VideoLookup};

use crate::app::rfc3339;
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::PathParam;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Longest wait for the platform's answer.
const READ_TIMEOUT: StdDuration = StdDuration::from_secs(10);
/// How long a manual read holds its claim on the video (past the timeout,
/// so the claim never runs out under a read still going).
const READ_LEASE: Duration = Duration::seconds(30);
/// Longest wait for another read of the video under way to land.
const IN_FLIGHT_WAIT: StdDuration = StdDuration::from_secs(15);
/// How often that wait looks again.
const IN_FLIGHT_POLL: StdDuration = StdDuration::from_millis(200);

/// `data` of a manual refresh: the video's reading that answers it.
#[derive(Debug, Serialize, ToSchema)]
pub struct RefreshResult {
    /// The organization's id of the video.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Platform display name.
    pub platform: &'static str,
    /// `true` when this request read the platform (and was charged 1
    /// credit); `false` when a read of the cooldown answered it.
    pub fresh: bool,
    /// When the reading was made.
    pub read_at: Option<String>,
    /// Views read.
    pub views: Option<i64>,
    /// Likes read.
    pub likes: Option<i64>,
    /// Comments read.
    pub comments: Option<i64>,
    /// Reposts read.
    pub reposts: Option<i64>,
    /// Saves read.
    pub saves: Option<i64>,
    /// From when this organization may ask again.
    pub next_refresh_allowed_at: String,
}

/// Read a tracked video from its platform now. A read made in the last
/// cooldown (5 minutes by default) answers instead, free; an organization
/// that asked within it already is answered 429 `REFRESH_TOO_SOON` with
/// `Retry-After`. 1 credit when this request made a fresh read.
#[utoipa::path(
    post, path = "/v1/videos/by-id/{video_id}/refresh", tag = "videos",
    params(("video_id" = Uuid, Path, description = "The organization's video id")),
    responses(
        (status = 200, description = "The video's reading", body = Envelope<RefreshResult>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "VIDEO_NOT_FOUND"),
        (status = 409, description = "TRACKING_ENDED or VIDEO_UNAVAILABLE (removed or private on the platform)"),
        (status = 429, description = "REFRESH_TOO_SOON, with `Retry-After`"),
        (status = 502, description = "EXTERNAL_API_ERROR: the platform failed; nothing charged"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn refresh_by_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<RefreshResult>>, ApiError> {
    let id = path
        .ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .ok_or_else(not_found)?;
    let video = VideoLookup::Id(VideoId(id));
    refresh_video(&app, &ctx, auth.org.id, Some(auth.key_id), video).await
}

/// Read a tracked video named by the platform's id now; as by id.
#[utoipa::path(
    post, path = "/v1/videos/by-external-id/{external_video_id}/refresh", tag = "videos",
    params(("external_video_id" = String, Path, description = "The platform's video id, percent-encoded")),
    responses(
        (status = 200, description = "The video's reading", body = Envelope<RefreshResult>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "VIDEO_NOT_FOUND"),
        (status = 409, description = "TRACKING_ENDED or VIDEO_UNAVAILABLE (removed or private on the platform)"),
        (status = 429, description = "REFRESH_TOO_SOON, with `Retry-After`"),
        (status = 502, description = "EXTERNAL_API_ERROR: the platform failed; nothing charged"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn refresh_by_external_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<RefreshResult>>, ApiError> {
    let PathParam(external_id) = path.map_err(|_| not_found())?;
    let video = VideoLookup::ExternalId(external_id);
    refresh_video(&app, &ctx, auth.org.id, Some(auth.key_id), video).await
}

fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::VideoNotFound,
        "Video not found",
    )
}

fn unavailable() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        ErrorCode::VideoUnavailable,
        "The platform reports this video removed or private; it is no longer read",
    )
}

/// Reads the organization's video `video` names now, with the cooldown's
/// rules, for the API key `key` (none from the dashboard): the answer of
/// both interfaces (the caller checked who may).
pub(crate) async fn refresh_video(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    key: Option<ApiKeyId>,
    video: VideoLookup,
) -> Result<Json<Envelope<RefreshResult>>, ApiError> {
    let cooldown = app.config.refresh_cooldown;
    let waited_since = tokio::time::Instant::now();
    let fresh = loop {
        let now = app.clock.now();
        match app
            .store
            .ask_refresh(org, &video, now, cooldown, READ_LEASE)
            .await?
        {
            RefreshAsk::NotFound => return Err(not_found()),
            RefreshAsk::Ended => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    ErrorCode::TrackingEnded,
                    "This video's tracking window has ended; it is no longer read",
                ));
            }
            RefreshAsk::Gone => return Err(unavailable()),
            RefreshAsk::TooSoon { retry_at } => {
                return Err(too_soon(
                    format!(
                        "This video was refreshed for your organization at {}; ask again from {}",
                        rfc3339(retry_at - cooldown),
                        rfc3339(retry_at)
                    ),
                    seconds_until(now, retry_at),
                ));
            }
            RefreshAsk::InFlight if waited_since.elapsed() < IN_FLIGHT_WAIT => {
                tokio::time::sleep(IN_FLIGHT_POLL).await;
            }
            RefreshAsk::InFlight => {
                return Err(too_soon(
                    "A read of this video is under way; ask again in a few seconds".into(),
                    5,
                ));
            }
            RefreshAsk::Served { .. } => break false,
            RefreshAsk::Claimed(read) => {
                read_now(app, ctx, org, key, &read).await?;
                break true;
            }
        }
    };
    let now = app.clock.now();
    let record = app
        .store
        .video(org, &video, now)
        .await?
        .ok_or_else(not_found)?;
    let data = RefreshResult {
        video_id: record.video_id.0,
        external_video_id: record.external_id,
        platform: record.platform.display_name(),
        fresh,
        read_at: record.stats_updated_at.map(rfc3339),
        views: record.latest.views,
        likes: record.latest.likes,
        comments: record.latest.comments,
        reposts: record.latest.reposts,
        saves: record.latest.saves,
        next_refresh_allowed_at: rfc3339(now + cooldown),
    };
    Ok(ok(data, Meta::of(ctx).with_credits(i64::from(fresh))))
}

/// Reads the claimed video from its platform and saves what it answered,
/// with the request's credit when it answered a reading.
async fn read_now(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    key: Option<ApiKeyId>,
    read: &ManualRead,
) -> Result<(), ApiError> {
    let due = &read.due;
    let ids = [due.external_id.clone()];
    let mut anchors = HashMap::new();
    if app.source.wants_anchors()
        && let Some(anchor) = app.store.video_anchors(&[due.id]).await?.remove(&due.id)
    {
        anchors.insert(due.external_id.clone(), anchor);
    }
    let answer = match tokio::time::timeout(
        READ_TIMEOUT,
        app.source.read_anchored(due.platform, &ids, &anchors),
    )
    .await
    {
        Ok(answer) => answer,
        Err(_) => Err(SourceError::Transient(format!(
            "read timed out after {READ_TIMEOUT:?}"
        ))),
    };
    let outcome = match answer {
        Ok(mut outcomes) => outcomes.pop().map_or_else(
            || ReadOutcome::Failed(SourceError::Transient("missing from the answer".into())),
            |(_, outcome)| outcome,
        ),
        Err(e) => ReadOutcome::Failed(e),
    };
    metrics::counter!(
        "vidpulse_manual_refreshes_total",
        "platform" => due.platform.id(),
        "outcome" => match &outcome {
            ReadOutcome::Found(_) => "read",
            ReadOutcome::Gone { .. } => "gone",
            ReadOutcome::Failed(_) => "failed",
        }
    )
    .increment(1);
    let told = match &outcome {
        ReadOutcome::Failed(e) => e.client_message(due.platform),
        _ => String::new(),
    };
    let read_at = app.clock.now();
    let write = RefreshWrite {
        video_id: due.id,
        lease_token: due.lease_token,
        read_at,
        outcome: outcome.into(),
        next_refresh_at: read.next_refresh_at,
    };
    let charge = Charge {
        organization_id: org,
        api_key_id: key,
        request_id: ctx.id.clone(),
        amount: 1,
        reason: "video_refresh",
        subject: Some(format!("{}:{}", due.platform.id(), due.external_id)),
        at: read_at,
    };
    app.store.save_manual_refresh(read, &write, &charge).await?;
    match write.outcome {
        RefreshOutcome::Observed { .. } => Ok(()),
        RefreshOutcome::Gone { .. } => Err(unavailable()),
        RefreshOutcome::Failed { error } => {
            // The platform's own words go to the log, not to the client.
            tracing::warn!(platform = %due.platform, error, "manual refresh failed upstream");
            Err(ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorCode::ExternalApiError,
                format!(
                    "The {} read failed: {told}; nothing was charged",
                    due.platform.display_name()
                ),
            ))
        }
    }
}

/// 429 `REFRESH_TOO_SOON` with `Retry-After`.
fn too_soon(message: String, retry_after: u64) -> ApiError {
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RefreshTooSoon,
        message,
    )
    .with_retry_after(retry_after)
}

/// Whole seconds from `now` to `at`, rounded up, at least 1.
fn seconds_until(now: DateTime<Utc>, at: DateTime<Utc>) -> u64 {
    let ms = (at - now).num_milliseconds().max(0) as u64;
    ms.div_ceil(1000).max(1)
}
