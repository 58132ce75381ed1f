//! Scoped API keys and `GET /v1/whoami` (docs/api.md, "Scopes", "Who am I").

use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse::commands::admin;
use vidpulse_api::v1::gate::READ_ONLY_POSTS;
use vidpulse_domain::api_key::Scopes;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::helpers::{TestApp, assert_nested_error, youtube};

/// A key of `org` with `scopes`.
async fn key_with(app: &TestApp, org: Uuid, scopes: Scopes) -> String {
    admin::create_scoped_api_key(&app.store, org, Some("scoped"), scopes, app.clock.now())
        .await
        .unwrap()
        .api_key
}

/// Credits the organization of `key` was charged over the last 30 days.
async fn credits(app: &TestApp, key: &str) -> i64 {
    app.flush_usage().await;
    let usage = app.get("/v1/account/usage", Some(key)).await;
    usage.body["data"]["summary"]["total_credits_30_days"]
        .as_i64()
        .unwrap()
}

/// Every `/v1` operation of the OpenAPI document: method and path template.
fn v1_operations() -> Vec<(Method, String)> {
    let doc = vidpulse_api::openapi_document();
    let mut out = Vec::new();
    for (path, item) in &doc.paths.paths {
        if !path.starts_with("/v1/") {
            continue;
        }
        for (method, op) in [
            (Method::GET, &item.get),
            (Method::PUT, &item.put),
            (Method::POST, &item.post),
            (Method::DELETE, &item.delete),
            (Method::PATCH, &item.patch),
            (Method::HEAD, &item.head),
            (Method::OPTIONS, &item.options),
            (Method::TRACE, &item.trace),
        ] {
            if op.is_some() {
                out.push((method, path.clone()));
            }
        }
    }
    out
}

/// `template` with its `{params}` replaced by `ids` (a fresh UUID for a
/// parameter it does not know, so a new route is still called).
fn fill(template: &str, ids: &[(&str, String)]) -> String {
    let mut path = template.to_owned();
    while let Some(start) = path.find('{') {
        let end = start + path[start..].find('}').unwrap();
        let name = &path[start + 1..end];
        let value = ids
            .iter()
            .find(|(n, _)| *n == name)
            .map_or_else(|| Uuid::new_v4().to_string(), |(_, v)| v.clone());
        path.replace_range(start..=end, &value);
    }
    path
}

/// A body that would write, were the request let through.
fn body_for(method: &Method, template: &str, video_id: &str) -> Value {
    match (method.as_str(), template) {
        ("POST", "/v1/videos/track") => json!({"urls": [youtube(900)]}),
        ("PATCH", "/v1/videos/batch") => json!({"video_ids": [video_id], "notes": "changed"}),
        ("PATCH", "/v1/videos/by-external-id/{external_video_id}") => json!({"notes": "changed"}),
        ("POST", "/v1/campaigns") => json!({"name": "Another"}),
        ("PATCH", "/v1/campaigns/{campaign_id}") => json!({"name": "Renamed"}),
        ("POST", "/v1/campaigns/{campaign_id}/share-links") => json!({"label": "x"}),
        ("POST", "/v1/bloggers/track") => {
            json!({"platform": "tiktok", "username": "someone.else", "initial_videos_count": 1})
        }
        ("POST", "/v1/webhooks") => {
            json!({"url": "https://hooks.example.com/other", "events": ["video.tracked"]})
        }
        ("PATCH", "/v1/webhooks/{webhook_id}") => json!({"enabled": false}),
        ("POST", "/v1/alerts") => {
            json!({"name": "Other", "kind": "video_unavailable", "channels": [{"type": "webhooks"}]})
        }
        ("PATCH", "/v1/alerts/{alert_id}") => json!({"enabled": false}),
        _ => json!({}),
    }
}

