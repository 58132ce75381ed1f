use chrono::Duration;
use rstest::rstest;
use vidpulse_domain::{ApiKeyId, Plan};
use vidpulse_store::{Backend, NewApiKey, UsageDelta};

use crate::{org, store, t0, track, yt};

#[rstest]
#[tokio::test]
async fn usage_accumulates_per_day_with_credits_from_the_ledger(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let secret = vidpulse_domain::api_key::generate();
    let key = store
        .create_api_key(NewApiKey {
            organization_id: a,
            name: None,
            prefix: secret.prefix,
            key_hash: secret.hash.to_vec(),
            scopes: vidpulse_domain::api_key::Scopes::FULL,
            now: t0(),
        })
        .await
        .unwrap();
    let other_key = ApiKeyId::new();
    let day1 = t0().date_naive();
    let day2 = (t0() + Duration::days(1)).date_naive();
    let delta = |day, key, requests, errors, ms| UsageDelta {
        organization_id: a,
        day,
        api_key_id: key,
        requests,
        successes: requests - errors,
        errors,
        response_ms_total: ms,
        last_used_at: t0() + Duration::minutes(5),
    };
    store
        .add_usage(&[delta(day1, key.id, 3, 1, 30)])
        .await
        .unwrap();
    store
        .add_usage(&[
            delta(day1, key.id, 1, 0, 10),
            delta(day1, other_key, 4, 0, 40),
        ])
        .await
        .unwrap();
    store
        .add_usage(&[delta(day2, key.id, 2, 2, 5)])
        .await
        .unwrap();
    track(&store, a, t0(), vec![yt(1), yt(2)]).await;

    let h = store.usage_history(a, day1).await.unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h[0].day, day2);
    assert_eq!(
        (
            h[0].total_requests,
            h[0].error_requests,
            h[0].credits_used,
            h[0].unique_api_keys
        ),
        (2, 2, 0, 1)
    );
    assert_eq!(h[1].day, day1);
    assert_eq!(
        (
            h[1].total_requests,
            h[1].successful_requests,
            h[1].error_requests,
            h[1].credits_used,
            h[1].unique_api_keys
        ),
        (8, 7, 1, 60, 2)
    );
    assert!((h[1].avg_response_time_ms - 10.0).abs() < 1e-9);

    assert!(
        store
            .usage_history(a, day2 + Duration::days(1))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.usage_history(b, day1).await.unwrap().is_empty());

    let found = store.api_keys_by_prefix(&key.prefix).await.unwrap();
    assert_eq!(found[0].key.last_used_at, Some(t0() + Duration::minutes(5)));
}
