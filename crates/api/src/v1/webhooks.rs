//! Webhook endpoints (docs/api.md, "Webhooks"): create (the signing secret
//! is shown once), list, read, update, delete, rotate the secret, send a
//! test event, the delivery log, and replay (one delivery, or every event
//! since an instant). Every plan; free. The dashboard API offers the same
//! under `/organizations/webhooks` (admins), through the functions here.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::patch::sent;
use vidpulse_domain::webhooks::EventType;
use vidpulse_store::webhooks::MAX_ENDPOINTS;
use vidpulse_store::{Delivery, DeliveryStatus, EndpointChange, NewEndpoint, WebhookEndpoint};

use crate::app::rfc3339;
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, Pagination, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::{JsonBody, PathParam, Query};
use crate::input::{Bounded, Fault, Refusals, not_an_object, text, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Longest endpoint URL.
pub const URL_MAX_CHARS: usize = 2000;
/// Longest description.
pub const DESCRIPTION_MAX_CHARS: usize = 500;
/// How long the secret a rotation replaces keeps signing.
pub fn rotation_overlap() -> Duration {
    Duration::hours(24)
}

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

/// An endpoint as its owner sees it (never its secret).
#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointView {
    /// Its id.
    pub id: Uuid,
    /// Where deliveries are posted.
    pub url: String,
    /// The owner's note.
    pub description: Option<String>,
    /// The events it subscribes to.
    pub events: Vec<&'static str>,
    /// Whether deliveries are made.
    pub enabled: bool,
    /// Why the service disabled it (every delivery failing for 5 days).
    pub disabled_reason: Option<String>,
    /// Since when every delivery to it has failed, while they do.
    pub failing_since: Option<String>,
    /// Until when the secret before the last rotation still signs too.
    pub previous_secret_expires_at: Option<String>,
    /// When it was created.
    pub created_at: String,
    /// When it was last changed.
    pub updated_at: String,
}

impl From<WebhookEndpoint> for EndpointView {
    fn from(e: WebhookEndpoint) -> Self {
        Self {
            id: e.id,
            url: e.url,
            description: e.description,
            events: e.events.iter().map(|e| e.as_str()).collect(),
            enabled: e.enabled,
            disabled_reason: e.disabled_reason,
            failing_since: e.failing_since.map(rfc3339),
            previous_secret_expires_at: e.previous_secret_expires_at.map(rfc3339),
            created_at: rfc3339(e.created_at),
            updated_at: rfc3339(e.updated_at),
        }
    }
}

/// An endpoint with its signing secret: shown on creation and rotation only.
#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointWithSecret {
    /// The signing secret: `whsec_` and the key in base64 (Standard Webhooks).
    pub secret: String,
    /// The endpoint.
    #[serde(flatten)]
    pub endpoint: EndpointView,
}

/// One line of an endpoint's delivery log.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    /// Its id.
    pub id: Uuid,
    /// The event: the `webhook-id` every attempt carries.
    pub event_id: Uuid,
    /// The event's type.
    pub event_type: String,
    /// `pending`, `delivered` or `failed`.
    pub status: &'static str,
    /// Attempts made.
    pub attempts: i64,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<String>,
    /// When the last attempt was made.
    pub last_attempt_at: Option<String>,
    /// The HTTP status the endpoint last answered.
    pub last_status_code: Option<i64>,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// How long the last attempt took, in milliseconds.
    pub last_latency_ms: Option<i64>,
    /// When the endpoint took it.
    pub delivered_at: Option<String>,
    /// When it was queued.
    pub created_at: String,
}

impl From<Delivery> for DeliveryView {
    fn from(d: Delivery) -> Self {
        Self {
            id: d.id,
            event_id: d.event_id,
            event_type: d.event_type,
            status: d.status.as_str(),
            attempts: d.attempts,
            next_attempt_at: d.next_attempt_at.map(rfc3339),
            last_attempt_at: d.last_attempt_at.map(rfc3339),
            last_status_code: d.last_status_code,
            last_error: d.last_error,
            last_latency_ms: d.last_latency_ms,
            delivered_at: d.delivered_at.map(rfc3339),
            created_at: rfc3339(d.created_at),
        }
    }
}

