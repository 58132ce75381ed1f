//! Editing many videos at once (PATCH /v1/videos/batch) and untracking one
//! (DELETE /v1/videos/by-id/… and by-external-id/…).

use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::helpers::{INSTAGRAM, TIKTOK, TestApp, YOUTUBE, assert_nested_error, youtube};

const BATCH: &str = "/v1/videos/batch";

/// The video ids `track` answered, in order.
fn ids(tracked: &Value) -> Vec<String> {
    tracked["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["video_id"].as_str().unwrap().to_owned())
        .collect()
}

async fn record(app: &TestApp, key: &str, id: &str) -> Value {
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"]["data"].clone()
}

#[rstest]
#[tokio::test]
async fn batch_edits_every_named_video(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let v = ids(&app.track(&key, &[TIKTOK, YOUTUBE, INSTAGRAM]).await);

    let a = app
        .patch(
            BATCH,
            &key,
            &json!({
                "video_ids": [v[0], v[1], v[0]],
                "campaign": " Q4 launch ", "status": "running", "tags": ["Paid", "paid", "EU"]
            }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let d = &a.body["data"];
    assert_eq!(d["applied_fields"], json!(["campaign_tag", "status"]));
    assert_eq!(d["updated_count"], 2, "a video named twice is edited once");
    assert_eq!(d["updated"][0]["video_id"], v[0].as_str());
    assert_eq!(d["updated"][0]["external_video_id"], "7301234567890123456");
    assert_eq!(d["updated"][1]["video_id"], v[1].as_str());
    assert_eq!(
        d["tags_result"],
        json!({"attached": ["Paid", "EU"], "created": ["Paid", "EU"]})
    );
    for id in &v[..2] {
        let r = record(&app, &key, id).await;
        assert_eq!(r["campaign"], "Q4 launch");
        assert_eq!(r["status"], "running");
        assert_eq!(r["tags"], json!(["EU", "Paid"]));
    }
    let untouched = record(&app, &key, &v[2]).await;
    assert!(untouched["campaign"].is_null() && untouched["tags"] == json!([]));

    // By the platforms' ids; clearing works as in the single PATCH.
    let a = app
        .patch(
            BATCH,
            &key,
            &json!({ "external_video_ids": ["dQw4w9WgXcQ", "CWqAgUZgCku"], "campaign": null, "budget": 500 }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"]["applied_fields"],
        json!(["budget", "campaign_tag"])
    );
    assert!(a.body["data"].get("tags_result").is_none());
    let r = record(&app, &key, &v[1]).await;
    assert!(r["campaign"].is_null());
    assert_eq!(r["budget"], 500);
    assert_eq!(record(&app, &key, &v[2]).await["budget"], 500);

    // The campaign listing filter sees the batch's campaign.
    let listed = app
        .get("/v1/videos/stats?campaign=Q4%20launch", Some(&key))
        .await;
    assert_eq!(listed.body["data"]["pagination"]["total"], 1);
}

#[rstest]
#[tokio::test]
async fn batch_is_all_or_nothing(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let v = ids(&app.track(&key, &[TIKTOK, YOUTUBE]).await);
    let foreign = ids(&app.track(&other, &[INSTAGRAM]).await);
    let unknown = Uuid::now_v7().to_string();

    for (targets, missing) in [
        (
            json!({ "video_ids": [v[0], unknown, v[1]] }),
            json!([unknown]),
        ),
        (
            json!({ "video_ids": [v[0], foreign[0]] }),
            json!([foreign[0]]),
        ),
        (
            json!({ "external_video_ids": ["7301234567890123456", "CWqAgUZgCku", "nope", "nope"] }),
            json!(["CWqAgUZgCku", "nope"]),
        ),
    ] {
        let mut body = targets.clone();
        body["campaign"] = json!("Should not land");
        body["tags"] = json!(["ghost"]);
        let a = app.patch(BATCH, &key, &body).await;
        assert_nested_error(&a, 404, "VIDEO_NOT_FOUND");
        assert_eq!(a.body["error"]["not_found"], missing, "{targets}");
    }
    for id in &v {
        let r = record(&app, &key, id).await;
        assert!(r["campaign"].is_null(), "nothing written: {r}");
        assert_eq!(r["tags"], json!([]));
    }
    let tags = app.get("/v1/videos/stats?tag=ghost", Some(&key)).await;
    assert_eq!(tags.body["data"]["pagination"]["total"], 0);
    // The other organization's video is untouched.
    assert!(record(&app, &other, &foreign[0]).await["campaign"].is_null());
}

#[rstest]
#[tokio::test]
async fn batch_errors(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, free) = app.org_with_key(Plan::Free).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let v = ids(&app.track(&key, &[TIKTOK]).await);

    let a = app
        .patch(BATCH, &free, &json!({ "video_ids": [v[0]], "notes": "x" }))
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");

    let many: Vec<String> = (0..101).map(|_| Uuid::now_v7().to_string()).collect();
    for (body, field) in [
        (json!([1, 2]), "body"),
        (json!({ "notes": "x" }), "video_ids"),
        (
            json!({ "video_ids": [v[0]], "external_video_ids": ["7301234567890123456"], "notes": "x" }),
            "video_ids",
        ),
        (json!({ "video_ids": [], "notes": "x" }), "video_ids"),
        (json!({ "video_ids": many, "notes": "x" }), "video_ids"),
        (json!({ "video_ids": v[0], "notes": "x" }), "video_ids"),
        (
            json!({ "video_ids": ["not-a-uuid"], "notes": "x" }),
            "video_ids",
        ),
        (json!({ "video_ids": [7], "notes": "x" }), "video_ids"),
        (
            json!({ "external_video_ids": [""], "notes": "x" }),
            "external_video_ids",
        ),
        (json!({ "video_ids": [v[0]] }), "body"),
        (
            json!({ "video_ids": [v[0]], "campaign": "a,b" }),
            "campaign",
        ),
        (json!({ "video_ids": [v[0]], "budget": 0 }), "budget"),
        (json!({ "video_ids": [v[0]], "colour": "red" }), "colour"),
        (json!({ "video_ids": [v[0]], "tags": "food" }), "tags"),
    ] {
        let a = app.patch(BATCH, &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let a = app
        .send_raw(
            reqwest::Method::PATCH,
            BATCH,
            Some(&key),
            "application/json",
            "{\"video_ids\": [",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = app
        .send_json(
            reqwest::Method::PATCH,
            BATCH,
            None,
            &json!({ "video_ids": [v[0]], "notes": "x" }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 401);
    assert!(record(&app, &key, &v[0]).await["notes"].is_null());
}

#[rstest]
#[tokio::test]
async fn untrack_leaves_other_organizations_alone(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let mine = ids(&app.track(&key, &[TIKTOK, YOUTUBE]).await);
    let theirs = ids(&app.track(&other, &[TIKTOK]).await);
    app.patch(
        BATCH,
        &key,
        &json!({ "video_ids": [mine[0]], "notes": "wrong link", "tags": ["oops"], "campaign": "C" }),
    )
    .await;
    let start = app.clock.now().date_naive();
    app.run_worker_until_idle().await;
    app.advance(chrono::Duration::hours(1));
    app.run_worker_until_idle().await;
    let end = app.clock.now().date_naive();
    let totals = format!("/v1/analytics/metrics/totals?from={start}&to={end}&group_by=campaign");
    let has_c = |groups: &Value| {
        groups
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["group_key"] == "C")
    };
    let before_theirs = record(&app, &other, &theirs[0]).await;
    let their_totals = app.get(&totals, Some(&other)).await.body["data"]["total"].clone();
    let a = app.get(&totals, Some(&key)).await;
    assert!(has_c(&a.body["data"]["groups"]), "{}", a.body);

    // Another organization's id is not found.
    let a = app
        .delete(&format!("/v1/videos/by-id/{}", theirs[0]), &key)
        .await;
    assert_nested_error(&a, 404, "VIDEO_NOT_FOUND");

    let a = app
        .delete(&format!("/v1/videos/by-id/{}", mine[0]), &key)
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"],
        json!({ "video_id": mine[0], "external_video_id": "7301234567890123456", "untracked": true })
    );
    assert_eq!(a.body["meta"]["credits_used"], Value::Null);

    // Gone from its records, listing, tags and analytics.
    let a = app
        .get(&format!("/v1/videos/by-id/{}", mine[0]), Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 404);
    let a = app
        .get("/v1/videos/by-external-id/7301234567890123456", Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 404);
    let listed = app.get("/v1/videos/stats", Some(&key)).await;
    assert_eq!(listed.body["data"]["pagination"]["total"], 1);
    assert_eq!(listed.body["data"]["data"][0]["video_id"], mine[1].as_str());
    let tagged = app.get("/v1/videos/stats?tag=oops", Some(&key)).await;
    assert_eq!(tagged.body["data"]["pagination"]["total"], 0);
    let a = app.get(&totals, Some(&key)).await;
    assert!(!has_c(&a.body["data"]["groups"]), "{}", a.body);
    let a = app
        .delete(&format!("/v1/videos/by-id/{}", mine[0]), &key)
        .await;
    assert_nested_error(&a, 404, "VIDEO_NOT_FOUND");

    // The other organization sees no change, and its video is still read.
    let after_theirs = record(&app, &other, &theirs[0]).await;
    assert_eq!(before_theirs, after_theirs);
    assert_eq!(
        app.get(&totals, Some(&other)).await.body["data"]["total"],
        their_totals
    );
    app.advance(chrono::Duration::hours(1));
    assert_eq!(
        app.run_worker_until_idle().await,
        2,
        "both videos still tracked by someone"
    );

    // Tracking it again makes a new record: new id, no notes, no tags.
    let again = app.track(&key, &[TIKTOK]).await;
    assert_eq!(again["data"]["results"][0]["status"], "tracked", "{again}");
    let fresh = ids(&again);
    assert_ne!(fresh[0], mine[0]);
    let r = record(&app, &key, &fresh[0]).await;
    assert!(r["notes"].is_null() && r["campaign"].is_null() && r["tags"] == json!([]));
}

#[rstest]
#[tokio::test]
async fn untrack_frees_the_quota_and_stops_reads(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Free).await;
    vidpulse::commands::admin::set_plan(&app.store, org, Plan::Free, Some(2), None)
        .await
        .unwrap();
    app.track(&key, &[&youtube(0), &youtube(1)]).await;
    app.run_worker_until_idle().await;
    let full = app
        .post("/v1/videos/track", &key, &json!({ "urls": [TIKTOK] }))
        .await;
    assert_nested_error(&full, 403, "SUBSCRIPTION_LIMIT");

    let a = app
        .delete("/v1/videos/by-external-id/yt000000000", &key)
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let again = app.track(&key, &[TIKTOK]).await;
    assert_eq!(again["meta"]["summary"]["tracked"], 1, "{again}");

    // Nobody tracks the untracked video: it is no longer read.
    app.advance(chrono::Duration::hours(1));
    assert_eq!(
        app.run_worker_until_idle().await,
        2,
        "the remaining video and the new one"
    );

    for path in [
        "/v1/videos/by-id/not-a-uuid",
        "/v1/videos/by-external-id/none",
    ] {
        assert_nested_error(&app.delete(path, &key).await, 404, "VIDEO_NOT_FOUND");
    }
    let a = app
        .send_json(
            reqwest::Method::DELETE,
            "/v1/videos/by-external-id/yt000000001",
            None,
            &Value::Null,
        )
        .await;
    assert_eq!(a.status.as_u16(), 401);
}
