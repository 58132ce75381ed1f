//! Firings: recorded once per rule, subject and threshold (two workers
//! racing too), with one send per recipient and, for the webhooks channel,
//! an `alert.triggered` event; listed newest first by page; gone with their
//! rule. Sends: claimed once under a lease, not before they are due, and
//! finished sent, retried or failed; a lost lease records nothing.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_domain::Plan;
use vidpulse_domain::webhooks::EventType;
use vidpulse_store::alerts::{AlertEvent, AlertSend, DueAlertSend};
use vidpulse_store::{Backend, NewEndpoint};

use super::{at, create, firing, rule, send};
use crate::{org, store};

#[rstest]
#[tokio::test]
async fn a_rule_fires_once_per_subject_and_threshold(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    let r = create(&store, acme, rule("Big hits", None), at(2, 9, 0)).await;
    let theirs = create(&store, other, rule("Theirs", None), at(2, 9, 0)).await;

    let mut doubled = firing(&r, "v1", "1000");
    doubled
        .sends
        .push(("email".into(), "ann@example.com".into()));
    let first = store
        .fire_alert(doubled, at(2, 10, 0))
        .await
        .unwrap()
        .unwrap();
    // The same again, whatever its text: nothing.
    let mut again = firing(&r, "v1", "1000");
    again.message = "another text".into();
    assert_eq!(store.fire_alert(again, at(2, 11, 0)).await.unwrap(), None);
    // Workers racing: one records it.
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let (store, event) = (store.clone(), firing(&r, "v2", "1000"));
            tokio::spawn(async move { store.fire_alert(event, at(2, 12, 0)).await })
        })
        .collect();
    let mut recorded = 0;
    for t in tasks {
        recorded += usize::from(t.await.unwrap().unwrap().is_some());
    }
    assert_eq!(recorded, 1);
    // Another threshold of the same subject is another firing.
    store
        .fire_alert(firing(&r, "v1", "10000"), at(2, 13, 0))
        .await
        .unwrap()
        .unwrap();
    // Not under another organization's name, nor for an unknown rule.
    let mut forged = firing(&r, "v9", "1000");
    forged.organization_id = other;
    assert_eq!(store.fire_alert(forged, at(2, 14, 0)).await.unwrap(), None);
    let mut ghost = firing(&r, "v9", "1000");
    ghost.rule_id = Uuid::new_v4();
    assert_eq!(store.fire_alert(ghost, at(2, 14, 0)).await.unwrap(), None);

    // Newest first, with the total; a page of them.
    let (events, total) = store.alert_events(acme, r.id, 10, 0).await.unwrap();
    assert_eq!(total, 3);
    let keys = |events: &[AlertEvent]| {
        events
            .iter()
            .map(|e| (e.subject.clone(), e.threshold_key.clone(), e.fired_at))
            .collect::<Vec<_>>()
    };
    let all = vec![
        ("v1".to_owned(), "10000".to_owned(), at(2, 13, 0)),
        ("v2".to_owned(), "1000".to_owned(), at(2, 12, 0)),
        ("v1".to_owned(), "1000".to_owned(), at(2, 10, 0)),
    ];
    assert_eq!(keys(&events), all);
    let oldest = &events[2];
    let sent = firing(&r, "v1", "1000");
    assert_eq!((oldest.id, oldest.rule_id), (first, r.id));
    assert_eq!(oldest.message, sent.message, "the first text stays");
    assert_eq!(oldest.details, sent.details, "kept as given");
    assert_eq!(
        oldest.sends,
        [
            send("email", "ann@example.com", "pending", 0),
            send("slack", "https://hooks.slack.com/services/x", "pending", 0),
        ],
        "one per recipient"
    );
    let (page, total) = store.alert_events(acme, r.id, 2, 1).await.unwrap();
    assert_eq!((keys(&page), total), (all[1..].to_vec(), 3));
    assert_eq!(
        store.alert_events(acme, r.id, 2, 3).await.unwrap(),
        (vec![], 3)
    );
    // Another organization sees none of them.
    assert_eq!(
        store.alert_events(other, r.id, 10, 0).await.unwrap(),
        (vec![], 0)
    );
    assert_eq!(
        store.alert_events(other, theirs.id, 10, 0).await.unwrap(),
        (vec![], 0)
    );
    let counted = store.alert_rule(acme, r.id).await.unwrap().unwrap();
    assert_eq!(
        (counted.events, counted.last_fired_at),
        (3, Some(at(2, 13, 0)))
    );
    assert_eq!(store.alert_rules(acme).await.unwrap()[0].events, 3);
    assert_eq!(
        store
            .alert_rule(other, theirs.id)
            .await
            .unwrap()
            .unwrap()
            .events,
        0
    );

    // Deleting the rule takes its firings and their sends.
    let keep = create(&store, acme, rule("Kept", None), at(2, 9, 0)).await;
    let kept = store
        .fire_alert(firing(&keep, "v1", "1000"), at(2, 15, 0))
        .await
        .unwrap()
        .unwrap();
    assert!(store.delete_alert_rule(acme, r.id).await.unwrap());
    assert_eq!(
        store.alert_events(acme, r.id, 10, 0).await.unwrap(),
        (vec![], 0)
    );
    let due = store
        .claim_alert_sends(at(3, 0, 0), 100, Duration::minutes(2))
        .await
        .unwrap();
    assert_eq!(due.len(), 2, "only the kept rule's sends are left: {due:?}");
    let (events, _) = store.alert_events(acme, keep.id, 10, 0).await.unwrap();
    assert_eq!(events[0].id, kept);
}

