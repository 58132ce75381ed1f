//! Leaderboards (`GET /v1/analytics/top`, `GET /dashboard/top`) and the
//! period comparison (`compare=previous_period` on totals and top), on the
//! crafted history of the analytics tests (`crate::analytics`): A (TikTok,
//! "Mira"), B (YouTube, "mira") and C (TikTok, "Ana"), day `D` twelve days
//! before today.
//!
//! Over D+3..D+5, by the totals rules: A gains 3,000 views (6,400 − 3,400),
//! B 1,000 (51,000 − 50,000), C −280 (20 − 300). Over the previous period
//! D+0..D+2: A 2,400 (3,400 − its first reading 1,000), B 50,000 (tracked
//! from D+2: baseline 0), C 300.

use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::Plan;
use vidpulse_store::Backend;

use crate::analytics::{
    A, B, C, HEADER, VIDEO_B, VIDEO_C, credits, csv_row, d, import, ok, with_history,
};
use crate::helpers::{TestApp, assert_nested_error};

const TOP: &str = "/v1/analytics/top";

/// `(key or external id, views)` of each item, in order.
fn places(data: &Value) -> Vec<(String, i64)> {
    data["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let key = i["external_video_id"]
                .as_str()
                .or(i["key"].as_str())
                .unwrap()
                .to_owned();
            (key, i["views"].as_i64().unwrap())
        })
        .collect()
}

fn p(key: &str, views: i64) -> (String, i64) {
    (key.to_owned(), views)
}

/// Sets the campaign of the video with platform id `external_id`.
async fn set_campaign(app: &TestApp, key: &str, external_id: &str, campaign: &str) {
    let patched = app
        .patch(
            &format!("/v1/videos/by-external-id/{external_id}"),
            key,
            &json!({ "campaign": campaign }),
        )
        .await;
    assert_eq!(patched.status.as_u16(), 200, "{}", patched.body);
}

#[rstest]
#[tokio::test]
async fn top_videos_rank_the_window_gains(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let window = format!("from={}&to={}", d(&app, 3), d(&app, 5));

    let data = ok(&app, &format!("{TOP}?{window}"), &key).await;
    assert_eq!(data["metric"], "views");
    assert_eq!(data["by"], "video");
    assert_eq!(data["from"], d(&app, 3));
    assert_eq!(data["to"], d(&app, 5));
    assert_eq!(places(&data), vec![p(A, 3000), p(B, 1000), p(C, -280)]);
    let first = &data["items"][0];
    assert_eq!(first["rank"], 1);
    assert_eq!(first["key"], first["video_id"]);
    assert_eq!(first["platform"], "tiktok");
    assert_eq!(first["blogger_username"], "Mira");
    assert_eq!(first["label"], A, "no title: the platform's id");
    assert!(first["url"].as_str().unwrap().contains(A));
    assert_eq!(
        (
            first["likes"].clone(),
            first["comments"].clone(),
            first["reposts"].clone(),
            first["saves"].clone()
        ),
        (json!(300), json!(30), json!(60), json!(0))
    );
    assert!(first.get("previous").is_none() && data.get("previous_period").is_none());

    // Ranked by another metric, limited.
    let data = ok(&app, &format!("{TOP}?{window}&metric=likes&limit=2"), &key).await;
    let likes: Vec<i64> = data["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["likes"].as_i64().unwrap())
        .collect();
    assert_eq!(likes, vec![300, 100]);
    assert_eq!(data["items"][1]["rank"], 2);

    // Filters: platform, creator (any case, with `@`), campaign.
    let data = ok(&app, &format!("{TOP}?{window}&platform=youtube"), &key).await;
    assert_eq!(places(&data), vec![p(B, 1000)]);
    let data = ok(&app, &format!("{TOP}?{window}&blogger=%40MIRA"), &key).await;
    assert_eq!(places(&data), vec![p(A, 3000), p(B, 1000)]);
    let data = ok(&app, &format!("{TOP}?{window}&blogger=ana"), &key).await;
    assert_eq!(places(&data), vec![p(C, -280)]);
    set_campaign(&app, &key, C, "Spring").await;
    let data = ok(&app, &format!("{TOP}?{window}&campaign=Spring"), &key).await;
    assert_eq!(places(&data), vec![p(C, -280)]);

    // The first tracked day: A only (B and C have no reading on D).
    let day0 = format!("from={}&to={}", d(&app, 0), d(&app, 0));
    let data = ok(&app, &format!("{TOP}?{day0}"), &key).await;
    assert_eq!(places(&data), vec![p(A, 400)]);

    // Before any reading: nobody.
    let before = format!("from={}&to={}", d(&app, -9), d(&app, -1));
    let data = ok(
        &app,
        &format!("{TOP}?{before}&compare=previous_period"),
        &key,
    )
    .await;
    assert_eq!(data["items"], json!([]));
}

/// The videos' leaderboard asked again answers from the places the API
/// node kept while the organization's analytics are unchanged, and follows
/// every change at once: a new reading that reorders it, a title learned,
/// a campaign moved, a video untracked. Each read is charged.
#[rstest]
#[tokio::test]
async fn kept_video_leaderboard_follows_every_change_at_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = with_history(&app).await;
    let window = format!("from={}&to={}", d(&app, 3), d(&app, 5));
    let top = format!("{TOP}?{window}");
    let spring = format!("{TOP}?{window}&campaign=Spring");
    let before = credits(&app, &key).await;
    let first = ok(&app, &top, &key).await;
    assert_eq!(places(&first), vec![p(A, 3000), p(B, 1000), p(C, -280)]);
    assert_eq!(ok(&app, &top, &key).await, first, "asked again");
    assert_eq!(ok(&app, &spring, &key).await["items"], json!([]));
    assert_eq!(
        credits(&app, &key).await - before,
        3,
        "each read is charged"
    );

    // A later reading of B on D+5: 60,000 views, B passes A.
    let line = csv_row(&app, &VIDEO_B, 5, 20, 60_000);
    import(&app, org, &format!("{HEADER}\n{line}\n"))
        .await
        .unwrap();
    let now = ok(&app, &top, &key).await;
    assert_eq!(places(&now), vec![p(B, 10_000), p(A, 3000), p(C, -280)]);

    // A title learned for C (an import that moves no gain): shown at once.
    let line = csv_row(&app, &VIDEO_C, 1, 8, 300);
    import(&app, org, &format!("{HEADER},title\n{line},C launch\n"))
        .await
        .unwrap();
    let now = ok(&app, &top, &key).await;
    assert_eq!(places(&now), vec![p(B, 10_000), p(A, 3000), p(C, -280)]);
    assert_eq!(now["items"][2]["title"], "C launch");
    assert_eq!(now["items"][2]["label"], "C launch");

    // A campaign set on C: the campaign's leaderboard has it at once.
    set_campaign(&app, &key, C, "Spring").await;
    assert_eq!(places(&ok(&app, &spring, &key).await), vec![p(C, -280)]);

    // A untracked: it leaves the leaderboard, the others move up.
    let gone = app
        .delete(&format!("/v1/videos/by-external-id/{A}"), &key)
        .await;
    assert_eq!(gone.status.as_u16(), 200, "{}", gone.body);
    let now = ok(&app, &top, &key).await;
    assert_eq!(places(&now), vec![p(B, 10_000), p(C, -280)]);
    assert_eq!(now["items"][1]["rank"], 2);
}

