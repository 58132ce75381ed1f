//! Leaderboards (GET /v1/analytics/top; docs/api.md, "Leaderboards"):
//! the videos, creators or campaigns that gained most of one metric over a
//! window, by the totals rules. Paid plans; 1 credit, like the other
//! analytics reads.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::analytics::{AnalyticsQuery, GroupBy, GroupMetrics, Metric, Metrics};
use vidpulse_domain::{OrgId, VideoId};
use vidpulse_store::{TopVideo, TopVideosQuery};

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::Query;
use crate::input::{Bounded, Fault, Input, Refusals, text, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::analytics::{AnalyticsParams, MetricsView, charge, json_or_csv, totals_over};
use crate::v1::compare::{ChangeView, Compare, PeriodView};
use crate::v1::export::{self, Format, FormatParam};

/// The leaderboard's route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(top))
}

/// What a leaderboard ranks, and how many.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Ranking {
    /// The metric ranked, largest gain first: views (default), likes, comments, reposts or saves
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    metric: Option<MetricName>,
    /// What is ranked: video (default), blogger, platform_blogger or campaign
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    by: Option<Ranked>,
    /// How many, 1 to 100 (default 10)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>)]
    limit: Option<Bounded<1, 100>>,
}

/// A metric's name.
#[derive(Debug, Clone, Copy)]
struct MetricName(Metric);

impl std::str::FromStr for MetricName {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Metric::parse(s).map(MetricName).ok_or(())
    }
}

/// What a leaderboard ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ranked {
    Video,
    Group(GroupBy),
}

impl Ranked {
    const NAMES: [&str; 4] = ["video", "blogger", "platform_blogger", "campaign"];

    fn as_str(self) -> &'static str {
        match self {
            Ranked::Video => "video",
            Ranked::Group(GroupBy::PlatformBlogger) => "platform_blogger",
            Ranked::Group(GroupBy::Campaign) => "campaign",
            Ranked::Group(_) => "blogger",
        }
    }
}

impl std::str::FromStr for Ranked {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "video" => Ok(Ranked::Video),
            "blogger" => Ok(Ranked::Group(GroupBy::BloggerUsername)),
            "platform_blogger" => Ok(Ranked::Group(GroupBy::PlatformBlogger)),
            "campaign" => Ok(Ranked::Group(GroupBy::Campaign)),
            _ => Err(()),
        }
    }
}

impl Refusals for Ranking {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
        match fault.field() {
            "metric" => ApiError::validation(
                "metric",
                format!(
                    "`metric` must be one of views, likes, comments, reposts, saves; got `{sent}`"
                ),
            ),
            "by" => ApiError::validation(
                "by",
                format!(
                    "`by` must be one of {}; got `{sent}`",
                    Ranked::NAMES.join(", ")
                ),
            ),
            _ => ApiError::validation(
                "limit",
                format!("`limit` must be an integer from 1 to 100; got `{sent}`"),
            ),
        }
    }
}

/// Every parameter a leaderboard knows; any other answers 400.
const KNOWN_PARAMETERS: [&str; 10] = [
    "metric", "by", "limit", "from", "to", "platform", "campaign", "blogger", "compare", "format",
];

/// Every leaderboard parameter: the ranking, the analytics window and
/// scope, and `compare`.
pub(crate) struct TopParams {
    ranking: Ranking,
    analytics: AnalyticsParams,
    compare: Compare,
}

impl Input for TopParams {
    fn from_json(value: &Value) -> Result<Self, ApiError> {
        Ok(Self {
            ranking: Ranking::from_json(value)?,
            analytics: AnalyticsParams::from_json(value)?,
            compare: Compare::from_json(value)?,
        })
    }
}

/// One place of a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct TopItem {
    /// 1 for the largest gain.
    pub rank: usize,
    /// The video's id, or the group key of the totals (`platform:handle`, …).
    pub key: String,
    /// The video's title (its platform id when it has none), or the group label.
    pub label: String,
    /// The gains over the window.
    #[serde(flatten)]
    pub metrics: MetricsView,
    /// Videos: the organization's video id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub video_id: Option<Uuid>,
    /// Videos: the platform's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_video_id: Option<String>,
    /// Videos: the title (`null` when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Option<String>>,
    /// Videos: the page URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Videos: the platform id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<&'static str>,
    /// Videos: the creator's handle (`null` when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blogger_username: Option<Option<String>>,
    /// With `compare=previous_period`: the gains over the previous period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<MetricsView>,
    /// With `compare=previous_period`: each metric's relative change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeView>,
}

impl TopItem {
    /// A group of the totals at `rank`.
    fn group(rank: usize, key: String, label: String, metrics: Metrics) -> Self {
        Self {
            rank,
            key,
            label,
            metrics: metrics.into(),
            video_id: None,
            external_video_id: None,
            title: None,
            url: None,
            platform: None,
            blogger_username: None,
            previous: None,
            change: None,
        }
    }

    /// A video at `rank`.
    fn video(rank: usize, v: TopVideo) -> Self {
        Self {
            key: v.video_id.0.to_string(),
            label: v.title.clone().unwrap_or_else(|| v.external_id.clone()),
            video_id: Some(v.video_id.0),
            external_video_id: Some(v.external_id),
            title: Some(v.title),
            url: Some(v.url),
            platform: Some(v.platform.id()),
            blogger_username: Some(v.author_username),
            ..Self::group(rank, String::new(), String::new(), v.gains)
        }
    }

