//! Dashboard analytics (docs/api.md, "Analytics", "In the dashboard"): one
//! video's history and daily increments, the organization's totals and
//! per-day series, and the top videos of one day. The same rules as the
//! public analytics (docs/api.md, "The rules"), through the same use cases
//! ([`crate::app::analytics`], [`crate::app::top`]); no plan gate
//! and no credits: this is the organization looking at its own data.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::VideoId;
use vidpulse_store::DayIncrementQuery;

use crate::app::analytics::params::{
    AnalyticsParams, Day, Grouping, Growth, Scope, TotalsParams, Window, bad_day,
};
use crate::app::analytics::video::VideoStats;
use crate::app::analytics::{self, OrganizationStats};
use crate::app::compare::Compare;
use crate::app::top::{Ranking, TopData, TopParams, TopVideo, day_top, leaderboard};
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::input::{Bounded, Fault, Input, Refusals, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Default and largest number of `for_date` rows.
pub const FOR_DATE_LIMIT: (i64, i64) = (100, 1000);

/// The dashboard analytics routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(video_stats))
        .routes(routes!(organization_stats))
        .routes(routes!(for_date))
        .routes(routes!(top))
}

/// A video's readings and daily gains. Any member.
#[utoipa::path(
    get, path = "/dashboard/videos/{id}/stats", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("id" = Uuid, Path, description = "The organization's video id"),
    ),
    responses(
        (status = 200, description = "History and daily increments", body = Envelope<VideoStats>),
        (status = 404, description = "NOT_FOUND: no such video in the organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn video_stats(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    PathParam(id): PathParam,
) -> Result<Json<Envelope<VideoStats>>, ApiError> {
    let id = Uuid::parse_str(&id).map_err(|_| ApiError::not_found("No such video"))?;
    let stats = analytics::video::video_stats(&app, auth.org, VideoId(id)).await?;
    Ok(ok(stats, Meta::of(&ctx)))
}

/// The parameters of `for_date` besides the analytics ones.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ForDateParams {
    /// The day, YYYY-MM-DD (required)
    #[param(value_type = String)]
    date: Day,
    /// views (default), likes, comments, reposts or saves
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    sort_by: Option<SortMetric>,
    /// 1 to 1000 rows (default 100)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<i64>)]
    limit: Option<Bounded<1, { FOR_DATE_LIMIT.1 }>>,
}

/// A metric `for_date` sorts by.
#[derive(Debug, Clone, Copy)]
struct SortMetric(&'static str);

impl std::str::FromStr for SortMetric {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        vidpulse_store::analytics::SORT_METRICS
            .into_iter()
            .find(|m| *m == s)
            .map(SortMetric)
            .ok_or(())
    }
}

impl Refusals for ForDateParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "date" if fault.sent().is_none_or(|d| d.as_str() == Some("")) => {
                ApiError::validation("date", "`date` is required")
            }
            "date" => bad_day(fault),
            "sort_by" => ApiError::validation(
                "sort_by",
                "`sort_by` must be views, likes, comments, reposts or saves",
            ),
            _ => ApiError::validation(
                "limit",
                format!("`limit` must be 1 to {}", FOR_DATE_LIMIT.1),
            ),
        }
    }
}

/// What `for_date` reads: its own parameters, then the analytics ones, as
/// the analytics endpoints check them (of those, `platform` and `campaign`
/// apply).
struct ForDateQuery(ForDateParams, AnalyticsParams);

impl Input for ForDateQuery {
    fn from_json(value: &Value) -> Result<Self, ApiError> {
        Ok(Self(
            ForDateParams::from_json(value)?,
            AnalyticsParams::from_json(value)?,
        ))
    }
}

/// The organization's gains over a window, in total and per day. Any member.
#[utoipa::path(
    get, path = "/dashboard/stats", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        Window,
        Grouping,
        Scope,
        Growth,
        Compare,
    ),
    responses(
        (status = 200, description = "Totals, days and groups", body = Envelope<OrganizationStats>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
    ),
    security(("bearer_jwt" = []))
)]
async fn organization_stats(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    q: Query<TotalsParams>,
) -> Result<Json<Envelope<OrganizationStats>>, ApiError> {
    // The analytics endpoints' parameters, all of them read and checked
    // alike; the dashboard documents the window, the grouping, the scope
    // and the comparison.
    let TotalsParams(params, compare) = q.parse()?;
    let query = params.query(app.clock.now().date_naive())?;
    let stats = analytics::organization_stats(&app, auth.org, &query, &compare).await?;
    Ok(ok(stats, Meta::of(&ctx)))
}

/// The videos, creators or campaigns that gained most of a metric between
/// two dates: the parameters and answer of `GET /v1/analytics/top`. Any
/// member; no credits.
#[utoipa::path(
    get, path = "/dashboard/top", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        Ranking,
        Window,
        Scope,
        Growth,
        Compare,
    ),
    responses(
        (status = 200, description = "The leaderboard", body = Envelope<TopData>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
    ),
    security(("bearer_jwt" = []))
)]
async fn top(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    q: Query<TopParams>,
) -> Result<Json<Envelope<TopData>>, ApiError> {
    let data = leaderboard(&app, auth.org, TopParams::read(&q)?).await?;
    Ok(ok(data, Meta::of(&ctx)))
}

/// The tracked videos' gains on one day, largest first. Any member.
#[utoipa::path(
    get, path = "/analytics/videos/for_date", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ForDateParams,
        Scope,
    ),
    responses(
        (status = 200, description = "Top videos of the day", body = Envelope<Vec<TopVideo>>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
    ),
    security(("bearer_jwt" = []))
)]
async fn for_date(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    q: Query<ForDateQuery>,
) -> Result<Json<Envelope<Vec<TopVideo>>>, ApiError> {
    let ForDateQuery(params, analytics) = q.parse()?;
    let Day(day) = params.date;
    let filters = analytics.query(day)?;
    let query = DayIncrementQuery {
        day,
        sort_by: params.sort_by.map_or("views", |SortMetric(m)| m),
        limit: params
            .limit
            .map_or(FOR_DATE_LIMIT.0, |Bounded(limit)| limit),
        platform: filters.platform,
        campaign: filters.campaign,
    };
    Ok(ok(day_top(&app, auth.org, &query).await?, Meta::of(&ctx)))
}
