//! Reading a video now (docs/api.md: POST /v1/videos/by-id/{video_id}/refresh
//! and its by-external-id twin): [`refresh_video`] for the API key, 1 credit
//! for a fresh read.

use axum::Json;
use axum::extract::State;
use uuid::Uuid;
use vidpulse_domain::VideoId;
use vidpulse_store::VideoLookup;

use crate::app::videos::{RefreshResult, refresh_video, video_not_found};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::PathParam;
use crate::middleware::RequestContext;
use crate::state::AppState;

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
        .ok_or_else(video_not_found)?;
    let video = VideoLookup::Id(VideoId(id));
    let data = refresh_video(&app, &ctx, auth.org.id, Some(auth.key_id), video).await?;
    let meta = Meta::of(&ctx).with_credits(data.credits());
    Ok(ok(data, meta))
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
    let PathParam(external_id) = path.map_err(|_| video_not_found())?;
    let video = VideoLookup::ExternalId(external_id);
    let data = refresh_video(&app, &ctx, auth.org.id, Some(auth.key_id), video).await?;
    let meta = Meta::of(&ctx).with_credits(data.credits());
    Ok(ok(data, meta))
}
