//! Where a tracked video's picture comes from, for the users who may see it.

use chrono::Duration;
use rstest::rstest;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{Counters, Plan, Platform, VideoId};
use vidpulse_store::{Backend, ThumbnailSource, VideoMeta};

use crate::users::user;
use crate::{org, save_reads, store, t0, track, yt};

#[rstest]
#[tokio::test]
async fn a_thumbnail_is_found_only_for_members_of_the_tracking_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let ann = user(&store, "ann@example.com").await;
    let bob = user(&store, "bob@example.com").await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Free).await;
    store
        .add_member(acme, ann.id, Role::Viewer, t0())
        .await
        .unwrap();
    store
        .add_member(other, bob.id, Role::Owner, t0())
        .await
        .unwrap();
    let mine = track(&store, acme, t0(), vec![yt(1)]).await[0].video_id;
    // Bob's organization tracks the same video: his own tracking, not Ann's.
    let theirs = track(&store, other, t0(), vec![yt(1)]).await[0].video_id;

    // Before a reading: the platform, no picture yet.
    let none = ThumbnailSource {
        platform: Platform::YouTube,
        thumbnail_url: None,
    };
    assert_eq!(
        store.thumbnail_source(ann.id, mine).await.unwrap(),
        Some(none)
    );
    let picture = "https://i.ytimg.com/vi/vid00000001/hqdefault.jpg";
    let at = t0() + Duration::minutes(1);
    save_reads(&store, at, at + Duration::hours(1), |_| {
        let meta = VideoMeta {
            thumbnail_url: Some(picture.into()),
            ..VideoMeta::default()
        };
        Some((Counters::default(), meta))
    })
    .await;
    let found = store.thumbnail_source(ann.id, mine).await.unwrap().unwrap();
    assert_eq!(found.thumbnail_url.as_deref(), Some(picture));

    // Nobody else: not a member, another organization's tracking of the
    // same video, an unknown id.
    assert_eq!(store.thumbnail_source(bob.id, mine).await.unwrap(), None);
    assert_eq!(store.thumbnail_source(ann.id, theirs).await.unwrap(), None);
    assert!(
        store
            .thumbnail_source(bob.id, theirs)
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store
            .thumbnail_source(ann.id, VideoId::new())
            .await
            .unwrap(),
        None
    );
}
