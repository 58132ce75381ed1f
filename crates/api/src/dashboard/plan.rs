//! `GET /organizations/plan`: the organization's plan, its limits and what it
//! uses of them (docs/api.md, "Plans, quotas and credits"), counted as the
//! checks that enforce them count. The web app shows it on Settings and
//! Usage, and builds from it the command that lifts a limit.

use axum::Json;
use axum::extract::State;
use chrono::Datelike;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::app::account::{month_start, next_month_start};
use crate::app::rfc3339;
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The plan route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(plan))
}

/// One limit and how much of it is in use.
#[derive(Debug, Serialize, ToSchema)]
pub struct Allowance {
    /// In use now.
    pub used: i64,
    /// The most allowed (the plan's, or the operator's override).
    pub limit: i64,
}

/// The month's trend searches.
#[derive(Debug, Serialize, ToSchema)]
pub struct MonthlyAllowance {
    /// Searches this calendar month (UTC).
    pub used: i64,
    /// Searches allowed a month (0: none on this plan).
    pub limit: i64,
    /// When the count starts again (RFC 3339, the next month's first instant).
    pub resets_at: String,
}

/// The organization's plan and what it uses of it.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlanReport {
    /// The organization.
    pub organization_id: Uuid,
    /// `free`, `pro` or `business`.
    #[schema(value_type = String, example = "pro")]
    pub plan: vidpulse_domain::Plan,
    /// Whether the plan allows the paid operations (PATCH, creators,
    /// analytics, trend search).
    pub paid_operations: bool,
    /// Videos whose tracking window is open, against the tracked-video quota.
    pub tracked_videos: Allowance,
    /// Active tracked creators and creator adds in flight, against the
    /// creator cap.
    pub creators: Allowance,
    /// Trend searches this month, against the plan's monthly allowance.
    pub trend_searches: MonthlyAllowance,
}

/// The current organization's plan, its limits and what it uses of each.
/// Any member.
#[utoipa::path(
    get, path = "/organizations/plan", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "The plan and its use", body = Envelope<PlanReport>),
        (status = 400, description = "VALIDATION_ERROR: missing or malformed X-Organization-ID"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn plan(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<PlanReport>>, ApiError> {
    let now = app.clock.now();
    let (org, used) = app
        .store
        .plan_use(auth.org, now, month_start(now.year(), now.month()))
        .await?
        .ok_or_else(|| ApiError::not_found("No such organization"))?;
    let limits = org.limits();
    Ok(ok(
        PlanReport {
            organization_id: org.id.0,
            plan: org.plan,
            paid_operations: org.plan.is_paid(),
            tracked_videos: Allowance {
                used: used.tracked_videos,
                limit: limits.video_quota,
            },
            creators: Allowance {
                used: used.creators,
                limit: limits.creator_cap,
            },
            trend_searches: MonthlyAllowance {
                used: used.trend_searches,
                limit: org.plan.monthly_trend_searches().unwrap_or(0),
                resets_at: rfc3339(next_month_start(now)),
            },
        },
        Meta::of(&ctx),
    ))
}
