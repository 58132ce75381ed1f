//! The campaign report (docs/api.md, "Campaign report"): what a campaign's
//! videos gained over a window and what they cost, per creator and in all,
//! for both faces (`GET /v1/campaigns/{id}/report` and
//! `GET /dashboard/campaigns/{id}/report`).
//!
//! The store reads each video's gain and its views since tracking began
//! ([`vidpulse_store::CampaignStore::campaign_video_figures`]); the money
//! rules are here:
//!
//! - a video's *cost* is its `budget` (a flat fee) when set; otherwise, when
//!   its `ecpm` is set, `ecpm × views_since_tracking / 1000` (a count that
//!   went down costs nothing, never less than 0); otherwise unknown: it adds
//!   nothing to `spend` and counts in `videos_without_cost`;
//! - `spend` is the sum of the known costs, `budget_left` the campaign's
//!   budget minus `spend`, `cpm` `spend / views × 1000`, `cpe`
//!   `spend / (likes + comments + reposts + saves)`, `engagement_rate`
//!   `(likes + comments + reposts + saves) / views`, `target_progress`
//!   `views / target_views`, over the window's gains;
//! - money is rounded to cents and ratios to 4 decimals in the answer only:
//!   sums and ratios are of the unrounded costs.

use std::collections::HashMap;

use chrono::{Duration, NaiveDate};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use vidpulse_domain::analytics::{Baseline, DateRange, Metrics};
use vidpulse_domain::{CampaignId, OrgId};
use vidpulse_store::campaigns::{CampaignRecord, CampaignVideoFigures};

use crate::app::analytics::MetricsView;
use crate::app::analytics::params::{Day, bad_day};
use crate::app::campaigns::CampaignView;
use crate::error::ApiError;
use crate::extract::Query;
use crate::input::{Fault, Refusals, text_unless_empty};
use crate::state::AppState;
use crate::v1::export::{self, cell, number};

/// Every parameter the report knows; any other answers 400.
pub const KNOWN_PARAMETERS: [&str; 4] = ["from", "to", "baseline", "format"];

/// The longest window, in days (the analytics' limit).
const MAX_WINDOW_DAYS: i64 = 366;

/// The report's query parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportParams {
    /// First day, YYYY-MM-DD (default: the campaign's `starts_on`, else 29
    /// days before `to`)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    from: Option<Day>,
    /// Last day, YYYY-MM-DD (default: the campaign's `ends_on` when it is
    /// before today, else today, UTC); at most 366 days in all
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    to: Option<Day>,
    /// `window` (default: a video tracked after `from` counts from 0) or
    /// `tracking` (from its first reading)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    baseline: Option<BaselineKey>,
    /// `json` (default) or `csv`; without it, `Accept: text/csv` asks for CSV
    #[serde(default)]
    #[param(value_type = Option<String>)]
    #[allow(dead_code)] // read from the query as sent, with `Accept` (`json_or_csv`)
    format: Option<String>,
}

/// A `baseline` value.
#[derive(Debug, Clone, Copy)]
struct BaselineKey(Baseline);

impl std::str::FromStr for BaselineKey {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Baseline::parse(s).map(BaselineKey).ok_or(())
    }
}

impl Refusals for ReportParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "baseline" => {
                let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
                ApiError::validation(
                    "baseline",
                    format!("`baseline` must be window or tracking; got `{sent}`"),
                )
            }
            _ => bad_day(fault),
        }
    }
}

/// What a report is asked for, checked.
#[derive(Debug, Clone, Copy)]
pub struct ReportAsk {
    /// First day given.
    pub from: Option<NaiveDate>,
    /// Last day given.
    pub to: Option<NaiveDate>,
    /// The baseline rule.
    pub baseline: Baseline,
}

