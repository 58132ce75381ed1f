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
