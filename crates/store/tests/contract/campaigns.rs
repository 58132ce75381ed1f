//! Campaigns: created and found in any letter case, renamed and deleted
//! with their videos' analytics moved (the maintained rollup equals a
//! rebuild after each write), and the upgrade task that turns the
//! campaign names an organization used into campaigns.

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::patch::VideoPatch;
use vidpulse_domain::{Counters, OrgId, Plan, Platform};
use vidpulse_store::{
    Backend, CampaignChanges, CampaignListQuery, CampaignRecord, CampaignRefusal, ImportRow,
    NewCampaign, Store, VideoLookup,
};

use crate::{campaign, org, store};

fn at(d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, d, h, 0, 0).unwrap()
}

const A: &str = "7000000000000000001";
const B: &str = "yt000000001";
const C: &str = "7000000000000000002";

fn row(p: Platform, id: &str, who: &str, when: DateTime<Utc>, views: i64) -> ImportRow {
    ImportRow {
        platform: p,
        external_id: id.into(),
        captured_at: when,
        counters: Counters {
            views: Some(views),
            likes: Some(views / 10),
            comments: Some(views / 100),
            reposts: None,
            saves: None,
        },
        url: None,
        channel_username: Some(who.into()),
        title: None,
        published_at: Some(at(1, 0)),
    }
}

/// Three videos of `org` with a few days of readings: A (TikTok, "Mira"),
/// B (YouTube, "mira"), C (TikTok, "Ana").
async fn imported(store: &Arc<dyn Store>, org: OrgId) {
    let mut rows = Vec::new();
    for d in 2..=6 {
        let v = 1000 * i64::from(d);
        rows.push(row(Platform::TikTok, A, "Mira", at(d, 6), v));
        rows.push(row(Platform::YouTube, B, "mira", at(d, 12), 10 * v));
        rows.push(row(Platform::TikTok, C, "Ana", at(d, 9), v / 2));
    }
    store
        .import_observations(org, &rows, Duration::days(30), at(8, 0))
        .await
        .unwrap();
}

/// The rollup as the writes left it equals a rebuild from the closes, and
/// the triggers' counts equal a recount.
async fn assert_rollup_kept(db: &vidpulse_store::testing::TestDb, store: &Arc<dyn Store>) {
    let kept = vidpulse_store::testing::rollup_dump(&db.url).await.unwrap();
    store.rebuild_analytics().await.unwrap();
    assert_eq!(
        vidpulse_store::testing::rollup_dump(&db.url).await.unwrap(),
        kept,
        "the maintained rollup equals a rebuild"
    );
    let (counted, recounted) = vidpulse_store::testing::quota_counts(&db.url)
        .await
        .unwrap();
    assert_eq!(counted, recounted);
}

