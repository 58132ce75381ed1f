//! The analytics revision moves with every change of an organization's
//! analytics, in the same transaction, and with nothing else's: readings,
//! a campaign moving, a rebuild. API nodes keep rollup answers under it.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use vidpulse_domain::patch::VideoPatch;
use vidpulse_domain::{Counters, OrgId, Plan};
use vidpulse_store::{Backend, Store, VideoLookup, VideoMeta};

use crate::{campaign, org, save_reads, store, t0, track, yt};

/// Reads the due video whose external id is `only`, at `at`.
async fn read(store: &Arc<dyn Store>, at: DateTime<Utc>, only: &str, views: i64) {
    let counters = Counters {
        views: Some(views),
        ..Counters::default()
    };
    let saved = save_reads(store, at, at + Duration::minutes(30), |d| {
        (d.external_id == only).then(|| (counters, VideoMeta::default()))
    })
    .await;
    assert_eq!(saved, 1, "{only} is due");
}

async fn revisions(store: &Arc<dyn Store>, orgs: [OrgId; 2]) -> [i64; 2] {
    [
        store.analytics_revision(orgs[0]).await.unwrap(),
        store.analytics_revision(orgs[1]).await.unwrap(),
    ]
}

#[rstest]
#[tokio::test]
async fn the_analytics_revision_moves_with_the_organizations_analytics_alone(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (a, b) = (org(&store, Plan::Pro).await, org(&store, Plan::Pro).await);
    let id = track(&store, a, t0(), vec![yt(1)]).await[0].video_id;
    track(&store, b, t0(), vec![yt(2)]).await;
    // Tracking alone adds no reading: nothing to move yet.
    assert_eq!(revisions(&store, [a, b]).await, [0, 0]);

    read(&store, t0(), "vid00000001", 100).await;
    let [a1, b1] = revisions(&store, [a, b]).await;
    assert!(a1 > 0, "a reading of a's video");
    assert_eq!(b1, 0, "not b's");

    // (The first read's claim holds video 2 for its 5-minute lease.)
    read(&store, t0() + Duration::minutes(10), "vid00000002", 100).await;
    let [a2, b2] = revisions(&store, [a, b]).await;
    assert_eq!(a2, a1);
    assert!(b2 > b1);

    read(&store, t0() + Duration::hours(2), "vid00000001", 150).await;
    let [a3, _] = revisions(&store, [a, b]).await;
    assert!(a3 > a2, "another reading");

    let patch = VideoPatch {
        campaign: Some(Some(campaign("Spring"))),
        ..VideoPatch::default()
    };
    store
        .patch_video(a, &VideoLookup::Id(id), &patch, t0())
        .await
        .unwrap()
        .unwrap();
    let [a4, b4] = revisions(&store, [a, b]).await;
    assert!(a4 > a3, "a campaign moved");
    assert_eq!(b4, b2);

    store.rebuild_analytics().await.unwrap();
    let [a5, b5] = revisions(&store, [a, b]).await;
    assert!(a5 > a4 && b5 > b4, "a rebuild moves every organization's");
}

#[rstest]
#[tokio::test]
async fn a_new_title_moves_the_revision_of_every_organization_that_sees_the_video(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (a, b) = (org(&store, Plan::Pro).await, org(&store, Plan::Pro).await);
    // b tracks the video for a day, a for the default 30: b's leaderboard of
    // that day keeps showing it (its title, its link) after b's tracking ends.
    track(&store, a, t0(), vec![yt(1)]).await;
    let mut short = crate::batch(b, t0(), vec![yt(1)]);
    short.window = Duration::days(1);
    store.track_videos(short).await.unwrap();
    read(&store, t0(), "vid00000001", 100).await;
    let [_, b1] = revisions(&store, [a, b]).await;

    // Three days on, a reading that b no longer sees, with a new title.
    let later = t0() + Duration::days(3);
    let counters = Counters {
        views: Some(500),
        ..Counters::default()
    };
    let meta = VideoMeta {
        title: Some("A new title".into()),
        ..VideoMeta::default()
    };
    let saved = save_reads(&store, later, later + Duration::hours(1), |_| {
        Some((counters, meta.clone()))
    })
    .await;
    assert_eq!(saved, 1);
    let [_, b2] = revisions(&store, [a, b]).await;
    assert!(b2 > b1, "b's kept leaderboards show the old title");
}
