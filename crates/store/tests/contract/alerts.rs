//! Alert rules: an organization's own (another's campaign refused, at most
//! `MAX_RULES`, even when created at once), listed oldest first, changed one
//! field at a time, deleted, gone with their campaign; the enabled ones the
//! worker evaluates and its passes. Firings and sends in `firings`, the
//! reads of an evaluation in `candidates`.

mod candidates;
mod firings;

use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use rstest::rstest;
use serde_json::json;
use uuid::Uuid;
use vidpulse_domain::{CampaignId, OrgId, Plan};
use vidpulse_store::alerts::{
    AlertRefusal, AlertRule, AlertRuleChanges, AlertSend, MAX_RULES, NewAlertEvent, NewAlertRule,
};
use vidpulse_store::{Backend, NewCampaign, Store};

use crate::{campaign, org, store};

/// November 2026, day `d`, `h`:`m` UTC.
fn at(d: u32, h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, d, h, m, 0).unwrap()
}

/// A campaign of `org` named `name`.
async fn new_campaign(store: &Arc<dyn Store>, org: OrgId, name: &str) -> CampaignId {
    let new = NewCampaign {
        name: campaign(name),
        client: None,
        starts_on: None,
        ends_on: None,
        budget: None,
        currency: None,
        target_views: None,
        notes: None,
    };
    store
        .create_campaign(org, new, at(1, 0, 0))
        .await
        .unwrap()
        .unwrap()
        .id
}

/// A views milestone rule named `name`, over `campaign` when given.
fn rule(name: &str, campaign: Option<CampaignId>) -> NewAlertRule {
    NewAlertRule {
        campaign_id: campaign.map(|c| c.0),
        name: name.into(),
        kind: "views_milestone".into(),
        params: json!({"thresholds": [1000, 10000]}),
        channels: json!([{"type": "slack", "url": "https://hooks.slack.com/services/x"}]),
        enabled: true,
    }
}

/// `new` created for `org` at `now`, expected to succeed.
async fn create(
    store: &Arc<dyn Store>,
    org: OrgId,
    new: NewAlertRule,
    now: DateTime<Utc>,
) -> AlertRule {
    store
        .create_alert_rule(org, new, now)
        .await
        .unwrap()
        .unwrap()
}

/// `rule`'s firing for `subject` at `key`, to an e-mail address and a chat.
fn firing(rule: &AlertRule, subject: &str, key: &str) -> NewAlertEvent {
    let title = format!("[vidpulse] {}: {subject} passed {key}", rule.name);
    NewAlertEvent {
        rule_id: rule.id,
        organization_id: rule.organization_id,
        subject: subject.into(),
        threshold_key: key.into(),
        message: format!("{title}\n\nViews: {key}\n"),
        title,
        details: json!({"video_id": subject, "title": "Cats", "threshold": key}),
        sends: vec![
            ("slack".into(), "https://hooks.slack.com/services/x".into()),
            ("email".into(), "ann@example.com".into()),
        ],
        webhook: None,
    }
}

/// A send as `alert_events` lists it.
fn send(channel: &str, target: &str, status: &str, attempts: i64) -> AlertSend {
    AlertSend {
        channel: channel.into(),
        target: target.into(),
        status: status.into(),
        attempts,
        last_error: None,
        sent_at: None,
    }
}

