//! Reading a video now (POST /v1/videos/by-id/{video_id}/refresh): one
//! upstream read serves every organization within the cooldown, later asks
//! wait, and only a fresh read costs a credit.

use chrono::Duration;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::Plan;
use vidpulse_platforms::SimulatedConfig;
use vidpulse_store::Backend;

use crate::helpers::{Answer, TIKTOK, TestApp, TestConfig, YOUTUBE, assert_nested_error};

fn video_id(tracked: &Value) -> String {
    tracked["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn refresh(app: &TestApp, key: &str, id: &str) -> Answer {
    app.post(&format!("/v1/videos/by-id/{id}/refresh"), key, &json!({}))
        .await
}

async fn credits(app: &TestApp, key: &str) -> i64 {
    app.flush_usage().await;
    app.get("/v1/account/usage", Some(key)).await.body["data"]["summary"]["total_credits_30_days"]
        .as_i64()
        .unwrap()
}

async fn history_len(app: &TestApp, key: &str, id: &str) -> usize {
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(key)).await;
    a.body["data"]["data"]["stats"]["views"]
        .as_object()
        .unwrap()
        .len()
}

#[rstest]
#[tokio::test]
async fn one_read_serves_every_organization_within_the_cooldown(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, a_key) = app.org_with_key(Plan::Pro).await;
    let (_, b_key) = app.org_with_key(Plan::Free).await;
    let a_id = video_id(&app.track(&a_key, &[TIKTOK]).await);
    let b_id = video_id(&app.track(&b_key, &[TIKTOK]).await);
    app.run_worker_until_idle().await;

    // Within the cooldown of the scheduled first read: it answers, free.
    let a = refresh(&app, &a_key, &a_id).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["fresh"], false);
    assert_eq!(a.body["meta"]["credits_used"], 0);
    assert_eq!(history_len(&app, &a_key, &a_id).await, 1);
    let asked_again = refresh(&app, &a_key, &a_id).await;
    assert_nested_error(&asked_again, 429, "REFRESH_TOO_SOON");
    let wait: i64 = asked_again.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(wait, 300);

    // Past the cooldown: A's ask reads the platform now, for 1 credit.
    app.advance(Duration::minutes(10));
    let credits_before = credits(&app, &a_key).await;
    let a = refresh(&app, &a_key, &a_id).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let d = &a.body["data"];
    assert_eq!(d["fresh"], true);
    assert_eq!(a.body["meta"]["credits_used"], 1);
    assert_eq!(d["video_id"], a_id.as_str());
    assert_eq!(d["external_video_id"], "7301234567890123456");
    assert_eq!(d["platform"], "TikTok");
    assert!(d["views"].as_i64().unwrap() > 0);
    assert_eq!(credits(&app, &a_key).await, credits_before + 1);
    assert_eq!(
        history_len(&app, &a_key, &a_id).await,
        2,
        "the new reading is kept"
    );
    let read = app
        .get(&format!("/v1/videos/by-id/{a_id}"), Some(&a_key))
        .await;
    assert_eq!(read.body["data"]["data"]["views"], d["views"]);
    assert_eq!(
        read.body["data"]["data"]["stats_last_updated"],
        d["read_at"]
    );

    // B asks two minutes later: A's read answers it, free; the same numbers.
    app.advance(Duration::minutes(2));
    let b_credits = credits(&app, &b_key).await;
    let b = refresh(&app, &b_key, &b_id).await;
    assert_eq!(b.status.as_u16(), 200, "{}", b.body);
    assert_eq!(b.body["data"]["fresh"], false);
    assert_eq!(b.body["data"]["read_at"], d["read_at"]);
    assert_eq!(b.body["data"]["views"], d["views"]);
    assert_eq!(credits(&app, &b_key).await, b_credits);

    // A again within its cooldown: wait for the rest of it.
    let again = refresh(&app, &a_key, &a_id).await;
    assert_nested_error(&again, 429, "REFRESH_TOO_SOON");
    assert_eq!(again.headers["retry-after"], "180");
    assert_eq!(
        credits(&app, &a_key).await,
        credits_before + 1,
        "a refusal costs nothing"
    );

    // After it, a fresh read again; by the external id too.
    app.advance(Duration::minutes(3));
    let a = app
        .post(
            "/v1/videos/by-external-id/7301234567890123456/refresh",
            &a_key,
            &json!({}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["fresh"], true);
}

#[rstest]
#[tokio::test]
async fn refresh_errors(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let config = TestConfig {
        sim: SimulatedConfig {
            failing_ids: vec!["dQw4w9WgXcQ".into()],
            ..SimulatedConfig::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let tiktok = video_id(&app.track(&key, &[TIKTOK]).await);
    let failing = video_id(&app.track(&key, &[YOUTUBE]).await);
    let theirs = video_id(&app.track(&other, &["https://youtu.be/yt000000001"]).await);
    app.run_worker_until_idle().await;
    app.advance(Duration::minutes(10));
    let before = credits(&app, &key).await;

    // The platform fails: 502, nothing charged, and the ask is not spent.
    let a = refresh(&app, &key, &failing).await;
    assert_nested_error(&a, 502, "EXTERNAL_API_ERROR");
    let a = refresh(&app, &key, &failing).await;
    assert_nested_error(&a, 502, "EXTERNAL_API_ERROR");
    assert_eq!(credits(&app, &key).await, before);

    // Not the organization's, or no such video.
    for path in [
        format!("/v1/videos/by-id/{theirs}/refresh"),
        "/v1/videos/by-id/not-a-uuid/refresh".to_owned(),
        format!("/v1/videos/by-id/{}/refresh", uuid::Uuid::now_v7()),
        "/v1/videos/by-external-id/yt000000001/refresh".to_owned(),
    ] {
        assert_nested_error(
            &app.post(&path, &key, &json!({})).await,
            404,
            "VIDEO_NOT_FOUND",
        );
    }
    let a = app
        .send_json(
            reqwest::Method::POST,
            &format!("/v1/videos/by-id/{tiktok}/refresh"),
            None,
            &json!({}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 401);

    // Removed on the platform: 409, and it stays so.
    app.source.set_gone("7301234567890123456", true);
    let a = refresh(&app, &key, &tiktok).await;
    assert_nested_error(&a, 409, "VIDEO_UNAVAILABLE");
    app.advance(Duration::minutes(10));
    let a = refresh(&app, &key, &tiktok).await;
    assert_nested_error(&a, 409, "VIDEO_UNAVAILABLE");
    assert_eq!(credits(&app, &key).await, before);

    // Past the tracking window nothing more is read.
    app.advance(Duration::days(31));
    let a = refresh(&app, &other, &theirs).await;
    assert_nested_error(&a, 409, "TRACKING_ENDED");
}
