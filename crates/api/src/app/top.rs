//! The leaderboard use cases (docs/api.md, "Leaderboards"): the videos,
//! creators or campaigns that gained most of one metric over a window, by
//! the totals rules, compared with the previous period when asked; and the
//! dashboard's videos that gained most on one day.

use std::collections::HashMap;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;
use vidpulse_domain::analytics::{
    AnalyticsQuery, DateRange, GroupBy, GroupMetrics, Metric, Metrics,
};
use vidpulse_domain::{OrgId, VideoId};
use vidpulse_store::{DayIncrementQuery, TopVideosQuery};

use crate::app::analytics::MetricsView;
use crate::app::analytics::params::AnalyticsParams;
use crate::app::analytics::totals_over;
use crate::app::compare::{ChangeView, Compare, PeriodView};
use crate::app::rfc3339;
use crate::error::ApiError;
use crate::extract::Query;
use crate::input::{Bounded, Fault, Input, Refusals, text, text_unless_empty};
use crate::state::AppState;

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
const KNOWN_PARAMETERS: [&str; 11] = [
    "metric", "by", "limit", "from", "to", "platform", "campaign", "blogger", "compare", "format",
    "baseline",
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

impl TopParams {
    /// The parameters of `q`; one the leaderboard does not know answers 400.
    pub(crate) fn read(q: &Query<TopParams>) -> Result<Self, ApiError> {
        if let Some(name) = q.unknown(&KNOWN_PARAMETERS) {
            return Err(ApiError::validation(
                name,
                format!(
                    "Unknown query parameter `{name}`; the leaderboard knows {}",
                    KNOWN_PARAMETERS.join(", ")
                ),
            ));
        }
        q.parse()
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
    fn video(rank: usize, v: vidpulse_store::TopVideo) -> Self {
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
    /// Where a video tracked after `from` starts counting: `window` (from
    /// 0) or `tracking` (from its first reading).
    pub baseline: &'static str,
    /// The places, largest gain first (ties by key).
    pub items: Vec<TopItem>,
    /// With `compare=previous_period`: the days compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_period: Option<PeriodView>,
}

/// The leaderboard `params` asks for.
pub(crate) async fn leaderboard(
    app: &AppState,
    org: OrgId,
    params: TopParams,
) -> Result<TopData, ApiError> {
    let TopParams {
        ranking,
        analytics,
        compare,
    } = params;
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
        baseline: query.baseline.as_str(),
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
    previous: Option<DateRange>,
) -> Result<Vec<TopItem>, ApiError> {
    let videos = app
        .analytics
        .top_videos(
            &*app.store,
            org,
            &TopVideosQuery {
                window: query.window,
                baseline: query.baseline,
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
            .video_gains(org, &ids, window, query.baseline)
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
    previous: Option<DateRange>,
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

/// `org`'s videos that gained most on `query`'s day.
pub(crate) async fn day_top(
    app: &AppState,
    org: OrgId,
    query: &DayIncrementQuery,
) -> Result<Vec<TopVideo>, ApiError> {
    let rows = app.store.day_increments(org, query).await?;
    Ok(rows
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
        .collect())
}
