//! The statements that answer analytics, one SQL text for both backends
//! (`Dialect` spells the few functions that differ), the rows they read,
//! and how each backend runs one ([`AnalyticsDialect`]).

use std::future::Future;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::{AnalyticsQuery, Baseline, GroupBy, Metrics};

use super::{AnalyticsRow, DayIncrement};
use crate::StoreError;
use crate::error::parse_platform;
use crate::sql::{Conn, Dialect, Query};

/// How a backend runs an analytics statement. Rows as they come by default
/// (PostgreSQL, in `postgres/mod.rs`); SQLite's is in `sqlite/analytics.rs`.
pub(crate) trait AnalyticsDialect: Dialect {
    /// Runs an analytics statement ([`query_sql`]) with the values `bind`
    /// binds; its rows, days ascending (as the statement orders them).
    fn fetch_analytics(
        statement: &str,
        bind: impl FnOnce(Query<Self>) -> Query<Self> + Send,
        conn: &mut Conn<Self>,
    ) -> impl Future<Output = Result<Vec<AnalyticsRow>, StoreError>> + Send {
        async move {
            let rows: Vec<AggRow> = bind(Self::query(sqlx::AssertSqlSafe(statement.to_owned())))
                .fetch_all(conn)
                .await?;
            rows.into_iter().map(AnalyticsRow::try_from).collect()
        }
    }
}

/// One row of an analytics statement: read as a row, or (SQLite) from the
/// JSON array `[day, platform, author, campaign, views, …]` in field order.
#[derive(Debug, sqlx::FromRow, serde::Deserialize)]
pub(crate) struct AggRow {
    pub day: Option<NaiveDate>,
    pub platform: Option<String>,
    pub author: Option<String>,
    pub campaign: Option<String>,
    pub views: i64,
    pub likes: i64,
    pub comments: i64,
    pub reposts: i64,
    pub saves: i64,
}

impl TryFrom<AggRow> for AnalyticsRow {
    type Error = StoreError;
    fn try_from(r: AggRow) -> Result<Self, StoreError> {
        Ok(AnalyticsRow {
            day: r.day,
            platform: r.platform.as_deref().map(parse_platform).transpose()?,
            author: r.author,
            campaign: r.campaign,
            metrics: Metrics {
                views: r.views,
                likes: r.likes,
                comments: r.comments,
                reposts: r.reposts,
                saves: r.saves,
            },
        })
    }
}

/// The bind values of an analytics query, in parameter order.
pub(crate) struct Binds {
    pub org: uuid::Uuid,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub published_from: Option<DateTime<Utc>>,
    pub published_before: Option<DateTime<Utc>>,
    pub tracked_from: Option<DateTime<Utc>>,
    pub tracked_before: Option<DateTime<Utc>>,
    pub campaign: Option<String>,
    pub platform: Option<&'static str>,
    pub author: Option<String>,
}

fn start_of(day: NaiveDate) -> DateTime<Utc> {
    day.and_time(NaiveTime::MIN).and_utc()
}

impl Binds {
    pub(crate) fn of(org: OrgId, q: &AnalyticsQuery) -> Self {
        let lower = |r: &Option<(Option<NaiveDate>, Option<NaiveDate>)>| {
            r.and_then(|(from, _)| from).map(start_of)
        };
        let upper = |r: &Option<(Option<NaiveDate>, Option<NaiveDate>)>| {
            r.and_then(|(_, to)| to)
                .and_then(|d| d.succ_opt())
                .map(start_of)
        };
        Self {
            org: org.0,
            from: q.window.from,
            to: q.window.to,
            published_from: lower(&q.published),
            published_before: upper(&q.published),
            tracked_from: lower(&q.tracked),
            tracked_before: upper(&q.tracked),
            campaign: q.campaign.clone(),
            platform: q.platform.map(|p| p.id()),
            author: q.author.clone(),
        }
    }
}

impl Binds {
    /// Binds these values to a query of [`query_sql`]: one built by
    /// [`rollup_sql`] (`rollup`) or by [`totals_sql`] / [`increments_sql`].
    pub(crate) fn bind<D: Dialect>(&self, q: Query<D>, rollup: bool) -> Query<D> {
        let q = q.bind(self.org).bind(self.from).bind(self.to);
        let q = if rollup {
            q
        } else {
            q.bind(self.published_from)
                .bind(self.published_before)
                .bind(self.tracked_from)
                .bind(self.tracked_before)
        };
        q.bind(self.campaign.as_deref())
            .bind(self.platform)
            .bind(self.author.as_deref())
    }
}

