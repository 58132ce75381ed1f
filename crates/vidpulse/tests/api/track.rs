use futures::future::join_all;
use rstest::rstest;
use serde_json::json;
use vidpulse_api::ApiConfig;
use vidpulse_api::rate_limit::RateLimitConfig;
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::helpers::{
    INSTAGRAM, TIKTOK, TestApp, TestConfig, YOUTUBE, assert_nested_error, youtube,
};

#[rstest]
#[tokio::test]
async fn tracks_every_platform_and_reports_each_url(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Free).await;
    let body = app
        .track(
            &key,
            &[
                TIKTOK,
                "https://youtu.be/dQw4w9WgXcQ?si=abc",
                INSTAGRAM,
                "https://vm.tiktok.com/ZMabc1234/",
                "https://vimeo.com/12345",
                YOUTUBE,
            ],
        )
        .await;
    let r = &body["data"]["results"];
    assert_eq!(r.as_array().unwrap().len(), 6);
    for (i, item) in r.as_array().unwrap().iter().enumerate() {
        assert_eq!(item["index"], i);
    }
    assert_eq!(r[0]["platform"], "tiktok");
    assert_eq!(r[0]["external_video_id"], "7301234567890123456");
    assert_eq!(r[0]["status"], "tracked");
    assert!(r[0]["error"].is_null());
    assert_eq!(r[1]["url"], "https://www.youtube.com/watch?v=dQw4w9WgXcQ");
    assert_eq!(r[2]["platform"], "instagram");
    assert_eq!(r[2]["external_video_id"], "CWqAgUZgCku");
    // A short link is resolved to the video's URL.
    assert_eq!(r[3]["platform"], "tiktok");
    assert!(
        r[3]["url"].as_str().unwrap().contains("/video/"),
        "{}",
        r[3]
    );
    assert_eq!(r[3]["status"], "tracked");
    assert_eq!(r[4]["status"], "error");
    assert!(r[4]["error"].as_str().unwrap().contains("vimeo.com"));
    assert!(r[4]["video_id"].is_null());
    // The same video twice in one request: the second is already tracked.
    assert_eq!(r[5]["status"], "already_tracked");
    assert_eq!(r[5]["video_id"], r[1]["video_id"]);

    let meta = &body["meta"];
    assert_eq!(
        meta["summary"],
        json!({"total": 6, "tracked": 4, "already_tracked": 1, "errors": 1})
    );
    assert_eq!(meta["credits_used"], 120);
    assert!(meta["request_id"].is_string() && meta["processing_time_ms"].is_number());

    // Tracking again costs nothing.
    let again = app
        .track(
            &key,
            &[
                TIKTOK,
                "https://www.tiktok.com/@other/video/7301234567890123456?lang=en",
            ],
        )
        .await;
    assert_eq!(again["data"]["results"][0]["status"], "already_tracked");
    assert_eq!(again["data"]["results"][1]["status"], "already_tracked");
    assert_eq!(again["meta"]["credits_used"], 0);
}

#[rstest]
#[tokio::test]
async fn invalid_urls_field(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let too_many: Vec<String> = (0..51).map(youtube).collect();
    for body in [
        json!({}),
        json!({ "url": [YOUTUBE] }),
        json!({ "urls": YOUTUBE }),
        json!({ "urls": [] }),
        json!({ "urls": [YOUTUBE, 5] }),
        json!({ "urls": null }),
        json!({ "urls": too_many }),
    ] {
        let a = app.post("/v1/videos/track", &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], "urls", "{body}");
    }
    let a = app.post("/v1/videos/track", &key, &json!([YOUTUBE])).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // Nothing was tracked or charged.
    let list = app.get("/v1/videos/stats", Some(&key)).await;
    assert_eq!(list.body["data"]["pagination"]["total"], 0);

    // Exactly 50 is fine.
    let fifty: Vec<String> = (0..50).map(youtube).collect();
    let a = app
        .post("/v1/videos/track", &key, &json!({ "urls": fifty }))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["meta"]["summary"]["tracked"], 50);
}

#[rstest]
#[tokio::test]
async fn the_quota_refuses_the_whole_request(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Free).await;
    vidpulse::commands::admin::set_plan(&app.store, org, Plan::Free, Some(3), None)
        .await
        .unwrap();
    app.track(&key, &[&youtube(1), &youtube(2)]).await;

    let a = app
        .post(
            "/v1/videos/track",
            &key,
            &json!({ "urls": [youtube(2), youtube(3), youtube(4)] }),
        )
        .await;
    assert_nested_error(&a, 403, "SUBSCRIPTION_LIMIT");
    let message = a.body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("free") && message.contains('3') && message.contains('2'),
        "{message}"
    );
    assert_eq!(
        app.get("/v1/videos/stats", Some(&key)).await.body["data"]["pagination"]["total"],
        2
    );

    // Already-tracked URLs do not count; one new one still fits.
    let ok = app.track(&key, &[&youtube(1), &youtube(3)]).await;
    assert_eq!(ok["meta"]["summary"]["tracked"], 1);
    app.flush_usage().await;
    let usage = app.get("/v1/account/usage", Some(&key)).await;
    assert_eq!(usage.body["data"]["summary"]["total_credits_30_days"], 90);
}

#[rstest]
#[tokio::test]
async fn concurrent_requests_track_one_video_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let body = json!({ "urls": [TIKTOK] });
    let answers = join_all((0..20).map(|_| app.post("/v1/videos/track", &key, &body))).await;
    let mut tracked = 0;
    let mut ids = std::collections::HashSet::new();
    for a in &answers {
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        let r = &a.body["data"]["results"][0];
        ids.insert(r["video_id"].as_str().unwrap().to_owned());
        if r["status"] == "tracked" {
            tracked += 1;
        }
    }
    assert_eq!((tracked, ids.len()), (1, 1));
    app.flush_usage().await;
    let usage = app.get("/v1/account/usage", Some(&key)).await;
    assert_eq!(usage.body["data"]["summary"]["total_credits_30_days"], 30);
}

#[rstest]
#[tokio::test]
async fn rate_limits_per_key(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let config = TestConfig {
        api: ApiConfig {
            rate_limits: RateLimitConfig {
                multi_video_requests_per_minute: 2,
                videos_per_minute: 8,
                ..RateLimitConfig::default()
            },
            ..ApiConfig::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other_key) = app.org_with_key(Plan::Pro).await;
    for i in 0..2 {
        app.track(&key, &[&youtube(i * 2), &youtube(i * 2 + 1)])
            .await;
    }
    let a = app
        .post(
            "/v1/videos/track",
            &key,
            &json!({ "urls": [youtube(10), youtube(11)] }),
        )
        .await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    let retry: u64 = a.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    // Single-URL requests only count toward videos per minute (4 of 8 used).
    for i in 20..24 {
        app.track(&key, &[&youtube(i)]).await;
    }
    let a = app
        .post("/v1/videos/track", &key, &json!({ "urls": [youtube(30)] }))
        .await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    // Another key has its own budget.
    app.track(&other_key, &[&youtube(40), &youtube(41)]).await;
}