/// Body of a creation.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhook {
    /// Required: the http(s) URL deliveries are posted to (at most 2000 characters).
    url: String,
    /// Required: 1 or more of `video.tracked`, `video.milestone`, `video.tracking_completed`, `video.unavailable`, `creator.job.succeeded`, `creator.job.failed`, `creator.video_discovered`.
    events: Vec<String>,
    /// Optional note (at most 500 characters).
    #[serde(default)]
    description: Option<String>,
}

/// Body of an update: the fields sent change; `enabled: true` enables an
/// endpoint the service disabled.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWebhook {
    /// A new URL.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    url: Option<String>,
    /// New events (replacing the old).
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = Vec<String>)]
    events: Option<Vec<String>>,
    /// A new note; `null` or `""` clears.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<String>)]
    description: Option<Option<String>>,
    /// Enable or disable deliveries.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = bool)]
    enabled: Option<bool>,
}

/// Body of a replay of every event since an instant.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayRequest {
    /// Required: RFC 3339 instant; every event since then the endpoint subscribes to is queued again.
    since: String,
}

/// The answer of a replay or a test.
#[derive(Debug, Serialize, ToSchema)]
pub struct Queued {
    /// Deliveries queued.
    pub queued: u64,
    /// The test event's id (a test only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<Uuid>,
}

/// Type faults of the three bodies.
fn refuse_body(fault: &Fault<'_>) -> ApiError {
    let field = fault.field();
    let message = match field {
        "" => return not_an_object(),
        "url" => "`url` must be a string".to_owned(),
        "events" => "`events` must be an array of event names".to_owned(),
        "description" => "`description` must be a string or null".to_owned(),
        "enabled" => "`enabled` must be true or false".to_owned(),
        "since" => "`since` must be an RFC 3339 instant".to_owned(),
        unknown => format!("unknown field `{unknown}`"),
    };
    ApiError::validation(field, message)
}

impl Refusals for CreateWebhook {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

impl Refusals for UpdateWebhook {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

impl Refusals for ReplayRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

/// A checked endpoint URL.
fn checked_url(app: &AppState, url: &str) -> Result<String, ApiError> {
    let url = url.trim();
    if url.is_empty() || url.chars().count() > URL_MAX_CHARS {
        return Err(ApiError::validation(
            "url",
            format!("`url` must be 1 to {URL_MAX_CHARS} characters"),
        ));
    }
    if let Some(why) = vidpulse_domain::webhooks::refused_url(url, app.config.webhook_allow_private)
    {
        return Err(ApiError::validation(
            "url",
            format!("`url` is refused: {why}"),
        ));
    }
    Ok(url.to_owned())
}

/// Checked event names: 1 or more known ones, each once.
fn checked_events(names: &[String]) -> Result<Vec<EventType>, ApiError> {
    if names.is_empty() {
        return Err(ApiError::validation(
            "events",
            "`events` must name at least one event",
        ));
    }
    let mut events = Vec::with_capacity(names.len());
    for name in names {
        let event: EventType = name.parse().map_err(|_| {
            let known: Vec<&str> = EventType::SUBSCRIBABLE.iter().map(|e| e.as_str()).collect();
            ApiError::validation(
                "events",
                format!("unknown event `{name}`; known: {}", known.join(", ")),
            )
        })?;
        if !events.contains(&event) {
            events.push(event);
        }
    }
    Ok(events)
}

/// A checked description: trimmed, empty is none.
fn checked_description(text: Option<&str>) -> Result<Option<String>, ApiError> {
    let text = text.map(str::trim).filter(|t| !t.is_empty());
    if text.is_some_and(|t| t.chars().count() > DESCRIPTION_MAX_CHARS) {
        return Err(ApiError::validation(
            "description",
            format!("`description` must be at most {DESCRIPTION_MAX_CHARS} characters"),
        ));
    }
    Ok(text.map(str::to_owned))
}

/// `org`'s endpoints, oldest first.
pub(crate) async fn list_endpoints(
    app: &AppState,
    org: OrgId,
) -> Result<Vec<EndpointView>, ApiError> {
    let endpoints = app.store.endpoints(org).await?;
    Ok(endpoints.into_iter().map(EndpointView::from).collect())
}

/// `org`'s endpoint `id`.
pub(crate) async fn read_endpoint(
    app: &AppState,
    org: OrgId,
    id: Uuid,
) -> Result<EndpointView, ApiError> {
    let endpoint = app
        .store
        .endpoint(org, id)
        .await?
        .ok_or_else(endpoint_not_found)?;
    Ok(endpoint.into())
}

/// Deletes `org`'s endpoint `id`.
pub(crate) async fn delete_endpoint(
    app: &AppState,
    org: OrgId,
    id: Uuid,
) -> Result<Deleted, ApiError> {
    if !app.store.delete_endpoint(org, id).await? {
        return Err(endpoint_not_found());
    }
    Ok(Deleted { id, deleted: true })
}

fn endpoint_not_found() -> ApiError {
    ApiError::not_found("No such webhook endpoint")
}

/// The endpoint id of a path (an unparsable one is not found).
pub(crate) fn endpoint_id(path: Result<PathParam, ApiError>) -> Result<Uuid, ApiError> {
    path.ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .ok_or_else(endpoint_not_found)
}

/// Creates an endpoint for `org` from `body`.
pub(crate) async fn create_endpoint(
    app: &AppState,
    org: OrgId,
    body: Result<JsonBody<CreateWebhook>, ApiError>,
) -> Result<EndpointWithSecret, ApiError> {
    let body = body?.parse()?;
    let url = checked_url(app, &body.url)?;
    let events = checked_events(&body.events)?;
    let description = checked_description(body.description.as_deref())?;
    let secret = vidpulse_domain::webhooks::new_secret();
    let endpoint = NewEndpoint {
        url,
        description,
        events,
        secret: secret.clone(),
    };
    let created = app
        .store
        .create_endpoint(org, &endpoint, app.clock.now())
        .await?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::WebhookLimit,
                format!("An organization has at most {MAX_ENDPOINTS} webhook endpoints"),
            )
        })?;
    Ok(EndpointWithSecret {
        secret,
        endpoint: created.into(),
    })
}

