//! Idempotent writes: `Idempotency-Key` on the public API's POSTs. A retry
//! answers the first answer without doing or charging anything again, the
//! same key with another request is refused, concurrent retries wait for
//! the first, keys are per organization and kept a day, and every POST of
//! `/v1` takes one.

use chrono::Duration;
use reqwest::header::HeaderValue;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::Plan;
use vidpulse_platforms::SimulatedConfig;
use vidpulse_store::Backend;

use crate::helpers::{
    Answer, INSTAGRAM, TIKTOK, TestApp, TestConfig, YOUTUBE, assert_nested_error,
};

const REPLAYED: &str = "idempotent-replayed";

/// `POST path` with API key `key`, `Idempotency-Key: idem` and JSON `body`.
async fn post(app: &TestApp, path: &str, key: &str, idem: &str, body: &Value) -> Answer {
    let req = app
        .client
        .post(app.url(path))
        .bearer_auth(key)
        .header("idempotency-key", idem)
        .json(body);
    TestApp::answer(req.send().await.unwrap()).await
}

fn replayed(a: &Answer) -> bool {
    a.headers.get(REPLAYED).is_some_and(|v| v == "true")
}

async fn credits(app: &TestApp, key: &str) -> i64 {
    app.flush_usage().await;
    let a = app.get("/v1/account/usage", Some(key)).await;
    a.body["data"]["summary"]["total_credits_30_days"]
        .as_i64()
        .unwrap()
}

async fn video_count(app: &TestApp, key: &str) -> i64 {
    let a = app.get("/v1/videos/stats?limit=100", Some(key)).await;
    a.body["data"]["pagination"]["total"].as_i64().unwrap()
}

/// Tracks the TikTok test video as `key`: the path of its manual refresh.
async fn refresh_path(app: &TestApp, key: &str) -> String {
    let tracked = app.track(key, &[TIKTOK]).await;
    let id = tracked["data"]["results"][0]["video_id"].as_str().unwrap();
    format!("/v1/videos/by-id/{id}/refresh")
}

/// Asserts that `retry` is `first` again: status, body, its headers and
/// request id, marked as a replay.
fn assert_replay(first: &Answer, retry: &Answer) {
    assert!(!replayed(first), "the first answer is no replay");
    assert!(replayed(retry), "{:?}", retry.headers);
    assert_eq!(retry.status, first.status);
    assert_eq!(retry.body, first.body);
    for name in ["content-type", "location", "retry-after", "x-request-id"] {
        assert_eq!(retry.headers.get(name), first.headers.get(name), "{name}");
    }
}

