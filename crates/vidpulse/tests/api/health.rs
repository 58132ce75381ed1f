use rstest::rstest;
use vidpulse_store::Backend;

use crate::helpers::{TestApp, assert_nested_error};

#[rstest]
#[tokio::test]
async fn health_and_readiness(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let a = app.get("/healthz", None).await;
    assert_eq!(
        (a.status.as_u16(), a.body["status"].as_str()),
        (200, Some("ok"))
    );
    let a = app.get("/readyz", None).await;
    assert_eq!(a.status.as_u16(), 200);
    assert!(!a.request_id().is_empty());
}

#[rstest]
#[tokio::test]
async fn readiness_fails_when_the_database_is_gone(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    app.store.close().await;
    let a = app.get("/readyz", None).await;
    assert_eq!(a.status.as_u16(), 503, "{}", a.body);
    assert_eq!(app.get("/healthz", None).await.status.as_u16(), 200);
}

#[rstest]
#[tokio::test]
async fn unknown_paths_and_methods_answer_nested_errors(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    assert_nested_error(&app.get("/v1/nothing", None).await, 404, "NOT_FOUND");
    // `/` and the other page paths answer the web app (crates/web); any other
    // path at the root stays the API's 404.
    assert_nested_error(&app.get("/no-such-page", None).await, 404, "NOT_FOUND");
    // The removed creator lookup is gone entirely.
    assert_nested_error(
        &app.get("/v1/bloggers/info?username=a", None).await,
        404,
        "NOT_FOUND",
    );
    let a = app
        .send_json(
            reqwest::Method::DELETE,
            "/v1/videos/track",
            None,
            &serde_json::json!({}),
        )
        .await;
    assert_nested_error(&a, 405, "METHOD_NOT_ALLOWED");
}

/// An unknown path opened in a browser shows the web app's not-found page
/// (its page, status 404); API clients and API paths keep the JSON 404.
#[rstest]
#[tokio::test]
async fn unknown_pages_opened_in_a_browser_answer_the_app_with_404(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let open = |path: &'static str, accept: &'static str| {
        let app = &app;
        async move {
            let req = app.client.get(app.url(path)).header("accept", accept);
            TestApp::answer(req.send().await.unwrap()).await
        }
    };
    for path in ["/no-such-page", "/videos/a/b", "/settings/x"] {
        let a = open(path, browser).await;
        assert_eq!(a.status.as_u16(), 404, "{path}");
        assert_eq!(a.headers["content-type"], "text/html; charset=utf-8");
        assert!(
            a.headers["content-security-policy"]
                .to_str()
                .unwrap()
                .contains("frame-ancestors 'none'")
        );
        assert!(!a.request_id().is_empty());
        let page = a.body.as_str().unwrap();
        assert!(page.contains("/assets/js/app.js"), "{path}: {page}");
    }
    for (path, accept) in [
        ("/no-such-page", "application/json"),
        ("/no-such-page", "*/*"),
        ("/v1/nothing", browser),
        ("/auth/nothing", browser),
        ("/dashboard/nothing", browser),
    ] {
        assert_nested_error(&open(path, accept).await, 404, "NOT_FOUND");
    }
    // An unknown asset is the web app's own JSON 404.
    let asset = open("/assets/nothing.js", browser).await;
    assert_eq!(asset.status.as_u16(), 404);
    assert_eq!(asset.body["error"]["code"], "NOT_FOUND");
}

