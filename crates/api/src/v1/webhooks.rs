//! Webhook endpoints (docs/api.md, "Webhooks"): create (the signing secret
//! is shown once), list, read, update, delete, rotate the secret, send a
//! test event, the delivery log, and replay (one delivery, or every event
//! since an instant). Every plan; free. The dashboard API offers the same
//! under `/organizations/webhooks` (admins), through the same use cases
//! ([`crate::app::webhooks`]).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::webhooks::{
    CreateWebhook, Deleted, DeliveriesParams, DeliveryView, EndpointView, EndpointWithSecret,
    Queued, ReplayRequest, UpdateWebhook, create_endpoint, delete_endpoint, delivery_log,
    endpoint_id, list_endpoints, read_endpoint, replay_one, replay_since, rotate_endpoint,
    test_endpoint, update_endpoint,
};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The webhook routes of the public API.
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

/// The organization's webhook endpoints, oldest first.
#[utoipa::path(
    get, path = "/v1/webhooks", tag = "webhooks",
    responses(
        (status = 200, description = "The endpoints (never their secrets)", body = Envelope<Vec<EndpointView>>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
    ),
    security(("api_key" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
) -> Result<Json<Envelope<Vec<EndpointView>>>, ApiError> {
    Ok(ok(list_endpoints(&app, auth.org.id).await?, Meta::of(&ctx)))
}

/// Create an endpoint. The answer carries its signing secret, shown this
/// once (`whsec_…`); keep it to verify deliveries.
#[utoipa::path(
    post, path = "/v1/webhooks", tag = "webhooks",
    request_body = CreateWebhook,
    responses(
        (status = 201, description = "The endpoint and its secret", body = Envelope<EndpointWithSecret>),
        (status = 400, description = "VALIDATION_ERROR with `field` (a URL to a private address is refused unless the operator allows it)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 422, description = "WEBHOOK_LIMIT: 20 endpoints already"),
    ),
    security(("api_key" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    body: Result<JsonBody<CreateWebhook>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<EndpointWithSecret>>), ApiError> {
    let created = create_endpoint(&app, auth.org.id, body?.parse()?).await?;
    Ok((StatusCode::CREATED, ok(created, Meta::of(&ctx))))
}

/// One endpoint.
#[utoipa::path(
    get, path = "/v1/webhooks/{webhook_id}", tag = "webhooks",
    params(("webhook_id" = Uuid, Path, description = "The endpoint")),
    responses(
        (status = 200, description = "The endpoint", body = Envelope<EndpointView>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn read(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<EndpointView>>, ApiError> {
    let id = endpoint_id(path)?;
    Ok(ok(
        read_endpoint(&app, auth.org.id, id).await?,
        Meta::of(&ctx),
    ))
}

/// Change an endpoint: `url`, `events`, `description`, `enabled` (sending
/// `enabled: true` enables an endpoint the service disabled after days of
/// failure).
#[utoipa::path(
    patch, path = "/v1/webhooks/{webhook_id}", tag = "webhooks",
    params(("webhook_id" = Uuid, Path, description = "The endpoint")),
    request_body = UpdateWebhook,
    responses(
        (status = 200, description = "The endpoint", body = Envelope<EndpointView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn update(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<UpdateWebhook>, ApiError>,
) -> Result<Json<Envelope<EndpointView>>, ApiError> {
    let id = endpoint_id(path)?;
    let updated = update_endpoint(&app, auth.org.id, id, body?.parse()?).await?;
    Ok(ok(updated, Meta::of(&ctx)))
}

/// Delete an endpoint and its delivery log; nothing more is sent to it.
#[utoipa::path(
    delete, path = "/v1/webhooks/{webhook_id}", tag = "webhooks",
    params(("webhook_id" = Uuid, Path, description = "The endpoint")),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Deleted>),
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
) -> Result<Json<Envelope<Deleted>>, ApiError> {
    let id = endpoint_id(path)?;
    Ok(ok(
        delete_endpoint(&app, auth.org.id, id).await?,
        Meta::of(&ctx),
    ))
}

/// Replace the signing secret. The answer carries the new one (shown this
/// once); the old one keeps signing too for 24 hours, so receivers can
/// switch without losing a delivery.
#[utoipa::path(
    post, path = "/v1/webhooks/{webhook_id}/rotate-secret", tag = "webhooks",
    params(("webhook_id" = Uuid, Path, description = "The endpoint")),
    responses(
        (status = 200, description = "The endpoint and its new secret", body = Envelope<EndpointWithSecret>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn rotate(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<EndpointWithSecret>>, ApiError> {
    let id = endpoint_id(path)?;
    Ok(ok(
        rotate_endpoint(&app, auth.org.id, id).await?,
        Meta::of(&ctx),
    ))
}

/// Send a `webhook.test` event to the endpoint (enabled or not).
#[utoipa::path(
    post, path = "/v1/webhooks/{webhook_id}/test", tag = "webhooks",
    params(("webhook_id" = Uuid, Path, description = "The endpoint")),
    responses(
        (status = 202, description = "Queued", body = Envelope<Queued>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn test(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<(StatusCode, Json<Envelope<Queued>>), ApiError> {
    let id = endpoint_id(path)?;
    let queued = test_endpoint(&app, auth.org.id, id).await?;
    Ok((StatusCode::ACCEPTED, ok(queued, Meta::of(&ctx))))
}

/// The endpoint's delivery log, newest first: status, attempts, the last
/// answer's code and latency; the page in `meta.pagination`.
#[utoipa::path(
    get, path = "/v1/webhooks/{webhook_id}/deliveries", tag = "webhooks",
    params(("webhook_id" = Uuid, Path, description = "The endpoint"), DeliveriesParams),
    responses(
        (status = 200, description = "A page of deliveries", body = Envelope<Vec<DeliveryView>>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn deliveries(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    q: Query<DeliveriesParams>,
) -> Result<Json<Envelope<Vec<DeliveryView>>>, ApiError> {
    let id = endpoint_id(path)?;
    let (items, pagination) = delivery_log(&app, auth.org.id, id, q.parse()?).await?;
    Ok(ok(items, Meta::of(&ctx).with_pagination(pagination)))
}

/// Send one delivery's event again (a new delivery with the same
/// `webhook-id`, so a receiver that saw it can tell).
#[utoipa::path(
    post, path = "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay", tag = "webhooks",
    params(
        ("webhook_id" = Uuid, Path, description = "The endpoint"),
        ("delivery_id" = Uuid, Path, description = "The delivery"),
    ),
    responses(
        (status = 202, description = "The new delivery, queued", body = Envelope<DeliveryView>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn replay_delivery(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    axum::extract::Path((webhook, delivery)): axum::extract::Path<(String, String)>,
) -> Result<(StatusCode, Json<Envelope<DeliveryView>>), ApiError> {
    let queued = replay_one(&app, auth.org.id, &webhook, &delivery).await?;
    Ok((StatusCode::ACCEPTED, ok(queued, Meta::of(&ctx))))
}

/// Send again every event since `since` that the endpoint subscribes to,
/// oldest first (each with its own `webhook-id`, as first sent).
#[utoipa::path(
    post, path = "/v1/webhooks/{webhook_id}/replay", tag = "webhooks",
    params(("webhook_id" = Uuid, Path, description = "The endpoint")),
    request_body = ReplayRequest,
    responses(
        (status = 202, description = "How many deliveries were queued", body = Envelope<Queued>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn replay(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<ReplayRequest>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<Queued>>), ApiError> {
    let id = endpoint_id(path)?;
    let queued = replay_since(&app, auth.org.id, id, body?.parse()?).await?;
    Ok((StatusCode::ACCEPTED, ok(queued, Meta::of(&ctx))))
}
