//! A record's stamp: the same while nothing the record shows changes, and
//! moved by every write that changes it (a reading added or removed, a
//! failed read, new metadata, a moved window, an edit, a tag attached,
//! detached or renamed, even behind the store's back), on both backends;
//! a claim, another organization's tracking or an edit to the same values
//! leave it.

use chrono::{DateTime, Duration, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::names::TagName;
use vidpulse_domain::patch::VideoPatch;
use vidpulse_domain::{Counters, ObservationSource, OrgId, Plan, Platform, VideoId};
use vidpulse_store::testing::execute;
use vidpulse_store::{
    Backend, ImportRow, RecordStamp, RefreshOutcome, RefreshWrite, Store, VideoLookup, VideoMeta,
};

use crate::{org, store};

const VIDEO: &str = "yt000000001";

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, day, hour, 0, 0).unwrap()
}

fn row(captured_at: DateTime<Utc>, views: i64) -> ImportRow {
    ImportRow {
        platform: Platform::YouTube,
        external_id: VIDEO.into(),
        captured_at,
        counters: Counters {
            views: Some(views),
            likes: Some(views / 10),
            comments: Some(1),
            reposts: None,
            saves: None,
        },
        url: None,
        channel_username: Some("ana".into()),
        title: None,
        published_at: None,
    }
}

async fn import(store: &std::sync::Arc<dyn Store>, org: OrgId, rows: &[ImportRow]) {
    store
        .import_observations(org, rows, Duration::days(30), at(20, 0))
        .await
        .unwrap();
}

/// The stamp of `org`'s video by `lookup`, as `record_stamp` reads it and
/// as a whole read carries it (the two must agree).
async fn current(
    store: &std::sync::Arc<dyn Store>,
    org: OrgId,
    lookup: &VideoLookup,
) -> RecordStamp {
    let stamp = store
        .record_stamp(org, lookup)
        .await
        .unwrap()
        .expect("the video is tracked");
    let record = store.video(org, lookup, at(20, 0)).await.unwrap().unwrap();
    assert_eq!(record.stamp, stamp, "a whole read carries the stamp");
    stamp
}

/// Claims the video (due at `now`) and saves `outcome` for it.
/// Patches the video in `org` at `now`; it must be there.
async fn patch(
    store: &std::sync::Arc<dyn Store>,
    org: OrgId,
    patch: &VideoPatch,
    now: DateTime<Utc>,
) {
    store
        .patch_video(org, &VideoLookup::ExternalId(VIDEO.into()), patch, now)
        .await
        .unwrap()
        .unwrap();
}

async fn refresh(store: &std::sync::Arc<dyn Store>, now: DateTime<Utc>, outcome: RefreshOutcome) {
    let due = store
        .claim_due_videos(now, 10, Duration::minutes(5))
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    let write = RefreshWrite {
        video_id: due[0].id,
        lease_token: due[0].lease_token,
        read_at: now,
        outcome,
        next_refresh_at: Some(now + Duration::minutes(1)),
    };
    assert_eq!(store.save_refreshes(&[write]).await.unwrap(), 1);
}

fn observed(views: i64, title: Option<&str>) -> RefreshOutcome {
    RefreshOutcome::Observed {
        counters: Counters {
            views: Some(views),
            ..Counters::default()
        },
        meta: VideoMeta {
            title: title.map(Into::into),
            ..VideoMeta::default()
        },
        source: ObservationSource::Simulated,
    }
}

