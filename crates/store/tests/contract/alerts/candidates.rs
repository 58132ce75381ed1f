//! The reads a rule's evaluation makes, over what the organization sees:
//! its videos read (or gone) since an instant, of a campaign when asked;
//! a creator's videos; a video's views at or before an instant and its
//! first; its tracked creators' followers. Another organization's videos,
//! imports and creators never appear.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use uuid::Uuid;
use vidpulse_domain::{CampaignId, Counters, OrgId, Plan, Platform, VideoRef};
use vidpulse_store::alerts::AlertVideo;
use vidpulse_store::{
    Backend, CampaignChanges, CreatorProfile, CreatorVideos, DiscoveryResult, DueVideo, ImportRow,
    JobSuccess, NewCreatorJob, RefreshOutcome, RefreshWrite, StartJob, Store, VideoMeta,
};

use super::{at, new_campaign};
use crate::{batch, campaign, handle, org, store, yt};

/// A platform reading of `views` (none: no views) by `author`.
fn seen(views: Option<i64>, author: &str) -> RefreshOutcome {
    RefreshOutcome::Observed {
        counters: Counters {
            views,
            likes: Some(1),
            ..Counters::default()
        },
        meta: VideoMeta {
            title: Some(format!("{author}'s video")),
            author_username: Some(author.into()),
            published_at: Some(at(1, 0, 0)),
            ..VideoMeta::default()
        },
        source: vidpulse_domain::ObservationSource::Simulated,
    }
}

/// Claims what is due at `now` and saves what `read` says of each (next
/// due at `next`); the videos it says nothing of stay claimed. The claimed.
async fn refresh(
    store: &Arc<dyn Store>,
    now: DateTime<Utc>,
    next: DateTime<Utc>,
    read: impl Fn(&DueVideo) -> Option<RefreshOutcome>,
) -> Vec<DueVideo> {
    let due = store
        .claim_due_videos(now, 1000, Duration::minutes(5))
        .await
        .unwrap();
    let writes: Vec<RefreshWrite> = due
        .iter()
        .filter_map(|d| {
            Some(RefreshWrite {
                video_id: d.id,
                lease_token: d.lease_token,
                read_at: now,
                outcome: read(d)?,
                next_refresh_at: Some(next),
            })
        })
        .collect();
    store.save_refreshes(&writes).await.unwrap();
    due
}

/// `org`'s import of one reading of `video` at `when`.
async fn import(
    store: &Arc<dyn Store>,
    org: OrgId,
    video: &VideoRef,
    when: DateTime<Utc>,
    views: i64,
) {
    let row = ImportRow {
        platform: video.platform,
        external_id: video.external_id.clone(),
        captured_at: when,
        counters: Counters {
            views: Some(views),
            ..Counters::default()
        },
        url: None,
        channel_username: Some("imported".into()),
        title: Some("Imported title".into()),
        published_at: Some(at(1, 12, 0)),
    };
    store
        .import_observations(org, &[row], Duration::days(30), when)
        .await
        .unwrap();
}

/// Tracks `batch` and gives the organization's id of its first video.
async fn tracked(store: &Arc<dyn Store>, batch: vidpulse_store::TrackBatch) -> Uuid {
    match store.track_videos(batch).await.unwrap() {
        vidpulse_store::TrackOutcome::Tracked(v) => v[0].video_id.0,
        other => panic!("expected tracked, got {other:?}"),
    }
}

fn sorted(mut ids: Vec<Uuid>) -> Vec<Uuid> {
    ids.sort();
    ids
}

fn ids(videos: &[AlertVideo]) -> Vec<Uuid> {
    sorted(videos.iter().map(|v| v.video_id).collect())
}

