use rstest::rstest;
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::helpers::{TIKTOK, TestApp, YOUTUBE};

fn assert_video_not_found(a: &crate::helpers::Answer) {
    assert_eq!(a.status.as_u16(), 404, "{}", a.body);
    assert_eq!(a.body["success"], false);
    assert_eq!(a.body["error"], "Video not found");
    assert!(a.body.get("code").is_none(), "{}", a.body);
}

#[rstest]
#[tokio::test]
async fn read_by_id_and_external_id(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Free).await;
    let t = app.track(&key, &[TIKTOK, YOUTUBE]).await;
    let id = t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Before the first read the record exists without statistics.
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let v = &a.body["data"]["data"];
    assert_eq!(v["video_id"], id.as_str());
    assert!(v["views"].is_null() && v["stats_last_updated"].is_null());

    app.run_worker_until_idle().await;
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(&key)).await;
    let v = &a.body["data"]["data"];
    assert_eq!(v["external_video_id"], "7301234567890123456");
    assert_eq!(v["platform"], "TikTok");
    for field in ["views", "likes", "comments", "reposts", "saves"] {
        assert!(v[field].as_i64().is_some_and(|n| n >= 0), "{field}: {v}");
    }
    assert!(v["title"].is_string() && v["thumbnail_url"].is_string());
    assert!(v["er"].is_number() && v["cpm"].is_null());
    assert!(v["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(v["tracking_status"], "active");
    let views = v["stats"]["views"].as_object().unwrap();
    assert_eq!(views.len(), 1);
    let (at, value) = views.iter().next().unwrap();
    // `YYYY-MM-DD HH:MM:SS.ffffff+00`
    assert_eq!(at.len(), 29, "{at}");
    assert!(
        at.ends_with("+00") && at.as_bytes()[10] == b' ' && at.as_bytes()[19] == b'.',
        "{at}"
    );
    assert_eq!(value, &v["views"]);
    assert!(a.body["meta"]["request_id"].is_string());

    let a = app
        .get("/v1/videos/by-external-id/dQw4w9WgXcQ", Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 200);
    assert_eq!(a.body["data"]["data"]["platform"], "YouTube");
    // YouTube reports no reposts or saves: null, never 0.
    assert!(
        a.body["data"]["data"]["reposts"].is_null() && a.body["data"]["data"]["saves"].is_null()
    );
}

#[rstest]
#[tokio::test]
async fn reads_are_scoped_and_bad_ids_are_not_found(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let t = app.track(&key, &[TIKTOK]).await;
    let id = t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();

    assert_video_not_found(
        &app.get(&format!("/v1/videos/by-id/{id}"), Some(&other))
            .await,
    );
    assert_video_not_found(
        &app.get(
            "/v1/videos/by-external-id/7301234567890123456",
            Some(&other),
        )
        .await,
    );
    assert_video_not_found(&app.get("/v1/videos/by-id/not-a-uuid", Some(&key)).await);
    assert_video_not_found(
        &app.get(
            "/v1/videos/by-id/00000000-0000-0000-0000-000000000000",
            Some(&key),
        )
        .await,
    );
    assert_video_not_found(&app.get("/v1/videos/by-id/%FF%FE", Some(&key)).await);
    assert_video_not_found(
        &app.get("/v1/videos/by-external-id/unknown", Some(&key))
            .await,
    );
    assert_video_not_found(&app.get("/v1/videos/by-external-id/a%2Fb", Some(&key)).await);
}

/// A single read as sent, with `accept-encoding` when given: its status,
/// headers and body, inflated when it came gzip-compressed.
async fn read_encoded(
    app: &TestApp,
    path: &str,
    key: &str,
    accept_encoding: Option<&str>,
) -> crate::helpers::Answer {
    use std::io::Read;
    let mut req = app.client.get(app.url(path)).bearer_auth(key);
    if let Some(accept) = accept_encoding {
        req = req.header("accept-encoding", accept);
    }
    let response = req.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.unwrap();
    let text = if headers.get("content-encoding").is_some_and(|v| v == "gzip") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    } else {
        String::from_utf8(bytes.to_vec()).unwrap()
    };
    crate::helpers::Answer {
        status,
        headers,
        body: serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
    }
}

/// Deletes the tracked video `id` in the database itself, as an operator's
/// cleanup would: no cache is told.
async fn delete_behind_the_stores_back(app: &TestApp, backend: Backend, id: &str) {
    let simple = uuid::Uuid::parse_str(id).unwrap().simple().to_string();
    let id_sql = match backend {
        Backend::Sqlite => format!("id = x'{simple}'"),
        Backend::Postgres => format!("id = '{id}'"),
    };
    vidpulse_store::testing::delete_tracked_videos(&app.db.url, &id_sql)
        .await
        .unwrap();
}

