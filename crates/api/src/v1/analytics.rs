//! Campaign analytics (GET /v1/analytics/metrics/totals
//! and /increments; the rules and group keys: docs/api.md, "Analytics").
//!
//! Paid plans; 1 credit per successful call. The database aggregates; this
//! module reads the request and shapes the groups. Its query parameters come
//! in four parts (the window, the grouping, the publishing and tracking
//! periods, the scope), which the dashboard's statistics read too.

use std::collections::{BTreeMap, HashMap};

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::analytics::{
    AnalyticsQuery, DateRange, GroupBy, GroupMetrics, Metrics, into_groups,
};
use vidpulse_domain::names::{Handle, handle_key};
use vidpulse_domain::{OrgId, Platform};
use vidpulse_store::Charge;

use crate::analytics_cache::{GroupedTotals, row_key};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::Query;
use crate::input::{Fault, Input, Refusals, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::compare::{ChangeView, Compare, PeriodView};
use crate::v1::export::{self, Format, FormatParam};

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

impl From<MetricsView> for Metrics {
    fn from(m: MetricsView) -> Self {
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
    /// With `compare=previous_period`: the group's gains over the previous period (0 where it had none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<MetricsView>,
    /// With `compare=previous_period`: each metric's relative change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeView>,
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
    /// With `compare=previous_period`: the days compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_period: Option<PeriodView>,
    /// With `compare=previous_period`: the sum over every video in the previous period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<MetricsView>,
    /// With `compare=previous_period`: each metric's relative change of `total`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeView>,
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

/// A day, exactly `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Day(pub NaiveDate);

impl std::str::FromStr for Day {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .filter(|_| s.len() == 10)
            .map(Day)
            .ok_or(())
    }
}

impl<'de> Deserialize<'de> for Day {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse()
            .map_err(|()| de::Error::custom("not a YYYY-MM-DD date"))
    }
}

/// The answer to a faulty [`Day`] in a query parameter.
pub(crate) fn bad_day(fault: &Fault<'_>) -> ApiError {
    let field = fault.field();
    let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
    ApiError::validation(
        field,
        format!("`{field}` must be a date YYYY-MM-DD; got `{sent}`"),
    )
}

/// The days an analytics answer covers.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Window {
    /// First day, YYYY-MM-DD (default: 29 days before `to`)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    from: Option<Day>,
    /// Last day, YYYY-MM-DD (default: today, UTC); at most 366 days in all
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    to: Option<Day>,
}

impl Refusals for Window {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        bad_day(fault)
    }
}

/// How an analytics answer groups the videos.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Grouping {
    /// none (default), platform, blogger_username, platform_blogger or campaign
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    group_by: Option<GroupKey>,
}

/// A `group_by` value.
#[derive(Debug, Clone, Copy)]
struct GroupKey(GroupBy);

impl std::str::FromStr for GroupKey {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        GroupBy::parse(s).map(GroupKey).ok_or(())
    }
}

impl Refusals for Grouping {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
        let valid: Vec<&str> = GroupBy::ALL.iter().map(|g| g.as_str()).collect();
        ApiError::validation(
            "group_by",
            format!(
                "`group_by` must be one of {}; got `{sent}`",
                valid.join(", ")
            ),
        )
    }
}

/// Which videos count, by when they were published and tracked.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Periods {
    /// Videos published on or after this day
    #[serde(rename = "published_at.from")]
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    published_from: Option<Day>,
    /// Videos published on or before this day
    #[serde(rename = "published_at.to")]
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    published_to: Option<Day>,
    /// Videos whose tracking started on or after this day
    #[serde(rename = "tracked_at.from")]
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    tracked_from: Option<Day>,
    /// Videos whose tracking started on or before this day
    #[serde(rename = "tracked_at.to")]
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    tracked_to: Option<Day>,
}

impl Refusals for Periods {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        bad_day(fault)
    }
}

