//! The organization's webhook endpoints, for admins: the public API's
//! `/v1/webhooks` (docs/api.md, "Webhooks") under
//! `/organizations/webhooks`, through the same use cases
//! ([`crate::app::webhooks`]), so both interfaces answer alike.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::identity::Role;

use crate::app::webhooks::{
    CreateWebhook, Deleted, DeliveriesParams, DeliveryView, EndpointView, EndpointWithSecret,
    Queued, ReplayRequest, UpdateWebhook, create_endpoint, delete_endpoint, delivery_log,
    endpoint_id, list_endpoints, read_endpoint, replay_one, replay_since, rotate_endpoint,
    test_endpoint, update_endpoint,
};
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The webhook routes of the dashboard.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, delete))
        .routes(routes!(rotate))
        .routes(routes!(test))
        .routes(routes!(deliveries))
        .routes(routes!(replay_delivery))
        .routes(routes!(replay))
}

/// The organization's webhook endpoints, oldest first (never their
/// secrets). Admins.
#[utoipa::path(
    get, path = "/organizations/webhooks", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "The endpoints", body = Envelope<Vec<EndpointView>>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<Vec<EndpointView>>>, ApiError> {
    auth.require(Role::Admin)?;
    Ok(ok(list_endpoints(&app, auth.org).await?, Meta::of(&ctx)))
}

/// Creates an endpoint; the answer holds its signing secret, this once.
/// Admins.
#[utoipa::path(
    post, path = "/organizations/webhooks", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body = CreateWebhook,
    responses(
        (status = 201, description = "The endpoint and its secret", body = Envelope<EndpointWithSecret>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 422, description = "WEBHOOK_LIMIT: 20 endpoints already"),
    ),
    security(("bearer_jwt" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: Result<JsonBody<CreateWebhook>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<EndpointWithSecret>>), ApiError> {
    auth.require(Role::Admin)?;
    let created = create_endpoint(&app, auth.org, body?.parse()?).await?;
    Ok((StatusCode::CREATED, ok(created, Meta::of(&ctx))))
}

/// One endpoint. Admins.
#[utoipa::path(
    get, path = "/organizations/webhooks/{webhook_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
    ),
    responses(
        (status = 200, description = "The endpoint", body = Envelope<EndpointView>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn read(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<EndpointView>>, ApiError> {
    auth.require(Role::Admin)?;
    let id = endpoint_id(path)?;
    Ok(ok(read_endpoint(&app, auth.org, id).await?, Meta::of(&ctx)))
}

/// Changes an endpoint (`url`, `events`, `description`, `enabled`). Admins.
#[utoipa::path(
    patch, path = "/organizations/webhooks/{webhook_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
    ),
    request_body = UpdateWebhook,
    responses(
        (status = 200, description = "The endpoint", body = Envelope<EndpointView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn update(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<UpdateWebhook>, ApiError>,
) -> Result<Json<Envelope<EndpointView>>, ApiError> {
    auth.require(Role::Admin)?;
    let id = endpoint_id(path)?;
    Ok(ok(
        update_endpoint(&app, auth.org, id, body?.parse()?).await?,
        Meta::of(&ctx),
    ))
}

/// Deletes an endpoint and its delivery log. Admins.
#[utoipa::path(
    delete, path = "/organizations/webhooks/{webhook_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
    ),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Deleted>),
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
) -> Result<Json<Envelope<Deleted>>, ApiError> {
    auth.require(Role::Admin)?;
    let id = endpoint_id(path)?;
    Ok(ok(
        delete_endpoint(&app, auth.org, id).await?,
        Meta::of(&ctx),
    ))
}

/// Replaces the signing secret (the old one signs too for 24 hours); the
/// answer holds the new one, this once. Admins.
#[utoipa::path(
    post, path = "/organizations/webhooks/{webhook_id}/rotate-secret", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
    ),
    responses(
        (status = 200, description = "The endpoint and its new secret", body = Envelope<EndpointWithSecret>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn rotate(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<EndpointWithSecret>>, ApiError> {
    auth.require(Role::Admin)?;
    let id = endpoint_id(path)?;
    Ok(ok(
        rotate_endpoint(&app, auth.org, id).await?,
        Meta::of(&ctx),
    ))
}

/// Sends a `webhook.test` event to the endpoint. Admins.
#[utoipa::path(
    post, path = "/organizations/webhooks/{webhook_id}/test", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
    ),
    responses(
        (status = 202, description = "Queued", body = Envelope<Queued>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn test(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<(StatusCode, Json<Envelope<Queued>>), ApiError> {
    auth.require(Role::Admin)?;
    let id = endpoint_id(path)?;
    let queued = test_endpoint(&app, auth.org, id).await?;
    Ok((StatusCode::ACCEPTED, ok(queued, Meta::of(&ctx))))
}

/// The endpoint's delivery log, newest first. Admins.
#[utoipa::path(
    get, path = "/organizations/webhooks/{webhook_id}/deliveries", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
        DeliveriesParams,
    ),
    responses(
        (status = 200, description = "A page of deliveries", body = Envelope<Vec<DeliveryView>>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn deliveries(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
    q: Query<DeliveriesParams>,
) -> Result<Json<Envelope<Vec<DeliveryView>>>, ApiError> {
    auth.require(Role::Admin)?;
    let id = endpoint_id(path)?;
    let (items, pagination) = delivery_log(&app, auth.org, id, q.parse()?).await?;
    Ok(ok(items, Meta::of(&ctx).with_pagination(pagination)))
}

/// Sends one delivery's event again (same `webhook-id`). Admins.
#[utoipa::path(
    post, path = "/organizations/webhooks/{webhook_id}/deliveries/{delivery_id}/replay", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
        ("delivery_id" = Uuid, Path, description = "The delivery"),
    ),
    responses(
        (status = 202, description = "The new delivery, queued", body = Envelope<DeliveryView>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn replay_delivery(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    axum::extract::Path((webhook, delivery)): axum::extract::Path<(String, String)>,
) -> Result<(StatusCode, Json<Envelope<DeliveryView>>), ApiError> {
    auth.require(Role::Admin)?;
    let queued = replay_one(&app, auth.org, &webhook, &delivery).await?;
    Ok((StatusCode::ACCEPTED, ok(queued, Meta::of(&ctx))))
}

/// Sends again every event since `since` that the endpoint subscribes to.
/// Admins.
#[utoipa::path(
    post, path = "/organizations/webhooks/{webhook_id}/replay", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
    ),
    request_body = ReplayRequest,
    responses(
        (status = 202, description = "How many deliveries were queued", body = Envelope<Queued>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn replay(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<ReplayRequest>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<Queued>>), ApiError> {
    auth.require(Role::Admin)?;
    let id = endpoint_id(path)?;
    let queued = replay_since(&app, auth.org, id, body?.parse()?).await?;
    Ok((StatusCode::ACCEPTED, ok(queued, Meta::of(&ctx))))
}
