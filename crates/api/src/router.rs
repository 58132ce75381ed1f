//! The whole HTTP surface: `/v1`, the MCP server, health, the OpenAPI
//! document, and the answers for unknown paths and methods.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::error::{ApiError, ErrorCode};
use crate::openapi::ApiDoc;
use crate::state::AppState;
use crate::{dashboard, health, mcp, metrics, middleware, shared, sign_in, v1};

/// Largest request body accepted; larger answers 413 `PAYLOAD_TOO_LARGE`.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// The application's router, ready to serve.
pub fn router(state: AppState) -> Router {
    metrics::install();
    let (api, doc) = routes_and_document();
    Router::new()
        .merge(api.route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::idempotency::idempotent,
        )))
        .merge(mcp::router())
        .merge(crate::openapi::docs(doc))
        .merge(vidpulse_web::router())
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(metrics::metrics))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(v1::gate::rate_limit_headers))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::request_context,
        ))
        .with_state(state)
}

/// Both interfaces' routes, and the OpenAPI document generated from them.
fn routes_and_document() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let (api, mut doc) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(v1::router())
        .merge(dashboard::router())
        .merge(sign_in::router())
        .merge(shared::router())
        .split_for_parts();
    v1::gate::describe(&mut doc);
    crate::idempotency::describe(&mut doc);
    crate::openapi::describe_errors(&mut doc);
    (api, doc)
}

/// The OpenAPI document `/openapi.json` serves.
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    routes_and_document().1
}

/// An unknown path: the web app's not-found page for a browser opening a
/// page (`vidpulse_web::not_found_page`), else 404 `NOT_FOUND`.
async fn not_found(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    vidpulse_web::not_found_page(&method, uri.path(), &headers)
        .unwrap_or_else(|| ApiError::not_found("No such endpoint").into_response())
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::MethodNotAllowed,
        "Method not allowed on this endpoint",
    )
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("handler panicked");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::InternalError,
        "Internal server error",
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    /// The document clients generate code from changes only on purpose:
    /// review the snapshot's diff, then accept it (`cargo insta review`, or
    /// `INSTA_UPDATE=always cargo test -p vidpulse-api openapi`).
    #[test]
    fn the_openapi_document_changes_only_on_purpose() {
        insta::assert_json_snapshot!("openapi", super::openapi_document());
    }

    /// Every path of the interfaces is one the web app leaves to the API:
    /// an unknown path under it is the JSON 404, never the app's page.
    #[test]
    fn every_api_path_is_outside_the_app() {
        let document = super::openapi_document();
        for path in document.paths.paths.keys() {
            assert!(
                vidpulse_web::API_PREFIXES.iter().any(|prefix| path
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))),
                "{path} is under none of vidpulse_web::API_PREFIXES"
            );
        }
    }

    /// The web app knows a signed-out browser by the session cookie's name.
    #[test]
    fn the_app_knows_the_session_cookie() {
        assert_eq!(
            vidpulse_web::SESSION_COOKIE,
            crate::sign_in::session::COOKIE
        );
    }
}
