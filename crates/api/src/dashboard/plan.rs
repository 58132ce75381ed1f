//! `GET /organizations/plan`: the organization's plan, its limits and what it
//! uses of them (docs/api.md, "Plans, quotas and credits"), counted as the
//! checks that enforce them count. The web app shows it on Settings and
//! Usage, and builds from it the command that lifts a limit.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::app::account::plan_standing;
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The plan route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(plan))
}

pub use crate::app::account::{Allowance, MonthlyAllowance};

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
    let standing = plan_standing(&app, auth.org).await?;
    Ok(ok(
        PlanReport {
            organization_id: standing.org.id.0,
            plan: standing.org.plan,
            paid_operations: standing.org.plan.is_paid(),
            tracked_videos: standing.tracked_videos,
            creators: standing.creators,
            trend_searches: standing.trend_searches,
        },
        Meta::of(&ctx),
    ))
}
