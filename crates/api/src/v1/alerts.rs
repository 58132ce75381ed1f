//! Alert-rule endpoints (docs/api.md, "Alerts"): create, list, read, change
//! and delete an organization's rules, and list a rule's firings. Writes
//! are paid operations (402 `PAID_PLAN_REQUIRED` on the free plan); reads
//! answer on every plan. No credits. The dashboard API offers the same
//! under `/dashboard/alerts`, through the same use cases
//! ([`crate::app::alerts`]).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::alerts::{
    AlertEventView, AlertEventsParams, AlertTest, AlertView, CreateAlert, Deleted, UpdateAlert,
    alert_events, alert_id, create_alert, delete_alert, list_alerts, read_alert, test_alert,
    update_alert,
};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The alert routes of the public API.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, delete))
        .routes(routes!(events))
        .routes(routes!(test))
}

/// The organization's alert rules, oldest first. Every plan.
#[utoipa::path(
    get, path = "/v1/alerts", tag = "alerts",
    responses(
        (status = 200, description = "The rules (chat URLs masked)", body = Envelope<Vec<AlertView>>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
    ),
    security(("api_key" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
) -> Result<Json<Envelope<Vec<AlertView>>>, ApiError> {
    Ok(ok(list_alerts(&app, auth.org.id).await?, Meta::of(&ctx)))
}

/// Create an alert rule for the organization or one campaign. Requires a
/// paid plan.
#[utoipa::path(
    post, path = "/v1/alerts", tag = "alerts",
    request_body = CreateAlert,
    responses(
        (status = 201, description = "The rule", body = Envelope<AlertView>),
        (status = 400, description = "VALIDATION_ERROR with `field` (e.g. `params.thresholds[1]`, `channels[0].url`)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 422, description = "VALIDATION_ERROR: an e-mail recipient is not a member (`field` `channels[i].to[j]`), or 100 rules already"),
    ),
    security(("api_key" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    body: Result<JsonBody<CreateAlert>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<AlertView>>), ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let created = create_alert(&app, auth.org.id, body?.parse()?).await?;
    Ok((StatusCode::CREATED, ok(created, Meta::of(&ctx))))
}

/// One alert rule. Every plan.
#[utoipa::path(
    get, path = "/v1/alerts/{alert_id}", tag = "alerts",
    params(("alert_id" = Uuid, Path, description = "The rule")),
    responses(
        (status = 200, description = "The rule", body = Envelope<AlertView>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND (also another organization's rule)"),
    ),
    security(("api_key" = []))
)]
async fn read(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<AlertView>>, ApiError> {
    let id = alert_id(path)?;
    Ok(ok(read_alert(&app, auth.org.id, id).await?, Meta::of(&ctx)))
}

/// Change an alert rule: `name`, `campaign_id`, `params`, `channels`,
/// `enabled` (`kind` cannot change). Requires a paid plan.
#[utoipa::path(
    patch, path = "/v1/alerts/{alert_id}", tag = "alerts",
    params(("alert_id" = Uuid, Path, description = "The rule")),
    request_body = UpdateAlert,
    responses(
        (status = 200, description = "The rule", body = Envelope<AlertView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND"),
        (status = 422, description = "VALIDATION_ERROR: an e-mail recipient is not a member"),
    ),
    security(("api_key" = []))
)]
async fn update(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<UpdateAlert>, ApiError>,
) -> Result<Json<Envelope<AlertView>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let id = alert_id(path)?;
    let updated = update_alert(&app, auth.org.id, id, body?.parse()?).await?;
    Ok(ok(updated, Meta::of(&ctx)))
}

/// Delete an alert rule and its firings. Requires a paid plan.
#[utoipa::path(
    delete, path = "/v1/alerts/{alert_id}", tag = "alerts",
    params(("alert_id" = Uuid, Path, description = "The rule")),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Deleted>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn delete(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<Deleted>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let id = alert_id(path)?;
    Ok(ok(
        delete_alert(&app, auth.org.id, id).await?,
        Meta::of(&ctx),
    ))
}

/// A rule's firings, newest first, each with its sends; the page in
/// `meta.pagination`. Every plan.
#[utoipa::path(
    get, path = "/v1/alerts/{alert_id}/events", tag = "alerts",
    params(("alert_id" = Uuid, Path, description = "The rule"), AlertEventsParams),
    responses(
        (status = 200, description = "A page of firings", body = Envelope<Vec<AlertEventView>>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn events(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    q: Query<AlertEventsParams>,
) -> Result<Json<Envelope<Vec<AlertEventView>>>, ApiError> {
    let id = alert_id(path)?;
    let (items, pagination) = alert_events(&app, auth.org.id, id, q.parse()?).await?;
    Ok(ok(items, Meta::of(&ctx).with_pagination(pagination)))
}

/// Send a test message to each of a rule's channels now (e-mail
/// recipients, Slack, Discord; webhooks have a test of their own) and say
/// how each went; no firing is recorded. Requires a paid plan; one test per
/// rule every 30 seconds.
#[utoipa::path(
    post, path = "/v1/alerts/{alert_id}/test", tag = "alerts",
    params(("alert_id" = Uuid, Path, description = "The rule")),
    responses(
        (status = 200, description = "Each channel's outcome", body = Envelope<AlertTest>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED: tested moments ago, with `Retry-After`"),
    ),
    security(("api_key" = []))
)]
async fn test(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<AlertTest>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let id = alert_id(path)?;
    Ok(ok(test_alert(&app, auth.org.id, id).await?, Meta::of(&ctx)))
}