/// Applies `body` to `org`'s endpoint `id`.
pub(crate) async fn update_endpoint(
    app: &AppState,
    org: OrgId,
    id: Uuid,
    body: Result<JsonBody<UpdateWebhook>, ApiError>,
) -> Result<EndpointView, ApiError> {
    let body = body?.parse()?;
    if body.url.is_none()
        && body.events.is_none()
        && body.description.is_none()
        && body.enabled.is_none()
    {
        return Err(ApiError::validation(
            "body",
            "at least one of url, events, description, enabled is required",
        ));
    }
    let change = EndpointChange {
        url: body
            .url
            .as_deref()
            .map(|u| checked_url(app, u))
            .transpose()?,
        description: body
            .description
            .map(|d| checked_description(d.as_deref()))
            .transpose()?,
        events: body.events.as_deref().map(checked_events).transpose()?,
        enabled: body.enabled,
    };
    let updated = app
        .store
        .update_endpoint(org, id, &change, app.clock.now())
        .await?
        .ok_or_else(endpoint_not_found)?;
    Ok(updated.into())
}

/// Rotates `org`'s endpoint `id`'s secret.
pub(crate) async fn rotate_endpoint(
    app: &AppState,
    org: OrgId,
    id: Uuid,
) -> Result<EndpointWithSecret, ApiError> {
    let secret = vidpulse_domain::webhooks::new_secret();
    let endpoint = app
        .store
        .rotate_secret(org, id, &secret, rotation_overlap(), app.clock.now())
        .await?
        .ok_or_else(endpoint_not_found)?;
    Ok(EndpointWithSecret {
        secret,
        endpoint: endpoint.into(),
    })
}

/// Queues a test event to `org`'s endpoint `id`.
pub(crate) async fn test_endpoint(
    app: &AppState,
    org: OrgId,
    id: Uuid,
) -> Result<Queued, ApiError> {
    let event = app
        .store
        .send_test_event(org, id, app.clock.now())
        .await?
        .ok_or_else(endpoint_not_found)?;
    Ok(Queued {
        queued: 1,
        event_id: Some(event),
    })
}

