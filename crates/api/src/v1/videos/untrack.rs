//! Untracking a video (docs/api.md: DELETE /v1/videos/by-id/{video_id} and
//! /v1/videos/by-external-id/{external_video_id}): [`untrack_video`]. Any plan.

use axum::Json;
use axum::extract::State;
use uuid::Uuid;
use vidpulse_domain::VideoId;
use vidpulse_store::VideoLookup;

use crate::app::videos::{UntrackResult, untrack_video, video_not_found};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::PathParam;
use crate::middleware::RequestContext;
use crate::state::AppState;

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
        .ok_or_else(video_not_found)?;
    let data = untrack_video(&app, auth.org.id, VideoLookup::Id(VideoId(id))).await?;
    Ok(ok(data, Meta::of(&ctx)))
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
    let PathParam(external_id) = path.map_err(|_| video_not_found())?;
    let data = untrack_video(&app, auth.org.id, VideoLookup::ExternalId(external_id)).await?;
    Ok(ok(data, Meta::of(&ctx)))
}
