//! Exports: every video a listing's filters match (GET /v1/videos/export),
//! a video's readings (…/history) and the analytics reads as CSV; row for
//! row what the paged reads answer, with formula cells neutralised.

use chrono::{Datelike, Duration};
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::helpers::{
    INSTAGRAM, TIKTOK, TestApp, YOUTUBE, assert_flat_error, assert_nested_error, youtube,
};

/// The CSV rows of an answer, header first.
fn csv_rows(body: &Value) -> Vec<Vec<String>> {
    let text = body.as_str().expect("a CSV body");
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

/// Each row as a map of the header's names.
fn csv_maps(body: &Value) -> Vec<std::collections::HashMap<String, String>> {
    let rows = csv_rows(body);
    let header = &rows[0];
    rows[1..]
        .iter()
        .map(|r| header.iter().cloned().zip(r.iter().cloned()).collect())
        .collect()
}

fn ndjson(body: &Value) -> Vec<Value> {
    match body {
        // A single line parses as JSON by itself.
        Value::Object(_) => vec![body.clone()],
        Value::String(text) => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        other => panic!("not NDJSON: {other}"),
    }
}

/// An organization with six read videos, two with notes a spreadsheet
/// would run, three in a campaign.
async fn six_videos(app: &TestApp) -> String {
    let (_, key) = app.org_with_key(Plan::Pro).await;
    app.track(
        &key,
        &[
            TIKTOK,
            YOUTUBE,
            INSTAGRAM,
            &youtube(1),
            &youtube(2),
            &youtube(3),
        ],
    )
    .await;
    app.run_worker_until_idle().await;
    app.advance(Duration::hours(1));
    app.run_worker_until_idle().await;
    for body in [
        json!({
            "external_video_ids": ["dQw4w9WgXcQ", "yt000000001", "yt000000002"],
            "campaign": "Q4", "tags": ["paid", "EU"]
        }),
        json!({ "external_video_ids": ["dQw4w9WgXcQ"], "notes": "=HYPERLINK(\"http://x\")" }),
        json!({ "external_video_ids": ["yt000000003"], "notes": "-5, then \"+3\"\nnew line" }),
    ] {
        let a = app.patch("/v1/videos/batch", &key, &body).await;
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    }
    key
}

/// The body of the video export with `query`, which must answer 200.
async fn exported(app: &TestApp, key: &str, query: &str) -> Value {
    let a = app
        .get(&format!("/v1/videos/export?{query}"), Some(key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body
}

/// An export longer than one slice (the server reads 25 records at a
/// time): every video once, in the listing's order across the slices.
#[rstest]
#[tokio::test]
async fn an_export_of_many_slices_keeps_the_listing_order(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let urls: Vec<String> = (100..180).map(youtube).collect();
    for batch in urls.chunks(40) {
        let batch: Vec<&str> = batch.iter().map(String::as_str).collect();
        app.track(&key, &batch).await;
    }
    app.run_worker_until_idle().await;

    for filters in ["", "sort=views&order=asc"] {
        let listed = app
            .get(&format!("/v1/videos/stats?limit=100&{filters}"), Some(&key))
            .await;
        assert_eq!(listed.status.as_u16(), 200, "{}", listed.body);
        let page = listed.body["data"]["data"].as_array().unwrap().clone();
        assert_eq!(page.len(), 80);

        let lines = exported(&app, &key, &format!("format=ndjson&{filters}")).await;
        assert_eq!(ndjson(&lines), page, "{filters}");

        let rows = exported(&app, &key, &format!("format=csv&{filters}")).await;
        let ids: Vec<String> = csv_maps(&rows)
            .into_iter()
            .map(|row| row["video_id"].clone())
            .collect();
        let listed_ids: Vec<&str> = page
            .iter()
            .map(|v| v["video_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, listed_ids, "{filters}");
    }
}

#[rstest]
#[tokio::test]
async fn the_export_is_the_listing_row_for_row(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let key = six_videos(&app).await;

    for filters in [
        "",
        "sort=views&order=asc",
        "campaign=Q4&tag=eu",
        "platform=youtube&sort=likes",
        "q=a",
    ] {
        let listed = app
            .get(&format!("/v1/videos/stats?limit=100&{filters}"), Some(&key))
            .await;
        assert_eq!(listed.status.as_u16(), 200, "{}", listed.body);
        let page = listed.body["data"]["data"].as_array().unwrap().clone();

        // NDJSON: each line is the listing's record.
        let a = app
            .get(
                &format!("/v1/videos/export?format=ndjson&{filters}"),
                Some(&key),
            )
            .await;
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        assert_eq!(a.headers["content-type"], "application/x-ndjson");
        let lines = if page.is_empty() {
            Vec::new()
        } else {
            ndjson(&a.body)
        };
        assert_eq!(lines, page, "{filters}");

        // CSV: a header, then the same videos in the same order.
        let a = app
            .get(&format!("/v1/videos/export?{filters}"), Some(&key))
            .await;
        assert_eq!(a.status.as_u16(), 200);
        assert_eq!(a.headers["content-type"], "text/csv; charset=utf-8");
        assert_eq!(
            a.headers["content-disposition"],
            "attachment; filename=\"videos.csv\""
        );
        let rows = csv_maps(&a.body);
        assert_eq!(rows.len(), page.len(), "{filters}");
        for (row, video) in rows.iter().zip(&page) {
            assert_eq!(row["video_id"], video["video_id"].as_str().unwrap());
            assert_eq!(
                row["external_video_id"],
                video["external_video_id"].as_str().unwrap()
            );
            assert_eq!(row["views"], video["views"].to_string().replace("null", ""));
            assert_eq!(
                row["campaign"],
                video["campaign"].as_str().unwrap_or_default()
            );
            assert_eq!(row["created_at"], video["created_at"].as_str().unwrap());
        }
    }

    // Every column of the record, by its name; formulas neutralised in CSV,
    // kept as they are in NDJSON.
    let a = app.get("/v1/videos/export?campaign=Q4", Some(&key)).await;
    let rows = csv_rows(&a.body);
    assert_eq!(
        rows[0],
        [
            "video_id",
            "external_video_id",
            "platform",
            "url",
            "title",
            "thumbnail_url",
            "author_username",
            "published_at",
            "views",
            "likes",
            "comments",
            "reposts",
            "saves",
            "created_at",
            "stats_last_updated",
            "cpm",
            "er",
            "notes",
            "budget",
            "campaign",
            "video_status",
            "status",
            "ecpm",
            "tags",
            "tracking_status",
            "tracking_ends_at",
            "next_refresh_at"
        ]
    );
    let maps = csv_maps(&a.body);
    let by_id = |id: &str| maps.iter().find(|r| r["external_video_id"] == id).unwrap();
    assert_eq!(by_id("dQw4w9WgXcQ")["notes"], "'=HYPERLINK(\"http://x\")");
    assert_eq!(by_id("dQw4w9WgXcQ")["tags"], "EU; paid");
    assert_eq!(by_id("dQw4w9WgXcQ")["platform"], "YouTube");
    let all = csv_maps(&app.get("/v1/videos/export", Some(&key)).await.body);
    let odd = all
        .iter()
        .find(|r| r["external_video_id"] == "yt000000003")
        .unwrap();
    assert_eq!(odd["notes"], "'-5, then \"+3\"\nnew line");
    let lines = ndjson(
        &app.get("/v1/videos/export?format=ndjson&q=", Some(&key))
            .await
            .body,
    );
    let raw = lines
        .iter()
        .find(|v| v["external_video_id"] == "dQw4w9WgXcQ")
        .unwrap();
    assert_eq!(raw["notes"], "=HYPERLINK(\"http://x\")");

    // With a window, the gains as the listing measures them.
    let today = app.clock.now().date_naive();
    let from = today - Duration::days(1);
    let listed = app
        .get(
            &format!("/v1/videos/stats?limit=100&sort=views_gained&from={from}"),
            Some(&key),
        )
        .await;
    let page = listed.body["data"]["data"].as_array().unwrap().clone();
    let a = app
        .get(
            &format!("/v1/videos/export?sort=views_gained&from={from}"),
            Some(&key),
        )
        .await;
    let rows = csv_maps(&a.body);
    assert_eq!(rows.len(), 6);
    for (row, video) in rows.iter().zip(&page) {
        assert_eq!(row["video_id"], video["video_id"].as_str().unwrap());
        assert_eq!(row["views_gained"], video["gained"]["views"].to_string());
    }
    let lines = ndjson(
        &app.get(
            &format!("/v1/videos/export?format=ndjson&sort=views_gained&from={from}"),
            Some(&key),
        )
        .await
        .body,
    );
    assert_eq!(lines, page);

    // Accept asks for NDJSON; nothing is charged.
    let a = app
        .client
        .get(app.url("/v1/videos/export"))
        .bearer_auth(&key)
        .header("accept", "application/x-ndjson")
        .send()
        .await
        .unwrap();
    assert_eq!(a.headers()["content-type"], "application/x-ndjson");
    app.flush_usage().await;
    let usage = app.get("/v1/account/usage", Some(&key)).await;
    assert_eq!(
        usage.body["data"]["summary"]["total_credits_30_days"],
        6 * 30,
        "only the tracking was charged"
    );
    let _ = today.day();
}

#[rstest]
#[tokio::test]
async fn export_errors(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Free).await;
    let (_, other) = app.org_with_key(Plan::Free).await;
    app.track(&other, &[TIKTOK]).await;

    for (query, parameter) in [
        ("limit=10", "limit"),
        ("offset=5", "offset"),
        ("format=xml", "format"),
        ("format=json", "format"),
        ("colour=red", "colour"),
        ("sort=rank", "sort"),
        ("published_from=yesterday", "published_from"),
    ] {
        let a = app
            .get(&format!("/v1/videos/export?{query}"), Some(&key))
            .await;
        assert_flat_error(&a, 400, "INVALID_PARAMETER");
        assert_eq!(a.body["details"]["parameter"], parameter, "{query}");
    }
    assert_eq!(
        app.get("/v1/videos/export", None).await.status.as_u16(),
        401
    );
    // An organization without videos gets the header alone; never another's.
    let a = app.get("/v1/videos/export", Some(&key)).await;
    assert_eq!(csv_rows(&a.body).len(), 1);
    let a = app.get("/v1/videos/export?format=ndjson", Some(&key)).await;
    assert_eq!(a.body, Value::String(String::new()));
}

#[rstest]
#[tokio::test]
async fn history_exports_every_reading(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Free).await;
    let (_, other) = app.org_with_key(Plan::Free).await;
    let t = app.track(&key, &[YOUTUBE]).await;
    let id = t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for _ in 0..4 {
        app.run_worker_until_idle().await;
        app.advance(Duration::minutes(15));
    }
    let record = app.get(&format!("/v1/videos/by-id/{id}"), Some(&key)).await;
    let views: Vec<i64> = record.body["data"]["data"]["stats"]["views"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(views.len(), 4);

    let a = app
        .get(&format!("/v1/videos/by-id/{id}/history"), Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let rows = csv_maps(&a.body);
    assert_eq!(
        csv_rows(&a.body)[0],
        [
            "captured_at",
            "views",
            "likes",
            "comments",
            "reposts",
            "saves"
        ]
    );
    let exported: Vec<i64> = rows.iter().map(|r| r["views"].parse().unwrap()).collect();
    assert_eq!(exported, views);
    assert!(
        rows.iter().all(|r| r["reposts"].is_empty()),
        "YouTube has no reposts"
    );
    assert_eq!(
        a.headers["content-disposition"],
        "attachment; filename=\"history-dQw4w9WgXcQ.csv\""
    );
    let lines = ndjson(
        &app.get(
            &format!("/v1/videos/by-id/{id}/history?format=ndjson"),
            Some(&key),
        )
        .await
        .body,
    );
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["views"], views[0]);
    assert!(lines[0]["captured_at"].as_str().unwrap().ends_with('Z'));

    for path in [
        format!("/v1/videos/by-id/{}/history", uuid::Uuid::now_v7()),
        "/v1/videos/by-id/nope/history".to_owned(),
    ] {
        assert_nested_error(&app.get(&path, Some(&key)).await, 404, "VIDEO_NOT_FOUND");
    }
    assert_nested_error(
        &app.get(&format!("/v1/videos/by-id/{id}/history"), Some(&other))
            .await,
        404,
        "VIDEO_NOT_FOUND",
    );
    let a = app
        .get(
            &format!("/v1/videos/by-id/{id}/history?format=xlsx"),
            Some(&key),
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "format");
}

#[rstest]
#[tokio::test]
async fn analytics_answer_csv(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let key = six_videos(&app).await;
    let today = app.clock.now().date_naive();
    let window = format!("from={}&to={today}", today - Duration::days(6));
    app.flush_usage().await;
    let credits = async || {
        app.flush_usage().await;
        app.get("/v1/account/usage", Some(&key)).await.body["data"]["summary"]
            ["total_credits_30_days"]
            .as_i64()
            .unwrap()
    };
    let before = credits().await;

    // Totals: the total first, then each group; by `format` or by `Accept`.
    let path =
        format!("/v1/analytics/metrics/totals?group_by=campaign&{window}&compare=previous_period");
    let json = app.get(&path, Some(&key)).await.body["data"].clone();
    let a = app.get(&format!("{path}&format=csv"), Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.headers["content-type"], "text/csv; charset=utf-8");
    let rows = csv_maps(&a.body);
    assert_eq!(rows.len(), 1 + json["groups"].as_array().unwrap().len());
    assert_eq!(
        (
            rows[0]["group_key"].as_str(),
            rows[0]["group_label"].as_str()
        ),
        ("", "Total")
    );
    assert_eq!(rows[0]["views"], json["total"]["views"].to_string());
    assert_eq!(
        rows[0]["previous_views"],
        json["previous"]["views"].to_string()
    );
    for (row, group) in rows[1..].iter().zip(json["groups"].as_array().unwrap()) {
        assert_eq!(row["group_key"], group["group_key"].as_str().unwrap());
        assert_eq!(row["likes"], group["likes"].to_string());
    }
    let by_accept = app
        .client
        .get(app.url(&path))
        .bearer_auth(&key)
        .header("accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert_eq!(
        by_accept.headers()["content-type"],
        "text/csv; charset=utf-8"
    );
    assert_eq!(by_accept.text().await.unwrap(), a.body.as_str().unwrap());

    // Increments: a row per day and group.
    let path = format!("/v1/analytics/metrics/increments?group_by=platform&{window}");
    let json = app.get(&path, Some(&key)).await.body["data"].clone();
    let rows = csv_maps(
        &app.get(&format!("{path}&format=csv"), Some(&key))
            .await
            .body,
    );
    let cells: usize = json["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["groups"].as_object().unwrap().len())
        .sum();
    assert_eq!(rows.len(), cells);
    assert!(rows.iter().all(|r| r["day"].len() == 10));

    // The leaderboard: a row per place, the video's columns filled.
    let path = format!("/v1/analytics/top?by=video&metric=views&{window}");
    let json = app.get(&path, Some(&key)).await.body["data"].clone();
    let rows = csv_maps(
        &app.get(&format!("{path}&format=csv"), Some(&key))
            .await
            .body,
    );
    assert_eq!(rows.len(), json["items"].as_array().unwrap().len());
    assert_eq!(rows[0]["rank"], "1");
    assert_eq!(
        rows[0]["video_id"],
        json["items"][0]["video_id"].as_str().unwrap()
    );
    assert_eq!(rows[0]["views"], json["items"][0]["views"].to_string());

    // Each CSV read costs what its JSON read does: 7 reads, 7 credits; a
    // refused format costs nothing.
    let a = app.get(&format!("{path}&format=pdf"), Some(&key)).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "format");
    assert_eq!(credits().await, before + 7);
}
