//! Recap endpoints of the public API (docs/api.md, "Recaps"): an API key
//! acts for its organization, so it sees and manages every recap and
//! subscribes a member by naming them. Writes need a paid plan (stopping
//! does not); no credits. The dashboard API offers the same under
//! `/dashboard/recaps`, for the signed-in member, through the same use
//! cases ([`crate::app::recaps`]).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::recaps::{
    Actor, CreateRecap, RecapDeleted, RecapView, UpdateRecap, create_recap, delete_recap,
    list_recaps, recap_id, update_recap,
};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The recap routes of the public API.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(update, delete))
}

/// Every recap of the organization: each member's e-mail recaps and the
/// channel recaps (URLs masked), oldest first. Every plan.
#[utoipa::path(
    get, path = "/v1/recaps", tag = "recaps",
    responses(
        (status = 200, description = "The recaps", body = Envelope<Vec<RecapView>>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
    ),
    security(("api_key" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
) -> Result<Json<Envelope<Vec<RecapView>>>, ApiError> {
    Ok(ok(
        list_recaps(&app, Actor::Key(&auth)).await?,
        Meta::of(&ctx),
    ))
}

/// Subscribes a member (`member`) to a recap e-mail, or with `channel`
/// posts a recap to a Slack or Discord channel. Requires a paid plan. An
/// e-mail recap the member has already (same scope and frequency) answers
/// 200 with it.
#[utoipa::path(
    post, path = "/v1/recaps", tag = "recaps",
    request_body = CreateRecap,
    responses(
        (status = 201, description = "The recap", body = Envelope<RecapView>),
        (status = 200, description = "The member's same recap, as it was", body = Envelope<RecapView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND: no such campaign"),
        (status = 422, description = "VALIDATION_ERROR: `member` is not a member of the organization"),
    ),
    security(("api_key" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    body: Result<JsonBody<CreateRecap>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<RecapView>>), ApiError> {
    let (recap, created) = create_recap(&app, Actor::Key(&auth), body?.parse()?).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, ok(recap, Meta::of(&ctx))))
}

/// Changes a recap of the organization. Requires a paid plan.
#[utoipa::path(
    patch, path = "/v1/recaps/{recap_id}", tag = "recaps",
    params(("recap_id" = Uuid, Path, description = "The recap")),
    request_body = UpdateRecap,
    responses(
        (status = 200, description = "The recap", body = Envelope<RecapView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND: no such recap, or campaign"),
    ),
    security(("api_key" = []))
)]
async fn update(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<UpdateRecap>, ApiError>,
) -> Result<Json<Envelope<RecapView>>, ApiError> {
    let id = recap_id(path)?;
    let updated = update_recap(&app, Actor::Key(&auth), id, body?.parse()?).await?;
    Ok(ok(updated, Meta::of(&ctx)))
}

/// Stops a recap of the organization. Every plan.
#[utoipa::path(
    delete, path = "/v1/recaps/{recap_id}", tag = "recaps",
    params(("recap_id" = Uuid, Path, description = "The recap")),
    responses(
        (status = 200, description = "Stopped", body = Envelope<RecapDeleted>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn delete(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<RecapDeleted>>, ApiError> {
    let id = recap_id(path)?;
    Ok(ok(
        delete_recap(&app, Actor::Key(&auth), id).await?,
        Meta::of(&ctx),
    ))
}
