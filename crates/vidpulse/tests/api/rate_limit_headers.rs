//! The `RateLimit-Policy` and `RateLimit` headers of `/v1` answers and the
//! general request budget (docs/api.md, "Rate limits"), with the budgets
//! kept in the process and shared through Redis.

use std::collections::BTreeMap;

use rstest::rstest;
use serde_json::json;
use vidpulse_api::rate_limit::{Budget, RateLimitConfig, RateLimits, collecting};
use vidpulse_domain::{ApiKeyId, OrgId, Plan};
use vidpulse_store::Backend;

use crate::helpers::{
    Answer, TestApp, TestConfig, assert_flat_error, assert_nested_error, youtube,
};
use crate::processes::redis_url;

/// Where the budgets are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limiter {
    Local,
    Redis,
}

/// Rate limits of `limiter`, the general budget `requests` a minute.
fn limits(limiter: Limiter, requests: u32) -> RateLimitConfig {
    RateLimitConfig {
        requests_per_minute: requests,
        redis_url: (limiter == Limiter::Redis).then(redis_url),
        ..RateLimitConfig::default()
    }
}

fn config(rate_limits: RateLimitConfig) -> TestConfig {
    let mut config = TestConfig::default();
    config.api.rate_limits = rate_limits;
    config
}

/// One structured-field item: its name and its parameters.
fn item(header: &str) -> (String, BTreeMap<String, String>) {
    let mut parts = header.split(';');
    let name = parts.next().unwrap().trim();
    assert!(
        name.starts_with('"') && name.ends_with('"'),
        "a quoted name: {header}"
    );
    let params = parts
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.trim().to_owned(), v.trim().to_owned())
        })
        .collect();
    (name.trim_matches('"').to_owned(), params)
}

/// The answer's budget: policy name, quota, window, remaining, reset; both
/// headers required and naming the same policy.
fn budget(a: &Answer) -> (String, u64, u64, u64, u64) {
    let header = |name: &str| {
        a.headers
            .get(name)
            .unwrap_or_else(|| panic!("no {name} on {} {}", a.status, a.body))
            .to_str()
            .unwrap()
            .to_owned()
    };
    let (policy, p) = item(&header("ratelimit-policy"));
    let (name, r) = item(&header("ratelimit"));
    assert_eq!(policy, name, "one policy in both headers");
    let n = |m: &BTreeMap<String, String>, k: &str| m[k].parse::<u64>().unwrap();
    (policy, n(&p, "q"), n(&p, "w"), n(&r, "r"), n(&r, "t"))
}

fn no_budget(a: &Answer) {
    assert!(!a.headers.contains_key("ratelimit"), "{}", a.status);
    assert!(!a.headers.contains_key("ratelimit-policy"), "{}", a.status);
}

/// Every answer to a request with a valid key carries the general budget,
/// success or error, in either error form; the budget spent, requests
/// are refused with 429 and `Retry-After`, spending and charging nothing;
/// requests without a valid key carry no budget.
#[rstest]
#[tokio::test]
async fn every_v1_answer_carries_the_key_budget(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
    #[values(Limiter::Local, Limiter::Redis)] limiter: Limiter,
) {
    let app = TestApp::spawn_with(backend, config(limits(limiter, 5))).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;

    let a = app.get("/v1/whoami", Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200);
    let (policy, q, w, r, t) = budget(&a);
    assert_eq!((policy.as_str(), q, w, r), ("default", 5, 60, 4));
    // One of five a minute comes back in 12 s.
    assert!((11..=12).contains(&t), "t={t}");
    assert_eq!(a.body["data"]["rate_limits"][0]["remaining"], 4);
    assert_eq!(
        a.body["data"]["rate_limits_shared"],
        limiter == Limiter::Redis
    );

    // Errors carry it too: a nested 404, a flat 400.
    let a = app
        .get(
            &format!("/v1/videos/by-id/{}", uuid::Uuid::new_v4()),
            Some(&key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 404);
    assert_eq!(budget(&a).3, 3);
    let a = app.get("/v1/videos/stats?sort=nope", Some(&key)).await;
    assert_flat_error(&a, 400, "INVALID_PARAMETER");
    let (_, _, _, r, t) = budget(&a);
    assert_eq!(r, 2);
    assert!((35..=36).contains(&t), "t={t}");
    let a = app
        .post("/v1/videos/track", &key, &json!({"urls": []}))
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(budget(&a).3, 1);
    let a = app.get("/v1/account/usage", Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200);
    assert_eq!(budget(&a).3, 0);

    // Spent: 429 with Retry-After, in the endpoint's own form.
    let a = app.get("/v1/account/usage", Some(&key)).await;
    assert_flat_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    let retry: u64 = a.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=12).contains(&retry), "retry {retry}");
    let (policy, q, _, r, t) = budget(&a);
    assert_eq!((policy.as_str(), q, r), ("default", 5, 0));
    assert!(t >= retry && t <= 60, "t={t}");
    let a = app
        .post("/v1/videos/track", &key, &json!({"urls": [youtube(1)]}))
        .await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    assert!(
        a.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requests per minute")
    );
    assert_eq!(budget(&a).3, 0);

    // Nothing tracked, nothing charged.
    let now = app.clock_now();
    let (_, used) = app
        .store
        .plan_use(OrgId(org), now, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.tracked_videos, 0);
    app.flush_usage().await;
    let days = app
        .store
        .usage_history(OrgId(org), now.date_naive())
        .await
        .unwrap();
    assert_eq!(days.iter().map(|d| d.credits_used).sum::<i64>(), 0);
    // Another key has its own budget.
    let a = app.get("/v1/videos/stats", Some(&other)).await;
    assert_eq!(budget(&a).3, 4);

    // No valid key: no budget is known, none is reported.
    let a = app.get("/v1/whoami", None).await;
    assert_nested_error(&a, 401, "MISSING_AUTH");
    no_budget(&a);
    let bad = format!("vpk_{}", "x".repeat(40));
    let a = app.get("/v1/videos/stats", Some(&bad)).await;
    assert_flat_error(&a, 401, "INVALID_API_KEY");
    no_budget(&a);
    // An unknown path, or method, is answered before any key is looked at.
    let a = app.get("/v1/nothing", Some(&other)).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    no_budget(&a);
    let a = app
        .send_json(
            reqwest::Method::PUT,
            "/v1/videos/stats",
            Some(&other),
            &json!({}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 405);
    no_budget(&a);
    // Outside /v1, nothing.
    no_budget(&app.get("/healthz", None).await);
    let a = app.get("/v1/videos/stats", Some(&other)).await;
    assert_eq!(budget(&a).3, 3, "the 404 and 405 spent nothing");
}