#[rstest]
#[tokio::test]
async fn a_firing_with_the_webhooks_channel_is_an_event_for_subscribers(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    for who in [acme, other] {
        let hook = NewEndpoint {
            url: "https://hooks.example.com/x".into(),
            description: None,
            events: vec![EventType::AlertTriggered],
            secret: "whsec_c2VjcmV0".into(),
        };
        store
            .create_endpoint(who, &hook, at(1, 0, 0))
            .await
            .unwrap()
            .unwrap();
    }
    let r = create(&store, acme, rule("Hooked", None), at(2, 9, 0)).await;
    let mut event = firing(&r, "v1", "1000");
    event.webhook = Some(json!({"rule_id": r.id, "subject": "v1", "threshold": "1000"}));
    store
        .fire_alert(event, at(2, 10, 0))
        .await
        .unwrap()
        .unwrap();
    // Without the channel, no event.
    store
        .fire_alert(firing(&r, "v2", "1000"), at(2, 10, 0))
        .await
        .unwrap()
        .unwrap();

    let deliveries = store
        .claim_deliveries(at(2, 10, 0), 100, Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(deliveries.len(), 1, "acme's endpoint only, once");
    let body: Value = serde_json::from_str(&deliveries[0].body).unwrap();
    assert_eq!(body["type"], "alert.triggered");
    assert_eq!(body["data"]["subject"], "v1");
    assert_eq!(body["data"]["rule_id"], r.id.to_string());

    let (events, _) = store.alert_events(acme, r.id, 10, 0).await.unwrap();
    let hooked = events.iter().find(|e| e.subject == "v1").unwrap();
    assert_eq!(
        hooked.sends.last().unwrap(),
        &AlertSend {
            sent_at: Some(at(2, 10, 0)),
            ..send("webhooks", "", "sent", 1)
        }
    );
    let plain = events.iter().find(|e| e.subject == "v2").unwrap();
    assert!(plain.sends.iter().all(|s| s.channel != "webhooks"));
    // The webhooks send is done: only the e-mails and chats are claimed.
    let due = store
        .claim_alert_sends(at(2, 10, 0), 100, Duration::minutes(2))
        .await
        .unwrap();
    assert_eq!(due.len(), 4);
    assert!(due.iter().all(|d| d.channel != "webhooks"));
}

#[rstest]
#[tokio::test]
async fn a_send_is_claimed_once_and_finished_sent_retried_or_failed(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let r = create(&store, acme, rule("Big hits", None), at(2, 9, 0)).await;
    let mut event = firing(&r, "v1", "1000");
    event.sends.push(("email".into(), "bob@example.com".into()));
    store
        .fire_alert(event.clone(), at(2, 10, 0))
        .await
        .unwrap()
        .unwrap();
    let lease = Duration::minutes(2);
    let claim = |now: DateTime<Utc>| {
        let store = store.clone();
        async move { store.claim_alert_sends(now, 10, lease).await.unwrap() }
    };
    let sends = || {
        let store = store.clone();
        async move {
            store.alert_events(acme, r.id, 1, 0).await.unwrap().0[0]
                .sends
                .clone()
        }
    };
    const CHAT: &str = "https://hooks.slack.com/services/x";

    // Not before it is due.
    assert!(claim(at(2, 9, 59)).await.is_empty());
    // Two workers at once: each send to one of them, at most `limit` each.
    let (x, y) = tokio::join!(
        store.claim_alert_sends(at(2, 10, 0), 2, lease),
        store.claim_alert_sends(at(2, 10, 0), 2, lease),
    );
    let (x, y) = (x.unwrap(), y.unwrap());
    assert!(x.len() <= 2 && y.len() <= 2, "{x:?} {y:?}");
    let mut claimed: Vec<DueAlertSend> = x.into_iter().chain(y).collect();
    claimed.sort_by(|a, b| (&a.channel, &a.target).cmp(&(&b.channel, &b.target)));
    let distinct: BTreeSet<Uuid> = claimed.iter().map(|d| d.id).collect();
    assert_eq!(distinct.len(), 3, "{claimed:?}");
    assert_eq!(
        claimed
            .iter()
            .map(|d| (d.channel.as_str(), d.target.as_str(), d.attempts))
            .collect::<Vec<_>>(),
        [
            ("email", "ann@example.com", 0),
            ("email", "bob@example.com", 0),
            ("slack", CHAT, 0)
        ]
    );
    assert!(
        claimed
            .iter()
            .all(|d| d.title == event.title && d.message == event.message)
    );
    // Held while the lease lasts.
    let held = claim(at(2, 10, 2)).await;
    assert!(held.is_empty(), "{held:?}");
    let [ann, bob, chat] = <[DueAlertSend; 3]>::try_from(claimed).unwrap();
    store
        .finish_alert_send(&ann, Ok(()), at(2, 10, 1))
        .await
        .unwrap();
    let retry = Err(("SMTP down".to_owned(), Some(at(2, 11, 0))));
    store
        .finish_alert_send(&bob, retry, at(2, 10, 1))
        .await
        .unwrap();

    // The chat's worker lost its lease: another takes the send, and the
    // first one's word comes too late.
    let retaken = claim(at(2, 10, 3)).await;
    assert_eq!(retaken.len(), 1);
    assert_eq!((retaken[0].id, retaken[0].attempts), (chat.id, 0));
    assert_ne!(retaken[0].lease_token, chat.lease_token);
    store
        .finish_alert_send(&chat, Ok(()), at(2, 10, 4))
        .await
        .unwrap();
    assert_eq!(sends().await[2], send("slack", CHAT, "pending", 0));
    let failed = Err(("HTTP 404".to_owned(), None));
    store
        .finish_alert_send(&retaken[0], failed, at(2, 10, 5))
        .await
        .unwrap();

    // Tried again when told, and not before.
    assert!(claim(at(2, 10, 59)).await.is_empty());
    let again = claim(at(2, 11, 0)).await;
    assert_eq!(again.len(), 1);
    assert_eq!((again[0].id, again[0].attempts), (bob.id, 1));
    store
        .finish_alert_send(&again[0], Ok(()), at(2, 11, 1))
        .await
        .unwrap();
    assert!(claim(at(9, 0, 0)).await.is_empty(), "nothing is sent twice");
    assert_eq!(
        sends().await,
        [
            AlertSend {
                sent_at: Some(at(2, 10, 1)),
                ..send("email", "ann@example.com", "sent", 1)
            },
            AlertSend {
                last_error: Some("SMTP down".into()),
                sent_at: Some(at(2, 11, 1)),
                ..send("email", "bob@example.com", "sent", 2)
            },
            AlertSend {
                last_error: Some("HTTP 404".into()),
                ..send("slack", CHAT, "failed", 1)
            },
        ]
    );
}
