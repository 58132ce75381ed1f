//! The storage contract: one suite, run on both backends. Every test takes
//! `#[values(Backend::Sqlite, Backend::Postgres)]`, so its name says which
//! backend failed. PostgreSQL must be reachable; these tests never skip.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod alerts;
mod analytics;
mod analytics_revisions;
mod bloggers;
mod campaigns;
mod creators;
mod credits;
mod followers;
mod housekeeping;
mod idempotency;
mod invites;
mod listing_indexes;
mod ops;
mod orgs;
mod plans;
mod recaps;
mod record_stamps;
mod records;
mod refresh;
mod sessions;
mod share_links;
mod thumbnails;
mod usage;
mod users;
mod videos;
mod visibility;
mod webhooks;

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use vidpulse_domain::names::{Campaign, Handle};
use vidpulse_domain::{OrgId, Plan, Platform, VideoRef};
use vidpulse_store::testing::TestDb;
use vidpulse_store::{Backend, NewOrganization, Store, TrackBatch, TrackOutcome, TrackedVideo};

/// A fixed instant the tests start from.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 2, 10, 0, 0).unwrap()
}

/// The handle `raw`, checked.
pub fn handle(raw: &str) -> Handle {
    Handle::parse(raw).unwrap()
}

/// The campaign `raw`, checked (not blank).
pub fn campaign(raw: &str) -> Campaign {
    Campaign::parse(raw).unwrap().unwrap()
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

/// Claims what is due at `at` and saves, for each video `read` answers,
/// a reading of those counters and catalog fields, next due at `next`;
/// the videos it passes over stay claimed for their lease.
pub async fn save_reads(
    store: &Arc<dyn Store>,
    at: DateTime<Utc>,
    next: DateTime<Utc>,
    read: impl Fn(
        &vidpulse_store::DueVideo,
    ) -> Option<(vidpulse_domain::Counters, vidpulse_store::VideoMeta)>,
) -> usize {
    let due = store
        .claim_due_videos(at, 1000, Duration::minutes(5))
        .await
        .unwrap();
    let writes: Vec<vidpulse_store::RefreshWrite> = due
        .iter()
        .filter_map(|d| {
            let (counters, meta) = read(d)?;
            Some(vidpulse_store::RefreshWrite {
                video_id: d.id,
                lease_token: d.lease_token,
                read_at: at,
                outcome: vidpulse_store::RefreshOutcome::Observed {
                    counters,
                    meta,
                    source: vidpulse_domain::ObservationSource::Simulated,
                },
                next_refresh_at: Some(next),
            })
        })
        .collect();
    store.save_refreshes(&writes).await.unwrap();
    writes.len()
}
