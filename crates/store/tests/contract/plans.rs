//! What an organization uses of its plan (`plan_use`), and organizations
//! started on a plan (`register_organization_on`).

use chrono::Duration;
use rstest::rstest;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{OrgId, Plan, Platform};
use vidpulse_store::{Backend, Charge, NewCreatorJob, PlanUse, StartJob};

use crate::users::user;
use crate::{org, store, t0, track, yt};

/// A trend search charged to `org` at `at`.
fn search(org: OrgId, at: chrono::DateTime<chrono::Utc>) -> Charge {
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
async fn plan_use_counts_as_the_limits_count(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let id = org(&store, Plan::Pro).await;
    let month = t0() - Duration::days(1);
    let (o, used) = store.plan_use(id, t0(), month).await.unwrap().unwrap();
    assert_eq!((o.id, o.plan), (id, Plan::Pro));
    assert_eq!(
        used,
        PlanUse {
            tracked_videos: 0,
            creators: 0,
            trend_searches: 0
        }
    );

    track(&store, id, t0(), vec![yt(1), yt(2), yt(3)]).await;
    // A creator job in flight counts as a creator to come.
    let job = NewCreatorJob {
        organization_id: id,
        api_key_id: None,
        request_id: "req".into(),
        platform: Platform::YouTube,
        username: "mira".into(),
        initial_videos_count: 0,
        now: t0(),
        refetch: false,
        setup: None,
    };
    assert!(matches!(
        store.start_creator_job(&job).await.unwrap(),
        StartJob::Queued(_)
    ));
    // This month's searches count; last month's do not.
    store.charge(&search(id, t0())).await.unwrap();
    store
        .charge(&search(id, month - Duration::hours(1)))
        .await
        .unwrap();
    // Another organization's use is its own.
    let other = org(&store, Plan::Free).await;
    track(&store, other, t0(), vec![yt(1)]).await;
    store.charge(&search(other, t0())).await.unwrap();

    let (_, used) = store.plan_use(id, t0(), month).await.unwrap().unwrap();
    assert_eq!(
        used,
        PlanUse {
            tracked_videos: 3,
            creators: 1,
            trend_searches: 1
        }
    );
    // Windows that have ended no longer count.
    let later = t0() + Duration::days(31);
    let (_, used) = store.plan_use(id, later, month).await.unwrap().unwrap();
    assert_eq!(used.tracked_videos, 0);

    assert!(
        store
            .plan_use(OrgId::new(), t0(), month)
            .await
            .unwrap()
            .is_none()
    );
}

#[rstest]
#[tokio::test]
async fn organizations_are_registered_on_the_plan_asked(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let ann = user(&store, "ann@example.com").await;
    for plan in [Plan::Free, Plan::Pro, Plan::Business] {
        let id = store
            .register_organization_on(ann.id, plan.as_str(), plan, t0())
            .await
            .unwrap();
        let o = store.organization(id).await.unwrap().unwrap();
        assert_eq!((o.name.as_str(), o.plan), (plan.as_str(), plan));
        assert_eq!(
            store.membership_role(ann.id, id).await.unwrap(),
            Some(Role::Admin)
        );
    }
}
