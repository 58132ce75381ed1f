//! Recaps: subscriptions one per member, scope and frequency; a period's
//! send queued once and claimed by one worker; retries and failures; a
//! member who left is no longer queued; campaigns of another organization
//! refused.

use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::analytics::DateRange;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{CampaignId, OrgId, Plan, UserId};
use vidpulse_store::{
    Backend, ChatTarget, Frequency, NewCampaign, NewRecap, RecapChange, RecapOutcome, RecapRefusal,
    RecapTarget, Store,
};

use crate::{campaign, org, store};

fn at(d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, d, h, 0, 0).unwrap()
}

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
}

/// A member of `org` with `email`.
async fn member(store: &Arc<dyn Store>, org: OrgId, email: &str) -> UserId {
    let user = store
        .user_for_identity(&format!("dev|{email}"), email, at(1, 0))
        .await
        .unwrap();
    assert!(
        store
            .add_member(org, user.id, Role::Editor, at(1, 0))
            .await
            .unwrap()
    );
    user.id
}

/// A campaign of `org`.
async fn new_campaign(store: &Arc<dyn Store>, org: OrgId, name: &str) -> CampaignId {
    let new = NewCampaign {
        name: campaign(name),
        client: None,
        starts_on: None,
        ends_on: None,
        budget: Some(1000.0),
        currency: None,
        target_views: None,
        notes: None,
    };
    store
        .create_campaign(org, new, at(1, 0))
        .await
        .unwrap()
        .unwrap()
        .id
}

fn email(user: UserId, frequency: Frequency, campaign: Option<CampaignId>) -> NewRecap {
    NewRecap {
        target: RecapTarget::Email(user),
        campaign_id: campaign,
        frequency,
        created_by: Some(user),
    }
}

