use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::analytics::{
    AnalyticsQuery, Baseline, DateRange, DayClose, GroupBy, Metrics, video_increments,
    video_total_by,
};
use vidpulse_domain::{Counters, OrgId, Plan, Platform};
use vidpulse_store::VideoLookup;
use vidpulse_store::{AnalyticsRow, Backend, ImportRow, Store};

use crate::{campaign, org, store};

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 10, d).unwrap()
}

fn at(d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, d, h, 0, 0).unwrap()
}

fn row(p: Platform, id: &str, who: &str, when: DateTime<Utc>, views: i64) -> ImportRow {
    ImportRow {
        platform: p,
        external_id: id.into(),
        captured_at: when,
        counters: Counters {
            views: Some(views),
            likes: Some(views / 10),
            comments: Some(views / 100),
            reposts: (p == Platform::TikTok).then_some(views / 50),
            saves: None,
        },
        url: None,
        channel_username: Some(who.into()),
        title: None,
        published_at: Some(at(1, 0) - Duration::days(3)),
    }
}

/// Three videos over ten days: steady growth, pre-existing counts, a dip,
/// a reset, days without readings, two readings a day.
fn history() -> Vec<ImportRow> {
    let mut rows = Vec::new();
    for d in 1..=10 {
        rows.push(row(
            Platform::TikTok,
            "7000000000000000001",
            "Mira",
            at(d, 6),
            1000 * i64::from(d),
        ));
        rows.push(row(
            Platform::TikTok,
            "7000000000000000001",
            "Mira",
            at(d, 18),
            1000 * i64::from(d) + 400,
        ));
    }
    for (d, v) in [(3, 50_000), (4, 52_000), (6, 51_000), (7, 56_000)] {
        rows.push(row(Platform::YouTube, "yt000000001", "mira", at(d, 12), v));
    }
    for (d, v) in [(2, 300), (5, 900), (6, 20), (9, 80)] {
        rows.push(row(
            Platform::TikTok,
            "7000000000000000002",
            "Ana",
            at(d, 9),
            v,
        ));
    }
    rows
}

/// The reference: the domain rules over each video's closes, grouped in Rust.
fn reference(
    rows: &[ImportRow],
    q: &AnalyticsQuery,
    increments: bool,
) -> Vec<(Option<NaiveDate>, String, Metrics)> {
    let mut per_video: BTreeMap<(Platform, String), (String, BTreeMap<NaiveDate, DayClose>)> =
        BTreeMap::new();
    let mut sorted = rows.to_vec();
    sorted.sort_by_key(|r| r.captured_at);
    for r in &sorted {
        let entry = per_video
            .entry((r.platform, r.external_id.clone()))
            .or_insert_with(|| (r.channel_username.clone().unwrap(), BTreeMap::new()));
        let m = Metrics::of(&r.counters);
        entry
            .1
            .entry(r.captured_at.date_naive())
            .and_modify(|c| c.last = m)
            .or_insert(DayClose {
                day: r.captured_at.date_naive(),
                first: m,
                last: m,
            });
    }
    let mut out = Vec::new();
    for ((platform, _), (author, closes)) in per_video {
        let closes: Vec<DayClose> = closes.into_values().collect();
        let key = q
            .group_by
            .key_of(platform, Some(&author), None)
            .map_or("total".to_owned(), |(k, _)| k);
        if increments {
            for (d, m) in video_increments(&closes, q.window.from, q.window.to) {
                out.push((Some(d), key.clone(), m));
            }
        } else if let Some(m) = video_total_by(&closes, q.window.from, q.window.to, q.baseline) {
            out.push((None, key.clone(), m));
        }
    }
    merge(out)
}

fn merge(
    items: Vec<(Option<NaiveDate>, String, Metrics)>,
) -> Vec<(Option<NaiveDate>, String, Metrics)> {
    let mut by: BTreeMap<(Option<NaiveDate>, String), Metrics> = BTreeMap::new();
    for (d, k, m) in items {
        *by.entry((d, k)).or_default() += m;
    }
    by.into_iter().map(|((d, k), m)| (d, k, m)).collect()
}

fn from_store(
    rows: Vec<AnalyticsRow>,
    q: &AnalyticsQuery,
) -> Vec<(Option<NaiveDate>, String, Metrics)> {
    merge(
        rows.into_iter()
            .map(|r| {
                let key = q
                    .group_by
                    .key_of(
                        r.platform.unwrap_or(Platform::TikTok),
                        r.author.as_deref(),
                        r.campaign.as_deref(),
                    )
                    .map_or("total".to_owned(), |(k, _)| k);
                (r.day, key, r.metrics)
            })
            .collect(),
    )
}

