use rstest::rstest;
use serde_json::json;
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::helpers::{TIKTOK, TestApp, assert_nested_error};

const PATH: &str = "/v1/videos/by-external-id/7301234567890123456";

#[rstest]
#[tokio::test]
async fn patch_writes_metadata_and_tags(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    app.track(&key, &[TIKTOK]).await;

    let a = app
        .patch(PATH, &key, &json!({
            "notes": "Strong hook", "budget": 1200, "campaign": "  Summer | EU 50%  ",
            "video_status": "paused", "status": "running", "ecpm": 0, "tags": ["Food", "food", "Travel"]
        }))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let d = &a.body["data"];
    assert_eq!(d["external_video_id"], "7301234567890123456");
    assert_eq!(
        d["updated_fields"],
        json!([
            "notes",
            "budget",
            "campaign_tag",
            "video_status",
            "status",
            "ecpm"
        ])
    );
    assert_eq!(
        d["tags_result"],
        json!({"attached": ["Food", "Travel"], "created": ["Food", "Travel"], "total": 2})
    );
    assert!(
        a.body["meta"]["request_id"].is_string()
            && a.body["meta"]["processing_time_ms"].is_number()
    );

    let a = app
        .patch(PATH, &key, &json!({ "tags": ["TRAVEL", "Beach"] }))
        .await;
    assert_eq!(
        a.body["data"]["tags_result"],
        json!({"attached": ["Travel", "Beach"], "created": ["Beach"], "total": 3})
    );
    assert_eq!(a.body["data"]["updated_fields"], json!([]));

    let a = app.get(PATH, Some(&key)).await;
    let v = &a.body["data"]["data"];
    assert_eq!(v["notes"], "Strong hook");
    assert_eq!(v["budget"], 1200);
    assert_eq!(v["campaign"], "Summer | EU 50%");
    assert_eq!(
        (v["video_status"].as_str(), v["status"].as_str()),
        (Some("paused"), Some("running"))
    );
    assert_eq!(v["ecpm"], 0.0);
    assert_eq!(v["tags"], json!(["Beach", "Food", "Travel"]));

    let a = app
        .patch(
            PATH,
            &key,
            &json!({ "budget": "", "campaign": null, "notes": "" }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200);
    let v = app.get(PATH, Some(&key)).await.body["data"]["data"].clone();
    assert!(v["budget"].is_null() && v["campaign"].is_null() && v["notes"].is_null());
}

#[rstest]
#[tokio::test]
async fn patch_errors(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, free) = app.org_with_key(Plan::Free).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Business).await;
    app.track(&free, &[TIKTOK]).await;
    app.track(&key, &[TIKTOK]).await;

    let a = app.patch(PATH, &free, &json!({ "notes": "x" })).await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    assert!(a.body["error"]["upgrade_url"].is_string());

    for (body, field) in [
        (json!({}), "body"),
        (json!({ "colour": "red" }), "colour"),
        (json!({ "notes": 5 }), "notes"),
        (json!({ "notes": "x".repeat(2001) }), "notes"),
        (json!({ "budget": 0 }), "budget"),
        (json!({ "budget": -3 }), "budget"),
        (json!({ "budget": 2.5 }), "budget"),
        (json!({ "campaign": "a,b" }), "campaign"),
        (json!({ "campaign": "c".repeat(201) }), "campaign"),
        (json!({ "video_status": "archived" }), "video_status"),
        (json!({ "status": "done" }), "status"),
        (json!({ "ecpm": -1 }), "ecpm"),
        (json!({ "tags": [] }), "tags"),
        (json!({ "tags": ["t".repeat(81)] }), "tags"),
        (
            json!({ "tags": (0..51).map(|i| i.to_string()).collect::<Vec<_>>() }),
            "tags",
        ),
        (json!({ "tags": "food" }), "tags"),
    ] {
        let a = app.patch(PATH, &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    assert_nested_error(
        &app.patch(PATH, &key, &json!([1])).await,
        400,
        "VALIDATION_ERROR",
    );

    // Another organization's video, and an unknown one.
    assert_nested_error(
        &app.patch(PATH, &other, &json!({ "notes": "x" })).await,
        404,
        "VIDEO_NOT_FOUND",
    );
    assert_nested_error(
        &app.patch(
            "/v1/videos/by-external-id/nope",
            &key,
            &json!({ "notes": "x" }),
        )
        .await,
        404,
        "VIDEO_NOT_FOUND",
    );

    // A failed PATCH wrote nothing.
    let v = app.get(PATH, Some(&key)).await.body["data"]["data"].clone();
    assert!(v["notes"].is_null() && v["tags"].as_array().unwrap().is_empty());
}
