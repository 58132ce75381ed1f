//! The MCP server (`/mcp`, docs/api.md "MCP") spoken as JSON-RPC over HTTP,
//! on both backends: the handshake, stateless (no session, JSON answers),
//! the tools and their schemas, each tool answering what its `/v1`
//! endpoint answers and charging what it charges, tool errors with our
//! codes that charge nothing, another organization's ids, the API key's
//! 401, the plan gate and the track rate limit.
//!
//! The data is the campaign report's "Launch" (campaign_report.rs).

use reqwest::StatusCode;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_api::ApiConfig;
use vidpulse_api::rate_limit::RateLimitConfig;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::analytics::credits;
use crate::campaign_report::{d, launch, launch_fields, with_videos};
use crate::helpers::{Answer, TestApp, TestConfig, assert_nested_error, youtube};

/// The protocol revision these tests speak.
const VERSION: &str = "2025-11-25";

/// The read tools, in the order `tools/list` gives them.
const READ_TOOLS: [&str; 8] = [
    "find_videos",
    "get_video",
    "leaderboard",
    "totals",
    "list_campaigns",
    "campaign_report",
    "get_creator",
    "get_creator_followers",
];

/// POSTs one JSON-RPC message to `/mcp` as a Streamable HTTP client does.
async fn post(app: &TestApp, key: Option<&str>, message: &Value) -> Answer {
    let mut req = app
        .client
        .post(app.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", VERSION)
        .json(message);
    if let Some(key) = key {
        req = req.bearer_auth(key);
    }
    TestApp::answer(req.send().await.unwrap()).await
}

/// A request `method` with `params`: the JSON-RPC answer, checked to be a
/// JSON (not event-stream) 200 without a session.
async fn rpc(app: &TestApp, key: &str, method: &str, params: Value) -> Value {
    let a = post(
        app,
        Some(key),
        &json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{method}: {}", a.body);
    assert!(
        a.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json"),
        "{:?}",
        a.headers
    );
    assert!(a.headers.get("mcp-session-id").is_none(), "stateless");
    assert!(!a.request_id().is_empty());
    assert_eq!(a.body["jsonrpc"], "2.0");
    assert_eq!(a.body["id"], 7);
    a.body
}

/// Calls `tool` with `args`: the tool's result.
async fn call(app: &TestApp, key: &str, tool: &str, args: Value) -> Value {
    let body = rpc(
        app,
        key,
        "tools/call",
        json!({"name": tool, "arguments": args}),
    )
    .await;
    assert!(body["error"].is_null(), "{tool}: {body}");
    body["result"].clone()
}

/// Calls `tool`, expecting success: its structured content, checked to be
/// its text content too.
async fn ok(app: &TestApp, key: &str, tool: &str, args: Value) -> Value {
    let result = call(app, key, tool, args).await;
    assert_eq!(result["isError"], false, "{tool}: {result}");
    let data = result["structuredContent"].clone();
    assert!(data.is_object(), "{tool}: {result}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, data, "{tool}: the text is the structured content");
    assert!(result["_meta"]["request_id"].is_string(), "{result}");
    data
}

/// Calls `tool`, expecting a tool error with `code` and HTTP-like `status`:
/// the error object.
async fn fails(
    app: &TestApp,
    key: &str,
    tool: &str,
    args: Value,
    status: u16,
    code: &str,
) -> Value {
    let result = call(app, key, tool, args).await;
    assert_eq!(result["isError"], true, "{tool}: {result}");
    let error = result["structuredContent"]["error"].clone();
    assert_eq!(error["code"], code, "{tool}: {result}");
    assert_eq!(error["status"], status, "{tool}: {result}");
    let message = error["message"].as_str().unwrap();
    assert!(!message.is_empty());
    assert!(error["request_id"].is_string());
    assert_eq!(
        result["content"][0]["text"],
        format!("{code}: {message}"),
        "{result}"
    );
    error
}

/// The `data` of a `/v1` read of `path`.
async fn v1(app: &TestApp, key: &str, path: &str) -> Value {
    let a = app.get(path, Some(key)).await;
    assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.body);
    a.body["data"].clone()
}

#[rstest]
#[tokio::test]
async fn the_handshake_is_stateless_and_lists_the_tools(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;

    let init = rpc(
        &app,
        &key,
        "initialize",
        json!({
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "1"}
        }),
    )
    .await;
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], VERSION, "{init}");
    assert_eq!(result["serverInfo"]["name"], "vidpulse");
    assert!(result["capabilities"]["tools"].is_object(), "{init}");
    assert!(result["instructions"].as_str().unwrap().contains("credit"));

    // The notification is taken (202, no body); a GET (no stream to resume)
    // and a DELETE (no session to end) are 405.
    let a = post(
        &app,
        Some(&key),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED);
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let r = app
            .client
            .request(method.clone(), app.url("/mcp"))
            .bearer_auth(&key)
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }

    let list = rpc(&app, &key, "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let mut expected = READ_TOOLS.to_vec();
    expected.insert(2, "track_videos");
    assert_eq!(names, expected);
    for t in tools {
        let name = t["name"].as_str().unwrap();
        assert_eq!(t["inputSchema"]["type"], "object", "{name}");
        assert_eq!(t["inputSchema"]["additionalProperties"], false, "{name}");
        assert_eq!(t["outputSchema"]["type"], "object", "{name}");
        assert!(t["description"].as_str().unwrap().len() > 40, "{name}");
        assert!(t["title"].is_string(), "{name}");
        let hints = &t["annotations"];
        let writes = name == "track_videos";
        assert_eq!(hints["readOnlyHint"], !writes, "{name}");
        assert_eq!(hints["destructiveHint"], false, "{name}");
        assert_eq!(hints["idempotentHint"], true, "{name}");
        assert_eq!(hints["openWorldHint"], writes, "{name}");
    }
    let track = &tools[2]["inputSchema"];
    assert_eq!(track["required"], json!(["urls"]));
    assert_eq!(track["properties"]["urls"]["maxItems"], 50);

    // Unknown methods and tools are protocol errors.
    let body = rpc(&app, &key, "prompts/list", json!({})).await;
    assert_eq!(body["error"]["code"], -32601, "{body}");
    let body = rpc(
        &app,
        &key,
        "tools/call",
        json!({"name": "drop_tables", "arguments": {}}),
    )
    .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert!(body["result"].is_null());
}

