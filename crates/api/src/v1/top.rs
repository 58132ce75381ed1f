//! Leaderboards (GET /v1/analytics/top; docs/api.md, "Leaderboards"):
//! the videos, creators or campaigns that gained most of one metric over a
//! window, by the totals rules. Paid plans; 1 credit, like the other
//! analytics reads. The use case is [`crate::app::top`].

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::analytics::params::{Growth, Scope, Window};
use crate::app::compare::Compare;
use crate::app::top::{Ranking, TopData, TopParams, leaderboard};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::Query;
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::analytics::{charge, json_or_csv};
use crate::v1::export::{self, Format, FormatParam};

/// The leaderboard's route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(top))
}

/// The videos, creators or campaigns that gained most of a metric between
/// two dates. Paid plans; 1 credit.
#[utoipa::path(
    get, path = "/v1/analytics/top", tag = "analytics",
    params(Ranking, Window, Scope, Growth, Compare, FormatParam),
    responses(
        (status = 200, description = "The leaderboard (CSV: a row per place)",
         content((Envelope<TopData> = "application/json"), (String = "text/csv"))),
        (status = 400, description = "VALIDATION_ERROR with `field` (also for a parameter the leaderboard does not know)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED"),
    ),
    security(("api_key" = []))
)]
async fn top(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    q: Query<TopParams>,
) -> Result<Response, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let format = json_or_csv(&q, &headers)?;
    let data = leaderboard(&app, auth.org.id, TopParams::read(&q)?).await?;
    let csv = match format {
        Format::Csv => Some(export::top_csv(&data)?),
        _ => None,
    };
    charge(&app, &auth, &ctx, "analytics_top").await?;
    Ok(match csv {
        Some(csv) => export::download(format, "top", csv.into()),
        None => ok(data, Meta::of(&ctx).with_credits(1)).into_response(),
    })
}
