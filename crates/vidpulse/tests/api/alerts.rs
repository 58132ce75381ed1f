//! Alert rules over HTTP and in the worker: created, listed, changed and
//! deleted on both interfaces, refused when wrong (writing nothing); each
//! kind fires exactly once with imported and simulated readings, even with
//! two workers racing, and is delivered to a Slack-shaped receiver, the
//! outbox (e-mail) and the organization's webhooks (`alert.triggered`).

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;
use vidpulse_worker::Tick;

use crate::analytics::{HEADER, import};
use crate::dashboard::{Team, call, team, track_creator};
use crate::helpers::{TestApp, TestConfig, assert_nested_error};
use crate::receiver::Receiver;

const ALERTS: &str = "/v1/alerts";

/// A server whose mail goes to an outbox folder and whose chat and webhook
/// posts may reach 127.0.0.1; the outbox kept alive.
async fn app_with_outbox(backend: Backend) -> (TestApp, tempfile::TempDir) {
    let outbox = tempfile::tempdir().unwrap();
    let mut config = TestConfig::default();
    config.api.mail.outbox = outbox.path().to_owned();
    config.webhooks.allow_private = true;
    (TestApp::spawn_with(backend, config).await, outbox)
}

/// Every message in the outbox folder (any depth), as text.
fn mails(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(mails(&path));
        } else {
            out.push(std::fs::read_to_string(path).unwrap());
        }
    }
    out
}

/// Creates a rule from `body`, expecting 201; its `data`.
async fn create(app: &TestApp, key: &str, body: Value) -> Value {
    let a = app.post(ALERTS, key, &body).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    a.body["data"].clone()
}