#[rstest]
#[tokio::test]
async fn rules_are_the_organizations_own(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    let summer = new_campaign(&store, acme, "Summer").await;
    let foreign = new_campaign(&store, other, "Summer").await;

    // Created later, listed last: the list is by creation time.
    let late = create(&store, acme, rule("Late", None), at(2, 10, 0)).await;
    let early = create(&store, acme, rule("Early", Some(summer)), at(2, 9, 0)).await;
    assert_eq!(late.organization_id, acme);
    assert_eq!(
        (late.campaign_id, late.campaign_name.as_deref()),
        (None, None)
    );
    assert_eq!(
        (late.name.as_str(), late.kind.as_str()),
        ("Late", "views_milestone")
    );
    assert_eq!(late.params, json!({"thresholds": [1000, 10000]}));
    assert_eq!(late.channels, rule("", None).channels);
    assert!(late.enabled);
    assert_eq!(
        (late.evaluated_at, late.last_fired_at, late.events),
        (None, None, 0)
    );
    assert_eq!(
        (late.created_at, late.updated_at),
        (at(2, 10, 0), at(2, 10, 0))
    );
    assert_eq!(early.campaign_id, Some(summer.0));
    assert_eq!(early.campaign_name.as_deref(), Some("Summer"));

    // Another organization's campaign, or none at all, is refused.
    for campaign in [foreign, CampaignId(Uuid::new_v4())] {
        assert_eq!(
            store
                .create_alert_rule(acme, rule("Theirs", Some(campaign)), at(2, 11, 0))
                .await
                .unwrap(),
            Err(AlertRefusal::CampaignNotFound)
        );
    }
    let theirs = create(&store, other, rule("Theirs", Some(foreign)), at(2, 8, 0)).await;
    let ids = |rules: Vec<AlertRule>| rules.into_iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.alert_rules(acme).await.unwrap()),
        [early.id, late.id]
    );
    assert_eq!(ids(store.alert_rules(other).await.unwrap()), [theirs.id]);
    assert_eq!(
        store.alert_rule(acme, late.id).await.unwrap(),
        Some(late.clone())
    );
    assert_eq!(store.alert_rule(other, late.id).await.unwrap(), None);
    assert_eq!(store.alert_rule(acme, theirs.id).await.unwrap(), None);

    // Each change alone; the rest stays.
    let change = |changes: AlertRuleChanges, minute: u32| {
        let store = store.clone();
        async move {
            store
                .update_alert_rule(acme, late.id, changes, at(3, 0, minute))
                .await
                .unwrap()
                .unwrap()
        }
    };
    let renamed = change(
        AlertRuleChanges {
            name: Some("Renamed".into()),
            ..AlertRuleChanges::default()
        },
        1,
    )
    .await;
    assert_eq!(
        renamed,
        AlertRule {
            name: "Renamed".into(),
            updated_at: at(3, 0, 1),
            ..late.clone()
        }
    );
    let scoped = change(
        AlertRuleChanges {
            campaign_id: Some(Some(summer.0)),
            ..AlertRuleChanges::default()
        },
        2,
    )
    .await;
    assert_eq!(scoped.campaign_id, Some(summer.0));
    assert_eq!(scoped.campaign_name.as_deref(), Some("Summer"));
    assert_eq!(
        (scoped.name.as_str(), scoped.updated_at),
        ("Renamed", at(3, 0, 2))
    );
    let params = json!({"thresholds": [5]});
    let channels = json!([{"type": "webhooks"}]);
    let changed = change(
        AlertRuleChanges {
            params: Some(params.clone()),
            channels: Some(channels.clone()),
            enabled: Some(false),
            ..AlertRuleChanges::default()
        },
        3,
    )
    .await;
    assert_eq!((&changed.params, &changed.channels), (&params, &channels));
    assert!(!changed.enabled);
    assert_eq!(changed.campaign_id, Some(summer.0), "kept");
    let whole = change(
        AlertRuleChanges {
            campaign_id: Some(None),
            ..AlertRuleChanges::default()
        },
        4,
    )
    .await;
    assert_eq!(
        (whole.campaign_id, whole.campaign_name.as_deref()),
        (None, None)
    );
    assert_eq!(
        (&whole.params, whole.enabled, whole.kind.as_str()),
        (&params, false, "views_milestone")
    );
    assert_eq!(whole.created_at, at(2, 10, 0));

    // Refused: another organization's campaign; another organization's
    // rule, or an unknown one, is not found. Nothing changes.
    let foreign_scope = AlertRuleChanges {
        campaign_id: Some(Some(foreign.0)),
        ..AlertRuleChanges::default()
    };
    assert_eq!(
        store
            .update_alert_rule(acme, late.id, foreign_scope, at(4, 0, 0))
            .await
            .unwrap(),
        Err(AlertRefusal::CampaignNotFound)
    );
    for (who, id) in [(other, late.id), (acme, theirs.id), (acme, Uuid::new_v4())] {
        let rename = AlertRuleChanges {
            name: Some("Hijacked".into()),
            ..AlertRuleChanges::default()
        };
        assert_eq!(
            store
                .update_alert_rule(who, id, rename, at(4, 0, 0))
                .await
                .unwrap(),
            Err(AlertRefusal::NotFound)
        );
    }
    assert_eq!(store.alert_rule(acme, late.id).await.unwrap(), Some(whole));
    assert_eq!(
        store
            .alert_rule(other, theirs.id)
            .await
            .unwrap()
            .unwrap()
            .name,
        "Theirs"
    );

    // Deleted by its organization only, once.
    assert!(!store.delete_alert_rule(other, late.id).await.unwrap());
    assert!(store.delete_alert_rule(acme, late.id).await.unwrap());
    assert!(!store.delete_alert_rule(acme, late.id).await.unwrap());
    assert_eq!(store.alert_rule(acme, late.id).await.unwrap(), None);
    // A campaign's rules go with it (and their firings).
    store
        .fire_alert(firing(&early, "v1", "1000"), at(4, 0, 0))
        .await
        .unwrap()
        .unwrap();
    assert!(
        store
            .delete_campaign(acme, summer, at(4, 1, 0))
            .await
            .unwrap()
    );
    assert!(store.alert_rules(acme).await.unwrap().is_empty());
    assert_eq!(
        store.alert_events(acme, early.id, 10, 0).await.unwrap(),
        (vec![], 0)
    );
    assert_eq!(ids(store.alert_rules(other).await.unwrap()), [theirs.id]);
}

