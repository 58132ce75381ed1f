//! Tracked creators as the dashboard manages them ("bloggers"): the listing,
//! the campaign, budget and tags their new videos inherit, deletion with or
//! without their videos, the creators an organization knows, and creator
//! profiles. Another organization's ids answer "unknown" and change nothing.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use uuid::Uuid;
use vidpulse_domain::analytics::{AnalyticsQuery, DateRange, GroupBy};
use vidpulse_domain::{Counters, ObservationSource, OrgId, Plan, Platform, VideoRef};
use vidpulse_store::{
    Backend, BloggerSummary, CreatorGroup, CreatorProfile, CreatorVideos, GroupInto, Grouped,
    JobStatus, JobSuccess, KnownCreator, NewCreatorJob, ProfileRef, RefreshOutcome, RefreshWrite,
    SetTags, StartJob, Store, TrackedAccount, VideoLookup, VideoMeta,
};

use crate::{handle, org, store, t0, track, yt};

const LEASE: Duration = Duration::minutes(5);

fn profile(platform: Platform, username: &str, display: Option<&str>) -> CreatorProfile {
    CreatorProfile {
        platform,
        channel_id: format!("UC{username}"),
        username: username.into(),
        display_name: display.map(str::to_owned),
        avatar_url: Some(format!("https://img.example/{username}.jpg")),
        follower_count: Some(1200),
    }
}

fn videos(videos: Vec<VideoRef>) -> CreatorVideos {
    CreatorVideos {
        videos,
        window: Duration::days(30),
        credits_per_video: 30,
    }
}

/// Starts tracking `creator` for `org` with a creator job whose backfill is
/// `backfill`; returns the job and the tracked account.
async fn follow_job(
    store: &Arc<dyn Store>,
    org: OrgId,
    creator: CreatorProfile,
    backfill: Vec<VideoRef>,
) -> (Uuid, TrackedAccount) {
    let job = match store
        .start_creator_job(&NewCreatorJob {
            organization_id: org,
            api_key_id: None,
            request_id: "req".into(),
            platform: creator.platform,
            username: creator.username.clone(),
            initial_videos_count: backfill.len() as i64,
            now: t0(),
            refetch: false,
            setup: None,
        })
        .await
        .unwrap()
    {
        StartJob::Queued(j) => j.id,
        other => panic!("{other:?}"),
    };
    let c = store.claim_creator_job(t0(), LEASE).await.unwrap().unwrap();
    assert_eq!(c.id, job);
    store
        .finish_creator_job(&JobSuccess {
            job_id: c.id,
            lease_token: c.lease_token,
            profile: creator.clone(),
            backfill: videos(backfill),
            now: t0(),
            next_discovery_at: t0() + Duration::days(1),
        })
        .await
        .unwrap()
        .unwrap();
    let account = store
        .tracked_account_by_username(org, Some(creator.platform), &handle(&creator.username))
        .await
        .unwrap()
        .unwrap();
    (job, account)
}

/// [`follow_job`] for a YouTube creator whose display name is `<username> display`.
async fn follow(
    store: &Arc<dyn Store>,
    org: OrgId,
    username: &str,
    backfill: Vec<VideoRef>,
) -> TrackedAccount {
    let display = format!("{username} display");
    let creator = profile(Platform::YouTube, username, Some(&display));
    follow_job(store, org, creator, backfill).await.1
}

/// Reads every due video once at `at`: video `vid0000000n` has `n × 100` views.
async fn read_all(store: &Arc<dyn Store>, at: DateTime<Utc>) {
    let due = store.claim_due_videos(at, 1000, LEASE).await.unwrap();
    let writes: Vec<_> = due
        .iter()
        .map(|d| {
            let n: i64 = d.external_id.trim_start_matches("vid").parse().unwrap();
            RefreshWrite {
                video_id: d.id,
                lease_token: d.lease_token,
                read_at: at,
                outcome: RefreshOutcome::Observed {
                    counters: Counters {
                        views: Some(n * 100),
                        likes: Some(n),
                        comments: Some(1),
                        reposts: None,
                        saves: None,
                    },
                    meta: VideoMeta::default(),
                    source: ObservationSource::Simulated,
                },
                next_refresh_at: Some(at + Duration::hours(1)),
            }
        })
        .collect();
    assert_eq!(store.save_refreshes(&writes).await.unwrap(), writes.len());
}