#[rstest]
#[tokio::test]
async fn top_groups_rank_creators_and_campaigns(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let window = format!("from={}&to={}", d(&app, 3), d(&app, 5));

    let data = ok(&app, &format!("{TOP}?{window}&by=blogger"), &key).await;
    assert_eq!(data["by"], "blogger");
    assert_eq!(places(&data), vec![p("mira", 4000), p("ana", -280)]);
    assert_eq!(data["items"][0]["label"], "Mira");
    assert_eq!(data["items"][0]["rank"], 1);
    assert!(data["items"][0].get("video_id").is_none());

    let data = ok(&app, &format!("{TOP}?{window}&by=platform_blogger"), &key).await;
    assert_eq!(
        places(&data),
        vec![
            p("tiktok:mira", 3000),
            p("youtube:mira", 1000),
            p("tiktok:ana", -280)
        ]
    );
    assert_eq!(data["items"][1]["label"], "mira - YouTube");

    let data = ok(
        &app,
        &format!("{TOP}?{window}&by=platform_blogger&limit=1&platform=youtube"),
        &key,
    )
    .await;
    assert_eq!(places(&data), vec![p("youtube:mira", 1000)]);

    let data = ok(&app, &format!("{TOP}?{window}&by=campaign"), &key).await;
    assert_eq!(places(&data), vec![p("", 3720)]);
    assert_eq!(data["items"][0]["label"], "No campaign");

    // A creator filter on creators, and on campaigns (the per-video path).
    let data = ok(
        &app,
        &format!("{TOP}?{window}&by=blogger&blogger=ana"),
        &key,
    )
    .await;
    assert_eq!(places(&data), vec![p("ana", -280)]);
    let data = ok(
        &app,
        &format!("{TOP}?{window}&by=campaign&blogger=mira"),
        &key,
    )
    .await;
    assert_eq!(places(&data), vec![p("", 4000)]);
}