fn query(from: u32, to: u32, group_by: GroupBy) -> AnalyticsQuery {
    AnalyticsQuery {
        window: DateRange {
            from: day(from),
            to: day(to),
        },
        group_by,
        published: None,
        tracked: None,
        campaign: None,
        platform: None,
        author: None,
        baseline: vidpulse_domain::analytics::Baseline::Window,
    }
}

async fn imported(backend: Backend) -> (vidpulse_store::testing::TestDb, Arc<dyn Store>, OrgId) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let out = store
        .import_observations(a, &history(), Duration::days(30), at(12, 0))
        .await
        .unwrap();
    assert_eq!(
        (
            out.videos_created,
            out.snapshots_imported,
            out.snapshots_skipped
        ),
        (3, 28, 0)
    );
    (db, store, a)
}

#[rstest]
#[tokio::test]
async fn totals_and_increments_match_the_reference_for_every_grouping_and_window(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store, a) = imported(backend).await;
    let rows = history();
    for (group_by, baseline) in GroupBy::ALL
        .into_iter()
        .flat_map(|g| [(g, Baseline::Window), (g, Baseline::Tracking)])
    {
        for (from, to) in [(1, 10), (3, 7), (5, 5), (2, 9), (11, 20), (1, 1)] {
            let q = AnalyticsQuery {
                baseline,
                ..query(from, to, group_by)
            };
            let totals = store.analytics_totals(a, &q).await.unwrap();
            assert_eq!(
                from_store(totals, &q),
                reference(&rows, &q, false),
                "totals {group_by} {from}..{to} {baseline:?}"
            );
            // Per video too (a publish filter that lets every video through).
            assert_eq!(
                per_video(&store, a, &q, false).await,
                reference(&rows, &q, false),
                "per-video totals {group_by} {from}..{to} {baseline:?}"
            );
            let incs = store.analytics_increments(a, &q).await.unwrap();
            let days: Vec<_> = incs.iter().map(|r| r.day.unwrap()).collect();
            assert!(days.windows(2).all(|w| w[0] <= w[1]), "days ascend");
            assert_eq!(
                from_store(incs, &q),
                reference(&rows, &q, true),
                "increments {group_by} {from}..{to}"
            );
        }
    }
}

#[rstest]
#[tokio::test]
async fn filters_select_videos(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let (_db, store, a) = imported(backend).await;
    let views = |rows: Vec<AnalyticsRow>| rows.iter().map(|r| r.metrics.views).sum::<i64>();
    let mut q = query(1, 10, GroupBy::None);
    let all = views(store.analytics_totals(a, &q).await.unwrap());
    assert_eq!(all, (10_400 - 1_000) + 56_000 + 80);
    q.platform = Some(Platform::YouTube);
    assert_eq!(views(store.analytics_totals(a, &q).await.unwrap()), 56_000);
    q.platform = None;
    // Published within a range that excludes every video.
    q.published = Some((Some(day(1)), None));
    assert_eq!(views(store.analytics_totals(a, &q).await.unwrap()), 0);
    q.published = Some((None, Some(day(1))));
    assert_eq!(views(store.analytics_totals(a, &q).await.unwrap()), all);
    // Tracking started (the earliest imported snapshot) on day 3: the YouTube video.
    q.published = None;
    q.tracked = Some((Some(day(3)), Some(day(3))));
    assert_eq!(views(store.analytics_totals(a, &q).await.unwrap()), 56_000);
    q.tracked = None;
    q.campaign = Some("Summer".into());
    assert_eq!(views(store.analytics_totals(a, &q).await.unwrap()), 0);
    // Another organization sees nothing.
    let b = org(&store, Plan::Pro).await;
    let q = query(1, 10, GroupBy::None);
    assert_eq!(views(store.analytics_totals(b, &q).await.unwrap()), 0);
    assert!(store.analytics_increments(b, &q).await.unwrap().is_empty());
}

#[rstest]
#[tokio::test]
async fn imports_are_idempotent_and_extend_tracking_back(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store, a) = imported(backend).await;
    let again = store
        .import_observations(a, &history(), Duration::days(30), at(12, 0))
        .await
        .unwrap();
    assert_eq!(
        (
            again.videos_created,
            again.snapshots_imported,
            again.snapshots_skipped
        ),
        (0, 0, 28)
    );
    // Earlier history of a tracked video moves its tracking start back.
    let older = vec![row(
        Platform::YouTube,
        "yt000000001",
        "mira",
        at(1, 12),
        40_000,
    )];
    let out = store
        .import_observations(a, &older, Duration::days(30), at(12, 0))
        .await
        .unwrap();
    assert_eq!((out.videos_created, out.snapshots_imported), (0, 1));
    let mut q = query(1, 10, GroupBy::None);
    q.platform = Some(Platform::YouTube);
    let total: i64 = store
        .analytics_totals(a, &q)
        .await
        .unwrap()
        .iter()
        .map(|r| r.metrics.views)
        .sum();
    assert_eq!(total, 56_000 - 40_000);
}