#[rstest]
#[tokio::test]
async fn an_organization_has_at_most_max_rules_even_when_created_at_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    for n in 0..MAX_RULES - 4 {
        create(&store, acme, rule(&format!("r{n}"), None), at(2, 0, 0)).await;
    }
    let tasks: Vec<_> = (0..10)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .create_alert_rule(acme, rule(&format!("c{n}"), None), at(2, 1, 0))
                    .await
            })
        })
        .collect();
    let mut refused = 0;
    for t in tasks {
        match t.await.unwrap().unwrap() {
            Ok(_) => {}
            Err(AlertRefusal::TooMany) => refused += 1,
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(refused, 6);
    let rules = store.alert_rules(acme).await.unwrap();
    assert_eq!(rules.len() as i64, MAX_RULES);
    assert_eq!(
        store
            .create_alert_rule(acme, rule("one more", None), at(2, 2, 0))
            .await
            .unwrap(),
        Err(AlertRefusal::TooMany)
    );
    // Another organization has its own; a deleted rule frees its place.
    create(&store, other, rule("theirs", None), at(2, 2, 0)).await;
    assert!(store.delete_alert_rule(acme, rules[0].id).await.unwrap());
    create(&store, acme, rule("again", None), at(2, 3, 0)).await;
}

#[rstest]
#[tokio::test]
async fn the_worker_evaluates_enabled_rules_and_records_its_pass(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    let a = create(&store, acme, rule("a", None), at(2, 9, 0)).await;
    let off = NewAlertRule {
        enabled: false,
        ..rule("off", None)
    };
    create(&store, acme, off, at(2, 9, 1)).await;
    let b = create(&store, other, rule("b", None), at(2, 9, 2)).await;
    let paused = create(&store, acme, rule("paused", None), at(2, 9, 3)).await;
    let pause = AlertRuleChanges {
        enabled: Some(false),
        ..AlertRuleChanges::default()
    };
    store
        .update_alert_rule(acme, paused.id, pause, at(2, 9, 4))
        .await
        .unwrap()
        .unwrap();
    let enabled = store.enabled_alert_rules().await.unwrap();
    assert_eq!(
        enabled,
        [a.clone(), b.clone()],
        "every organization's, oldest first"
    );

    store
        .alert_rule_evaluated(a.id, at(2, 10, 0))
        .await
        .unwrap();
    store
        .alert_rule_evaluated(a.id, at(2, 10, 1))
        .await
        .unwrap();
    store
        .alert_rule_evaluated(Uuid::new_v4(), at(2, 10, 1))
        .await
        .unwrap();
    let passed = store.alert_rule(acme, a.id).await.unwrap().unwrap();
    assert_eq!(passed.evaluated_at, Some(at(2, 10, 1)));
    assert_eq!(passed.updated_at, a.updated_at, "a pass is no change");
    let enabled = store.enabled_alert_rules().await.unwrap();
    assert_eq!(
        enabled.iter().map(|r| r.evaluated_at).collect::<Vec<_>>(),
        [Some(at(2, 10, 1)), None]
    );
}
