use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use vidpulse_domain::{
    Anchor, ApiKeyId, Counters, Observation, ObservationSource, Plan, Platform, VideoRef,
};
use vidpulse_store::{
    Backend, DueVideo, ImportRow, RefreshOutcome, RefreshWrite, VideoLookup, VideoMeta, VideoState,
};

use crate::{org, store, t0, track, yt};

fn counters(views: i64) -> Counters {
    Counters {
        views: Some(views),
        likes: Some(views / 10),
        comments: Some(3),
        reposts: None,
        saves: None,
    }
}

fn observed(
    due: &DueVideo,
    at: DateTime<Utc>,
    views: i64,
    next: Option<DateTime<Utc>>,
) -> RefreshWrite {
    RefreshWrite {
        video_id: due.id,
        lease_token: due.lease_token,
        read_at: at,
        outcome: RefreshOutcome::Observed {
            counters: counters(views),
            meta: VideoMeta {
                title: Some("Garlic noodles".into()),
                ..VideoMeta::default()
            },
            source: ObservationSource::Simulated,
        },
        next_refresh_at: next,
    }
}

const LEASE: i64 = 5;

#[rstest]
#[tokio::test]
async fn due_videos_are_claimed_read_and_rescheduled(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let id = track(&store, a, t0(), vec![yt(1)]).await[0].video_id;
    track(&store, b, t0(), vec![yt(1)]).await; // same catalog video
    assert_eq!(store.next_refresh_due().await.unwrap(), Some(t0()));

    let due = store
        .claim_due_videos(t0(), 10, Duration::minutes(LEASE))
        .await
        .unwrap();
    assert_eq!(due.len(), 1, "one catalog row serves both organizations");
    assert_eq!(
        (due[0].external_id.as_str(), due[0].failures),
        ("vid00000001", 0)
    );
    // Claimed: nobody else gets it while the lease holds.
    assert!(
        store
            .claim_due_videos(t0(), 10, Duration::minutes(LEASE))
            .await
            .unwrap()
            .is_empty()
    );

    let read_at = t0() + Duration::seconds(2);
    let next = read_at + Duration::minutes(15);
    assert_eq!(
        store
            .save_refreshes(&[observed(&due[0], read_at, 1000, Some(next))])
            .await
            .unwrap(),
        1
    );
    assert_eq!(store.next_refresh_due().await.unwrap(), Some(next));
    assert!(
        store
            .claim_due_videos(next - Duration::seconds(1), 10, Duration::minutes(LEASE))
            .await
            .unwrap()
            .is_empty()
    );

    let rec = store
        .video(a, &VideoLookup::Id(id), read_at)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(rec.latest, counters(1000));
    assert_eq!(rec.stats_updated_at, Some(read_at));
    assert_eq!(rec.title.as_deref(), Some("Garlic noodles"));
    assert_eq!(rec.history.len(), 1);

    let due = store
        .claim_due_videos(next, 10, Duration::minutes(LEASE))
        .await
        .unwrap();
    store
        .save_refreshes(&[observed(
            &due[0],
            next,
            1500,
            Some(next + Duration::minutes(15)),
        )])
        .await
        .unwrap();
    let rec = store
        .video(a, &VideoLookup::Id(id), next)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        rec.history
            .iter()
            .map(|o| o.counters.views)
            .collect::<Vec<_>>(),
        [Some(1000), Some(1500)]
    );
    assert_eq!(rec.latest.views, Some(1500));
    let _ = ApiKeyId::new();
}

#[rstest]
#[tokio::test]
async fn an_expired_lease_is_claimed_again_and_the_stale_write_is_ignored(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let id = track(&store, a, t0(), vec![yt(1)]).await[0].video_id;
    let first = store
        .claim_due_videos(t0(), 10, Duration::minutes(LEASE))
        .await
        .unwrap();
    let later = t0() + Duration::minutes(LEASE + 1);
    let second = store
        .claim_due_videos(later, 10, Duration::minutes(LEASE))
        .await
        .unwrap();
    assert_eq!(second.len(), 1);
    assert_ne!(first[0].lease_token, second[0].lease_token);

    assert_eq!(
        store
            .save_refreshes(&[observed(&first[0], later, 10, Some(later))])
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        store
            .save_refreshes(&[observed(
                &second[0],
                later,
                20,
                Some(later + Duration::hours(1))
            )])
            .await
            .unwrap(),
        1
    );
    let rec = store
        .video(a, &VideoLookup::Id(id), later)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(rec.history.len(), 1);
    assert_eq!(rec.latest.views, Some(20));
}

#[rstest]
#[tokio::test]
async fn gone_videos_stop_and_failing_videos_show_failed(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let gone = track(&store, a, t0(), vec![yt(1)]).await[0].video_id;
    let failing = track(&store, a, t0(), vec![yt(2)]).await[0].video_id;

    let mut now = t0();
    for round in 0..3 {
        let due = store
            .claim_due_videos(now, 10, Duration::minutes(LEASE))
            .await
            .unwrap();
        let writes: Vec<_> = due
            .iter()
            .map(|d| RefreshWrite {
                video_id: d.id,
                lease_token: d.lease_token,
                read_at: now,
                outcome: if d.external_id == "vid00000001" {
                    RefreshOutcome::Gone {
                        reason: "removed".into(),
                    }
                } else {
                    assert_eq!(d.failures, round);
                    RefreshOutcome::Failed {
                        error: "timeout".into(),
                    }
                },
                next_refresh_at: Some(now + Duration::minutes(1)),
            })
            .collect();
        assert_eq!(
            writes.len(),
            if round == 0 { 2 } else { 1 },
            "a gone video is not claimed again"
        );
        store.save_refreshes(&writes).await.unwrap();
        now += Duration::minutes(1);
    }
    let state = |id| {
        let store = store.clone();
        async move {
            store
                .video(a, &VideoLookup::Id(id), now)
                .await
                .unwrap()
                .unwrap()
                .state
        }
    };
    assert_eq!(state(gone).await, VideoState::Failed);
    assert_eq!(state(failing).await, VideoState::Failed);

    // One success clears the failure streak.
    let due = store
        .claim_due_videos(now, 10, Duration::minutes(LEASE))
        .await
        .unwrap();
    store
        .save_refreshes(&[observed(&due[0], now, 5, Some(now + Duration::minutes(15)))])
        .await
        .unwrap();
    assert_eq!(state(failing).await, VideoState::Active);
}