const NULL_PLATFORM_AUTHOR_CAMPAIGN: &str =
    "CAST(NULL AS TEXT) AS platform, CAST(NULL AS TEXT) AS author, CAST(NULL AS TEXT) AS campaign";

/// The selected grouping columns and the GROUP BY list of `group_by`.
fn grouping(group_by: GroupBy) -> (&'static str, &'static str) {
    let author_key = "lower(coalesce(v.author_username, ''))";
    match group_by {
        GroupBy::None => (NULL_PLATFORM_AUTHOR_CAMPAIGN, ""),
        GroupBy::Platform => (
            "v.platform AS platform, CAST(NULL AS TEXT) AS author, CAST(NULL AS TEXT) AS campaign",
            "v.platform",
        ),
        GroupBy::BloggerUsername => (
            "CAST(NULL AS TEXT) AS platform, min(v.author_username) AS author, CAST(NULL AS TEXT) AS campaign",
            author_key,
        ),
        GroupBy::PlatformBlogger => (
            "v.platform AS platform, min(v.author_username) AS author, CAST(NULL AS TEXT) AS campaign",
            "v.platform, lower(coalesce(v.author_username, ''))",
        ),
        GroupBy::Campaign => (
            "CAST(NULL AS TEXT) AS platform, CAST(NULL AS TEXT) AS author, v.campaign AS campaign",
            "v.campaign",
        ),
    }
}

/// The organization's videos that pass the filters, with their visible days.
fn videos_cte<D: Dialect>() -> String {
    let p = |n: usize| format!("${n}");
    let t = |n: usize, ty: &'static str| D::typed(&p(n), ty);
    format!(
        "v AS (
           SELECT pv.id AS pvid, pv.platform,
                  coalesce(pv.author_username, tv.own_author) AS author_username, tv.campaign,
                  {start} AS start_day,
                  {least}({end}, {to}) AS end_day
           FROM tracked_videos tv
           JOIN platform_videos pv ON pv.id = tv.platform_video_id
           WHERE tv.organization_id = {org}
             AND ({pf} IS NULL OR tv.published_at >= {p4})
             AND ({pb} IS NULL OR tv.published_at < {p5})
             AND ({tf} IS NULL OR tv.tracking_started_at >= {p6})
             AND ({tb} IS NULL OR tv.tracking_started_at < {p7})
             AND ({c} IS NULL OR tv.campaign = {p8})
             AND ({pl} IS NULL OR pv.platform = {p9})
             AND ({a} IS NULL OR lower(coalesce(pv.author_username, tv.own_author)) = {p10})
         )",
        start = D::day_of("tv.tracking_started_at"),
        end = D::day_of("tv.tracking_ends_at"),
        least = D::LEAST,
        to = p(3),
        org = p(1),
        pf = t(4, "TIMESTAMPTZ"),
        pb = t(5, "TIMESTAMPTZ"),
        tf = t(6, "TIMESTAMPTZ"),
        tb = t(7, "TIMESTAMPTZ"),
        c = t(8, "TEXT"),
        pl = t(9, "TEXT"),
        a = t(10, "TEXT"),
        p10 = p(10),
        p4 = p(4),
        p5 = p(5),
        p6 = p(6),
        p7 = p(7),
        p8 = p(8),
        p9 = p(9),
    )
}

fn sums<D: Dialect>(expr: impl Fn(&str) -> String) -> String {
    ["views", "likes", "comments", "reposts", "saves"]
        .map(|m| format!("coalesce(sum({}), 0){} AS {m}", expr(m), D::SUM_CAST))
        .join(", ")
}