#[rstest]
#[tokio::test]
async fn the_openapi_document_lists_every_endpoint(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let a = app.get("/openapi.json", None).await;
    assert_eq!(a.status.as_u16(), 200);
    let paths = a.body["paths"].as_object().unwrap();
    for (path, method) in [
        ("/v1/videos/track", "post"),
        ("/v1/videos/stats", "get"),
        ("/v1/videos/by-id/{video_id}", "get"),
        ("/v1/videos/by-external-id/{external_video_id}", "get"),
        ("/v1/videos/by-external-id/{external_video_id}", "patch"),
        ("/v1/account/usage", "get"),
        ("/v1/whoami", "get"),
        ("/organizations/register", "post"),
        ("/organizations/list", "get"),
        ("/organizations/settings", "get"),
        ("/organizations/logo", "post"),
        ("/organizations/user/language", "get"),
        ("/organizations/user/language", "put"),
        ("/organizations/team/invite", "post"),
        ("/organizations/team/members", "get"),
        ("/organizations/team/pending-invites/count", "get"),
        ("/organizations/team/invite/accept", "post"),
        ("/organizations/team/invite/decline", "post"),
        ("/organizations/team/members/remove", "post"),
        ("/organizations/api-keys", "get"),
        ("/organizations/api-keys", "post"),
        ("/organizations/api-keys/{key_id}", "delete"),
        ("/dashboard/videos/{id}/stats", "get"),
        ("/dashboard/stats", "get"),
        ("/analytics/videos/for_date", "get"),
        ("/blogger/list", "get"),
        ("/blogger/add", "post"),
        ("/blogger/add-from-tracking", "post"),
        ("/blogger/toggle", "post"),
        ("/blogger/set-tags", "post"),
        ("/blogger/set-campaign", "post"),
        ("/blogger/set-budget-per-video", "post"),
        ("/blogger/add-to-creator", "post"),
        ("/blogger/merge", "post"),
        ("/blogger/delete", "post"),
        ("/blogger/delete-with-videos", "post"),
        ("/blogger/fetch-initial-videos", "post"),
        ("/tags", "get"),
        ("/tags", "post"),
    ] {
        assert!(
            paths[path][method].is_object(),
            "{method} {path} missing from the OpenAPI document"
        );
    }
    // Every error response says its body.
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            for (status, response) in op["responses"].as_object().unwrap() {
                if status.starts_with('4') || status.starts_with('5') {
                    assert!(
                        response["content"]["application/json"]["schema"].is_object(),
                        "{method} {path} {status} has no body schema"
                    );
                }
            }
        }
    }
    assert!(a.body["components"]["schemas"]["ErrorBody"]["oneOf"].is_array());
    assert!(a.body["components"]["securitySchemes"]["api_key"].is_object());
    assert!(a.body["components"]["securitySchemes"]["bearer_jwt"].is_object());
}

#[rstest]
#[tokio::test]
async fn a_graceful_stop_writes_pending_usage(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let mut app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(vidpulse_domain::Plan::Pro).await;
    app.get("/v1/videos/stats", Some(&key)).await;
    app.stop().await;
    let today = vidpulse_domain::Clock::now(&app.clock).date_naive();
    let days = app
        .store
        .usage_history(vidpulse_domain::OrgId(org), today)
        .await
        .unwrap();
    assert_eq!(days[0].total_requests, 1);
}