#[rstest]
#[tokio::test]
async fn a_member_has_one_recap_per_scope_and_frequency(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    let ann = member(&store, acme, "ann@example.com").await;
    let bob = member(&store, acme, "bob@example.com").await;
    let summer = new_campaign(&store, acme, "Summer").await;
    let foreign = new_campaign(&store, other, "Elsewhere").await;

    let daily = store
        .create_recap(acme, email(ann, Frequency::Daily, None), at(2, 9))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(daily.target, RecapTarget::Email(ann));
    assert_eq!(daily.campaign_id, None);
    assert_eq!(daily.last_sent, None);
    // The same again is refused with the one there is.
    match store
        .create_recap(acme, email(ann, Frequency::Daily, None), at(2, 10))
        .await
        .unwrap()
    {
        Err(RecapRefusal::Exists(existing)) => assert_eq!(existing.id, daily.id),
        other => panic!("expected Exists, got {other:?}"),
    }
    // Another frequency, scope or member is another recap.
    let weekly = store
        .create_recap(acme, email(ann, Frequency::Weekly, None), at(2, 9))
        .await
        .unwrap()
        .unwrap();
    let of_summer = store
        .create_recap(acme, email(ann, Frequency::Daily, Some(summer)), at(2, 9))
        .await
        .unwrap()
        .unwrap();
    store
        .create_recap(acme, email(bob, Frequency::Daily, None), at(2, 9))
        .await
        .unwrap()
        .unwrap();
    // Another organization's campaign is unknown.
    assert_eq!(
        store
            .create_recap(acme, email(ann, Frequency::Daily, Some(foreign)), at(2, 9))
            .await
            .unwrap(),
        Err(RecapRefusal::CampaignNotFound)
    );
    // Chat recaps are everyone's; several may post the same scope.
    let chat = NewRecap {
        target: RecapTarget::Chat(ChatTarget {
            kind: "slack".into(),
            url: "https://hooks.slack.com/services/x".into(),
        }),
        campaign_id: None,
        frequency: Frequency::Daily,
        created_by: Some(bob),
    };
    let posted = store
        .create_recap(acme, chat.clone(), at(2, 9))
        .await
        .unwrap()
        .unwrap();
    // One made by an API key has no creator.
    let by_key = store
        .create_recap(
            acme,
            NewRecap {
                created_by: None,
                ..chat
            },
            at(2, 9),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_key.created_by, None);

    let ids = |subs: Vec<vidpulse_store::RecapSubscription>| -> Vec<_> {
        subs.into_iter().map(|s| s.id).collect()
    };
    let anns = ids(store.recaps_of(acme, Some(ann)).await.unwrap());
    assert_eq!(anns.len(), 5, "her three and the two chats");
    assert!(anns.contains(&posted.id) && anns.contains(&weekly.id));
    assert!(store.recaps_of(other, Some(ann)).await.unwrap().is_empty());
    // The organization's view (an API key's) has every member's too.
    let all = ids(store.recaps_of(acme, None).await.unwrap());
    assert_eq!(all.len(), 6, "her three, bob's and the two chats");
    assert!(store.recaps_of(other, None).await.unwrap().is_empty());
    assert_eq!(store.recap(other, daily.id).await.unwrap(), None);

    // A change into the scope and frequency of another of hers is refused.
    let change = RecapChange {
        frequency: Some(Frequency::Daily),
        ..RecapChange::default()
    };
    match store
        .update_recap(acme, weekly.id, change, at(3, 0))
        .await
        .unwrap()
    {
        Err(RecapRefusal::Exists(existing)) => assert_eq!(existing.id, daily.id),
        other => panic!("expected Exists, got {other:?}"),
    }
    let change = RecapChange {
        campaign_id: Some(None),
        frequency: Some(Frequency::Weekly),
        ..RecapChange::default()
    };
    match store
        .update_recap(acme, of_summer.id, change, at(3, 0))
        .await
        .unwrap()
    {
        Err(RecapRefusal::Exists(existing)) => assert_eq!(existing.id, weekly.id),
        other => panic!("expected Exists, got {other:?}"),
    }
    let change = RecapChange {
        frequency: Some(Frequency::Weekly),
        ..RecapChange::default()
    };
    let moved = store
        .update_recap(acme, of_summer.id, change, at(3, 0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.frequency, Frequency::Weekly);
    assert_eq!(moved.campaign_id, Some(summer));
    assert_eq!(moved.updated_at, at(3, 0));
    assert_eq!(
        store
            .update_recap(other, of_summer.id, RecapChange::default(), at(3, 0))
            .await
            .unwrap(),
        Err(RecapRefusal::NotFound)
    );
    assert!(!store.delete_recap(other, daily.id).await.unwrap());
    assert!(store.delete_recap(acme, daily.id).await.unwrap());
    assert_eq!(store.recap(acme, daily.id).await.unwrap(), None);
}

#[rstest]
#[tokio::test]
async fn a_period_is_queued_once_and_claimed_by_one_worker(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let ann = member(&store, acme, "ann@example.com").await;
    let bob = member(&store, acme, "bob@example.com").await;
    let sub = store
        .create_recap(acme, email(ann, Frequency::Daily, None), at(2, 9))
        .await
        .unwrap()
        .unwrap();
    let late = store
        .create_recap(acme, email(bob, Frequency::Daily, None), at(3, 7))
        .await
        .unwrap()
        .unwrap();
    let period = DateRange {
        from: day(2),
        to: day(2),
    };
    // Sent from 06:00 on the 3rd: bob subscribed after that.
    let (a, b) = tokio::join!(
        store.schedule_recaps(Frequency::Daily, period, at(3, 6), at(3, 8)),
        store.schedule_recaps(Frequency::Daily, period, at(3, 6), at(3, 8)),
    );
    assert_eq!(a.unwrap() + b.unwrap(), 1);
    assert_eq!(
        store
            .schedule_recaps(Frequency::Weekly, period, at(3, 6), at(3, 8))
            .await
            .unwrap(),
        0
    );
    let (first, second) = tokio::join!(
        store.claim_recaps(at(3, 8), 10, Duration::minutes(10)),
        store.claim_recaps(at(3, 8), 10, Duration::minutes(10)),
    );
    let mut claimed = first.unwrap();
    claimed.extend(second.unwrap());
    assert_eq!(claimed.len(), 1, "one worker claims it");
    let due = claimed.remove(0);
    assert_eq!(due.subscription_id, sub.id);
    assert_ne!(due.subscription_id, late.id);
    assert_eq!(due.period, period);
    assert_eq!(due.email.as_deref(), Some("ann@example.com"));
    assert_eq!(due.language, "en");
    assert_eq!(due.org_name, "Acme");
    assert!(!due.member_left);
    assert_eq!(due.attempts, 1);
    // Held by the lease; retried when told.
    assert!(
        store
            .claim_recaps(at(3, 8), 10, Duration::minutes(10))
            .await
            .unwrap()
            .is_empty()
    );
    let retry = RecapOutcome::Retry {
        error: "SMTP down".into(),
        at: at(3, 9),
    };
    store
        .finish_recap(sub.id, day(2), due.lease_token, retry, at(3, 8))
        .await
        .unwrap();
    let again = store
        .claim_recaps(at(3, 9), 10, Duration::minutes(10))
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].attempts, 2);
    // A stale token changes nothing; the right one records the send.
    store
        .finish_recap(
            sub.id,
            day(2),
            due.lease_token,
            RecapOutcome::Sent,
            at(3, 9),
        )
        .await
        .unwrap();
    assert_eq!(
        store.recap(acme, sub.id).await.unwrap().unwrap().last_sent,
        None
    );
    store
        .finish_recap(
            sub.id,
            day(2),
            again[0].lease_token,
            RecapOutcome::Sent,
            at(3, 9),
        )
        .await
        .unwrap();
    assert_eq!(
        store.recap(acme, sub.id).await.unwrap().unwrap().last_sent,
        Some((day(2), at(3, 9)))
    );
    // Queued again: nothing new.
    assert_eq!(
        store
            .schedule_recaps(Frequency::Daily, period, at(3, 6), at(3, 10))
            .await
            .unwrap(),
        0
    );
    assert!(
        store
            .claim_recaps(at(4, 0), 10, Duration::minutes(10))
            .await
            .unwrap()
            .is_empty()
    );
}

#[rstest]
#[tokio::test]
async fn a_member_who_left_is_no_longer_queued(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let ann = member(&store, acme, "ann@example.com").await;
    store
        .create_recap(acme, email(ann, Frequency::Daily, None), at(2, 9))
        .await
        .unwrap()
        .unwrap();
    let period = DateRange {
        from: day(2),
        to: day(2),
    };
    store
        .schedule_recaps(Frequency::Daily, period, at(3, 6), at(3, 8))
        .await
        .unwrap();
    store.remove_member(acme, Role::Owner, ann).await.unwrap();
    // Queued before she left: claimed, and known as left.
    let due = store
        .claim_recaps(at(3, 8), 10, Duration::minutes(10))
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    assert!(due[0].member_left);
    assert_eq!(due[0].email, None);
    let next = DateRange {
        from: day(3),
        to: day(3),
    };
    assert_eq!(
        store
            .schedule_recaps(Frequency::Daily, next, at(4, 6), at(4, 8))
            .await
            .unwrap(),
        0
    );
}
