//! Follower history (one count per creator per UTC day, written with every
//! profile read that has one), the gains read from it, and the public
//! listing of tracked accounts with its filters, page and totals.

use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rstest::rstest;
use uuid::Uuid;
use vidpulse_domain::{OrgId, Plan, Platform, VideoRef};
use vidpulse_store::{
    AccountQuery, Backend, CreatorProfile, CreatorVideos, DiscoveryResult, FollowerDay,
    FollowerGains, JobSuccess, NewCreatorJob, StartJob, Store,
};

use crate::{org, store, t0, yt};

fn profile(platform: Platform, username: &str, followers: Option<i64>) -> CreatorProfile {
    CreatorProfile {
        platform,
        channel_id: format!("ch-{username}"),
        username: username.into(),
        display_name: None,
        avatar_url: None,
        follower_count: followers,
    }
}

fn videos(refs: Vec<VideoRef>) -> CreatorVideos {
    CreatorVideos {
        videos: refs,
        window: Duration::days(30),
        credits_per_video: 30,
    }
}

/// Tracks a creator through a job finished at `now` with `followers`;
/// returns its tracked account.
async fn tracked(
    store: &Arc<dyn Store>,
    org: OrgId,
    p: CreatorProfile,
    backfill: Vec<VideoRef>,
    now: DateTime<Utc>,
) -> Uuid {
    let job = NewCreatorJob {
        organization_id: org,
        api_key_id: None,
        request_id: "req".into(),
        platform: p.platform,
        username: p.username.clone(),
        initial_videos_count: backfill.len().max(1) as i64,
        now,
        refetch: false,
        setup: None,
    };
    assert!(matches!(
        store.start_creator_job(&job).await.unwrap(),
        StartJob::Queued(_)
    ));
    let c = store
        .claim_creator_job(now, Duration::minutes(5))
        .await
        .unwrap()
        .unwrap();
    store
        .finish_creator_job(&JobSuccess {
            job_id: c.id,
            lease_token: c.lease_token,
            profile: p,
            backfill: videos(backfill),
            now,
            next_discovery_at: now + Duration::hours(1),
        })
        .await
        .unwrap()
        .unwrap()
        .tracked_account_id
}

/// Runs every due discovery at `now`, each reading `followers`.
async fn discover(store: &Arc<dyn Store>, now: DateTime<Utc>, followers: Option<i64>) {
    let due = store
        .claim_due_discoveries(now, 10, Duration::minutes(5))
        .await
        .unwrap();
    assert!(!due.is_empty(), "a discovery due at {now}");
    for d in due {
        let mut read = d.profile.clone();
        read.follower_count = followers;
        store
            .finish_discovery(&DiscoveryResult {
                tracked_account_id: d.tracked_account_id,
                lease_token: d.lease_token,
                profile: Some(read),
                new_videos: videos(Vec::new()),
                now,
                next_discovery_at: now + Duration::hours(1),
                note: None,
            })
            .await
            .unwrap();
    }
}

fn day(n: i64) -> NaiveDate {
    (t0() + Duration::days(n)).date_naive()
}

async fn history(
    store: &Arc<dyn Store>,
    org: OrgId,
    account: Uuid,
    from: i64,
    to: i64,
) -> Option<Vec<(NaiveDate, i64)>> {
    store
        .follower_history(org, account, day(from), day(to))
        .await
        .unwrap()
        .map(|days| {
            days.into_iter()
                .map(
                    |FollowerDay {
                         day,
                         follower_count,
                     }| (day, follower_count),
                )
                .collect()
        })
}

#[rstest]
#[tokio::test]
async fn every_read_with_a_count_records_the_last_count_of_its_day(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let mira = profile(Platform::YouTube, "mira", Some(1000));
    let account = tracked(&store, a, mira, Vec::new(), t0()).await;
    // Later the same day: the later read wins.
    discover(&store, t0() + Duration::hours(2), Some(1100)).await;
    // A read without a count records nothing.
    discover(&store, t0() + Duration::days(2), None).await;
    discover(&store, t0() + Duration::days(3), Some(1300)).await;
    assert_eq!(
        history(&store, a, account, -5, 5).await.unwrap(),
        vec![(day(0), 1100), (day(3), 1300)]
    );
    // The window bounds are inclusive.
    assert_eq!(
        history(&store, a, account, 1, 3).await.unwrap(),
        vec![(day(3), 1300)]
    );
    assert_eq!(history(&store, a, account, 4, 9).await.unwrap(), vec![]);
    // Another organization has no such account.
    let b = org(&store, Plan::Pro).await;
    assert_eq!(history(&store, b, account, -5, 5).await, None);
    assert_eq!(history(&store, a, Uuid::now_v7(), -5, 5).await, None);
}

