//! The per-video figures a campaign report is made of: one statement, one
//! SQL text for both backends, reading each video's daily closes within the
//! organization's tracking window (the visibility rule of the analytics
//! totals, `analytics/statements.rs`).
//!
//! Per video of the campaign, a few seeks in `daily_closes`' key
//! (catalog video, organization, day): its last visible day on or before
//! `to` (the end), its last visible day before `from` (the baseline), its
//! first visible day (where tracking began) and, with
//! `baseline=tracking`, its first visible day on or after `from`.

use sqlx::AssertSqlSafe;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::{Baseline, DateRange, Metrics};

use super::CampaignVideoFigures;
use crate::StoreError;
use crate::backend::Db;
use crate::error::parse_platform;
use crate::sql::{Dialect, SqlStore};

/// One row of [`figures_sql`].
#[derive(Debug, sqlx::FromRow)]
struct FiguresRow {
    video_id: uuid::Uuid,
    platform: String,
    author_username: Option<String>,
    budget: Option<i64>,
    ecpm: Option<f64>,
    views: Option<i64>,
    likes: Option<i64>,
    comments: Option<i64>,
    reposts: Option<i64>,
    saves: Option<i64>,
    views_since_tracking: i64,
}

impl TryFrom<FiguresRow> for CampaignVideoFigures {
    type Error = StoreError;
    fn try_from(r: FiguresRow) -> Result<Self, StoreError> {
        let gained = r.views.map(|views| Metrics {
            views,
            likes: r.likes.unwrap_or(0),
            comments: r.comments.unwrap_or(0),
            reposts: r.reposts.unwrap_or(0),
            saves: r.saves.unwrap_or(0),
        });
        Ok(Self {
            video_id: vidpulse_domain::VideoId(r.video_id),
            platform: parse_platform(&r.platform)?,
            author_username: r.author_username,
            budget: r.budget,
            ecpm: r.ecpm,
            gained,
            views_since_tracking: r.views_since_tracking,
        })
    }
}

/// The statement: `$1` the organization, `$2` the campaign's name, `$3`
/// and `$4` the window's first and last day.
///
/// Per video: `end_d`, its last visible day ≤ `to`; `before_d`, its last
/// visible day < `from`; `first_d`, its first visible day. The gain (NULL
/// without a visible close in the window, as the totals leave such a video
/// out) is the end's close minus the baseline: the close of `before_d`,
/// else (`window`) the first reading on `from` when its tracking covers
/// that day, else 0; or (`tracking`) the first reading of its first
/// visible day on or after `from`. `views_since_tracking` is the end's
/// close minus the first reading of `first_d` (0 without an end).
fn figures_sql<D: Dialect>(baseline: Baseline) -> String {
    let p = |n: usize| format!("${n}");
    let start = D::day_of("tv.tracking_started_at");
    let end = D::day_of("tv.tracking_ends_at");
    let visible = "platform_video_id = v.pvid AND organization_id = v.org
                   AND day >= v.start_day AND day <= v.end_day";
    // Where the baseline's first reading is read when no close precedes `from`.
    let first = match baseline {
        Baseline::Window => "cf.day = $3 AND cf.day >= e.start_day",
        Baseline::Tracking => "cf.day = e.after_d",
    };
    let metrics = ["views", "likes", "comments", "reposts", "saves"]
        .map(|m| {
            format!(
                "CASE WHEN e.end_d >= {from} THEN coalesce(ce.last_{m}, 0)
                      - CASE WHEN e.before_d IS NOT NULL THEN coalesce(cb.last_{m}, 0)
                             ELSE coalesce(cf.first_{m}, 0) END END AS {m}",
                from = p(3)
            )
        })
        .join(", ");
    format!(
        "WITH v AS (
           SELECT tv.id AS video_id, tv.organization_id AS org, tv.platform_video_id AS pvid,
                  pv.platform, coalesce(pv.author_username, tv.own_author) AS author_username,
                  tv.budget, tv.ecpm, {start} AS start_day, {end} AS end_day
           FROM tracked_videos tv
           JOIN platform_videos pv ON pv.id = tv.platform_video_id
           WHERE tv.organization_id = {org} AND tv.campaign = {name}
         ),
         e AS MATERIALIZED (
           SELECT v.*,
             (SELECT max(day) FROM daily_closes WHERE {visible} AND day <= {to}) AS end_d,
             (SELECT max(day) FROM daily_closes WHERE {visible} AND day < {from}) AS before_d,
             (SELECT min(day) FROM daily_closes WHERE {visible}) AS first_d,
             (SELECT min(day) FROM daily_closes WHERE {visible} AND day >= {from}) AS after_d
           FROM v
         )
         SELECT e.video_id, e.platform, e.author_username, e.budget, e.ecpm, {metrics},
                CASE WHEN e.end_d IS NULL THEN 0
                     ELSE coalesce(ce.last_views, 0) - coalesce(c0.first_views, 0) END
                  AS views_since_tracking
         FROM e
         LEFT JOIN daily_closes ce ON ce.platform_video_id = e.pvid AND ce.organization_id = e.org
                                  AND ce.day = e.end_d
         LEFT JOIN daily_closes cb ON cb.platform_video_id = e.pvid AND cb.organization_id = e.org
                                  AND cb.day = e.before_d
         LEFT JOIN daily_closes cf ON cf.platform_video_id = e.pvid AND cf.organization_id = e.org
                                  AND {first}
         LEFT JOIN daily_closes c0 ON c0.platform_video_id = e.pvid AND c0.organization_id = e.org
                                  AND c0.day = e.first_d",
        org = p(1),
        name = p(2),
        from = p(3),
        to = p(4),
    )
}

pub(super) async fn video_figures<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    name: &str,
    window: DateRange,
    baseline: Baseline,
) -> Result<Vec<CampaignVideoFigures>, StoreError> {
    let sql = figures_sql::<D>(baseline);
    let rows: Vec<FiguresRow> = D::query(AssertSqlSafe(sql))
        .bind(org.0)
        .bind(name)
        .bind(window.from)
        .bind(window.to)
        .fetch_all(&mut *store.read().await?)
        .await?;
    rows.into_iter()
        .map(CampaignVideoFigures::try_from)
        .collect()
}
