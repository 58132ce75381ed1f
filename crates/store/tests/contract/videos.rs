use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use serde_json::json;
use vidpulse_domain::patch::{VideoPatch, VideoStatus, WorkflowStatus};
use vidpulse_domain::{OrgId, Plan, Platform, VideoId, VideoRef};
use vidpulse_store::testing::{delete_tracked_videos, forget_quota_counts, quota_counts};
use vidpulse_store::{
    Backend, ListQuery, SortKey, SortOrder, Store, StoreConfig, TrackOutcome, VideoLookup,
    VideoState,
};

use crate::{batch, campaign, org, store, t0, track, yt};

fn list(limit: i64, offset: i64) -> ListQuery {
    ListQuery {
        sort: SortKey::CreatedAt,
        order: SortOrder::Asc,
        limit,
        offset,
        ..ListQuery::all(t0().date_naive())
    }
}

#[rstest]
#[tokio::test]
async fn tracking_is_once_per_organization_and_video(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;

    let first = track(&store, a, t0(), vec![yt(1), yt(2), yt(1)]).await;
    assert_eq!(
        first.iter().map(|t| t.newly_tracked).collect::<Vec<_>>(),
        [true, true, false]
    );
    assert_eq!(first[0].video_id, first[2].video_id);

    let again = track(&store, a, t0() + Duration::minutes(1), vec![yt(2), yt(3)]).await;
    assert_eq!(
        again[0],
        vidpulse_store::TrackedVideo {
            video_id: first[1].video_id,
            newly_tracked: false,
            credits: 0,
        }
    );
    assert!(again[1].newly_tracked);
    assert_eq!(
        again[1].credits, 30,
        "the ledger's charge, as the answer reports it"
    );

    // Another organization tracking the same video gets its own record.
    let other = track(&store, b, t0(), vec![yt(1)]).await;
    assert!(other[0].newly_tracked);
    assert_ne!(other[0].video_id, first[0].video_id);

    // Three new videos for a, one for b: 30 credits each, in the ledger.
    let usage = store.usage_history(a, t0().date_naive()).await.unwrap();
    assert_eq!(usage[0].credits_used, 90);
    let usage = store.usage_history(b, t0().date_naive()).await.unwrap();
    assert_eq!(usage[0].credits_used, 30);
}

#[rstest]
#[tokio::test]
async fn a_request_over_quota_writes_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Free).await;
    store.set_plan(a, Plan::Free, Some(3), None).await.unwrap();
    track(&store, a, t0(), vec![yt(1), yt(2)]).await;

    let outcome = store
        .track_videos(batch(a, t0(), vec![yt(2), yt(3), yt(4)]))
        .await
        .unwrap();
    assert_eq!(
        outcome,
        TrackOutcome::QuotaExceeded {
            plan: Plan::Free,
            quota: 3,
            in_use: 2,
            requested: 2
        }
    );
    let page = store.list_videos(a, &list(100, 0), t0()).await.unwrap();
    assert_eq!(page.total, 2);
    assert_eq!(
        store.usage_history(a, t0().date_naive()).await.unwrap()[0].credits_used,
        60
    );

    // Already-tracked videos cost no quota; the last free slot still works.
    track(&store, a, t0(), vec![yt(1), yt(2), yt(3)]).await;
    // Videos whose window has ended free their slot.
    let later = t0() + Duration::days(31);
    let t = track(&store, a, later, vec![yt(7), yt(8), yt(9)]).await;
    assert!(t.iter().all(|v| v.newly_tracked));
}

#[rstest]
#[tokio::test]
async fn concurrent_requests_track_a_video_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.track_videos(batch(a, t0(), vec![yt(42)])).await })
        })
        .collect();
    let mut newly = 0;
    for t in tasks {
        if let TrackOutcome::Tracked(v) = t.await.unwrap().unwrap() {
            newly += v.iter().filter(|v| v.newly_tracked).count();
        }
    }
    assert_eq!(newly, 1);
    assert_eq!(
        store
            .list_videos(a, &list(10, 0), t0())
            .await
            .unwrap()
            .total,
        1
    );
    assert_eq!(
        store.usage_history(a, t0().date_naive()).await.unwrap()[0].credits_used,
        30
    );
}

