//! Account usage (docs/api.md, "Usage": GET /v1/account/usage):
//! the usage report of [`crate::app::account`], in the flat envelope.

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::account::{UsageReport, usage_report};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::middleware::{RequestContext, flat_errors};
use crate::state::AppState;

/// The account routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(usage))
        .route_layer(axum::middleware::from_fn(flat_errors))
}

/// Read the organization's daily usage over the last 30 days.
///
/// Errors use the flat envelope. Request counts of the last few seconds
/// may still be in flight to the database on other nodes.
#[utoipa::path(
    get, path = "/v1/account/usage", tag = "account",
    responses(
        (status = 200, description = "Daily usage", body = Envelope<UsageReport>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY (flat)"),
    ),
    security(("api_key" = []))
)]
async fn usage(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
) -> Result<Json<Envelope<UsageReport>>, ApiError> {
    Ok(ok(usage_report(&app, auth.org.id).await?, Meta::of(&ctx)))
}
