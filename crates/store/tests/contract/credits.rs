use chrono::Duration;
use rstest::rstest;
use vidpulse_domain::Plan;
use vidpulse_store::{Backend, CappedCharge, Charge};

use crate::{org, store, t0};

fn charge(org: vidpulse_domain::OrgId, at: chrono::DateTime<chrono::Utc>) -> Charge {
    Charge {
        organization_id: org,
        api_key_id: None,
        request_id: "r".into(),
        amount: 1,
        reason: "trend_search",
        subject: None,
        at,
    }
}

#[rstest]
#[tokio::test]
async fn capped_charges_stop_at_the_cap_and_refunds_free_a_slot(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let month = t0() - Duration::days(1);
    // An older charge does not count toward this period.
    store
        .charge(&charge(a, month - Duration::days(3)))
        .await
        .unwrap();
    let first = store
        .charge_within_cap(&charge(a, t0()), month, 2)
        .await
        .unwrap();
    let CappedCharge::Charged(first_id) = first else {
        panic!("{first:?}")
    };
    assert!(matches!(
        store
            .charge_within_cap(&charge(a, t0()), month, 2)
            .await
            .unwrap(),
        CappedCharge::Charged(_)
    ));
    assert_eq!(
        store
            .charge_within_cap(&charge(a, t0()), month, 2)
            .await
            .unwrap(),
        CappedCharge::CapReached(2)
    );
    // Other organizations have their own cap.
    assert!(matches!(
        store
            .charge_within_cap(&charge(b, t0()), month, 2)
            .await
            .unwrap(),
        CappedCharge::Charged(_)
    ));

    store.refund(first_id).await.unwrap();
    assert!(matches!(
        store
            .charge_within_cap(&charge(a, t0()), month, 2)
            .await
            .unwrap(),
        CappedCharge::Charged(_)
    ));
    let usage = store
        .usage_history(a, (month - Duration::days(10)).date_naive())
        .await
        .unwrap();
    assert_eq!(usage.iter().map(|d| d.credits_used).sum::<i64>(), 3);
}

#[rstest]
#[tokio::test]
async fn concurrent_capped_charges_never_exceed_the_cap(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .charge_within_cap(&charge(a, t0()), t0() - Duration::days(1), 5)
                    .await
            })
        })
        .collect();
    let mut charged = 0;
    for t in tasks {
        if let CappedCharge::Charged(_) = t.await.unwrap().unwrap() {
            charged += 1;
        }
    }
    assert_eq!(charged, 5);
}

/// Charges written together are all in the ledger, or none is: a batch
/// with one charge of an organization that does not exist writes nothing.
#[rstest]
#[tokio::test]
async fn charges_written_together_are_all_or_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let used = |org| {
        let store = store.clone();
        async move {
            store
                .usage_history(org, t0().date_naive() - Duration::days(1))
                .await
                .unwrap()
                .iter()
                .map(|d| d.credits_used)
                .sum::<i64>()
        }
    };
    let batch: Vec<Charge> = (0..1500)
        .map(|n| charge(if n % 3 == 0 { b } else { a }, t0()))
        .collect();
    store.charge_all(&batch).await.unwrap();
    assert_eq!((used(a).await, used(b).await), (1000, 500));
    store.charge_all(&[]).await.unwrap();

    let ghost = vidpulse_domain::OrgId(uuid::Uuid::new_v4());
    let refused = store
        .charge_all(&[charge(a, t0()), charge(ghost, t0()), charge(b, t0())])
        .await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(
        (used(a).await, used(b).await),
        (1000, 500),
        "nothing written"
    );
}
