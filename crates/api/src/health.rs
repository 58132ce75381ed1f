//! Liveness and readiness (docs/operations.md, "Health").

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::state::AppState;

/// 200 as soon as the server accepts connections.
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// 200 when the database answers, 503 otherwise.
pub async fn readyz(State(app): State<AppState>) -> (StatusCode, Json<Value>) {
    match app.store.ping().await {
        Ok(()) => (StatusCode::OK, Json(json!({ "status": "ready" }))),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "status": "unavailable", "reason": "database unreachable" })),
            )
        }
    }
}
