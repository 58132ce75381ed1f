//! Share links over HTTP, on both backends: a link's whole life (made,
//! listed without its token, opened without sign-in and counted, what its
//! page hides, its CSV and logo, revoked, expired), another organization's
//! campaign, bad input that writes nothing, the plan and role gates, and
//! the per-token rate limit, in each API node or shared by the nodes
//! through Redis.
//!
//! The campaign is the campaign report's "Launch" (see campaign_report.rs:
//! four videos, budget 1000 EUR; over D+2..D+6 from each video's first
//! reading it gains 10,800 views and spends 606 EUR) with a fifth video in
//! another campaign that gains 20,000 views.

use chrono::Duration;
use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_api::rate_limit::RateLimitConfig;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{Clock, OrgId, Plan};
use vidpulse_store::Backend;

use crate::campaign_report::{d, launch, launch_fields, with_videos};
use crate::dashboard::{call, member, team};
use crate::helpers::{Answer, TestApp, TestConfig, assert_nested_error};
use crate::processes::redis_url;

/// The share links of campaign `id` on the public API.
fn links(id: &str) -> String {
    format!("/v1/campaigns/{id}/share-links")
}

/// Makes a link of campaign `id` from `body`, expecting 201; its `data`.
async fn make(app: &TestApp, key: &str, id: &str, body: Value) -> Value {
    let a = app.post(&links(id), key, &body).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    a.body["data"].clone()
}