#[rstest]
#[tokio::test]
async fn a_retry_answers_the_first_answer_and_charges_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let track = json!({ "urls": [TIKTOK] });
    let first = post(&app, "/v1/videos/track", &key, "order-42", &track).await;
    assert_eq!(first.status.as_u16(), 200, "{}", first.body);
    assert_eq!(first.body["data"]["results"][0]["status"], "tracked");
    let retry = post(&app, "/v1/videos/track", &key, "order-42", &track).await;
    assert_replay(&first, &retry);
    assert_eq!(retry.body["meta"]["request_id"], retry.request_id());
    assert_eq!(credits(&app, &key).await, 30, "charged once");
    assert_eq!(video_count(&app, &key).await, 1);

    // The same key with another body, or on another path: 422, nothing done.
    let other = json!({ "urls": [YOUTUBE] });
    let a = post(&app, "/v1/videos/track", &key, "order-42", &other).await;
    assert_nested_error(&a, 422, "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(a.body["error"]["field"], "Idempotency-Key");
    let a = post(&app, "/v1/bloggers/track", &key, "order-42", &track).await;
    assert_nested_error(&a, 422, "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(video_count(&app, &key).await, 1);
    // Without a key, or with a new one, requests run as ever.
    let a = app.post("/v1/videos/track", &key, &track).await;
    assert_eq!(a.body["data"]["results"][0]["status"], "already_tracked");
    let a = post(&app, "/v1/videos/track", &key, "order-43", &other).await;
    assert!(!replayed(&a));
    assert_eq!(a.body["data"]["results"][0]["status"], "tracked");
    assert_eq!(credits(&app, &key).await, 60);

    // A 202 comes back with its Location and Retry-After; a refusal is an
    // answer too.
    let creator =
        json!({"platform": "tiktok", "username": "ana_builds", "initial_videos_count": 1});
    let first = post(&app, "/v1/bloggers/track", &key, "creator-1", &creator).await;
    assert_eq!(first.status.as_u16(), 202, "{}", first.body);
    let retry = post(&app, "/v1/bloggers/track", &key, "creator-1", &creator).await;
    assert_replay(&first, &retry);
    assert_eq!(app.run_jobs_until_idle().await, 1, "one job");
    let bad = json!({"platform": "vimeo", "username": "x"});
    let first = post(&app, "/v1/bloggers/track", &key, "creator-2", &bad).await;
    assert_nested_error(&first, 400, "VALIDATION_ERROR");
    let retry = post(&app, "/v1/bloggers/track", &key, "creator-2", &bad).await;
    assert_replay(&first, &retry);
    assert_nested_error(&retry, 400, "VALIDATION_ERROR");
}

#[rstest]
#[tokio::test]
async fn rate_limits_and_server_errors_leave_the_key_to_a_retry(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let path = refresh_path(&app, &key).await;
    app.run_worker_until_idle().await;
    let a = post(&app, &path, &key, "refresh-1", &json!({})).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    // Within the cooldown: 429, not kept; the retry after it does the work.
    let a = post(&app, &path, &key, "refresh-2", &json!({})).await;
    assert_nested_error(&a, 429, "REFRESH_TOO_SOON");
    let a = post(&app, &path, &key, "refresh-2", &json!({})).await;
    assert_nested_error(&a, 429, "REFRESH_TOO_SOON");
    assert!(!replayed(&a));
    app.advance(Duration::minutes(10));
    let first = post(&app, &path, &key, "refresh-2", &json!({})).await;
    assert_eq!(first.status.as_u16(), 200, "{}", first.body);
    assert_eq!(first.body["data"]["fresh"], true);
    let retry = post(&app, &path, &key, "refresh-2", &json!({})).await;
    assert_replay(&first, &retry);
    assert_eq!(credits(&app, &key).await, 31, "one fresh read, once");

    // A platform failure (502) is not kept either.
    let config = TestConfig {
        sim: SimulatedConfig {
            fail_rate: 1.0,
            ..SimulatedConfig::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let path = refresh_path(&app, &key).await;
    for _ in 0..2 {
        let a = post(&app, &path, &key, "refresh-3", &json!({})).await;
        assert_nested_error(&a, 502, "EXTERNAL_API_ERROR");
        assert!(!replayed(&a));
    }
}

#[rstest]
#[tokio::test]
async fn concurrent_retries_wait_for_the_first(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let body = json!({ "urls": [TIKTOK, YOUTUBE] });
    let answers = futures::future::join_all(
        (0..8).map(|_| post(&app, "/v1/videos/track", &key, "burst", &body)),
    )
    .await;
    let first: Vec<&Answer> = answers.iter().filter(|a| !replayed(a)).collect();
    assert_eq!(first.len(), 1, "exactly one does the work");
    for a in &answers {
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        assert_eq!(a.body, first[0].body);
        assert_eq!(a.request_id(), first[0].request_id());
    }
    assert_eq!(first[0].body["meta"]["summary"]["tracked"], 2);
    assert_eq!(video_count(&app, &key).await, 2);
    assert_eq!(credits(&app, &key).await, 60);
}

#[rstest]
#[tokio::test]
async fn keys_are_per_organization(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, a_key) = app.org_with_key(Plan::Pro).await;
    let (_, b_key) = app.org_with_key(Plan::Pro).await;
    let body = json!({ "urls": [TIKTOK] });
    let a = post(&app, "/v1/videos/track", &a_key, "shared-key", &body).await;
    let b = post(&app, "/v1/videos/track", &b_key, "shared-key", &body).await;
    for answer in [&a, &b] {
        assert_eq!(answer.status.as_u16(), 200, "{}", answer.body);
        assert!(!replayed(answer));
        assert_eq!(answer.body["data"]["results"][0]["status"], "tracked");
    }
    assert_ne!(a.request_id(), b.request_id());
    // B's key is its own: another body is B's business, not A's.
    let other = json!({ "urls": [YOUTUBE] });
    let b2 = post(&app, "/v1/videos/track", &b_key, "shared-key", &other).await;
    assert_nested_error(&b2, 422, "IDEMPOTENCY_KEY_REUSED");
    assert!(replayed(
        &post(&app, "/v1/videos/track", &a_key, "shared-key", &body).await
    ));
    assert_eq!(credits(&app, &a_key).await, 30);
    assert_eq!(credits(&app, &b_key).await, 30);
}

#[rstest]
#[tokio::test]
async fn keys_are_kept_a_day(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let body = json!({ "urls": [TIKTOK] });
    let first = post(&app, "/v1/videos/track", &key, "daily", &body).await;
    assert_eq!(first.status.as_u16(), 200, "{}", first.body);
    let other = post(
        &app,
        "/v1/videos/track",
        &key,
        "only-once",
        &json!({"urls": [YOUTUBE]}),
    )
    .await;
    assert_eq!(other.status.as_u16(), 200, "{}", other.body);

    app.advance(Duration::hours(23));
    assert_replay(
        &first,
        &post(&app, "/v1/videos/track", &key, "daily", &body).await,
    );
    let changed = json!({ "urls": [INSTAGRAM] });
    let a = post(&app, "/v1/videos/track", &key, "daily", &changed).await;
    assert_nested_error(&a, 422, "IDEMPOTENCY_KEY_REUSED");

    // Past 24 hours the key is new again: the request runs.
    app.advance(Duration::hours(1) + Duration::seconds(1));
    let a = post(&app, "/v1/videos/track", &key, "daily", &changed).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert!(!replayed(&a));
    assert_eq!(a.body["data"]["results"][0]["status"], "tracked");

    // The hourly housekeeping deletes the keys past their day ("only-once"),
    // not the one just used again.
    vidpulse_worker::housekeeping::tick(&app.services.refresh).await;
    let later = app.clock_now() + Duration::seconds(1);
    assert_eq!(app.store.prune_idempotency_keys(later).await.unwrap(), 1);
}

#[rstest]
#[tokio::test]
async fn bad_keys_are_refused_and_do_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let body = json!({ "urls": [TIKTOK] });
    let long = "k".repeat(256);
    for bad in [
        HeaderValue::from_static(""),
        HeaderValue::from_str(&long).unwrap(),
        HeaderValue::from_static("two words"),
        HeaderValue::from_bytes("clé".as_bytes()).unwrap(),
    ] {
        let req = app
            .client
            .post(app.url("/v1/videos/track"))
            .bearer_auth(&key)
            .header("idempotency-key", bad.clone())
            .json(&body);
        let a = TestApp::answer(req.send().await.unwrap()).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], "Idempotency-Key", "{bad:?}");
    }
    let req = app
        .client
        .post(app.url("/v1/videos/track"))
        .bearer_auth(&key)
        .header("idempotency-key", "a")
        .header("idempotency-key", "b")
        .json(&body);
    let a = TestApp::answer(req.send().await.unwrap()).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // 255 visible characters are fine.
    let a = post(&app, "/v1/videos/track", &key, &"k".repeat(255), &body).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(credits(&app, &key).await, 30);
    // The key is checked once the caller is known.
    let req = app
        .client
        .post(app.url("/v1/videos/track"))
        .header("idempotency-key", "x")
        .json(&body);
    let a = TestApp::answer(req.send().await.unwrap()).await;
    assert_nested_error(&a, 401, "MISSING_AUTH");
    let a = post(&app, "/v1/videos/track", "vp_not_a_key", "x", &body).await;
    assert_nested_error(&a, 401, "INVALID_API_KEY");
}

