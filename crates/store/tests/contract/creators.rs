use std::sync::Arc;

use chrono::Duration;
use rstest::rstest;
use uuid::Uuid;
use vidpulse_domain::{OrgId, Plan, Platform};
use vidpulse_store::{
    AccountChange, Backend, BloggerChanges, ClaimedJob, CreatorProfile, CreatorVideos,
    DiscoveryResult, JOB_TIMEOUT, JobStatus, JobSuccess, NewCreatorJob, StartJob, Store,
};

use crate::{handle, org, store, t0, track, yt};

fn new_job(org: OrgId, username: &str, initial: i64) -> NewCreatorJob {
    NewCreatorJob {
        organization_id: org,
        api_key_id: None,
        request_id: "req".into(),
        platform: Platform::YouTube,
        username: username.into(),
        initial_videos_count: initial,
        now: t0(),
        refetch: false,
        setup: None,
    }
}

fn profile(username: &str) -> CreatorProfile {
    CreatorProfile {
        platform: Platform::YouTube,
        channel_id: format!("UC{username}"),
        username: username.into(),
        display_name: Some(format!("{username} display")),
        avatar_url: None,
        follower_count: Some(1200),
    }
}

fn backfill(from: u32, n: u32) -> CreatorVideos {
    CreatorVideos {
        videos: (from..from + n).map(yt).collect(),
        window: Duration::days(30),
        credits_per_video: 30,
    }
}

async fn credits(store: &Arc<dyn Store>, org: OrgId) -> i64 {
    let from = (t0() - Duration::days(10)).date_naive();
    let days = store.usage_history(org, from).await.unwrap();
    days.iter().map(|d| d.credits_used).sum()
}

async fn queued(store: &Arc<dyn Store>, job: &NewCreatorJob) -> Uuid {
    match store.start_creator_job(job).await.unwrap() {
        StartJob::Queued(j) => {
            assert_eq!(j.status, JobStatus::Queued);
            j.id
        }
        other => panic!("{other:?}"),
    }
}

async fn claim(store: &Arc<dyn Store>) -> ClaimedJob {
    store
        .claim_creator_job(t0(), Duration::minutes(5))
        .await
        .unwrap()
        .expect("a job to claim")
}

async fn succeed(store: &Arc<dyn Store>, c: &ClaimedJob, username: &str, videos: CreatorVideos) {
    let done = store
        .finish_creator_job(&JobSuccess {
            job_id: c.id,
            lease_token: c.lease_token,
            profile: profile(username),
            backfill: videos,
            now: t0(),
            next_discovery_at: t0() + Duration::days(1),
        })
        .await
        .unwrap();
    assert!(done.is_some());
}

#[rstest]
#[tokio::test]
async fn a_job_runs_from_queued_to_succeeded_and_tracks_its_backfill(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let id = queued(&store, &new_job(a, "Mira", 3)).await;
    let c = claim(&store).await;
    assert_eq!((c.id, c.attempts, c.username.as_str()), (id, 1, "Mira"));
    let job = store.creator_job(a, id).await.unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Processing);
    assert_eq!(job.started_at, Some(t0()));
    assert!(
        store
            .claim_creator_job(t0(), Duration::minutes(5))
            .await
            .unwrap()
            .is_none()
    );

    succeed(&store, &c, "mira", backfill(0, 3)).await;
    let job = store.creator_job(a, id).await.unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(job.is_reactivation, Some(false));
    let account = job.account.unwrap();
    assert_eq!(account.follower_count, Some(1200));
    assert!(account.is_active);
    assert_eq!(credits(&store, a).await, 90);

    // Another organization cannot see it; the username lookup is case-blind.
    let b = org(&store, Plan::Pro).await;
    assert!(store.creator_job(b, id).await.unwrap().is_none());
    let found = store
        .tracked_account_by_username(a, Some(Platform::YouTube), &handle("MIRA"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.tracked_account_id, account.tracked_account_id);
    assert!(
        store
            .tracked_account_by_username(b, None, &handle("mira"))
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .tracked_account_by_username(a, Some(Platform::TikTok), &handle("mira"))
            .await
            .unwrap()
            .is_none()
    );

    // Tracked now: a second start is refused.
    assert!(matches!(
        store
            .start_creator_job(&new_job(a, "mira", 1))
            .await
            .unwrap(),
        StartJob::AlreadyTracked { .. }
    ));
}

