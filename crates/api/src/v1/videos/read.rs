//! The two video reads (docs/api.md: GET /v1/videos/by-id and
//! /v1/videos/by-external-id): [`read_video`] answers both; a video the
//! organization does not have is a flat `Video not found`.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use uuid::Uuid;
use vidpulse_domain::VideoId;
use vidpulse_store::VideoLookup;

use crate::app::videos::{OneVideo, read_video};
use crate::auth::ApiKeyAuth;
use crate::envelope::Envelope;
use crate::error::{ApiError, ErrorCode, ErrorForm};
use crate::extract::PathParam;
use crate::middleware::RequestContext;
use crate::state::AppState;

fn video_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        "Video not found",
    )
    .with_form(ErrorForm::Flat { with_code: false })
}

/// Read one tracked video, with its statistics history, by its `video_id`.
#[utoipa::path(
    get, path = "/v1/videos/by-id/{video_id}", tag = "videos",
    params(("video_id" = String, Path, description = "The video's UUID")),
    responses(
        (status = 200, description = "The video", body = Envelope<OneVideo>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "Flat `Video not found`"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn by_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
) -> Result<Response, ApiError> {
    let id = path
        .ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .ok_or_else(video_not_found)?;
    read_video(
        &app,
        &ctx,
        auth.org.id,
        &headers,
        VideoLookup::Id(VideoId(id)),
    )
    .await?
    .ok_or_else(video_not_found)
}

/// Read one tracked video by the platform's id (the most recently tracked
/// one when two platforms share the id).
#[utoipa::path(
    get, path = "/v1/videos/by-external-id/{external_video_id}", tag = "videos",
    params(("external_video_id" = String, Path, description = "The platform's video id, percent-encoded")),
    responses(
        (status = 200, description = "The video", body = Envelope<OneVideo>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "Flat `Video not found`"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn by_external_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
) -> Result<Response, ApiError> {
    let PathParam(id) = path.map_err(|_| video_not_found())?;
    read_video(
        &app,
        &ctx,
        auth.org.id,
        &headers,
        VideoLookup::ExternalId(id),
    )
    .await?
    .ok_or_else(video_not_found)
}