#[rstest]
#[tokio::test]
async fn gains_run_from_the_last_count_old_enough_or_else_the_first(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let mira = profile(Platform::YouTube, "mira", Some(1000));
    let account = tracked(&store, a, mira, Vec::new(), t0()).await;
    let silent = profile(Platform::TikTok, "silent", None);
    let quiet = tracked(&store, a, silent, Vec::new(), t0()).await;
    let gains = |today: i64| {
        let store = store.clone();
        async move {
            let totals = store
                .creator_totals(a, &[account, quiet], day(today))
                .await
                .unwrap();
            (totals[&account].followers, totals[&quiet].followers)
        }
    };
    // Tracked 0 days ago: no gain yet.
    let none = FollowerGains::default();
    let flat = FollowerGains {
        gain_7d: Some(0),
        gain_30d: Some(0),
    };
    assert_eq!(gains(0).await, (flat, none));
    // Day 3: both windows reach back before the first record.
    discover(&store, t0() + Duration::days(3), Some(1300)).await;
    let both = |g7, g30| FollowerGains {
        gain_7d: Some(g7),
        gain_30d: Some(g30),
    };
    assert_eq!(gains(3).await.0, both(300, 300));
    // Day 10: 7 days back is day 3 (1300), 30 days back falls before day 0.
    discover(&store, t0() + Duration::days(10), Some(2000)).await;
    assert_eq!(gains(10).await.0, both(700, 1000));
    // Day 12 (no new record): 7 days back is day 5, whose last record is day 3.
    assert_eq!(gains(12).await.0, both(700, 1000));
    // Day 40: the last record (day 10) is older than both windows: no
    // change seen since.
    assert_eq!(gains(40).await.0, both(0, 0));
    let by_creator = store.follower_gains(&[], day(0)).await.unwrap();
    assert!(by_creator.is_empty());
}

#[rstest]
#[tokio::test]
async fn the_listing_filters_pages_and_sums_each_creators_videos(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let yt1 = tracked(
        &store,
        a,
        profile(Platform::YouTube, "one", Some(10)),
        vec![yt(1), yt(2)],
        t0(),
    )
    .await;
    let tt = tracked(
        &store,
        a,
        profile(Platform::TikTok, "two", Some(20)),
        Vec::new(),
        t0() + Duration::minutes(1),
    )
    .await;
    let yt3 = tracked(
        &store,
        a,
        profile(Platform::YouTube, "three", None),
        vec![yt(3)],
        t0() + Duration::minutes(2),
    )
    .await;
    assert_eq!(
        store
            .set_account_active(a, tt, false, t0() + Duration::minutes(3))
            .await
            .unwrap(),
        vidpulse_store::AccountChange::Done
    );
    // Another organization's creator is never listed.
    let b = org(&store, Plan::Pro).await;
    let theirs = tracked(
        &store,
        b,
        profile(Platform::YouTube, "four", Some(40)),
        Vec::new(),
        t0(),
    )
    .await;

    let list = |platform: Option<Platform>, active: Option<bool>, limit: i64, offset: i64| {
        let store = store.clone();
        async move {
            let q = AccountQuery {
                platform,
                active,
                limit,
                offset,
            };
            let page = store.tracked_accounts(a, &q).await.unwrap();
            let ids: Vec<Uuid> = page.items.iter().map(|x| x.tracked_account_id).collect();
            (ids, page.total)
        }
    };
    assert_eq!(list(None, None, 50, 0).await, (vec![yt3, tt, yt1], 3));
    assert_eq!(list(None, None, 2, 1).await, (vec![tt, yt1], 3));
    assert_eq!(list(None, None, 2, 3).await, (vec![], 3));
    let youtube = Some(Platform::YouTube);
    assert_eq!(list(youtube, None, 50, 0).await, (vec![yt3, yt1], 2));
    assert_eq!(list(None, Some(false), 50, 0).await, (vec![tt], 1));
    assert_eq!(list(youtube, Some(true), 1, 0).await, (vec![yt3], 2));
    assert_eq!(
        list(Some(Platform::Instagram), None, 50, 0).await,
        (vec![], 0)
    );

    let totals = store
        .creator_totals(a, &[yt1, tt, yt3, theirs], day(0))
        .await
        .unwrap();
    assert_eq!(totals.len(), 3, "the other organization's is left out");
    assert_eq!(totals[&yt1].videos_tracked, 2);
    assert_eq!(totals[&tt].videos_tracked, 0);
    assert_eq!(totals[&yt3].videos_tracked, 1);
    assert_eq!(totals[&tt].views, 0);
    assert_eq!(totals[&yt3].followers, FollowerGains::default());
}