/// Runs the daily discovery due at `at`: `account` finds `found`, the others nothing.
async fn discover(store: &Arc<dyn Store>, at: DateTime<Utc>, account: Uuid, found: Vec<VideoRef>) {
    let due = store.claim_due_discoveries(at, 100, LEASE).await.unwrap();
    assert!(due.iter().any(|d| d.tracked_account_id == account));
    for d in due {
        let new = if d.tracked_account_id == account {
            found.clone()
        } else {
            Vec::new()
        };
        store
            .finish_discovery(&vidpulse_store::DiscoveryResult {
                tracked_account_id: d.tracked_account_id,
                lease_token: d.lease_token,
                profile: None,
                new_videos: videos(new),
                now: at,
                next_discovery_at: at + Duration::days(1),
                note: None,
            })
            .await
            .unwrap();
    }
}

/// `org`'s record of video `n` (`yt(n)`), if it tracks it.
async fn video(store: &Arc<dyn Store>, org: OrgId, n: u32) -> Option<vidpulse_store::VideoRecord> {
    store
        .video(org, &VideoLookup::ExternalId(yt(n).external_id), t0())
        .await
        .unwrap()
}

/// The tag names of `org`'s video `n`, sorted.
async fn video_tags(store: &Arc<dyn Store>, org: OrgId, n: u32) -> Vec<String> {
    let mut tags = video(store, org, n).await.unwrap().tags;
    tags.sort();
    tags
}

