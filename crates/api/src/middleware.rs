//! The request middleware: request ids, error rendering, usage counting and
//! the request log line.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;
use uuid::Uuid;
use vidpulse_domain::{ApiKeyId, OrgId};

use crate::error::{ApiError, ErrorCode, ErrorForm};
use crate::state::AppState;

/// The request id header.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Per-request facts every handler may need.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The request id (also in `X-Request-Id`).
    pub id: String,
    /// When the request arrived.
    pub started: Instant,
    /// Filled by API-key authentication, read back to count usage.
    pub caller: Arc<OnceLock<(OrgId, ApiKeyId)>>,
}

impl RequestContext {
    fn new() -> Self {
        Self {
            id: Uuid::new_v4().to_string(),
            started: Instant::now(),
            caller: Arc::default(),
        }
    }

    /// Milliseconds since the request arrived.
    pub fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// Gives the request its id and span, renders an [`ApiError`] in its
/// envelope, sets `X-Request-Id`, counts usage and logs the outcome.
pub async fn request_context(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let ctx = RequestContext::new();
    req.extensions_mut().insert(ctx.clone());
    let method = req.method().clone();
    let route = req.extensions().get::<MatchedPath>().cloned();
    let span = tracing::info_span!(
        "request",
        request_id = %ctx.id,
        method = %req.method(),
        path = %req.uri().path(),
    );
    // A request that outlasts the limit (a client trickling its body, say)
    // answers 408; dropping the handler rolls back what it started.
    let limit = state.config.connections.request_timeout;
    let mut response =
        match tokio::time::timeout(limit, next.run(req).instrument(span.clone())).await {
            Ok(response) => response,
            Err(_) => ApiError::new(
                axum::http::StatusCode::REQUEST_TIMEOUT,
                ErrorCode::RequestTimeout,
                format!("The request took longer than {} s", limit.as_secs()),
            )
            .into_response(),
        };
    response = render_error(response, &ctx.id);
    // An idempotent replay carries the id of the request it answered
    // (`crate::idempotency`), the one its body names.
    if !response.headers().contains_key(REQUEST_ID_HEADER)
        && let Ok(id) = HeaderValue::from_str(&ctx.id)
    {
        response.headers_mut().insert(REQUEST_ID_HEADER, id);
    }
    let status = response.status();
    let elapsed_ms = ctx.elapsed_ms();
    crate::metrics::record_request(
        &method,
        route.as_ref().map_or("unmatched", MatchedPath::as_str),
        status.as_u16(),
        ctx.started.elapsed(),
    );
    if let Some((org, key)) = ctx.caller.get() {
        state
            .usage
            .record(*org, *key, state.clock.now(), status, elapsed_ms);
    }
    span.in_scope(|| {
        if status.is_server_error() {
            tracing::warn!(status = status.as_u16(), elapsed_ms, "request failed");
        } else {
            tracing::info!(status = status.as_u16(), elapsed_ms, "request");
        }
    });
    response
}

/// `response` with the [`ApiError`] recorded in it rendered in its envelope
/// with `request_id`; unchanged when it records none.
pub fn render_error(mut response: Response, request_id: &str) -> Response {
    match response.extensions_mut().remove::<ApiError>() {
        Some(error) => render(response, &error, request_id),
        None => response,
    }
}

fn render(response: Response, error: &ApiError, request_id: &str) -> Response {
    let form = error.form.unwrap_or(ErrorForm::Nested);
    let body = error.body(form, request_id);
    let (mut parts, _) = response.into_parts();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body.to_string()))
}

/// Route layer for endpoints that answer errors in the flat form with a
/// `code` (GET /v1/videos/stats, GET /v1/account/usage).
pub async fn flat_errors(req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    if let Some(error) = response.extensions_mut().get_mut::<ApiError>() {
        error
            .form
            .get_or_insert(ErrorForm::Flat { with_code: true });
    }
    response
}