#[rstest]
#[tokio::test]
async fn reading_is_scoped_to_the_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let t = track(&store, a, t0(), vec![yt(1)]).await;
    let id = t[0].video_id;

    let rec = store
        .video(a, &VideoLookup::Id(id), t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(rec.external_id, "vid00000001");
    assert_eq!(rec.platform, Platform::YouTube);
    assert_eq!(rec.url, "https://www.youtube.com/watch?v=vid00000001");
    assert_eq!(rec.state, VideoState::Active);
    assert_eq!(
        (rec.video_status, rec.workflow_status),
        (VideoStatus::Tracking, WorkflowStatus::ToDo)
    );
    assert!(rec.history.is_empty() && rec.latest.views.is_none() && rec.tags.is_empty());
    assert_eq!(rec.tracking_ends_at, t0() + Duration::days(30));

    let by_ext = VideoLookup::ExternalId("vid00000001".into());
    assert_eq!(
        store
            .video(a, &by_ext, t0())
            .await
            .unwrap()
            .unwrap()
            .video_id,
        id
    );
    assert!(
        store
            .video(b, &VideoLookup::Id(id), t0())
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.video(b, &by_ext, t0()).await.unwrap().is_none());
    assert!(
        store
            .video(a, &VideoLookup::Id(VideoId::new()), t0())
            .await
            .unwrap()
            .is_none()
    );

    // After the window the video shows as completed.
    let later = t0() + Duration::days(30);
    assert_eq!(
        store
            .video(a, &VideoLookup::Id(id), later)
            .await
            .unwrap()
            .unwrap()
            .state,
        VideoState::Completed
    );
}

#[rstest]
#[tokio::test]
async fn listing_filters_sorts_and_pages(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let tiktok = VideoRef {
        platform: Platform::TikTok,
        external_id: "7300000000000000001".into(),
        canonical_url: "https://www.tiktok.com/@/video/7300000000000000001".into(),
    };
    for i in 0..5 {
        track(&store, a, t0() + Duration::minutes(i), vec![yt(i as u32)]).await;
    }
    track(&store, a, t0() + Duration::minutes(10), vec![tiktok]).await;

    let page = store.list_videos(a, &list(2, 0), t0()).await.unwrap();
    assert_eq!(page.total, 6);
    assert_eq!(
        page.items
            .iter()
            .map(|v| v.external_id.as_str())
            .collect::<Vec<_>>(),
        ["vid00000000", "vid00000001"]
    );
    let page = store.list_videos(a, &list(2, 5), t0()).await.unwrap();
    assert_eq!((page.total, page.items.len()), (6, 1));
    let page = store.list_videos(a, &list(2, 50), t0()).await.unwrap();
    assert_eq!((page.total, page.items.len()), (6, 0));
    // Past its end a filtered listing (its count read beside the page)
    // still counts its videos, whole records and stamps alike.
    let past = ListQuery {
        platform: Some(Platform::YouTube),
        ..list(2, 50)
    };
    let page = store.list_videos(a, &past, t0()).await.unwrap();
    assert_eq!((page.total, page.items.len()), (5, 0));
    let stamps = store.list_stamps(a, &past, t0()).await.unwrap();
    assert_eq!((stamps.total, stamps.items.len()), (5, 0));

    let desc = ListQuery {
        order: SortOrder::Desc,
        ..list(1, 0)
    };
    assert_eq!(
        store.list_videos(a, &desc, t0()).await.unwrap().items[0].platform,
        Platform::TikTok
    );

    let only_tiktok = ListQuery {
        platform: Some(Platform::TikTok),
        ..list(10, 0)
    };
    let page = store.list_videos(a, &only_tiktok, t0()).await.unwrap();
    assert_eq!(
        (page.total, page.items[0].external_id.as_str()),
        (1, "7300000000000000001")
    );

    let completed = ListQuery {
        status: Some(VideoState::Completed),
        ..list(10, 0)
    };
    assert_eq!(
        store.list_videos(a, &completed, t0()).await.unwrap().total,
        0
    );
    let active = ListQuery {
        status: Some(VideoState::Active),
        ..list(10, 0)
    };
    assert_eq!(store.list_videos(a, &active, t0()).await.unwrap().total, 6);
    let failed = ListQuery {
        status: Some(VideoState::Failed),
        ..list(10, 0)
    };
    assert_eq!(store.list_videos(a, &failed, t0()).await.unwrap().total, 0);

    // Sorting by views puts never-read videos last in both directions.
    for order in [SortOrder::Asc, SortOrder::Desc] {
        let q = ListQuery {
            sort: SortKey::Views,
            order,
            ..list(10, 0)
        };
        assert_eq!(store.list_videos(a, &q, t0()).await.unwrap().items.len(), 6);
    }
}

