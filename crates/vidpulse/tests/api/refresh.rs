//! The refresh loop seen through the API: statistics appear, grow on
//! schedule, stop for a gone video and at the end of the window.

use std::time::Duration as StdDuration;

use chrono::Duration;
use rstest::rstest;
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::helpers::{TIKTOK, TestApp, TestConfig, YOUTUBE};

async fn views_history(app: &TestApp, key: &str, id: &str) -> Vec<i64> {
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(key)).await;
    a.body["data"]["data"]["stats"]["views"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .collect()
}

#[rstest]
#[tokio::test]
async fn statistics_appear_and_grow_on_schedule(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let t = app.track(&key, &[TIKTOK]).await;
    let id = t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();

    assert_eq!(
        app.run_worker_until_idle().await,
        1,
        "the first read is due at once"
    );
    assert_eq!(views_history(&app, &key, &id).await.len(), 1);
    assert_eq!(
        app.run_worker_until_idle().await,
        0,
        "nothing due before 15 minutes"
    );

    app.advance(Duration::minutes(14));
    assert_eq!(app.run_worker_until_idle().await, 0);
    app.advance(Duration::minutes(1));
    assert_eq!(app.run_worker_until_idle().await, 1);
    // A day of 15-minute reads, then hourly.
    for _ in 0..(24 * 4) {
        app.advance(Duration::minutes(15));
        app.run_worker_until_idle().await;
    }
    let history = views_history(&app, &key, &id).await;
    assert!(history.len() >= 96, "{}", history.len());
    assert!(
        history.windows(2).all(|w| w[0] <= w[1]),
        "views never decrease"
    );
    assert!(history.last() > history.first(), "views grew: {history:?}");
    app.advance(Duration::minutes(15));
    assert_eq!(
        app.run_worker_until_idle().await,
        0,
        "hourly after the first day"
    );
    app.advance(Duration::minutes(45));
    assert_eq!(app.run_worker_until_idle().await, 1);

    // After 30 days: one last read at the end of the window, then none.
    app.advance(Duration::days(30));
    app.run_worker_until_idle().await;
    app.advance(Duration::days(1));
    assert_eq!(app.run_worker_until_idle().await, 0);
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(&key)).await;
    assert_eq!(a.body["data"]["data"]["tracking_status"], "completed");
}

#[rstest]
#[tokio::test]
async fn a_gone_video_is_marked_failed_and_stops(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let t = app.track(&key, &[TIKTOK, YOUTUBE]).await;
    let id = t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.run_worker_until_idle().await;

    app.source.set_gone("7301234567890123456", true);
    app.advance(Duration::minutes(15));
    assert_eq!(app.run_worker_until_idle().await, 2);
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(&key)).await;
    assert_eq!(a.body["data"]["data"]["tracking_status"], "failed");
    assert_eq!(
        views_history(&app, &key, &id).await.len(),
        1,
        "history is kept"
    );
    let failed = app.get("/v1/videos/stats?status=failed", Some(&key)).await;
    assert_eq!(failed.body["data"]["pagination"]["total"], 1);

    app.advance(Duration::minutes(15));
    assert_eq!(
        app.run_worker_until_idle().await,
        1,
        "only the YouTube video is still read"
    );
}

#[rstest]
#[tokio::test]
async fn failing_reads_back_off_and_recover(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn_with(
        backend,
        TestConfig {
            sim: vidpulse_platforms::SimulatedConfig {
                failing_ids: vec!["dQw4w9WgXcQ".into()],
                ..Default::default()
            },
            ..TestConfig::default()
        },
    )
    .await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let t = app.track(&key, &[YOUTUBE]).await;
    let id = t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Failures retry after 1, 2, 4 minutes; after 3 in a row the video shows failed.
    for wait in [0, 1, 2] {
        app.advance(Duration::minutes(wait));
        assert_eq!(
            app.run_worker_until_idle().await,
            1,
            "retry after {wait} min"
        );
    }
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(&key)).await;
    assert_eq!(a.body["data"]["data"]["tracking_status"], "failed");
    assert!(a.body["data"]["data"]["views"].is_null());
}

#[rstest]
#[tokio::test]
async fn the_background_worker_reads_new_videos_within_seconds(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn_with(
        backend,
        TestConfig {
            run_worker: true,
            ..TestConfig::default()
        },
    )
    .await;
    let (_, key) = app.org_with_key(Plan::Free).await;
    let t = app.track(&key, &[INSTAGRAM_REEL]).await;
    let id = t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let started = std::time::Instant::now();
    loop {
        let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(&key)).await;
        if a.body["data"]["data"]["views"].is_number() {
            break;
        }
        assert!(
            started.elapsed() < StdDuration::from_secs(5),
            "no statistics after 5 s"
        );
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    }
}

const INSTAGRAM_REEL: &str = "https://www.instagram.com/p/CDUMkliABpa/";
