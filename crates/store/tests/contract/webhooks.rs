//! Webhooks in the store: events are written with their cause (and only
//! when someone subscribes), milestones are told once each, and the
//! delivery queue holds each delivery under one claim at a time.

use chrono::Duration;
use rstest::rstest;
use serde_json::Value;
use vidpulse_domain::webhooks::EventType;
use vidpulse_domain::{Counters, Plan};
use vidpulse_store::{
    Attempt, Backend, DeliveryStatus, NewEndpoint, Store, TrackOutcome, VideoMeta,
};

use crate::{batch, org, save_reads, store, t0, track, yt};

fn hook(events: &[EventType]) -> NewEndpoint {
    NewEndpoint {
        url: "https://hooks.example.com/x".into(),
        description: None,
        events: events.to_vec(),
        secret: "whsec_c2VjcmV0".into(),
    }
}

fn views(n: i64) -> (Counters, VideoMeta) {
    (
        Counters {
            views: Some(n),
            ..Counters::default()
        },
        VideoMeta::default(),
    )
}

/// The bodies of every delivery due at `at`, claimed and delivered.
async fn deliver(
    store: &std::sync::Arc<dyn Store>,
    at: chrono::DateTime<chrono::Utc>,
) -> Vec<Value> {
    let due = store
        .claim_deliveries(at, 1000, Duration::minutes(1))
        .await
        .unwrap();
    let mut bodies = Vec::new();
    for d in &due {
        let attempt = Attempt {
            at,
            status_code: Some(200),
            error: None,
            latency_ms: 3,
            retry_at: None,
        };
        assert!(
            store
                .finish_delivery(d, &attempt, Duration::days(5))
                .await
                .unwrap()
        );
        bodies.push(serde_json::from_str(&d.body).unwrap());
    }
    bodies
}

#[rstest]
#[tokio::test]
async fn milestones_are_told_once_each_to_those_who_subscribe(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let watcher = org(&store, Plan::Pro).await;
    let bystander = org(&store, Plan::Pro).await;
    store
        .create_endpoint(watcher, &hook(&[EventType::VideoMilestone]), t0())
        .await
        .unwrap()
        .unwrap();
    let mine = track(&store, watcher, t0(), vec![yt(1)]).await;
    track(&store, bystander, t0(), vec![yt(1)]).await;

    let mut at = t0();
    let mut told = Vec::new();
    for n in [900, 999, 1_000, 5_000, 250_000, 240_000, 2_000_000] {
        save_reads(&store, at, at + Duration::minutes(15), |_| Some(views(n))).await;
        told.extend(deliver(&store, at).await);
        at += Duration::minutes(15);
    }
    let milestones: Vec<i64> = told
        .iter()
        .map(|b| b["data"]["milestone"].as_i64().unwrap())
        .collect();
    assert_eq!(milestones, [1_000, 10_000, 100_000, 1_000_000]);
    assert!(told.iter().all(|b| b["type"] == "video.milestone"
        && b["data"]["video_id"] == mine[0].video_id.0.to_string()));
    assert_eq!(told[3]["data"]["views"], 2_000_000);
}

#[rstest]
#[tokio::test]
async fn an_event_exists_only_with_its_cause(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Free).await;
    let quiet = org(&store, Plan::Free).await;
    store
        .create_endpoint(acme, &hook(&[EventType::VideoTracked]), t0())
        .await
        .unwrap()
        .unwrap();
    // A track the quota refuses writes nothing, its events neither.
    store
        .set_plan(acme, Plan::Free, Some(1), None)
        .await
        .unwrap();
    let refused = store
        .track_videos(batch(acme, t0(), vec![yt(1), yt(2)]))
        .await
        .unwrap();
    assert!(matches!(refused, TrackOutcome::QuotaExceeded { .. }));
    assert!(deliver(&store, t0()).await.is_empty());
    // One that passes writes one event per video it tracks; an organization
    // without an endpoint writes none.
    track(&store, acme, t0(), vec![yt(1)]).await;
    track(&store, quiet, t0(), vec![yt(1), yt(2)]).await;
    // Tracked already: no new event.
    let mut again = batch(acme, t0(), vec![yt(1)]);
    again.request_id = "again".into();
    store.track_videos(again).await.unwrap();
    let told = deliver(&store, t0()).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["data"]["external_video_id"], "vid00000001");
    // Nothing twice: every delivery was taken once.
    assert!(deliver(&store, t0() + Duration::hours(1)).await.is_empty());
}

#[rstest]
#[tokio::test]
async fn a_claim_holds_a_delivery_until_its_lease_runs_out(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let endpoint = store
        .create_endpoint(acme, &hook(&[EventType::VideoTracked]), t0())
        .await
        .unwrap()
        .unwrap();
    track(&store, acme, t0(), vec![yt(1), yt(2)]).await;
    let first = store
        .claim_deliveries(t0(), 10, Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(first.len(), 2);
    assert!(
        store
            .claim_deliveries(t0(), 10, Duration::minutes(1))
            .await
            .unwrap()
            .is_empty()
    );
    // The claimer dies; after the lease another takes both over, and the
    // first claimer's late answer is refused.
    let later = t0() + Duration::minutes(2);
    let second = store
        .claim_deliveries(later, 10, Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(second.len(), 2);
    let attempt = Attempt {
        at: later,
        status_code: Some(503),
        error: Some("the endpoint answered 503".into()),
        latency_ms: 10,
        retry_at: Some(later + Duration::seconds(5)),
    };
    assert!(
        !store
            .finish_delivery(&first[0], &attempt, Duration::days(5))
            .await
            .unwrap()
    );
    assert!(
        store
            .finish_delivery(&second[0], &attempt, Duration::days(5))
            .await
            .unwrap()
    );
    let (log, total) = store
        .deliveries(acme, endpoint.id, Some(DeliveryStatus::Pending), 10, 0)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(total, 2);
    let retried = log.iter().find(|d| d.id == second[0].id).unwrap();
    assert_eq!((retried.attempts, retried.last_status_code), (1, Some(503)));
    assert_eq!(retried.next_attempt_at, Some(later + Duration::seconds(5)));
    let queue = store.webhook_queue().await.unwrap();
    assert_eq!(queue.pending, 2);
    assert_eq!(queue.oldest_pending_at, Some(t0()));
}

#[rstest]
#[tokio::test]
async fn old_events_are_pruned_once_none_is_pending(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let endpoint = store
        .create_endpoint(acme, &hook(&[EventType::VideoTracked]), t0())
        .await
        .unwrap()
        .unwrap();
    track(&store, acme, t0(), vec![yt(1)]).await;
    assert_eq!(deliver(&store, t0()).await.len(), 1);
    // A second event whose delivery is still pending is kept, however old.
    track(&store, acme, t0(), vec![yt(2)]).await;
    // A third, newer than the cut.
    track(&store, acme, t0() + Duration::days(2), vec![yt(3)]).await;

    let cut = t0() + Duration::days(1);
    assert_eq!(store.prune_webhook_events(cut).await.unwrap(), 1);
    assert_eq!(store.prune_webhook_events(cut).await.unwrap(), 0);
    let (log, total) = store
        .deliveries(acme, endpoint.id, None, 10, 0)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(total, 2, "the delivered one went with its event");
    assert!(log.iter().all(|d| d.status == DeliveryStatus::Pending));
    let since = store
        .replay_since(acme, endpoint.id, t0() - Duration::days(1), cut)
        .await
        .unwrap();
    assert_eq!(since, Some(2));
}