/// The campaign's links, listed on the public API.
async fn listed(app: &TestApp, key: &str, id: &str) -> Vec<Value> {
    let a = app.get(&links(id), Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"].as_array().unwrap().clone()
}

/// An unauthenticated GET of `path`.
async fn open(app: &TestApp, path: &str) -> Answer {
    app.get(path, None).await
}

/// The raw answer of an unauthenticated GET of `path`: status, headers and text.
async fn raw(app: &TestApp, path: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let r = app.client.get(app.url(path)).send().await.unwrap();
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    (status, headers, r.text().await.unwrap())
}

/// Asserts the generic 404 of a link that does not open.
fn assert_gone(a: &Answer) {
    assert_nested_error(a, 404, "NOT_FOUND");
    assert_eq!(a.body["error"]["message"], "Not found", "{}", a.body);
}

/// A Pro organization with "Launch" (the report's videos) and its key.
async fn launched(app: &TestApp) -> (uuid::Uuid, String, String) {
    let (org, key) = app.org_with_key(Plan::Pro).await;
    with_videos(app, org, &key).await;
    let mut fields = launch_fields(app);
    fields["notes"] = json!("Secret: the client pays late");
    let id = launch(app, &key, fields).await;
    (org, key, id)
}

#[rstest]
#[tokio::test]
async fn a_share_link_lives_from_creation_to_revocation(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key, id) = launched(&app).await;

    // Made: the token and the URL, this once.
    let link = make(&app, &key, &id, json!({"label": " Acme weekly "})).await;
    let token = link["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("vpshare_"), "{token}");
    assert_eq!(token.len(), "vpshare_".len() + 43);
    assert_eq!(
        link["url"],
        format!("http://127.0.0.1:8080/share/{token}").as_str()
    );
    assert_eq!(link["campaign_id"], id.as_str());
    assert_eq!(link["label"], "Acme weekly");
    assert_eq!(link["show_spend"], false);
    assert_eq!(link["expires_at"], Value::Null);
    assert_eq!(link["revoked_at"], Value::Null);
    assert_eq!(link["last_viewed_at"], Value::Null);
    assert_eq!((&link["views"], &link["active"]), (&json!(0), &json!(true)));
    // Listed without the token or the URL.
    let list = listed(&app, &key, &id).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["id"], link["id"]);
    assert!(list[0].get("token").is_none() && list[0].get("url").is_none());
    assert!(!serde_json::to_string(&list).unwrap().contains(&token));

    // Opened with no sign-in: the app's page, private, and a view counted.
    app.advance(Duration::minutes(5));
    let (status, headers, page) = raw(&app, &format!("/share/{token}")).await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(page.contains(r#"<meta name="vidpulse-session" content="none">"#));
    assert_eq!(headers["x-robots-tag"], "noindex, nofollow");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    assert_eq!(headers["cache-control"], "no-store");
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert!(headers.get("set-cookie").is_none());
    let list = listed(&app, &key, &id).await;
    assert_eq!(list[0]["views"], 1);
    assert!(list[0]["last_viewed_at"].is_string());
    // Its data counts no view.
    let window = format!("from={}&to={}", d(&app, 2), d(&app, 6));
    let a = open(&app, &format!("/share/{token}/report?{window}")).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.headers["x-robots-tag"], "noindex, nofollow");
    assert_eq!(listed(&app, &key, &id).await[0]["views"], 1);
    let data = &a.body["data"];
    assert_eq!(
        data["organization"],
        json!({"name": "Test org", "logo_url": null})
    );
    assert_eq!(
        data["campaign"],
        json!({"name": "Launch", "client": null, "starts_on": d(&app, 2).to_string(),
               "ends_on": d(&app, 6).to_string(), "target_views": 50_000})
    );
    assert_eq!(data["baseline"], "tracking");
    assert_eq!(data["show_spend"], false);
    assert_eq!(data["total"]["views"], 10_800);
    assert_eq!(data["target_progress"], 0.216);
    assert_eq!(data["videos"], 4);
    // What it hides: the money, the notes, the campaign's id, the other campaign.
    let text = a.body.to_string();
    for hidden in [
        "\"money\"",
        "\"spend\"",
        "budget",
        "cpm",
        "cpe",
        "Secret",
        &id,
        "Other",
    ] {
        assert!(!text.contains(hidden), "{hidden} in {text}");
    }
    let creators: Vec<(Value, Value)> = data["creators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["blogger_username"].clone(), c["views"].clone()))
        .collect();
    assert_eq!(
        creators,
        vec![
            (json!("MIRA"), json!(5_200)),
            (json!("mira"), json!(5_000)),
            (json!("Ana"), json!(600)),
        ]
    );
    // The top videos are the campaign's (the other campaign's 20,000 is not).
    let top = data["top_videos"].as_array().unwrap();
    assert_eq!(top.len(), 4);
    assert_eq!(
        (&top[0]["rank"], &top[0]["views"]),
        (&json!(1), &json!(5_000))
    );
    assert_eq!(top[0]["platform"], "youtube");
    assert!(top.iter().all(|v| v["views"].as_i64().unwrap() <= 5_000));
    // The days add up to the headline.
    let days = data["days"].as_array().unwrap();
    let summed: i64 = days.iter().map(|d| d["views"].as_i64().unwrap()).sum();
    assert_eq!(summed, 10_800);
    for day in days {
        let date = day["date"].as_str().unwrap();
        assert!(date >= d(&app, 2).to_string().as_str() && date <= d(&app, 6).to_string().as_str());
    }
    // The CSV: the campaign report's, without the money or the id.
    let (status, headers, csv) = raw(&app, &format!("/share/{token}/report.csv?{window}")).await;
    assert_eq!(status, 200, "{csv}");
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert_eq!(headers["x-robots-tag"], "noindex, nofollow");
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "row,campaign,currency,from,to,baseline,platform,blogger_username,videos,views,likes,\
         comments,reposts,saves,engagement_rate,target_views,target_progress"
    );
    assert!(lines[1].starts_with("creator,Launch,EUR,"), "{}", lines[1]);
    assert!(lines[4].starts_with("total,"), "{}", lines[4]);
    assert!(!csv.contains(&id) && !csv.contains("606"));
    // No logo uploaded: 404.
    assert_gone(&open(&app, &format!("/share/{token}/logo")).await);

    // A link that shows spend shows the money, in the JSON and the CSV.
    let paid = make(&app, &key, &id, json!({"show_spend": true})).await;
    let paid_token = paid["token"].as_str().unwrap();
    assert_eq!(paid["label"], Value::Null);
    let a = open(&app, &format!("/share/{paid_token}/report?{window}")).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"]["money"],
        json!({"currency": "EUR", "spend": 606.0, "budget": 1000.0, "budget_left": 394.0,
               "cpm": 56.1111, "cpe": 0.4647, "videos_without_cost": 1})
    );
    assert_eq!(a.body["data"]["creators"][0]["spend"], 506.0);
    assert!(!a.body.to_string().contains("Secret"));
    let (_, _, csv) = raw(&app, &format!("/share/{paid_token}/report.csv?{window}")).await;
    assert!(csv.starts_with("row,campaign,currency,from,to,baseline,platform,blogger_username,videos,videos_without_cost,"));
    assert!(csv.contains(",606,"), "{csv}");
    // Newest first.
    let list = listed(&app, &key, &id).await;
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["id"], paid["id"]);

    // Revoked: at once, and stays listed.
    let link_id = link["id"].as_str().unwrap();
    app.advance(Duration::minutes(5));
    let a = app.delete(&format!("{}/{link_id}", links(&id)), &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["id"], link_id);
    assert_eq!(a.body["data"]["revoked"], true);
    let revoked_at = a.body["data"]["revoked_at"].clone();
    for path in ["", "/report", "/report.csv", "/logo"] {
        let a = open(&app, &format!("/share/{token}{path}")).await;
        assert_eq!(a.status.as_u16(), 404, "{path}");
        if path.is_empty() {
            assert!(a.body.as_str().unwrap().contains("vidpulse-session"));
        } else {
            assert_gone(&a);
        }
    }
    let list = listed(&app, &key, &id).await;
    let gone = list.iter().find(|l| l["id"] == link_id).unwrap();
    assert_eq!(
        (&gone["revoked_at"], &gone["active"]),
        (&revoked_at, &json!(false))
    );
    assert_eq!(gone["views"], 1);
    // Again: nothing changes.
    app.advance(Duration::minutes(5));
    let a = app.delete(&format!("{}/{link_id}", links(&id)), &key).await;
    assert_eq!(a.body["data"]["revoked_at"], revoked_at);
    // The other link still opens.
    let a = open(&app, &format!("/share/{paid_token}/report")).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    // Deleting the campaign deletes its links.
    let a = app.delete(&format!("/v1/campaigns/{id}"), &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_gone(&open(&app, &format!("/share/{paid_token}/report")).await);
}