#[rstest]
#[tokio::test]
async fn metrics_count_requests_by_route_and_show_the_queues(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(vidpulse_domain::Plan::Pro).await;
    app.track(
        &key,
        &[&crate::helpers::youtube(1), &crate::helpers::youtube(2)],
    )
    .await;
    let id = uuid::Uuid::now_v7();
    app.get(&format!("/v1/videos/by-id/{id}"), Some(&key)).await;
    app.post(
        "/v1/bloggers/track",
        &key,
        &serde_json::json!({"platform": "tiktok", "username": "ana_builds"}),
    )
    .await;
    let a = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(a.status().as_u16(), 200);
    assert!(
        a.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let text = a.text().await.unwrap();
    for expected in [
        "vidpulse_http_requests_total{method=\"POST\",route=\"/v1/videos/track\",status=\"200\"}",
        "vidpulse_http_requests_total{method=\"GET\",route=\"/v1/videos/by-id/{video_id}\",status=\"404\"}",
        "vidpulse_http_request_duration_seconds_bucket{method=\"POST\",route=\"/v1/videos/track\",le=\"0.005\"}",
        "vidpulse_refresh_due_videos 2",
        "vidpulse_refresh_lag_seconds ",
        "vidpulse_creator_jobs{status=\"queued\"} 1",
        "# TYPE vidpulse_upstream_calls_total counter",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
    // Paths with ids are counted under their pattern, unknown paths together.
    assert!(!text.contains(&id.to_string()));
    app.get("/no/such/path", None).await;
    let text = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("route=\"unmatched\",status=\"404\""),
        "{text}"
    );
}

#[rstest]
#[tokio::test]
async fn the_docs_are_browsable(#[values(Backend::Sqlite)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let a = app.client.get(app.url("/docs")).send().await.unwrap();
    assert_eq!(a.status().as_u16(), 200);
    assert!(
        a.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = a.url().clone();
    let html = a.text().await.unwrap();
    // Without internet the page works: it names no other host, and every
    // script and style it loads is served by vidpulse itself.
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "{html}"
    );
    let assets: Vec<&str> = html
        .split(['"', '\''])
        .filter(|s| s.ends_with(".js") || s.ends_with(".css"))
        .collect();
    assert!(assets.len() >= 3, "{html}");
    for asset in assets {
        let a = app
            .client
            .get(page.join(asset).unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(a.status().as_u16(), 200, "{asset}");
        let body = a.text().await.unwrap();
        if asset.contains("initializer") {
            assert!(body.contains("/openapi.json"), "{body}");
        }
    }
    let doc = app.get("/openapi.json", None).await;
    assert!(doc.body["paths"]["/v1/videos/track"].is_object());
    assert!(doc.body["paths"]["/blogger/add"].is_object());
}

#[rstest]
#[tokio::test]
async fn slow_clients_are_cut_off_and_others_still_answered(
    #[values(Backend::Sqlite)] backend: Backend,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut config = crate::helpers::TestConfig::default();
    config.api.connections = vidpulse_api::ConnectionLimits {
        header_timeout: std::time::Duration::from_millis(500),
        idle_timeout: std::time::Duration::from_secs(60),
        request_timeout: std::time::Duration::from_millis(800),
        max_connections: 64,
    };
    let app = TestApp::spawn_with(backend, config).await;
    let addr = app.address.trim_start_matches("http://").to_owned();
    // A header trickled line by line: closed once the header timeout passes.
    let mut slow_header = tokio::net::TcpStream::connect(&addr).await.unwrap();
    slow_header
        .write_all(b"GET /healthz HTTP/1.1\r\n")
        .await
        .unwrap();
    // A body trickled byte by byte: 408 once the request timeout passes.
    let (_, key) = app.org_with_key(vidpulse_domain::Plan::Pro).await;
    let mut slow_body = tokio::net::TcpStream::connect(&addr).await.unwrap();
    slow_body
        .write_all(
            format!(
                "POST /v1/videos/track HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
                 Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let mut header_closed = false;
    for _ in 0..8 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        // Meanwhile the server answers everyone else.
        let a = app.get("/healthz", None).await;
        assert_eq!(a.status.as_u16(), 200);
        if slow_header.write_all(b"X-Slow: 1\r\n").await.is_err() {
            header_closed = true;
            break;
        }
        let _ = slow_body.write_all(b" ").await;
    }
    let mut rest = Vec::new();
    let read = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        slow_header.read_to_end(&mut rest),
    )
    .await;
    assert!(
        header_closed || matches!(read, Ok(Ok(_)) | Ok(Err(_))),
        "the slow header's connection is closed"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        slow_body.read_to_end(&mut answer),
    )
    .await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("REQUEST_TIMEOUT"), "{answer}");
}

/// The HTTP/2 client preface.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// One HTTP/2 frame: its 9-byte header, then `payload`.
fn h2_frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len()).unwrap().to_be_bytes();
    [&length[1..], &[kind, flags], &stream.to_be_bytes(), payload].concat()
}

