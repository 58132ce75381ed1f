//! Analytics benchmark: totals and increments for every `group_by` over a
//! 30-day window, on SQLite and PostgreSQL, at `--videos` tracked videos.
//!
//! ```sh
//! cargo bench -p vidpulse-store --bench analytics -- --videos 100000
//! ```
//!
//! The dataset (see `generator.rs`) is built once per size and kept: SQLite in
//! `target/bench-data/analytics-N.db`, PostgreSQL in the database
//! `vidpulse_bench_N` on `VIDPULSE_TEST_POSTGRES_URL`'s server (default
//! `postgres://postgres@127.0.0.1:5432/test`). `--regenerate` rebuilds it.
//! Each case runs once to warm up, then `--runs` times; the table gives the
//! median, the 95th percentile and the slowest run. `--explain` prints the
//! query plans; `--only TEXT` runs only the listing cases whose name holds
//! TEXT (`--only ""`: every listing case, nothing else); `--report` runs
//! only the campaign report's store read (issue 37). `--without-readings`
//! builds and uses a separate dataset without the observations (the
//! catalog, trackings, daily closes and rollup are the same): for the reads
//! that never touch observations (the report), in a fraction of the time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod generator;

use std::path::PathBuf;
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use clap::Parser;
use sqlx::{Connection, Executor, PgPool, QueryBuilder, SqlitePool};
use uuid::Uuid;
use vidpulse_domain::analytics::{AnalyticsQuery, DateRange, GroupBy};
use vidpulse_domain::names::TagName;
use vidpulse_domain::{OrgId, Plan, Platform};
use vidpulse_store::orgs::NewOrganization;
use vidpulse_store::{Backend, Store, StoreConfig};

use generator::Video;

/// What to run.
#[derive(Debug, Parser)]
struct Args {
    /// Tracked videos in the dataset.
    #[arg(long, default_value_t = 100_000)]
    videos: usize,
    /// `sqlite`, `postgres` or `both`.
    #[arg(long, default_value = "both")]
    backend: String,
    /// Timed runs per case.
    #[arg(long, default_value_t = 15)]
    runs: usize,
    /// Print each query's plan.
    #[arg(long)]
    explain: bool,
    /// Rebuild the dataset even when it exists.
    #[arg(long)]
    regenerate: bool,
    /// Run only the listing cases whose name holds this text (and nothing
    /// else): a quick measure while working on one filter.
    #[arg(long)]
    only: Option<String>,
    /// Run only the campaign report's cases (and nothing else).
    #[arg(long)]
    report: bool,
    /// Use a dataset without the observations (`…-closes`), built in a
    /// fraction of the time; only for reads that never touch them.
    #[arg(long)]
    without_readings: bool,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// The instant the dataset is generated at: fixed, so every run sees the same rows.
fn dataset_now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

/// Marks a complete dataset (bump when the generator changes).
const DATASET_VERSION: &str = "analytics-v5";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let backends = match args.backend.as_str() {
        "sqlite" => vec![Backend::Sqlite],
        "postgres" => vec![Backend::Postgres],
        "both" => vec![Backend::Sqlite, Backend::Postgres],
        other => anyhow::bail!("--backend must be sqlite, postgres or both; got {other}"),
    };
    for backend in backends {
        let name = dataset_name(args.videos, args.without_readings);
        let url = dataset_url(backend, &name).await?;
        let existing = if args.regenerate {
            None
        } else {
            existing_dataset(&url).await?
        };
        if existing.is_none() {
            drop_dataset(backend, &url, &name).await?;
        }
        let store = vidpulse_store::open(&StoreConfig::new(url.clone())).await?;
        let org = match existing {
            Some(org) => org,
            None => generate(&store, &url, args.videos, !args.without_readings).await?,
        };
        run_cases(backend, &store, &url, org, &args).await?;
        store.close().await;
    }
    Ok(())
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target")))
}

/// The dataset's name: `N` videos, `N_closes` without the observations.
fn dataset_name(n: usize, without_readings: bool) -> String {
    if without_readings {
        format!("{n}_closes")
    } else {
        n.to_string()
    }
}