/// The answer of the per-video path for `q`: a publish filter that lets every
/// video through keeps the query off the rollup.
async fn per_video(
    store: &Arc<dyn Store>,
    org: OrgId,
    q: &AnalyticsQuery,
    increments: bool,
) -> Vec<(Option<NaiveDate>, String, Metrics)> {
    let mut q = q.clone();
    q.published = Some((None, None));
    let rows = if increments {
        store.analytics_increments(org, &q).await.unwrap()
    } else {
        store.analytics_totals(org, &q).await.unwrap()
    };
    from_store(rows, &q)
}

/// Reads every due video at `now`, `views` for all, `author` as the handle,
/// as the refresh worker would; they are due again 8 hours later.
async fn refresh_all(store: &Arc<dyn Store>, now: DateTime<Utc>, views: i64, author: Option<&str>) {
    refresh_all_again_in(store, now, views, author, Duration::hours(8)).await;
}

/// [`refresh_all`], the videos due again `next` later.
pub(crate) async fn refresh_all_again_in(
    store: &Arc<dyn Store>,
    now: DateTime<Utc>,
    views: i64,
    author: Option<&str>,
    next: Duration,
) {
    use vidpulse_domain::ObservationSource;
    use vidpulse_store::{RefreshOutcome, RefreshWrite, VideoMeta};
    let due = store
        .claim_due_videos(now, 100, Duration::minutes(5))
        .await
        .unwrap();
    let writes: Vec<RefreshWrite> = due
        .iter()
        .map(|d| RefreshWrite {
            video_id: d.id,
            lease_token: d.lease_token,
            read_at: now,
            outcome: RefreshOutcome::Observed {
                counters: Counters {
                    views: Some(views),
                    likes: Some(views / 10),
                    comments: None,
                    reposts: None,
                    saves: Some(1),
                },
                meta: VideoMeta {
                    author_username: author.map(str::to_owned),
                    ..VideoMeta::default()
                },
                source: ObservationSource::Simulated,
            },
            next_refresh_at: Some(now + next),
        })
        .collect();
    store.save_refreshes(&writes).await.unwrap();
}

#[rstest]
#[tokio::test]
async fn the_rollup_follows_every_write_and_answers_like_the_per_video_path(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use vidpulse_domain::patch::VideoPatch;
    let (db, store, a) = imported(backend).await;
    let b = org(&store, Plan::Pro).await;
    let start = Utc.with_ymd_and_hms(2026, 10, 14, 9, 0, 0).unwrap();
    // Both organizations track a new video; a reads it for three days, with
    // a dip, and learns its author on the second day.
    crate::track(&store, a, start, vec![crate::yt(1)]).await;
    for step in 0..9 {
        let now = start + Duration::hours(8 * step);
        if step == 3 {
            crate::track(&store, b, now, vec![crate::yt(1)]).await;
        }
        let views = if step == 5 { 10 } else { 100 * (step + 1) };
        let author = (step >= 3).then_some("Late_Author");
        refresh_all(&store, now, views, author).await;
    }
    // A campaign for a's copy; b imports older history of the shared video
    // (new closes before both windows) and tracks one of a's imported videos.
    let patch = VideoPatch {
        campaign: Some(Some(campaign("Summer"))),
        ..VideoPatch::default()
    };
    store
        .patch_video(
            a,
            &VideoLookup::ExternalId("vid00000001".into()),
            &patch,
            start,
        )
        .await
        .unwrap()
        .unwrap();
    let mut older = row(
        Platform::YouTube,
        "vid00000001",
        "late_author",
        at(13, 20),
        5,
    );
    older.url = Some("https://www.youtube.com/watch?v=vid00000001".into());
    store
        .import_observations(b, &[older], Duration::days(30), at(20, 0))
        .await
        .unwrap();
    crate::track(
        &store,
        b,
        at(15, 0),
        vec![vidpulse_domain::VideoRef {
            platform: Platform::TikTok,
            external_id: "7000000000000000001".into(),
            canonical_url: "https://www.tiktok.com/@mira/video/7000000000000000001".into(),
        }],
    )
    .await;

    let maintained = vidpulse_store::testing::rollup_dump(&db.url).await.unwrap();
    assert!(!maintained.is_empty());
    store.rebuild_analytics().await.unwrap();
    assert_eq!(
        vidpulse_store::testing::rollup_dump(&db.url).await.unwrap(),
        maintained,
        "the maintained rollup equals a rebuild"
    );
    // A database from before the rollup gets it filled after `migrate`, by
    // the task its migration queued, once.
    vidpulse_store::testing::forget_rollup(&db.url)
        .await
        .unwrap();
    assert!(
        vidpulse_store::testing::rollup_dump(&db.url)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.migrate().await.unwrap(), 0);
    store.run_queued_tasks().await.unwrap();
    assert_eq!(
        vidpulse_store::testing::rollup_dump(&db.url).await.unwrap(),
        maintained,
        "the queued rebuild ran"
    );
    for who in [a, b] {
        for group_by in GroupBy::ALL {
            for (from, to) in [(1, 20), (5, 14), (13, 16), (14, 14), (15, 17), (16, 30)] {
                let mut q = query(from, to, group_by);
                for (campaign, baseline) in [None, Some("Summer".to_owned())]
                    .into_iter()
                    .flat_map(|c| [(c.clone(), Baseline::Window), (c, Baseline::Tracking)])
                {
                    q.campaign = campaign;
                    q.baseline = baseline;
                    for increments in [false, true] {
                        let rows = if increments {
                            store.analytics_increments(who, &q).await.unwrap()
                        } else {
                            store.analytics_totals(who, &q).await.unwrap()
                        };
                        assert_eq!(
                            from_store(rows, &q),
                            per_video(&store, who, &q, increments).await,
                            "{group_by} {from}..{to} campaign {:?} {baseline:?} increments {increments}",
                            q.campaign
                        );
                    }
                }
            }
        }
    }
}