#[rstest]
#[tokio::test]
async fn an_expired_or_unknown_link_opens_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key, id) = launched(&app).await;
    let expires = app.clock.now() + Duration::hours(1);
    let link = make(&app, &key, &id, json!({"expires_at": expires.to_rfc3339()})).await;
    let token = link["token"].as_str().unwrap();
    assert!(link["expires_at"].is_string());
    assert_eq!(
        open(&app, &format!("/share/{token}/report"))
            .await
            .status
            .as_u16(),
        200
    );
    // Past its expiry: the same 404 as a token never made.
    app.advance(Duration::hours(2));
    let expired = open(&app, &format!("/share/{token}/report")).await;
    assert_gone(&expired);
    let unknown = open(&app, "/share/vpshare_nothing/report").await;
    assert_gone(&unknown);
    assert_eq!(
        expired.body["error"]["message"],
        unknown.body["error"]["message"]
    );
    for path in ["", "/report.csv", "/logo"] {
        assert_eq!(
            open(&app, &format!("/share/{token}{path}"))
                .await
                .status
                .as_u16(),
            404,
            "{path}"
        );
    }
    // The page of an expired link counts no view.
    let list = listed(&app, &key, &id).await;
    assert_eq!(
        (&list[0]["views"], &list[0]["active"]),
        (&json!(0), &json!(false))
    );

    // An organization back on the free plan shares nothing.
    let live = make(&app, &key, &id, json!({})).await;
    let live_token = live["token"].as_str().unwrap();
    assert_eq!(
        open(&app, &format!("/share/{live_token}/report"))
            .await
            .status
            .as_u16(),
        200
    );
    app.store
        .set_plan(OrgId(org), Plan::Free, None, None)
        .await
        .unwrap();
    assert_gone(&open(&app, &format!("/share/{live_token}/report")).await);
}

#[rstest]
#[tokio::test]
async fn a_shared_page_takes_only_gets_and_asks_for_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key, id) = launched(&app).await;
    let link = make(&app, &key, &id, json!({})).await;
    let token = link["token"].as_str().unwrap();
    // Only GET.
    for method in [Method::POST, Method::PUT, Method::DELETE] {
        let a = app
            .send_json(
                method.clone(),
                &format!("/share/{token}/report"),
                None,
                &json!({}),
            )
            .await;
        assert_nested_error(&a, 405, "METHOD_NOT_ALLOWED");
    }
    // An API key changes nothing; unknown parameters and bad days are 400.
    let a = app.get(&format!("/share/{token}/report"), Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    for (query, field) in [
        ("baseline=window", "baseline"),
        ("from=yesterday", "from"),
        ("to=2026-13-01", "to"),
    ] {
        let a = open(&app, &format!("/share/{token}/report?{query}")).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}");
    }
    let a = open(
        &app,
        &format!(
            "/share/{token}/report?from={}&to={}",
            d(&app, 6),
            d(&app, 2)
        ),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // An unknown path under /share is the API's 404.
    assert_nested_error(
        &open(&app, &format!("/share/{token}/nothing")).await,
        404,
        "NOT_FOUND",
    );
}