#[rstest]
#[tokio::test]
async fn one_job_in_flight_per_creator_even_when_racing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.start_creator_job(&new_job(a, "race", 1)).await })
        })
        .collect();
    let mut queued_ids = Vec::new();
    let mut in_flight = Vec::new();
    for t in tasks {
        match t.await.unwrap().unwrap() {
            StartJob::Queued(j) => queued_ids.push(j.id),
            StartJob::InFlight {
                job_id,
                reactivation,
            } => {
                assert!(!reactivation);
                in_flight.push(job_id);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(queued_ids.len(), 1);
    assert!(in_flight.iter().all(|id| *id == queued_ids[0]));
}

#[rstest]
#[tokio::test]
async fn caps_and_quota_are_checked_before_anything_is_written(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    store
        .set_plan(a, Plan::Pro, Some(10), Some(2))
        .await
        .unwrap();
    track(&store, a, t0(), (100..105).map(yt).collect()).await;
    // 5 tracked + 4 reserved by a job in flight + 2 > 10.
    queued(&store, &new_job(a, "one", 4)).await;
    assert_eq!(
        store
            .start_creator_job(&new_job(a, "two", 2))
            .await
            .unwrap(),
        StartJob::QuotaExceeded {
            quota: 10,
            in_use: 9,
            requested: 2
        }
    );
    queued(&store, &new_job(a, "two", 1)).await;
    assert_eq!(
        store
            .start_creator_job(&new_job(a, "three", 0))
            .await
            .unwrap(),
        StartJob::CreatorCapReached { cap: 2, in_use: 2 }
    );
}

#[rstest]
#[tokio::test]
async fn resuming_a_paused_creator_takes_a_place_under_the_cap(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let mut accounts = Vec::new();
    for name in ["one", "two"] {
        queued(&store, &new_job(a, name, 0)).await;
        let c = claim(&store).await;
        succeed(&store, &c, name, backfill(0, 0)).await;
        let account = store
            .tracked_account_by_username(a, None, &handle(name))
            .await
            .unwrap()
            .unwrap();
        accounts.push(account.tracked_account_id);
    }
    let [one, two] = accounts[..] else {
        unreachable!()
    };
    store.set_plan(a, Plan::Pro, None, Some(2)).await.unwrap();
    let pause = |id, active| {
        let store = store.clone();
        async move { store.set_account_active(a, id, active, t0()).await.unwrap() }
    };
    assert_eq!(pause(one, false).await, AccountChange::Done);
    // The freed place goes to a new creator's job in flight.
    queued(&store, &new_job(a, "three", 0)).await;
    let full = AccountChange::CreatorCapReached { cap: 2, in_use: 2 };
    assert_eq!(pause(one, true).await, full);
    // The same through an update, with other changes: none is written.
    let changes = BloggerChanges {
        is_active: Some(true),
        campaign: Some(Some(crate::campaign("Launch"))),
        ..BloggerChanges::default()
    };
    assert_eq!(
        store.update_blogger(a, one, &changes, t0()).await.unwrap(),
        full
    );
    let rows = store.bloggers(a).await.unwrap();
    let row = rows.iter().find(|r| r.tracking_id == one).unwrap();
    assert!(!row.is_active);
    assert_eq!(row.campaign, None, "no campaign written");
    // Resuming an active account, or pausing, takes no place.
    assert_eq!(pause(two, true).await, AccountChange::Done);
    assert_eq!(pause(two, false).await, AccountChange::Done);
    assert_eq!(pause(one, true).await, AccountChange::Done);
    assert_eq!(
        store.update_blogger(a, two, &changes, t0()).await.unwrap(),
        full
    );
}

#[rstest]
#[tokio::test]
async fn the_backfill_stops_at_the_quota(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    store.set_plan(a, Plan::Pro, Some(4), None).await.unwrap();
    queued(&store, &new_job(a, "mira", 4)).await;
    let c = claim(&store).await;
    // Meanwhile the organization tracked two videos itself.
    track(&store, a, t0(), vec![yt(900), yt(901)]).await;
    let done = store
        .finish_creator_job(&JobSuccess {
            job_id: c.id,
            lease_token: c.lease_token,
            profile: profile("mira"),
            backfill: backfill(0, 4),
            now: t0(),
            next_discovery_at: t0() + Duration::days(1),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!((done.videos_tracked, done.videos_skipped), (2, 2));
    assert_eq!(credits(&store, a).await, 120);
}

#[rstest]
#[tokio::test]
async fn the_sweep_closes_old_jobs_and_their_late_results_are_ignored(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let id = queued(&store, &new_job(a, "slow", 1)).await;
    let c = claim(&store).await;
    let timeout = Duration::minutes(10);
    assert_eq!(
        store
            .sweep_creator_jobs(t0() + Duration::minutes(9), timeout)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        store
            .sweep_creator_jobs(t0() + Duration::minutes(10), timeout)
            .await
            .unwrap(),
        1
    );
    let job = store.creator_job(a, id).await.unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Error);
    assert_eq!(job.error_code.as_deref(), Some(JOB_TIMEOUT));
    // The worker finishing late writes nothing.
    let late = store
        .finish_creator_job(&JobSuccess {
            job_id: c.id,
            lease_token: c.lease_token,
            profile: profile("slow"),
            backfill: backfill(0, 1),
            now: t0() + Duration::minutes(11),
            next_discovery_at: t0() + Duration::days(1),
        })
        .await
        .unwrap();
    assert!(late.is_none());
    assert_eq!(credits(&store, a).await, 0);
    // The creator can be tracked again.
    queued(&store, &new_job(a, "slow", 1)).await;
}

#[rstest]
#[tokio::test]
async fn a_dead_workers_job_is_claimed_again_after_its_lease(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    queued(&store, &new_job(a, "mira", 1)).await;
    let first = claim(&store).await;
    let lease = Duration::minutes(5);
    assert!(
        store
            .claim_creator_job(t0() + Duration::minutes(4), lease)
            .await
            .unwrap()
            .is_none()
    );
    let second = store
        .claim_creator_job(t0() + Duration::minutes(5), lease)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((second.id, second.attempts), (first.id, 2));
    // The first claim is void.
    assert!(
        !store
            .fail_creator_job(first.id, first.lease_token, "X", "x", t0())
            .await
            .unwrap()
    );
    // A retry hands it back for later.
    assert!(
        store
            .retry_creator_job(second.id, second.lease_token, t0() + Duration::minutes(7))
            .await
            .unwrap()
    );
    assert!(
        store
            .claim_creator_job(t0() + Duration::minutes(6), lease)
            .await
            .unwrap()
            .is_none()
    );
    let third = store
        .claim_creator_job(t0() + Duration::minutes(7), lease)
        .await
        .unwrap()
        .unwrap();
    assert!(
        store
            .fail_creator_job(
                third.id,
                third.lease_token,
                "PLATFORM_NOT_FOUND",
                "no",
                t0()
            )
            .await
            .unwrap()
    );
    let job = store.creator_job(a, third.id).await.unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Error);
    assert_eq!(job.started_at, Some(t0()), "started_at is the first claim");
}

#[rstest]
#[tokio::test]
async fn deactivated_creators_are_reactivated_by_a_new_job(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    queued(&store, &new_job(a, "mira", 0)).await;
    let c = claim(&store).await;
    succeed(&store, &c, "mira", backfill(0, 0)).await;
    let account = store
        .tracked_account_by_username(a, None, &handle("mira"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        store
            .set_account_active(a, account.tracked_account_id, false, t0())
            .await
            .unwrap(),
        AccountChange::Done
    );
    let other = org(&store, Plan::Pro).await;
    assert_eq!(
        store
            .set_account_active(other, account.tracked_account_id, false, t0())
            .await
            .unwrap(),
        AccountChange::NotFound
    );

    let id = queued(&store, &new_job(a, "mira", 0)).await;
    assert_eq!(
        store
            .start_creator_job(&new_job(a, "mira", 0))
            .await
            .unwrap(),
        StartJob::InFlight {
            job_id: id,
            reactivation: true
        }
    );
    let c = claim(&store).await;
    succeed(&store, &c, "mira", backfill(0, 0)).await;
    let job = store.creator_job(a, id).await.unwrap().unwrap();
    assert_eq!(job.is_reactivation, Some(true));
    assert_eq!(
        job.account.unwrap().tracked_account_id,
        account.tracked_account_id
    );
}

#[rstest]
#[tokio::test]
async fn discovery_is_claimed_daily_and_tracks_new_videos_within_the_quota(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    store.set_plan(a, Plan::Pro, Some(3), None).await.unwrap();
    queued(&store, &new_job(a, "mira", 1)).await;
    let c = claim(&store).await;
    succeed(&store, &c, "mira", backfill(0, 1)).await;
    let lease = Duration::minutes(5);
    assert!(
        store
            .claim_due_discoveries(t0(), 10, lease)
            .await
            .unwrap()
            .is_empty()
    );
    let day = t0() + Duration::days(1);
    let due = store.claim_due_discoveries(day, 10, lease).await.unwrap();
    assert_eq!(due.len(), 1);
    assert!(
        store
            .claim_due_discoveries(day, 10, lease)
            .await
            .unwrap()
            .is_empty(),
        "leased"
    );
    let d = &due[0];
    assert_eq!(d.discovered_since, t0());
    let mut grown = profile("mira");
    grown.follower_count = Some(1500);
    let outcome = store
        .finish_discovery(&DiscoveryResult {
            tracked_account_id: d.tracked_account_id,
            lease_token: d.lease_token,
            profile: Some(grown),
            new_videos: backfill(10, 4),
            now: day,
            next_discovery_at: day + Duration::days(1),
            note: None,
        })
        .await
        .unwrap();
    assert_eq!((outcome.videos_tracked, outcome.videos_skipped), (2, 2));
    let account = store
        .tracked_account_by_username(a, None, &handle("mira"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(account.follower_count, Some(1500));
    assert_eq!(account.last_scraped_at, Some(day));
    assert!(
        account
            .discovery_note
            .unwrap()
            .contains("2 new video(s) skipped")
    );
    let due = store
        .claim_due_discoveries(day + Duration::days(1), 10, lease)
        .await
        .unwrap();
    assert_eq!(due[0].discovered_since, day);
}

#[rstest]
#[tokio::test]
async fn a_creator_read_on_ask_takes_the_discovery_claim_and_its_cooldown(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use vidpulse_store::{DiscoveryAsk, ManualDiscovery};

    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    queued(&store, &new_job(a, "mira", 1)).await;
    let c = claim(&store).await;
    succeed(&store, &c, "mira", backfill(0, 1)).await;
    let account = store
        .tracked_account_by_username(a, None, &handle("mira"))
        .await
        .unwrap()
        .unwrap();
    let cooldown = Duration::minutes(5);
    let lease = Duration::minutes(1);
    let at = t0() + Duration::days(2);
    let ask = |org, now| {
        let store = store.clone();
        async move {
            store
                .ask_discovery(org, account.tracked_account_id, now, cooldown, lease)
                .await
                .unwrap()
        }
    };
    assert_eq!(ask(b, at).await, DiscoveryAsk::NotFound);
    let DiscoveryAsk::Claimed(due) = ask(a, at).await else {
        panic!("claimed");
    };
    assert_eq!(due.tracked_account_id, account.tracked_account_id);
    // Under the claim: neither another ask nor the daily discovery (due).
    assert_eq!(ask(a, at).await, DiscoveryAsk::InFlight);
    assert!(
        store
            .claim_due_discoveries(at, 10, lease)
            .await
            .unwrap()
            .is_empty()
    );
    // A failed read frees it without counting as an ask.
    store
        .release_discovery(account.tracked_account_id, due.lease_token)
        .await
        .unwrap();
    let DiscoveryAsk::Claimed(due) = ask(a, at).await else {
        panic!("claimed again");
    };
    let read = ManualDiscovery {
        tracked_account_id: due.tracked_account_id,
        lease_token: due.lease_token,
        profile: due.profile.clone(),
        new_videos: CreatorVideos {
            videos: vec![yt(7)],
            window: Duration::days(30),
            credits_per_video: 30,
        },
        api_key_id: None,
        request_id: "req-1".into(),
        now: at,
    };
    let wrong = ManualDiscovery {
        lease_token: Uuid::new_v4(),
        ..read.clone()
    };
    assert_eq!(store.save_manual_discovery(&wrong).await.unwrap(), None);
    let done = store.save_manual_discovery(&read).await.unwrap().unwrap();
    assert_eq!(done.videos_tracked, 1);
    assert_eq!(
        credits(&store, a).await,
        60,
        "the backfill's video and the new one"
    );
    let now = store
        .tracked_account(a, account.tracked_account_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(now.last_scraped_at, Some(at));
    // The cooldown runs from the ask; the daily schedule is left as it was.
    assert_eq!(
        ask(a, at + Duration::minutes(2)).await,
        DiscoveryAsk::TooSoon {
            retry_at: at + cooldown
        }
    );
    assert_eq!(
        store
            .claim_due_discoveries(at, 10, lease)
            .await
            .unwrap()
            .len(),
        1
    );
    // A paused creator is not read.
    store
        .set_account_active(a, account.tracked_account_id, false, at)
        .await
        .unwrap();
    assert_eq!(ask(a, at + Duration::hours(1)).await, DiscoveryAsk::Paused);
}
