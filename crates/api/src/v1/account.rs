//! Account usage (docs/api.md, "Usage": GET /v1/account/usage).

use axum::Json;
use axum::extract::State;
use chrono::{Duration, NaiveTime};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use vidpulse_domain::OrgId;

use crate::app::rfc3339;
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::middleware::{RequestContext, flat_errors};
use crate::state::AppState;

/// Days of history in the report, today included.
pub const USAGE_DAYS: i64 = 30;

/// The account routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(usage))
        .route_layer(axum::middleware::from_fn(flat_errors))
}

/// One day of usage.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageEntry {
    /// The organization.
    pub organization_id: Uuid,
    /// Start of the UTC day.
    pub created_at: String,
    /// Requests made with the organization's API keys.
    pub total_requests: i64,
    /// Requests answered below 400.
    pub successful_requests: i64,
    /// Requests answered 400 or above.
    pub error_requests: i64,
    /// Credits charged.
    pub total_credits_used: i64,
    /// Mean response time, in milliseconds.
    pub avg_response_time: f64,
    /// Distinct API keys used.
    pub unique_api_keys: i64,
}

/// Totals over the report.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageSummary {
    /// Requests in the last 30 days.
    pub total_requests_30_days: i64,
    /// Credits in the last 30 days.
    pub total_credits_30_days: i64,
}

/// `data` of the usage report.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageReport {
    /// Days with activity, newest first, at most 30.
    pub usage_history: Vec<UsageEntry>,
    /// Totals.
    pub summary: UsageSummary,
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

/// Organization `org`'s usage over the last 30 days, this node's pending
/// counts included.
pub(crate) async fn usage_report(app: &AppState, org: OrgId) -> Result<UsageReport, ApiError> {
    if let Err(e) = app.usage.flush().await {
        tracing::warn!(error = %e, "usage flush before report failed");
    }
    let today = app.clock.now().date_naive();
    let since = today - Duration::days(USAGE_DAYS - 1);
    let days = app.store.usage_history(org, since).await?;
    let summary = UsageSummary {
        total_requests_30_days: days.iter().map(|d| d.total_requests).sum(),
        total_credits_30_days: days.iter().map(|d| d.credits_used).sum(),
    };
    let usage_history = days
        .into_iter()
        .map(|d| UsageEntry {
            organization_id: org.0,
            created_at: rfc3339(d.day.and_time(NaiveTime::MIN).and_utc()),
            total_requests: d.total_requests,
            successful_requests: d.successful_requests,
            error_requests: d.error_requests,
            total_credits_used: d.credits_used,
            avg_response_time: (d.avg_response_time_ms * 100.0).round() / 100.0,
            unique_api_keys: d.unique_api_keys,
        })
        .collect();
    Ok(UsageReport {
        usage_history,
        summary,
    })
}
