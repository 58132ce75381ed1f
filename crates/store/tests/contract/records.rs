//! Reading a record against a known history stamp: the history is left out
//! while the stamp holds, and read again after every write that changes it
//! (a refresh, an import, a moved window, the retention), on both backends.

use chrono::{DateTime, Duration, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::{Counters, ObservationSource, OrgId, Plan, Platform};
use vidpulse_store::{
    Backend, CatalogMeta, HistoryStamp, ImportRow, RefreshOutcome, RefreshWrite, Store,
    VideoLookup, VideoRead, VideoRecord,
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

/// Reads `org`'s video with `known`.
async fn read(
    store: &std::sync::Arc<dyn Store>,
    org: OrgId,
    lookup: &VideoLookup,
    known: Option<&HistoryStamp>,
) -> VideoRead {
    store
        .read_video(org, lookup, at(20, 0), known)
        .await
        .unwrap()
        .expect("the video is tracked")
}

/// A history as (reading time, views).
type Views = Vec<(DateTime<Utc>, Option<i64>)>;

/// The record and its history, expecting it read.
fn whole(read: VideoRead) -> (VideoRecord, Views) {
    match read {
        VideoRead::Whole(record) => {
            let history = record
                .history
                .iter()
                .map(|o| (o.captured_at, o.counters.views))
                .collect();
            (record, history)
        }
        VideoRead::HistoryUnchanged(_) => panic!("expected the history read again"),
    }
}

fn unchanged(read: VideoRead) -> VideoRecord {
    match read {
        VideoRead::HistoryUnchanged(record) => record,
        VideoRead::Whole(record) => panic!(
            "expected the history left out, got {} readings",
            record.history.len()
        ),
    }
}

#[rstest]
#[tokio::test]
async fn a_known_history_is_left_out_until_a_write_changes_it(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Business).await;
    let b = org(&store, Plan::Business).await;
    import(&store, a, &[row(at(10, 12), 100), row(at(11, 12), 200)]).await;
    let by_ext = VideoLookup::ExternalId(VIDEO.into());

    // Nothing known: the whole record.
    let (first, history) = whole(read(&store, a, &by_ext, None).await);
    assert_eq!(history, [(at(10, 12), Some(100)), (at(11, 12), Some(200))]);
    let stamp = first.history_stamp();
    let by_id = VideoLookup::Id(first.video_id);

    // Its stamp: everything but the history, by either key.
    for lookup in [&by_id, &by_ext] {
        let rest = unchanged(read(&store, a, lookup, Some(&stamp)).await);
        assert!(rest.history.is_empty());
        assert_eq!(rest.latest, Counters::default());
        assert_eq!(rest.stats_updated_at, None);
        let mut expected = first.clone();
        expected.history.clear();
        expected.latest = Counters::default();
        expected.stats_updated_at = None;
        assert_eq!(rest, expected);
    }
    // `video` always reads the whole record.
    let again = store.video(a, &by_id, at(20, 0)).await.unwrap().unwrap();
    assert_eq!(again, first);

    // Another organization's stamp of the same catalog video names another
    // tracking: the history is read.
    import(&store, b, &[row(at(11, 12), 200)]).await;
    let (theirs, _) = whole(read(&store, b, &by_ext, None).await);
    let (ours, _) = whole(read(&store, a, &by_ext, Some(&theirs.history_stamp())).await);
    let stamp = ours.history_stamp();
    assert_eq!(
        unchanged(read(&store, a, &by_id, Some(&stamp)).await).video_id,
        first.video_id
    );

    // An import that adds a reading moves the revision; one that adds
    // nothing (the same file again) does not.
    import(&store, a, &[row(at(12, 12), 300)]).await;
    let (after, history) = whole(read(&store, a, &by_id, Some(&stamp)).await);
    assert_eq!(history.len(), 3);
    assert!(after.history_revision > stamp.revision);
    let stamp = after.history_stamp();
    import(&store, a, &[row(at(12, 12), 300)]).await;
    unchanged(read(&store, a, &by_id, Some(&stamp)).await);

    // A refresh moves it.
    let due = store
        .claim_due_videos(at(20, 0), 10, Duration::minutes(5))
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    let write = RefreshWrite {
        video_id: due[0].id,
        lease_token: due[0].lease_token,
        read_at: at(19, 12),
        outcome: RefreshOutcome::Observed {
            counters: Counters {
                views: Some(400),
                ..Counters::default()
            },
            meta: CatalogMeta::default(),
            source: ObservationSource::Simulated,
        },
        next_refresh_at: None,
    };
    assert_eq!(store.save_refreshes(&[write]).await.unwrap(), 1);
    let (after, history) = whole(read(&store, a, &by_id, Some(&stamp)).await);
    assert_eq!(history.last(), Some(&(at(19, 12), Some(400))));
    let stamp = after.history_stamp();

    // Only the window moving (a reading another organization imported
    // before now imported here: nothing new is stored, the tracking starts
    // earlier) makes the history read again too.
    import(&store, b, &[row(at(9, 12), 50)]).await;
    let (after, history) = whole(read(&store, a, &by_id, Some(&stamp)).await);
    assert_eq!(history.len(), 4, "day 9 is before a's window");
    let stamp = after.history_stamp();
    import(&store, a, &[row(at(9, 12), 50)]).await;
    let (after, history) = whole(read(&store, a, &by_id, Some(&stamp)).await);
    assert_eq!(history.first(), Some(&(at(9, 12), Some(50))));
    assert_eq!(after.history_revision, stamp.revision);
    assert!(after.tracking_started_at < stamp.from);
    let stamp = after.history_stamp();

    // The retention deleting readings moves it.
    store
        .housekeep_observations(at(20, 0), Some(Duration::days(10)))
        .await
        .unwrap();
    let (_, history) = whole(read(&store, a, &by_id, Some(&stamp)).await);
    assert_eq!(history.first(), Some(&(at(10, 12), Some(100))));
}
