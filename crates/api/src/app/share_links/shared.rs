//! What a share link opens (docs/api.md, "Shared pages"): its campaign's
//! report as the client may see it. The campaign report
//! (`app::campaigns::report`) over the days asked, from the first
//! reading of each video (`baseline=tracking`, as the campaign's page in the
//! app counts), with the campaign's per-day gains and top videos from the
//! analytics; never its notes or id, never another campaign, and spend,
//! budget, CPM and CPE only when the link shows spend.
//!
//! A revoked, expired or unknown token, or an organization no longer on a
//! paid plan, is one answer: 404 with a body that names nothing. All of
//! them take the same path: the token's hash is looked up, once.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use vidpulse_domain::analytics::{AnalyticsQuery, Baseline, GroupBy, Metric};
use vidpulse_store::{Organization, ShareLink, TopVideosQuery};

use super::token_hash;
use crate::app::analytics::MetricsView;
use crate::app::analytics::params::{Day, bad_day};
use crate::app::campaigns::report::{
    CSV_COLUMNS, CampaignReport, ReportAsk, campaign_report, report_rows,
};
use crate::error::ApiError;
use crate::extract::Query;
use crate::input::{Fault, Refusals, text_unless_empty};
use crate::state::AppState;
use crate::v1::export;

/// Every parameter a shared report knows; any other answers 400.
pub const KNOWN_PARAMETERS: [&str; 2] = ["from", "to"];
/// How many top videos a shared report lists.
pub const TOP_VIDEOS: i64 = 10;
/// The CSV columns a link that hides spend leaves out.
pub const MONEY_COLUMNS: [&str; 6] = [
    "videos_without_cost",
    "spend",
    "cpm",
    "cpe",
    "budget",
    "budget_left",
];

/// The one answer to a link that does not open, whatever the reason.
pub fn link_gone() -> ApiError {
    ApiError::not_found("Not found")
}

/// A link that opens, with its organization.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The link.
    pub link: ShareLink,
    /// Its organization.
    pub org: Organization,
}

/// The link of `token` when it opens now (its organization on a paid
/// plan); with `count_view`, its page was opened and counts a view.
pub async fn open(app: &AppState, token: &str, count_view: bool) -> Result<Opened, ApiError> {
    let link = app
        .store
        .open_share_link(&token_hash(token), app.clock.now(), count_view)
        .await?
        .ok_or_else(link_gone)?;
    let org = app
        .store
        .organization(link.organization_id)
        .await?
        .filter(|o| o.plan.is_paid())
        .ok_or_else(link_gone)?;
    Ok(Opened { link, org })
}

/// The days a shared report is asked for.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SharedParams {
    /// First day, YYYY-MM-DD (default: the campaign's `starts_on`, else 29 days before `to`)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    from: Option<Day>,
    /// Last day, YYYY-MM-DD (default: the campaign's `ends_on` when it is before today, else today, UTC); at most 366 days in all
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    to: Option<Day>,
}

impl Refusals for SharedParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        bad_day(fault)
    }
}

/// The days of `q`, checked; a parameter the shared report does not know
/// answers 400 naming it.
pub fn read_params(q: &Query<SharedParams>) -> Result<ReportAsk, ApiError> {
    if let Some(name) = q.unknown(&KNOWN_PARAMETERS) {
        return Err(ApiError::validation(
            name,
            format!("Unknown query parameter `{name}`; the shared report knows from, to"),
        ));
    }
    let p = q.parse()?;
    Ok(ReportAsk {
        from: p.from.map(|Day(d)| d),
        to: p.to.map(|Day(d)| d),
        baseline: Baseline::Tracking,
    })
}

/// The organization a shared report names.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedOrganization {
    /// Its name.
    pub name: String,
    /// Its logo, served under the link (`/share/{token}/logo`); `null` without one.
    pub logo_url: Option<String>,
}

/// The campaign a shared report shows.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedCampaign {
    /// Its name.
    pub name: String,
    /// The client it is run for.
    pub client: Option<String>,
    /// First day, `YYYY-MM-DD`.
    pub starts_on: Option<NaiveDate>,
    /// Last day, `YYYY-MM-DD`.
    pub ends_on: Option<NaiveDate>,
    /// The views it aims at.
    pub target_views: Option<i64>,
}