/// The preface, empty settings, then `GET /healthz` on stream 1: a whole
/// header block, or one whose end (`END_HEADERS`, or a `CONTINUATION`
/// carrying it) never comes.
fn h2_healthz(whole: bool) -> Vec<u8> {
    // HPACK: :method GET, :scheme http (static table), :path and
    // :authority as literals with indexed names.
    let block = [
        &[0x82, 0x86, 0x04, 8][..],
        b"/healthz",
        &[0x01, 9],
        b"localhost",
    ]
    .concat();
    let flags = if whole { 0x1 | 0x4 } else { 0x1 };
    [
        H2_PREFACE.to_vec(),
        h2_frame(0x4, 0, 0, &[]),
        h2_frame(0x1, flags, 1, &block),
    ]
    .concat()
}

/// The (type, stream) of each whole HTTP/2 frame in `bytes`.
fn h2_frames(bytes: &[u8]) -> Vec<(u8, u32)> {
    let mut frames = Vec::new();
    let mut rest = bytes;
    while rest.len() >= 9 {
        let length = u32::from_be_bytes([0, rest[0], rest[1], rest[2]]) as usize;
        let stream = u32::from_be_bytes([rest[5], rest[6], rest[7], rest[8]]) & 0x7fff_ffff;
        frames.push((rest[3], stream));
        rest = &rest[(9 + length).min(rest.len())..];
    }
    frames
}

/// Reads from `socket` until the server closes it, and returns what it
/// sent; `None` when it is still open after `within`.
async fn read_until_closed(
    socket: &mut tokio::net::TcpStream,
    within: std::time::Duration,
) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let deadline = tokio::time::Instant::now() + within;
    let mut sent = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, socket.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(sent),
            Ok(Ok(n)) => sent.extend_from_slice(&buf[..n]),
        }
    }
}

/// Reads from `socket` until what it sent satisfies `done`.
async fn read_until(socket: &mut tokio::net::TcpStream, done: impl Fn(&[u8]) -> bool) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut sent = Vec::new();
    let mut buf = [0u8; 4096];
    while !done(&sent) {
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), socket.read(&mut buf))
            .await
            .expect("an answer in time")
            .unwrap();
        assert!(n > 0, "closed before answering: {sent:?}");
        sent.extend_from_slice(&buf[..n]);
    }
    sent
}

