//! Campaign analytics (GET /v1/analytics/metrics/totals
//! and /increments; the rules and group keys: docs/api.md, "Analytics").
//!
//! Paid plans; 1 credit per successful call. The database aggregates; this
//! module parses the request and shapes the groups.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use chrono::{Datelike, NaiveDate};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::Platform;
use vidpulse_domain::analytics::{
    AnalyticsQuery, DateRange, GroupBy, GroupMetrics, Metrics, into_groups,
};
use vidpulse_store::{AnalyticsRow, Charge};

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Longest campaign filter, in characters.
const CAMPAIGN_MAX_CHARS: usize = 200;

/// The analytics routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(totals))
        .routes(routes!(increments))
}

/// The five metrics, always in this order.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct MetricsView {
    /// Views gained.
    pub views: i64,
    /// Likes gained.
    pub likes: i64,
    /// Comments gained.
    pub comments: i64,
    /// Reposts gained.
    pub reposts: i64,
    /// Saves gained.
    pub saves: i64,
}

impl From<Metrics> for MetricsView {
    fn from(m: Metrics) -> Self {
        Self {
            views: m.views,
            likes: m.likes,
            comments: m.comments,
            reposts: m.reposts,
            saves: m.saves,
        }
    }
}

/// One group of a totals answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct TotalsGroup {
    /// Key: platform id, lowercase handle, `platform:handle` or campaign (`""`: none).
    pub group_key: String,
    /// Label.
    pub group_label: String,
    /// The metrics.
    #[serde(flatten)]
    pub metrics: MetricsView,
}

/// `data` of a totals answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct TotalsData {
    /// The `group_by` asked.
    pub group_by_dimension: &'static str,
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// Sum over every video.
    pub total: MetricsView,
    /// Per group, most views first; empty for `group_by=none`.
    pub groups: Vec<TotalsGroup>,
}

/// One group of one day of an increments answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct IncrementGroup {
    /// Key.
    pub key: String,
    /// Label.
    pub label: String,
    /// The metrics.
    #[serde(flatten)]
    pub metrics: MetricsView,
}

/// One day of an increments answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct IncrementDay {
    /// The day.
    pub period: NaiveDate,
    /// The same day as `period`.
    pub date: NaiveDate,
    /// The groups with a reading that day, by key.
    pub groups: BTreeMap<String, IncrementGroup>,
}

/// `data` of an increments answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct IncrementsData {
    /// The `group_by` asked.
    pub group_by_dimension: &'static str,
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// Days with a reading, ascending.
    pub data: Vec<IncrementDay>,
}

pub(crate) fn date(q: &QueryParams, name: &'static str) -> Result<Option<NaiveDate>, ApiError> {
    match q.get(name) {
        None | Some("") => Ok(None),
        Some(s) => NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .filter(|_| s.len() == 10)
            .map(Some)
            .ok_or_else(|| {
                ApiError::validation(
                    name,
                    format!("`{name}` must be a date YYYY-MM-DD; got `{s}`"),
                )
            }),
    }
}

type Range = Option<(Option<NaiveDate>, Option<NaiveDate>)>;

fn range(q: &QueryParams, lower: &'static str, upper: &'static str) -> Result<Range, ApiError> {
    let (from, to) = (date(q, lower)?, date(q, upper)?);
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        return Err(ApiError::validation(
            lower,
            format!("`{lower}` ({f}) must be on or before `{upper}` ({t})"),
        ));
    }
    // The bound after 9999-12-31 falls in year 10000, which SQLite's text
    // timestamps sort before every other year (`+10000-…`), so that backend
    // would find nothing; no stored instant lies beyond it, so the bound is
    // dropped and both backends answer alike.
    let to = to.filter(|t| t.succ_opt().is_some_and(|next| next.year() <= 9999));
    Ok((from.is_some() || to.is_some()).then_some((from, to)))
}

/// Parses and checks every parameter; errors name the parameter.
pub(crate) fn parse(q: &QueryParams, today: NaiveDate) -> Result<AnalyticsQuery, ApiError> {
    let window = DateRange::window(date(q, "from")?, date(q, "to")?, today)
        .map_err(|(field, message)| ApiError::validation(field, message))?;
    let group_by = match q.get("group_by") {
        None | Some("") => GroupBy::None,
        Some(g) => GroupBy::parse(g).ok_or_else(|| {
            let valid: Vec<&str> = GroupBy::ALL.iter().map(|g| g.as_str()).collect();
            ApiError::validation(
                "group_by",
                format!("`group_by` must be one of {}; got `{g}`", valid.join(", ")),
            )
        })?,
    };
    let platform = match q.get("platform") {
        None | Some("") => None,
        Some(p) => Some(
            Platform::ALL
                .into_iter()
                .find(|x| {
                    x.id().eq_ignore_ascii_case(p) || x.display_name().eq_ignore_ascii_case(p)
                })
                .ok_or_else(|| {
                    ApiError::validation(
                        "platform",
                        format!("`platform` must be tiktok, instagram or youtube; got `{p}`"),
                    )
                })?,
        ),
    };
    let campaign = match q.get("campaign").map(str::trim) {
        None | Some("") => None,
        Some(c) if c.chars().count() > CAMPAIGN_MAX_CHARS => {
            return Err(ApiError::validation(
                "campaign",
                format!("`campaign` must be at most {CAMPAIGN_MAX_CHARS} characters"),
            ));
        }
        Some(c) => Some(c.to_owned()),
    };
    Ok(AnalyticsQuery {
        window,
        group_by,
        published: range(q, "published_at.from", "published_at.to")?,
        tracked: range(q, "tracked_at.from", "tracked_at.to")?,
        campaign,
        platform,
    })
}

