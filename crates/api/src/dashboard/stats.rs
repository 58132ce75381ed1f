//! Dashboard analytics (docs/api.md, "Analytics", "In the dashboard"): one
//! video's history and daily increments, the organization's totals and
//! per-day series, and the top videos of one day. The same rules as the
//! public analytics (docs/api.md, "The rules"); no plan gate
//! and no credits: this is the organization looking at its own data.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use chrono::NaiveDate;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::VideoId;
use vidpulse_domain::analytics::{DayClose, GroupBy, Metrics, video_increments};
use vidpulse_store::{DayIncrementQuery, VideoLookup};

use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, QueryParams};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::analytics::{MetricsView, date, parse};
use crate::v1::videos::rfc3339;

/// Default and largest number of `for_date` rows.
pub const FOR_DATE_LIMIT: (i64, i64) = (100, 1000);

/// The dashboard analytics routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(video_stats))
        .routes(routes!(organization_stats))
        .routes(routes!(for_date))
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
    let mut closes: BTreeMap<NaiveDate, DayClose> = BTreeMap::new();
    for o in &video.history {
        let m = Metrics::of(&o.counters);
        closes
            .entry(o.captured_at.date_naive())
            .and_modify(|c| c.last = m)
            .or_insert(DayClose {
                day: o.captured_at.date_naive(),
                first: m,
                last: m,
            });
    }
    let closes: Vec<DayClose> = closes.into_values().collect();
    let daily_increments = match (closes.first(), closes.last()) {
        (Some(first), Some(last)) => video_increments(&closes, first.day, last.day)
            .into_iter()
            .map(|(date, m)| DailyIncrement {
                date,
                views_delta: m.views,
                likes_delta: m.likes,
            })
            .collect(),
        _ => Vec::new(),
    };
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

/// The organization's gains over a window, in total and per day. Any member.
#[utoipa::path(
    get, path = "/dashboard/stats", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("from" = Option<String>, Query, description = "First day, YYYY-MM-DD (default: 29 days before `to`)"),
        ("to" = Option<String>, Query, description = "Last day (default: today, UTC); at most 366 days"),
        ("campaign" = Option<String>, Query, description = "Only videos of this campaign"),
        ("platform" = Option<String>, Query, description = "Only videos of this platform"),
    ),
    responses(
        (status = 200, description = "Totals and days", body = Envelope<OrganizationStats>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
    ),
    security(("bearer_jwt" = []))
)]
async fn organization_stats(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    q: QueryParams,
) -> Result<Json<Envelope<OrganizationStats>>, ApiError> {
    let mut query = parse(&q, app.clock.now().date_naive())?;
    query.group_by = GroupBy::None;
    let mut total = Metrics::default();
    for row in app.store.analytics_totals(auth.org, &query).await? {
        total += row.metrics;
    }
    let mut days: BTreeMap<NaiveDate, Metrics> = BTreeMap::new();
    for row in app.store.analytics_increments(auth.org, &query).await? {
        if let Some(day) = row.day {
            *days.entry(day).or_default() += row.metrics;
        }
    }
    Ok(ok(
        OrganizationStats {
            from: query.window.from,
            to: query.window.to,
            total: total.into(),
            days: days
                .into_iter()
                .map(|(date, m)| StatsDay {
                    date,
                    metrics: m.into(),
                })
                .collect(),
        },
        Meta::of(&ctx),
    ))
}

/// The tracked videos' gains on one day, largest first. Any member.
#[utoipa::path(
    get, path = "/analytics/videos/for_date", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("date" = String, Query, description = "The day, YYYY-MM-DD (required)"),
        ("sort_by" = Option<String>, Query, description = "views (default), likes, comments, reposts or saves"),
        ("limit" = Option<i64>, Query, description = "1 to 1000 rows (default 100)"),
        ("campaign" = Option<String>, Query, description = "Only videos of this campaign"),
        ("platform" = Option<String>, Query, description = "Only videos of this platform"),
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
    q: QueryParams,
) -> Result<Json<Envelope<Vec<TopVideo>>>, ApiError> {
    let day =
        date(&q, "date")?.ok_or_else(|| ApiError::validation("date", "`date` is required"))?;
    let sort_by = match q.get("sort_by") {
        None | Some("") => "views",
        Some(s) => vidpulse_store::analytics::SORT_METRICS
            .into_iter()
            .find(|m| *m == s)
            .ok_or_else(|| {
                ApiError::validation(
                    "sort_by",
                    "`sort_by` must be views, likes, comments, reposts or saves",
                )
            })?,
    };
    let limit = match q.get("limit") {
        None | Some("") => FOR_DATE_LIMIT.0,
        Some(s) => s
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=FOR_DATE_LIMIT.1).contains(n))
            .ok_or_else(|| {
                ApiError::validation(
                    "limit",
                    format!("`limit` must be 1 to {}", FOR_DATE_LIMIT.1),
                )
            })?,
    };
    // Platform and campaign are checked as the analytics endpoints do.
    let filters = parse(&q, day)?;
    let rows = app
        .store
        .day_increments(
            auth.org,
            &DayIncrementQuery {
                day,
                sort_by,
                limit,
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
