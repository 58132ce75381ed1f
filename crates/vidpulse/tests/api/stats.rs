use rstest::rstest;
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::helpers::{INSTAGRAM, TIKTOK, TestApp, assert_flat_error, youtube};

#[rstest]
#[tokio::test]
async fn listing_pages_filters_and_sorts(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    for i in 0..3 {
        app.track(&key, &[&youtube(i)]).await;
        app.advance(chrono::Duration::seconds(1));
    }
    app.track(&key, &[TIKTOK, INSTAGRAM]).await;
    app.track(&other, &[&youtube(99)]).await;
    app.run_worker_until_idle().await;

    let a = app.get("/v1/videos/stats", Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let data = &a.body["data"];
    assert_eq!(
        data["pagination"],
        serde_json::json!({"total": 5, "limit": 50, "offset": 0, "has_more": false})
    );
    assert_eq!(data["data"].as_array().unwrap().len(), 5);
    assert!(
        a.body["meta"]["request_id"].is_string()
            && a.body["meta"]["processing_time_ms"].is_number()
    );
    // Newest first by default.
    let first = &data["data"][0];
    assert!(
        ["TikTok", "Instagram"].contains(&first["platform"].as_str().unwrap()),
        "{first}"
    );

    let a = app
        .get("/v1/videos/stats?limit=2&offset=1&order=asc", Some(&key))
        .await;
    let page = &a.body["data"];
    assert_eq!(
        page["pagination"],
        serde_json::json!({"total": 5, "limit": 2, "offset": 1, "has_more": true})
    );
    assert_eq!(page["data"][0]["external_video_id"], "yt000000001");
    let a = app
        .get("/v1/videos/stats?limit=2&offset=4", Some(&key))
        .await;
    assert_eq!(a.body["data"]["pagination"]["has_more"], false);
    let a = app.get("/v1/videos/stats?offset=10", Some(&key)).await;
    assert_eq!(a.body["data"]["pagination"]["total"], 5);
    assert!(a.body["data"]["data"].as_array().unwrap().is_empty());

    for (platform, n) in [("TikTok", 1), ("youtube", 3), ("Instagram", 1)] {
        let a = app
            .get(&format!("/v1/videos/stats?platform={platform}"), Some(&key))
            .await;
        assert_eq!(a.body["data"]["pagination"]["total"], n, "{platform}");
    }
    for (status, n) in [("active", 5), ("completed", 0), ("failed", 0)] {
        let a = app
            .get(&format!("/v1/videos/stats?status={status}"), Some(&key))
            .await;
        assert_eq!(a.body["data"]["pagination"]["total"], n, "{status}");
    }
    let a = app
        .get("/v1/videos/stats?sort=views&order=desc", Some(&key))
        .await;
    let views: Vec<i64> = a.body["data"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["views"].as_i64().unwrap())
        .collect();
    assert!(views.windows(2).all(|w| w[0] >= w[1]), "{views:?}");
    let a = app
        .get("/v1/videos/stats?sort=likes&order=asc", Some(&key))
        .await;
    let likes: Vec<i64> = a.body["data"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["likes"].as_i64().unwrap())
        .collect();
    assert!(likes.windows(2).all(|w| w[0] <= w[1]), "{likes:?}");
    assert_eq!(
        app.get("/v1/videos/stats?sort=updated_at", Some(&key))
            .await
            .status
            .as_u16(),
        200
    );

    // Completed after the 30-day window.
    app.advance(chrono::Duration::days(31));
    let a = app
        .get("/v1/videos/stats?status=completed", Some(&key))
        .await;
    assert_eq!(a.body["data"]["pagination"]["total"], 5);
}

#[rstest]
#[tokio::test]
async fn invalid_parameters_are_refused_not_clamped(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Free).await;
    for q in [
        "limit=0",
        "limit=101",
        "limit=abc",
        "limit=",
        "limit=1.5",
        "offset=-1",
        "offset=x",
        "platform=vimeo",
        "platform=",
        "status=done",
        "sort=title",
        "order=up",
    ] {
        let a = app.get(&format!("/v1/videos/stats?{q}"), Some(&key)).await;
        assert_flat_error(&a, 400, "INVALID_PARAMETER");
    }
    let a = app.get("/v1/videos/stats?sort=title", Some(&key)).await;
    assert_eq!(
        a.body["details"]["valid_sort_options"],
        serde_json::json!([
            "created_at",
            "views",
            "likes",
            "comments",
            "updated_at",
            "published_at",
            "views_gained",
            "likes_gained"
        ])
    );
    assert_eq!(
        app.get("/v1/videos/stats?limit=100&offset=0", Some(&key))
            .await
            .status
            .as_u16(),
        200
    );
    assert_eq!(
        app.get("/v1/videos/stats?limit=1", Some(&key))
            .await
            .status
            .as_u16(),
        200
    );
}