/// A route with a budget of its own reports it once it is the tighter; a
/// refusal reports the budget that refused.
#[rstest]
#[tokio::test]
async fn a_routes_own_budget_is_reported_when_tighter(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
    #[values(Limiter::Local, Limiter::Redis)] limiter: Limiter,
) {
    let rate_limits = RateLimitConfig {
        creator_requests_per_minute: 2,
        videos_per_minute: 10,
        ..limits(limiter, 40)
    };
    let app = TestApp::spawn_with(backend, config(rate_limits)).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;

    let track = |username: &str| {
        let (app, key) = (&app, &key);
        let body = json!({"platform": "tiktok", "username": username, "initial_videos_count": 1});
        async move { app.post("/v1/bloggers/track", key, &body).await }
    };
    let a = track("ana.one").await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    let (policy, q, w, r, _) = budget(&a);
    assert_eq!((policy.as_str(), q, w, r), ("creator-track", 2, 60, 1));
    let job = a.body["data"]["job_id"].as_str().unwrap().to_owned();
    let a = app
        .get(&format!("/v1/bloggers/jobs/{job}"), Some(&key))
        .await;
    let (policy, q, _, r, _) = budget(&a);
    assert_eq!((policy.as_str(), q, r), ("job-status", 2, 1));
    let a = track("ana.two").await;
    assert_eq!(budget(&a).3, 0);
    let a = track("ana.three").await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    let retry: u64 = a.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=30).contains(&retry), "retry {retry}");
    let (policy, _, _, r, t) = budget(&a);
    assert_eq!((policy.as_str(), r), ("creator-track", 0));
    assert!(t >= retry, "t={t}");

    // Two URLs: of 10 a minute, 8 left, the smallest share (the general
    // budget has 35 of 40).
    let a = app
        .post(
            "/v1/videos/track",
            &key,
            &json!({"urls": [youtube(1), youtube(2)]}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.headers["ratelimit-policy"].to_str().unwrap(),
        "\"track-urls\";q=10;w=60;qu=\"urls\""
    );
    assert_eq!(budget(&a).3, 8);
    // More URLs than are left: refused, none spent.
    let urls: Vec<String> = (10..19).map(youtube).collect();
    let a = app
        .post("/v1/videos/track", &key, &json!({"urls": urls}))
        .await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    let (policy, _, _, r, _) = budget(&a);
    assert_eq!((policy.as_str(), r), ("track-urls", 8));
    // Other reads report the general budget, spent by every request above
    // (one unit comes back every 1.5 s).
    let a = app.get("/v1/videos/stats", Some(&key)).await;
    let (policy, q, _, r, _) = budget(&a);
    assert_eq!((policy.as_str(), q), ("default", 40));
    assert!((33..=34).contains(&r), "r={r}");
}

/// A second API node on the same database: with Redis both report and
/// spend one budget; in the process each keeps its own.
#[rstest]
#[tokio::test]
async fn api_nodes_share_the_budget_through_redis(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
    #[values(Limiter::Local, Limiter::Redis)] limiter: Limiter,
) {
    let rate_limits = limits(limiter, 10);
    let app = TestApp::spawn_with(backend, config(rate_limits.clone())).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (second, shutdown, server) = app.second_node(rate_limits.clone()).await;

    let on = |node: usize| {
        let (app, key, second) = (&app, &key, &second);
        async move {
            let base = if node == 0 {
                app.address.clone()
            } else {
                second.clone()
            };
            let response = app
                .client
                .get(format!("{base}/v1/whoami"))
                .bearer_auth(key)
                .send()
                .await
                .unwrap();
            TestApp::answer(response).await
        }
    };
    let mut left = Vec::new();
    for i in 0..4 {
        left.push(budget(&on(i % 2).await).3);
    }
    let key_id = ApiKeyId(
        on(0).await.body["data"]["api_key"]["id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap(),
    );
    match limiter {
        Limiter::Redis => {
            assert_eq!(left, [9, 8, 7, 6], "one budget across the nodes");
            // A third limiter on the same Redis sees, and spends, the same.
            let third = RateLimits::new(&rate_limits);
            let peeked = third.peek(Budget::Requests, key_id).await.unwrap();
            assert_eq!(peeked.remaining, 5);
            let (admitted, states) = collecting(third.check_request(key_id)).await;
            assert!(admitted.is_ok());
            assert_eq!(states[0].remaining, 4);
            assert_eq!(budget(&on(1).await).3, 3);
        }
        Limiter::Local => {
            assert_eq!(left, [9, 9, 8, 8], "each node its own budget");
        }
    }
    shutdown.cancel();
    server.await.unwrap().unwrap();
}
