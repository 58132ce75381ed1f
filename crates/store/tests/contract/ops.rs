//! What an operator watches and what keeps the service in shape: the queues
//! (`GET /metrics`), the probe read of the load test, and the housekeeping
//! of the platform's readings (imports: `housekeeping.rs`).

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use vidpulse_domain::analytics::{AnalyticsQuery, DateRange, GroupBy};
use vidpulse_domain::{Counters, ObservationSource, OrgId, Plan, Platform};
use vidpulse_store::{
    Backend, CreatorProfile, CreatorVideos, JobSuccess, NewCreatorJob, QueueStats, RefreshOutcome,
    RefreshWrite, StartJob, Store, VideoLookup, VideoMeta,
};

use crate::{org, store, t0, track, yt};

const LEASE: Duration = Duration::minutes(5);

/// Claims what is due at `at` and saves a reading of `views` for each,
/// next due at `next`.
async fn read_due(store: &Arc<dyn Store>, at: DateTime<Utc>, views: i64, next: DateTime<Utc>) {
    let due = store.claim_due_videos(at, 100, LEASE).await.unwrap();
    assert!(!due.is_empty());
    let writes: Vec<_> = due
        .iter()
        .map(|d| RefreshWrite {
            video_id: d.id,
            lease_token: d.lease_token,
            read_at: at,
            outcome: RefreshOutcome::Observed {
                counters: Counters {
                    views: Some(views),
                    likes: Some(views / 10),
                    comments: Some(1),
                    reposts: None,
                    saves: None,
                },
                meta: VideoMeta::default(),
                source: ObservationSource::Simulated,
            },
            next_refresh_at: Some(next),
        })
        .collect();
    assert_eq!(store.save_refreshes(&writes).await.unwrap(), writes.len());
}

/// Queues a creator job for `username`.
async fn queue_job(store: &Arc<dyn Store>, org: OrgId, username: &str) {
    let started = store
        .start_creator_job(&NewCreatorJob {
            organization_id: org,
            api_key_id: None,
            request_id: "req".into(),
            platform: Platform::YouTube,
            username: username.into(),
            initial_videos_count: 0,
            now: t0(),
            refetch: false,
            setup: None,
        })
        .await
        .unwrap();
    assert!(matches!(started, StartJob::Queued(_)), "{started:?}");
}

#[rstest]
#[tokio::test]
async fn queue_stats_count_due_and_claimed_videos_and_jobs_by_status(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    assert_eq!(
        store.queue_stats(t0()).await.unwrap(),
        QueueStats::default()
    );
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    // Every organization's videos; one catalog video is one in the queue.
    track(&store, a, t0(), vec![yt(1), yt(2)]).await;
    track(&store, b, t0() + Duration::minutes(1), vec![yt(2), yt(3)]).await;
    track(&store, b, t0() + Duration::minutes(10), vec![yt(4)]).await;

    let stats = |at| {
        let store = store.clone();
        async move { store.queue_stats(at).await.unwrap() }
    };
    let s = stats(t0() - Duration::seconds(1)).await;
    assert_eq!(
        (s.due_videos, s.oldest_due_at, s.claimed_videos),
        (0, None, 0)
    );
    let at = t0() + Duration::minutes(5);
    let s = stats(at).await;
    assert_eq!(
        (s.due_videos, s.oldest_due_at, s.claimed_videos),
        (3, Some(t0()), 0)
    );

    // Claimed: no longer due, until the lease runs out.
    let claimed = store.claim_due_videos(at, 2, LEASE).await.unwrap();
    assert_eq!(claimed.len(), 2);
    let s = stats(at).await;
    assert_eq!(
        (s.due_videos, s.oldest_due_at, s.claimed_videos),
        (1, Some(t0() + Duration::minutes(1)), 2)
    );
    let s = stats(at + Duration::minutes(10)).await;
    assert_eq!(
        (s.due_videos, s.oldest_due_at, s.claimed_videos),
        (4, Some(t0()), 0)
    );

    // Read and rescheduled: due again at the next time only; stopped: never.
    let read_at = at + Duration::seconds(5);
    let next = t0() + Duration::hours(1);
    let writes: Vec<_> = claimed
        .iter()
        .enumerate()
        .map(|(i, d)| RefreshWrite {
            video_id: d.id,
            lease_token: d.lease_token,
            read_at,
            outcome: if i == 0 {
                RefreshOutcome::Gone {
                    reason: "removed".into(),
                }
            } else {
                RefreshOutcome::Observed {
                    counters: Counters::default(),
                    meta: VideoMeta::default(),
                    source: ObservationSource::Simulated,
                }
            },
            next_refresh_at: (i == 1).then_some(next),
        })
        .collect();
    store.save_refreshes(&writes).await.unwrap();
    let s = stats(read_at).await;
    assert_eq!((s.due_videos, s.claimed_videos), (1, 0));
    let s = stats(next).await;
    assert_eq!(
        (s.due_videos, s.oldest_due_at, s.claimed_videos),
        (3, Some(t0() + Duration::minutes(1)), 0)
    );
    assert!(s.jobs.is_empty());

    // Creator jobs, every organization's, by status.
    for (org, username) in [(a, "one"), (b, "two"), (a, "three")] {
        queue_job(&store, org, username).await;
        let c = store.claim_creator_job(t0(), LEASE).await.unwrap().unwrap();
        match username {
            "one" => {
                store
                    .finish_creator_job(&JobSuccess {
                        job_id: c.id,
                        lease_token: c.lease_token,
                        profile: CreatorProfile {
                            platform: Platform::YouTube,
                            channel_id: "UCone".into(),
                            username: "one".into(),
                            display_name: None,
                            avatar_url: None,
                            follower_count: None,
                        },
                        backfill: CreatorVideos {
                            videos: vec![],
                            window: Duration::days(30),
                            credits_per_video: 30,
                        },
                        now: t0(),
                        next_discovery_at: t0() + Duration::days(1),
                    })
                    .await
                    .unwrap()
                    .unwrap();
            }
            "two" => {
                assert!(
                    store
                        .fail_creator_job(c.id, c.lease_token, "X", "x", t0())
                        .await
                        .unwrap()
                );
            }
            _ => {}
        }
    }
    queue_job(&store, b, "four").await;
    queue_job(&store, a, "five").await;
    assert_eq!(
        stats(next).await.jobs,
        [
            ("error".to_owned(), 1),
            ("processing".to_owned(), 1),
            ("queued".to_owned(), 2),
            ("succeeded".to_owned(), 1),
        ]
    );
}