/// Per video, the increments of one day: `max(0, last − (first visible day
/// ? first : previous close))`, with the video's fields; sorted by the
/// metric `sort_by` (a fixed name, not user text), then video id.
pub(crate) fn day_increments_sql<D: Dialect>(sort_by: &'static str) -> String {
    let p = |n: usize| format!("${n}");
    let t = |n: usize, ty: &'static str| D::typed(&p(n), ty);
    let start = D::day_of("tv.tracking_started_at");
    let end = D::day_of("tv.tracking_ends_at");
    let first = format!("(dc.prev_day IS NULL OR dc.prev_day < {start})");
    let metrics = ["views", "likes", "comments", "reposts", "saves"]
        .map(|m| {
            format!(
                "{g}(0, coalesce(dc.last_{m}, 0) - CASE WHEN {first} THEN coalesce(dc.first_{m}, 0)
                                                   ELSE coalesce(dc.prev_{m}, 0) END) AS {m}",
                g = D::GREATEST
            )
        })
        .join(", ");
    format!(
        "SELECT tv.id AS video_id, pv.external_id, pv.thumbnail_url,
                coalesce(tv.own_url, pv.url) AS url,
                coalesce(pv.author_username, tv.own_author) AS author_username,
                pv.platform, tv.campaign, coalesce(pv.published_at, tv.own_published_at) AS published_at,
                tv.created_at, {metrics}
         FROM tracked_videos tv
         JOIN platform_videos pv ON pv.id = tv.platform_video_id
         JOIN daily_closes dc ON dc.platform_video_id = tv.platform_video_id
                             AND dc.organization_id = tv.organization_id AND dc.day = {day}
         WHERE tv.organization_id = {org} AND {day} >= {start} AND {day} <= {end}
           AND ({c} IS NULL OR tv.campaign = {c}) AND ({pl} IS NULL OR pv.platform = {pl})
         ORDER BY {sort_by} DESC, tv.id
         LIMIT {limit}",
        org = p(1),
        day = p(2),
        limit = p(3),
        c = t(4, "TEXT"),
        pl = t(5, "TEXT"),
    )
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct DayIncrementRow {
    pub video_id: uuid::Uuid,
    pub external_id: String,
    pub thumbnail_url: Option<String>,
    pub url: String,
    pub author_username: Option<String>,
    pub platform: String,
    pub campaign: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub views: i64,
    pub likes: i64,
    pub comments: i64,
    pub reposts: i64,
    pub saves: i64,
}

impl TryFrom<DayIncrementRow> for DayIncrement {
    type Error = StoreError;
    fn try_from(r: DayIncrementRow) -> Result<Self, StoreError> {
        Ok(Self {
            video_id: r.video_id,
            external_id: r.external_id,
            thumbnail_url: r.thumbnail_url,
            url: r.url,
            author_username: r.author_username,
            platform: parse_platform(&r.platform)?,
            campaign: r.campaign,
            published_at: r.published_at,
            created_at: r.created_at,
            metrics: Metrics {
                views: r.views,
                likes: r.likes,
                comments: r.comments,
                reposts: r.reposts,
                saves: r.saves,
            },
        })
    }
}

/// Totals: per video the close of the last visible day ≤ `to` minus the
/// baseline (the close of the last day before `from`, else the first
/// observation on `from` — with [`Baseline::Tracking`], of its first visible
/// day on or after `from` — else 0); a video without a close in the window
/// adds nothing, not even an empty group.
pub(crate) fn totals_sql<D: Dialect>(group_by: GroupBy, baseline: Baseline) -> String {
    let p = |n: usize| format!("${n}");
    let (select, group) = grouping(group_by);
    let group_clause = if group.is_empty() {
        "HAVING count(*) > 0".to_owned()
    } else {
        format!("GROUP BY {group}")
    };
    let metrics = sums::<D>(|m| {
        format!(
            "coalesce(ce.last_{m}, 0) - CASE WHEN v.before_d IS NOT NULL THEN coalesce(cb.last_{m}, 0)
                                             ELSE coalesce(cf.first_{m}, 0) END"
        )
    });
    format!(
        "WITH {videos},
         e AS MATERIALIZED (
           SELECT v.*,
             (SELECT max(day) FROM daily_closes
               WHERE platform_video_id = v.pvid AND organization_id = {org}
                 AND day >= v.start_day AND day <= v.end_day) AS end_d,
             (SELECT max(day) FROM daily_closes
               WHERE platform_video_id = v.pvid AND organization_id = {org}
                 AND day >= v.start_day AND day < {from}) AS before_d{first_d}
           FROM v
         )
         SELECT CAST(NULL AS DATE) AS day, {select}, {metrics}
         FROM e v
         JOIN daily_closes ce ON ce.platform_video_id = v.pvid AND ce.organization_id = {org}
                             AND ce.day = v.end_d
         LEFT JOIN daily_closes cb ON cb.platform_video_id = v.pvid AND cb.organization_id = {org}
                                  AND cb.day = v.before_d
         LEFT JOIN daily_closes cf ON cf.platform_video_id = v.pvid AND cf.organization_id = {org}
                                  AND {first_day}
         WHERE v.end_d >= {from}
         {group_clause}",
        videos = videos_cte::<D>(),
        first_d = first_d_column(baseline),
        first_day = first_day_condition(baseline),
        from = p(2),
        org = p(1),
    )
}