/// The delivery log's query.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeliveriesParams {
    /// Deliveries per page, 1 to 100 (default 20)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 20)]
    limit: Option<Bounded<1, 100>>,
    /// Deliveries skipped, 0 or more (default 0)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>, minimum = 0, default = 0)]
    offset: Option<Bounded<0, { i64::MAX }>>,
    /// Only `pending`, `delivered` or `failed` deliveries
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    status: Option<StatusFilter>,
}

/// A delivery status by name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StatusFilter(DeliveryStatus);

impl std::str::FromStr for StatusFilter {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "pending" => Ok(StatusFilter(DeliveryStatus::Pending)),
            "delivered" => Ok(StatusFilter(DeliveryStatus::Delivered)),
            "failed" => Ok(StatusFilter(DeliveryStatus::Failed)),
            _ => Err(()),
        }
    }
}

impl Refusals for DeliveriesParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let field = fault.field();
        let message = match field {
            "limit" => "`limit` must be a whole number from 1 to 100".to_owned(),
            "offset" => "`offset` must be a whole number of 0 or more".to_owned(),
            "status" => "`status` must be pending, delivered or failed".to_owned(),
            unknown => {
                format!("Unknown query parameter `{unknown}`; known: limit, offset, status")
            }
        };
        ApiError::validation(field, message)
    }
}

/// A page of `org`'s endpoint `id`'s delivery log.
pub(crate) async fn delivery_log(
    app: &AppState,
    org: OrgId,
    id: Uuid,
    q: &Query<DeliveriesParams>,
) -> Result<(Vec<DeliveryView>, Pagination), ApiError> {
    let DeliveriesParams {
        limit,
        offset,
        status,
    } = q.parse()?;
    let (limit, offset) = (
        limit.map_or(20, |Bounded(n)| n),
        offset.map_or(0, |Bounded(n)| n),
    );
    let (items, total) = app
        .store
        .deliveries(org, id, status.map(|StatusFilter(s)| s), limit, offset)
        .await?
        .ok_or_else(endpoint_not_found)?;
    Ok((
        items.into_iter().map(DeliveryView::from).collect(),
        Pagination::of(total, limit, offset),
    ))
}

/// Queues `org`'s delivery `delivery` of endpoint `webhook` again (both
/// as the path names them: an id that is not a UUID is not found).
pub(crate) async fn replay_one(
    app: &AppState,
    org: OrgId,
    webhook: &str,
    delivery: &str,
) -> Result<DeliveryView, ApiError> {
    let id = Uuid::parse_str(webhook).map_err(|_| endpoint_not_found())?;
    if app.store.endpoint(org, id).await?.is_none() {
        return Err(endpoint_not_found());
    }
    let not_found = || ApiError::not_found("No such delivery");
    let delivery = Uuid::parse_str(delivery).map_err(|_| not_found())?;
    let queued = app
        .store
        .replay_delivery(org, id, delivery, app.clock.now())
        .await?
        .ok_or_else(not_found)?;
    Ok(queued.into())
}

/// Queues to `org`'s endpoint `id` every event since `body.since`.
pub(crate) async fn replay_since(
    app: &AppState,
    org: OrgId,
    id: Uuid,
    body: Result<JsonBody<ReplayRequest>, ApiError>,
) -> Result<Queued, ApiError> {
    let body = body?.parse()?;
    let since: DateTime<Utc> = DateTime::parse_from_rfc3339(body.since.trim())
        .map_err(|_| {
            ApiError::validation(
                "since",
                format!("`since` must be an RFC 3339 instant; got `{}`", body.since),
            )
        })?
        .with_timezone(&Utc);
    let queued = app
        .store
        .replay_since(org, id, since, app.clock.now())
        .await?
        .ok_or_else(endpoint_not_found)?;
    Ok(Queued {
        queued,
        event_id: None,
    })
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
    let created = create_endpoint(&app, auth.org.id, body).await?;
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
    let updated = update_endpoint(&app, auth.org.id, id, body).await?;
    Ok(ok(updated, Meta::of(&ctx)))
}

/// `data` of a deletion.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    /// The endpoint deleted.
    pub id: Uuid,
    /// Always `true`.
    pub deleted: bool,
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
    let (items, pagination) = delivery_log(&app, auth.org.id, id, &q).await?;
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
    let queued = replay_since(&app, auth.org.id, id, body).await?;
    Ok((StatusCode::ACCEPTED, ok(queued, Meta::of(&ctx))))
}