#[rstest]
#[tokio::test]
async fn the_probe_reads_a_tracked_video_by_its_id(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let ours = track(&store, a, t0(), vec![yt(1)]).await[0].video_id;
    let theirs = track(&store, b, t0(), vec![yt(1)]).await[0].video_id;
    assert_ne!(ours, theirs);
    for id in [ours, theirs] {
        assert_eq!(store.probe_row(id.0).await.unwrap(), Some(id.0));
    }
    assert_eq!(store.probe_row(uuid::Uuid::new_v4()).await.unwrap(), None);
}

#[rstest]
#[tokio::test]
async fn housekeeping_deletes_old_readings_and_keeps_the_analytics(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let id = track(&store, a, t0(), vec![yt(1)]).await[0].video_id;
    let days = |n: i64| t0() + Duration::days(n);
    read_due(&store, days(0), 100, days(10)).await;
    read_due(&store, days(10), 500, days(20)).await;
    read_due(&store, days(20), 900, days(30)).await;
    let record = || {
        let store = store.clone();
        async move {
            store
                .video(a, &VideoLookup::Id(id), days(25))
                .await
                .unwrap()
                .unwrap()
        }
    };
    let totals = || {
        let store = store.clone();
        async move {
            store
                .analytics_totals(
                    a,
                    &AnalyticsQuery {
                        window: DateRange {
                            from: days(-1).date_naive(),
                            to: days(25).date_naive(),
                        },
                        group_by: GroupBy::None,
                        published: None,
                        tracked: None,
                        campaign: None,
                        platform: None,
                        author: None,
                        baseline: vidpulse_domain::analytics::Baseline::Window,
                    },
                )
                .await
                .unwrap()
        }
    };
    let before = totals().await;
    assert_eq!(before[0].metrics.views, 900);
    assert_eq!(record().await.history.len(), 3);

    // No retention: every reading stays.
    let done = store.housekeep_observations(days(25), None).await.unwrap();
    assert_eq!((done.rows_deleted, done.partitions_dropped), (0, 0));
    assert_eq!(record().await.history.len(), 3);

    // Seven days: the readings before day 18 go; the closes, and so the
    // analytics and the latest counters, stay.
    let done = store
        .housekeep_observations(days(25), Some(Duration::days(7)))
        .await
        .unwrap();
    // (On PostgreSQL, months before t0 that the migration made are dropped
    // whole: empty, and how many depends on today.)
    assert_eq!(done.rows_deleted, 2, "{done:?}");
    let r = record().await;
    let kept: Vec<_> = r.history.iter().map(|o| o.captured_at).collect();
    assert_eq!(kept, [days(20)]);
    assert_eq!(r.latest.views, Some(900));
    assert_eq!(totals().await, before);
    let again = store
        .housekeep_observations(days(25), Some(Duration::days(7)))
        .await
        .unwrap();
    assert_eq!((again.rows_deleted, again.partitions_dropped), (0, 0));
}