#[rstest]
#[tokio::test]
async fn a_request_without_a_valid_key_is_401_as_on_v1(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    assert_nested_error(&post(&app, None, &list).await, 401, "MISSING_AUTH");
    for bad in ["vp_live_nope", "Basic abc", ""] {
        let a = post(&app, Some(bad), &list).await;
        assert_nested_error(&a, 401, "INVALID_API_KEY");
    }
    // Before the transport looks at the request: a GET too.
    let a = TestApp::answer(app.client.get(app.url("/mcp")).send().await.unwrap()).await;
    assert_nested_error(&a, 401, "MISSING_AUTH");
}

#[rstest]
#[tokio::test]
async fn each_tool_answers_what_v1_answers_and_charges_the_same(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    with_videos(&app, org, &key).await;
    let campaign = launch(&app, &key, launch_fields(&app)).await;
    let mut spent = credits(&app, &key).await;
    let (from, to) = (d(&app, 2).to_string(), d(&app, 6).to_string());

    // Each free read, its arguments those of the query string.
    let reads = [
        (
            "find_videos",
            json!({"sort": "views_gained", "from": from, "to": to, "limit": 3, "campaign": "Launch", "platform": "tiktok"}),
            format!(
                "/v1/videos/stats?sort=views_gained&from={from}&to={to}&limit=3&campaign=Launch&platform=tiktok"
            ),
        ),
        (
            "find_videos",
            json!({"order": "asc", "tag": [], "blogger": "@mira", "status": "active", "offset": 1}),
            "/v1/videos/stats?order=asc&blogger=%40mira&status=active&offset=1".to_owned(),
        ),
        (
            "list_campaigns",
            json!({"q": "LAUN", "limit": 10}),
            "/v1/campaigns?q=LAUN&limit=10".to_owned(),
        ),
    ];
    for (tool, args, path) in reads {
        let data = ok(&app, &key, tool, args).await;
        let a = app.get(&path, Some(&key)).await;
        let expected = if tool == "list_campaigns" {
            json!({"data": a.body["data"], "pagination": a.body["meta"]["pagination"]})
        } else {
            a.body["data"].clone()
        };
        assert_eq!(data, expected, "{tool}");
    }
    let page = ok(&app, &key, "find_videos", json!({})).await;
    assert_eq!(page["pagination"]["total"], 5);
    assert_eq!(credits(&app, &key).await, spent, "reads are free");

    // A video by either id, with its whole history.
    let first = &page["data"][0];
    let (id, external) = (
        first["video_id"].as_str().unwrap(),
        first["external_video_id"].as_str().unwrap(),
    );
    let by_id = ok(&app, &key, "get_video", json!({"video_id": id})).await;
    assert_eq!(
        by_id,
        v1(&app, &key, &format!("/v1/videos/by-id/{id}")).await
    );
    assert!(
        !by_id["data"]["stats"]["views"]
            .as_object()
            .unwrap()
            .is_empty()
    );
    let by_external = ok(
        &app,
        &key,
        "get_video",
        json!({"external_video_id": external}),
    )
    .await;
    assert_eq!(by_external, by_id);
    // Twice: the second from the record cache, the same.
    assert_eq!(
        ok(&app, &key, "get_video", json!({"video_id": id})).await,
        by_id
    );

    // The paid reads: 1 credit each, as on /v1.
    let paid = [
        (
            "campaign_report",
            json!({"campaign_id": campaign, "from": from, "to": to, "baseline": "tracking"}),
            format!("/v1/campaigns/{campaign}/report?from={from}&to={to}&baseline=tracking"),
        ),
        (
            "leaderboard",
            json!({"by": "blogger", "metric": "likes", "from": from, "to": to, "compare": "previous_period", "limit": 2}),
            format!(
                "/v1/analytics/top?by=blogger&metric=likes&from={from}&to={to}&compare=previous_period&limit=2"
            ),
        ),
        (
            "totals",
            json!({"group_by": "platform_blogger", "from": from, "to": to, "compare": "previous_period", "published_at.from": null}),
            format!(
                "/v1/analytics/metrics/totals?group_by=platform_blogger&from={from}&to={to}&compare=previous_period"
            ),
        ),
    ];
    for (tool, args, path) in paid {
        let result = call(&app, &key, tool, args).await;
        assert_eq!(result["isError"], false, "{tool}: {result}");
        assert_eq!(result["_meta"]["credits_used"], 1, "{tool}");
        spent += 1;
        assert_eq!(credits(&app, &key).await, spent, "{tool}");
        let a = app.get(&path, Some(&key)).await;
        assert_eq!(a.body["meta"]["credits_used"], 1);
        spent += 1;
        assert_eq!(result["structuredContent"], a.body["data"], "{tool}");
    }
    assert_eq!(credits(&app, &key).await, spent);
    let report = ok(
        &app,
        &key,
        "campaign_report",
        json!({"campaign_id": campaign}),
    )
    .await;
    assert_eq!(report["campaign"]["name"], "Launch");
    spent += 1;

    // Tracking: 30 credits per new video, none for one tracked already.
    let urls = [youtube(1), youtube(2)];
    let result = call(&app, &key, "track_videos", json!({"urls": urls})).await;
    assert_eq!(result["isError"], false, "{result}");
    let data = &result["structuredContent"];
    assert_eq!(data["results"][0]["status"], "tracked");
    assert_eq!(data["results"][1]["status"], "tracked");
    assert_eq!(result["_meta"]["credits_used"], 60);
    assert_eq!(result["_meta"]["summary"]["tracked"], 2);
    spent += 60;
    assert_eq!(credits(&app, &key).await, spent);
    let result = call(&app, &key, "track_videos", json!({"urls": [youtube(1)]})).await;
    assert_eq!(
        result["structuredContent"]["results"][0]["status"],
        "already_tracked"
    );
    assert_eq!(result["_meta"]["credits_used"], 0);
    assert_eq!(credits(&app, &key).await, spent);
    let page = ok(&app, &key, "find_videos", json!({"platform": "youtube"})).await;
    assert_eq!(page["pagination"]["total"], 3);
}