#[rstest]
#[tokio::test]
async fn the_candidates_are_the_videos_read_or_gone_since(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    let summer = new_campaign(&store, acme, "Summer").await;
    let foreign = new_campaign(&store, other, "Summer").await;
    let start = at(2, 0, 0);
    let in_campaign = |org, name: &str| {
        let mut b = batch(org, start, vec![yt(1)]);
        b.campaign = Some(name.to_owned());
        b
    };
    let v1 = tracked(&store, in_campaign(acme, "Summer")).await;
    let v2 = tracked(&store, batch(acme, start, vec![yt(2)])).await;
    tracked(&store, in_campaign(other, "Summer")).await;
    tracked(&store, batch(other, start, vec![yt(3), yt(4)])).await;
    let due = refresh(&store, at(2, 1, 0), at(2, 3, 0), |_| {
        Some(seen(Some(100), "mira"))
    })
    .await;
    let catalog = |v: &VideoRef| {
        due.iter()
            .find(|d| d.external_id == v.external_id)
            .unwrap()
            .id
    };
    // acme starts tracking yt(4) after its read: none of its readings yet.
    let v4 = tracked(&store, batch(acme, at(2, 2, 0), vec![yt(4)])).await;
    let candidates = |who: OrgId, campaign: Option<CampaignId>, since: DateTime<Utc>| {
        let store = store.clone();
        async move {
            store
                .alert_videos(who, campaign.map(|c| c.0), since)
                .await
                .unwrap()
        }
    };

    let read = candidates(acme, None, at(2, 0, 0)).await;
    assert_eq!(ids(&read), sorted(vec![v1, v2]), "acme's own, read since");
    assert_eq!(
        read.iter().find(|v| v.video_id == v1).unwrap(),
        &AlertVideo {
            video_id: v1,
            catalog_id: catalog(&yt(1)),
            platform: "youtube".into(),
            title: Some("mira's video".into()),
            author: Some("mira".into()),
            url: yt(1).canonical_url,
            published_at: Some(at(1, 0, 0)),
            tracking_started_at: start,
            gone_at: None,
        }
    );
    assert_eq!(
        ids(&candidates(acme, Some(summer), at(2, 0, 0)).await),
        [v1]
    );
    assert!(
        candidates(acme, Some(foreign), at(2, 0, 0))
            .await
            .is_empty()
    );
    assert!(
        candidates(acme, None, at(2, 1, 0)).await.is_empty(),
        "after, not at"
    );

    // At 03:00 yt(2) is reported gone and the others are read.
    refresh(&store, at(2, 3, 0), at(2, 5, 0), |d| {
        Some(if d.external_id == yt(2).external_id {
            RefreshOutcome::Gone {
                reason: "private".into(),
            }
        } else {
            seen(Some(200), "mira")
        })
    })
    .await;
    let read = candidates(acme, None, at(2, 2, 0)).await;
    assert_eq!(ids(&read), sorted(vec![v1, v2, v4]));
    let gone = read.iter().find(|v| v.video_id == v2).unwrap();
    assert_eq!(gone.gone_at, Some(at(2, 3, 0)));
    let late = read.iter().find(|v| v.video_id == v4).unwrap();
    assert_eq!(late.tracking_started_at, at(2, 2, 0));
    assert!(candidates(acme, None, at(2, 3, 0)).await.is_empty());
    // A renamed campaign is still the rule's.
    let rename = CampaignChanges {
        name: Some(campaign("Winter")),
        ..CampaignChanges::default()
    };
    store
        .update_campaign(acme, summer, rename, at(2, 4, 0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        ids(&candidates(acme, Some(summer), at(2, 2, 0)).await),
        [v1]
    );

    // An import is a reading of its importer alone.
    import(&store, acme, &yt(5), at(2, 4, 0), 50).await;
    import(&store, other, &yt(1), at(2, 4, 30), 70).await;
    let imported = candidates(acme, None, at(2, 3, 30)).await;
    assert_eq!(imported.len(), 1);
    assert_eq!(imported[0].url, yt(5).canonical_url);
    assert!(![v1, v2, v4].contains(&imported[0].video_id));
    let theirs = candidates(other, None, at(2, 4, 0)).await;
    assert_eq!(theirs.len(), 1);
    assert_eq!(theirs[0].catalog_id, catalog(&yt(1)));
    assert_ne!(theirs[0].video_id, v1);
}

#[rstest]
#[tokio::test]
async fn views_are_those_the_organization_sees(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    tracked(&store, batch(other, at(2, 0, 0), vec![yt(1)])).await;
    refresh(&store, at(2, 1, 0), at(2, 3, 0), |_| {
        Some(seen(Some(100), "mira"))
    })
    .await;
    tracked(&store, batch(acme, at(2, 2, 0), vec![yt(1)])).await;
    refresh(&store, at(2, 3, 0), at(2, 5, 0), |_| {
        Some(seen(Some(300), "mira"))
    })
    .await;
    refresh(&store, at(2, 5, 0), at(2, 6, 0), |_| {
        Some(seen(Some(500), "mira"))
    })
    .await;
    refresh(&store, at(2, 6, 0), at(3, 0, 0), |_| {
        Some(seen(None, "mira"))
    })
    .await;
    // Their own imports: acme's between and at the platform's readings.
    import(&store, other, &yt(1), at(2, 4, 0), 9999).await;
    import(&store, acme, &yt(1), at(2, 4, 0), 400).await;
    import(&store, acme, &yt(1), at(2, 5, 0), 450).await;

    let video = |who: OrgId| {
        let store = store.clone();
        async move {
            let mut v = store.alert_videos(who, None, at(2, 0, 0)).await.unwrap();
            assert_eq!(v.len(), 1);
            v.remove(0)
        }
    };
    let (mine, theirs) = (video(acme).await, video(other).await);
    assert_eq!(mine.tracking_started_at, at(2, 2, 0));
    // The platform's title and publication come first, as in the record.
    assert_eq!(mine.title.as_deref(), Some("mira's video"));
    assert_eq!(mine.published_at, Some(at(1, 0, 0)));
    let before = |who: OrgId, v: &AlertVideo, when: DateTime<Utc>| {
        let (store, v) = (store.clone(), v.clone());
        async move { store.alert_views_before(who, &v, when).await.unwrap() }
    };
    assert_eq!(
        before(acme, &mine, at(2, 2, 59)).await,
        None,
        "read before acme tracked"
    );
    assert_eq!(
        before(acme, &mine, at(2, 3, 0)).await,
        Some((at(2, 3, 0), 300))
    );
    assert_eq!(
        before(acme, &mine, at(2, 4, 30)).await,
        Some((at(2, 4, 0), 400))
    );
    assert_eq!(
        before(acme, &mine, at(2, 5, 0)).await,
        Some((at(2, 5, 0), 500)),
        "the platform's reading of an instant first"
    );
    assert_eq!(
        before(acme, &mine, at(9, 0, 0)).await,
        Some((at(2, 5, 0), 500)),
        "a reading without views is none"
    );
    assert_eq!(
        store.alert_first_views(acme, &mine).await.unwrap(),
        Some((at(2, 3, 0), 300))
    );
    assert_eq!(
        before(other, &theirs, at(2, 2, 0)).await,
        Some((at(2, 1, 0), 100))
    );
    assert_eq!(
        before(other, &theirs, at(2, 4, 30)).await,
        Some((at(2, 4, 0), 9999))
    );
    assert_eq!(
        before(other, &theirs, at(2, 5, 0)).await,
        Some((at(2, 5, 0), 500))
    );
    assert_eq!(
        store.alert_first_views(other, &theirs).await.unwrap(),
        Some((at(2, 1, 0), 100))
    );
}

#[rstest]
#[tokio::test]
async fn a_creators_videos_are_the_organizations_of_that_handle(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    let tiktok = VideoRef {
        platform: Platform::TikTok,
        external_id: "7300000000000000001".into(),
        canonical_url: "https://www.tiktok.com/@Mira/video/7300000000000000001".into(),
    };
    let start = at(2, 0, 0);
    let v1 = tracked(&store, batch(acme, start, vec![yt(1)])).await;
    let v2 = tracked(&store, batch(acme, start, vec![yt(2)])).await;
    tracked(&store, batch(acme, start, vec![yt(3)])).await;
    tracked(&store, batch(other, start, vec![yt(1), yt(4)])).await;
    let authors = [(1, "Mira"), (2, "mira"), (3, "ana"), (4, "mira")];
    refresh(&store, at(2, 1, 0), at(3, 0, 0), |d| {
        let (_, author) = authors
            .iter()
            .find(|(n, _)| yt(*n).external_id == d.external_id)?;
        Some(seen(Some(100), author))
    })
    .await;
    // Known by the handle in its address alone, and never read.
    let clip = tracked(&store, batch(acme, at(2, 2, 0), vec![tiktok])).await;

    let of = |platform: &'static str, author: &'static str| {
        let store = store.clone();
        async move {
            store
                .alert_creator_videos(acme, platform, author)
                .await
                .unwrap()
        }
    };
    assert_eq!(ids(&of("youtube", "MIRA").await), sorted(vec![v1, v2]));
    assert_eq!(ids(&of("youtube", "ana").await).len(), 1);
    assert!(of("youtube", "bob").await.is_empty());
    let clips = of("tiktok", "mira").await;
    assert_eq!(ids(&clips), [clip]);
    assert_eq!(clips[0].author.as_deref(), Some("Mira"));
    assert_eq!(
        store
            .alert_views_before(acme, &clips[0], at(9, 0, 0))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store.alert_first_views(acme, &clips[0]).await.unwrap(),
        None
    );
    let theirs = store
        .alert_creator_videos(other, "youtube", "mira")
        .await
        .unwrap();
    assert_eq!(theirs.len(), 2);
    assert!(theirs.iter().all(|v| v.video_id != v1));
}

/// `username`'s YouTube account tracked by `org` at `now` with `followers`.
async fn track_creator(
    store: &Arc<dyn Store>,
    org: OrgId,
    username: &str,
    followers: i64,
    now: DateTime<Utc>,
) -> Uuid {
    let profile = CreatorProfile {
        platform: Platform::YouTube,
        channel_id: format!("ch-{username}"),
        username: username.into(),
        display_name: None,
        avatar_url: None,
        follower_count: Some(followers),
    };
    let job = NewCreatorJob {
        organization_id: org,
        api_key_id: None,
        request_id: "req".into(),
        platform: Platform::YouTube,
        username: username.into(),
        initial_videos_count: 1,
        now,
        refetch: false,
        setup: None,
    };
    assert!(matches!(
        store.start_creator_job(&job).await.unwrap(),
        StartJob::Queued(_)
    ));
    let claimed = store
        .claim_creator_job(now, Duration::minutes(5))
        .await
        .unwrap()
        .unwrap();
    store
        .finish_creator_job(&JobSuccess {
            job_id: claimed.id,
            lease_token: claimed.lease_token,
            profile,
            backfill: CreatorVideos {
                videos: Vec::new(),
                window: Duration::days(30),
                credits_per_video: 30,
            },
            now,
            next_discovery_at: now + Duration::hours(1),
        })
        .await
        .unwrap()
        .unwrap()
        .tracked_account_id
}

/// Every discovery due at `now`, each reading what `followers` says of its handle.
async fn discover(
    store: &Arc<dyn Store>,
    now: DateTime<Utc>,
    followers: impl Fn(&str) -> Option<i64>,
) {
    for d in store
        .claim_due_discoveries(now, 100, Duration::minutes(5))
        .await
        .unwrap()
    {
        let mut read = d.profile.clone();
        read.follower_count = followers(&d.profile.username);
        store
            .finish_discovery(&DiscoveryResult {
                tracked_account_id: d.tracked_account_id,
                lease_token: d.lease_token,
                profile: Some(read),
                new_videos: CreatorVideos {
                    videos: Vec::new(),
                    window: Duration::days(30),
                    credits_per_video: 30,
                },
                now,
                next_discovery_at: now + Duration::hours(1),
                note: None,
            })
            .await
            .unwrap();
    }
}

#[rstest]
#[tokio::test]
async fn creators_are_those_whose_followers_were_read_since(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    let summer = new_campaign(&store, acme, "Summer").await;
    let foreign = new_campaign(&store, other, "Summer").await;
    track_creator(&store, acme, "mira", 900, at(2, 9, 0)).await;
    let ana = track_creator(&store, acme, "ana", 5000, at(2, 9, 0)).await;
    track_creator(&store, other, "mira", 900, at(2, 9, 0)).await;
    track_creator(&store, other, "bob", 100, at(2, 9, 0)).await;
    discover(&store, at(3, 10, 0), |who| {
        Some(match who {
            "mira" => 1100,
            "ana" => 5200,
            _ => 150,
        })
    })
    .await;
    discover(&store, at(4, 10, 0), |who| (who == "mira").then_some(1500)).await;
    assert!(
        store
            .set_blogger_campaign(acme, ana, Some("summer"), at(4, 11, 0))
            .await
            .unwrap()
    );
    let creator = |who: OrgId, name: &'static str| {
        let store = store.clone();
        async move {
            store
                .tracked_account_by_username(who, Some(Platform::YouTube), &handle(name))
                .await
                .unwrap()
                .unwrap()
                .creator_id
        }
    };
    let (mira, ana) = (creator(acme, "mira").await, creator(acme, "ana").await);
    let bob = creator(other, "bob").await;
    let read = |who: OrgId, campaign: Option<CampaignId>, since: DateTime<Utc>| {
        let store = store.clone();
        async move {
            let mut found: Vec<_> = store
                .alert_creators(who, campaign.map(|c| c.0), since)
                .await
                .unwrap()
                .into_iter()
                .map(|c| {
                    assert_eq!(c.platform, "youtube");
                    (
                        c.creator_id,
                        c.username,
                        c.base_followers,
                        c.latest_followers,
                        c.latest_at,
                    )
                })
                .collect();
            found.sort_by(|a, b| a.1.cmp(&b.1));
            found
        }
    };
    let row = |id, name: &str, base, latest, when| (id, name.to_owned(), Some(base), latest, when);

    // Based on the last count read by `since`, latest read after it.
    assert_eq!(
        read(acme, None, at(3, 0, 0)).await,
        [
            row(ana, "ana", 5000, 5200, at(3, 10, 0)),
            row(mira, "mira", 900, 1500, at(4, 10, 0)),
        ]
    );
    assert_eq!(
        read(acme, None, at(3, 12, 0)).await,
        [row(mira, "mira", 1100, 1500, at(4, 10, 0))],
        "ana's last count was read before"
    );
    assert_eq!(
        read(acme, None, at(1, 0, 0)).await[1],
        row(mira, "mira", 900, 1500, at(4, 10, 0)),
        "else the first count"
    );
    assert!(read(acme, None, at(4, 10, 0)).await.is_empty());
    assert_eq!(
        read(acme, Some(summer), at(3, 0, 0)).await,
        [row(ana, "ana", 5000, 5200, at(3, 10, 0))]
    );
    assert!(read(acme, Some(foreign), at(3, 0, 0)).await.is_empty());
    assert_eq!(
        read(other, None, at(3, 0, 0)).await,
        [
            row(bob, "bob", 100, 150, at(3, 10, 0)),
            row(mira, "mira", 900, 1500, at(4, 10, 0)),
        ],
        "a creator's counts are shared; its tracking is not"
    );
}
