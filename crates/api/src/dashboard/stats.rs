//! Dashboard analytics (docs/api.md, "Analytics", "In the dashboard"): one
//! video's history and daily increments, the organization's totals and
//! per-day series, and the top videos of one day. The same rules as the
//! public analytics (docs/api.md, "The rules"); no plan gate
//! and no credits: this is the organization looking at its own data.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::VideoId;
use vidpulse_domain::analytics::{Metrics, daily_closes, daily_increments};
use vidpulse_store::{DayIncrementQuery, VideoLookup};

use crate::app::rfc3339;
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::input::{Bounded, Fault, Input, Refusals, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::analytics::{
    AnalyticsParams, Day, Grouping, MetricsView, Scope, TotalsGroup, TotalsParams, Window, bad_day,
    totals_data,
};
use crate::v1::compare::{ChangeView, Compare, PeriodView};
use crate::v1::top::{Ranking, TopData, TopParams, leaderboard};

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

/// One reading of a video.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryEntry {
    /// When it was read.
    pub created_at: String,
    /// Views (null when the platform does not report them).
    pub views: Option<i64>,
    /// Likes.
    pub likes: Option<i64>,
    /// Comments.
    pub comments: Option<i64>,
    /// Reposts.
    pub reposts: Option<i64>,
}

/// One day's gain of a video.
#[derive(Debug, Serialize, ToSchema)]
pub struct DailyIncrement {
    /// The UTC day.
    pub date: NaiveDate,
    /// Views gained.
    pub views_delta: i64,
    /// Likes gained.
    pub likes_delta: i64,
}

/// A video's statistics.
#[derive(Debug, Serialize, ToSchema)]
pub struct VideoStats {
    /// The organization's video id.
    pub video_id: Uuid,
    /// Every reading inside the tracking window, oldest first.
    pub stats: Vec<HistoryEntry>,
    /// Gains per day with a reading, ascending.
    pub daily_increments: Vec<DailyIncrement>,
}

/// One day of the organization's series.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatsDay {
    /// The UTC day.
    pub date: NaiveDate,
    /// Gains that day.
    #[serde(flatten)]
    pub metrics: MetricsView,
}

/// The organization's statistics over a window.
#[derive(Debug, Serialize, ToSchema)]
pub struct OrganizationStats {
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// Gains over the window (the public totals rule).
    pub total: MetricsView,
    /// Gains per day with a reading (the public increments rule), ascending.
    pub days: Vec<StatsDay>,
    /// The `group_by` asked (`none` by default).
    pub group_by_dimension: &'static str,
    /// The window's gains per group, most views first (the public totals'
    /// groups); empty for `group_by=none`.
    pub groups: Vec<TotalsGroup>,
    /// With `compare=previous_period`: the days compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_period: Option<PeriodView>,
    /// With `compare=previous_period`: the gains over the previous period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<MetricsView>,
    /// With `compare=previous_period`: each metric's relative change of `total`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeView>,
}

/// One video's gains on the requested day.
#[derive(Debug, Serialize, ToSchema)]
pub struct TopVideo {
    /// The organization's video id.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Thumbnail.
    pub thumbnail_url: Option<String>,
    /// Page URL.
    pub video_url: String,
    /// Creator handle.
    pub blogger_channel_username: Option<String>,
    /// `tiktok`, `instagram` or `youtube`.
    pub platform: &'static str,
    /// Campaign tag.
    pub campaign_tag: Option<String>,
    /// Views gained that day.
    pub views_increment: i64,
    /// Likes gained.
    pub likes_increment: i64,
    /// Comments gained.
    pub comments_increment: i64,
    /// Reposts gained.
    pub reposts_increment: i64,
    /// Saves gained.
    pub saves_increment: i64,
    /// Publish time.
    pub published_at: Option<String>,
    /// When tracking began.
    pub created_at: String,
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
    let video = app
        .store
        .video(auth.org, &VideoLookup::Id(VideoId(id)), app.clock.now())
        .await?
        .ok_or_else(|| ApiError::not_found("No such video"))?;
    let closes = daily_closes(&video.history);
    let daily_increments = daily_increments(&closes)
        .into_iter()
        .map(|(date, m)| DailyIncrement {
            date,
            views_delta: m.views,
            likes_delta: m.likes,
        })
        .collect();
    let stats = video
        .history
        .iter()
        .map(|o| HistoryEntry {
            created_at: rfc3339(o.captured_at),
            views: o.counters.views,
            likes: o.counters.likes,
            comments: o.counters.comments,
            reposts: o.counters.reposts,
        })
        .collect();
    Ok(ok(
        VideoStats {
            video_id: video.video_id.0,
            stats,
            daily_increments,
        },
        Meta::of(&ctx),
    ))
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
    let totals = totals_data(&app, auth.org, &query, &compare).await?;
    let mut days: BTreeMap<NaiveDate, Metrics> = BTreeMap::new();
    for row in app
        .analytics
        .increments(&*app.store, auth.org, &query)
        .await?
        .iter()
    {
        if let Some(day) = row.day {
            *days.entry(day).or_default() += row.metrics;
        }
    }
    Ok(ok(
        OrganizationStats {
            from: totals.from,
            to: totals.to,
            total: totals.total,
            days: days
                .into_iter()
                .map(|(date, m)| StatsDay {
                    date,
                    metrics: m.into(),
                })
                .collect(),
            group_by_dimension: totals.group_by_dimension,
            groups: totals.groups,
            previous_period: totals.previous_period,
            previous: totals.previous,
            change: totals.change,
        },
        Meta::of(&ctx),
    ))
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
    Ok(ok(leaderboard(&app, auth.org, &q).await?, Meta::of(&ctx)))
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
    let rows = app
        .store
        .day_increments(
            auth.org,
            &DayIncrementQuery {
                day,
                sort_by: params.sort_by.map_or("views", |SortMetric(m)| m),
                limit: params
                    .limit
                    .map_or(FOR_DATE_LIMIT.0, |Bounded(limit)| limit),
                platform: filters.platform,
                campaign: filters.campaign,
            },
        )
        .await?;
    let data = rows
        .into_iter()
        .map(|r| TopVideo {
            video_id: r.video_id,
            external_video_id: r.external_id,
            thumbnail_url: r.thumbnail_url,
            video_url: r.url,
            blogger_channel_username: r.author_username,
            platform: r.platform.id(),
            campaign_tag: r.campaign,
            views_increment: r.metrics.views,
            likes_increment: r.metrics.likes,
            comments_increment: r.metrics.comments,
            reposts_increment: r.metrics.reposts,
            saves_increment: r.metrics.saves,
            published_at: r.published_at.map(rfc3339),
            created_at: rfc3339(r.created_at),
        })
        .collect();
    Ok(ok(data, Meta::of(&ctx)))
}
