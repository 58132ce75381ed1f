//! Editing many videos at once (docs/api.md: PATCH /v1/videos/batch):
//! [`patch_videos`] with the API key's plan checked. Paid plans.

use axum::Json;
use axum::extract::State;

use crate::app::videos::{Batch, BatchPatchRequest, BatchPatchResult, patch_videos};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Edit the metadata of up to 100 tracked videos at once, all or nothing.
/// Requires a paid plan.
#[utoipa::path(
    patch, path = "/v1/videos/batch", tag = "videos",
    request_body = BatchPatchRequest,
    responses(
        (status = 200, description = "What was written", body = Envelope<BatchPatchResult>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "VIDEO_NOT_FOUND with `not_found`: the ids that name no video; nothing written"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn patch_batch(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    body: Result<JsonBody<Batch>, ApiError>,
) -> Result<Json<Envelope<BatchPatchResult>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let data = patch_videos(&app, auth.org.id, body).await?;
    Ok(ok(data, Meta::of(&ctx)))
}
