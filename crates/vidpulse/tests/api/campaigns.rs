//! Campaigns as objects over HTTP: created, listed, read, changed and
//! deleted on both interfaces; one per name in any letter case, whatever
//! names it (a video's PATCH, a batch edit, a creator's campaign); renames
//! and deletions move the videos' analytics; plan gating; the
//! organization's currency.

use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::identity::Role;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::analytics::{A, B, C, d, ok, with_history};
use crate::dashboard::{Team, call, member, team, track_creator};
use crate::helpers::{TIKTOK, TestApp, YOUTUBE, assert_nested_error};

const CAMPAIGNS: &str = "/v1/campaigns";

/// Creates a campaign from `body`, expecting 201; its `data`.
async fn create(app: &TestApp, key: &str, body: Value) -> Value {
    let a = app.post(CAMPAIGNS, key, &body).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(a.body["success"], true);
    assert!(a.body["meta"]["request_id"].is_string());
    a.body["data"].clone()
}

/// The organization's campaigns (first 100), newest first.
async fn list(app: &TestApp, key: &str) -> Vec<Value> {
    let a = app.get(&format!("{CAMPAIGNS}?limit=100"), Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"].as_array().unwrap().clone()
}

/// `(name, videos, creators)` of each campaign.
async fn names(app: &TestApp, key: &str) -> Vec<(String, i64, i64)> {
    list(app, key)
        .await
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["videos"].as_i64().unwrap(),
                c["creators"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn n(name: &str, videos: i64, creators: i64) -> (String, i64, i64) {
    (name.to_owned(), videos, creators)
}

/// `(group_key, views)` of the totals by campaign over the history.
async fn by_campaign(app: &TestApp, key: &str) -> Vec<(String, i64)> {
    let path = format!(
        "/v1/analytics/metrics/totals?from={}&to={}&group_by=campaign",
        d(app, 0),
        d(app, 9)
    );
    ok(app, &path, key).await["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["group_key"].as_str().unwrap().to_owned(),
                g["views"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The `campaign` of the organization's video `id` (external).
async fn video_campaign(app: &TestApp, key: &str, id: &str) -> Value {
    let a = app
        .get(&format!("/v1/videos/by-external-id/{id}"), Some(key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"]["campaign"].clone()
}

/// Whether the rollup the writes kept equals a rebuild.
async fn assert_rollup_kept(app: &TestApp) {
    let kept = vidpulse_store::testing::rollup_dump(&app.db.url)
        .await
        .unwrap();
    app.store.rebuild_analytics().await.unwrap();
    assert_eq!(
        vidpulse_store::testing::rollup_dump(&app.db.url)
            .await
            .unwrap(),
        kept
    );
}

#[rstest]
#[tokio::test]
async fn campaigns_are_created_listed_read_changed_and_deleted(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;

    let summer = create(
        &app,
        &key,
        json!({"name": " Summer 2026 ", "client": " Acme ", "starts_on": "2026-06-01",
               "ends_on": "2026-08-31", "budget": 1500.5, "currency": "eur",
               "target_views": 100000, "notes": "Three creators"}),
    )
    .await;
    let id = summer["id"].as_str().unwrap().to_owned();
    assert_eq!(
        summer,
        json!({
            "id": id, "name": "Summer 2026", "client": "Acme", "starts_on": "2026-06-01",
            "ends_on": "2026-08-31", "budget": 1500.5, "currency": "EUR", "target_views": 100000,
            "notes": "Three creators", "archived": false, "archived_at": null, "videos": 0,
            "creators": 0, "created_at": summer["created_at"], "updated_at": summer["updated_at"],
        })
    );
    assert!(summer["created_at"].as_str().unwrap().ends_with('Z'));
    // The name is taken in any letter case, in this organization only.
    let a = app
        .post(CAMPAIGNS, &key, &json!({"name": "SUMMER 2026"}))
        .await;
    assert_nested_error(&a, 409, "CAMPAIGN_EXISTS");
    assert_eq!(a.body["error"]["field"], "name");
    create(&app, &other, json!({"name": "summer 2026"})).await;
    // Without a currency, the organization's.
    let winter = create(&app, &key, json!({"name": "Winter", "budget": 0})).await;
    assert_eq!(
        (&winter["currency"], &winter["budget"], &winter["client"]),
        (&json!("USD"), &json!(0.0), &Value::Null)
    );
    let winter_id = winter["id"].as_str().unwrap().to_owned();

    // The listing: newest first, `q` in any case, pages.
    let a = app.get(CAMPAIGNS, Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let listed: Vec<&str> = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["Winter", "Summer 2026"]);
    assert_eq!(
        a.body["meta"]["pagination"],
        json!({"total": 2, "limit": 50, "offset": 0, "has_more": false})
    );
    assert!(a.body["meta"].get("credits_used").is_none());
    let a = app
        .get(&format!("{CAMPAIGNS}?q=%20sUMMER%20"), Some(&key))
        .await;
    assert_eq!(a.body["data"].as_array().unwrap().len(), 1, "{}", a.body);
    assert_eq!(a.body["data"][0]["id"], id.as_str());
    assert_eq!(a.body["meta"]["pagination"]["total"], 1);
    let a = app.get(&format!("{CAMPAIGNS}?q=%25"), Some(&key)).await;
    assert_eq!(a.body["meta"]["pagination"]["total"], 0, "% is plain text");
    let a = app
        .get(&format!("{CAMPAIGNS}?limit=1&offset=0"), Some(&key))
        .await;
    assert_eq!(a.body["data"][0]["name"], "Winter");
    assert_eq!(
        a.body["meta"]["pagination"],
        json!({"total": 2, "limit": 1, "offset": 0, "has_more": true})
    );
    let a = app
        .get(&format!("{CAMPAIGNS}?limit=1&offset=1"), Some(&key))
        .await;
    assert_eq!(a.body["data"][0]["name"], "Summer 2026");
    assert_eq!(a.body["meta"]["pagination"]["has_more"], false);
    let a = app.get(CAMPAIGNS, Some(&other)).await;
    assert_eq!(a.body["meta"]["pagination"]["total"], 1);

    // One campaign; another organization's id, or no UUID, is not found.
    let a = app.get(&format!("{CAMPAIGNS}/{id}"), Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"], summer);
    for (path, who) in [
        (format!("{CAMPAIGNS}/{id}"), &other),
        (format!("{CAMPAIGNS}/not-a-uuid"), &key),
        (format!("{CAMPAIGNS}/{}", uuid::Uuid::now_v7()), &key),
    ] {
        let a = app.get(&path, Some(who)).await;
        assert_nested_error(&a, 404, "NOT_FOUND");
        let a = app.patch(&path, who, &json!({"notes": "x"})).await;
        assert_nested_error(&a, 404, "NOT_FOUND");
        let a = app.delete(&path, who).await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }

    // Changes: a field sent changes, `null` clears, the rest stays.
    let path = format!("{CAMPAIGNS}/{id}");
    let a = app
        .patch(
            &path,
            &key,
            &json!({"client": null, "budget": 2000, "target_views": null, "notes": ""}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let c = &a.body["data"];
    assert_eq!(
        (&c["client"], &c["budget"], &c["target_views"], &c["notes"]),
        (&Value::Null, &json!(2000.0), &Value::Null, &Value::Null)
    );
    assert_eq!(
        (&c["name"], &c["starts_on"], &c["currency"]),
        (&json!("Summer 2026"), &json!("2026-06-01"), &json!("EUR"))
    );
    // The other day as stored bounds a day sent alone.
    for (body, field) in [
        (json!({"ends_on": "2026-05-31"}), "ends_on"),
        (json!({"starts_on": "2026-09-01"}), "ends_on"),
        (
            json!({"starts_on": "2026-07-02", "ends_on": "2026-07-01"}),
            "ends_on",
        ),
    ] {
        let a = app.patch(&path, &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let a = app
        .patch(
            &path,
            &key,
            &json!({"starts_on": null, "ends_on": "2026-05-31"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["starts_on"], Value::Null);
    // Archived and restored.
    let a = app.patch(&path, &key, &json!({"archived": true})).await;
    assert_eq!(a.body["data"]["archived"], true, "{}", a.body);
    assert!(a.body["data"]["archived_at"].is_string());
    let a = app.patch(&path, &key, &json!({"archived": false})).await;
    assert_eq!(
        (&a.body["data"]["archived"], &a.body["data"]["archived_at"]),
        (&json!(false), &Value::Null)
    );
    // Renamed: another campaign's name in any case is taken; its own in
    // another case is not.
    let a = app.patch(&path, &key, &json!({"name": "WINTER"})).await;
    assert_nested_error(&a, 409, "CAMPAIGN_EXISTS");
    let a = app
        .patch(
            &path,
            &key,
            &json!({"name": "SUMMER 2026", "currency": "jpy"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        (&a.body["data"]["name"], &a.body["data"]["currency"]),
        (&json!("SUMMER 2026"), &json!("JPY"))
    );

    // Deleted: gone for good.
    let a = app.delete(&format!("{CAMPAIGNS}/{winter_id}"), &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"],
        json!({"id": winter_id, "deleted": true, "videos_cleared": 0})
    );
    let a = app
        .get(&format!("{CAMPAIGNS}/{winter_id}"), Some(&key))
        .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = app.delete(&format!("{CAMPAIGNS}/{winter_id}"), &key).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert_eq!(names(&app, &key).await, [n("SUMMER 2026", 0, 0)]);
}

#[rstest]
#[tokio::test]
async fn campaign_requests_are_validated(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let long = |n: usize| "x".repeat(n);
    for (body, field) in [
        (json!({}), "name"),
        (json!({"name": null}), "name"),
        (json!({"name": "  "}), "name"),
        (json!({"name": 5}), "name"),
        (json!({"name": "a,b"}), "name"),
        (json!({"name": long(201)}), "name"),
        (json!({"name": "S", "client": long(201)}), "client"),
        (json!({"name": "S", "client": 5}), "client"),
        (json!({"name": "S", "starts_on": "2026-13-01"}), "starts_on"),
        (json!({"name": "S", "starts_on": "2026-6-1"}), "starts_on"),
        (json!({"name": "S", "starts_on": 20260601}), "starts_on"),
        (json!({"name": "S", "ends_on": "tomorrow"}), "ends_on"),
        (
            json!({"name": "S", "starts_on": "2026-06-02", "ends_on": "2026-06-01"}),
            "ends_on",
        ),
        (json!({"name": "S", "budget": -1}), "budget"),
        (json!({"name": "S", "budget": "10"}), "budget"),
        (json!({"name": "S", "budget": 1e13}), "budget"),
        (json!({"name": "S", "currency": "XYZ"}), "currency"),
        (json!({"name": "S", "currency": "HRK"}), "currency"),
        (json!({"name": "S", "currency": "US"}), "currency"),
        (json!({"name": "S", "currency": 840}), "currency"),
        (json!({"name": "S", "target_views": 0}), "target_views"),
        (json!({"name": "S", "target_views": 1.5}), "target_views"),
        (json!({"name": "S", "target_views": "10"}), "target_views"),
        (json!({"name": "S", "notes": long(5001)}), "notes"),
        (json!({"name": "S", "colour": "red"}), "colour"),
        (json!({"name": "S", "archived": true}), "archived"),
        (json!(["S"]), "body"),
        (json!("S"), "body"),
    ] {
        let a = app.post(CAMPAIGNS, &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}: {}", a.body);
    }
    let a = app
        .send_raw(
            Method::POST,
            CAMPAIGNS,
            Some(&key),
            "application/json",
            "{\"name\":",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = app
        .send_raw(Method::POST, CAMPAIGNS, Some(&key), "text/plain", "{}")
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // Nothing was written.
    assert!(list(&app, &key).await.is_empty());
    // The longest values are taken.
    let c = create(
        &app,
        &key,
        json!({"name": long(200), "client": long(200), "notes": long(5000),
               "budget": 1e12, "target_views": 1}),
    )
    .await;
    let path = format!("{CAMPAIGNS}/{}", c["id"].as_str().unwrap());

    for (body, field) in [
        (json!({}), "body"),
        (json!({"name": null}), "name"),
        (json!({"name": ""}), "name"),
        (json!({"currency": null}), "currency"),
        (json!({"currency": "eu"}), "currency"),
        (json!({"archived": "yes"}), "archived"),
        (json!({"archived": null}), "archived"),
        (json!({"budget": -0.5}), "budget"),
        (json!({"target_views": 0}), "target_views"),
        (json!({"starts_on": "2026-02-30"}), "starts_on"),
        (json!({"id": "x"}), "id"),
        (json!({"videos": 3}), "videos"),
        (json!([1]), "body"),
    ] {
        let a = app.patch(&path, &key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}: {}", a.body);
    }
    let a = app
        .send_raw(Method::PATCH, &path, Some(&key), "application/json", "{")
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");

    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=abc", "limit"),
        ("offset=-1", "offset"),
        ("page=2", "page"),
    ] {
        let a = app.get(&format!("{CAMPAIGNS}?{query}"), Some(&key)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}");
    }
    let a = app
        .get(&format!("{CAMPAIGNS}?q={}", long(201)), Some(&key))
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "q");
}

#[rstest]
#[tokio::test]
async fn the_free_plan_reads_campaigns_but_does_not_write_them(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Free).await;
    let id = uuid::Uuid::now_v7();
    for a in [
        app.post(CAMPAIGNS, &key, &json!({"name": "Summer"})).await,
        app.patch(&format!("{CAMPAIGNS}/{id}"), &key, &json!({"notes": "x"}))
            .await,
        app.delete(&format!("{CAMPAIGNS}/{id}"), &key).await,
    ] {
        assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
        assert!(a.body["error"]["upgrade_url"].is_string(), "{}", a.body);
    }
    // Gated before the body is read.
    let a = app.post(CAMPAIGNS, &key, &json!({"name": ""})).await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = app.get(CAMPAIGNS, Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"], json!([]));
    let a = app.get(&format!("{CAMPAIGNS}/{id}"), Some(&key)).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = app.get(CAMPAIGNS, None).await;
    assert_nested_error(&a, 401, "MISSING_AUTH");
}

#[rstest]
#[tokio::test]
async fn renaming_and_deleting_move_the_videos_and_their_analytics(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    // The video PATCH creates the campaign; another spelling attaches to it.
    let a = app
        .patch(
            &format!("/v1/videos/by-external-id/{A}"),
            &key,
            &json!({"campaign": "Summer"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = app
        .patch(
            &format!("/v1/videos/by-external-id/{B}"),
            &key,
            &json!({"campaign": " sUMMER "}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(video_campaign(&app, &key, B).await, "Summer");
    // A (TikTok, Mira) and B (YouTube, mira): two creators.
    assert_eq!(names(&app, &key).await, [n("Summer", 2, 2)]);
    assert_eq!(
        by_campaign(&app, &key).await,
        [("Summer".to_owned(), 65_400), (String::new(), 80)]
    );
    let id = list(&app, &key).await[0]["id"].as_str().unwrap().to_owned();

    // A rename moves the videos and their totals.
    let a = app
        .patch(
            &format!("{CAMPAIGNS}/{id}"),
            &key,
            &json!({"name": "Summer 2026"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        (&a.body["data"]["videos"], &a.body["data"]["creators"]),
        (&json!(2), &json!(2))
    );
    assert_eq!(video_campaign(&app, &key, A).await, "Summer 2026");
    assert_eq!(video_campaign(&app, &key, B).await, "Summer 2026");
    assert_eq!(
        by_campaign(&app, &key).await,
        [("Summer 2026".to_owned(), 65_400), (String::new(), 80)]
    );
    let a = app
        .get("/v1/videos/stats?campaign=Summer%202026", Some(&key))
        .await;
    assert_eq!(a.body["pagination"]["total"], 2, "{}", a.body);
    assert_rollup_kept(&app).await;

    // A deletion keeps the videos tracked, without a campaign.
    let a = app.delete(&format!("{CAMPAIGNS}/{id}"), &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["videos_cleared"], 2);
    for video in [A, B, C] {
        assert_eq!(video_campaign(&app, &key, video).await, Value::Null);
    }
    assert_eq!(by_campaign(&app, &key).await, [(String::new(), 65_480)]);
    let path = format!(
        "/v1/analytics/metrics/totals?from={}&to={}&group_by=campaign",
        d(&app, 0),
        d(&app, 9)
    );
    assert_eq!(
        ok(&app, &path, &key).await["groups"][0]["group_label"],
        "No campaign"
    );
    assert!(list(&app, &key).await.is_empty());
    assert_rollup_kept(&app).await;
}

#[rstest]
#[tokio::test]
async fn video_edits_attach_to_campaigns_in_any_case(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let tracked = app.track(&key, &[TIKTOK, YOUTUBE]).await;
    let ids: Vec<String> = tracked["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["video_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 2, "{tracked}");
    create(&app, &key, json!({"name": "Summer"})).await;

    // One video, named in another case: the campaign's name is written.
    let a = app
        .patch(
            "/v1/videos/by-external-id/7301234567890123456",
            &key,
            &json!({"campaign": "summer"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        video_campaign(&app, &key, "7301234567890123456").await,
        "Summer"
    );
    assert_eq!(names(&app, &key).await, [n("Summer", 1, 1)]);
    // Absent: created, with the organization's currency.
    let a = app
        .patch(
            "/v1/videos/by-external-id/dQw4w9WgXcQ",
            &key,
            &json!({"campaign": "Autumn"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let listed = list(&app, &key).await;
    assert_eq!(listed[0]["name"], "Autumn");
    assert_eq!(listed[0]["currency"], "USD");
    assert_eq!(listed[0]["videos"], 1);

    // A batch edit: every video gets the stored name.
    let a = app
        .patch(
            "/v1/videos/batch",
            &key,
            &json!({"video_ids": ids, "campaign": "AUTUMN"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    for id in ["7301234567890123456", "dQw4w9WgXcQ"] {
        assert_eq!(video_campaign(&app, &key, id).await, "Autumn");
    }
    let a = app
        .patch(
            "/v1/videos/batch",
            &key,
            &json!({"video_ids": ids, "campaign": "Q4 launch"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        names(&app, &key).await,
        [n("Q4 launch", 2, 2), n("Autumn", 0, 0), n("Summer", 0, 0)]
    );
    // Clearing a video's campaign leaves the campaign.
    let a = app
        .patch(
            "/v1/videos/by-external-id/dQw4w9WgXcQ",
            &key,
            &json!({"campaign": null}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(names(&app, &key).await[0], n("Q4 launch", 1, 1));
}

#[rstest]
#[tokio::test]
async fn creator_campaigns_attach_to_campaigns_in_any_case(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let Team {
        org, key, editor, ..
    } = team(&app).await;
    create(&app, &key, json!({"name": "Summer"})).await;
    track_creator(&app, &key, "ana_builds", 1).await;
    app.run_jobs_until_idle().await;
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &editor,
        Some(&org),
        None,
    )
    .await;
    let tracking = a.body["data"][0]["tracking_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let a = call(
        &app,
        Method::POST,
        "/blogger/set-campaign",
        &editor,
        Some(&org),
        Some(&json!({"tracking_id": tracking, "campaign": "SUMMER"})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &editor,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"][0]["campaign"], "Summer", "{}", a.body);
    // Another name creates its campaign.
    let a = call(
        &app,
        Method::POST,
        "/blogger/set-campaign",
        &editor,
        Some(&org),
        Some(&json!({"tracking_id": tracking, "campaign": "Creators Q3"})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let listed: Vec<String> = list(&app, &key)
        .await
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed, ["Creators Q3", "Summer"]);

    // A creator added with a campaign in another case gets the stored name,
    // and so do the videos its backfill tracks.
    let a = call(
        &app,
        Method::POST,
        "/blogger/add",
        &editor,
        Some(&org),
        Some(&json!({"username": "mira_cooks", "platform": "tiktok",
                      "initial_videos_count": 2, "campaign": "summer"})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    app.run_jobs_until_idle().await;
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &editor,
        Some(&org),
        None,
    )
    .await;
    let mira = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["username"] == "mira_cooks")
        .unwrap()
        .clone();
    assert_eq!(mira["campaign"], "Summer", "{}", a.body);
    let summer = list(&app, &key)
        .await
        .into_iter()
        .find(|c| c["name"] == "Summer")
        .unwrap();
    assert_eq!(
        (&summer["videos"], &summer["creators"]),
        (&json!(2), &json!(1))
    );

    // Deleting the campaign clears the creator's too.
    let id = summer["id"].as_str().unwrap();
    let a = app.delete(&format!("{CAMPAIGNS}/{id}"), &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &editor,
        Some(&org),
        None,
    )
    .await;
    let mira = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["username"] == "mira_cooks")
        .unwrap()
        .clone();
    assert_eq!(mira["campaign"], Value::Null);
}

#[rstest]
#[tokio::test]
async fn the_dashboard_manages_campaigns_and_the_currency(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
    } = team(&app).await;
    let (admin, admin_id) = member(&app, "ad@example.com").await;
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    app.store
        .add_member(org_id, admin_id, Role::Admin, app.clock.now())
        .await
        .unwrap();

    // The currency: admins, a current ISO 4217 code.
    let settings = "/organizations/settings";
    let a = call(
        &app,
        Method::PATCH,
        settings,
        &admin,
        Some(&org),
        Some(&json!({"currency": "eur"})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["currency"], "EUR");
    let a = call(&app, Method::GET, settings, &viewer, Some(&org), None).await;
    assert_eq!(a.body["data"]["currency"], "EUR");
    let a = call(
        &app,
        Method::PATCH,
        settings,
        &editor,
        Some(&org),
        Some(&json!({"currency": "GBP"})),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    for (body, field) in [
        (json!({"currency": "EURO"}), "currency"),
        (json!({"currency": "HRK"}), "currency"),
        (json!({"currency": null}), "currency"),
        (json!({"currency": 978}), "currency"),
        (json!({}), "currency"),
        (json!({"currency": "GBP", "name": "X"}), "name"),
        (json!([1]), "body"),
    ] {
        let a = call(
            &app,
            Method::PATCH,
            settings,
            &admin,
            Some(&org),
            Some(&body),
        )
        .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }

    // Campaigns: any member reads, editors write; new ones take the
    // organization's currency.
    let path = "/dashboard/campaigns";
    let body = json!({"name": "Launch", "budget": 900});
    let a = call(&app, Method::POST, path, &viewer, Some(&org), Some(&body)).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(&app, Method::POST, path, &editor, Some(&org), Some(&body)).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(a.body["data"]["currency"], "EUR");
    let id = a.body["data"]["id"].as_str().unwrap().to_owned();
    let a = call(
        &app,
        Method::POST,
        path,
        &editor,
        Some(&org),
        Some(&json!({"name": "launch"})),
    )
    .await;
    assert_nested_error(&a, 409, "CAMPAIGN_EXISTS");
    let a = call(&app, Method::GET, path, &viewer, Some(&org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"][0]["id"], id.as_str());
    assert_eq!(a.body["meta"]["pagination"]["total"], 1);
    // The public API sees the same campaign.
    let a = app.get(&format!("{CAMPAIGNS}/{id}"), Some(&key)).await;
    assert_eq!(a.body["data"]["name"], "Launch");
    let one = format!("{path}/{id}");
    let a = call(&app, Method::GET, &one, &viewer, Some(&org), None).await;
    assert_eq!(a.body["data"]["budget"], 900.0);
    let a = call(
        &app,
        Method::PATCH,
        &one,
        &viewer,
        Some(&org),
        Some(&json!({"notes": "x"})),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(
        &app,
        Method::PATCH,
        &one,
        &editor,
        Some(&org),
        Some(&json!({"notes": "Brief sent", "colour": 1})),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = call(
        &app,
        Method::PATCH,
        &one,
        &editor,
        Some(&org),
        Some(&json!({"notes": "Brief sent"})),
    )
    .await;
    assert_eq!(a.body["data"]["notes"], "Brief sent", "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        &format!("{path}/nope"),
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    // Another organization's member does not see it.
    let (outsider, _) = member(&app, "out@example.com").await;
    let theirs = crate::dashboard::register(&app, &outsider, &json!({"name": "Other"})).await;
    let their_org = theirs.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = call(&app, Method::GET, &one, &outsider, Some(&their_org), None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = call(&app, Method::GET, &one, &outsider, Some(&org), None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = call(&app, Method::DELETE, &one, &viewer, Some(&org), None).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(&app, Method::DELETE, &one, &editor, Some(&org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["deleted"], true);

    // On the free plan (the new organization's): writes and the currency
    // answer 402, reads answer.
    let a = call(
        &app,
        Method::PATCH,
        settings,
        &outsider,
        Some(&their_org),
        Some(&json!({"currency": "EUR"})),
    )
    .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = call(
        &app,
        Method::POST,
        path,
        &outsider,
        Some(&their_org),
        Some(&json!({"name": "Mine"})),
    )
    .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = call(&app, Method::GET, path, &outsider, Some(&their_org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
}