#[rstest]
#[tokio::test]
async fn comparison_with_the_previous_period(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let window = format!(
        "from={}&to={}&compare=previous_period",
        d(&app, 3),
        d(&app, 5)
    );

    // Totals: the sum, and per group.
    let data = ok(
        &app,
        &format!("/v1/analytics/metrics/totals?{window}"),
        &key,
    )
    .await;
    assert_eq!(data["total"]["views"], 3720);
    assert_eq!(
        data["previous_period"],
        json!({"from": d(&app, 0), "to": d(&app, 2)})
    );
    assert_eq!(data["previous"]["views"], 52_700);
    let change = data["change"]["views"].as_f64().unwrap();
    assert!(
        (change - (3720.0 - 52_700.0) / 52_700.0).abs() < 1e-12,
        "{change}"
    );
    // Saves were 0 in both periods: no relative change.
    assert_eq!(data["change"]["saves"], Value::Null);

    let data = ok(
        &app,
        &format!("/v1/analytics/metrics/totals?{window}&group_by=blogger_username"),
        &key,
    )
    .await;
    let mira = &data["groups"][0];
    assert_eq!(
        (mira["group_key"].clone(), mira["views"].clone()),
        (json!("mira"), json!(4000))
    );
    assert_eq!(mira["previous"]["views"], 52_400);
    let ana = &data["groups"][1];
    assert_eq!(ana["previous"]["views"], 300);
    let change = ana["change"]["views"].as_f64().unwrap();
    assert!((change - (-580.0 / 300.0)).abs() < 1e-12, "{change}");

    // Without `compare`, none of it.
    let plain = ok(
        &app,
        &format!(
            "/v1/analytics/metrics/totals?from={}&to={}&group_by=platform",
            d(&app, 3),
            d(&app, 5)
        ),
        &key,
    )
    .await;
    assert!(plain.get("previous").is_none() && plain.get("change").is_none());
    assert!(plain["groups"][0].get("previous").is_none());

    // Top videos: each its own previous period.
    let data = ok(&app, &format!("{TOP}?{window}"), &key).await;
    let items = data["items"].as_array().unwrap();
    assert_eq!(items[0]["previous"]["views"], 2400);
    assert_eq!(items[0]["change"]["views"], 0.25);
    assert_eq!(items[1]["previous"]["views"], 50_000);
    assert_eq!(items[1]["change"]["views"], -0.98);
    assert_eq!(items[2]["previous"]["views"], 300);

    // Top creators.
    let data = ok(&app, &format!("{TOP}?{window}&by=blogger"), &key).await;
    assert_eq!(data["items"][0]["previous"]["views"], 52_400);

    // The first tracked day compared with the day before it: nothing then.
    let day0 = format!(
        "from={}&to={}&compare=previous_period",
        d(&app, 0),
        d(&app, 0)
    );
    let data = ok(&app, &format!("{TOP}?{day0}"), &key).await;
    assert_eq!(data["items"][0]["previous"]["views"], 0);
    assert_eq!(data["items"][0]["change"]["views"], Value::Null);
    let data = ok(&app, &format!("/v1/analytics/metrics/totals?{day0}"), &key).await;
    assert_eq!(
        (
            data["total"]["views"].clone(),
            data["previous"]["views"].clone()
        ),
        (json!(400), json!(0))
    );
}

#[rstest]
#[tokio::test]
async fn top_refuses_bad_parameters_and_free_plans_and_charges_one_credit(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    for (query, field) in [
        ("metric=shares", "metric"),
        ("metric=Views", "metric"),
        ("by=creator", "by"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=ten", "limit"),
        ("compare=last_week", "compare"),
        ("from=2026-02-30", "from"),
        ("platform=vimeo", "platform"),
        ("blogger=a%20b", "blogger"),
        ("sort=views", "sort"),
        ("group_by=platform", "group_by"),
    ] {
        let a = app.get(&format!("{TOP}?{query}"), Some(&key)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}: {}", a.body);
    }
    assert_eq!(
        credits(&app, &key).await,
        0,
        "a refused request costs nothing"
    );

    ok(&app, TOP, &key).await;
    ok(
        &app,
        &format!("{TOP}?compare=previous_period&by=campaign"),
        &key,
    )
    .await;
    assert_eq!(credits(&app, &key).await, 2);

    let (free_org, free) = app.org_with_key(Plan::Free).await;
    import(&app, free_org, &crate::analytics::history_csv(&app))
        .await
        .unwrap();
    let a = app.get(TOP, Some(&free)).await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    assert_eq!(credits(&app, &free).await, 0);

    // Another organization's videos are not ranked.
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let window = format!("from={}&to={}", d(&app, 0), d(&app, 9));
    let data = ok(&app, &format!("{TOP}?{window}"), &other).await;
    assert_eq!(data["items"], json!([]));

    let a = app.get(TOP, None).await;
    assert_eq!(a.status.as_u16(), 401);
}