/// The parameters of `q`: one the report does not know answers 400
/// `VALIDATION_ERROR` naming it, as does a bad value.
pub fn read_params(q: &Query<ReportParams>) -> Result<ReportAsk, ApiError> {
    if let Some(name) = q.unknown(&KNOWN_PARAMETERS) {
        return Err(ApiError::validation(
            name,
            format!(
                "Unknown query parameter `{name}`; the report knows {}",
                KNOWN_PARAMETERS.join(", ")
            ),
        ));
    }
    let p = q.parse()?;
    Ok(ReportAsk {
        from: p.from.map(|Day(d)| d),
        to: p.to.map(|Day(d)| d),
        baseline: p.baseline.map_or(Baseline::Window, |BaselineKey(b)| b),
    })
}

/// The window a report covers: the days asked; a day not given defaults to
/// the campaign's dates (`to`: its `ends_on` when before `today`, else
/// `today`; `from`: its `starts_on`, brought within `to` and the 366-day
/// limit), else to the analytics default (`to` today, `from` 29 days
/// before). Days given are checked as the analytics check them (`from`
/// after `to`, or over 366 days: 400 naming `from`).
pub fn report_window(
    ask: &ReportAsk,
    campaign: &CampaignRecord,
    today: NaiveDate,
) -> Result<DateRange, ApiError> {
    let to = ask
        .to
        .unwrap_or_else(|| campaign.ends_on.map_or(today, |end| end.min(today)));
    let from = ask.from.or_else(|| {
        campaign
            .starts_on
            .map(|start| start.min(to).max(to - Duration::days(MAX_WINDOW_DAYS - 1)))
    });
    DateRange::window(from, Some(to), today)
        .map_err(|(field, message)| ApiError::validation(field, message))
}

/// One creator of a report.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ReportCreator {
    /// `tiktok`, `instagram` or `youtube`.
    pub platform: &'static str,
    /// The creator's handle (the first spelling in byte order; `null` when unknown).
    pub blogger_username: Option<String>,
    /// The creator's videos in the campaign.
    pub videos: i64,
    /// Of them, those without a cost (neither `budget` nor `ecpm`).
    pub videos_without_cost: i64,
    /// The gains over the window.
    #[serde(flatten)]
    pub metrics: MetricsView,
    /// The sum of the videos' known costs, in the campaign's currency (cents).
    pub spend: f64,
    /// `spend / views × 1000` (4 decimals); `null` without views.
    pub cpm: Option<f64>,
}

/// `data` of a campaign report.
#[derive(Debug, Serialize, ToSchema)]
pub struct CampaignReport {
    /// The campaign.
    pub campaign: CampaignView,
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// `window` or `tracking`.
    pub baseline: &'static str,
    /// The five metrics gained over the window by the campaign's videos.
    pub total: MetricsView,
    /// The sum of the videos' known costs (cents).
    pub spend: f64,
    /// The campaign's currency (ISO 4217).
    pub currency: String,
    /// The campaign's budget minus `spend` (cents); `null` without a budget.
    pub budget_left: Option<f64>,
    /// `spend / views × 1000` (4 decimals); `null` without views.
    pub cpm: Option<f64>,
    /// `spend / (likes + comments + reposts + saves)` (4 decimals); `null` without engagements.
    pub cpe: Option<f64>,
    /// `(likes + comments + reposts + saves) / views` (a ratio, 4 decimals); `null` without views.
    pub engagement_rate: Option<f64>,
    /// `views / target_views` (4 decimals, not capped at 1); `null` without a target.
    pub target_progress: Option<f64>,
    /// The campaign's tracked videos.
    pub videos: i64,
    /// Of them, those without a cost (neither `budget` nor `ecpm`).
    pub videos_without_cost: i64,
    /// Per creator (platform and handle in any case), most views first, then by platform and handle.
    pub creators: Vec<ReportCreator>,
}

/// A video's cost: its flat fee, else `ecpm × views since tracking / 1000`
/// (at least 0), else unknown.
pub fn cost(video: &CampaignVideoFigures) -> Option<f64> {
    video.cost()
}

/// Rounded to `places` decimals (and never `-0`).
fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale + 0.0
}

/// Money, to cents.
fn money(x: f64) -> f64 {
    round(x, 2)
}

