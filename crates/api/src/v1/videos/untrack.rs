//! Untracking a video (docs/api.md: DELETE /v1/videos/by-id/{video_id} and
//! /v1/videos/by-external-id/{external_video_id}): the video leaves the
//! organization; the shared catalog and other organizations keep theirs.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::{OrgId, VideoId};
use vidpulse_store::VideoLookup;

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::PathParam;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// `data` of an untrack.
#[derive(Debug, Serialize, ToSchema)]
pub struct UntrackResult {
    /// The organization's id the video had.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Always `true`: the video is no longer tracked.
    pub untracked: bool,
}

fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::VideoNotFound,
        "Video not found",
    )
}

/// Stop tracking a video: it leaves the organization's listing, records and
/// analytics with its notes, tags and imported readings, and frees its place
/// in the quota. Credits spent on it are not refunded. Any plan.
#[utoipa::path(
    delete, path = "/v1/videos/by-id/{video_id}", tag = "videos",
    params(("video_id" = Uuid, Path, description = "The organization's video id")),
    responses(
        (status = 200, description = "The video is no longer tracked", body = Envelope<UntrackResult>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "VIDEO_NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn untrack_by_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<UntrackResult>>, ApiError> {
    let id = path
        .ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .ok_or_else(not_found)?;
    untrack_video(&app, &ctx, auth.org.id, VideoLookup::Id(VideoId(id))).await
}

/// Stop tracking a video named by the platform's id (the most recently
/// tracked one when two platforms share it); as by id.
#[utoipa::path(
    delete, path = "/v1/videos/by-external-id/{external_video_id}", tag = "videos",
    params(("external_video_id" = String, Path, description = "The platform's video id, percent-encoded")),
    responses(
        (status = 200, description = "The video is no longer tracked", body = Envelope<UntrackResult>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "VIDEO_NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn untrack_by_external_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<UntrackResult>>, ApiError> {
    let PathParam(external_id) = path.map_err(|_| not_found())?;
    untrack_video(
        &app,
        &ctx,
        auth.org.id,
        VideoLookup::ExternalId(external_id),
    )
    .await
}

/// Untracks the organization's video `video` names (the caller checked who
/// may): the answer of both interfaces, 404 `VIDEO_NOT_FOUND` when the
/// organization has no such video.
pub(crate) async fn untrack_video(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    video: VideoLookup,
) -> Result<Json<Envelope<UntrackResult>>, ApiError> {
    let gone = app
        .store
        .untrack_video(org, &video)
        .await?
        .ok_or_else(not_found)?;
    Ok(ok(
        UntrackResult {
            video_id: gone.video_id.0,
            external_video_id: gone.external_id,
            untracked: true,
        },
        Meta::of(ctx),
    ))
}
