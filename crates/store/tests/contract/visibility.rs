//! What an organization sees of a shared video: the platform's readings from
//! its own tracking start on, plus its own imports. Another organization's
//! import or earlier tracking never moves its records, listing, analytics or
//! daily figures, and the maintained rollup stays equal to a rebuild.

use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::analytics::{AnalyticsQuery, DateRange, GroupBy};
use vidpulse_domain::{Counters, OrgId, Plan, Platform};
use vidpulse_store::testing::{TestDb, forget_readings_per_organization, rollup_dump};
use vidpulse_store::{
    Backend, DayIncrementQuery, ImportRow, ListQuery, SortKey, SortOrder, Store, StoreConfig,
    VideoLookup,
};

use crate::analytics::refresh_all_again_in;
use crate::{org, store, track, yt};

fn at(d: u32, h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, d, h, m, 0).unwrap()
}

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 10, d).unwrap()
}

/// A snapshot of `yt(1)` at `when` with `views` (likes a tenth).
fn snapshot(when: DateTime<Utc>, views: i64) -> ImportRow {
    ImportRow {
        platform: Platform::YouTube,
        external_id: yt(1).external_id,
        captured_at: when,
        counters: Counters {
            views: Some(views),
            likes: Some(views / 10),
            ..Counters::default()
        },
        url: None,
        channel_username: Some("mira".into()),
        title: None,
        published_at: None,
    }
}

/// Everything `org` is answered about its videos, as text: the record of
/// `yt(1)` (without its cache stamp), the listing, totals and increments
/// over October in every grouping, and each day's per-video increments.
async fn everything(store: &Arc<dyn Store>, org: OrgId, now: DateTime<Utc>) -> Vec<String> {
    everything_of(store, org, &yt(1).external_id, now).await
}

/// [`everything`], with the record of the video `external_id`.
async fn everything_of(
    store: &Arc<dyn Store>,
    org: OrgId,
    external_id: &str,
    now: DateTime<Utc>,
) -> Vec<String> {
    let mut out = Vec::new();
    let record = store
        .video(org, &VideoLookup::ExternalId(external_id.into()), now)
        .await
        .unwrap()
        .unwrap();
    out.push(format!(
        "{:?} {:?} {:?} {:?}",
        record.latest, record.stats_updated_at, record.tracking_started_at, record.history
    ));
    let page = store
        .list_videos(
            org,
            &ListQuery {
                sort: SortKey::Views,
                order: SortOrder::Desc,
                limit: 100,
                offset: 0,
                ..ListQuery::all(now.date_naive())
            },
            now,
        )
        .await
        .unwrap();
    for r in page.items {
        out.push(format!("{} {:?} {:?}", r.external_id, r.latest, r.history));
    }
    for group_by in GroupBy::ALL {
        for (from, to) in [(1, 31), (14, 14), (15, 31), (10, 14)] {
            let q = AnalyticsQuery {
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
            };
            out.push(format!(
                "{:?}",
                store.analytics_totals(org, &q).await.unwrap()
            ));
            out.push(format!(
                "{:?}",
                store.analytics_increments(org, &q).await.unwrap()
            ));
        }
    }
    for d in 10..=16 {
        let q = DayIncrementQuery {
            day: day(d),
            sort_by: "views",
            limit: 100,
            platform: None,
            campaign: None,
        };
        out.push(format!(
            "{:?}",
            store.day_increments(org, &q).await.unwrap()
        ));
    }
    out
}

/// Reads every due video at `now` with `views` (likes a tenth), as the
/// refresh worker would, and makes them due again a minute later.
async fn refresh_all(store: &Arc<dyn Store>, now: DateTime<Utc>, views: i64, author: Option<&str>) {
    refresh_all_again_in(store, now, views, author, Duration::minutes(1)).await;
}

/// The maintained rollup equals one rebuilt from the closes.
async fn assert_rollup_exact(db: &TestDb, store: &Arc<dyn Store>) {
    let maintained = rollup_dump(&db.url).await.unwrap();
    store.rebuild_analytics().await.unwrap();
    assert_eq!(
        rollup_dump(&db.url).await.unwrap(),
        maintained,
        "rollup = rebuild"
    );
}