    /// Adds the comparison with `previous`.
    fn compare(&mut self, previous: Metrics) {
        self.change = Some(ChangeView::between(self.metrics.into(), previous));
        self.previous = Some(previous.into());
    }
}

/// `data` of a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct TopData {
    /// The metric ranked.
    pub metric: &'static str,
    /// What is ranked.
    pub by: &'static str,
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// The places, largest gain first (ties by key).
    pub items: Vec<TopItem>,
    /// With `compare=previous_period`: the days compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_period: Option<PeriodView>,
}

/// The videos, creators or campaigns that gained most of a metric between
/// two dates. Paid plans; 1 credit.
#[utoipa::path(
    get, path = "/v1/analytics/top", tag = "analytics",
    params(Ranking, crate::v1::analytics::Window, crate::v1::analytics::Scope, Compare, FormatParam),
    responses(
        (status = 200, description = "The leaderboard (CSV: a row per place)",
         content((Envelope<TopData> = "application/json"), (String = "text/csv"))),
        (status = 400, description = "VALIDATION_ERROR with `field` (also for a parameter the leaderboard does not know)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn top(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    q: Query<TopParams>,
) -> Result<Response, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let format = json_or_csv(&q, &headers)?;
    let data = leaderboard(&app, auth.org.id, &q).await?;
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

/// The leaderboard `params` asks for.
pub(crate) async fn leaderboard(
    app: &AppState,
    org: OrgId,
    params: &Query<TopParams>,
) -> Result<TopData, ApiError> {
    if let Some(name) = params.unknown(&KNOWN_PARAMETERS) {
        return Err(ApiError::validation(
            name,
            format!(
                "Unknown query parameter `{name}`; the leaderboard knows {}",
                KNOWN_PARAMETERS.join(", ")
            ),
        ));
    }
    let TopParams {
        ranking,
        analytics,
        compare,
    } = params.parse()?;
    let query = analytics.query(app.clock.now().date_naive())?;
    let metric = ranking.metric.map_or(Metric::Views, |MetricName(m)| m);
    let by = ranking.by.unwrap_or(Ranked::Video);
    let limit = ranking.limit.map_or(10, |Bounded(n)| n);
    let previous = compare.previous_of(query.window);
    let items = match by {
        Ranked::Video => top_videos(app, org, &query, metric, limit, previous).await?,
        Ranked::Group(group_by) => {
            let query = AnalyticsQuery {
                group_by,
                ..query.clone()
            };
            top_groups(app, org, &query, metric, limit, previous).await?
        }
    };
    Ok(TopData {
        metric: metric.as_str(),
        by: by.as_str(),
        from: query.window.from,
        to: query.window.to,
        items,
        previous_period: previous.map(PeriodView::from),
    })
}

/// The videos' leaderboard.
async fn top_videos(
    app: &AppState,
    org: OrgId,
    query: &AnalyticsQuery,
    metric: Metric,
    limit: i64,
    previous: Option<vidpulse_domain::analytics::DateRange>,
) -> Result<Vec<TopItem>, ApiError> {
    let videos = app
        .analytics
        .top_videos(
            &*app.store,
            org,
            &TopVideosQuery {
                window: query.window,
                metric,
                platform: query.platform,
                campaign: query.campaign.clone(),
                author: query.author.clone(),
                limit,
            },
        )
        .await?;
    let mut items: Vec<TopItem> = videos
        .iter()
        .enumerate()
        .map(|(i, v)| TopItem::video(i + 1, v.clone()))
        .collect();
    if let Some(window) = previous {
        let ids: Vec<VideoId> = items
            .iter()
            .filter_map(|i| i.video_id.map(VideoId))
            .collect();
        let before: HashMap<VideoId, Metrics> = app
            .store
            .video_gains(org, &ids, window)
            .await?
            .into_iter()
            .collect();
        for item in &mut items {
            let id = item.video_id.map(VideoId);
            item.compare(
                id.and_then(|id| before.get(&id).copied())
                    .unwrap_or_default(),
            );
        }
    }
    Ok(items)
}

/// The leaderboard of creators or campaigns: the totals' groups, ranked.
async fn top_groups(
    app: &AppState,
    org: OrgId,
    query: &AnalyticsQuery,
    metric: Metric,
    limit: i64,
    previous: Option<vidpulse_domain::analytics::DateRange>,
) -> Result<Vec<TopItem>, ApiError> {
    let grouped = app.analytics.totals(&*app.store, org, query).await?;
    // The kept groups ranked by reference; only the top ones are copied.
    let mut ranked: Vec<&GroupMetrics> = grouped.groups.iter().collect();
    ranked.sort_by(|a, b| {
        b.metrics
            .get(metric)
            .cmp(&a.metrics.get(metric))
            .then_with(|| a.key.cmp(&b.key))
    });
    ranked.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let mut items: Vec<TopItem> = ranked
        .into_iter()
        .enumerate()
        .map(|(i, g)| TopItem::group(i + 1, g.key.clone(), g.label.clone(), g.metrics))
        .collect();
    if let Some(window) = previous {
        let (_, before) = totals_over(app, org, query, window).await?;
        for item in &mut items {
            item.compare(before.get(&item.key).copied().unwrap_or_default());
        }
    }
    Ok(items)
}
