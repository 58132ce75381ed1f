//! Authentication and body errors, shared by every endpoint.

use rstest::rstest;
use serde_json::json;
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::helpers::{TestApp, YOUTUBE, assert_flat_error, assert_nested_error};

#[rstest]
#[tokio::test]
async fn missing_and_invalid_keys(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let body = json!({ "urls": [YOUTUBE] });

    // Nested on track and the video reads and PATCH.
    let a = app
        .send_json(reqwest::Method::POST, "/v1/videos/track", None, &body)
        .await;
    assert_nested_error(&a, 401, "MISSING_AUTH");
    assert_nested_error(
        &app.post("/v1/videos/track", "nope", &body).await,
        401,
        "INVALID_API_KEY",
    );
    let fake = format!("vpk_{}", "a".repeat(40));
    assert_nested_error(
        &app.post("/v1/videos/track", &fake, &body).await,
        401,
        "INVALID_API_KEY",
    );
    assert_nested_error(
        &app.get("/v1/videos/by-id/x", None).await,
        401,
        "MISSING_AUTH",
    );
    assert_nested_error(
        &app.patch("/v1/videos/by-external-id/x", &fake, &json!({"notes": "a"}))
            .await,
        401,
        "INVALID_API_KEY",
    );

    // Flat, with a code, on the stats listing and usage.
    assert_flat_error(
        &app.get("/v1/videos/stats", None).await,
        401,
        "MISSING_AUTH",
    );
    assert_flat_error(
        &app.get("/v1/videos/stats", Some(&fake)).await,
        401,
        "INVALID_API_KEY",
    );
    assert_flat_error(
        &app.get("/v1/account/usage", None).await,
        401,
        "MISSING_AUTH",
    );
    assert_flat_error(
        &app.get("/v1/account/usage", Some("garbage")).await,
        401,
        "INVALID_API_KEY",
    );

    // A scheme other than Bearer is an invalid key, not a missing one.
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let a = app
        .client
        .get(app.url("/v1/videos/stats"))
        .header("authorization", format!("Basic {key}"))
        .send()
        .await
        .unwrap();
    assert_eq!(a.status().as_u16(), 401);
    assert_eq!(
        app.get("/v1/videos/stats", Some(&key))
            .await
            .status
            .as_u16(),
        200
    );
}

#[rstest]
#[tokio::test]
async fn malformed_bodies(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let post = |ct: &'static str, body: &'static str| {
        let app = &app;
        let key = key.clone();
        async move {
            app.send_raw(
                reqwest::Method::POST,
                "/v1/videos/track",
                Some(&key),
                ct,
                body,
            )
            .await
        }
    };
    assert_nested_error(
        &post("application/json", "{\"urls\": [").await,
        400,
        "VALIDATION_ERROR",
    );
    assert_nested_error(
        &post("text/plain", "{\"urls\": []}").await,
        400,
        "VALIDATION_ERROR",
    );
    assert_nested_error(&post("application/json", "").await, 400, "VALIDATION_ERROR");

    let big = format!("{{\"urls\": [\"{}\"]}}", "a".repeat(1024 * 1024 + 10));
    let a = app
        .send_raw(
            reqwest::Method::POST,
            "/v1/videos/track",
            Some(&key),
            "application/json",
            big,
        )
        .await;
    assert_nested_error(&a, 413, "PAYLOAD_TOO_LARGE");

    let a = app
        .send_raw(
            reqwest::Method::PATCH,
            "/v1/videos/by-external-id/x",
            Some(&key),
            "application/json",
            "nope",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
}