/// Which videos count, by campaign and platform.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Scope {
    /// Only videos of this campaign
    #[serde(default, deserialize_with = "campaign")]
    #[param(value_type = Option<String>)]
    campaign: Option<String>,
    /// Only videos of this platform
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    platform: Option<AnyCase>,
    /// Only videos of this creator: a handle, with or without `@`, any case
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    blogger: Option<HandleKey>,
}

/// A creator's handle, as its key (lowercase, no `@`).
#[derive(Debug, Clone)]
struct HandleKey(String);

impl std::str::FromStr for HandleKey {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Handle::parse(s)
            .map(|h| HandleKey(handle_key(h.as_str())))
            .map_err(|_| ())
    }
}

/// A platform named by its id or display name, in any case.
#[derive(Debug, Clone, Copy)]
struct AnyCase(Platform);

impl std::str::FromStr for AnyCase {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Platform::ALL
            .into_iter()
            .find(|x| x.id().eq_ignore_ascii_case(s) || x.display_name().eq_ignore_ascii_case(s))
            .map(AnyCase)
            .ok_or(())
    }
}

/// A campaign filter, trimmed, of at most [`CAMPAIGN_MAX_CHARS`]; blank is none.
fn campaign<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(deserializer)?;
    let campaign = text.trim();
    if campaign.chars().count() > CAMPAIGN_MAX_CHARS {
        return Err(de::Error::custom("too long"));
    }
    Ok((!campaign.is_empty()).then(|| campaign.to_owned()))
}

impl Refusals for Scope {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
        if fault.field() == "blogger" {
            return ApiError::validation(
                "blogger",
                format!("`blogger` must be a creator's handle; got `{sent}`"),
            );
        }
        if fault.field() == "campaign" {
            return ApiError::validation(
                "campaign",
                format!("`campaign` must be at most {CAMPAIGN_MAX_CHARS} characters"),
            );
        }
        ApiError::validation(
            "platform",
            format!("`platform` must be tiktok, instagram or youtube; got `{sent}`"),
        )
    }
}

/// Every analytics parameter: [`Window`], [`Grouping`], [`Scope`] and
/// [`Periods`], read in that order.
#[derive(Debug)]
pub(crate) struct AnalyticsParams {
    window: Window,
    grouping: Grouping,
    scope: Scope,
    periods: Periods,
}

impl Input for AnalyticsParams {
    fn from_json(value: &Value) -> Result<Self, ApiError> {
        Ok(Self {
            window: Window::from_json(value)?,
            grouping: Grouping::from_json(value)?,
            scope: Scope::from_json(value)?,
            periods: Periods::from_json(value)?,
        })
    }
}

/// A period's bounds.
type Range = Option<(Option<NaiveDate>, Option<NaiveDate>)>;