/// `org`'s views gained over t0's day and the one before (tracked today: in full).
async fn views(store: &Arc<dyn Store>, org: OrgId) -> i64 {
    let today = t0().date_naive();
    let rows = store
        .analytics_totals(
            org,
            &AnalyticsQuery {
                window: DateRange {
                    from: today.pred_opt().unwrap(),
                    to: today,
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
        .unwrap();
    rows.iter().map(|r| r.metrics.views).sum()
}

#[rstest]
#[tokio::test]
async fn bloggers_are_listed_by_handle_then_platform_with_their_videos_summed(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let mira = follow(&store, a, "mira", vec![yt(1), yt(2)]).await;
    follow(&store, a, "Zed", vec![]).await;
    let tiktok = profile(Platform::TikTok, "mira", None);
    follow_job(&store, a, tiktok, vec![]).await;
    follow(&store, a, "ann", vec![yt(3)]).await;
    follow(&store, b, "bob", vec![yt(4)]).await;
    // Tracked by `b` directly: not one of its bloggers' videos.
    track(&store, b, t0(), vec![yt(1)]).await;
    read_all(&store, t0() + Duration::minutes(1)).await;

    let listed = store.bloggers(a).await.unwrap();
    let order: Vec<_> = listed
        .iter()
        .map(|s| (s.username.as_str(), s.platform))
        .collect();
    assert_eq!(
        order,
        [
            ("ann", Platform::YouTube),
            ("mira", Platform::TikTok),
            ("mira", Platform::YouTube),
            ("Zed", Platform::YouTube),
        ]
    );
    assert_eq!(
        listed[2],
        BloggerSummary {
            tracking_id: mira.tracked_account_id,
            blogger_id: mira.creator_id,
            platform: Platform::YouTube,
            username: "mira".into(),
            channel_name: Some("mira display".into()),
            number_of_subscribers: Some(1200),
            is_active: true,
            campaign: None,
            budget_per_video: None,
            initial_videos_count: 2,
            daily_videos_count: None,
            last_scraped_at: Some(t0()),
            videos_tracked: 2,
            total_views: 300,
            creator_profile: None,
            tags: vec![],
        }
    );
    assert_eq!(
        (listed[1].videos_tracked, listed[1].total_views),
        (0, 0),
        "no videos: zero, not nothing"
    );
    assert_eq!(listed[1].channel_name, None);
    assert_eq!((listed[0].videos_tracked, listed[0].total_views), (1, 300));

    // The other organization sees its own only.
    let theirs = store.bloggers(b).await.unwrap();
    assert_eq!(theirs.len(), 1);
    assert_eq!(
        (
            theirs[0].username.as_str(),
            theirs[0].videos_tracked,
            theirs[0].total_views
        ),
        ("bob", 1, 400)
    );
    assert!(store.bloggers(OrgId::new()).await.unwrap().is_empty());

    // Paused: still listed, inactive.
    assert_eq!(
        store
            .set_account_active(a, mira.tracked_account_id, false, t0())
            .await
            .unwrap(),
        vidpulse_store::AccountChange::Done
    );
    let listed = store.bloggers(a).await.unwrap();
    assert!(!listed[2].is_active);
    assert_eq!(listed.len(), 4);
}

#[rstest]
#[tokio::test]
async fn campaign_and_budget_go_to_the_bloggers_new_videos(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let mira = follow(&store, a, "mira", vec![yt(1)])
        .await
        .tracked_account_id;
    let now = t0() + Duration::hours(1);

    // Unknown to the organization: nothing written.
    for (o, id) in [(b, mira), (a, Uuid::new_v4())] {
        assert!(
            !store
                .set_blogger_campaign(o, id, Some("Theirs"), now)
                .await
                .unwrap()
        );
        assert!(
            !store
                .set_blogger_budget(o, id, Some(999), now)
                .await
                .unwrap()
        );
    }
    assert!(
        store
            .set_blogger_campaign(a, mira, Some("Summer launch"), now)
            .await
            .unwrap()
    );
    assert!(
        store
            .set_blogger_budget(a, mira, Some(250), now)
            .await
            .unwrap()
    );
    let listed = &store.bloggers(a).await.unwrap()[0];
    assert_eq!(
        (listed.campaign.as_deref(), listed.budget_per_video),
        (Some("Summer launch"), Some(250))
    );
    // Its videos so far keep theirs; the ones it finds from now on get these.
    let v1 = video(&store, a, 1).await.unwrap();
    assert_eq!((v1.campaign, v1.budget), (None, None));
    let day = t0() + Duration::days(1);
    discover(&store, day, mira, vec![yt(2)]).await;
    let v2 = video(&store, a, 2).await.unwrap();
    assert_eq!(
        (v2.campaign.as_deref(), v2.budget),
        (Some("Summer launch"), Some(250))
    );

    // Unset: the next ones get none.
    assert!(
        store
            .set_blogger_campaign(a, mira, None, day)
            .await
            .unwrap()
    );
    assert!(store.set_blogger_budget(a, mira, None, day).await.unwrap());
    let listed = &store.bloggers(a).await.unwrap()[0];
    assert_eq!(
        (listed.campaign.as_deref(), listed.budget_per_video),
        (None, None)
    );
    discover(&store, day + Duration::days(1), mira, vec![yt(3)]).await;
    let v3 = video(&store, a, 3).await.unwrap();
    assert_eq!((v3.campaign, v3.budget), (None, None));
    let v2 = video(&store, a, 2).await.unwrap();
    assert_eq!(v2.campaign.as_deref(), Some("Summer launch"));
}

#[rstest]
#[tokio::test]
async fn tags_are_per_organization_and_case_blind(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let later = t0() + Duration::hours(1);
    let (summer, created) = store.create_tag(a, "Summer", t0()).await.unwrap();
    assert!(created);
    assert_eq!((summer.name.as_str(), summer.created_at), ("Summer", t0()));
    let (again, created) = store.create_tag(a, "SUMMER", later).await.unwrap();
    assert!(!created);
    assert_eq!(again, summer, "the first spelling and time stay");
    let (autumn, _) = store.create_tag(a, "autumn", later).await.unwrap();
    let (theirs, created) = store.create_tag(b, "summer", later).await.unwrap();
    assert!(created);
    assert_ne!(theirs.id, summer.id);
    assert_eq!(store.tags(a).await.unwrap(), [autumn, summer]);
    assert_eq!(store.tags(b).await.unwrap(), [theirs]);
    assert!(store.tags(OrgId::new()).await.unwrap().is_empty());
}

#[rstest]
#[tokio::test]
async fn a_bloggers_tags_are_set_on_its_videos_and_unset(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let mira = follow(&store, a, "mira", vec![yt(1), yt(2)]).await;
    let mira = mira.tracked_account_id;
    let ann = follow(&store, a, "ann", vec![yt(5)])
        .await
        .tracked_account_id;
    track(&store, b, t0(), vec![yt(1)]).await;
    let (summer, _) = store.create_tag(a, "Summer", t0()).await.unwrap();
    let (autumn, _) = store.create_tag(a, "autumn", t0()).await.unwrap();
    let (theirs, _) = store.create_tag(b, "Theirs", t0()).await.unwrap();

    // Sorted by name, each once.
    assert_eq!(
        store
            .set_blogger_tags(a, mira, &[summer.id, autumn.id, summer.id])
            .await
            .unwrap(),
        SetTags::Done(vec![autumn.clone(), summer.clone()])
    );
    assert_eq!(
        store.bloggers(a).await.unwrap()[1].tags,
        [autumn.clone(), summer.clone()]
    );
    for n in [1, 2] {
        assert_eq!(video_tags(&store, a, n).await, ["Summer", "autumn"]);
    }
    assert!(
        video_tags(&store, a, 5).await.is_empty(),
        "another blogger's"
    );
    assert!(
        video_tags(&store, b, 1).await.is_empty(),
        "another organization's record of the same video"
    );
    // Its new videos get them.
    discover(&store, t0() + Duration::days(1), mira, vec![yt(3)]).await;
    assert_eq!(video_tags(&store, a, 3).await, ["Summer", "autumn"]);

    // Replaced: the videos lose the tag taken off.
    assert_eq!(
        store.set_blogger_tags(a, mira, &[autumn.id]).await.unwrap(),
        SetTags::Done(vec![autumn.clone()])
    );
    for n in [1, 2, 3] {
        assert_eq!(video_tags(&store, a, n).await, ["autumn"]);
    }

    // Another organization's tag or an unknown id: nothing written.
    let unknown = Uuid::new_v4();
    assert_eq!(
        store
            .set_blogger_tags(a, mira, &[summer.id, theirs.id, unknown])
            .await
            .unwrap(),
        SetTags::UnknownTags(vec![theirs.id, unknown])
    );
    assert_eq!(
        store.bloggers(a).await.unwrap()[1].tags,
        std::slice::from_ref(&autumn)
    );
    assert_eq!(video_tags(&store, a, 1).await, ["autumn"]);
    // Another organization's blogger, or an unknown one.
    for (o, id) in [(b, mira), (b, ann), (a, Uuid::new_v4())] {
        assert_eq!(
            store.set_blogger_tags(o, id, &[theirs.id]).await.unwrap(),
            SetTags::UnknownBlogger
        );
    }
    assert!(video_tags(&store, a, 5).await.is_empty());

    // None: unset everywhere, and for the videos to come.
    assert_eq!(
        store.set_blogger_tags(a, mira, &[]).await.unwrap(),
        SetTags::Done(vec![])
    );
    assert!(store.bloggers(a).await.unwrap()[1].tags.is_empty());
    for n in [1, 2, 3] {
        assert!(video_tags(&store, a, n).await.is_empty());
    }
    discover(&store, t0() + Duration::days(2), mira, vec![yt(4)]).await;
    assert!(video_tags(&store, a, 4).await.is_empty());
    // The tags themselves stay.
    assert_eq!(store.tags(a).await.unwrap(), [autumn, summer]);
}

#[rstest]
#[tokio::test]
async fn deleting_a_blogger_keeps_its_videos(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let (job, mira) = follow_job(
        &store,
        a,
        profile(Platform::YouTube, "mira", None),
        vec![yt(1), yt(2)],
    )
    .await;
    let mira = mira.tracked_account_id;
    let ann = follow(&store, a, "ann", vec![yt(3)])
        .await
        .tracked_account_id;
    read_all(&store, t0() + Duration::minutes(1)).await;
    let before = views(&store, a).await;
    assert_eq!(before, 600);

    for (o, id) in [(b, mira), (a, Uuid::new_v4())] {
        assert!(!store.delete_blogger(o, id).await.unwrap());
    }
    assert!(store.delete_blogger(a, mira).await.unwrap());
    assert!(!store.delete_blogger(a, mira).await.unwrap(), "once");
    let listed = store.bloggers(a).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].tracking_id, ann);
    assert!(
        store
            .tracked_account_by_username(a, None, &handle("mira"))
            .await
            .unwrap()
            .is_none()
    );
    // Its videos and their statistics stay; its job stays, with no account.
    for n in [1, 2] {
        assert!(video(&store, a, n).await.is_some());
    }
    assert_eq!(views(&store, a).await, before);
    let job = store.creator_job(a, job).await.unwrap().unwrap();
    assert_eq!((job.status, job.account), (JobStatus::Succeeded, None));
    // The creator can be tracked again.
    assert!(matches!(
        store
            .start_creator_job(&NewCreatorJob {
                organization_id: a,
                api_key_id: None,
                request_id: "req".into(),
                platform: Platform::YouTube,
                username: "mira".into(),
                initial_videos_count: 0,
                now: t0(),
                refetch: false,
                setup: None,
            })
            .await
            .unwrap(),
        StartJob::Queued(_)
    ));
}

#[rstest]
#[tokio::test]
async fn deleting_a_blogger_with_its_videos_takes_them_out_of_the_analytics(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let mira = follow(&store, a, "mira", vec![yt(1), yt(2)]).await;
    let mira = mira.tracked_account_id;
    follow(&store, a, "ann", vec![yt(3)]).await;
    track(&store, a, t0(), vec![yt(4)]).await;
    track(&store, b, t0(), vec![yt(1)]).await;
    let (tag, _) = store.create_tag(a, "Summer", t0()).await.unwrap();
    store.set_blogger_tags(a, mira, &[tag.id]).await.unwrap();
    read_all(&store, t0() + Duration::minutes(1)).await;
    assert_eq!(views(&store, a).await, 1000);
    assert_eq!(views(&store, b).await, 100);

    for (o, id) in [(b, mira), (a, Uuid::new_v4())] {
        assert_eq!(store.delete_blogger_with_videos(o, id).await.unwrap(), None);
    }
    assert_eq!(
        store.delete_blogger_with_videos(a, mira).await.unwrap(),
        Some(2)
    );
    assert_eq!(
        store.delete_blogger_with_videos(a, mira).await.unwrap(),
        None
    );
    for n in [1, 2] {
        assert!(video(&store, a, n).await.is_none());
    }
    // Only its videos: another blogger's, the organization's own, and
    // another organization's record of the same video stay.
    for n in [3, 4] {
        assert!(video(&store, a, n).await.is_some());
    }
    assert_eq!(video(&store, b, 1).await.unwrap().latest.views, Some(100));
    assert_eq!(views(&store, a).await, 700);
    assert_eq!(views(&store, b).await, 100);
    let maintained = vidpulse_store::testing::rollup_dump(&db.url).await.unwrap();
    store.rebuild_analytics().await.unwrap();
    assert_eq!(
        vidpulse_store::testing::rollup_dump(&db.url).await.unwrap(),
        maintained
    );
    let listed = store.bloggers(a).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].username, "ann");
    // The tag stays the organization's.
    assert_eq!(store.tags(a).await.unwrap(), [tag]);
}