/// The money of a campaign, on links that show spend.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedMoney {
    /// ISO 4217 code.
    pub currency: String,
    /// The sum of the videos' known costs (cents).
    pub spend: f64,
    /// The campaign's budget.
    pub budget: Option<f64>,
    /// Budget minus spend.
    pub budget_left: Option<f64>,
    /// Spend per 1,000 views.
    pub cpm: Option<f64>,
    /// Spend per engagement.
    pub cpe: Option<f64>,
    /// Videos without a cost.
    pub videos_without_cost: i64,
}

/// One day's gains of the campaign's videos.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedDay {
    /// The UTC day.
    pub date: NaiveDate,
    /// Gains that day.
    #[serde(flatten)]
    pub metrics: MetricsView,
}

/// One of the videos that gained most views.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedVideo {
    /// 1 for the most views.
    pub rank: usize,
    /// Its title (`null` when unknown).
    pub title: Option<String>,
    /// Its page on the platform.
    pub url: String,
    /// `tiktok`, `instagram` or `youtube`.
    pub platform: &'static str,
    /// The creator's handle (`null` when unknown).
    pub blogger_username: Option<String>,
    /// Gains over the window.
    #[serde(flatten)]
    pub metrics: MetricsView,
}

/// One creator of a shared report.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedCreator {
    /// `tiktok`, `instagram` or `youtube`.
    pub platform: &'static str,
    /// The creator's handle (`null` when unknown).
    pub blogger_username: Option<String>,
    /// The creator's videos in the campaign.
    pub videos: i64,
    /// Gains over the window.
    #[serde(flatten)]
    pub metrics: MetricsView,
    /// Only on links that show spend: the creator's known costs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend: Option<f64>,
    /// Only on links that show spend: spend per 1,000 views.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpm: Option<f64>,
}

/// `data` of a shared report.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedReport {
    /// Whose report it is.
    pub organization: SharedOrganization,
    /// The campaign.
    pub campaign: SharedCampaign,
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// Always `tracking`: a video counts from its first reading.
    pub baseline: &'static str,
    /// Whether the money is shown.
    pub show_spend: bool,
    /// The five metrics gained over the window.
    pub total: MetricsView,
    /// `(likes + comments + reposts + saves) / views` (4 decimals).
    pub engagement_rate: Option<f64>,
    /// `views / target_views` (4 decimals).
    pub target_progress: Option<f64>,
    /// The campaign's tracked videos.
    pub videos: i64,
    /// Only on links that show spend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub money: Option<SharedMoney>,
    /// Gains per day with a reading, ascending.
    pub days: Vec<SharedDay>,
    /// The videos that gained most views, at most 10.
    pub top_videos: Vec<SharedVideo>,
    /// Per creator, most views first.
    pub creators: Vec<SharedCreator>,
}

/// The campaign report a link opens over the days of `ask`.
pub async fn report_of(
    app: &AppState,
    opened: &Opened,
    ask: &ReportAsk,
) -> Result<CampaignReport, ApiError> {
    campaign_report(app, opened.org.id, opened.link.campaign_id, ask)
        .await?
        .ok_or_else(link_gone)
}