#[rstest]
#[tokio::test]
async fn a_token_has_a_budget_of_requests(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let path = "/share/vpshare_guessing/report";
    for _ in 0..vidpulse_api::shared::REQUESTS_PER_MINUTE {
        assert_eq!(open(&app, path).await.status.as_u16(), 404);
    }
    let a = open(&app, path).await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    let wait: u64 = a.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(wait >= 1);
    assert_eq!(a.headers["x-robots-tag"], "noindex, nofollow");
    // Another token has its own.
    assert_eq!(
        open(&app, "/share/vpshare_other/report")
            .await
            .status
            .as_u16(),
        404
    );
}

/// With Redis, two API nodes spend one budget per token; without it,
/// each node keeps its own.
#[rstest]
#[tokio::test]
async fn api_nodes_share_a_token_budget_through_redis(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
    #[values(false, true)] redis: bool,
) {
    let rate_limits = RateLimitConfig {
        redis_url: redis.then(redis_url),
        ..RateLimitConfig::default()
    };
    let mut config = TestConfig::default();
    config.api.rate_limits = rate_limits.clone();
    let app = TestApp::spawn_with(backend, config).await;
    let (second, shutdown, server) = app.second_node(rate_limits).await;
    // A token of its own: Redis outlives the test.
    let path = format!("/share/vpshare_{}/report", uuid::Uuid::new_v4().simple());
    let on = |node: usize| {
        let (app, path, second) = (&app, &path, &second);
        async move {
            let base = if node == 0 { &app.address } else { second };
            let response = app
                .client
                .get(format!("{base}{path}"))
                .send()
                .await
                .unwrap();
            TestApp::answer(response).await
        }
    };
    // Half the budget on each node.
    for i in 0..vidpulse_api::shared::REQUESTS_PER_MINUTE {
        assert_eq!(on((i % 2) as usize).await.status.as_u16(), 404, "{i}");
    }
    let a = on(0).await;
    if redis {
        assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
        let b = on(1).await;
        assert_nested_error(&b, 429, "RATE_LIMIT_EXCEEDED");
        let wait: u64 = b.headers["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=2).contains(&wait), "retry-after {wait}");
    } else {
        // Each node has spent only half of its own budget.
        assert_eq!(a.status.as_u16(), 404);
        assert_eq!(on(1).await.status.as_u16(), 404);
    }
    shutdown.cancel();
    server.await.unwrap().unwrap();
}

#[rstest]
#[tokio::test]
async fn links_are_the_organizations_own(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key, id) = launched(&app).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let link = make(&app, &key, &id, json!({})).await;
    let link_id = link["id"].as_str().unwrap();
    // Another organization's campaign: 404, like one that does not exist.
    for a in [
        app.get(&links(&id), Some(&other)).await,
        app.post(&links(&id), &other, &json!({})).await,
        app.delete(&format!("{}/{link_id}", links(&id)), &other)
            .await,
    ] {
        assert_nested_error(&a, 404, "NOT_FOUND");
    }
    // A link under another campaign of the same organization: 404.
    let a = app
        .post("/v1/campaigns", &key, &json!({"name": "Winter"}))
        .await;
    let winter = a.body["data"]["id"].as_str().unwrap().to_owned();
    let a = app
        .delete(&format!("{}/{link_id}", links(&winter)), &key)
        .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert!(listed(&app, &key, &winter).await.is_empty());
    // Ids that are not UUIDs, or unknown ones: 404.
    let unknown = uuid::Uuid::now_v7();
    for path in [
        format!("{}/not-a-uuid", links(&id)),
        format!("{}/{unknown}", links(&id)),
        format!("{}/{link_id}", links("not-a-uuid")),
        format!("{}/{link_id}", links(&unknown.to_string())),
    ] {
        assert_nested_error(&app.delete(&path, &key).await, 404, "NOT_FOUND");
    }
    assert_nested_error(&app.get(&links("nope"), Some(&key)).await, 404, "NOT_FOUND");
    // Nothing was revoked.
    assert_eq!(listed(&app, &key, &id).await[0]["revoked_at"], Value::Null);
}