#[rstest]
#[tokio::test]
async fn an_organization_knows_the_creators_it_tracks_tracked_or_whose_videos_it_tracks(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let c = org(&store, Plan::Pro).await;
    let d = org(&store, Plan::Pro).await;
    let creator = profile(Platform::YouTube, "Mira", Some("Mira Cooks"));
    let (_, mira) = follow_job(&store, a, creator.clone(), vec![yt(1)]).await;
    let known = Some(KnownCreator {
        id: mira.creator_id,
        profile: creator,
    });
    assert_eq!(
        store.known_creator(a, mira.creator_id).await.unwrap(),
        known
    );
    // `b` tracks one of her videos (its author, any case).
    track(&store, b, t0(), vec![yt(1)]).await;
    assert_eq!(
        store.known_creator(b, mira.creator_id).await.unwrap(),
        known
    );
    // `c` tracks another video; `d` had a job for her that failed.
    track(&store, c, t0(), vec![yt(2)]).await;
    let failed = store
        .start_creator_job(&NewCreatorJob {
            organization_id: d,
            api_key_id: None,
            request_id: "req".into(),
            platform: Platform::YouTube,
            username: "mira".into(),
            initial_videos_count: 0,
            now: t0(),
            refetch: false,
            setup: None,
        })
        .await
        .unwrap();
    assert!(matches!(failed, StartJob::Queued(_)));
    let claim = store.claim_creator_job(t0(), LEASE).await.unwrap().unwrap();
    assert!(
        store
            .fail_creator_job(claim.id, claim.lease_token, "X", "x", t0())
            .await
            .unwrap()
    );
    for o in [c, d, OrgId::new()] {
        assert_eq!(store.known_creator(o, mira.creator_id).await.unwrap(), None);
    }
    assert_eq!(store.known_creator(a, Uuid::new_v4()).await.unwrap(), None);
    // Deleted since, with its videos: the succeeded job still knows her.
    store
        .delete_blogger_with_videos(a, mira.tracked_account_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        store.known_creator(a, mira.creator_id).await.unwrap(),
        known
    );
}