/// Every write route of `/v1`, taken from the OpenAPI document so a new
/// route cannot be missed, refuses a read-only key with 403
/// `INSUFFICIENT_SCOPE`, aimed at real records with bodies that would
/// write; nothing changes and nothing is charged. Every read answers it.
#[rstest]
#[tokio::test]
async fn a_read_only_key_is_refused_every_write_and_nothing_changes(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, full) = app.org_with_key(Plan::Business).await;
    let reader = key_with(&app, org, Scopes::READ_ONLY).await;

    // A record of each kind for the writes to aim at.
    let tracked = app.track(&full, &[&youtube(1)]).await;
    let video_id = tracked["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let external_id = tracked["data"]["results"][0]["external_video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = app
        .post("/v1/campaigns", &full, &json!({"name": "Launch"}))
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let campaign_id = a.body["data"]["id"].as_str().unwrap().to_owned();
    let a = app
        .post(
            &format!("/v1/campaigns/{campaign_id}/share-links"),
            &full,
            &json!({}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let link_id = a.body["data"]["id"].as_str().unwrap().to_owned();
    let a = app
        .post(
            "/v1/webhooks",
            &full,
            &json!({"url": "https://hooks.example.com/vidpulse", "events": ["video.tracked"]}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let webhook_id = a.body["data"]["id"].as_str().unwrap().to_owned();
    let a = app
        .post(
            "/v1/alerts",
            &full,
            &json!({"name": "Hits", "kind": "views_milestone", "params": {"thresholds": [1000]},
                    "channels": [{"type": "webhooks"}]}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let alert_id = a.body["data"]["id"].as_str().unwrap().to_owned();
    let a = app
        .post(
            "/v1/bloggers/track",
            &full,
            &json!({"platform": "tiktok", "username": "mira.cooks", "initial_videos_count": 1}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    let job_id = a.body["data"]["job_id"].as_str().unwrap().to_owned();
    app.run_jobs_until_idle().await;
    app.track(&full, &[&youtube(2)]).await;
    app.run_worker_until_idle().await;
    // Pending, not sent: enough to name one.
    let deliveries = app
        .get(
            &format!("/v1/webhooks/{webhook_id}/deliveries"),
            Some(&full),
        )
        .await;
    let delivery_id = deliveries.body["data"][0]["id"]
        .as_str()
        .map_or_else(|| Uuid::new_v4().to_string(), str::to_owned);
    let ids = [
        ("video_id", video_id.clone()),
        ("external_video_id", external_id),
        ("campaign_id", campaign_id.clone()),
        ("id", campaign_id.clone()),
        ("link_id", link_id),
        ("webhook_id", webhook_id.clone()),
        ("delivery_id", delivery_id),
        ("alert_id", alert_id.clone()),
        ("job_id", job_id),
        ("username", "mira.cooks".to_owned()),
    ];
    let before = |path: &str| {
        let (app, full) = (&app, &full);
        let path = path.to_owned();
        async move { app.get(&path, Some(full)).await.body["data"].clone() }
    };
    let readings = [
        "/v1/videos/stats?limit=100".to_owned(),
        "/v1/campaigns".to_owned(),
        format!("/v1/campaigns/{campaign_id}/share-links"),
        "/v1/webhooks".to_owned(),
        "/v1/alerts".to_owned(),
        "/v1/bloggers".to_owned(),
    ];
    let mut seen = Vec::new();
    for path in &readings {
        seen.push(before(path).await);
    }
    let charged = credits(&app, &full).await;

    // The writes first: nothing may change, nothing be charged.
    let (writes, reads): (Vec<_>, Vec<_>) =
        v1_operations().into_iter().partition(|(method, template)| {
            !(method == Method::GET
                || method == Method::HEAD
                || (method == Method::POST && READ_ONLY_POSTS.contains(&template.as_str())))
        });
    assert!(writes.len() >= 23, "{} write routes", writes.len());
    assert!(reads.len() >= 20, "{} read routes", reads.len());
    let path_of = |template: &str| {
        let path = fill(template, &ids);
        if template.starts_with("/v1/bloggers/by-username/") {
            format!("{path}?platform=tiktok")
        } else {
            path
        }
    };
    for (method, template) in &writes {
        let body = if *method == Method::DELETE {
            Value::Null
        } else {
            body_for(method, template, &video_id)
        };
        let a = app
            .send_json(method.clone(), &path_of(template), Some(&reader), &body)
            .await;
        assert_nested_error(&a, 403, "INSUFFICIENT_SCOPE");
        let message = a.body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("`write`"),
            "{method} {template}: {message}"
        );
        assert_eq!(a.body["error"]["required_scope"], "write");
        assert_eq!(a.body["error"]["key_scopes"], json!(["read"]));
        assert!(a.headers.contains_key("ratelimit"), "{method} {template}");
    }
    // Whatever a write let through would have queued runs now.
    app.run_jobs_until_idle().await;
    app.run_worker_until_idle().await;
    for (path, then) in readings.iter().zip(&seen) {
        assert_eq!(&before(path).await, then, "{path} changed");
    }
    assert_eq!(credits(&app, &full).await, charged, "nothing charged");

    // Every read answers the read-only key (some charge, as for any key).
    for (method, template) in &reads {
        let a = if *method == Method::GET {
            app.get(&path_of(template), Some(&reader)).await
        } else {
            app.send_json(
                method.clone(),
                &path_of(template),
                Some(&reader),
                &json!({}),
            )
            .await
        };
        assert_ne!(
            a.body["error"]["code"], "INSUFFICIENT_SCOPE",
            "{method} {template}: {}",
            a.body
        );
        assert_ne!(a.status.as_u16(), 403, "{method} {template}: {}", a.body);
    }

    // The same key of full access is let through.
    let a = app
        .patch(
            &format!("/v1/campaigns/{campaign_id}"),
            &full,
            &json!({"name": "Renamed"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
}

/// A read-only key's refusal comes before the body is read, before the
/// plan's gate, and is answered to a key of another organization's record
/// the same way (the route needs `write`, whatever it names).
#[rstest]
#[tokio::test]
async fn the_scope_is_checked_before_anything_else(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, _) = app.org_with_key(Plan::Free).await;
    let reader = key_with(&app, org, Scopes::READ_ONLY).await;
    let a = app
        .send_raw(
            Method::POST,
            "/v1/videos/track",
            Some(&reader),
            "application/json",
            "{not json",
        )
        .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_SCOPE");
    // A paid operation on the free plan: the scope first.
    let a = app
        .patch(
            "/v1/videos/by-external-id/abc",
            &reader,
            &json!({"notes": "x"}),
        )
        .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_SCOPE");
    // Keys made before scopes existed, and by default, have full access.
    let (_, full) = app.org_with_key(Plan::Free).await;
    let a = app
        .patch(
            "/v1/videos/by-external-id/abc",
            &full,
            &json!({"notes": "x"}),
        )
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
}

#[rstest]
#[tokio::test]
async fn whoami_says_what_the_key_is_and_charges_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    // Budgets that refill slowly (one unit in 10 s), so the counts are exact.
    let mut config = crate::helpers::TestConfig::default();
    config.api.rate_limits.requests_per_minute = 6;
    config.api.rate_limits.videos_per_minute = 6;
    let app = TestApp::spawn_with(backend, config).await;
    let org = admin::create_org(&app.store, "Acme", Plan::Pro, None, app.clock.now())
        .await
        .unwrap()
        .organization_id;
    let created = admin::create_scoped_api_key(
        &app.store,
        org,
        Some("Looker"),
        Scopes::READ_ONLY,
        app.clock.now(),
    )
    .await
    .unwrap();
    let reader = created.api_key;
    let full = key_with(&app, org, Scopes::FULL).await;
    app.track(&full, &[&youtube(1), &youtube(2)]).await;

    let a = app.get("/v1/whoami", Some(&reader)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let data = &a.body["data"];
    assert_eq!(
        data["organization"],
        json!({"id": org, "name": "Acme", "plan": "pro", "paid_operations": true})
    );
    assert_eq!(
        data["api_key"],
        json!({"id": created.key_id, "name": "Looker", "prefix": &reader[..12], "scopes": ["read"]})
    );
    let quotas = &data["quotas"];
    assert_eq!(quotas["tracked_videos"], json!({"used": 2, "limit": 1000}));
    assert_eq!(quotas["creators"], json!({"used": 0, "limit": 200}));
    assert_eq!(quotas["trend_searches"]["used"], 0);
    assert_eq!(quotas["trend_searches"]["limit"], 1000);
    assert!(
        quotas["trend_searches"]["resets_at"]
            .as_str()
            .unwrap()
            .contains("-01T00:00:00")
    );
    assert_eq!(
        quotas["credits"],
        json!({"used_today": 60, "used_30_days": 60})
    );
    let limits = data["rate_limits"].as_array().unwrap();
    let policies: Vec<&str> = limits
        .iter()
        .map(|l| l["policy"].as_str().unwrap())
        .collect();
    assert_eq!(
        policies,
        [
            "default",
            "track-multi",
            "track-urls",
            "creator-track",
            "job-status"
        ]
    );
    // This request spent one of the default budget's 6.
    assert_eq!(limits[0]["quota"], 6);
    assert_eq!(limits[0]["window_secs"], 60);
    assert_eq!(limits[0]["remaining"], 5);
    assert_eq!(limits[0]["unit"], "requests");
    assert_eq!(limits[0]["applies_to"], "every /v1 request");
    assert_eq!(limits[2]["unit"], "urls");
    assert_eq!(limits[2]["remaining"], 6, "the reader tracked nothing");
    assert_eq!(limits[3]["quota"], 60);
    assert_eq!(data["rate_limits_shared"], false);
    assert!(a.body["meta"].get("credits_used").is_none());

    // The full key sees its own scopes and what it spent.
    let a = app.get("/v1/whoami", Some(&full)).await;
    assert_eq!(
        a.body["data"]["api_key"]["scopes"],
        json!(["read", "write"])
    );
    assert_eq!(a.body["data"]["api_key"]["name"], "scoped");
    assert_eq!(a.body["data"]["rate_limits"][2]["remaining"], 4);

    // Free: asking again charges nothing.
    app.get("/v1/whoami", Some(&reader)).await;
    assert_eq!(credits(&app, &full).await, 60);

    // Another organization's key sees its own organization only.
    let (other, other_key) = app.org_with_key(Plan::Free).await;
    let a = app.get("/v1/whoami", Some(&other_key)).await;
    assert_eq!(a.body["data"]["organization"]["id"], json!(other));
    assert_eq!(a.body["data"]["organization"]["plan"], "free");
    assert_eq!(a.body["data"]["quotas"]["tracked_videos"]["used"], 0);
    assert_eq!(a.body["data"]["quotas"]["trend_searches"]["limit"], 0);

    // Without a key, or with a bad one.
    assert_nested_error(&app.get("/v1/whoami", None).await, 401, "MISSING_AUTH");
    let bad = format!("vpk_{}", "x".repeat(40));
    assert_nested_error(
        &app.get("/v1/whoami", Some(&bad)).await,
        401,
        "INVALID_API_KEY",
    );
}