/// An app keeping `record_cache_bytes` of records; a Pro organization's
/// key that tracked [`TIKTOK`] and [`YOUTUBE`] (the track answer), each
/// read once; another Pro organization's key.
async fn two_videos_read(
    backend: Backend,
    record_cache_bytes: u64,
) -> (TestApp, String, String, serde_json::Value) {
    let mut config = crate::helpers::TestConfig::default();
    config.api.record_cache_bytes = record_cache_bytes;
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let tracked = app.track(&key, &[TIKTOK, YOUTUBE]).await;
    app.run_worker_until_idle().await;
    (app, key, other, tracked)
}

#[rstest]
#[tokio::test]
async fn single_reads_are_alike_gzip_or_plain_cached_or_not_and_follow_every_change(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
    #[values(256 << 20, 0)] record_cache_bytes: u64,
) {
    let (app, key, other, t) = two_videos_read(backend, record_cache_bytes).await;
    let id = t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let by_id = format!("/v1/videos/by-id/{id}");
    let by_external_id = "/v1/videos/by-external-id/7301234567890123456";

    // Every way of asking gives the same record; only gzip-accepting
    // clients of a kept answer get gzip, and every answer says it varies.
    let first = read_encoded(&app, &by_id, &key, None).await;
    assert_eq!(first.status.as_u16(), 200, "{}", first.body);
    let record = first.body["data"]["data"].clone();
    assert_eq!(record["stats"]["views"].as_object().unwrap().len(), 1);
    for accept in [
        None,
        Some("gzip"),
        Some("gzip, br"),
        Some("gzip;q=0"),
        Some("identity"),
    ] {
        for path in [by_id.as_str(), by_external_id] {
            let a = read_encoded(&app, path, &key, accept).await;
            assert_eq!(a.status.as_u16(), 200, "{accept:?} {}", a.body);
            assert_eq!(a.body["data"]["data"], record, "{accept:?} {path}");
            assert_eq!(a.body["success"], true);
            assert_eq!(a.body["meta"]["request_id"], a.request_id());
            assert_eq!(a.headers["content-type"], "application/json");
            assert_eq!(a.headers["vary"], "accept-encoding");
            let gzip = accept.is_some_and(|a| a.starts_with("gzip") && !a.ends_with("q=0"));
            assert_eq!(
                a.headers.contains_key("content-encoding"),
                gzip && record_cache_bytes > 0,
                "{accept:?}"
            );
        }
    }

    // A change of the record's own fields shows at once, history kept.
    let a = app
        .patch(
            by_external_id,
            &key,
            &serde_json::json!({ "notes": "kept?", "tags": ["Launch"] }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    for accept in [None, Some("gzip")] {
        let a = read_encoded(&app, &by_id, &key, accept).await;
        assert_eq!(a.body["data"]["data"]["notes"], "kept?");
        assert_eq!(
            a.body["data"]["data"]["tags"],
            serde_json::json!(["Launch"])
        );
        assert_eq!(a.body["data"]["data"]["stats"], record["stats"]);
    }

    // A new reading shows at once, in the history and the latest counters.
    app.advance(chrono::Duration::minutes(15));
    assert_eq!(app.run_worker_until_idle().await, 2);
    for accept in [Some("gzip"), None] {
        for path in [by_id.as_str(), by_external_id] {
            let a = read_encoded(&app, path, &key, accept).await;
            let v = &a.body["data"]["data"];
            let views = v["stats"]["views"].as_object().unwrap();
            assert_eq!(views.len(), 2, "{accept:?} {path}");
            assert_eq!(views.values().next_back().unwrap(), &v["views"]);
            assert_ne!(v["stats_last_updated"], record["stats_last_updated"]);
        }
    }

    // Time alone ends the tracking: a kept answer does not outlive it.
    assert_eq!(record["tracking_status"], "active");
    app.advance(chrono::Duration::days(400));
    for accept in [Some("gzip"), None] {
        let a = read_encoded(&app, &by_id, &key, accept).await;
        assert_eq!(
            a.body["data"]["data"]["tracking_status"], "completed",
            "{accept:?}"
        );
    }

    // Another organization never sees it, kept or not; a deleted tracking
    // is gone at once.
    for accept in [None, Some("gzip")] {
        assert_video_not_found(&read_encoded(&app, &by_id, &other, accept).await);
        assert_video_not_found(&read_encoded(&app, by_external_id, &other, accept).await);
    }
    delete_behind_the_stores_back(&app, backend, &id).await;
    for accept in [None, Some("gzip")] {
        assert_video_not_found(&read_encoded(&app, &by_id, &key, accept).await);
    }
}

/// The listing's page, as `accept` asks, checked for what every answer
/// says of itself; `data.data` and `data.pagination`.
async fn listing_page(
    app: &TestApp,
    path: &str,
    key: &str,
    accept: Option<&str>,
    record_cache_bytes: u64,
) -> (serde_json::Value, serde_json::Value) {
    let a = read_encoded(app, path, key, accept).await;
    assert_eq!(a.status.as_u16(), 200, "{accept:?} {}", a.body);
    assert_eq!(a.body["success"], true);
    assert_eq!(a.body["meta"]["request_id"], a.request_id());
    assert_eq!(a.headers["content-type"], "application/json");
    // Compressed when the client accepts gzip and the page shows records
    // kept compressed (an empty page has none).
    let gzip = accept.is_some_and(|a| a.starts_with("gzip") && !a.ends_with("q=0"));
    let shows_records = a.body["data"]["data"]
        .as_array()
        .is_some_and(|items| !items.is_empty());
    assert_eq!(
        a.headers.contains_key("content-encoding"),
        gzip && record_cache_bytes > 0 && shows_records,
        "{accept:?}"
    );
    (
        a.body["data"]["data"].clone(),
        a.body["data"]["pagination"].clone(),
    )
}

#[rstest]
#[tokio::test]
async fn listing_pages_are_alike_gzip_or_plain_kept_or_not_and_follow_every_change(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
    #[values(256 << 20, 0)] record_cache_bytes: u64,
) {
    let (app, key, other, _) = two_videos_read(backend, record_cache_bytes).await;
    let list = "/v1/videos/stats?limit=10";
    let page = |accept| listing_page(&app, list, &key, accept, record_cache_bytes);

    // Each item is the video's single read, kept or not, gzip or not (the
    // single reads keep records the listing then shows, and the other way).
    let (items, pagination) = page(None).await;
    assert_eq!(
        pagination,
        serde_json::json!({ "total": 2, "limit": 10, "offset": 0, "has_more": false })
    );
    for accept in [None, Some("gzip"), Some("gzip;q=0"), Some("identity")] {
        let (again, _) = page(accept).await;
        assert_eq!(again, items, "{accept:?}");
        for item in items.as_array().unwrap() {
            let path = format!("/v1/videos/by-id/{}", item["video_id"].as_str().unwrap());
            let one = read_encoded(&app, &path, &key, accept).await;
            assert_eq!(&one.body["data"]["data"], item, "{accept:?}");
        }
    }
    let (second, pagination) = listing_page(
        &app,
        "/v1/videos/stats?limit=1&offset=1",
        &key,
        Some("gzip"),
        record_cache_bytes,
    )
    .await;
    assert_eq!(second, serde_json::json!([items[1].clone()]));
    assert_eq!(pagination["has_more"], false);
    let (first, pagination) = listing_page(
        &app,
        "/v1/videos/stats?limit=1",
        &key,
        None,
        record_cache_bytes,
    )
    .await;
    assert_eq!(first, serde_json::json!([items[0].clone()]));
    assert_eq!(pagination["has_more"], true);

    // An edit, a new reading, time ending the tracking: each shows at once.
    let id = items[0]["video_id"].as_str().unwrap().to_owned();
    let external_id = items[0]["external_video_id"].as_str().unwrap();
    let a = app
        .patch(
            &format!("/v1/videos/by-external-id/{external_id}"),
            &key,
            &serde_json::json!({ "notes": "listed?" }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    for accept in [Some("gzip"), None] {
        let (now, _) = page(accept).await;
        assert_eq!(now[0]["notes"], "listed?", "{accept:?}");
        assert_eq!(now[1], items[1], "{accept:?}");
    }
    app.advance(chrono::Duration::minutes(15));
    assert_eq!(app.run_worker_until_idle().await, 2);
    for accept in [None, Some("gzip")] {
        let (now, _) = page(accept).await;
        for v in now.as_array().unwrap() {
            let views = v["stats"]["views"].as_object().unwrap();
            assert_eq!(views.len(), 2, "{accept:?}");
            assert_eq!(views.values().next_back().unwrap(), &v["views"]);
        }
    }
    app.advance(chrono::Duration::days(400));
    for accept in [Some("gzip"), None] {
        let (now, _) = page(accept).await;
        for v in now.as_array().unwrap() {
            assert_eq!(v["tracking_status"], "completed", "{accept:?}");
        }
    }

    // Another organization's listing is its own; a tracking deleted behind
    // the store's back leaves the page at once.
    for accept in [None, Some("gzip")] {
        let (theirs, pagination) =
            listing_page(&app, list, &other, accept, record_cache_bytes).await;
        assert_eq!(theirs, serde_json::json!([]));
        assert_eq!(pagination["total"], 0);
    }
    delete_behind_the_stores_back(&app, backend, &id).await;
    for accept in [None, Some("gzip")] {
        let (now, pagination) = page(accept).await;
        assert_eq!(now.as_array().unwrap().len(), 1, "{accept:?}");
        assert_eq!(now[0]["video_id"], items[1]["video_id"]);
        assert_eq!(pagination["total"], 1);
    }
}