#[rstest]
#[tokio::test]
async fn bloggers_are_grouped_into_profiles_and_empty_profiles_go(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let ann = follow(&store, a, "ann", vec![]).await.creator_id;
    let bob = follow(&store, a, "bob", vec![]).await.creator_id;
    let cy = follow_job(&store, a, profile(Platform::YouTube, "cy", None), vec![])
        .await
        .1
        .creator_id;
    let dan = follow(&store, b, "dan", vec![]).await.creator_id;
    let sorted = |mut ids: Vec<Uuid>| {
        ids.sort();
        ids
    };
    let profile_of = |username: &'static str| {
        let store = store.clone();
        async move {
            store
                .bloggers(a)
                .await
                .unwrap()
                .into_iter()
                .find(|s| s.username == username)
                .unwrap()
                .creator_profile
        }
    };
    let t1 = t0() + Duration::hours(1);

    // A new profile named after the first blogger given (display name, else handle).
    let Grouped::Done(p) = store
        .group_bloggers(a, GroupInto::New(None), &[bob, ann], t1)
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(
        (p.name.as_str(), p.blogger_ids.clone(), p.created_at),
        ("bob display", sorted(vec![ann, bob]), t1)
    );
    let p_ref = Some(ProfileRef {
        id: p.id,
        name: "bob display".into(),
    });
    assert_eq!(profile_of("ann").await, p_ref);
    assert_eq!(profile_of("bob").await, p_ref);
    assert_eq!(profile_of("cy").await, None);
    let Grouped::Done(q) = store
        .group_bloggers(a, GroupInto::New(None), &[cy], t1)
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(q.name, "cy");
    let Grouped::Done(named) = store
        .group_bloggers(a, GroupInto::New(Some("Cy studio")), &[cy], t1)
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(named.name, "Cy studio");
    // `q` lost its only blogger and went.
    assert_eq!(
        store
            .group_bloggers(a, GroupInto::Existing(q.id), &[cy], t1)
            .await
            .unwrap(),
        Grouped::UnknownProfile
    );

    // Merged into an existing profile: it keeps its name and time.
    let t2 = t0() + Duration::hours(2);
    assert_eq!(
        store
            .group_bloggers(a, GroupInto::Existing(p.id), &[cy], t2)
            .await
            .unwrap(),
        Grouped::Done(CreatorGroup {
            id: p.id,
            name: "bob display".into(),
            blogger_ids: sorted(vec![ann, bob, cy]),
            created_at: t1,
        })
    );
    assert_eq!(
        store
            .group_bloggers(a, GroupInto::Existing(named.id), &[ann], t2)
            .await
            .unwrap(),
        Grouped::UnknownProfile,
        "emptied by the merge"
    );
    assert_eq!(profile_of("ann").await, p_ref, "nothing written");

    // Another organization's creators or profiles: unknown, nothing written.
    let unknown = Uuid::new_v4();
    assert_eq!(
        store
            .group_bloggers(a, GroupInto::New(Some("X")), &[ann, dan, unknown], t2)
            .await
            .unwrap(),
        Grouped::UnknownBloggers(vec![dan, unknown])
    );
    assert_eq!(profile_of("ann").await, p_ref);
    let Grouped::Done(theirs) = store
        .group_bloggers(b, GroupInto::New(Some("Theirs")), &[dan], t2)
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(
        store
            .group_bloggers(a, GroupInto::Existing(theirs.id), &[ann], t2)
            .await
            .unwrap(),
        Grouped::UnknownProfile
    );
    assert_eq!(
        store
            .group_bloggers(b, GroupInto::Existing(p.id), &[dan], t2)
            .await
            .unwrap(),
        Grouped::UnknownProfile
    );
    assert_eq!(profile_of("cy").await, p_ref);

    // Deleting bloggers drops the profile they leave empty.
    let tracking = |username: &'static str| {
        let store = store.clone();
        async move {
            store
                .tracked_account_by_username(a, None, &handle(username))
                .await
                .unwrap()
                .unwrap()
                .tracked_account_id
        }
    };
    for who in ["ann", "bob"] {
        assert!(store.delete_blogger(a, tracking(who).await).await.unwrap());
    }
    assert_eq!(profile_of("cy").await, p_ref, "cy is still in it");
    store
        .delete_blogger_with_videos(a, tracking("cy").await)
        .await
        .unwrap()
        .unwrap();
    let eve = follow(&store, a, "eve", vec![]).await.creator_id;
    assert_eq!(
        store
            .group_bloggers(a, GroupInto::Existing(p.id), &[eve], t2)
            .await
            .unwrap(),
        Grouped::UnknownProfile
    );
}