async fn dataset_url(backend: Backend, dataset: &str) -> anyhow::Result<String> {
    Ok(match backend {
        Backend::Sqlite => format!(
            "sqlite://{}/bench-data/analytics-{dataset}.db",
            target_dir().display()
        ),
        Backend::Postgres => {
            let admin = vidpulse_store::testing::postgres_admin_url();
            let name = format!("vidpulse_bench_{dataset}");
            let mut conn = sqlx::PgConnection::connect(&admin).await?;
            let exists: Option<i32> =
                sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
                    .bind(&name)
                    .fetch_optional(&mut conn)
                    .await?;
            if exists.is_none() {
                conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .await?;
            }
            let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
            format!("{base}/{name}")
        }
    })
}

/// The organization of a complete dataset at `url`, if there is one.
async fn existing_dataset(url: &str) -> anyhow::Result<Option<OrgId>> {
    const MARKER: &str = "SELECT value FROM settings WHERE key = 'bench_dataset'";
    let value: Option<String> = if let Some(file) = url.strip_prefix("sqlite://") {
        if !std::path::Path::new(file).exists() {
            return Ok(None);
        }
        let pool = SqlitePool::connect(url).await?;
        let v = sqlx::query_scalar(MARKER).fetch_optional(&pool).await;
        pool.close().await;
        v.ok().flatten()
    } else {
        let pool = PgPool::connect(url).await?;
        let v = sqlx::query_scalar(MARKER).fetch_optional(&pool).await;
        pool.close().await;
        v.ok().flatten()
    };
    Ok(value
        .and_then(|v| {
            v.strip_prefix(&format!("{DATASET_VERSION}:"))
                .map(str::to_owned)
        })
        .and_then(|org| org.parse().ok())
        .map(OrgId))
}

/// Empties a dataset so it can be built again.
async fn drop_dataset(backend: Backend, url: &str, dataset: &str) -> anyhow::Result<()> {
    match backend {
        Backend::Sqlite => {
            let file = url.trim_start_matches("sqlite://");
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{file}{suffix}"));
            }
        }
        Backend::Postgres => {
            let admin = vidpulse_store::testing::postgres_admin_url();
            let mut conn = sqlx::PgConnection::connect(&admin).await?;
            let name = format!("vidpulse_bench_{dataset}");
            conn.execute(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .await?;
            conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .await?;
        }
    }
    Ok(())
}

/// Rows per multi-row INSERT (14 columns: well under both backends' limits).
const CHUNK: usize = 1000;
/// Videos generated and written per transaction.
const BATCH: usize = 10_000;