/// The campaign cells of the rollup, as `name` lines.
async fn campaign_cells(db: &vidpulse_store::testing::TestDb) -> Vec<String> {
    let mut names: Vec<String> = vidpulse_store::testing::rollup_dump(&db.url)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|line| {
            let rest = line.strip_prefix("analytics_campaign_days:")?;
            // day:platform:campaign:sums
            Some(rest.splitn(4, ':').nth(2)?.to_owned())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

async fn set_campaign(store: &Arc<dyn Store>, org: OrgId, id: &str, name: Option<&str>) {
    let patch = VideoPatch {
        campaign: Some(name.map(campaign)),
        ..VideoPatch::default()
    };
    store
        .patch_video(org, &VideoLookup::ExternalId(id.into()), &patch, at(8, 0))
        .await
        .unwrap()
        .unwrap();
}

async fn all(store: &Arc<dyn Store>, org: OrgId) -> Vec<CampaignRecord> {
    let query = CampaignListQuery {
        q: None,
        limit: 100,
        offset: 0,
    };
    store.campaigns(org, &query).await.unwrap().0
}

#[rstest]
#[tokio::test]
async fn campaigns_are_one_per_name_in_any_case_and_move_their_videos(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    imported(&store, a).await;

    let new = |name: &str| NewCampaign {
        name: campaign(name),
        client: None,
        starts_on: None,
        ends_on: None,
        budget: None,
        currency: None,
        target_views: None,
        notes: None,
    };
    let summer = store
        .create_campaign(a, new("Summer"), at(8, 0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((summer.currency.as_str(), summer.videos), ("USD", 0));
    assert_eq!(
        store
            .create_campaign(a, new("SUMMER"), at(8, 0))
            .await
            .unwrap(),
        Err(CampaignRefusal::NameTaken)
    );
    // Another organization has its own names.
    assert!(
        store
            .create_campaign(b, new("summer"), at(8, 0))
            .await
            .unwrap()
            .is_ok()
    );
    assert_eq!(store.campaign(b, summer.id).await.unwrap(), None);

    // A video's campaign in any case attaches to the campaign.
    set_campaign(&store, a, A, Some("summer")).await;
    set_campaign(&store, a, B, Some("SUMMER")).await;
    set_campaign(&store, a, C, Some("Autumn")).await;
    let names: Vec<(String, i64, i64)> = all(&store, a)
        .await
        .into_iter()
        .map(|c| (c.name, c.videos, c.creators))
        .collect();
    assert_eq!(
        names,
        [("Autumn".to_owned(), 1, 1), ("Summer".to_owned(), 2, 2)]
    );
    assert_eq!(campaign_cells(&db).await, ["Autumn", "Summer"]);
    assert_rollup_kept(&db, &store).await;

    // A rename moves the videos and their cells; another campaign's name
    // in any case is refused, the campaign's own in another case is not.
    let rename = |name: &str| CampaignChanges {
        name: Some(campaign(name)),
        ..CampaignChanges::default()
    };
    assert_eq!(
        store
            .update_campaign(a, summer.id, rename("autumn"), at(9, 0))
            .await
            .unwrap(),
        Err(CampaignRefusal::NameTaken)
    );
    let renamed = store
        .update_campaign(a, summer.id, rename("SUMMER 26"), at(9, 0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((renamed.name.as_str(), renamed.videos), ("SUMMER 26", 2));
    let renamed = store
        .update_campaign(a, summer.id, rename("Summer 26"), at(9, 0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(renamed.name, "Summer 26");
    assert_eq!(campaign_cells(&db).await, ["Autumn", "Summer 26"]);
    assert_rollup_kept(&db, &store).await;
    // Days out of order, one of them changed, are refused.
    let days = CampaignChanges {
        starts_on: Some(Some(at(10, 0).date_naive())),
        ..CampaignChanges::default()
    };
    store
        .update_campaign(a, summer.id, days, at(9, 0))
        .await
        .unwrap()
        .unwrap();
    let ends = CampaignChanges {
        ends_on: Some(Some(at(9, 0).date_naive())),
        ..CampaignChanges::default()
    };
    assert_eq!(
        store
            .update_campaign(a, summer.id, ends, at(9, 0))
            .await
            .unwrap(),
        Err(CampaignRefusal::EndsBeforeStart)
    );
    // Another organization cannot change or delete it.
    assert_eq!(
        store
            .update_campaign(b, summer.id, rename("Mine"), at(9, 0))
            .await
            .unwrap(),
        Err(CampaignRefusal::NotFound)
    );
    assert!(!store.delete_campaign(b, summer.id, at(9, 0)).await.unwrap());

    // Deleting it clears its videos' campaign; their cells go to none.
    assert!(store.delete_campaign(a, summer.id, at(9, 0)).await.unwrap());
    assert_eq!(store.campaign(a, summer.id).await.unwrap(), None);
    assert_eq!(campaign_cells(&db).await, ["", "Autumn"]);
    assert_rollup_kept(&db, &store).await;
    let names: Vec<String> = all(&store, a).await.into_iter().map(|c| c.name).collect();
    assert_eq!(names, ["Autumn"]);
}

#[rstest]
#[tokio::test]
async fn the_upgrade_makes_one_campaign_per_name_in_any_case(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    imported(&store, a).await;
    imported(&store, b).await;
    // Before campaigns were objects: names written as they came, in two
    // spellings; the rollup kept by those names.
    set_campaign(&store, a, A, Some("Summer")).await;
    set_campaign(&store, a, B, Some("Summer")).await;
    set_campaign(&store, a, C, Some("Summer")).await;
    set_campaign(&store, b, A, Some("Tie")).await;
    vidpulse_store::testing::execute(
        &db.url,
        &[
            "UPDATE tracked_videos SET campaign = 'summer'
             WHERE platform_video_id IN (SELECT id FROM platform_videos WHERE external_id = '7000000000000000002')",
            "UPDATE tracked_videos SET campaign = 'tie'
             WHERE campaign IS NULL AND platform_video_id IN
               (SELECT id FROM platform_videos WHERE external_id = 'yt000000001')",
            "DELETE FROM campaigns",
            "DELETE FROM analytics_campaign_days",
            "INSERT INTO store_tasks (name) VALUES ('adopt_campaigns')",
        ],
    )
    .await
    .unwrap();
    store.run_queued_tasks().await.unwrap();

    // The most used spelling names the campaign; a tie goes to the first
    // in byte order.
    let summary = |c: CampaignRecord| (c.name, c.videos, c.creators, c.currency);
    let of_a: Vec<_> = all(&store, a).await.into_iter().map(summary).collect();
    assert_eq!(of_a, [("Summer".to_owned(), 3, 3, "USD".to_owned())]);
    let of_b: Vec<_> = all(&store, b).await.into_iter().map(summary).collect();
    assert_eq!(of_b, [("Tie".to_owned(), 2, 2, "USD".to_owned())]);
    // Every video carries it, and the analytics were rebuilt under it.
    assert_eq!(campaign_cells(&db).await, ["", "Summer", "Tie"]);
    assert_rollup_kept(&db, &store).await;
    // The task ran once: a later start finds nothing to do.
    store.run_queued_tasks().await.unwrap();
    assert_eq!(all(&store, a).await.len(), 1);
}