#[rstest]
#[tokio::test]
async fn a_bloggers_settings_change_together_or_not_at_all(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use vidpulse_domain::names::TagName;
    use vidpulse_store::{AccountChange, BloggerChanges};

    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let mira = follow(&store, a, "mira", vec![yt(1)])
        .await
        .tracked_account_id;
    let (existing, _) = store.create_tag(a, "Summer", t0()).await.unwrap();
    let names =
        |raw: &[&str]| -> Vec<TagName> { raw.iter().map(|n| TagName::parse(n).unwrap()).collect() };
    let changes = BloggerChanges {
        is_active: Some(false),
        campaign: Some(Some(crate::campaign("Launch"))),
        daily_videos_count: Some(Some(2)),
        budget_per_video: Some(Some(400)),
        tags: Some(names(&["summer", "New one"])),
    };
    // Another organization's blogger, or none: nothing written, nothing made.
    for (o, id) in [(b, mira), (a, Uuid::new_v4())] {
        assert_eq!(
            store.update_blogger(o, id, &changes, t0()).await.unwrap(),
            AccountChange::NotFound
        );
    }
    assert_eq!(
        store.tags(a).await.unwrap(),
        std::slice::from_ref(&existing)
    );
    assert!(store.tags(b).await.unwrap().is_empty());

    assert_eq!(
        store.update_blogger(a, mira, &changes, t0()).await.unwrap(),
        AccountChange::Done
    );
    let row = &store.bloggers(a).await.unwrap()[0];
    assert!(!row.is_active);
    assert_eq!(row.campaign.as_deref(), Some("Launch"));
    assert_eq!(row.daily_videos_count, Some(2));
    assert_eq!(row.budget_per_video, Some(400));
    let tag_names: Vec<&str> = row.tags.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        tag_names,
        ["New one", "Summer"],
        "matched in any case, created when new"
    );
    assert_eq!(video_tags(&store, a, 1).await, ["New one", "Summer"]);
    let by_account = store.blogger_tags(a, &[mira]).await.unwrap();
    assert_eq!(by_account[&mira], row.tags);
    assert!(store.blogger_tags(b, &[mira]).await.unwrap().is_empty());
    let account = store.tracked_account(a, mira).await.unwrap().unwrap();
    assert_eq!(account.budget_per_video, Some(400));
    assert!(store.tracked_account(b, mira).await.unwrap().is_none());

    // Only what is named changes; `Some(None)` clears.
    let clear = BloggerChanges {
        campaign: Some(None),
        daily_videos_count: Some(None),
        tags: Some(vec![]),
        ..BloggerChanges::default()
    };
    assert_eq!(
        store.update_blogger(a, mira, &clear, t0()).await.unwrap(),
        AccountChange::Done
    );
    let row = &store.bloggers(a).await.unwrap()[0];
    assert!(!row.is_active, "left as it was");
    assert_eq!(row.budget_per_video, Some(400), "left as it was");
    assert_eq!((row.campaign.clone(), row.daily_videos_count), (None, None));
    assert!(row.tags.is_empty() && video_tags(&store, a, 1).await.is_empty());
}