/// The group key and label of a row.
fn key_of(group_by: GroupBy, r: &AnalyticsRow) -> (String, String) {
    group_by
        .key_of(
            r.platform.unwrap_or(Platform::TikTok),
            r.author.as_deref(),
            r.campaign.as_deref(),
        )
        .unwrap_or_else(|| ("total".to_owned(), "Total".to_owned()))
}

/// Charges the call's credit; the analysis is done, so only a store failure stops it.
async fn charge(
    app: &AppState,
    auth: &ApiKeyAuth,
    ctx: &RequestContext,
    reason: &'static str,
) -> Result<(), ApiError> {
    app.store
        .charge(&Charge {
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
    params(
        ("from" = Option<String>, Query, description = "First day, YYYY-MM-DD (default: 29 days before `to`)"),
        ("to" = Option<String>, Query, description = "Last day, YYYY-MM-DD (default: today, UTC); at most 366 days in all"),
        ("group_by" = Option<String>, Query, description = "none (default), platform, blogger_username, platform_blogger or campaign"),
        ("published_at.from" = Option<String>, Query, description = "Videos published on or after this day"),
        ("published_at.to" = Option<String>, Query, description = "Videos published on or before this day"),
        ("tracked_at.from" = Option<String>, Query, description = "Videos whose tracking started on or after this day"),
        ("tracked_at.to" = Option<String>, Query, description = "Videos whose tracking started on or before this day"),
        ("campaign" = Option<String>, Query, description = "Only videos of this campaign"),
        ("platform" = Option<String>, Query, description = "Only videos of this platform"),
    ),
    responses(
        (status = 200, description = "Totals", body = Envelope<TotalsData>),
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
    q: QueryParams,
) -> Result<Json<Envelope<TotalsData>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let query = parse(&q, app.clock.now().date_naive())?;
    let rows = app.store.analytics_totals(auth.org.id, &query).await?;
    let groups = into_groups(rows.iter().map(|r| {
        let (k, l) = key_of(query.group_by, r);
        (k, l, r.metrics)
    }));
    let mut total = Metrics::default();
    for g in &groups {
        total += g.metrics;
    }
    let groups = if query.group_by == GroupBy::None {
        Vec::new()
    } else {
        groups
            .into_iter()
            .map(|g| TotalsGroup {
                group_key: g.key,
                group_label: g.label,
                metrics: g.metrics.into(),
            })
            .collect()
    };
    charge(&app, &auth, &ctx, "analytics_totals").await?;
    let data = TotalsData {
        group_by_dimension: query.group_by.as_str(),
        from: query.window.from,
        to: query.window.to,
        total: total.into(),
        groups,
    };
    Ok(ok(data, Meta::of(&ctx).with_credits(1)))
}

/// Views, likes, comments, reposts and saves gained per day, per group; days
/// and groups without a reading are left out. Paid plans; 1 credit.
#[utoipa::path(
    get, path = "/v1/analytics/metrics/increments", tag = "analytics",
    params(
        ("from" = Option<String>, Query, description = "First day, YYYY-MM-DD (default: 29 days before `to`)"),
        ("to" = Option<String>, Query, description = "Last day, YYYY-MM-DD (default: today, UTC); at most 366 days in all"),
        ("group_by" = Option<String>, Query, description = "none (default), platform, blogger_username, platform_blogger or campaign"),
        ("published_at.from" = Option<String>, Query, description = "Videos published on or after this day"),
        ("published_at.to" = Option<String>, Query, description = "Videos published on or before this day"),
        ("tracked_at.from" = Option<String>, Query, description = "Videos whose tracking started on or after this day"),
        ("tracked_at.to" = Option<String>, Query, description = "Videos whose tracking started on or before this day"),
        ("campaign" = Option<String>, Query, description = "Only videos of this campaign"),
        ("platform" = Option<String>, Query, description = "Only videos of this platform"),
    ),
    responses(
        (status = 200, description = "Daily increments", body = Envelope<IncrementsData>),
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
    q: QueryParams,
) -> Result<Json<Envelope<IncrementsData>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let query = parse(&q, app.clock.now().date_naive())?;
    let rows = app.store.analytics_increments(auth.org.id, &query).await?;
    let mut days: BTreeMap<NaiveDate, Vec<(String, String, Metrics)>> = BTreeMap::new();
    for r in &rows {
        if let Some(day) = r.day {
            let (k, l) = key_of(query.group_by, r);
            days.entry(day).or_default().push((k, l, r.metrics));
        }
    }
    let data = days
        .into_iter()
        .map(|(day, items)| IncrementDay {
            period: day,
            date: day,
            groups: into_groups(items)
                .into_iter()
                .map(|g: GroupMetrics| {
                    let group = IncrementGroup {
                        key: g.key.clone(),
                        label: g.label,
                        metrics: g.metrics.into(),
                    };
                    (g.key, group)
                })
                .collect(),
        })
        .collect();
    charge(&app, &auth, &ctx, "analytics_increments").await?;
    let data = IncrementsData {
        group_by_dimension: query.group_by.as_str(),
        from: query.window.from,
        to: query.window.to,
        data,
    };
    Ok(ok(data, Meta::of(&ctx).with_credits(1)))
}
