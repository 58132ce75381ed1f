//! The campaign report in the dashboard (GET /dashboard/campaigns/{id}/report):
//! the parameters, rules and answer of `GET /v1/campaigns/{id}/report`
//! (`app::campaigns::report`) for any member of the organization,
//! paid plans like every campaign operation, and free of credits like the
//! dashboard's other statistics.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::campaigns::report::{
    CampaignReport, ReportParams, campaign_report, read_params, report_csv,
};
use crate::app::campaigns::{campaign_id, campaign_not_found};
use crate::auth::require_paid_plan;
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::analytics::json_or_csv;
use crate::v1::export::{self, Format};

/// The report's route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(report))
}

/// A campaign's report: what `GET /v1/campaigns/{id}/report` answers, in
/// JSON or CSV. Any member; paid plans; no credits.
#[utoipa::path(
    get, path = "/dashboard/campaigns/{id}/report", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("id" = Uuid, Path, description = "The campaign's id"),
        ReportParams,
    ),
    responses(
        (status = 200, description = "The report (CSV: a row per creator, then the total)",
         content((Envelope<CampaignReport> = "application/json"), (String = "text/csv"))),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND: no such campaign in the organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn report(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
    q: Query<ReportParams>,
) -> Result<Response, ApiError> {
    let org = app
        .store
        .organization(auth.org)
        .await?
        .ok_or_else(campaign_not_found)?;
    require_paid_plan(org.plan, &app.config.upgrade_url)?;
    let ask = read_params(&q)?;
    let format = json_or_csv(&q, &headers)?;
    let id = campaign_id(path)?;
    let data = campaign_report(&app, auth.org, id, &ask)
        .await?
        .ok_or_else(campaign_not_found)?;
    Ok(match format {
        Format::Csv => export::download(format, "campaign-report", report_csv(&data)?.into()),
        _ => ok(data, Meta::of(&ctx)).into_response(),
    })
}