#[rstest]
#[tokio::test]
async fn another_organizations_import_never_reaches_an_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let x = org(&store, Plan::Pro).await;
    track(&store, a, at(14, 8, 0), vec![yt(1)]).await;
    for (h, views) in [(8, 1000), (14, 1100), (20, 1300)] {
        refresh_all(&store, at(14, h, 0), views, Some("mira")).await;
    }
    refresh_all(&store, at(15, 4, 0), 1500, Some("mira")).await;
    let now = at(16, 0, 0);
    let before = everything(&store, a, now).await;

    // x imports the same video: before a's start, between a's readings, at
    // the instant of one of them with other values, and after them all.
    let rows = vec![
        snapshot(at(12, 9, 0), 5),
        snapshot(at(14, 11, 0), 1_000_000_000),
        snapshot(at(14, 14, 0), 7),
        snapshot(at(15, 23, 0), 2_000_000_000),
    ];
    let out = store
        .import_observations(x, &rows, Duration::days(30), now)
        .await
        .unwrap();
    assert_eq!((out.videos_created, out.snapshots_imported), (1, 4));
    assert_eq!(
        everything(&store, a, now).await,
        before,
        "a sees none of x's import"
    );

    // x sees its own imports and the platform's readings since its start
    // (its earliest import); where both read an instant, the platform's.
    let record = store
        .video(x, &VideoLookup::ExternalId(yt(1).external_id), now)
        .await
        .unwrap()
        .unwrap();
    let views: Vec<Option<i64>> = record.history.iter().map(|o| o.counters.views).collect();
    assert_eq!(
        views,
        [
            Some(5),
            Some(1000),
            Some(1_000_000_000),
            Some(1100),
            Some(1300),
            Some(1500),
            Some(2_000_000_000)
        ]
    );
    assert_eq!(record.latest.views, Some(2_000_000_000));

    // a imports too: x's answers do not move, a's own import shows for a.
    let x_before = everything(&store, x, now).await;
    store
        .import_observations(a, &[snapshot(at(15, 12, 0), 1400)], Duration::days(30), now)
        .await
        .unwrap();
    assert_eq!(
        everything(&store, x, now).await,
        x_before,
        "x sees none of a's import"
    );
    assert_ne!(
        everything(&store, a, now).await,
        before,
        "a sees its own import"
    );
    assert_rollup_exact(&db, &store).await;
}

#[rstest]
#[tokio::test]
async fn the_same_instant_imported_by_two_organizations_is_each_ones_own(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let x = org(&store, Plan::Pro).await;
    let y = org(&store, Plan::Pro).await;
    let now = at(20, 0, 0);
    let when = at(14, 10, 0);
    let imported = |who, views| {
        let store = store.clone();
        async move {
            let out = store
                .import_observations(who, &[snapshot(when, views)], Duration::days(30), now)
                .await
                .unwrap();
            (out.snapshots_imported, out.snapshots_skipped)
        }
    };
    assert_eq!(imported(x, 100).await, (1, 0));
    assert_eq!(imported(y, 900).await, (1, 0), "x's reading is not y's");
    assert_eq!(
        imported(x, 100).await,
        (0, 1),
        "idempotent per organization"
    );
    assert_eq!(imported(y, 900).await, (0, 1));
    for (who, views) in [(x, 100), (y, 900)] {
        let record = store
            .video(who, &VideoLookup::ExternalId(yt(1).external_id), now)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.latest.views, Some(views));
        assert_eq!(record.history.len(), 1);
    }
    assert_rollup_exact(&db, &store).await;
}

