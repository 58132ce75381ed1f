//! Idempotency keys: one claim wins, the answer is kept for the same
//! request, another request is told the key is taken, a dead claim is taken
//! over after its lease, and keys age out after the retention.

use chrono::Duration;
use rstest::rstest;
use vidpulse_domain::Plan;
use vidpulse_store::{Backend, KeptAnswer, KeyClaim};

use crate::{org, store, t0};

const LEASE: Duration = Duration::seconds(90);

fn day() -> Duration {
    Duration::hours(24)
}

fn answer() -> KeptAnswer {
    KeptAnswer {
        status: 202,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("location".into(), "/v1/bloggers/jobs/1".into()),
        ],
        body: br#"{"success":true}"#.to_vec(),
    }
}

#[rstest]
#[tokio::test]
async fn a_key_is_claimed_once_and_answers_the_same_request(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let claim = |org, fp: &'static str, at| {
        let store = store.clone();
        async move {
            store
                .claim_idempotency_key(org, "k1", fp, at, LEASE, day())
                .await
                .unwrap()
        }
    };
    let KeyClaim::Claimed { token } = claim(a, "fp", t0()).await else {
        panic!("a new key is claimed");
    };
    assert_eq!(claim(a, "fp", t0()).await, KeyClaim::InFlight);
    assert_eq!(claim(a, "other", t0()).await, KeyClaim::Reused);
    assert!(
        matches!(claim(b, "fp", t0()).await, KeyClaim::Claimed { .. }),
        "per organization"
    );

    assert!(
        !store
            .keep_idempotent_answer(a, "k1", uuid::Uuid::new_v4(), &answer())
            .await
            .unwrap(),
        "only the claim's token keeps an answer"
    );
    assert!(
        store
            .keep_idempotent_answer(a, "k1", token, &answer())
            .await
            .unwrap()
    );
    let later = t0() + Duration::hours(23);
    assert_eq!(claim(a, "fp", later).await, KeyClaim::Answered(answer()));
    assert_eq!(claim(a, "other", later).await, KeyClaim::Reused);
    // Past the retention the key is new again, whatever the request.
    let next_day = t0() + day();
    assert!(matches!(
        claim(a, "other", next_day).await,
        KeyClaim::Claimed { .. }
    ));
}

#[rstest]
#[tokio::test]
async fn a_claim_is_released_or_taken_over_after_its_lease(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let claim = |at| {
        let store = store.clone();
        async move {
            store
                .claim_idempotency_key(a, "k", "fp", at, LEASE, day())
                .await
                .unwrap()
        }
    };
    let KeyClaim::Claimed { token } = claim(t0()).await else {
        panic!("claimed");
    };
    store.release_idempotency_key(a, "k", token).await.unwrap();
    let KeyClaim::Claimed { token: second } = claim(t0()).await else {
        panic!("a released key is free");
    };
    // Its holder dies: the key waits out the lease, then is taken over, and
    // the dead holder can no longer keep an answer.
    assert_eq!(
        claim(t0() + Duration::seconds(89)).await,
        KeyClaim::InFlight
    );
    let KeyClaim::Claimed { token: third } = claim(t0() + LEASE).await else {
        panic!("taken over");
    };
    assert!(
        !store
            .keep_idempotent_answer(a, "k", second, &answer())
            .await
            .unwrap()
    );
    assert!(
        store
            .keep_idempotent_answer(a, "k", third, &answer())
            .await
            .unwrap()
    );
    // A kept answer is not released.
    store.release_idempotency_key(a, "k", third).await.unwrap();
    assert_eq!(claim(t0() + LEASE).await, KeyClaim::Answered(answer()));
}

#[rstest]
#[tokio::test]
async fn concurrent_claims_make_one_winner(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let claims = futures::future::join_all((0..8).map(|_| {
        let store = store.clone();
        async move {
            store
                .claim_idempotency_key(a, "burst", "fp", t0(), LEASE, day())
                .await
                .unwrap()
        }
    }))
    .await;
    let won = claims
        .iter()
        .filter(|c| matches!(c, KeyClaim::Claimed { .. }))
        .count();
    assert_eq!(won, 1, "{claims:?}");
    assert!(
        claims
            .iter()
            .all(|c| matches!(c, KeyClaim::Claimed { .. } | KeyClaim::InFlight))
    );
}

#[rstest]
#[tokio::test]
async fn keys_past_the_retention_are_pruned(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    for (key, at) in [("old", t0()), ("new", t0() + Duration::hours(2))] {
        store
            .claim_idempotency_key(a, key, "fp", at, LEASE, day())
            .await
            .unwrap();
    }
    let before = t0() + Duration::hours(1);
    assert_eq!(store.prune_idempotency_keys(before).await.unwrap(), 1);
    assert_eq!(store.prune_idempotency_keys(before).await.unwrap(), 0);
    assert!(matches!(
        store
            .claim_idempotency_key(a, "old", "other", t0(), LEASE, day())
            .await
            .unwrap(),
        KeyClaim::Claimed { .. }
    ));
}