#[rstest]
#[tokio::test]
async fn every_post_of_v1_takes_a_key(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let doc = app.get("/openapi.json", None).await.body;
    let mut posts = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(operation) = item.get("post").filter(|_| path.starts_with("/v1/")) else {
            continue;
        };
        posts += 1;
        let documented = operation["parameters"].as_array().is_some_and(|ps| {
            ps.iter()
                .any(|p| p["name"] == "Idempotency-Key" && p["in"] == "header")
        });
        assert!(documented, "{path} does not document Idempotency-Key");
        // Path parameters name nothing the organization has: each answer
        // is a 4xx, kept like any other.
        let concrete: String = path
            .split('/')
            .map(|part| {
                if part.starts_with('{') {
                    "00000000-0000-0000-0000-000000000000"
                } else {
                    part
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        let idem = format!("every-post-{posts}");
        let first = post(&app, &concrete, &key, &idem, &json!({})).await;
        assert!(
            first.status.is_client_error(),
            "{path}: {} {}",
            first.status,
            first.body
        );
        let retry = post(&app, &concrete, &key, &idem, &json!({})).await;
        assert_replay(&first, &retry);
        let other = post(&app, &concrete, &key, &idem, &json!({"other": true})).await;
        assert_nested_error(&other, 422, "IDEMPOTENCY_KEY_REUSED");
    }
    assert!(posts >= 10, "{posts} POST operations under /v1");
}

#[rstest]
#[tokio::test]
async fn a_first_request_cut_off_or_dead_frees_its_key(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let config = TestConfig {
        api: vidpulse_api::ApiConfig {
            connections: vidpulse_api::ConnectionLimits {
                request_timeout: std::time::Duration::from_secs(2),
                ..vidpulse_api::ConnectionLimits::default()
            },
            ..vidpulse_api::ApiConfig::default()
        },
        sim: SimulatedConfig {
            latency: std::time::Duration::from_secs(3),
            ..SimulatedConfig::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let path = refresh_path(&app, &key).await;

    // Cut off by the time limit (the platform is slow): nothing kept, and
    // the key is free at once for whatever request comes with it.
    let a = post(&app, &path, &key, "slow", &json!({})).await;
    assert_nested_error(&a, 408, "REQUEST_TIMEOUT");
    let other = json!({ "urls": [YOUTUBE] });
    let mut freed = None;
    for _ in 0..20 {
        let a = post(&app, "/v1/videos/track", &key, "slow", &other).await;
        if a.status.as_u16() != 422 {
            freed = Some(a);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let a = freed.expect("the key was freed");
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["results"][0]["status"], "tracked");

    // A node died holding a key: retries wait, then take it over once its
    // lease (the time limit and 30 s) has run out.
    let body = json!({ "urls": [INSTAGRAM] });
    let fingerprint = vidpulse_domain::idempotency::fingerprint(
        "POST",
        "/v1/videos/track",
        &serde_json::to_vec(&body).unwrap(),
    );
    let claim = app
        .store
        .claim_idempotency_key(
            vidpulse_domain::OrgId(org),
            "orphan",
            &fingerprint,
            app.clock_now(),
            Duration::seconds(32),
            Duration::hours(24),
        )
        .await
        .unwrap();
    assert!(matches!(claim, vidpulse_store::KeyClaim::Claimed { .. }));
    let a = post(&app, "/v1/videos/track", &key, "orphan", &body).await;
    assert_nested_error(&a, 408, "REQUEST_TIMEOUT");
    assert_eq!(
        video_count(&app, &key).await,
        2,
        "the waiting retry did nothing"
    );
    app.advance(Duration::seconds(32));
    let a = post(&app, "/v1/videos/track", &key, "orphan", &body).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert!(!replayed(&a));
    assert_eq!(a.body["data"]["results"][0]["status"], "tracked");
    let retry = post(&app, "/v1/videos/track", &key, "orphan", &body).await;
    assert_replay(&a, &retry);
}