/// With [`Baseline::Tracking`], the extra column of [`totals_sql`]'s
/// videos: the first visible day on or after `from` (`$2`), within the
/// window.
fn first_d_column(baseline: Baseline) -> &'static str {
    match baseline {
        Baseline::Window => "",
        Baseline::Tracking => {
            ",
             (SELECT min(day) FROM daily_closes
               WHERE platform_video_id = v.pvid AND organization_id = $1
                 AND day >= v.start_day AND day >= $2 AND day <= v.end_day) AS first_d"
        }
    }
}

/// Which close `cf` of [`totals_sql`] gives the first observation a video
/// without a close before `from` counts from: `from`'s own (the spec's
/// rule), or its first visible day's on or after `from`.
fn first_day_condition(baseline: Baseline) -> &'static str {
    match baseline {
        Baseline::Window => "cf.day = $2 AND cf.day >= v.start_day",
        Baseline::Tracking => "cf.day = v.first_d",
    }
}

/// The rollup table that answers `q`, when one can: publish and tracking
/// filters need each video, the creator table has no campaign column and
/// the campaign table no creator column.
pub(crate) fn rollup_table(q: &AnalyticsQuery) -> Option<&'static str> {
    if q.published.is_some() || q.tracked.is_some() {
        return None;
    }
    let by_creator = matches!(
        q.group_by,
        GroupBy::BloggerUsername | GroupBy::PlatformBlogger
    );
    let by_campaign = q.group_by == GroupBy::Campaign;
    if by_creator || q.author.is_some() {
        (q.campaign.is_none() && !by_campaign).then_some("analytics_creator_days")
    } else {
        Some("analytics_campaign_days")
    }
}