#[rstest]
#[tokio::test]
async fn an_organizations_first_tracked_day_starts_at_its_own_first_reading(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    track(&store, a, at(14, 8, 0), vec![yt(1)]).await;
    refresh_all(&store, at(14, 8, 0), 1000, Some("mira")).await;
    track(&store, b, at(14, 14, 0), vec![yt(1)]).await;
    refresh_all(&store, at(14, 14, 0), 1098, Some("mira")).await;

    let q = |from, to| AnalyticsQuery {
        window: DateRange {
            from: day(from),
            to: day(to),
        },
        group_by: GroupBy::None,
        published: None,
        tracked: None,
        campaign: None,
        platform: None,
        author: None,
        baseline: vidpulse_domain::analytics::Baseline::Window,
    };
    let views = |rows: Vec<vidpulse_store::AnalyticsRow>| -> Vec<i64> {
        rows.iter().map(|r| r.metrics.views).collect()
    };
    let for_date = DayIncrementQuery {
        day: day(14),
        sort_by: "views",
        limit: 10,
        platform: None,
        campaign: None,
    };
    // b's first reading is 1098: its first day gained nothing yet.
    assert_eq!(
        views(store.analytics_increments(b, &q(14, 14)).await.unwrap()),
        [0]
    );
    assert_eq!(
        views(store.analytics_totals(b, &q(14, 14)).await.unwrap()),
        [0]
    );
    assert_eq!(
        views(store.analytics_totals(a, &q(14, 14)).await.unwrap()),
        [98]
    );
    let b_day = store.day_increments(b, &for_date).await.unwrap();
    assert_eq!(b_day[0].metrics.views, 0);
    assert_eq!(
        views(store.analytics_increments(a, &q(14, 14)).await.unwrap()),
        [98]
    );

    refresh_all(&store, at(14, 20, 0), 1200, Some("mira")).await;
    refresh_all(&store, at(15, 2, 0), 1250, Some("mira")).await;
    assert_eq!(
        views(store.analytics_increments(b, &q(14, 15)).await.unwrap()),
        [102, 50]
    );
    assert_eq!(
        views(store.analytics_totals(b, &q(14, 15)).await.unwrap()),
        [152]
    );
    assert_eq!(
        views(store.analytics_totals(b, &q(15, 15)).await.unwrap()),
        [50]
    );
    assert_eq!(
        views(store.analytics_totals(a, &q(14, 15)).await.unwrap()),
        [250]
    );
    assert_eq!(
        store.day_increments(b, &for_date).await.unwrap()[0]
            .metrics
            .views,
        102
    );
    let record = store
        .video(b, &VideoLookup::ExternalId(yt(1).external_id), at(16, 0, 0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        record.history.first().and_then(|o| o.counters.views),
        Some(1098)
    );
    assert_rollup_exact(&db, &store).await;
}

#[rstest]
#[tokio::test]
async fn upgrading_keeps_every_organizations_numbers_and_rebuilds_its_closes(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let x = org(&store, Plan::Pro).await;
    // a tracks and imports (its start moves back); b starts mid-day, after
    // a's import; x imports a video of its own.
    track(&store, a, at(14, 8, 0), vec![yt(1)]).await;
    refresh_all(&store, at(14, 8, 0), 1000, Some("mira")).await;
    let now = at(16, 0, 0);
    let rows = [snapshot(at(13, 9, 0), 900), snapshot(at(14, 11, 0), 1050)];
    store
        .import_observations(a, &rows, Duration::days(30), now)
        .await
        .unwrap();
    track(&store, b, at(14, 14, 0), vec![yt(1)]).await;
    refresh_all(&store, at(14, 14, 0), 1098, Some("mira")).await;
    refresh_all(&store, at(15, 2, 0), 1250, Some("mira")).await;
    let mut other = snapshot(at(12, 9, 0), 77);
    other.external_id = yt(2).external_id;
    store
        .import_observations(x, &[other], Duration::days(30), now)
        .await
        .unwrap();
    let answers = |store: Arc<dyn Store>| async move {
        let mut out = everything(&store, a, now).await;
        out.extend(everything(&store, b, now).await);
        out.extend(everything_of(&store, x, &yt(2).external_id, now).await);
        out
    };
    let before = answers(store.clone()).await;
    let rollup = rollup_dump(&db.url).await.unwrap();

    // The same database as the previous version left it, then upgraded.
    forget_readings_per_organization(&db.url).await.unwrap();
    let upgraded = vidpulse_store::open(&StoreConfig::new(db.url.clone()))
        .await
        .unwrap();
    assert_eq!(answers(upgraded.clone()).await, before);
    assert_eq!(rollup_dump(&db.url).await.unwrap(), rollup);
    assert_rollup_exact(&db, &upgraded).await;
    // Imports stay idempotent for their organization across the upgrade.
    let again = upgraded
        .import_observations(a, &rows, Duration::days(30), now)
        .await
        .unwrap();
    assert_eq!((again.snapshots_imported, again.snapshots_skipped), (0, 2));
}

/// The record, listing, grouping and creator filter `org` is answered
/// about `yt(1)`'s metadata: its URL, title, author and publish time, its
/// totals' creator keys, and whether the creator filter `handle` finds it.
async fn metadata_of(
    store: &Arc<dyn Store>,
    org: OrgId,
    handle: &str,
    now: DateTime<Utc>,
) -> (
    String,
    Option<String>,
    Option<String>,
    Option<DateTime<Utc>>,
    Vec<String>,
    usize,
) {
    let record = store
        .video(org, &VideoLookup::ExternalId(yt(1).external_id), now)
        .await
        .unwrap()
        .unwrap();
    let q = AnalyticsQuery {
        window: DateRange {
            from: day(1),
            to: day(31),
        },
        group_by: GroupBy::BloggerUsername,
        published: None,
        tracked: None,
        campaign: None,
        platform: None,
        author: None,
        baseline: vidpulse_domain::analytics::Baseline::Window,
    };
    let keys = store
        .analytics_totals(org, &q)
        .await
        .unwrap()
        .into_iter()
        .map(|row| row.author.unwrap_or_default())
        .collect();
    let found = store
        .list_videos(
            org,
            &ListQuery {
                author: Some(handle.into()),
                ..ListQuery::all(now.date_naive())
            },
            now,
        )
        .await
        .unwrap()
        .total;
    (
        record.url,
        record.title,
        record.author_username,
        record.published_at,
        keys,
        found as usize,
    )
}

#[rstest]
#[tokio::test]
async fn another_organizations_imported_metadata_never_reaches_an_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let x = org(&store, Plan::Pro).await;
    // x imports the video first, with its own URL, creator, title and time.
    let published = at(1, 10, 0);
    let imported = ImportRow {
        url: Some("https://youtu.be/vid00000001?si=x-own".into()),
        channel_username: Some("x_handle".into()),
        title: Some("x's own title".into()),
        published_at: Some(published),
        ..snapshot(at(13, 9, 0), 900)
    };
    store
        .import_observations(x, &[imported], Duration::days(30), at(13, 10, 0))
        .await
        .unwrap();
    // a tracks it by its own URL; the platform reads it without naming an
    // author, title or publish time.
    track(&store, a, at(14, 8, 0), vec![yt(1)]).await;
    refresh_all(&store, at(14, 9, 0), 1000, None).await;
    let now = at(16, 0, 0);

    let (url, title, author, when, keys, found) = metadata_of(&store, a, "x_handle", now).await;
    assert_eq!(url, yt(1).canonical_url, "a sees its own URL");
    assert_eq!(
        (title, author, when),
        (None, None, None),
        "a sees none of x's metadata"
    );
    assert_eq!(keys, [""], "a's totals group under no creator, not x's");
    assert_eq!(found, 0, "a's creator filter does not find x's handle");

    let (url, title, author, when, keys, found) = metadata_of(&store, x, "x_handle", now).await;
    assert_eq!(
        url, "https://youtu.be/vid00000001?si=x-own",
        "x sees its own URL"
    );
    assert_eq!(title.as_deref(), Some("x's own title"));
    assert_eq!(author.as_deref(), Some("x_handle"));
    assert_eq!(when, Some(published));
    assert_eq!(
        keys,
        ["x_handle"],
        "x's totals group under the creator it gave"
    );
    assert_eq!(found, 1, "x's creator filter finds the creator it gave");
    let x_published = store
        .list_videos(
            x,
            &ListQuery {
                published_from: Some(published),
                ..ListQuery::all(now.date_naive())
            },
            now,
        )
        .await
        .unwrap()
        .total;
    assert_eq!(
        x_published, 1,
        "x's publish-day filter sees the time it gave"
    );

    // Once the platform names the author, both see the platform's word.
    refresh_all(&store, at(15, 9, 0), 1100, Some("mira")).await;
    let (_, _, author, _, keys, _) = metadata_of(&store, a, "mira", now).await;
    assert_eq!(
        (author.as_deref(), keys),
        (Some("mira"), vec!["mira".to_owned()])
    );
    let (url, _, author, _, keys, _) = metadata_of(&store, x, "mira", now).await;
    assert_eq!(url, "https://youtu.be/vid00000001?si=x-own");
    assert_eq!(
        (author.as_deref(), keys),
        (Some("mira"), vec!["mira".to_owned()])
    );
    assert_rollup_exact(&db, &store).await;
}
