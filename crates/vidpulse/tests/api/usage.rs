use rstest::rstest;
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::helpers::{TIKTOK, TestApp, YOUTUBE};

#[rstest]
#[tokio::test]
async fn usage_counts_requests_errors_keys_and_credits(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let second = vidpulse::commands::admin::create_api_key(
        &app.store,
        org,
        None,
        vidpulse_domain::Clock::now(&app.clock),
    )
    .await
    .unwrap()
    .api_key;
    let (_, other) = app.org_with_key(Plan::Pro).await;

    app.track(&key, &[TIKTOK, YOUTUBE]).await; // 60 credits
    app.get("/v1/videos/stats", Some(&second)).await;
    app.get("/v1/videos/stats?limit=0", Some(&key)).await; // an error
    app.get("/v1/videos/stats", Some(&other)).await;

    let a = app.get("/v1/account/usage", Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let history = a.body["data"]["usage_history"].as_array().unwrap();
    assert_eq!(history.len(), 1);
    let day = &history[0];
    assert_eq!(day["organization_id"], org.to_string());
    assert!(
        day["created_at"]
            .as_str()
            .unwrap()
            .ends_with("T00:00:00.000000Z")
    );
    assert_eq!(day["total_requests"], 3);
    assert_eq!(day["successful_requests"], 2);
    assert_eq!(day["error_requests"], 1);
    assert_eq!(day["total_credits_used"], 60);
    assert_eq!(day["unique_api_keys"], 2);
    assert!(day["avg_response_time"].is_number());
    assert_eq!(
        a.body["data"]["summary"],
        serde_json::json!({
            "total_requests_30_days": 3,
            "total_credits_30_days": 60,
            "reads_skipped_30_days": 0
        })
    );
    assert_eq!(day["reads_skipped"], 0);
    assert_eq!(
        a.body["data"]["limits"],
        serde_json::json!({"read_cap": null}),
        "no read cap by default"
    );

    // The usage read itself counts next time.
    let a = app.get("/v1/account/usage", Some(&key)).await;
    assert_eq!(a.body["data"]["summary"]["total_requests_30_days"], 4);

    // Days older than 30 fall out of the report.
    app.advance(chrono::Duration::days(30));
    let a = app.get("/v1/account/usage", Some(&key)).await;
    assert_eq!(a.body["data"]["usage_history"].as_array().unwrap().len(), 0);
}