/// `GET /healthz` on a connection of its own, as the text of the answer.
async fn raw_healthz(address: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    socket
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    socket.read_to_end(&mut answer).await.unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

/// A server whose connections wait 1 s for a header and 2 s between
/// requests, at most `max_connections` at once.
async fn spawn_with_short_timeouts(backend: Backend, max_connections: usize) -> (TestApp, String) {
    let mut config = crate::helpers::TestConfig::default();
    config.api.connections = vidpulse_api::ConnectionLimits {
        header_timeout: std::time::Duration::from_secs(1),
        idle_timeout: std::time::Duration::from_secs(2),
        request_timeout: std::time::Duration::from_secs(5),
        max_connections,
    };
    let app = TestApp::spawn_with(backend, config).await;
    let address = app.address.trim_start_matches("http://").to_owned();
    (app, address)
}

#[rstest]
#[tokio::test]
async fn idle_sockets_cannot_hold_the_connection_cap(#[values(Backend::Sqlite)] backend: Backend) {
    use tokio::io::AsyncWriteExt;
    let (_app, address) = spawn_with_short_timeouts(backend, 6).await;
    // Every place taken by a connection that never completes a request:
    // one that sends nothing, one that sends only the HTTP/2 preface, one
    // whose HTTP/2 header block never ends; two of each.
    let openings = [Vec::new(), H2_PREFACE.to_vec(), h2_healthz(false)];
    let mut held = Vec::new();
    for opening in openings.iter().chain(&openings) {
        let mut socket = tokio::net::TcpStream::connect(&address).await.unwrap();
        socket.write_all(opening).await.unwrap();
        held.push(socket);
    }
    // A newcomer is still answered within seconds: the server closed them.
    let started = std::time::Instant::now();
    let answer = tokio::time::timeout(std::time::Duration::from_secs(8), raw_healthz(&address))
        .await
        .expect("/healthz answers while idle sockets try to hold every connection");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    for (i, socket) in held.iter_mut().enumerate() {
        let closed = read_until_closed(socket, std::time::Duration::from_secs(3)).await;
        assert!(closed.is_some(), "held connection {i} is closed");
    }
}

#[rstest]
#[tokio::test]
async fn idle_keep_alive_connections_are_closed(#[values(Backend::Sqlite)] backend: Backend) {
    use tokio::io::AsyncWriteExt;
    let (_app, address) = spawn_with_short_timeouts(backend, 16).await;

    // HTTP/2: one request answered, then only a ping (not a request): the
    // connection is closed with GOAWAY after the idle time, not before.
    let mut h2 = tokio::net::TcpStream::connect(&address).await.unwrap();
    h2.write_all(&h2_healthz(true)).await.unwrap();
    let answer = read_until(&mut h2, |sent| h2_frames(sent).contains(&(0x0, 1))).await;
    assert!(h2_frames(&answer).contains(&(0x1, 1)), "{answer:?}");
    let answered = std::time::Instant::now();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    h2.write_all(&h2_frame(0x6, 0, 0, &[7; 8])).await.unwrap();
    let rest = read_until_closed(&mut h2, std::time::Duration::from_secs(6))
        .await
        .expect("the idle HTTP/2 connection is closed");
    let idle = answered.elapsed();
    assert!(
        idle >= std::time::Duration::from_millis(1800) && idle < std::time::Duration::from_secs(5),
        "{idle:?}"
    );
    assert!(
        h2_frames(&rest).iter().any(|(kind, _)| *kind == 0x7),
        "GOAWAY before closing: {:?}",
        h2_frames(&rest)
    );

    // HTTP/1: a kept-alive connection waits for its next request at most
    // the header timeout.
    let mut h1 = tokio::net::TcpStream::connect(&address).await.unwrap();
    h1.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    read_until(&mut h1, |sent| {
        String::from_utf8_lossy(sent).contains(r#"{"status":"ok"}"#)
    })
    .await;
    let answered = std::time::Instant::now();
    read_until_closed(&mut h1, std::time::Duration::from_secs(4))
        .await
        .expect("the idle HTTP/1 connection is closed");
    assert!(answered.elapsed() >= std::time::Duration::from_millis(800));
}

#[rstest]
#[tokio::test]
async fn the_docs_carry_the_apps_security_headers(#[values(Backend::Sqlite)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    for path in [
        "/docs/",
        "/docs/swagger-initializer.js",
        "/docs/swagger-ui-bundle.js",
        "/docs/swagger-ui.css",
    ] {
        let a = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(a.status().as_u16(), 200, "{path}");
        let header = |name: &str| {
            a.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        let csp = header("content-security-policy");
        for directive in [
            "default-src 'self'",
            "script-src 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
        ] {
            assert!(csp.contains(directive), "{path}: {csp}");
        }
        assert!(!csp.contains("'unsafe-eval'"), "{path}: {csp}");
        assert!(
            !csp.contains("script-src 'self' 'unsafe-inline'"),
            "{path}: {csp}"
        );
        assert_eq!(header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header("referrer-policy"), "same-origin", "{path}");
    }
    // The online validator, which would send the document to another host, is off.
    let initializer = app
        .client
        .get(app.url("/docs/swagger-initializer.js"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        initializer.contains(r#""validatorUrl": "none""#),
        "{initializer}"
    );
}