/// Builds the dataset (the observations too when `with_readings`);
/// returns its organization.
async fn generate(
    store: &std::sync::Arc<dyn Store>,
    url: &str,
    n: usize,
    with_readings: bool,
) -> anyhow::Result<OrgId> {
    let now = dataset_now();
    let started = Instant::now();
    let org = store
        .create_organization(NewOrganization {
            name: "Benchmark agency".into(),
            plan: Plan::Business,
            owner_email: None,
            owner_subject: None,
            now: now - Duration::days(60),
        })
        .await?
        .id;
    let mut closes = 0usize;
    let mut readings = 0usize;
    if url.starts_with("sqlite:") {
        let pool = SqlitePool::connect(url).await?;
        for start in (0..n).step_by(BATCH) {
            let videos: Vec<Video> = (start..(start + BATCH).min(n))
                .map(|i| generator::video(i, n, now))
                .collect();
            closes += videos.iter().map(|v| v.closes.len()).sum::<usize>();
            readings += videos
                .iter()
                .filter(|_| with_readings)
                .map(|v| v.readings.len())
                .sum::<usize>();
            let mut tx = pool.begin().await?;
            write_sqlite(&mut tx, org, &videos, now, with_readings).await?;
            tx.commit().await?;
        }
        pool.close().await;
    } else {
        let pool = PgPool::connect(url).await?;
        for start in (0..n).step_by(BATCH) {
            let videos: Vec<Video> = (start..(start + BATCH).min(n))
                .map(|i| generator::video(i, n, now))
                .collect();
            closes += videos.iter().map(|v| v.closes.len()).sum::<usize>();
            readings += videos
                .iter()
                .filter(|_| with_readings)
                .map(|v| v.readings.len())
                .sum::<usize>();
            let mut tx = pool.begin().await?;
            write_postgres(&mut tx, org, &videos, now, with_readings).await?;
            tx.commit().await?;
        }
        pool.execute(
            "SELECT setval(pg_get_serial_sequence('platform_videos', 'id'), (SELECT max(id) FROM platform_videos))",
        )
        .await?;
        pool.close().await;
    }
    println!(
        "generated {n} videos, {readings} observations, {closes} daily closes in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // The closes were written directly: link them and fill the rollup,
    // with planner statistics of the new rows (without them PostgreSQL
    // planned the rebuild's joins as over empty tables: over 20 minutes
    // instead of 30 seconds).
    let started = Instant::now();
    if url.starts_with("sqlite:") {
        let pool = SqlitePool::connect(url).await?;
        pool.execute("ANALYZE").await?;
        pool.close().await;
    } else {
        let pool = PgPool::connect(url).await?;
        pool.execute("ANALYZE").await?;
        pool.close().await;
    }
    store.rebuild_analytics().await?;
    println!(
        "rebuilt the analytics rollup in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Statistics for the planner, then the marker of a complete dataset.
    let marker = format!("{DATASET_VERSION}:{}", org.0);
    if url.starts_with("sqlite:") {
        let pool = SqlitePool::connect(url).await?;
        pool.execute("ANALYZE").await?;
        sqlx::query("INSERT INTO settings (key, value) VALUES ('bench_dataset', ?1)")
            .bind(marker)
            .execute(&pool)
            .await?;
        pool.close().await;
    } else {
        let pool = PgPool::connect(url).await?;
        pool.execute("VACUUM ANALYZE").await?;
        sqlx::query("INSERT INTO settings (key, value) VALUES ('bench_dataset', $1)")
            .bind(marker)
            .execute(&pool)
            .await?;
        pool.close().await;
    }
    Ok(org)
}

fn tracked_id(v: &Video) -> Uuid {
    Uuid::from_u64_pair(0x7669_6470_756c_7365, v.id as u64)
}

/// Writes one batch of videos: catalog rows, trackings, observations and closes.
macro_rules! write_batch {
    ($tx:expr, $org:expr, $videos:expr, $now:expr, $with_readings:expr, $catalog_insert:expr) => {{
        let window = Duration::days(30);
        for chunk in $videos.chunks(CHUNK) {
            let mut q = QueryBuilder::new($catalog_insert);
            q.push_values(chunk, |mut b, v| {
                let last = v.closes.last().map(|c| c.last);
                b.push_bind(v.id)
                    .push_bind(v.platform)
                    .push_bind(&v.external_id)
                    .push_bind(format!("https://example.com/{}", v.external_id))
                    .push_bind(&v.title)
                    .push_bind(&v.author)
                    .push_bind(v.published_at)
                    .push_bind(last.map(|r| r.views))
                    .push_bind(last.map(|r| r.likes))
                    .push_bind(last.map(|r| r.comments))
                    .push_bind(last.and_then(|r| r.reposts))
                    .push_bind(last.and_then(|r| r.saves))
                    .push_bind(last.map(|r| r.at))
                    .push_bind(v.started_at)
                    .push_bind(v.started_at + window)
                    .push_bind(v.started_at);
            });
            q.build().execute(&mut **$tx).await?;

            let mut q = QueryBuilder::new(
                "INSERT INTO tracked_videos (id, organization_id, platform_video_id, tracking_started_at, \
                 tracking_ends_at, campaign, created_at, updated_at, platform) ",
            );
            q.push_values(chunk, |mut b, v| {
                b.push_bind(tracked_id(v))
                    .push_bind($org.0)
                    .push_bind(v.id)
                    .push_bind(v.started_at)
                    .push_bind(v.started_at + window)
                    .push_bind(&v.campaign)
                    .push_bind(v.started_at)
                    .push_bind($now)
                    .push_bind(v.platform);
            });
            q.build().execute(&mut **$tx).await?;
        }
        let closes: Vec<(i64, &generator::Close)> = $videos
            .iter()
            .flat_map(|v| v.closes.iter().map(move |c| (v.id, c)))
            .collect();
        let readings: Vec<(i64, &generator::Reading)> = $videos
            .iter()
            .filter(|_| $with_readings)
            .flat_map(|v| v.readings.iter().map(move |r| (v.id, r)))
            .collect();
        for chunk in readings.chunks(CHUNK) {
            let mut q = QueryBuilder::new(
                "INSERT INTO observations (platform_video_id, captured_at, views, likes, comments, \
                 reposts, saves, source) ",
            );
            q.push_values(chunk, |mut b, (id, r)| {
                b.push_bind(*id)
                    .push_bind(r.at)
                    .push_bind(r.views)
                    .push_bind(r.likes)
                    .push_bind(r.comments)
                    .push_bind(r.reposts)
                    .push_bind(r.saves)
                    .push_bind("simulated");
            });
            q.build().execute(&mut **$tx).await?;
        }
        for chunk in closes.chunks(CHUNK) {
            let mut q = QueryBuilder::new(
                "INSERT INTO daily_closes (platform_video_id, organization_id, day, first_at, first_views, first_likes, \
                 first_comments, first_reposts, first_saves, last_at, last_views, last_likes, \
                 last_comments, last_reposts, last_saves) ",
            );
            q.push_values(chunk, |mut b, (id, c)| {
                b.push_bind(*id)
                    .push_bind($org.0)
                    .push_bind(c.day)
                    .push_bind(c.first.at)
                    .push_bind(c.first.views)
                    .push_bind(c.first.likes)
                    .push_bind(c.first.comments)
                    .push_bind(c.first.reposts)
                    .push_bind(c.first.saves)
                    .push_bind(c.last.at)
                    .push_bind(c.last.views)
                    .push_bind(c.last.likes)
                    .push_bind(c.last.comments)
                    .push_bind(c.last.reposts)
                    .push_bind(c.last.saves);
            });
            q.build().execute(&mut **$tx).await?;
        }
    }};
}

const CATALOG_COLUMNS: &str = "(id, platform, external_id, url, title, author_username, published_at, views, likes, \
     comments, reposts, saves, stats_updated_at, tracking_started_at, refresh_until, created_at) ";

async fn write_sqlite(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    org: OrgId,
    videos: &[Video],
    now: DateTime<Utc>,
    with_readings: bool,
) -> anyhow::Result<()> {
    write_batch!(
        tx,
        org,
        videos,
        now,
        with_readings,
        format!("INSERT INTO platform_videos {CATALOG_COLUMNS}")
    );
    Ok(())
}

async fn write_postgres(
    tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
    org: OrgId,
    videos: &[Video],
    now: DateTime<Utc>,
    with_readings: bool,
) -> anyhow::Result<()> {
    write_batch!(
        tx,
        org,
        videos,
        now,
        with_readings,
        format!("INSERT INTO platform_videos {CATALOG_COLUMNS} OVERRIDING SYSTEM VALUE ")
    );
    Ok(())
}

/// One timed case.
struct Case {
    name: String,
    increments: bool,
    query: AnalyticsQuery,
}

fn cases() -> Vec<Case> {
    let to = dataset_now().date_naive();
    let window = DateRange::window(None, Some(to), to).unwrap();
    let mut out = Vec::new();
    for increments in [false, true] {
        for group_by in GroupBy::ALL {
            out.push(Case {
                name: group_by.as_str().to_owned(),
                increments,
                query: AnalyticsQuery {
                    window,
                    group_by,
                    published: None,
                    tracked: None,
                    campaign: None,
                    platform: None,
                    author: None,
                    baseline: vidpulse_domain::analytics::Baseline::Window,
                },
            });
        }
        out.push(Case {
            name: "campaign, campaign and platform filters".into(),
            increments,
            query: AnalyticsQuery {
                window,
                group_by: GroupBy::Campaign,
                published: None,
                tracked: None,
                campaign: Some("Campaign 07".into()),
                platform: Some(Platform::TikTok),
                author: None,
                baseline: vidpulse_domain::analytics::Baseline::Window,
            },
        });
        out.push(Case {
            name: "platform_blogger, 4 filters".into(),
            increments,
            query: AnalyticsQuery {
                window,
                group_by: GroupBy::PlatformBlogger,
                published: Some((Some(to - Duration::days(20)), None)),
                tracked: Some((None, Some(to - Duration::days(2)))),
                campaign: Some("Campaign 07".into()),
                platform: Some(Platform::TikTok),
                author: None,
                baseline: vidpulse_domain::analytics::Baseline::Window,
            },
        });
    }
    out
}

/// Times `run` (one warm-up, then `runs` times): its rows, median, p95, max.
async fn time<F, Fut>(runs: usize, run: F) -> anyhow::Result<(usize, f64, f64, f64)>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<usize>>,
{
    let rows = run().await?;
    let mut times: Vec<StdDuration> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        run().await?;
        times.push(t.elapsed());
    }
    times.sort();
    let ms = |d: StdDuration| d.as_secs_f64() * 1000.0;
    let p95 = times[((times.len() * 95).div_ceil(100)).saturating_sub(1)];
    Ok((
        rows,
        ms(times[times.len() / 2]),
        ms(p95),
        ms(*times.last().unwrap()),
    ))
}

/// The listing's first page (20 videos) under each filter and sort, and
/// the leaderboards (issue 22), as the HTTP handlers call the store.
async fn run_finds(
    store: &std::sync::Arc<dyn Store>,
    org: OrgId,
    runs: usize,
    only: Option<&str>,
) -> anyhow::Result<()> {
    use vidpulse_domain::analytics::Metric;
    use vidpulse_store::{ListQuery, SortKey, TopVideosQuery};
    let now = dataset_now();
    let to = now.date_naive();
    let window = DateRange::window(None, Some(to), to).unwrap();
    let base = ListQuery {
        limit: 20,
        ..ListQuery::all(to)
    };
    let start = |d: NaiveDate| d.and_hms_opt(0, 0, 0).unwrap().and_utc();
    let listings: Vec<(&str, ListQuery)> = vec![
        ("no filter", base.clone()),
        (
            "platform",
            ListQuery {
                platform: Some(Platform::YouTube),
                ..base.clone()
            },
        ),
        (
            "campaign",
            ListQuery {
                campaign: Some("Campaign 07".into()),
                ..base.clone()
            },
        ),
        (
            "blogger",
            ListQuery {
                author: Some("creator00042".into()),
                ..base.clone()
            },
        ),
        (
            "tag (none carry it)",
            ListQuery {
                tags: vec![TagName::parse("launch").unwrap()],
                ..base.clone()
            },
        ),
        (
            "title search (a word)",
            ListQuery {
                title: Some("noodles".into()),
                ..base.clone()
            },
        ),
        (
            "title search (rare)",
            ListQuery {
                title: Some("#4242".into()),
                ..base.clone()
            },
        ),
        (
            "title search (2 characters)",
            ListQuery {
                title: Some("zz".into()),
                ..base.clone()
            },
        ),
        (
            "published in 5 days",
            ListQuery {
                published_from: Some(start(to - Duration::days(10))),
                published_before: Some(start(to - Duration::days(5))),
                ..base.clone()
            },
        ),
        (
            "tracked in 5 days",
            ListQuery {
                tracked_from: Some(start(to - Duration::days(10))),
                tracked_before: Some(start(to - Duration::days(5))),
                ..base.clone()
            },
        ),
        (
            "platform + campaign + published + tracked",
            ListQuery {
                platform: Some(Platform::TikTok),
                campaign: Some("Campaign 07".into()),
                published_from: Some(start(to - Duration::days(25))),
                tracked_before: Some(start(to - Duration::days(2))),
                ..base.clone()
            },
        ),
        (
            "sort views",
            ListQuery {
                sort: SortKey::Views,
                ..base.clone()
            },
        ),
        (
            "sort published_at",
            ListQuery {
                sort: SortKey::PublishedAt,
                ..base.clone()
            },
        ),
        (
            "sort views_gained (30 days)",
            ListQuery {
                sort: SortKey::Gained(Metric::Views),
                window,
                ..base.clone()
            },
        ),
        (
            "campaign, sort views_gained",
            ListQuery {
                campaign: Some("Campaign 07".into()),
                sort: SortKey::Gained(Metric::Views),
                window,
                ..base.clone()
            },
        ),
    ];
    // Whole records (`list_videos`), and the page's stamps alone
    // (`list_stamps`: what the API reads when it kept the records).
    println!(
        "\n| listing, first page of 20 | total | median ms | p95 ms | max ms | stamps median ms | stamps p95 ms |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, query) in &listings {
        if only.is_some_and(|only| !name.contains(only)) {
            continue;
        }
        let total = store.list_videos(org, query, now).await?.total;
        let (_, median, p95, max) = time(runs, || async {
            Ok(store.list_videos(org, query, now).await?.items.len())
        })
        .await?;
        let (_, stamps_median, stamps_p95, _) = time(runs, || async {
            Ok(store.list_stamps(org, query, now).await?.items.len())
        })
        .await?;
        println!(
            "| {name} | {total} | {median:.1} | {p95:.1} | {max:.1} | {stamps_median:.1} | {stamps_p95:.1} |"
        );
    }
    if only.is_some() {
        return Ok(());
    }
    println!("\n| leaderboard (30 days, top 10) | rows | median ms | p95 ms | max ms |");
    println!("|---|---:|---:|---:|---:|");
    for (name, campaign) in [
        ("by video", None),
        ("by video, one campaign", Some("Campaign 07")),
    ] {
        let query = TopVideosQuery {
            window,
            baseline: vidpulse_domain::analytics::Baseline::Window,
            metric: Metric::Views,
            platform: None,
            campaign: campaign.map(str::to_owned),
            author: None,
            limit: 10,
        };
        let (rows, median, p95, max) = time(runs, || async {
            Ok(store.top_videos(org, &query).await?.len())
        })
        .await?;
        println!("| {name} | {rows} | {median:.1} | {p95:.1} | {max:.1} |");
    }
    for group_by in [
        GroupBy::BloggerUsername,
        GroupBy::PlatformBlogger,
        GroupBy::Campaign,
    ] {
        let query = AnalyticsQuery {
            window,
            group_by,
            published: None,
            tracked: None,
            campaign: None,
            platform: None,
            author: None,
            baseline: vidpulse_domain::analytics::Baseline::Window,
        };
        let (rows, median, p95, max) = time(runs, || async {
            Ok(store.analytics_totals(org, &query).await?.len())
        })
        .await?;
        println!(
            "| by {group_by} (the grouped totals) | {rows} | {median:.1} | {p95:.1} | {max:.1} |"
        );
    }
    Ok(())
}

/// The campaign report's store read (`campaign_video_figures`, issue 37):
/// every video of one campaign with its gain over 30 days and its views
/// since tracking, under each baseline; the API sums them per creator.
async fn run_report(
    store: &std::sync::Arc<dyn Store>,
    org: OrgId,
    runs: usize,
) -> anyhow::Result<()> {
    use vidpulse_domain::analytics::Baseline;
    let to = dataset_now().date_naive();
    let window = DateRange::window(None, Some(to), to).unwrap();
    println!("\n| campaign report (30 days) | videos | median ms | p95 ms | max ms |");
    println!("|---|---:|---:|---:|---:|");
    for baseline in [Baseline::Window, Baseline::Tracking] {
        let (rows, median, p95, max) = time(runs, || async {
            Ok(store
                .campaign_video_figures(org, "Campaign 07", window, baseline)
                .await?
                .len())
        })
        .await?;
        println!(
            "| Campaign 07, baseline={} | {rows} | {median:.1} | {p95:.1} | {max:.1} |",
            baseline.as_str()
        );
    }
    Ok(())
}

fn day(d: NaiveDate) -> String {
    d.to_string()
}

async fn run_cases(
    backend: Backend,
    store: &std::sync::Arc<dyn Store>,
    url: &str,
    org: OrgId,
    args: &Args,
) -> anyhow::Result<()> {
    if args.report {
        println!(
            "\n{backend:?}, {} videos, {} runs per case",
            args.videos, args.runs
        );
        return run_report(store, org, args.runs).await;
    }
    if let Some(only) = &args.only {
        println!(
            "\n{backend:?}, {} videos, {} runs per case",
            args.videos, args.runs
        );
        return run_finds(store, org, args.runs, Some(only)).await;
    }
    let all = cases();
    let first = &all[0].query.window;
    println!(
        "\n{backend:?}, {} videos, window {} .. {}, {} runs per case\n",
        args.videos,
        day(first.from),
        day(first.to),
        args.runs
    );
    println!("| endpoint | group_by | rows | median ms | p95 ms | max ms |");
    println!("|---|---|---:|---:|---:|---:|");
    for case in &all {
        let run = || async {
            if case.increments {
                store.analytics_increments(org, &case.query).await
            } else {
                store.analytics_totals(org, &case.query).await
            }
        };
        let rows = run().await?.len();
        let mut times: Vec<StdDuration> = Vec::with_capacity(args.runs);
        for _ in 0..args.runs {
            let t = Instant::now();
            run().await?;
            times.push(t.elapsed());
        }
        times.sort();
        let ms = |d: StdDuration| d.as_secs_f64() * 1000.0;
        let p95 = times[((times.len() * 95).div_ceil(100)).saturating_sub(1)];
        println!(
            "| {} | {} | {rows} | {:.1} | {:.1} | {:.1} |",
            if case.increments {
                "increments"
            } else {
                "totals"
            },
            case.name,
            ms(times[times.len() / 2]),
            ms(p95),
            ms(*times.last().unwrap()),
        );
    }
    run_reads(store, org, args.runs).await?;
    run_finds(store, org, args.runs, None).await?;
    run_report(store, org, args.runs).await?;
    if args.explain {
        for case in all
            .iter()
            .filter(|c| c.query.group_by == GroupBy::PlatformBlogger && c.query.campaign.is_none())
        {
            explain(url, org, case).await?;
        }
    }
    Ok(())
}

/// Times the single reads the by-id endpoints make, per call: a video's
/// whole record (`video`, a first read) and its stamp alone (`record_stamp`,
/// a read answered from kept bytes), over 200 videos spread through the
/// listing, `runs` passes each after one warm-up pass.
async fn run_reads(
    store: &std::sync::Arc<dyn Store>,
    org: OrgId,
    runs: usize,
) -> anyhow::Result<()> {
    use vidpulse_store::{ListQuery, SortKey, SortOrder, VideoLookup};
    let now = dataset_now();
    let mut ids = Vec::new();
    for page in 0..200 {
        let listed = store
            .list_videos(
                org,
                &ListQuery {
                    sort: SortKey::CreatedAt,
                    order: SortOrder::Desc,
                    limit: 1,
                    offset: page * 37,
                    ..ListQuery::all(now.date_naive())
                },
                now,
            )
            .await?;
        ids.extend(listed.items.into_iter().map(|v| v.video_id));
    }
    println!("\n| single read | calls | median µs | p95 µs | max µs |");
    println!("|---|---:|---:|---:|---:|");
    for stamp_only in [false, true] {
        let mut times: Vec<StdDuration> = Vec::new();
        for pass in 0..=runs {
            for id in &ids {
                let lookup = VideoLookup::Id(*id);
                let t = Instant::now();
                if stamp_only {
                    store.record_stamp(org, &lookup).await?;
                } else {
                    store.video(org, &lookup, now).await?;
                }
                if pass > 0 {
                    times.push(t.elapsed());
                }
            }
        }
        times.sort();
        let us = |d: StdDuration| d.as_secs_f64() * 1e6;
        let p95 = times[((times.len() * 95).div_ceil(100)).saturating_sub(1)];
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.0} |",
            if stamp_only {
                "record_stamp"
            } else {
                "video (whole record)"
            },
            times.len(),
            us(times[times.len() / 2]),
            us(p95),
            us(*times.last().unwrap()),
        );
    }
    Ok(())
}

/// Prints the plan of a case's query.
async fn explain(url: &str, org: OrgId, case: &Case) -> anyhow::Result<()> {
    let endpoint = if case.increments {
        "increments"
    } else {
        "totals"
    };
    println!("\nplan: {endpoint}, {}\n", case.name);
    for line in vidpulse_store::analytics::explain(url, org, &case.query, case.increments).await? {
        println!("    {line}");
    }
    Ok(())
}