#[rstest]
#[tokio::test]
async fn bad_input_is_refused_and_writes_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key, id) = launched(&app).await;
    let past = (app.clock.now() - Duration::minutes(1)).to_rfc3339();
    let now = app.clock.now().to_rfc3339();
    for (body, field) in [
        (json!({"expires_at": past}), "expires_at"),
        (json!({"expires_at": now}), "expires_at"),
        (json!({"expires_at": "next week"}), "expires_at"),
        (json!({"expires_at": "2099-01-01"}), "expires_at"),
        (json!({"expires_at": 1_900_000_000}), "expires_at"),
        (json!({"label": 5}), "label"),
        (json!({"label": "x".repeat(201)}), "label"),
        (json!({"show_spend": "yes"}), "show_spend"),
        (json!({"show_spend": 1}), "show_spend"),
        (json!({"token": "vpshare_mine"}), "token"),
    ] {
        let a = app.post(&links(&id), &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    for body in [json!([]), json!("label"), json!(null)] {
        let a = app.post(&links(&id), &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
    }
    let a = app
        .client
        .post(app.url(&links(&id)))
        .bearer_auth(&key)
        .header("content-type", "application/json")
        .body("{\"label\": ")
        .send()
        .await
        .unwrap();
    assert_nested_error(&TestApp::answer(a).await, 400, "VALIDATION_ERROR");
    // 200 characters are fine (counted as characters, not bytes).
    make(
        &app,
        &key,
        &id,
        json!({"label": "ü".repeat(200), "expires_at": null, "show_spend": null}),
    )
    .await;
    assert_eq!(listed(&app, &key, &id).await.len(), 1);
}

#[rstest]
#[tokio::test]
async fn plans_and_roles_gate_the_writes(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    // The free plan: no link made, the list still answers.
    let (_, free) = app.org_with_key(Plan::Free).await;
    let somewhere = links(&uuid::Uuid::now_v7().to_string());
    let a = app.post(&somewhere, &free, &json!({})).await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = app
        .delete(&format!("{somewhere}/{}", uuid::Uuid::now_v7()), &free)
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let t = team(&app).await;
    let a = app
        .post("/v1/campaigns", &t.key, &json!({"name": "Launch"}))
        .await;
    let id = a.body["data"]["id"].as_str().unwrap().to_owned();
    let dash = format!("/dashboard/campaigns/{id}/share-links");
    // A viewer reads, cannot make or revoke.
    let a = call(
        &app,
        Method::POST,
        &dash,
        &t.viewer,
        Some(&t.org),
        Some(&json!({})),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(&app, Method::GET, &dash, &t.viewer, Some(&t.org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"], json!([]));
    // An editor makes and revokes.
    let a = call(
        &app,
        Method::POST,
        &dash,
        &t.editor,
        Some(&t.org),
        Some(&json!({"show_spend": true})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert!(
        a.body["data"]["token"]
            .as_str()
            .unwrap()
            .starts_with("vpshare_")
    );
    let link_id = a.body["data"]["id"].as_str().unwrap().to_owned();
    let one = format!("{dash}/{link_id}");
    let a = call(&app, Method::DELETE, &one, &t.viewer, Some(&t.org), None).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(&app, Method::GET, &dash, &t.viewer, Some(&t.org), None).await;
    assert_eq!(a.body["data"][0]["revoked_at"], Value::Null);
    assert!(a.body["data"][0].get("token").is_none());
    let a = call(&app, Method::DELETE, &one, &t.editor, Some(&t.org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    // Someone of another organization: 404.
    let (stranger, stranger_id) = member(&app, "out@example.com").await;
    let (other, _) = app.org_with_key(Plan::Pro).await;
    app.store
        .add_member(OrgId(other), stranger_id, Role::Admin, app.clock.now())
        .await
        .unwrap();
    let a = call(
        &app,
        Method::GET,
        &dash,
        &stranger,
        Some(&other.to_string()),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    // The organization on the free plan: 402 for writes, the list answers.
    app.store
        .set_plan(OrgId(t.org.parse().unwrap()), Plan::Free, None, None)
        .await
        .unwrap();
    let a = call(
        &app,
        Method::POST,
        &dash,
        &t.editor,
        Some(&t.org),
        Some(&json!({})),
    )
    .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = call(&app, Method::GET, &dash, &t.viewer, Some(&t.org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"].as_array().unwrap().len(), 1);
}
