//! Webhooks through the API: endpoints managed, events written with their
//! cause, deliveries signed (Standard Webhooks), retried with backoff,
//! logged, replayed, secrets rotated, failing endpoints disabled, and
//! private addresses refused unless allowed.

use chrono::Duration;
use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::helpers::{TIKTOK, TestApp, TestConfig, YOUTUBE, assert_nested_error};
use crate::receiver::Receiver;

const ALL_EVENTS: [&str; 7] = [
    "video.tracked",
    "video.milestone",
    "video.tracking_completed",
    "video.unavailable",
    "creator.job.succeeded",
    "creator.job.failed",
    "creator.video_discovered",
];

/// Creates an endpoint for `events` at `url`; its id and secret.
async fn endpoint(app: &TestApp, key: &str, url: &str, events: &[&str]) -> (String, String) {
    let a = app
        .post(
            "/v1/webhooks",
            key,
            &json!({ "url": url, "events": events }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    (
        a.body["data"]["id"].as_str().unwrap().to_owned(),
        a.body["data"]["secret"].as_str().unwrap().to_owned(),
    )
}

async fn deliveries(app: &TestApp, key: &str, id: &str) -> Vec<Value> {
    let a = app
        .get(
            &format!("/v1/webhooks/{id}/deliveries?limit=100"),
            Some(key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"].as_array().unwrap().clone()
}

#[rstest]
#[tokio::test]
async fn endpoints_are_managed(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Free).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;

    let a = app
        .post(
            "/v1/webhooks",
            &key,
            &json!({ "url": "https://hooks.example.com/vidpulse", "description": " CRM ",
                     "events": ["video.tracked", "creator.job.failed", "video.tracked"] }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let d = &a.body["data"];
    let id = d["id"].as_str().unwrap().to_owned();
    let secret = d["secret"].as_str().unwrap();
    assert!(
        secret.starts_with("whsec_") && secret.len() > 30,
        "{secret}"
    );
    assert_eq!(d["events"], json!(["video.tracked", "creator.job.failed"]));
    assert_eq!(
        (d["enabled"].as_bool(), d["description"].as_str()),
        (Some(true), Some("CRM"))
    );

    // Listed and read without the secret.
    let listed = app.get("/v1/webhooks", Some(&key)).await;
    assert_eq!(listed.body["data"].as_array().unwrap().len(), 1);
    assert!(listed.body["data"][0].get("secret").is_none());
    let read = app.get(&format!("/v1/webhooks/{id}"), Some(&key)).await;
    assert_eq!(
        read.body["data"]["url"],
        "https://hooks.example.com/vidpulse"
    );
    assert!(read.body["data"].get("secret").is_none());

    // Updated field by field.
    let a = app
        .patch(
            &format!("/v1/webhooks/{id}"),
            &key,
            &json!({ "events": ["video.milestone"], "description": null, "enabled": false }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["events"], json!(["video.milestone"]));
    assert!(a.body["data"]["description"].is_null());
    assert_eq!(a.body["data"]["enabled"], false);

    // Rotated: a new secret, the old one valid a day more.
    let a = app
        .post(
            &format!("/v1/webhooks/{id}/rotate-secret"),
            &key,
            &json!({}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_ne!(a.body["data"]["secret"].as_str().unwrap(), secret);
    assert!(a.body["data"]["previous_secret_expires_at"].is_string());

    // Another organization sees none of it.
    for path in [
        format!("/v1/webhooks/{id}"),
        format!("/v1/webhooks/{id}/deliveries"),
    ] {
        assert_nested_error(&app.get(&path, Some(&other)).await, 404, "NOT_FOUND");
    }
    for path in [
        format!("/v1/webhooks/{id}/rotate-secret"),
        format!("/v1/webhooks/{id}/test"),
    ] {
        assert_nested_error(&app.post(&path, &other, &json!({})).await, 404, "NOT_FOUND");
    }
    let a = app
        .patch(
            &format!("/v1/webhooks/{id}"),
            &other,
            &json!({ "enabled": true }),
        )
        .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert_eq!(
        app.get("/v1/webhooks", Some(&other)).await.body["data"],
        json!([])
    );

    // Bad input: a clear error, nothing written.
    for (body, field) in [
        (json!({ "events": ["video.tracked"] }), "url"),
        (
            json!({ "url": "https://x.example", "events": [] }),
            "events",
        ),
        (
            json!({ "url": "https://x.example", "events": ["video.*"] }),
            "events",
        ),
        (
            json!({ "url": "https://x.example", "events": "video.tracked" }),
            "events",
        ),
        (
            json!({ "url": "ftp://x.example", "events": ["video.tracked"] }),
            "url",
        ),
        (
            json!({ "url": "not a url", "events": ["video.tracked"] }),
            "url",
        ),
        (json!({ "url": 5, "events": ["video.tracked"] }), "url"),
        (
            json!({ "url": "https://x.example", "events": ["video.tracked"], "secret": "mine" }),
            "secret",
        ),
        (
            json!({ "url": "https://x.example", "events": ["video.tracked"], "description": "d".repeat(501) }),
            "description",
        ),
        (json!(["https://x.example"]), "body"),
    ] {
        let a = app.post("/v1/webhooks", &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let a = app
        .send_raw(
            reqwest::Method::POST,
            "/v1/webhooks",
            Some(&key),
            "application/json",
            "{",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    for (body, field) in [
        (json!({}), "body"),
        (json!({ "enabled": "yes" }), "enabled"),
        (json!({ "url": "gopher://x" }), "url"),
        (json!({ "events": ["nope"] }), "events"),
    ] {
        let a = app.patch(&format!("/v1/webhooks/{id}"), &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let a = app
        .get(
            &format!("/v1/webhooks/{id}/deliveries?status=lost"),
            Some(&key),
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = app
        .post(
            &format!("/v1/webhooks/{id}/replay"),
            &key,
            &json!({ "since": "yesterday" }),
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(
        app.get("/v1/webhooks", Some(&key)).await.body["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(app.get("/v1/webhooks", None).await.status.as_u16(), 401);

    // At most 20 endpoints.
    for n in 1..20 {
        endpoint(
            &app,
            &key,
            &format!("https://h{n}.example.com/"),
            &["video.tracked"],
        )
        .await;
    }
    let a = app
        .post(
            "/v1/webhooks",
            &key,
            &json!({ "url": "https://one-more.example", "events": ["video.tracked"] }),
        )
        .await;
    assert_nested_error(&a, 422, "WEBHOOK_LIMIT");

    // Deleted: gone, and a second delete is 404.
    let path = format!("/v1/webhooks/{id}");
    let a = app
        .send_json(reqwest::Method::DELETE, &path, Some(&key), &Value::Null)
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_nested_error(&app.get(&path, Some(&key)).await, 404, "NOT_FOUND");
    let a = app
        .send_json(reqwest::Method::DELETE, &path, Some(&key), &Value::Null)
        .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
}

#[rstest]
#[tokio::test]
async fn every_event_is_delivered_signed(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, quiet) = app.org_with_key(Plan::Pro).await;
    let receiver = Receiver::start().await;
    let (hook, secret) = endpoint(&app, &key, &receiver.url, &ALL_EVENTS).await;
    // The sweep of ended windows starts counting now.
    app.run_webhooks_until_idle().await;

    // video.tracked, with the video's fields; none for an organization
    // without an endpoint.
    let tracked = app.track(&key, &[TIKTOK]).await;
    app.track(&quiet, &[YOUTUBE]).await;
    let video_id = tracked["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(app.run_webhooks_until_idle().await, 1);
    let got = receiver.of_type("video.tracked");
    assert_eq!(got.len(), 1);
    let body = got[0].json();
    assert_eq!(
        body.as_object().unwrap().len(),
        3,
        "type, timestamp, data: {body}"
    );
    assert_eq!(body["data"]["video_id"], video_id.as_str());
    assert_eq!(body["data"]["external_video_id"], "7301234567890123456");
    assert_eq!(body["data"]["platform"], "tiktok");
    assert_eq!(body["data"]["source"], "api");
    assert!(got[0].signed_by(&secret), "{:?}", got[0]);
    assert!(!got[0].signed_by(&vidpulse_domain::webhooks::new_secret()));
    assert!(Uuid::parse_str(&got[0].id).is_ok());

    // creator.job.succeeded and .failed; creator.video_discovered.
    for username in ["ana_builds", "unknown_someone"] {
        let a = app
            .post(
                "/v1/bloggers/track",
                &key,
                &json!({ "platform": "tiktok", "username": username, "initial_videos_count": 2 }),
            )
            .await;
        assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    }
    app.run_jobs_until_idle().await;
    app.run_webhooks_until_idle().await;
    let ok = receiver.of_type("creator.job.succeeded");
    assert_eq!(ok.len(), 1);
    assert_eq!(ok[0].json()["data"]["username"], "ana_builds");
    assert_eq!(ok[0].json()["data"]["videos_tracked"], 2);
    let failed = receiver.of_type("creator.job.failed");
    assert_eq!(failed.len(), 1);
    assert!(failed[0].json()["data"]["error"]["code"].is_string());
    let backfilled = receiver.of_type("video.tracked");
    assert_eq!(backfilled.len(), 3, "the backfill's two videos too");
    assert!(
        backfilled
            .iter()
            .any(|r| r.json()["data"]["source"] == "creator_backfill")
    );
    let mut discovered = Vec::new();
    for _ in 0..4 {
        app.advance(Duration::days(1));
        app.run_discovery_until_idle().await;
        app.run_webhooks_until_idle().await;
        discovered = receiver.of_type("creator.video_discovered");
        if !discovered.is_empty() {
            break;
        }
    }
    assert!(
        !discovered.is_empty(),
        "the channel posts at least every 72 hours"
    );
    assert_eq!(
        discovered[0].json()["data"]["creator"]["username"],
        "ana_builds"
    );

    // video.unavailable: the platform reports the video gone.
    app.run_worker_until_idle().await;
    app.source.set_gone("7301234567890123456", true);
    app.advance(Duration::hours(2));
    app.run_worker_until_idle().await;
    app.run_webhooks_until_idle().await;
    let gone = receiver.of_type("video.unavailable");
    assert_eq!(gone.len(), 1);
    assert_eq!(gone[0].json()["data"]["video_id"], video_id.as_str());

    // video.tracking_completed: each window that ends, once.
    app.advance(Duration::days(31));
    app.run_webhooks_until_idle().await;
    app.run_webhooks_until_idle().await;
    let completed = receiver.of_type("video.tracking_completed");
    assert_eq!(
        completed.len(),
        1 + 2 + discovered.len(),
        "every video of the organization"
    );
    assert!(completed.iter().all(|r| r.signed_by(&secret)));

    // Each delivery logged as delivered, with its answer.
    let log = deliveries(&app, &key, &hook).await;
    assert_eq!(log.len(), receiver.received().len());
    assert!(log.iter().all(|d| d["status"] == "delivered"
        && d["attempts"] == 1
        && d["last_status_code"] == 204
        && d["last_latency_ms"].is_i64()));
}

#[rstest]
#[tokio::test]
async fn failures_are_retried_until_the_receiver_recovers(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let receiver = Receiver::start().await;
    let (hook, secret) = endpoint(&app, &key, &receiver.url, &["video.tracked"]).await;
    app.track(&key, &[TIKTOK]).await;
    receiver.fail_next(2);

    assert_eq!(app.run_webhooks_until_idle().await, 1);
    let log = deliveries(&app, &key, &hook).await;
    assert_eq!(
        (
            log[0]["status"].as_str(),
            log[0]["attempts"].as_i64(),
            log[0]["last_status_code"].as_i64()
        ),
        (Some("pending"), Some(1), Some(500))
    );
    assert_eq!(log[0]["last_error"], "the endpoint answered 500");
    // Not before its time (5 s, give or take a fifth).
    assert_eq!(app.run_webhooks_until_idle().await, 0);
    app.advance(Duration::seconds(7));
    assert_eq!(app.run_webhooks_until_idle().await, 1);
    app.advance(Duration::minutes(3));
    assert_eq!(
        app.run_webhooks_until_idle().await,
        0,
        "the next wait is 5 minutes"
    );
    app.advance(Duration::minutes(4));
    assert_eq!(app.run_webhooks_until_idle().await, 1);

    let got = receiver.received();
    assert_eq!(got.len(), 3);
    assert!(
        got.iter().all(|r| r.id == got[0].id),
        "one webhook-id on every attempt"
    );
    assert!(got.iter().all(|r| r.body == got[0].body));
    assert!(got.iter().all(|r| r.signed_by(&secret)));
    assert_ne!(got[0].timestamp, got[2].timestamp);
    let log = deliveries(&app, &key, &hook).await;
    assert_eq!(
        (
            log[0]["status"].as_str(),
            log[0]["attempts"].as_i64(),
            log[0]["last_status_code"].as_i64()
        ),
        (Some("delivered"), Some(3), Some(204))
    );

    // A receiver that never recovers: 8 attempts over more than a day.
    app.post(&format!("/v1/webhooks/{hook}/test"), &key, &json!({}))
        .await;
    receiver.fail_next(100);
    let mut attempts = 0;
    for _ in 0..40 {
        attempts += app.run_webhooks_until_idle().await;
        app.advance(Duration::hours(1));
    }
    assert_eq!(attempts, 8);
    let failed = app
        .get(
            &format!("/v1/webhooks/{hook}/deliveries?status=failed"),
            Some(&key),
        )
        .await;
    assert_eq!(failed.body["meta"]["pagination"]["total"], 1);
    assert_eq!(failed.body["data"][0]["event_type"], "webhook.test");
    assert!(failed.body["data"][0]["next_attempt_at"].is_null());
}

#[rstest]
#[tokio::test]
async fn deliveries_replay_and_secrets_rotate(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let receiver = Receiver::start().await;
    let (hook, old) = endpoint(&app, &key, &receiver.url, &["video.tracked"]).await;
    let start = app.clock_now();
    app.track(&key, &[TIKTOK]).await;
    app.advance(Duration::minutes(1));
    app.track(&key, &[YOUTUBE]).await;
    app.run_webhooks_until_idle().await;
    assert_eq!(receiver.received().len(), 2);

    // One delivery again: a new delivery, the same webhook-id.
    let log = deliveries(&app, &key, &hook).await;
    let first = log.last().unwrap();
    let a = app
        .post(
            &format!(
                "/v1/webhooks/{hook}/deliveries/{}/replay",
                first["id"].as_str().unwrap()
            ),
            &key,
            &json!({}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    assert_eq!(a.body["data"]["status"], "pending");
    app.run_webhooks_until_idle().await;
    let got = receiver.received();
    assert_eq!(got.len(), 3);
    assert_eq!(got[2].id, first["event_id"].as_str().unwrap());

    // Every event since an instant.
    let since = (start + Duration::seconds(30)).to_rfc3339();
    let a = app
        .post(
            &format!("/v1/webhooks/{hook}/replay"),
            &key,
            &json!({ "since": since }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    assert_eq!(a.body["data"]["queued"], 1);
    let a = app
        .post(
            &format!("/v1/webhooks/{hook}/replay"),
            &key,
            &json!({ "since": start.to_rfc3339() }),
        )
        .await;
    assert_eq!(a.body["data"]["queued"], 2);
    app.run_webhooks_until_idle().await;
    assert_eq!(receiver.received().len(), 6);
    let a = app
        .post(
            &format!("/v1/webhooks/{hook}/deliveries/{}/replay", Uuid::now_v7()),
            &key,
            &json!({}),
        )
        .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Rotation: both secrets sign for a day, then the new one alone.
    let a = app
        .post(
            &format!("/v1/webhooks/{hook}/rotate-secret"),
            &key,
            &json!({}),
        )
        .await;
    let new = a.body["data"]["secret"].as_str().unwrap().to_owned();
    app.post(&format!("/v1/webhooks/{hook}/test"), &key, &json!({}))
        .await;
    app.run_webhooks_until_idle().await;
    let test = receiver.received().pop().unwrap();
    assert_eq!(test.json()["type"], "webhook.test");
    assert_eq!(test.signature.split(' ').count(), 2);
    assert!(test.signed_by(&new) && test.signed_by(&old));
    app.advance(Duration::hours(25));
    app.post(&format!("/v1/webhooks/{hook}/test"), &key, &json!({}))
        .await;
    app.run_webhooks_until_idle().await;
    let test = receiver.received().pop().unwrap();
    assert!(test.signed_by(&new) && !test.signed_by(&old));
}

#[rstest]
#[tokio::test]
async fn an_endpoint_failing_for_days_is_disabled_until_enabled(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let receiver = Receiver::start().await;
    let (hook, _) = endpoint(&app, &key, &receiver.url, &["video.tracked"]).await;
    receiver.fail_next(1000);
    for _ in 0..6 {
        app.post(&format!("/v1/webhooks/{hook}/test"), &key, &json!({}))
            .await;
        app.run_webhooks_until_idle().await;
        app.advance(Duration::days(1));
    }
    let read = app.get(&format!("/v1/webhooks/{hook}"), Some(&key)).await;
    assert_eq!(read.body["data"]["enabled"], false, "{}", read.body);
    assert!(
        read.body["data"]["disabled_reason"]
            .as_str()
            .unwrap()
            .contains("5 days")
    );
    // Disabled: nothing is sent. An event meanwhile is kept (for a replay)
    // without a delivery; a test event waits for the endpoint; the queue
    // the workers see (and /metrics shows) holds neither.
    let sent = receiver.received().len();
    let disabled_at = app.clock_now();
    app.track(&key, &[TIKTOK]).await;
    app.post(&format!("/v1/webhooks/{hook}/test"), &key, &json!({}))
        .await;
    app.advance(Duration::hours(1));
    assert_eq!(app.run_webhooks_until_idle().await, 0);
    assert_eq!(receiver.received().len(), sent);
    assert_eq!(app.store.webhook_queue().await.unwrap().pending, 0);

    // Enabled again by its owner: what waited goes out; what happened
    // while disabled goes out on a replay.
    receiver.fail_next(0);
    let a = app
        .patch(
            &format!("/v1/webhooks/{hook}"),
            &key,
            &json!({ "enabled": true }),
        )
        .await;
    assert_eq!(a.body["data"]["enabled"], true);
    assert!(
        a.body["data"]["disabled_reason"].is_null() && a.body["data"]["failing_since"].is_null()
    );
    assert!(app.run_webhooks_until_idle().await >= 1);
    assert!(!receiver.of_type("webhook.test").is_empty());
    assert!(receiver.of_type("video.tracked").is_empty());
    let a = app
        .post(
            &format!("/v1/webhooks/{hook}/replay"),
            &key,
            &json!({ "since": disabled_at.to_rfc3339() }),
        )
        .await;
    assert_eq!(a.body["data"]["queued"], 1, "{}", a.body);
    assert_eq!(app.run_webhooks_until_idle().await, 1);
    assert_eq!(receiver.of_type("video.tracked").len(), 1);
}

#[rstest]
#[tokio::test]
async fn private_addresses_are_refused_unless_allowed(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    // The operator has not allowed private addresses.
    let app = TestApp::spawn_with(backend, TestConfig::default()).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let receiver = Receiver::start().await;
    for url in [
        receiver.url.as_str(),
        "http://localhost:9/x",
        "http://[::1]/x",
        "http://10.0.0.8/x",
        "http://169.254.169.254/latest/meta-data/",
        // IPv6 forms that embed a loopback or private IPv4 address.
        "http://[::7f00:1]/x",
        "http://[::ffff:127.0.0.1]/x",
        "http://[::ffff:0:7f00:1]/x",
        "http://[2002:7f00:1::]/x",
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x",
        "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
        "http://[64:ff9b:1::a00:8]/x",
        "http://[fd12:3456::1]/x",
    ] {
        let a = app
            .post(
                "/v1/webhooks",
                &key,
                &json!({ "url": url, "events": ["video.tracked"] }),
            )
            .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], "url", "{url}");
        assert!(
            a.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("refused"),
            "{url}: {}",
            a.body
        );
    }
    assert_eq!(
        app.get("/v1/webhooks", Some(&key)).await.body["data"],
        json!([]),
        "a refused URL writes nothing"
    );
    // An endpoint whose name resolves to a private address (written behind
    // the API's back, as a DNS change would make it) is refused at delivery.
    let name = receiver.url.replace("127.0.0.1", "localhost");
    let endpoint = vidpulse_store::NewEndpoint {
        url: name,
        description: None,
        events: vec![vidpulse_domain::webhooks::EventType::VideoTracked],
        secret: vidpulse_domain::webhooks::new_secret(),
    };
    let created = app
        .store
        .create_endpoint(vidpulse_domain::OrgId(org), &endpoint, app.clock_now())
        .await
        .unwrap()
        .unwrap();
    app.track(&key, &[TIKTOK]).await;
    assert_eq!(app.run_webhooks_until_idle().await, 1);
    assert!(
        receiver.received().is_empty(),
        "nothing reached the private address"
    );
    let log = deliveries(&app, &key, &created.id.to_string()).await;
    assert!(
        log[0]["last_error"].as_str().unwrap().contains("refused"),
        "{}",
        log[0]
    );
    assert_eq!(log[0]["status"], "pending");
}