/// Totals or increments from a rollup table (see [`crate::rollup`]): totals
/// are `Σ step + Σ (day = from ? open : entry)` over the window
/// ([`Baseline::Window`]: a video first seen after `from` counts from 0) or
/// `Σ step + Σ open` ([`Baseline::Tracking`]: it counts from its first
/// reading), increments `Σ gain` per day. Binds with [`Binds::bind`].
pub(crate) fn rollup_sql<D: Dialect>(
    table: &'static str,
    group_by: GroupBy,
    increments: bool,
    baseline: Baseline,
) -> String {
    let p = |n: usize| format!("${n}");
    let t = |n: usize, ty: &'static str| D::typed(&p(n), ty);
    // Creator rows group by the author as stored: no per-row lower(); the
    // caller merges spellings by key.
    let (select, group) = match group_by {
        GroupBy::BloggerUsername => (
            "CAST(NULL AS TEXT) AS platform, v.author_username AS author, CAST(NULL AS TEXT) AS campaign",
            "v.author_username",
        ),
        GroupBy::PlatformBlogger => (
            "v.platform AS platform, v.author_username AS author, CAST(NULL AS TEXT) AS campaign",
            "v.platform, v.author_username",
        ),
        other => grouping(other),
    };
    let (campaign_filter, author_filter) = if table == "analytics_campaign_days" {
        (
            format!("({c} IS NULL OR v.campaign = {c})", c = t(4, "TEXT")),
            format!("{} IS NULL", t(6, "TEXT")),
        )
    } else {
        (
            format!("{} IS NULL", t(4, "TEXT")),
            format!(
                "({a} IS NULL OR lower(v.author_username) = {a})",
                a = t(6, "TEXT")
            ),
        )
    };
    if increments && table == "analytics_creator_days" {
        // Each row is already one (day, platform, creator spelling): no
        // GROUP BY (and no sort); the caller merges rows that share a key.
        let metrics = ["views", "likes", "comments", "reposts", "saves"]
            .map(|m| format!("v.gain_{m} AS {m}"))
            .join(", ");
        return format!(
            "SELECT v.day AS day, v.platform AS platform, v.author_username AS author,
                    CAST(NULL AS TEXT) AS campaign, {metrics}
             FROM {table} v
             WHERE v.organization_id = {org} AND v.day >= {from} AND v.day <= {to}
               AND {campaign_filter} AND {author_filter} AND ({pl} IS NULL OR v.platform = {pl})
             ORDER BY v.day",
            org = p(1),
            from = p(2),
            to = p(3),
            pl = t(5, "TEXT"),
        );
    }
    let (day_column, metrics, group, order) = if increments {
        let group = if group.is_empty() {
            "v.day".to_owned()
        } else {
            format!("v.day, {group}")
        };
        (
            "v.day",
            sums::<D>(|m| format!("v.gain_{m}")),
            format!("GROUP BY {group}"),
            "ORDER BY v.day",
        )
    } else {
        // Without a group, an empty window still aggregates to one row: drop it.
        let group = if group.is_empty() {
            "HAVING count(*) > 0".to_owned()
        } else {
            format!("GROUP BY {group}")
        };
        (
            "CAST(NULL AS DATE)",
            sums::<D>(|m| match baseline {
                Baseline::Window => format!(
                    "v.step_{m} + CASE WHEN v.day = {from} THEN v.open_{m} ELSE v.entry_{m} END",
                    from = p(2)
                ),
                Baseline::Tracking => format!("v.step_{m} + v.open_{m}"),
            }),
            group,
            "",
        )
    };
    format!(
        "SELECT {day_column} AS day, {select}, {metrics}
         FROM {table} v
         WHERE v.organization_id = {org} AND v.day >= {from} AND v.day <= {to}
           AND {campaign_filter} AND {author_filter} AND ({pl} IS NULL OR v.platform = {pl})
         {group} {order}",
        org = p(1),
        from = p(2),
        to = p(3),
        pl = t(5, "TEXT"),
    )
}

/// Increments: per visible day with an observation, `max(0, close − previous)`
/// where `previous` is the close of the video's latest earlier visible day,
/// or on its first day that day's first observation.
pub(crate) fn increments_sql<D: Dialect>(group_by: GroupBy) -> String {
    let p = |n: usize| format!("${n}");
    let (select, group) = grouping(group_by);
    let group = if group.is_empty() {
        "v.day".to_owned()
    } else {
        format!("v.day, {group}")
    };
    let lags = ["views", "likes", "comments", "reposts", "saves"]
        .map(|m| format!("dc.last_{m}, dc.first_{m}, LAG(dc.last_{m}) OVER w AS prev_{m}"))
        .join(", ");
    let metrics = sums::<D>(|m| {
        format!(
            "{greatest}(0, coalesce(v.last_{m}, 0) - CASE WHEN v.rn = 1 THEN coalesce(v.first_{m}, 0)
                                                     ELSE coalesce(v.prev_{m}, 0) END)",
            greatest = D::GREATEST
        )
    });
    format!(
        "WITH {videos},
         c AS (
           SELECT v.platform, v.author_username, v.campaign, dc.day, {lags},
                  ROW_NUMBER() OVER w AS rn
           FROM v
           JOIN daily_closes dc ON dc.platform_video_id = v.pvid AND dc.organization_id = {org}
                               AND dc.day >= v.start_day AND dc.day <= v.end_day
           WINDOW w AS (PARTITION BY dc.platform_video_id ORDER BY dc.day)
         )
         SELECT v.day AS day, {select}, {metrics}
         FROM c v
         WHERE v.day >= {from}
         GROUP BY {group}
         ORDER BY v.day",
        videos = videos_cte::<D>(),
        from = p(2),
        org = p(1),
    )
}

/// The SQL that answers `q` on dialect `d`, and whether it reads the rollup
///  or every close .
pub(crate) fn query_sql<D: Dialect>(q: &AnalyticsQuery, increments: bool) -> (String, bool) {
    match rollup_table(q) {
        Some(table) => (
            rollup_sql::<D>(table, q.group_by, increments, q.baseline),
            true,
        ),
        None if increments => (increments_sql::<D>(q.group_by), false),
        None => (totals_sql::<D>(q.group_by, q.baseline), false),
    }
}
