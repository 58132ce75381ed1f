//! Editing a video's metadata (docs/api.md: PATCH
//! /v1/videos/by-external-id/{external_video_id}): [`apply_patch`] with the
//! API key's plan checked. Paid plans.

use axum::Json;
use axum::extract::State;
use vidpulse_store::VideoLookup;

use crate::app::videos::{PatchRequest, PatchResult, apply_patch, video_not_found};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Update the editable metadata of a tracked video. Requires a paid plan.
#[utoipa::path(
    patch, path = "/v1/videos/by-external-id/{external_video_id}", tag = "videos",
    params(("external_video_id" = String, Path, description = "The platform's video id, percent-encoded")),
    request_body = PatchRequest,
    responses(
        (status = 200, description = "What was written", body = Envelope<PatchResult>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "VIDEO_NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn patch_by_external_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<PatchRequest>, ApiError>,
) -> Result<Json<Envelope<PatchResult>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let PathParam(external_id) = path.map_err(|_| video_not_found())?;
    let data = apply_patch(
        &app,
        auth.org.id,
        &VideoLookup::ExternalId(external_id),
        body,
    )
    .await?
    .ok_or_else(video_not_found)?;
    Ok(ok(data, Meta::of(&ctx)))
}