#[rstest]
#[tokio::test]
async fn a_record_stamp_moves_with_every_change_of_the_record_and_only_then(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Business).await;
    let b = org(&store, Plan::Business).await;
    import(&store, a, &[row(at(10, 12), 100), row(at(11, 12), 200)]).await;
    let by_ext = VideoLookup::ExternalId(VIDEO.into());
    let first = current(&store, a, &by_ext).await;
    let by_id = VideoLookup::Id(first.video_id);
    assert_eq!(current(&store, a, &by_id).await, first, "either key");
    // Unknown here: another organization's id, an id of nobody's.
    assert_eq!(store.record_stamp(b, &by_id).await.unwrap(), None);
    assert_eq!(store.record_stamp(b, &by_ext).await.unwrap(), None);
    let nobody = VideoLookup::Id(VideoId::new());
    assert_eq!(store.record_stamp(a, &nobody).await.unwrap(), None);

    let mut last = first;
    // Each step: what it does, and whether the record's stamp moves.
    macro_rules! step {
        ($what:literal, moves: $moves:literal) => {
            let now = current(&store, a, &by_id).await;
            if $moves {
                assert_ne!(now, last, "{} moves the stamp", $what);
            } else {
                assert_eq!(now, last, "{} leaves the stamp", $what);
            }
            assert_eq!(now.video_id, first.video_id);
            last = now;
        };
    }

    // Another organization tracking the same video, with a reading we have.
    import(&store, b, &[row(at(11, 12), 200)]).await;
    assert_ne!(current(&store, b, &by_ext).await.video_id, first.video_id);
    step!("another organization's tracking", moves: false);

    // Readings: an import that adds one, the same file again.
    import(&store, a, &[row(at(12, 12), 300)]).await;
    step!("an import adding a reading", moves: true);
    import(&store, a, &[row(at(12, 12), 300)]).await;
    step!("an import adding nothing", moves: false);

    // Refreshes: the claim alone, a failed read, a read with a new title.
    store
        .claim_due_videos(at(20, 0), 10, Duration::minutes(5))
        .await
        .unwrap();
    step!("a claim", moves: false);
    refresh(
        &store,
        at(21, 0),
        RefreshOutcome::Failed {
            error: "timeout".into(),
        },
    )
    .await;
    step!("a failed read", moves: true);
    refresh(&store, at(23, 0), observed(400, Some("New title"))).await;
    step!("a read", moves: true);

    // The window moving back: another organization imports an earlier
    // reading (its own: this record does not show it), then this one
    // imports the same (its own now; the tracking starts earlier).
    import(&store, b, &[row(at(9, 12), 50)]).await;
    step!("a reading another organization imports", moves: false);
    import(&store, a, &[row(at(9, 12), 50)]).await;
    step!("the window moving", moves: true);

    // Edits, and an edit to the same values.
    let notes = VideoPatch {
        notes: Some(Some("re-shoot".into())),
        ..VideoPatch::default()
    };
    patch(&store, a, &notes, at(20, 0)).await;
    step!("an edit", moves: true);
    patch(&store, a, &notes, at(20, 1)).await;
    step!("an edit to the same values", moves: false);

    // Tags: attached, attached again, renamed and detached behind the
    // store's back.
    let tags = VideoPatch {
        tags: Some(vec![TagName::parse("Q4").unwrap()]),
        ..VideoPatch::default()
    };
    patch(&store, a, &tags, at(20, 0)).await;
    step!("a tag attached", moves: true);
    patch(&store, a, &tags, at(20, 0)).await;
    step!("the same tag attached again", moves: false);
    execute(&db.url, &["UPDATE tags SET name = 'Q4 launch'"])
        .await
        .unwrap();
    step!("a tag renamed", moves: true);
    execute(&db.url, &["DELETE FROM video_tags"]).await.unwrap();
    step!("a tag detached", moves: true);
    execute(
        &db.url,
        &["UPDATE platform_videos SET thumbnail_url = 'https://i.ytimg.com/x.jpg'"],
    )
    .await
    .unwrap();
    step!("a catalog column written behind the store's back", moves: true);
    execute(&db.url, &["UPDATE platform_videos SET last_error = 'x'"])
        .await
        .unwrap();
    step!("a column the record does not show", moves: false);
    execute(
        &db.url,
        &["UPDATE platform_videos SET next_refresh_at = NULL"],
    )
    .await
    .unwrap();
    step!("the next read's time, which the record shows", moves: true);

    // The retention deleting readings.
    store
        .housekeep_observations(at(20, 0), Some(Duration::days(10)))
        .await
        .unwrap();
    step!("the retention", moves: true);
    assert!(last.revision > first.revision && last.catalog_revision > first.catalog_revision);
}
