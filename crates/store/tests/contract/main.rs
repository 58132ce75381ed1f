//! The storage contract: one suite, run on both backends. Every test takes
//! `#[values(Backend::Sqlite, Backend::Postgres)]`, so its name says which
//! backend failed. PostgreSQL must be reachable; these tests never skip.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod analytics;
mod analytics_revisions;
mod bloggers;
mod creators;
mod credits;
mod followers;
mod housekeeping;
mod invites;
mod listing_indexes;
mod ops;
mod orgs;
mod record_stamps;
mod records;
mod refresh;
mod sessions;
mod usage;
mod users;
mod videos;
mod visibility;

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use vidpulse_domain::{OrgId, Plan, Platform, VideoRef};
use vidpulse_store::testing::TestDb;
use vidpulse_store::{Backend, NewOrganization, Store, TrackBatch, TrackOutcome, TrackedVideo};

/// A fixed instant the tests start from.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 2, 10, 0, 0).unwrap()
}

/// A fresh store.
pub async fn store(backend: Backend) -> (TestDb, Arc<dyn Store>) {
    let db = TestDb::new(backend).await.expect("test database");
    let store = db.store.clone();
    (db, store)
}

/// A new organization on `plan`.
pub async fn org(store: &Arc<dyn Store>, plan: Plan) -> OrgId {
    store
        .create_organization(NewOrganization {
            name: "Acme".into(),
            plan,
            owner_email: None,
            owner_subject: None,
            now: t0(),
        })
        .await
        .unwrap()
        .id
}

/// A YouTube video reference with an 11-character id built from `n`.
pub fn yt(n: u32) -> VideoRef {
    let id = format!("vid{n:08}");
    VideoRef {
        platform: Platform::YouTube,
        canonical_url: format!("https://www.youtube.com/watch?v={id}"),
        external_id: id,
    }
}

/// Tracks `videos` for `org` at `now` and expects success.
pub async fn track(
    store: &Arc<dyn Store>,
    org: OrgId,
    now: DateTime<Utc>,
    videos: Vec<VideoRef>,
) -> Vec<TrackedVideo> {
    match store.track_videos(batch(org, now, videos)).await.unwrap() {
        TrackOutcome::Tracked(v) => v,
        other => panic!("expected tracked, got {other:?}"),
    }
}

/// A track batch with the default window and price.
pub fn batch(org: OrgId, now: DateTime<Utc>, videos: Vec<VideoRef>) -> TrackBatch {
    TrackBatch {
        organization_id: org,
        api_key_id: None,
        request_id: "req-test".into(),
        now,
        window: Duration::days(30),
        credits_per_video: 30,
        videos,
        campaign: None,
        budget: None,
        account: None,
    }
}
