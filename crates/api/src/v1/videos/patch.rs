//! Editing a video's metadata (spec: public-api-v1.md, PATCH
//! /v1/videos/by-external-id/{external_video_id}). Paid plans.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::patch::VideoPatch;

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::{JsonBody, PathParam};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Editable metadata (see the spec's PATCH table for the rules).
#[derive(Debug, ToSchema)]
#[allow(dead_code, reason = "documents the body that the domain validates")]
pub struct PatchRequest {
    /// At most 2000 characters; `""` clears.
    notes: Option<String>,
    /// Greater than 0; `null` or `""` clears.
    budget: Option<i64>,
    /// At most 200 characters of letters, digits, spaces and `- _ . ( ) | : % &`; `""` or `null` clears.
    campaign: Option<String>,
    /// `tracking`, `paused` or `deleted`.
    video_status: Option<String>,
    /// `to do`, `running` or `ended`.
    status: Option<String>,
    /// 0 or more; `null` or `""` clears.
    ecpm: Option<f64>,
    /// 1 to 50 names of at most 80 characters; additive, matched ignoring case.
    tags: Option<Vec<String>>,
}

/// What a PATCH did with tags.
#[derive(Debug, Serialize, ToSchema)]
pub struct TagsResultView {
    /// Names linked to the video.
    pub attached: Vec<String>,
    /// Names created by the request.
    pub created: Vec<String>,
    /// Tags on the video now.
    pub total: i64,
}

/// `data` of a PATCH.
#[derive(Debug, Serialize, ToSchema)]
pub struct PatchResult {
    /// The organization's id of the video.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Columns written (`campaign` is reported as `campaign_tag`).
    pub updated_fields: Vec<&'static str>,
    /// Present when `tags` was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags_result: Option<TagsResultView>,
}

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
    body: Result<JsonBody, ApiError>,
) -> Result<Json<Envelope<PatchResult>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::VideoNotFound,
            "Video not found",
        )
    };
    let PathParam(external_id) = path.map_err(|_| not_found())?;
    let JsonBody(body) = body?;
    let patch = VideoPatch::parse(&body).map_err(|e| ApiError::validation(&e.field, e.message))?;
    let out = app
        .store
        .patch_video(auth.org.id, &external_id, &patch, app.clock.now())
        .await?
        .ok_or_else(not_found)?;
    let data = PatchResult {
        video_id: out.video_id.0,
        external_video_id: out.external_id,
        updated_fields: out.updated_fields,
        tags_result: out.tags.map(|t| TagsResultView {
            attached: t.attached,
            created: t.created,
            total: t.total,
        }),
    };
    Ok(ok(data, Meta::of(&ctx)))
}