#[rstest]
#[tokio::test]
async fn creators_are_looked_up_with_their_follower_history(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let a = app
        .post(
            "/v1/bloggers/track",
            &key,
            &json!({"platform": "youtube", "username": "@MiraCooks", "initial_videos_count": 2}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    assert_eq!(app.run_jobs_until_idle().await, 1);
    let spent = credits(&app, &key).await;

    let data = ok(
        &app,
        &key,
        "get_creator",
        json!({"username": "@miracooks", "platform": "YouTube"}),
    )
    .await;
    let expected = v1(
        &app,
        &key,
        "/v1/bloggers/by-username/miracooks?platform=YouTube",
    )
    .await;
    assert_eq!(data, expected);
    assert_eq!(data["blogger"]["platform"], "youtube");
    assert!(
        data["blogger"]["channel_username"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case("MiraCooks")
    );

    let today = app.clock_now().date_naive();
    let from = (today - chrono::Duration::days(6)).to_string();
    let data = ok(
        &app,
        &key,
        "get_creator_followers",
        json!({"username": "MiraCooks", "from": from}),
    )
    .await;
    let expected = v1(
        &app,
        &key,
        &format!("/v1/bloggers/by-username/MiraCooks/history?from={from}"),
    )
    .await;
    assert_eq!(data, expected);
    assert_eq!(data["from"], from);
    assert!(!data["days"].as_array().unwrap().is_empty(), "{data}");
    assert_eq!(credits(&app, &key).await, spent, "free");

    // Refusals, worded as /v1 words them.
    fails(
        &app,
        &key,
        "get_creator",
        json!({"username": "nobody"}),
        404,
        "BLOGGER_NOT_TRACKED",
    )
    .await;
    let e = fails(
        &app,
        &key,
        "get_creator",
        json!({}),
        400,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(e["field"], "username");
    assert_eq!(e["message"], "`username` is required");
    let e = fails(
        &app,
        &key,
        "get_creator",
        json!({"username": "a/b"}),
        400,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(e["field"], "username");
    let e = fails(
        &app,
        &key,
        "get_creator_followers",
        json!({"username": "MiraCooks", "platform": "vimeo"}),
        400,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(
        e["message"],
        "`platform` must be tiktok, instagram or youtube; got `vimeo`"
    );
    let e = fails(
        &app,
        &key,
        "get_creator_followers",
        json!({"username": "MiraCooks", "from": "yesterday"}),
        400,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(e["field"], "from");

    // Another organization does not see it.
    let (_, other) = app.org_with_key(Plan::Pro).await;
    fails(
        &app,
        &other,
        "get_creator",
        json!({"username": "MiraCooks"}),
        404,
        "BLOGGER_NOT_TRACKED",
    )
    .await;
    fails(
        &app,
        &other,
        "get_creator_followers",
        json!({"username": "MiraCooks"}),
        404,
        "BLOGGER_NOT_TRACKED",
    )
    .await;
}

#[rstest]
#[tokio::test]
async fn failures_are_tool_errors_that_charge_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    with_videos(&app, org, &key).await;
    let campaign = launch(&app, &key, launch_fields(&app)).await;
    let video = ok(&app, &key, "find_videos", json!({"limit": 1})).await["data"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let spent = credits(&app, &key).await;

    // Not found: an unknown id, one that is not a UUID, another
    // organization's video and campaign.
    let (_, other) = app.org_with_key(Plan::Pro).await;
    for (caller, tool, args, message) in [
        (
            &key,
            "get_video",
            json!({"video_id": uuid::Uuid::new_v4()}),
            Some("Video not found"),
        ),
        (&key, "get_video", json!({"video_id": "42"}), None),
        (
            &key,
            "get_video",
            json!({"external_video_id": "nope"}),
            None,
        ),
        (
            &key,
            "campaign_report",
            json!({"campaign_id": uuid::Uuid::new_v4()}),
            None,
        ),
        (&other, "get_video", json!({"video_id": video}), None),
        (
            &other,
            "campaign_report",
            json!({"campaign_id": campaign}),
            Some("No such campaign"),
        ),
    ] {
        let e = fails(&app, caller, tool, args, 404, "NOT_FOUND").await;
        if let Some(message) = message {
            assert_eq!(e["message"], message);
        }
    }
    let page = ok(&app, &other, "find_videos", json!({})).await;
    assert_eq!(page["pagination"]["total"], 0);
    let campaigns = ok(&app, &other, "list_campaigns", json!({})).await;
    assert_eq!(campaigns["data"], json!([]));
    assert_eq!(
        credits(&app, &other).await,
        0,
        "a failed read charges nothing"
    );

    // Bad arguments, refused as /v1 refuses the parameters.
    let e = fails(
        &app,
        &key,
        "find_videos",
        json!({"limit": 0}),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert_eq!(
        e["message"],
        "`limit` must be an integer from 1 to 100; got `0`"
    );
    assert_eq!(e["parameter"], "limit");
    let e = fails(
        &app,
        &key,
        "find_videos",
        json!({"sort": "random"}),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert!(e["valid_sort_options"].is_array(), "{e}");
    let e = fails(
        &app,
        &key,
        "find_videos",
        json!({"limit": {"n": 1}}),
        400,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(e["field"], "limit");
    let e = fails(
        &app,
        &key,
        "find_videos",
        json!({"q": "a\u{0}b"}),
        400,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(e["field"], "q");
    let e = fails(
        &app,
        &key,
        "find_videos",
        json!({"format": "csv"}),
        400,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(e["field"], "format");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("Unknown argument `format`")
    );
    let many: Vec<String> = (0..51).map(youtube).collect();
    for (tool, args, field) in [
        ("get_video", json!({}), "video_id"),
        (
            "get_video",
            json!({"video_id": video, "external_video_id": "x"}),
            "video_id",
        ),
        ("leaderboard", json!({"metric": "shares"}), "metric"),
        (
            "totals",
            json!({"from": d(&app, 6).to_string(), "to": d(&app, 2).to_string()}),
            "from",
        ),
        ("campaign_report", json!({}), "campaign_id"),
        ("list_campaigns", json!({"limit": 101}), "limit"),
        ("track_videos", json!({}), "urls"),
        ("track_videos", json!({"urls": many}), "urls"),
    ] {
        let e = fails(&app, &key, tool, args, 400, "VALIDATION_ERROR").await;
        assert_eq!(e["field"], field, "{tool}: {e}");
    }
    assert_eq!(
        credits(&app, &key).await,
        spent,
        "refused calls charge nothing"
    );

    // The plan's quota: refused whole, nothing tracked or charged.
    vidpulse::commands::admin::set_plan(&app.store, org, Plan::Pro, Some(6), None)
        .await
        .unwrap();
    let e = fails(
        &app,
        &key,
        "track_videos",
        json!({"urls": [youtube(7), youtube(8)]}),
        403,
        "SUBSCRIPTION_LIMIT",
    )
    .await;
    assert_eq!(e["quota"], 6, "{e}");
    let page = ok(&app, &key, "find_videos", json!({})).await;
    assert_eq!(page["pagination"]["total"], 5);
    assert_eq!(credits(&app, &key).await, spent);

    // The free plan: the paid reads are 402 with where to upgrade; the
    // free ones answer.
    let (_, free) = app.org_with_key(Plan::Free).await;
    for (tool, args) in [
        ("campaign_report", json!({"campaign_id": campaign})),
        ("leaderboard", json!({"limit": 0})),
        ("totals", json!({})),
    ] {
        let e = fails(&app, &free, tool, args, 402, "PAID_PLAN_REQUIRED").await;
        assert!(e["upgrade_url"].is_string(), "{e}");
    }
    ok(&app, &free, "find_videos", json!({})).await;
    assert_eq!(credits(&app, &free).await, 0);
}

#[rstest]
#[tokio::test]
async fn tracking_keeps_the_keys_rate_limit(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let config = TestConfig {
        api: ApiConfig {
            rate_limits: RateLimitConfig {
                videos_per_minute: 2,
                ..RateLimitConfig::default()
            },
            ..ApiConfig::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let a = app.track(&key, &[&youtube(1)]).await;
    assert_eq!(a["meta"]["credits_used"], 30);
    ok(&app, &key, "track_videos", json!({"urls": [youtube(2)]})).await;
    let spent = credits(&app, &key).await;
    assert_eq!(spent, 60);
    let e = fails(
        &app,
        &key,
        "track_videos",
        json!({"urls": [youtube(3)]}),
        429,
        "RATE_LIMIT_EXCEEDED",
    )
    .await;
    assert!(e["retry_after"].as_u64().unwrap() >= 1, "{e}");
    assert_eq!(credits(&app, &key).await, spent);
}

#[rstest]
#[tokio::test]
async fn a_read_only_key_sees_and_calls_only_the_read_tools(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, full) = app.org_with_key(Plan::Pro).await;
    let reader = vidpulse::commands::admin::create_scoped_api_key(
        &app.store,
        org,
        Some("assistant"),
        vidpulse_domain::api_key::Scopes::READ_ONLY,
        app.clock.now(),
    )
    .await
    .unwrap()
    .api_key;

    let list = rpc(&app, &reader, "tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, READ_TOOLS.to_vec(), "no write tool listed");

    // Calling the write tool anyway: the scope's refusal, nothing tracked
    // or charged; the read tools answer.
    let before = credits(&app, &full).await;
    let error = fails(
        &app,
        &reader,
        "track_videos",
        json!({"urls": [youtube(1)]}),
        403,
        "INSUFFICIENT_SCOPE",
    )
    .await;
    assert!(error["message"].as_str().unwrap().contains("write"));
    let found = ok(&app, &reader, "find_videos", json!({})).await;
    assert_eq!(found["pagination"]["total"], 0, "{found}");
    assert_eq!(credits(&app, &full).await, before);
}
