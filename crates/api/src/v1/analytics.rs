//! Campaign analytics (GET /v1/analytics/metrics/totals
//! and /increments; the rules and group keys: docs/api.md, "Analytics").
//!
//! Paid plans; 1 credit per successful call. The use cases and their query
//! parameters (the window, the grouping, the publishing and tracking
//! periods, the scope), which the dashboard's statistics read too, are in
//! [`crate::app::analytics`]; this face checks the plan, picks JSON or CSV
//! and charges.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_store::Charge;

use crate::app::analytics::params::{
    AnalyticsParams, Grouping, Growth, Periods, Scope, TotalsParams, Window,
};
use crate::app::analytics::{IncrementsData, TotalsData, increments_data, totals_data};
use crate::app::compare::Compare;
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::Query;
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::export::{self, Format, FormatParam};

/// The analytics routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(totals))
        .routes(routes!(increments))
}

/// Charges the call's credit; the analysis is done, so only a store failure stops it.
pub(crate) async fn charge(
    app: &AppState,
    auth: &ApiKeyAuth,
    ctx: &RequestContext,
    reason: &'static str,
) -> Result<(), ApiError> {
    app.charges
        .charge(Charge {
            organization_id: auth.org.id,
            api_key_id: Some(auth.key_id),
            request_id: ctx.id.clone(),
            amount: 1,
            reason,
            subject: None,
            at: app.clock.now(),
        })
        .await?;
    Ok(())
}

/// Views, likes, comments, reposts and saves gained between two dates, in
/// total and per group. Paid plans; 1 credit.
#[utoipa::path(
    get, path = "/v1/analytics/metrics/totals", tag = "analytics",
    params(Window, Grouping, Periods, Scope, Growth, Compare, FormatParam),
    responses(
        (status = 200, description = "Totals (CSV: the total, then a row per group)",
         content((Envelope<TotalsData> = "application/json"), (String = "text/csv"))),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED"),
    ),
    security(("api_key" = []))
)]
async fn totals(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    q: Query<TotalsParams>,
) -> Result<Response, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let format = json_or_csv(&q, &headers)?;
    let TotalsParams(params, compare) = q.parse()?;
    let query = params.query(app.clock.now().date_naive())?;
    let data = totals_data(&app, auth.org.id, &query, &compare).await?;
    let csv = match format {
        Format::Csv => Some(export::totals_csv(&data)?),
        _ => None,
    };
    charge(&app, &auth, &ctx, "analytics_totals").await?;
    Ok(match csv {
        Some(csv) => export::download(format, "totals", csv.into()),
        None => ok(data, Meta::of(&ctx).with_credits(1)).into_response(),
    })
}

/// The format an analytics read is asked for: JSON, or CSV by `format=csv`
/// or `Accept: text/csv`.
pub(crate) fn json_or_csv<T>(q: &Query<T>, headers: &HeaderMap) -> Result<Format, ApiError> {
    Format::asked(
        q.all("format").last(),
        headers,
        &[Format::Json, Format::Csv],
    )
    .map_err(|message| ApiError::validation("format", message))
}

/// Views, likes, comments, reposts and saves gained per day, per group; days
/// and groups without a reading are left out. Paid plans; 1 credit.
#[utoipa::path(
    get, path = "/v1/analytics/metrics/increments", tag = "analytics",
    params(Window, Grouping, Periods, Scope, Growth, FormatParam),
    responses(
        (status = 200, description = "Daily increments (CSV: a row per day and group)",
         content((Envelope<IncrementsData> = "application/json"), (String = "text/csv"))),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED"),
    ),
    security(("api_key" = []))
)]
async fn increments(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    q: Query<AnalyticsParams>,
) -> Result<Response, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let format = json_or_csv(&q, &headers)?;
    let query = q.parse()?.query(app.clock.now().date_naive())?;
    let data = increments_data(&app, auth.org.id, &query).await?;
    let csv = match format {
        Format::Csv => Some(export::increments_csv(&data)?),
        _ => None,
    };
    charge(&app, &auth, &ctx, "analytics_increments").await?;
    Ok(match csv {
        Some(csv) => export::download(format, "increments", csv.into()),
        None => ok(data, Meta::of(&ctx).with_credits(1)).into_response(),
    })
}