#[rstest]
#[tokio::test]
async fn each_videos_gains_match_the_reference_and_rank_the_leaderboard(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use vidpulse_domain::analytics::Metric;
    use vidpulse_store::TopVideosQuery;

    let (_db, store, a) = imported(backend).await;
    let rows = history();
    let windows = [(1, 10), (3, 7), (5, 5), (2, 9), (11, 20), (1, 1), (4, 4)];
    for ((from, to), baseline) in windows
        .into_iter()
        .flat_map(|w| [(w, Baseline::Window), (w, Baseline::Tracking)])
    {
        // Per video: the totals reference with one video's group.
        let q = AnalyticsQuery {
            baseline,
            ..query(from, to, GroupBy::PlatformBlogger)
        };
        let expected: BTreeMap<String, Metrics> = reference(&rows, &q, false)
            .into_iter()
            .map(|(_, key, m)| (key, m))
            .collect();
        for metric in Metric::ALL {
            let top = store
                .top_videos(
                    a,
                    &TopVideosQuery {
                        window: q.window,
                        baseline,
                        metric,
                        platform: None,
                        campaign: None,
                        author: None,
                        limit: 10,
                    },
                )
                .await
                .unwrap();
            // The three videos have three distinct (platform, creator) keys.
            let got: BTreeMap<String, Metrics> = top
                .iter()
                .map(|v| {
                    let key = GroupBy::PlatformBlogger
                        .key_of(v.platform, v.author_username.as_deref(), None)
                        .unwrap()
                        .0;
                    (key, v.gains)
                })
                .collect();
            assert_eq!(got, expected, "{from}..{to} {metric:?} {baseline:?}");
            let ranked: Vec<i64> = top.iter().map(|v| v.gains.get(metric)).collect();
            assert!(ranked.windows(2).all(|w| w[0] >= w[1]), "{ranked:?}");
            let ids: Vec<_> = top.iter().map(|v| v.video_id).collect();
            let gains = store
                .video_gains(a, &ids, q.window, baseline)
                .await
                .unwrap();
            assert_eq!(gains.len(), ids.len());
            for (id, m) in gains {
                assert_eq!(
                    Some(m),
                    top.iter().find(|v| v.video_id == id).map(|v| v.gains)
                );
            }
        }
    }
    // Another organization sees none of them.
    let b = org(&store, Plan::Pro).await;
    let ids: Vec<_> = store
        .top_videos(
            a,
            &TopVideosQuery {
                window: query(1, 10, GroupBy::None).window,
                baseline: vidpulse_domain::analytics::Baseline::Window,
                metric: Metric::Views,
                platform: None,
                campaign: None,
                author: None,
                limit: 10,
            },
        )
        .await
        .unwrap()
        .into_iter()
        .map(|v| v.video_id)
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(
        store
            .video_gains(
                b,
                &ids,
                query(1, 10, GroupBy::None).window,
                Baseline::Tracking
            )
            .await
            .unwrap()
            .is_empty()
    );
}