/// The firings of rule `id`.
async fn events(app: &TestApp, key: &str, id: &Value) -> Vec<Value> {
    let a = app
        .get(
            &format!("{ALERTS}/{}/events", id.as_str().unwrap()),
            Some(key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"].as_array().unwrap().clone()
}

/// Runs alert passes until one does nothing.
async fn run_alerts_until_idle(app: &TestApp) -> usize {
    let mut total = 0;
    loop {
        match vidpulse_worker::alerts::tick(&app.services.notify)
            .await
            .unwrap()
        {
            Tick::Worked(n) => total += n,
            Tick::Idle => return total,
        }
    }
}

/// An instant as the import file writes it.
fn at(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A CSV line of a TikTok video `id` by `who`, published at `published`,
/// read at `read` with `views`.
fn line(id: &str, who: &str, published: DateTime<Utc>, read: DateTime<Utc>, views: i64) -> String {
    format!(
        "tiktok,{id},{},{views},0,0,0,,{who},{}",
        at(read),
        at(published)
    )
}

/// Imports `lines` into `org`.
async fn import_lines(app: &TestApp, org: &str, lines: &[String]) {
    let text = format!("{HEADER}\n{}\n", lines.join("\n"));
    import(app, org.parse().unwrap(), &text).await.unwrap();
}

const V1: &str = "7100000000000000001";
const V2: &str = "7100000000000000002";

#[rstest]
#[tokio::test]
async fn alert_rules_are_created_listed_changed_and_deleted(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, _outbox) = app_with_outbox(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
    } = team(&app).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let slack = "http://127.0.0.1:9/services/T0/B0/secretWXYZ";

    let rule = create(
        &app,
        &key,
        json!({"name": " Big hits ", "kind": "views_milestone",
               "params": {"thresholds": [1000, 10000]},
               "channels": [{"type": "email", "to": ["ED@example.com"]},
                            {"type": "slack", "url": slack},
                            {"type": "webhooks"}]}),
    )
    .await;
    assert_eq!(rule["name"], "Big hits");
    assert_eq!(rule["kind"], "views_milestone");
    assert_eq!(rule["enabled"], true);
    assert_eq!(rule["campaign_id"], Value::Null);
    assert_eq!(rule["events"], 0);
    assert_eq!(rule["channels"][1]["url"], "http://127.0.0.1/…WXYZ");
    assert!(!rule.to_string().contains("secretWXYZ"), "never whole");
    let to = rule["channels"][0]["to"][0].as_str().unwrap();
    assert!(Uuid::parse_str(to).is_ok(), "a member's id: {to}");
    let id = rule["id"].as_str().unwrap();
    let path = format!("{ALERTS}/{id}");

    // Listed and read on both interfaces, by any member.
    let listed = app.get(ALERTS, Some(&key)).await;
    assert_eq!(listed.body["data"].as_array().unwrap().len(), 1);
    let seen = call(
        &app,
        Method::GET,
        "/dashboard/alerts",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(seen.status.as_u16(), 200, "{}", seen.body);
    assert_eq!(seen.body["data"][0]["id"], id);
    assert_eq!(app.get(&path, Some(&key)).await.body["data"], rule);

    // Changed: a masked URL sent back keeps the saved one.
    let a = app
        .patch(
            &path,
            &key,
            &json!({"name": "Hits", "enabled": false,
                    "channels": [{"type": "slack", "url": "http://127.0.0.1/…WXYZ"}]}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["name"], "Hits");
    assert_eq!(a.body["data"]["enabled"], false);
    let saved = app
        .store
        .alert_rule(
            vidpulse_domain::OrgId(org.parse().unwrap()),
            id.parse().unwrap(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(saved.channels, json!([{"type": "slack", "url": slack}]));

    // Editors write on the dashboard; viewers do not.
    let body = json!({"name": "Gone", "kind": "video_unavailable",
                      "channels": [{"type": "webhooks"}]});
    let a = call(
        &app,
        Method::POST,
        "/dashboard/alerts",
        &viewer,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(
        &app,
        Method::POST,
        "/dashboard/alerts",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(a.body["data"]["params"], json!({}));

    // Another organization's rule is not found, like an unknown one.
    for p in [
        path.clone(),
        format!("{path}/events"),
        format!("{ALERTS}/{}", Uuid::new_v4()),
        format!("{ALERTS}/nope"),
    ] {
        assert_nested_error(&app.get(&p, Some(&other)).await, 404, "NOT_FOUND");
    }
    assert_nested_error(
        &app.patch(&path, &other, &json!({"enabled": true})).await,
        404,
        "NOT_FOUND",
    );
    assert_nested_error(&app.delete(&path, &other).await, 404, "NOT_FOUND");

    // Deleted.
    let a = app.delete(&path, &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"], json!({"id": id, "deleted": true}));
    assert_nested_error(&app.get(&path, Some(&key)).await, 404, "NOT_FOUND");
    assert_eq!(
        app.get(ALERTS, Some(&key)).await.body["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // The free plan reads but does not write.
    let (_, free) = app.org_with_key(Plan::Free).await;
    assert_eq!(app.get(ALERTS, Some(&free)).await.status.as_u16(), 200);
    assert_nested_error(
        &app.post(ALERTS, &free, &body).await,
        402,
        "PAID_PLAN_REQUIRED",
    );
}

#[rstest]
#[tokio::test]
async fn bad_alert_rules_are_refused_and_write_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, _outbox) = app_with_outbox(backend).await;
    let Team { key, .. } = team(&app).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let theirs = app
        .post("/v1/campaigns", &other, &json!({"name": "Theirs"}))
        .await;
    let theirs = theirs.body["data"]["id"].clone();
    let hook = json!([{"type": "webhooks"}]);
    let cases = [
        (
            json!({"kind": "velocity", "params": {"views": 1, "hours": 1}, "channels": hook}),
            400,
            "name",
        ),
        (
            json!({"name": 5, "kind": "velocity", "channels": hook}),
            400,
            "name",
        ),
        (
            json!({"name": " ", "kind": "velocity", "channels": hook}),
            400,
            "name",
        ),
        (
            json!({"name": "x".repeat(201), "kind": "video_unavailable", "channels": hook}),
            400,
            "name",
        ),
        (
            json!({"name": "a", "kind": "likes", "channels": hook}),
            400,
            "kind",
        ),
        (
            json!({"name": "a", "kind": "views_milestone", "params": {"thresholds": []}, "channels": hook}),
            400,
            "params.thresholds",
        ),
        (
            json!({"name": "a", "kind": "views_milestone", "params": {"thresholds": [10, 5]}, "channels": hook}),
            400,
            "params.thresholds[1]",
        ),
        (
            json!({"name": "a", "kind": "views_milestone", "params": {"thresholds": ["10"]}, "channels": hook}),
            400,
            "params.thresholds[0]",
        ),
        (
            json!({"name": "a", "kind": "views_milestone", "params": {"thresholds": (1..=21).collect::<Vec<i64>>()}, "channels": hook}),
            400,
            "params.thresholds",
        ),
        (
            json!({"name": "a", "kind": "velocity", "params": {"views": 10, "hours": 0}, "channels": hook}),
            400,
            "params.hours",
        ),
        (
            json!({"name": "a", "kind": "velocity", "params": {"views": 0, "hours": 2}, "channels": hook}),
            400,
            "params.views",
        ),
        (
            json!({"name": "a", "kind": "outlier", "params": {"factor": 1}, "channels": hook}),
            400,
            "params.factor",
        ),
        (
            json!({"name": "a", "kind": "outlier", "params": {"factor": 3, "min_videos": 2}, "channels": hook}),
            400,
            "params.min_videos",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "params": {"x": 1}, "channels": hook}),
            400,
            "params.x",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "params": [1], "channels": hook}),
            400,
            "params",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable"}),
            400,
            "channels",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": []}),
            400,
            "channels",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": [{"type": "sms"}]}),
            400,
            "channels[0].type",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": [{"type": "webhooks"}, {"type": "webhooks"}]}),
            400,
            "channels[1]",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": [{"type": "slack", "url": "ftp://example.com/x"}]}),
            400,
            "channels[0].url",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": [{"type": "discord"}]}),
            400,
            "channels[0].url",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": [{"type": "email", "to": []}]}),
            400,
            "channels[0].to",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": [{"type": "email", "to": ["ed@example.com", "stranger@example.com"]}]}),
            422,
            "channels[0].to[1]",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": hook, "campaign_id": theirs}),
            400,
            "campaign_id",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": hook, "campaign_id": "nope"}),
            400,
            "campaign_id",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": hook, "enabled": "yes"}),
            400,
            "enabled",
        ),
        (
            json!({"name": "a", "kind": "video_unavailable", "channels": hook, "colour": 1}),
            400,
            "colour",
        ),
    ];
    for (body, status, field) in cases {
        let a = app.post(ALERTS, &key, &body).await;
        assert_nested_error(&a, status, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body} → {}", a.body);
    }
    let a = app
        .send_raw(
            Method::POST,
            ALERTS,
            Some(&key),
            "application/json",
            "{\"name\": ",
        )
        .await;
    assert_eq!(a.status.as_u16(), 400, "{}", a.body);
    assert_eq!(app.get(ALERTS, Some(&key)).await.body["data"], json!([]));

    // A change is checked by the rule's kind; `kind` cannot change.
    let rule = create(
        &app,
        &key,
        json!({"name": "a", "kind": "velocity", "params": {"views": 10, "hours": 2}, "channels": hook}),
    )
    .await;
    let path = format!("{ALERTS}/{}", rule["id"].as_str().unwrap());
    for (body, field) in [
        (json!({}), "body"),
        (json!({"params": {"thresholds": [1]}}), "params.thresholds"),
        (json!({"kind": "outlier"}), "kind"),
        (
            json!({"channels": [{"type": "email", "to": ["stranger@example.com"]}]}),
            "channels[0].to[0]",
        ),
    ] {
        let a = app.patch(&path, &key, &body).await;
        assert_eq!(a.body["error"]["field"], field, "{body} → {}", a.body);
    }
    assert_eq!(app.get(&path, Some(&key)).await.body["data"], rule);
}

#[rstest]
#[tokio::test]
async fn each_video_kind_fires_once_and_is_delivered(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, outbox) = app_with_outbox(backend).await;
    let Team { org, key, .. } = team(&app).await;
    let chat = Receiver::start().await;
    let hooks = Receiver::start().await;
    let a = app
        .post(
            "/v1/webhooks",
            &key,
            &json!({"url": hooks.url, "events": ["alert.triggered"]}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);

    // Before the rules: V1 by mira (and three older videos of hers), V2 by ana.
    let t0 = app.clock.now();
    let day = Duration::days(1);
    let mut before = vec![
        line(V1, "mira", t0 - day * 10, t0 - Duration::hours(1), 500),
        line(V2, "ana", t0 - day, t0 - Duration::hours(1), 100),
    ];
    for n in 0..3 {
        let id = format!("71000000000000001{n}0");
        let published = t0 - day * (20 + n);
        before.push(line(&id, "mira", published, published + day, 100));
        before.push(line(
            &id,
            "mira",
            published,
            published + day * 3,
            200 + i64::from(n),
        ));
    }
    import_lines(&app, &org, &before).await;

    let slack = json!({"type": "slack", "url": chat.url});
    let milestones = create(
        &app,
        &key,
        json!({"name": "Milestones", "kind": "views_milestone",
               "params": {"thresholds": [100, 1000, 10000, 100000]},
               "channels": [{"type": "email", "to": ["ed@example.com"]}, slack, {"type": "webhooks"}]}),
    )
    .await;
    let velocity = create(
        &app,
        &key,
        json!({"name": "Fast", "kind": "velocity", "params": {"views": 5000, "hours": 3},
               "channels": [slack]}),
    )
    .await;
    let outlier = create(
        &app,
        &key,
        json!({"name": "Outliers", "kind": "outlier", "params": {"factor": 3, "min_videos": 3},
               "channels": [slack]}),
    )
    .await;
    let gone = create(
        &app,
        &key,
        json!({"name": "Gone", "kind": "video_unavailable", "channels": [slack]}),
    )
    .await;
    // Nothing read since the rules: nothing fires (V1's 500 views passed 100 before).
    assert_eq!(run_alerts_until_idle(&app).await, 0);

    // An hour later: V1 jumps to 12,000 views, V2 to 150 and is gone.
    app.advance(Duration::hours(2));
    let t1 = t0 + Duration::hours(1);
    import_lines(
        &app,
        &org,
        &[
            line(V1, "mira", t0 - day * 10, t1, 12_000),
            line(V2, "ana", t0 - day, t1, 150),
        ],
    )
    .await;
    vidpulse_store::testing::execute(
        &app.db.url,
        &[&format!(
            "UPDATE platform_videos SET gone_at = (SELECT max(captured_at) FROM imported_observations)
             WHERE external_id = '{V2}'"
        )],
    )
    .await
    .unwrap();

    // Two workers race, then one more pass: each firing once.
    let other = app.services.notify.clone();
    let (a, b) = tokio::join!(
        vidpulse_worker::alerts::tick(&app.services.notify),
        vidpulse_worker::alerts::tick(&other)
    );
    a.unwrap();
    b.unwrap();
    run_alerts_until_idle(&app).await;
    run_alerts_until_idle(&app).await;

    let fired = events(&app, &key, &milestones["id"]).await;
    let thresholds: Vec<&str> = fired
        .iter()
        .map(|e| e["threshold"].as_str().unwrap())
        .collect();
    assert_eq!(thresholds.len(), 2, "{fired:?}");
    assert!(thresholds.contains(&"1000") && thresholds.contains(&"10000"));
    let first = &fired[0];
    assert_eq!(first["details"]["views"], 12_000);
    assert!(
        first["message"].as_str().unwrap().contains("/videos/"),
        "{first}"
    );
    assert!(
        first["message"].as_str().unwrap().contains("@mira"),
        "{first}"
    );
    let mut channels: Vec<(String, String)> = first["sends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["channel"].as_str().unwrap().to_owned(),
                s["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    channels.sort();
    let sent = |c: &str| (c.to_owned(), "sent".to_owned());
    assert_eq!(channels, [sent("email"), sent("slack"), sent("webhooks")]);
    for (rule, subject) in [
        (&velocity, "velocity"),
        (&outlier, "outlier"),
        (&gone, "unavailable"),
    ] {
        let fired = events(&app, &key, &rule["id"]).await;
        assert_eq!(fired.len(), 1, "{subject}: {fired:?}");
        assert_eq!(fired[0]["threshold"], subject);
    }
    let listed = app.get(ALERTS, Some(&key)).await.body["data"].clone();
    assert_eq!(listed[0]["events"], 2);
    assert!(listed[0]["last_fired_at"].is_string());

    // Delivered: five chat posts in Slack's shape, two e-mails, two webhook events.
    let posts = chat.received();
    assert_eq!(posts.len(), 5, "{posts:?}");
    assert!(posts.iter().all(|p| p.json()["text"].is_string()));
    let mails = mails(outbox.path());
    assert_eq!(mails.len(), 2);
    assert!(
        mails
            .iter()
            .all(|m| m.contains("ed@example.com") && m.contains("Milestones"))
    );
    app.run_webhooks_until_idle().await;
    let triggered = hooks.of_type("alert.triggered");
    assert_eq!(triggered.len(), 2);
    assert_eq!(triggered[0].json()["data"]["rule_name"], "Milestones");

    // Later passes send nothing again.
    app.advance(Duration::hours(1));
    assert_eq!(run_alerts_until_idle(&app).await, 0);
    assert_eq!(chat.received().len(), 5);
}

#[rstest]
#[tokio::test]
async fn failed_chat_posts_are_retried_then_recorded(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, _outbox) = app_with_outbox(backend).await;
    let Team { org, key, .. } = team(&app).await;
    let chat = Receiver::start().await;
    chat.fail_next(100);
    let t0 = app.clock.now();
    import_lines(
        &app,
        &org,
        &[line(
            V1,
            "mira",
            t0 - Duration::days(1),
            t0 - Duration::hours(1),
            5,
        )],
    )
    .await;
    let rule = create(
        &app,
        &key,
        json!({"name": "M", "kind": "views_milestone", "params": {"thresholds": [10]},
               "channels": [{"type": "discord", "url": chat.url}]}),
    )
    .await;
    app.advance(Duration::hours(1));
    import_lines(
        &app,
        &org,
        &[line(
            V1,
            "mira",
            t0 - Duration::days(1),
            t0 + Duration::minutes(30),
            50,
        )],
    )
    .await;
    run_alerts_until_idle(&app).await;
    for wait in [1, 10, 60] {
        app.advance(Duration::minutes(wait));
        run_alerts_until_idle(&app).await;
    }
    let fired = events(&app, &key, &rule["id"]).await;
    assert_eq!(fired.len(), 1);
    let send = &fired[0]["sends"][0];
    assert_eq!(send["status"], "failed", "{send}");
    assert_eq!(send["attempts"], 4);
    assert_eq!(send["last_error"], "the chat answered 500");
    assert!(
        send["target"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1/…")
    );
    assert_eq!(chat.received().len(), 4);
    assert!(
        chat.received()[0].json()["content"].is_string(),
        "Discord's shape"
    );
}

/// The tracked creator's followers as last read.
async fn followers(app: &TestApp, key: &str) -> i64 {
    let a = app
        .get("/v1/bloggers/by-username/miracooks", Some(key))
        .await;
    a.body["data"]["blogger"]["follower_count"]
        .as_i64()
        .unwrap()
}

#[rstest]
#[tokio::test]
async fn a_follower_milestone_fires_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, _outbox) = app_with_outbox(backend).await;
    let Team { key, .. } = team(&app).await;
    let chat = Receiver::start().await;
    track_creator(&app, &key, "miracooks", 1).await;
    app.run_jobs_until_idle().await;
    let base = followers(&app, &key).await;
    let rule = create(
        &app,
        &key,
        json!({"name": "Fans", "kind": "followers_milestone",
               "params": {"thresholds": [base + 1]},
               "channels": [{"type": "slack", "url": chat.url}]}),
    )
    .await;
    for _ in 0..10 {
        app.advance(Duration::days(1));
        app.run_discovery_until_idle().await;
        run_alerts_until_idle(&app).await;
        if followers(&app, &key).await > base {
            break;
        }
    }
    assert!(followers(&app, &key).await > base, "the simulation grows");
    run_alerts_until_idle(&app).await;
    let fired = events(&app, &key, &rule["id"]).await;
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(fired[0]["threshold"], (base + 1).to_string());
    assert_eq!(chat.received().len(), 1);
    assert!(
        chat.received()[0].json()["text"]
            .as_str()
            .unwrap()
            .contains("followers")
    );
}

#[rstest]
#[tokio::test]
async fn a_rule_is_tested_on_each_channel_without_a_firing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, outbox) = app_with_outbox(backend).await;
    let t = team(&app).await;
    let chat = Receiver::start().await;
    let rule = create(
        &app,
        &t.key,
        json!({"name": "Launch watch", "kind": "video_unavailable", "params": {},
               "channels": [{"type": "email", "to": ["ed@example.com", "vi@example.com"]},
                            {"type": "discord", "url": chat.url}, {"type": "webhooks"}]}),
    )
    .await;
    let id = rule["id"].as_str().unwrap();
    let path = format!("{ALERTS}/{id}/test");

    let a = app.post(&path, &t.key, &json!({})).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let sends = a.body["data"]["sends"].as_array().unwrap().clone();
    let summary: Vec<(&str, &str)> = sends
        .iter()
        .map(|s| {
            (
                s["channel"].as_str().unwrap(),
                s["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("email", "sent"),
            ("email", "sent"),
            ("discord", "sent"),
            ("webhooks", "skipped")
        ]
    );
    assert_eq!(sends[0]["target"], "ed@example.com");
    assert!(
        !a.body.to_string().contains(chat.url.as_str()),
        "the chat URL is masked"
    );
    // Discord's body, and two e-mails that say they are a test.
    let posted = chat.received();
    assert_eq!(posted.len(), 1);
    assert!(
        posted[0].json()["content"]
            .as_str()
            .unwrap()
            .contains("“Launch watch”")
    );
    let mails = mails(outbox.path());
    assert_eq!(mails.len(), 2, "{mails:?}");
    assert!(mails.iter().all(|m| m.contains("test")));
    // No firing is recorded.
    let events = app
        .get(&format!("{ALERTS}/{id}/events"), Some(&t.key))
        .await;
    assert_eq!(events.body["data"], json!([]));

    // Again at once: refused with when to retry; nothing sent.
    let a = app.post(&path, &t.key, &json!({})).await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    assert!(a.headers.get("retry-after").is_some());
    assert_eq!(chat.received().len(), 1);

    // A failing chat is told, not hidden; a viewer may not test; another
    // organization's rule is unknown.
    let failing = create(
        &app,
        &t.key,
        json!({"name": "Broken", "kind": "video_unavailable", "params": {},
               "channels": [{"type": "slack", "url": chat.url}]}),
    )
    .await;
    chat.fail_next(1);
    let broken = format!("{ALERTS}/{}/test", failing["id"].as_str().unwrap());
    let a = app.post(&broken, &t.key, &json!({})).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["sends"][0]["status"], "failed");
    assert!(a.body["data"]["sends"][0]["error"].as_str().is_some());
    let dash = format!("/dashboard/alerts/{}/test", failing["id"].as_str().unwrap());
    let a = call(&app, Method::POST, &dash, &t.viewer, Some(&t.org), None).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let a = app.post(&path, &other, &json!({})).await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Two tests of one rule at once: one is sent, the other refused.
    let fresh = create(
        &app,
        &t.key,
        json!({"name": "Twice", "kind": "video_unavailable", "params": {},
               "channels": [{"type": "email", "to": ["ed@example.com"]}]}),
    )
    .await;
    let twice = format!("{ALERTS}/{}/test", fresh["id"].as_str().unwrap());
    let empty = json!({});
    let (a, b) = tokio::join!(
        app.post(&twice, &t.key, &empty),
        app.post(&twice, &t.key, &empty)
    );
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 429]);
}
