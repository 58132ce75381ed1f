//! The analytics use cases (docs/api.md, "Analytics"; the rules: "The
//! rules"): the totals and per-day increments of an organization's videos
//! over a window, grouped, compared with the previous period when asked, and
//! the dashboard's statistics built on them. The database aggregates; these
//! shape the groups. The parameters both faces read are in [`params`]; one
//! video's history is in [`video`].

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use serde::Serialize;
use utoipa::ToSchema;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::{AnalyticsQuery, DateRange, GroupMetrics, Metrics, into_groups};

use crate::analytics_cache::{GroupedTotals, row_key};
use crate::app::compare::{ChangeView, Compare, PeriodView};
use crate::error::ApiError;
use crate::state::AppState;

pub mod params;
pub mod video;

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
    /// The `baseline` asked: `window` (the default: a video tracked after
    /// `from` counts from 0) or `tracking` (from its first reading).
    pub baseline: &'static str,
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
    /// The `baseline` asked (the increments are the same under both).
    pub baseline: &'static str,
    /// Days with a reading, ascending.
    pub data: Vec<IncrementDay>,
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
        baseline: query.baseline.as_str(),
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

/// The increments answer to `query`: each day's gains per group.
pub(crate) async fn increments_data(
    app: &AppState,
    org: OrgId,
    query: &AnalyticsQuery,
) -> Result<IncrementsData, ApiError> {
    let rows = app.analytics.increments(&*app.store, org, query).await?;
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
    Ok(IncrementsData {
        group_by_dimension: query.group_by.as_str(),
        from: query.window.from,
        to: query.window.to,
        baseline: query.baseline.as_str(),
        data,
    })
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
    /// The `baseline` asked: `window` (the default) or `tracking`.
    pub baseline: &'static str,
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

/// The dashboard's statistics for `query`: the totals (compared with the
/// previous period when `compare` asks) and the gains of every day, all
/// groups summed.
pub(crate) async fn organization_stats(
    app: &AppState,
    org: OrgId,
    query: &AnalyticsQuery,
    compare: &Compare,
) -> Result<OrganizationStats, ApiError> {
    let totals = totals_data(app, org, query, compare).await?;
    let mut days: BTreeMap<NaiveDate, Metrics> = BTreeMap::new();
    for row in app
        .analytics
        .increments(&*app.store, org, query)
        .await?
        .iter()
    {
        if let Some(day) = row.day {
            *days.entry(day).or_default() += row.metrics;
        }
    }
    Ok(OrganizationStats {
        from: totals.from,
        to: totals.to,
        baseline: totals.baseline,
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
    })
}