/// The period between two days named `lower` and `upper`; the lower must
/// not be after the upper (else the answer `refuse` words for the lower's
/// name and the message).
pub(crate) fn range(
    (from, lower): (Option<Day>, &'static str),
    (to, upper): (Option<Day>, &'static str),
    refuse: fn(&'static str, String) -> ApiError,
) -> Result<Range, ApiError> {
    let (from, to) = (from.map(|Day(d)| d), to.map(|Day(d)| d));
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        return Err(refuse(
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

impl AnalyticsParams {
    /// The query these parameters ask for; `today` ends the default window.
    pub(crate) fn query(self, today: NaiveDate) -> Result<AnalyticsQuery, ApiError> {
        let Self {
            window,
            grouping,
            scope,
            periods,
        } = self;
        let window = DateRange::window(
            window.from.map(|Day(d)| d),
            window.to.map(|Day(d)| d),
            today,
        )
        .map_err(|(field, message)| ApiError::validation(field, message))?;
        Ok(AnalyticsQuery {
            window,
            group_by: grouping.group_by.map_or(GroupBy::None, |GroupKey(g)| g),
            published: range(
                (periods.published_from, "published_at.from"),
                (periods.published_to, "published_at.to"),
                ApiError::validation,
            )?,
            tracked: range(
                (periods.tracked_from, "tracked_at.from"),
                (periods.tracked_to, "tracked_at.to"),
                ApiError::validation,
            )?,
            campaign: scope.campaign,
            platform: scope.platform.map(|AnyCase(p)| p),
            author: scope.blogger.map(|HandleKey(h)| h),
        })
    }
}

/// The totals of `query` over another `window` (a comparison's previous
/// period): the sum, and each group's gains by key.
pub(crate) async fn totals_over(
    app: &AppState,
    org: OrgId,
    query: &AnalyticsQuery,
    window: DateRange,
) -> Result<(Metrics, HashMap<String, Metrics>), ApiError> {
    let earlier = AnalyticsQuery {
        window,
        ..query.clone()
    };
    let grouped = app.analytics.totals(&*app.store, org, &earlier).await?;
    let by_key = grouped
        .groups
        .iter()
        .map(|g| (g.key.clone(), g.metrics))
        .collect();
    Ok((grouped.total, by_key))
}

/// A totals answer's groups from kept grouped totals.
pub(crate) fn totals_groups(grouped: &GroupedTotals) -> Vec<TotalsGroup> {
    grouped
        .groups
        .iter()
        .map(|g| TotalsGroup {
            group_key: g.key.clone(),
            group_label: g.label.clone(),
            metrics: g.metrics.into(),
            previous: None,
            change: None,
        })
        .collect()
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
    params(Window, Grouping, Periods, Scope, Compare, FormatParam),
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

/// The totals parameters: the analytics ones and `compare`.
pub(crate) struct TotalsParams(pub(crate) AnalyticsParams, pub(crate) Compare);

impl Input for TotalsParams {
    fn from_json(value: &Value) -> Result<Self, ApiError> {
        Ok(Self(
            AnalyticsParams::from_json(value)?,
            Compare::from_json(value)?,
        ))
    }
}

/// The totals answer to `query`, compared with the previous period when
/// `compare` asks.
pub(crate) async fn totals_data(
    app: &AppState,
    org: OrgId,
    query: &AnalyticsQuery,
    compare: &Compare,
) -> Result<TotalsData, ApiError> {
    let grouped = app.analytics.totals(&*app.store, org, query).await?;
    let (total, mut groups) = (grouped.total, totals_groups(&grouped));
    let mut data = TotalsData {
        group_by_dimension: query.group_by.as_str(),
        from: query.window.from,
        to: query.window.to,
        total: total.into(),
        groups: Vec::new(),
        previous_period: None,
        previous: None,
        change: None,
    };
    if let Some(window) = compare.previous_of(query.window) {
        let (previous, before) = totals_over(app, org, query, window).await?;
        for g in &mut groups {
            let was = before.get(&g.group_key).copied().unwrap_or_default();
            g.previous = Some(was.into());
            g.change = Some(ChangeView::between(g.metrics.into(), was));
        }
        data.previous_period = Some(window.into());
        data.previous = Some(previous.into());
        data.change = Some(ChangeView::between(total, previous));
    }
    data.groups = groups;
    Ok(data)
}

/// Views, likes, comments, reposts and saves gained per day, per group; days
/// and groups without a reading are left out. Paid plans; 1 credit.
#[utoipa::path(
    get, path = "/v1/analytics/metrics/increments", tag = "analytics",
    params(Window, Grouping, Periods, Scope, FormatParam),
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
    let rows = app
        .analytics
        .increments(&*app.store, auth.org.id, &query)
        .await?;
    let mut days: BTreeMap<NaiveDate, Vec<(String, String, Metrics)>> = BTreeMap::new();
    for r in rows.iter() {
        if let Some(day) = r.day {
            let (k, l) = row_key(query.group_by, r);
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
    let data = IncrementsData {
        group_by_dimension: query.group_by.as_str(),
        from: query.window.from,
        to: query.window.to,
        data,
    };
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
