//! Scheduled recaps in the dashboard API (docs/api.md, "Recaps"), through
//! the use cases of [`crate::app::recaps`], which hold who may do what.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::recaps::{
    Actor, CreateRecap, RecapDeleted, RecapView, UpdateRecap, create_recap, delete_recap,
    list_recaps, recap_id, update_recap,
};
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The recap routes of the dashboard.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(update, delete))
}

/// The caller's e-mail recaps and the organization's channel recaps (URLs
/// masked), oldest first. Any member, every plan.
#[utoipa::path(
    get, path = "/dashboard/recaps", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "The recaps", body = Envelope<Vec<RecapView>>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<Vec<RecapView>>>, ApiError> {
    Ok(ok(
        list_recaps(&app, Actor::Member(&auth)).await?,
        Meta::of(&ctx),
    ))
}

/// Subscribes the caller to a recap e-mail (any member), or with `channel`
/// posts a recap to a Slack or Discord channel (editors and above); paid
/// plans. An e-mail recap the caller has already (same scope and
/// frequency) answers 200 with it.
#[utoipa::path(
    post, path = "/dashboard/recaps", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body = CreateRecap,
    responses(
        (status = 201, description = "The recap", body = Envelope<RecapView>),
        (status = 200, description = "The caller's same recap, as it was", body = Envelope<RecapView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a channel recap needs an editor"),
        (status = 404, description = "NOT_FOUND: no such campaign"),
    ),
    security(("bearer_jwt" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: Result<JsonBody<CreateRecap>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<RecapView>>), ApiError> {
    let (recap, created) = create_recap(&app, Actor::Member(&auth), body?.parse()?).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, ok(recap, Meta::of(&ctx))))
}

/// Changes a recap: the caller's own e-mail recap, or a channel recap
/// (editors and above); paid plans.
#[utoipa::path(
    patch, path = "/dashboard/recaps/{recap_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("recap_id" = Uuid, Path, description = "The recap"),
    ),
    request_body = UpdateRecap,
    responses(
        (status = 200, description = "The recap", body = Envelope<RecapView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: no such recap (or another member's), or campaign"),
    ),
    security(("bearer_jwt" = []))
)]
async fn update(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<UpdateRecap>, ApiError>,
) -> Result<Json<Envelope<RecapView>>, ApiError> {
    let id = recap_id(path)?;
    let updated = update_recap(&app, Actor::Member(&auth), id, body?.parse()?).await?;
    Ok(ok(updated, Meta::of(&ctx)))
}

/// Stops a recap: the caller's own e-mail recap, or a channel recap
/// (editors and above); every plan.
#[utoipa::path(
    delete, path = "/dashboard/recaps/{recap_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("recap_id" = Uuid, Path, description = "The recap"),
    ),
    responses(
        (status = 200, description = "Stopped", body = Envelope<RecapDeleted>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn delete(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<RecapDeleted>>, ApiError> {
    let id = recap_id(path)?;
    Ok(ok(
        delete_recap(&app, Actor::Member(&auth), id).await?,
        Meta::of(&ctx),
    ))
}