#[rstest]
#[tokio::test]
async fn a_tracking_started_during_a_read_gets_its_own_read(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    track(&store, a, t0(), vec![yt(1)]).await;
    let due = store
        .claim_due_videos(t0(), 10, Duration::minutes(LEASE))
        .await
        .unwrap();
    let b_start = t0() + Duration::seconds(1);
    track(&store, b, b_start, vec![yt(1)]).await;
    let read_at = t0();
    store
        .save_refreshes(&[observed(
            &due[0],
            read_at,
            7,
            Some(t0() + Duration::minutes(15)),
        )])
        .await
        .unwrap();
    assert_eq!(store.next_refresh_due().await.unwrap(), Some(b_start));
}

#[rstest]
#[tokio::test]
async fn an_organization_sees_only_its_own_window(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    track(&store, a, t0(), vec![yt(1)]).await;
    let due = store
        .claim_due_videos(t0(), 10, Duration::minutes(LEASE))
        .await
        .unwrap();
    store
        .save_refreshes(&[observed(
            &due[0],
            t0(),
            100,
            Some(t0() + Duration::hours(1)),
        )])
        .await
        .unwrap();

    let later = t0() + Duration::hours(1);
    let id_b = track(&store, b, later, vec![yt(1)]).await[0].video_id;
    let rec = store
        .video(b, &VideoLookup::Id(id_b), later)
        .await
        .unwrap()
        .unwrap();
    assert!(rec.history.is_empty(), "b started after a's first read");
    assert_eq!(rec.latest.views, None);
}

/// A snapshot of `video` imported as read at `at` with `views`, by `channel`.
fn imported(video: &VideoRef, at: DateTime<Utc>, views: i64, channel: Option<&str>) -> ImportRow {
    ImportRow {
        platform: video.platform,
        external_id: video.external_id.clone(),
        captured_at: at,
        counters: counters(views),
        url: None,
        channel_username: channel.map(str::to_owned),
        title: None,
        published_at: None,
    }
}

#[rstest]
#[tokio::test]
async fn anchors_are_the_latest_import_of_any_organization_and_the_earliest_author(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (a, b, c) = (
        org(&store, Plan::Pro).await,
        org(&store, Plan::Pro).await,
        org(&store, Plan::Pro).await,
    );
    let tiktok = VideoRef {
        platform: Platform::TikTok,
        external_id: "7300000000000000001".into(),
        canonical_url: "https://www.tiktok.com/@leo/video/7300000000000000001".into(),
    };
    // `c` tracks yt(1) first, saying nothing of it; `a` then imports it as
    // mira's, `b` as ana's with an older reading and one at `a`'s latest instant.
    track(&store, c, t0(), vec![yt(1), yt(3), tiktok.clone()]).await;
    let window = Duration::days(30);
    let day = |n: i64| t0() - Duration::days(n);
    let rows = [
        imported(&yt(1), day(3), 1200, Some("mira")),
        imported(&yt(1), day(2), 1900, Some("mira")),
    ];
    let later = t0() + Duration::hours(1);
    store
        .import_observations(a, &rows, window, later)
        .await
        .unwrap();
    let rows = [
        imported(&yt(1), day(5), 500, Some("ana")),
        imported(&yt(1), day(2), 2500, Some("ana")),
        imported(&yt(2), day(1), 700, None),
    ];
    let later = t0() + Duration::hours(2);
    store
        .import_observations(b, &rows, window, later)
        .await
        .unwrap();

    let due = store
        .claim_due_videos(later, 10, Duration::minutes(LEASE))
        .await
        .unwrap();
    let id = |external: &str| due.iter().find(|d| d.external_id == external).unwrap().id;
    let mut ids: Vec<i64> = due.iter().map(|d| d.id).collect();
    ids.push(9_999_999); // no such video
    let anchors = store.video_anchors(&ids).await.unwrap();
    let reading = |at, views| {
        Some(Observation {
            captured_at: at,
            counters: counters(views),
        })
    };
    let expected = BTreeMap::from([
        (
            id(&yt(1).external_id),
            Anchor {
                reading: reading(day(2), 1900),
                author: Some("mira".into()),
            },
        ),
        (
            id(&yt(2).external_id),
            Anchor {
                reading: reading(day(1), 700),
                author: None,
            },
        ),
        (
            id(&tiktok.external_id),
            Anchor {
                reading: None,
                author: Some("leo".into()),
            },
        ),
    ]);
    assert_eq!(anchors, expected, "yt(3) has none");
    assert!(store.video_anchors(&[]).await.unwrap().is_empty());
    let one = store
        .video_anchors(&[id(&yt(2).external_id)])
        .await
        .unwrap();
    assert_eq!(one.len(), 1);
}