#[rstest]
#[tokio::test]
async fn patching_metadata_and_tags(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let id = track(&store, a, t0(), vec![yt(1)]).await[0].video_id;
    let other = track(&store, a, t0(), vec![yt(2)]).await[0].video_id;

    let patch = VideoPatch::parse(&json!({
        "notes": "call back", "budget": 500, "campaign": "Summer", "video_status": "paused",
        "status": "running", "ecpm": 12.5, "tags": ["Food", "travel"]
    }))
    .unwrap();
    let out = store
        .patch_video(
            a,
            &VideoLookup::ExternalId("vid00000001".into()),
            &patch,
            t0(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(out.video_id, id);
    assert_eq!(
        out.updated_fields,
        [
            "notes",
            "budget",
            "campaign_tag",
            "video_status",
            "status",
            "ecpm"
        ]
    );
    let tags = out.tags.unwrap();
    assert_eq!(
        (tags.attached.clone(), tags.created.clone(), tags.total),
        (
            vec!["Food".into(), "travel".into()],
            vec!["Food".to_string(), "travel".into()],
            2
        )
    );

    let rec = store
        .video(a, &VideoLookup::Id(id), t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(rec.notes.as_deref(), Some("call back"));
    assert_eq!((rec.budget, rec.ecpm), (Some(500), Some(12.5)));
    assert_eq!(rec.campaign.as_deref(), Some("Summer"));
    assert_eq!(
        (rec.video_status, rec.workflow_status),
        (VideoStatus::Paused, WorkflowStatus::Running)
    );
    assert_eq!(rec.tags, ["Food", "travel"]);

    // Tags are additive and matched ignoring case; they are per organization.
    let patch = VideoPatch::parse(&json!({"tags": ["FOOD", "Beach"]})).unwrap();
    let out = store
        .patch_video(
            a,
            &VideoLookup::ExternalId("vid00000001".into()),
            &patch,
            t0(),
        )
        .await
        .unwrap()
        .unwrap();
    let tags = out.tags.unwrap();
    assert_eq!(
        (tags.attached, tags.created, tags.total),
        (
            vec!["Food".into(), "Beach".into()],
            vec!["Beach".to_string()],
            3
        )
    );
    assert!(out.updated_fields.is_empty());
    let out = store
        .patch_video(
            a,
            &VideoLookup::ExternalId("vid00000002".into()),
            &VideoPatch::parse(&json!({"tags": ["beach"]})).unwrap(),
            t0(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(out.video_id, other);
    assert_eq!(out.tags.unwrap().created, Vec::<String>::new());

    // Clearing.
    let patch =
        VideoPatch::parse(&json!({"notes": "", "budget": null, "campaign": "", "ecpm": null}))
            .unwrap();
    store
        .patch_video(
            a,
            &VideoLookup::ExternalId("vid00000001".into()),
            &patch,
            t0(),
        )
        .await
        .unwrap()
        .unwrap();
    let rec = store
        .video(a, &VideoLookup::Id(id), t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (rec.notes, rec.budget, rec.campaign, rec.ecpm),
        (None, None, None, None)
    );
    assert_eq!(rec.video_status, VideoStatus::Paused);

    // Another organization's video is not found.
    let patch = VideoPatch::parse(&json!({"notes": "x"})).unwrap();
    assert!(
        store
            .patch_video(
                b,
                &VideoLookup::ExternalId("vid00000001".into()),
                &patch,
                t0()
            )
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .patch_video(a, &VideoLookup::ExternalId("nope".into()), &patch, t0())
            .await
            .unwrap()
            .is_none()
    );
}

/// The videos `org` has in use at `now`, as a track request over its quota
/// of 6 reports them.
async fn in_use(store: &Arc<dyn Store>, org: OrgId, now: DateTime<Utc>) -> i64 {
    let seven_new = (900..907).map(yt).collect();
    match store
        .track_videos(batch(org, now, seven_new))
        .await
        .unwrap()
    {
        TrackOutcome::QuotaExceeded { in_use, .. } => in_use,
        other => panic!("expected the quota to refuse, got {other:?}"),
    }
}

#[rstest]
#[tokio::test]
async fn the_quota_counts_each_video_until_the_instant_its_window_ends(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    store.set_plan(a, Plan::Pro, Some(6), None).await.unwrap();
    // Windows of 30 days ending on day 30 at 10:00 (3) and 16:00 (2), and
    // on day 31 at 10:00 (1); another organization's videos never count.
    track(&store, a, t0(), vec![yt(1), yt(2), yt(3)]).await;
    track(&store, a, t0() + Duration::hours(6), vec![yt(4), yt(5)]).await;
    track(&store, a, t0() + Duration::days(1), vec![yt(6)]).await;
    track(&store, b, t0(), vec![yt(1), yt(7)]).await;

    let day30 = t0() + Duration::days(30);
    let micro = Duration::microseconds(1);
    for (at, expected) in [
        (t0(), 6),
        (day30 - Duration::hours(10), 6), // midnight starting the last day
        (day30 - micro, 6),
        (day30, 3), // ends_at > now: a window ending now is over
        (day30 + Duration::hours(6) - micro, 3),
        (day30 + Duration::hours(6), 1),
        (day30 + Duration::hours(14), 1), // midnight before day 31
        (day30 + Duration::days(1) - micro, 1),
        (day30 + Duration::days(1), 0),
    ] {
        assert_eq!(in_use(&store, a, at).await, expected, "at {at}");
    }

    // Deleted videos leave the count; the kept counts equal a recount.
    let (kept, recount) = quota_counts(&db.url).await.unwrap();
    assert_eq!(kept, recount);
    assert_eq!(kept.len(), 3, "{kept:?}");
    let b_sql = match backend {
        Backend::Sqlite => format!("organization_id = x'{}'", b.0.simple()),
        Backend::Postgres => format!("organization_id = '{}'", b.0),
    };
    delete_tracked_videos(&db.url, &b_sql).await.unwrap();
    let sixth = track(&store, a, t0() + Duration::days(1), vec![yt(6)]).await;
    let id_sql = match backend {
        Backend::Sqlite => format!("id = x'{}'", sixth[0].video_id.0.simple()),
        Backend::Postgres => format!("id = '{}'", sixth[0].video_id.0),
    };
    delete_tracked_videos(&db.url, &id_sql).await.unwrap();
    assert_eq!(in_use(&store, a, day30 - micro).await, 5);
    assert_eq!(in_use(&store, a, day30 + Duration::hours(3)).await, 2);
    let (kept, recount) = quota_counts(&db.url).await.unwrap();
    assert_eq!(kept, recount);
    assert_eq!(kept.len(), 1, "{kept:?}");
}

#[rstest]
#[tokio::test]
async fn campaign_counts_follow_tracking_edits_and_removal(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    // A creator's videos arrive in a campaign; others without one.
    let mut summer = batch(a, t0(), vec![yt(1), yt(2), yt(3)]);
    summer.campaign = Some("Summer".into());
    store.track_videos(summer).await.unwrap();
    track(&store, a, t0(), vec![yt(4), yt(5)]).await;
    let mut other = batch(b, t0(), vec![yt(1)]);
    other.campaign = Some("Summer".into());
    store.track_videos(other).await.unwrap();

    let total = |org: OrgId, campaign: &'static str| {
        let store = store.clone();
        async move {
            let query = ListQuery {
                campaign: Some(campaign.into()),
                ..list(1, 0)
            };
            let page = store.list_stamps(org, &query, t0()).await.unwrap();
            page.total
        }
    };
    assert_eq!(total(a, "Summer").await, 3);
    assert_eq!(total(b, "Summer").await, 1);
    // Past its end a campaign's page still answers its kept count.
    let past = ListQuery {
        campaign: Some("Summer".into()),
        ..list(1, 10)
    };
    let page = store.list_stamps(a, &past, t0()).await.unwrap();
    assert_eq!((page.total, page.items.len()), (3, 0));

    // One video moves, two more join by a bulk edit, one leaves for none.
    let to = |name: Option<&str>| VideoPatch {
        campaign: Some(name.map(campaign)),
        ..VideoPatch::default()
    };
    let lookup = |n: u32| VideoLookup::ExternalId(yt(n).external_id);
    store
        .patch_video(a, &lookup(1), &to(Some("Winter")), t0())
        .await
        .unwrap()
        .unwrap();
    store
        .patch_videos(a, &[lookup(4), lookup(5)], &to(Some("Summer")), t0())
        .await
        .unwrap()
        .unwrap();
    store
        .patch_video(a, &lookup(2), &to(None), t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(total(a, "Summer").await, 3);
    assert_eq!(total(a, "Winter").await, 1);
    assert_eq!(total(a, "Autumn").await, 0);
    store.untrack_video(a, &lookup(4)).await.unwrap().unwrap();
    assert_eq!(total(a, "Summer").await, 2);
    assert_eq!(total(b, "Summer").await, 1, "another organization's count");

    let (kept, recount) = quota_counts(&db.url).await.unwrap();
    assert_eq!(kept, recount);
    assert_eq!(
        kept.iter().filter(|l| l.starts_with("campaign:")).count(),
        3,
        "{kept:?}"
    );
}

#[rstest]
#[tokio::test]
async fn upgrading_counts_the_videos_already_tracked(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    store.set_plan(a, Plan::Pro, Some(6), None).await.unwrap();
    track(&store, a, t0(), vec![yt(1), yt(2), yt(3)]).await;
    track(&store, a, t0() + Duration::days(2), vec![yt(4)]).await;

    // A database from before the counts: the migration backfills them.
    forget_quota_counts(&db.url).await.unwrap();
    let upgraded = vidpulse_store::open(&StoreConfig::new(db.url.clone()))
        .await
        .unwrap();
    let (kept, recount) = quota_counts(&db.url).await.unwrap();
    assert_eq!(kept, recount);
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(in_use(&upgraded, a, t0() + Duration::days(31)).await, 1);
    assert_eq!(in_use(&upgraded, a, t0() + Duration::days(1)).await, 4);
}

/// A new catalog row starts with the author its URL names; a row another
/// organization created keeps the author it has.
#[rstest]
#[tokio::test]
async fn a_video_starts_with_the_author_its_url_names(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (a, b) = (org(&store, Plan::Pro).await, org(&store, Plan::Pro).await);
    let tiktok = |user: &str| VideoRef {
        platform: Platform::TikTok,
        external_id: "7300000000000000001".into(),
        canonical_url: format!("https://www.tiktok.com/@{user}/video/7300000000000000001"),
    };
    track(&store, a, t0(), vec![tiktok("Mira.Cooks"), yt(1)]).await;
    track(&store, b, t0(), vec![tiktok("someone.else")]).await;
    for o in [a, b] {
        let page = store.list_videos(o, &list(10, 0), t0()).await.unwrap();
        let authors: Vec<(&str, Option<&str>)> = page
            .items
            .iter()
            .map(|v| (v.external_id.as_str(), v.author_username.as_deref()))
            .collect();
        let mut expected = vec![("7300000000000000001", Some("Mira.Cooks"))];
        if o == a {
            expected.push(("vid00000001", None));
        }
        assert_eq!(authors, expected);
    }
}