/// The shared report of `opened` over `ask`, its logo served under `token`.
pub async fn shared_report(
    app: &AppState,
    opened: &Opened,
    token: &str,
    ask: &ReportAsk,
) -> Result<SharedReport, ApiError> {
    let report = report_of(app, opened, ask).await?;
    let org = opened.org.id;
    let query = AnalyticsQuery {
        window: vidpulse_domain::analytics::DateRange {
            from: report.from,
            to: report.to,
        },
        group_by: GroupBy::None,
        published: None,
        tracked: None,
        campaign: Some(report.campaign.name.clone()),
        platform: None,
        author: None,
        baseline: Baseline::Tracking,
    };
    let days = per_day(app, opened, &query).await?;
    let top = app
        .analytics
        .top_videos(
            &*app.store,
            org,
            &TopVideosQuery {
                window: query.window,
                baseline: query.baseline,
                metric: Metric::Views,
                platform: None,
                campaign: query.campaign.clone(),
                author: None,
                limit: TOP_VIDEOS,
            },
        )
        .await?;
    let has_logo = app
        .store
        .organization_settings(org)
        .await?
        .and_then(|s| s.logo_url)
        .is_some();
    let show = opened.link.show_spend;
    Ok(SharedReport {
        organization: SharedOrganization {
            name: opened.org.name.clone(),
            logo_url: has_logo.then(|| format!("/share/{token}/logo")),
        },
        campaign: SharedCampaign {
            name: report.campaign.name.clone(),
            client: report.campaign.client.clone(),
            starts_on: report
                .campaign
                .starts_on
                .as_deref()
                .and_then(|d| d.parse().ok()),
            ends_on: report
                .campaign
                .ends_on
                .as_deref()
                .and_then(|d| d.parse().ok()),
            target_views: report.campaign.target_views,
        },
        from: report.from,
        to: report.to,
        baseline: report.baseline,
        show_spend: show,
        total: report.total,
        engagement_rate: report.engagement_rate,
        target_progress: report.target_progress,
        videos: report.videos,
        money: show.then(|| SharedMoney {
            currency: report.currency.clone(),
            spend: report.spend,
            budget: report.campaign.budget,
            budget_left: report.budget_left,
            cpm: report.cpm,
            cpe: report.cpe,
            videos_without_cost: report.videos_without_cost,
        }),
        days,
        top_videos: top
            .iter()
            .enumerate()
            .map(|(i, v)| SharedVideo {
                rank: i + 1,
                title: v.title.clone(),
                url: v.url.clone(),
                platform: v.platform.id(),
                blogger_username: v.author_username.clone(),
                metrics: v.gains.into(),
            })
            .collect(),
        creators: report
            .creators
            .into_iter()
            .map(|c| SharedCreator {
                platform: c.platform,
                blogger_username: c.blogger_username,
                videos: c.videos,
                metrics: c.metrics,
                spend: show.then_some(c.spend),
                cpm: if show { c.cpm } else { None },
            })
            .collect(),
    })
}

/// The campaign's gains per day with a reading, all its videos summed.
async fn per_day(
    app: &AppState,
    opened: &Opened,
    query: &AnalyticsQuery,
) -> Result<Vec<SharedDay>, ApiError> {
    let rows = app
        .analytics
        .increments(&*app.store, opened.org.id, query)
        .await?;
    let mut days: std::collections::BTreeMap<NaiveDate, vidpulse_domain::analytics::Metrics> =
        std::collections::BTreeMap::new();
    for row in rows.iter() {
        if let Some(day) = row.day {
            *days.entry(day).or_default() += row.metrics;
        }
    }
    Ok(days
        .into_iter()
        .map(|(date, m)| SharedDay {
            date,
            metrics: m.into(),
        })
        .collect())
}

/// Whether a shared CSV leaves column `name` out: the campaign's id
/// always (the page names none), the money unless the link shows spend.
fn hidden(name: &str, show_spend: bool) -> bool {
    name == "campaign_id" || (!show_spend && MONEY_COLUMNS.contains(&name))
}

/// The report's CSV as a link shows it: the campaign report's, without
/// the campaign's id, and without [`MONEY_COLUMNS`] unless the link shows
/// spend.
pub fn shared_csv(report: &CampaignReport, show_spend: bool) -> Result<Vec<u8>, ApiError> {
    let kept: Vec<usize> = CSV_COLUMNS
        .iter()
        .enumerate()
        .filter(|(_, name)| !hidden(name, show_spend))
        .map(|(i, _)| i)
        .collect();
    let mut w = export::csv_writer();
    export::write_row(&mut w, kept.iter().map(|&i| CSV_COLUMNS[i]))?;
    for row in report_rows(report) {
        export::write_row(&mut w, kept.iter().map(|&i| row[i].as_str()))?;
    }
    export::csv_bytes(w)
}
