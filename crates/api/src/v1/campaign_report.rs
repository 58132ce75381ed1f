//! The campaign report (GET /v1/campaigns/{id}/report; docs/api.md,
//! "Campaign report"): paid plans, 1 credit when it answers. The use case,
//! its parameters and the money rules are in
//! `app::campaigns::report`; this face checks the plan, picks JSON
//! or CSV and charges.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::campaigns::report::{
    CampaignReport, ReportParams, campaign_report, read_params, report_csv,
};
use crate::app::campaigns::{campaign_id, campaign_not_found};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::analytics::{charge, json_or_csv};
use crate::v1::export::{self, Format};

/// The report's route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(report))
}

/// What a campaign's videos gained over a window and what they cost: the
/// five metrics, spend, budget left, CPM, CPE, engagement rate, progress to
/// the target, and the same per creator. Paid plans; 1 credit.
#[utoipa::path(
    get, path = "/v1/campaigns/{id}/report", tag = "campaigns",
    params(
        ("id" = Uuid, Path, description = "The campaign's id"),
        ReportParams,
    ),
    responses(
        (status = 200, description = "The report (CSV: a row per creator, then the total)",
         content((Envelope<CampaignReport> = "application/json"), (String = "text/csv"))),
        (status = 400, description = "VALIDATION_ERROR with `field` (an unknown parameter is named too)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND: no such campaign in the organization"),
    ),
    security(("api_key" = []))
)]
async fn report(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
    q: Query<ReportParams>,
) -> Result<Response, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let ask = read_params(&q)?;
    let format = json_or_csv(&q, &headers)?;
    let id = campaign_id(path)?;
    let data = campaign_report(&app, auth.org.id, id, &ask)
        .await?
        .ok_or_else(campaign_not_found)?;
    let csv = match format {
        Format::Csv => Some(report_csv(&data)?),
        _ => None,
    };
    charge(&app, &auth, &ctx, "campaign_report").await?;
    Ok(match csv {
        Some(csv) => export::download(format, "campaign-report", csv.into()),
        None => ok(data, Meta::of(&ctx).with_credits(1)).into_response(),
    })
}