/// A ratio, to 4 decimals; `None` when `over` is not positive.
fn ratio(of: f64, over: i64) -> Option<f64> {
    (over > 0).then(|| round(of / over as f64, 4))
}

/// Likes, comments, reposts and saves.
fn engagements(m: &Metrics) -> i64 {
    m.likes
        .saturating_add(m.comments)
        .saturating_add(m.reposts)
        .saturating_add(m.saves)
}

/// A creator's sums while the report is made.
#[derive(Debug, Default)]
struct Sums {
    /// Byte-order first spelling of the handle.
    username: Option<String>,
    videos: i64,
    without_cost: i64,
    metrics: Metrics,
    spend: f64,
}

impl Sums {
    fn add(&mut self, video: &CampaignVideoFigures) {
        self.videos += 1;
        if let Some(m) = video.gained {
            self.metrics += m;
        }
        match cost(video) {
            Some(c) => self.spend += c,
            None => self.without_cost += 1,
        }
    }
}

/// The report of `campaign` over `window` from its videos' figures.
pub fn build_report(
    campaign: &CampaignRecord,
    window: DateRange,
    baseline: Baseline,
    videos: &[CampaignVideoFigures],
) -> CampaignReport {
    let mut total = Sums::default();
    let mut creators: HashMap<(&'static str, String), Sums> = HashMap::new();
    for v in videos {
        total.add(v);
        let key = v
            .author_username
            .as_deref()
            .map(str::to_lowercase)
            .unwrap_or_default();
        let sums = creators.entry((v.platform.id(), key)).or_default();
        if let Some(name) = &v.author_username
            && sums.username.as_ref().is_none_or(|u| name < u)
        {
            sums.username = Some(name.clone());
        }
        sums.add(v);
    }
    let mut creators: Vec<((&'static str, String), Sums)> = creators.into_iter().collect();
    creators.sort_by(|((pa, ka), a), ((pb, kb), b)| {
        b.metrics
            .views
            .cmp(&a.metrics.views)
            .then(pa.cmp(pb))
            .then(ka.cmp(kb))
    });
    let m = total.metrics;
    CampaignReport {
        campaign: CampaignView::from(campaign.clone()),
        from: window.from,
        to: window.to,
        baseline: baseline.as_str(),
        total: m.into(),
        spend: money(total.spend),
        currency: campaign.currency.clone(),
        budget_left: campaign.budget.map(|b| money(b - total.spend)),
        cpm: ratio(total.spend * 1000.0, m.views),
        cpe: ratio(total.spend, engagements(&m)),
        engagement_rate: ratio(engagements(&m) as f64, m.views),
        target_progress: campaign.target_views.and_then(|t| ratio(m.views as f64, t)),
        videos: total.videos,
        videos_without_cost: total.without_cost,
        creators: creators
            .into_iter()
            .map(|((platform, _), s)| ReportCreator {
                platform,
                blogger_username: s.username,
                videos: s.videos,
                videos_without_cost: s.without_cost,
                metrics: s.metrics.into(),
                spend: money(s.spend),
                cpm: ratio(s.spend * 1000.0, s.metrics.views),
            })
            .collect(),
    }
}

/// The report of the organization's campaign `id` (`None`: no such campaign
/// there): its window from `ask` and the campaign's dates.
pub async fn campaign_report(
    app: &AppState,
    org: OrgId,
    id: CampaignId,
    ask: &ReportAsk,
) -> Result<Option<CampaignReport>, ApiError> {
    let Some(campaign) = app.store.campaign(org, id).await? else {
        return Ok(None);
    };
    let window = report_window(ask, &campaign, app.clock.now().date_naive())?;
    let videos = app
        .store
        .campaign_video_figures(org, &campaign.name, window, ask.baseline)
        .await?;
    Ok(Some(build_report(&campaign, window, ask.baseline, &videos)))
}

/// The CSV columns, in order.
pub const CSV_COLUMNS: [&str; 24] = [
    "row",
    "campaign_id",
    "campaign",
    "currency",
    "from",
    "to",
    "baseline",
    "platform",
    "blogger_username",
    "videos",
    "videos_without_cost",
    "views",
    "likes",
    "comments",
    "reposts",
    "saves",
    "spend",
    "cpm",
    "cpe",
    "engagement_rate",
    "budget",
    "budget_left",
    "target_views",
    "target_progress",
];

/// The report as CSV: a row per creator (`row` = `creator`), in the
/// answer's order, then the campaign's (`row` = `total`, no platform or
/// handle). Each row repeats the campaign, its currency and the window, so
/// rows pasted elsewhere keep them; numbers are raw (money to cents,
/// ratios to 4 decimals), days ISO, empty where a figure is `null`; text
/// cells are neutralised as the other exports' are.
pub fn report_csv(report: &CampaignReport) -> Result<Vec<u8>, ApiError> {
    let mut w = export::csv_writer();
    export::write_row(&mut w, CSV_COLUMNS)?;
    for row in report_rows(report) {
        export::write_row(&mut w, &row)?;
    }
    export::csv_bytes(w)
}

/// The cells of the CSV's rows under [`CSV_COLUMNS`], header excluded (a
/// shared link's CSV leaves some columns out).
pub fn report_rows(report: &CampaignReport) -> Vec<Vec<String>> {
    let mut rows = Vec::with_capacity(report.creators.len() + 1);
    let c = &report.campaign;
    let id = c.id.to_string();
    let lead = |row: &str| {
        vec![
            row.to_owned(),
            id.clone(),
            cell(&c.name).into_owned(),
            cell(&report.currency).into_owned(),
            report.from.to_string(),
            report.to.to_string(),
            report.baseline.to_owned(),
        ]
    };
    let figures =
        |m: &MetricsView| [m.views, m.likes, m.comments, m.reposts, m.saves].map(|n| n.to_string());
    for creator in &report.creators {
        let m: Metrics = creator.metrics.into();
        let mut row = lead("creator");
        row.push(creator.platform.to_owned());
        row.push(
            creator
                .blogger_username
                .as_deref()
                .map(cell)
                .unwrap_or_default()
                .into_owned(),
        );
        row.push(creator.videos.to_string());
        row.push(creator.videos_without_cost.to_string());
        row.extend(figures(&creator.metrics));
        row.push(creator.spend.to_string());
        row.push(number(creator.cpm));
        row.push(number(ratio(creator.spend, engagements(&m))));
        row.push(number(ratio(engagements(&m) as f64, m.views)));
        row.extend([String::new(), String::new(), String::new(), String::new()]);
        rows.push(row);
    }
    let mut row = lead("total");
    row.extend([String::new(), String::new()]);
    row.push(report.videos.to_string());
    row.push(report.videos_without_cost.to_string());
    row.extend(figures(&report.total));
    row.push(report.spend.to_string());
    row.push(number(report.cpm));
    row.push(number(report.cpe));
    row.push(number(report.engagement_rate));
    row.push(number(c.budget));
    row.push(number(report.budget_left));
    row.push(number(c.target_views));
    row.push(number(report.target_progress));
    rows.push(row);
    rows
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use uuid::Uuid;
    use vidpulse_domain::{Platform, VideoId};

    use super::*;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn campaign() -> CampaignRecord {
        let at = Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap();
        CampaignRecord {
            id: CampaignId(Uuid::nil()),
            name: "=Summer".into(),
            client: None,
            starts_on: None,
            ends_on: None,
            budget: Some(1000.0),
            currency: "EUR".into(),
            target_views: Some(40_000),
            notes: None,
            archived_at: None,
            videos: 3,
            creators: 2,
            created_at: at,
            updated_at: at,
        }
    }

    fn video(
        platform: Platform,
        author: Option<&str>,
        budget: Option<i64>,
        ecpm: Option<f64>,
        gained: Option<(i64, i64, i64)>,
        since: i64,
    ) -> CampaignVideoFigures {
        CampaignVideoFigures {
            video_id: VideoId(Uuid::now_v7()),
            platform,
            author_username: author.map(str::to_owned),
            budget,
            ecpm,
            gained: gained.map(|(views, likes, comments)| Metrics {
                views,
                likes,
                comments,
                reposts: 0,
                saves: 0,
            }),
            views_since_tracking: since,
        }
    }

    fn ask(from: Option<&str>, to: Option<&str>) -> ReportAsk {
        ReportAsk {
            from: from.map(day),
            to: to.map(day),
            baseline: Baseline::Window,
        }
    }

    #[test]
    fn costs_follow_the_money_rules() {
        let flat = video(Platform::TikTok, None, Some(300), Some(9.0), None, 5000);
        assert_eq!(cost(&flat), Some(300.0));
        let per_view = video(Platform::TikTok, None, None, Some(12.5), None, 8000);
        assert_eq!(cost(&per_view), Some(100.0));
        let dipped = video(Platform::TikTok, None, None, Some(12.5), None, -10);
        assert_eq!(cost(&dipped), Some(0.0));
        let unknown = video(Platform::TikTok, None, None, None, None, 8000);
        assert_eq!(cost(&unknown), None);
    }

    #[test]
    fn a_report_sums_spends_and_ranks_creators() {
        let videos = [
            // Mira on TikTok, twice spelled: a flat 300 and 12.5 per mille of 8,000.
            video(
                Platform::TikTok,
                Some("mira"),
                Some(300),
                None,
                Some((10_000, 900, 100)),
                12_000,
            ),
            video(
                Platform::TikTok,
                Some("Mira"),
                None,
                Some(12.5),
                Some((6_000, 500, 100)),
                8_000,
            ),
            // Ana on YouTube: no cost.
            video(
                Platform::YouTube,
                Some("ana"),
                None,
                None,
                Some((20_000, 1_000, 0)),
                20_000,
            ),
            // Mira on YouTube: nothing in the window, 3 per mille of 1,000.
            video(
                Platform::YouTube,
                Some("mira"),
                None,
                Some(3.0),
                None,
                1_000,
            ),
        ];
        let window = DateRange {
            from: day("2026-11-01"),
            to: day("2026-11-07"),
        };
        let r = build_report(&campaign(), window, Baseline::Tracking, &videos);
        assert_eq!(r.baseline, "tracking");
        assert_eq!(r.total.views, 36_000);
        // 300 + 100 + 3.
        assert_eq!(r.spend, 403.0);
        assert_eq!(r.budget_left, Some(597.0));
        // 403 / 36,000 × 1000 = 11.19444…
        assert_eq!(r.cpm, Some(11.1944));
        // 403 / 2,600.
        assert_eq!(r.cpe, Some(0.155));
        // 2,600 / 36,000.
        assert_eq!(r.engagement_rate, Some(0.0722));
        assert_eq!(r.target_progress, Some(0.9));
        assert_eq!((r.videos, r.videos_without_cost), (4, 1));
        let order: Vec<(&str, Option<&str>, i64, f64)> = r
            .creators
            .iter()
            .map(|c| {
                (
                    c.platform,
                    c.blogger_username.as_deref(),
                    c.metrics.views,
                    c.spend,
                )
            })
            .collect();
        assert_eq!(
            order,
            vec![
                ("youtube", Some("ana"), 20_000, 0.0),
                ("tiktok", Some("Mira"), 16_000, 400.0),
                ("youtube", Some("mira"), 0, 3.0),
            ]
        );
        assert_eq!(r.creators[1].videos, 2);
        assert_eq!(r.creators[1].cpm, Some(25.0));
        assert_eq!(r.creators[0].videos_without_cost, 1);
        assert_eq!(r.creators[2].cpm, None);
    }

    #[test]
    fn nothing_to_divide_by_is_null_and_money_is_in_cents() {
        let mut c = campaign();
        c.budget = None;
        c.target_views = None;
        let videos = [video(
            Platform::Instagram,
            None,
            None,
            Some(0.333),
            None,
            10,
        )];
        let window = DateRange {
            from: day("2026-11-01"),
            to: day("2026-11-07"),
        };
        let r = build_report(&c, window, Baseline::Window, &videos);
        assert_eq!(r.spend, 0.0);
        assert_eq!(
            (
                r.budget_left,
                r.cpm,
                r.cpe,
                r.engagement_rate,
                r.target_progress
            ),
            (None, None, None, None, None)
        );
        assert_eq!(r.creators[0].blogger_username, None);
        assert_eq!(money(2.675_000_1), 2.68);
        assert_eq!(money(-0.001), 0.0);
        assert!(money(-0.001).is_sign_positive());
    }

    #[test]
    fn the_window_defaults_to_the_campaigns_dates() {
        let today = day("2026-11-27");
        let mut c = campaign();
        // No dates: the analytics default.
        let w = report_window(&ask(None, None), &c, today).unwrap();
        assert_eq!((w.from, w.to), (day("2026-10-29"), today));
        // Both dates, ended: its days.
        c.starts_on = Some(day("2026-10-01"));
        c.ends_on = Some(day("2026-10-20"));
        let w = report_window(&ask(None, None), &c, today).unwrap();
        assert_eq!((w.from, w.to), (day("2026-10-01"), day("2026-10-20")));
        // Still running: until today.
        c.ends_on = Some(day("2026-12-31"));
        let w = report_window(&ask(None, None), &c, today).unwrap();
        assert_eq!((w.from, w.to), (day("2026-10-01"), today));
        // Not started yet: today alone.
        c.starts_on = Some(day("2026-12-01"));
        let w = report_window(&ask(None, None), &c, today).unwrap();
        assert_eq!((w.from, w.to), (today, today));
        // Longer than 366 days: the last 366.
        c.starts_on = Some(day("2024-01-01"));
        let w = report_window(&ask(None, None), &c, today).unwrap();
        assert_eq!((w.to - w.from).num_days(), 365);
        // Days given win; a bad pair is 400 naming `from`.
        let w = report_window(&ask(Some("2026-11-02"), Some("2026-11-03")), &c, today).unwrap();
        assert_eq!((w.from, w.to), (day("2026-11-02"), day("2026-11-03")));
        let e = report_window(&ask(Some("2026-11-04"), Some("2026-11-03")), &c, today).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("from"));
    }

    #[test]
    fn the_csv_has_a_row_per_creator_then_the_total() {
        let videos = [
            video(
                Platform::TikTok,
                Some("@evil"),
                Some(300),
                None,
                Some((1000, 10, 0)),
                1000,
            ),
            video(Platform::TikTok, Some("=cmd"), None, None, None, 0),
        ];
        let window = DateRange {
            from: day("2026-11-01"),
            to: day("2026-11-07"),
        };
        let r = build_report(&campaign(), window, Baseline::Window, &videos);
        let text = String::from_utf8(report_csv(&r).unwrap()).unwrap();
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert_eq!(lines[0], CSV_COLUMNS.join(","));
        assert_eq!(
            lines[1],
            "creator,00000000-0000-0000-0000-000000000000,'=Summer,EUR,2026-11-01,2026-11-07,window,\
             tiktok,'@evil,1,0,1000,10,0,0,0,300,300,30,0.01,,,,"
        );
        assert_eq!(
            lines[2],
            "creator,00000000-0000-0000-0000-000000000000,'=Summer,EUR,2026-11-01,2026-11-07,window,\
             tiktok,'=cmd,1,1,0,0,0,0,0,0,,,,,,,"
        );
        assert_eq!(
            lines[3],
            "total,00000000-0000-0000-0000-000000000000,'=Summer,EUR,2026-11-01,2026-11-07,window,\
             ,,2,1,1000,10,0,0,0,300,300,30,0.01,1000,700,40000,0.025"
        );
        assert_eq!(lines[4], "");
    }
}
