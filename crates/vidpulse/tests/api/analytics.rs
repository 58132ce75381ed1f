//! Campaign analytics over HTTP: a crafted history is imported with the
//! `import-stats` code path, then every `group_by`, filter and analytics rule
//! is checked to the unit, along with every parameter's error.
//!
//! The history (day `D` is twelve days before the test's today):
//!
//! - A, TikTok `…001` by "Mira", published D-3: two readings a day on D..D+9,
//!   views 1000·(d+1) at 06:00 and 400 more at 18:00.
//! - B, YouTube by "mira", published D-3: views 50,000 (D+2), 52,000 (D+3),
//!   51,000 (D+5, a dip), 56,000 (D+6); it already had views when first read.
//! - C, TikTok `…002` by "Ana", published D+1: 300 (D+1), 900 (D+4),
//!   20 (D+5, a reset), 80 (D+8).
//!
//! Likes are views/10, comments views/100, reposts views/50 on TikTok and
//! unknown on YouTube, saves unknown everywhere (so 0 in aggregates).

use std::io::Write;

use chrono::{Duration, NaiveDate};
use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::helpers::{TestApp, assert_nested_error};

pub(crate) const A: &str = "7000000000000000001";
pub(crate) const B: &str = "yt000000001";
pub(crate) const C: &str = "7000000000000000002";
const TOTALS: &str = "/v1/analytics/metrics/totals";
const INCREMENTS: &str = "/v1/analytics/metrics/increments";
pub(crate) const HEADER: &str = "platform,external_video_id,captured_at,views,likes,comments,reposts,saves,channel_username,published_at";

/// The first day of the history.
fn day0(app: &TestApp) -> NaiveDate {
    app.clock.now().date_naive() - Duration::days(12)
}

pub(crate) fn d(app: &TestApp, n: i64) -> String {
    (day0(app) + Duration::days(n)).to_string()
}

/// One video of a crafted file.
pub(crate) struct Video<'a> {
    platform: &'a str,
    id: &'a str,
    who: &'a str,
    /// Publish day, relative to `D`.
    published: i64,
}

const VIDEO_A: Video = Video {
    platform: "tiktok",
    id: A,
    who: "Mira",
    published: -3,
};
pub(crate) const VIDEO_B: Video = Video {
    platform: "youtube",
    id: B,
    who: "mira",
    published: -3,
};
pub(crate) const VIDEO_C: Video = Video {
    platform: "tiktok",
    id: C,
    who: "Ana",
    published: 1,
};

/// A CSV line: `video` read at `hour`:00 UTC on day `D+day` with `views`.
pub(crate) fn csv_row(app: &TestApp, video: &Video, day: i64, hour: u32, views: i64) -> String {
    let Video {
        platform,
        id,
        who,
        published,
    } = video;
    let reposts = if *platform == "tiktok" {
        (views / 50).to_string()
    } else {
        String::new()
    };
    format!(
        "{platform},{id},{}T{hour:02}:00:00Z,{views},{},{},{reposts},,{who},{}T10:00:00Z",
        d(app, day),
        views / 10,
        views / 100,
        d(app, *published),
    )
}

pub(crate) fn history_csv(app: &TestApp) -> String {
    let mut lines = vec![HEADER.to_owned()];
    for day in 0..10 {
        let v = 1000 * (day + 1);
        lines.push(csv_row(app, &VIDEO_A, day, 6, v));
        lines.push(csv_row(app, &VIDEO_A, day, 18, v + 400));
    }
    for (day, v) in [(2, 50_000), (3, 52_000), (5, 51_000), (6, 56_000)] {
        lines.push(csv_row(app, &VIDEO_B, day, 12, v));
    }
    for (day, v) in [(1, 300), (4, 900), (5, 20), (8, 80)] {
        lines.push(csv_row(app, &VIDEO_C, day, 9, v));
    }
    lines.join("\n") + "\n"
}

fn write_file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

pub(crate) async fn import(app: &TestApp, org: Uuid, text: &str) -> anyhow::Result<Value> {
    let file = write_file(text);
    let out = vidpulse::commands::import::import_stats(
        &app.store,
        org,
        file.path(),
        Duration::days(30),
        app.clock.now(),
    )
    .await?;
    Ok(serde_json::to_value(out).unwrap())
}

/// A Pro organization holding the history.
pub(crate) async fn with_history(app: &TestApp) -> (Uuid, String) {
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let out = import(app, org, &history_csv(app)).await.unwrap();
    assert_eq!(
        out,
        json!({"videos_created": 3, "snapshots_imported": 28, "snapshots_skipped": 0})
    );
    (org, key)
}

pub(crate) async fn ok(app: &TestApp, path: &str, key: &str) -> Value {
    let a = app.get(path, Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{path}: {}", a.body);
    assert_eq!(a.body["success"], true);
    assert_eq!(a.body["meta"]["credits_used"], 1);
    assert!(a.body["meta"]["request_id"].is_string());
    a.body["data"].clone()
}

/// The body as sent, to check the order of fields.
async fn raw(app: &TestApp, path: &str, key: &str) -> String {
    let response = app
        .client
        .get(app.url(path))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.text().await.unwrap()
}

fn views(v: &Value) -> i64 {
    v["views"].as_i64().unwrap()
}

/// `(group_key, group_label, views)` of a totals answer, in order.
fn groups(data: &Value) -> Vec<(String, String, i64)> {
    data["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["group_key"].as_str().unwrap().to_owned(),
                g["group_label"].as_str().unwrap().to_owned(),
                views(g),
            )
        })
        .collect()
}

fn g(key: &str, label: &str, views: i64) -> (String, String, i64) {
    (key.to_owned(), label.to_owned(), views)
}

pub(crate) async fn credits(app: &TestApp, key: &str) -> i64 {
    app.flush_usage().await;
    app.get("/v1/account/usage", Some(key)).await.body["data"]["summary"]["total_credits_30_days"]
        .as_i64()
        .unwrap()
}

#[rstest]
#[tokio::test]
async fn totals_follow_the_rules_for_every_group_by(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let window = format!("from={}&to={}", d(&app, 0), d(&app, 9));

    // A: 10,400 − its first reading on D (1,000); B and C started later: from 0.
    let data = ok(&app, &format!("{TOTALS}?{window}"), &key).await;
    assert_eq!(data["group_by_dimension"], "none");
    assert_eq!(
        (data["from"].as_str(), data["to"].as_str()),
        (Some(&*d(&app, 0)), Some(&*d(&app, 9)))
    );
    // The five metrics, in the documented order; unknown saves count as 0.
    assert_eq!(
        data["total"],
        json!({"views": 65480, "likes": 6548, "comments": 654, "reposts": 189, "saves": 0})
    );
    let text = raw(&app, &format!("{TOTALS}?{window}"), &key).await;
    assert!(
        text.contains(
            r#""total":{"views":65480,"likes":6548,"comments":654,"reposts":189,"saves":0}"#
        ),
        "{text}"
    );
    assert_eq!(data["groups"], json!([]));

    let data = ok(&app, &format!("{TOTALS}?{window}&group_by=platform"), &key).await;
    assert_eq!(data["group_by_dimension"], "platform");
    assert_eq!(
        groups(&data),
        [
            g("youtube", "YouTube", 56_000),
            g("tiktok", "TikTok", 9_480)
        ]
    );
    assert_eq!(
        data["groups"][1],
        json!({"group_key": "tiktok", "group_label": "TikTok",
               "views": 9480, "likes": 948, "comments": 94, "reposts": 189, "saves": 0})
    );

    // One handle, two spellings: one group, lowercase key.
    let data = ok(
        &app,
        &format!("{TOTALS}?{window}&group_by=blogger_username"),
        &key,
    )
    .await;
    assert_eq!(
        groups(&data),
        [g("mira", "Mira", 65_400), g("ana", "Ana", 80)]
    );

    let data = ok(
        &app,
        &format!("{TOTALS}?{window}&group_by=platform_blogger"),
        &key,
    )
    .await;
    assert_eq!(
        groups(&data),
        [
            g("youtube:mira", "mira - YouTube", 56_000),
            g("tiktok:mira", "Mira - TikTok", 9_400),
            g("tiktok:ana", "Ana - TikTok", 80),
        ]
    );
    assert_eq!(data["total"]["views"], 65_480);

    // Campaigns come from the videos' metadata.
    let a = app
        .patch(
            &format!("/v1/videos/by-external-id/{A}"),
            &key,
            &json!({"campaign": "Summer"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let data = ok(&app, &format!("{TOTALS}?{window}&group_by=campaign"), &key).await;
    assert_eq!(
        groups(&data),
        [g("", "No campaign", 56_080), g("Summer", "Summer", 9_400)]
    );
}

#[rstest]
#[tokio::test]
async fn totals_windows_and_filters(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let total = |data: Value| views(&data["total"]);
    let full = format!("from={}&to={}", d(&app, 0), d(&app, 9));

    // Mid-history window: baselines are the last reading before `from`; C's
    // reset makes its total negative (900 → 20 after 300 before the window).
    let mid = format!(
        "{TOTALS}?from={}&to={}&group_by=platform_blogger",
        d(&app, 3),
        d(&app, 6)
    );
    let data = ok(&app, &mid, &key).await;
    assert_eq!(
        groups(&data),
        [
            g("youtube:mira", "mira - YouTube", 6_000),
            g("tiktok:mira", "Mira - TikTok", 4_000),
            g("tiktok:ana", "Ana - TikTok", -280),
        ]
    );

    // The default window is the 30 days ending today: it starts before A's
    // first reading, so A's pre-existing 1,000 views count (difference 1).
    let data = ok(&app, TOTALS, &key).await;
    let today = app.clock.now().date_naive();
    assert_eq!(data["to"], today.to_string());
    assert_eq!(data["from"], (today - Duration::days(29)).to_string());
    assert_eq!(total(data), 66_480);
    // Only `to`: the 30 days ending there.
    let data = ok(&app, &format!("{TOTALS}?to={}", d(&app, 5)), &key).await;
    assert_eq!(
        data["from"],
        (day0(&app) + Duration::days(5 - 29)).to_string()
    );
    assert_eq!(total(data), 6_400 + 51_000 + 20);
    // A window before any reading counts nothing; a window after the last
    // reading counts nothing either (no growth inside it).
    let before = format!("{TOTALS}?from={}&to={}", d(&app, -20), d(&app, -1));
    assert_eq!(total(ok(&app, &before, &key).await), 0);
    let after = format!("{TOTALS}?from={}&to={}", d(&app, 10), d(&app, 12));
    assert_eq!(total(ok(&app, &after, &key).await), 0);
    // A single day.
    let one = format!("{TOTALS}?from={0}&to={0}", d(&app, 6));
    assert_eq!(total(ok(&app, &one, &key).await), 1_000 + 5_000);

    // Filters, each bound inclusive.
    let f = |q: String| format!("{TOTALS}?{full}&{q}");
    assert_eq!(
        total(ok(&app, &f("platform=youtube".into()), &key).await),
        56_000
    );
    assert_eq!(
        total(ok(&app, &f("platform=TikTok".into()), &key).await),
        9_480
    );
    assert_eq!(
        total(ok(&app, &f(format!("published_at.from={}", d(&app, 1))), &key).await),
        80
    );
    assert_eq!(
        total(ok(&app, &f(format!("published_at.to={}", d(&app, 0))), &key).await),
        65_400
    );
    assert_eq!(
        total(
            ok(
                &app,
                &f(format!(
                    "published_at.from={0}&published_at.to={0}",
                    d(&app, -3)
                )),
                &key
            )
            .await
        ),
        65_400
    );
    // Tracking started on A's, C's and B's first readings: D, D+1, D+2.
    assert_eq!(
        total(ok(&app, &f(format!("tracked_at.from={}", d(&app, 1))), &key).await),
        56_080
    );
    assert_eq!(
        total(ok(&app, &f(format!("tracked_at.to={}", d(&app, 1))), &key).await),
        9_480
    );
    assert_eq!(
        total(
            ok(
                &app,
                &f(format!("tracked_at.from={0}&tracked_at.to={0}", d(&app, 2))),
                &key
            )
            .await
        ),
        56_000
    );
    // Campaign filter: exact tag; an empty one is no filter.
    app.patch(
        &format!("/v1/videos/by-external-id/{C}"),
        &key,
        &json!({"campaign": "Winter"}),
    )
    .await;
    assert_eq!(
        total(ok(&app, &f("campaign=Winter".into()), &key).await),
        80
    );
    assert_eq!(total(ok(&app, &f("campaign=winter".into()), &key).await), 0);
    assert_eq!(total(ok(&app, &f("campaign=".into()), &key).await), 65_480);
    // Filters combine.
    assert_eq!(
        total(
            ok(
                &app,
                &f(format!("platform=tiktok&published_at.to={}", d(&app, 0))),
                &key
            )
            .await
        ),
        9_400
    );
}

#[rstest]
#[tokio::test]
async fn increments_are_sparse_daily_and_floored(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let today = app.clock.now().date_naive();

    // Through today: days after D+9 have no reading and are left out.
    let data = ok(
        &app,
        &format!("{INCREMENTS}?from={}&to={today}", d(&app, 0)),
        &key,
    )
    .await;
    assert_eq!(data["group_by_dimension"], "none");
    let days = data["data"].as_array().unwrap();
    let per_day: Vec<(String, i64)> = days
        .iter()
        .map(|e| {
            assert_eq!(e["period"], e["date"]);
            let groups = e["groups"].as_object().unwrap();
            assert_eq!(groups.len(), 1);
            let t = &groups["total"];
            assert_eq!(
                (t["key"].as_str(), t["label"].as_str()),
                (Some("total"), Some("Total"))
            );
            (e["period"].as_str().unwrap().to_owned(), views(t))
        })
        .collect();
    // D: A's first day counts from its first reading (400). B's first day is
    // 0 although it had 50,000 views; its dip is 0 and its recovery counts in
    // full; C's reset is 0.
    let expected = [400, 1000, 1000, 3000, 1600, 1000, 6000, 1000, 1060, 1000];
    assert_eq!(
        per_day,
        expected
            .iter()
            .enumerate()
            .map(|(n, v)| (d(&app, n as i64), *v))
            .collect::<Vec<_>>()
    );
    // Five metrics, in the documented order.
    assert_eq!(
        days[3]["groups"]["total"],
        json!({"key": "total", "label": "Total", "views": 3000, "likes": 300, "comments": 30, "reposts": 20, "saves": 0})
    );
    let text = raw(
        &app,
        &format!("{INCREMENTS}?from={0}&to={0}", d(&app, 3)),
        &key,
    )
    .await;
    assert!(
        text.contains(r#"{"key":"total","label":"Total","views":3000,"likes":300,"comments":30,"reposts":20,"saves":0}"#),
        "{text}"
    );

    // Per platform: a group appears on a day when one of its videos has a
    // reading that day, even with no gain.
    let data = ok(
        &app,
        &format!(
            "{INCREMENTS}?from={}&to={}&group_by=platform",
            d(&app, 0),
            d(&app, 9)
        ),
        &key,
    )
    .await;
    let day = |n: usize| data["data"][n]["groups"].as_object().unwrap().clone();
    assert_eq!(day(0).keys().collect::<Vec<_>>(), ["tiktok"]);
    assert_eq!(day(2).keys().collect::<Vec<_>>(), ["tiktok", "youtube"]);
    assert_eq!(day(2)["youtube"]["views"], 0);
    assert_eq!(day(2)["youtube"]["label"], "YouTube");
    assert_eq!(day(5)["youtube"]["views"], 0);
    assert_eq!(day(6)["youtube"]["views"], 5_000);
    assert_eq!(day(7).keys().collect::<Vec<_>>(), ["tiktok"]);

    let data = ok(
        &app,
        &format!(
            "{INCREMENTS}?from={}&to={}&group_by=platform_blogger",
            d(&app, 4),
            d(&app, 5)
        ),
        &key,
    )
    .await;
    assert_eq!(
        data["data"],
        json!([
            {"period": d(&app, 4), "date": d(&app, 4), "groups": {
                "tiktok:ana": {"key": "tiktok:ana", "label": "Ana - TikTok",
                    "views": 600, "likes": 60, "comments": 6, "reposts": 12, "saves": 0},
                "tiktok:mira": {"key": "tiktok:mira", "label": "Mira - TikTok",
                    "views": 1000, "likes": 100, "comments": 10, "reposts": 20, "saves": 0}}},
            {"period": d(&app, 5), "date": d(&app, 5), "groups": {
                "tiktok:ana": {"key": "tiktok:ana", "label": "Ana - TikTok",
                    "views": 0, "likes": 0, "comments": 0, "reposts": 0, "saves": 0},
                "tiktok:mira": {"key": "tiktok:mira", "label": "Mira - TikTok",
                    "views": 1000, "likes": 100, "comments": 10, "reposts": 20, "saves": 0},
                "youtube:mira": {"key": "youtube:mira", "label": "mira - YouTube",
                    "views": 0, "likes": 0, "comments": 0, "reposts": 0, "saves": 0}}}
        ])
    );

    // By creator and by campaign, filtered.
    let data = ok(
        &app,
        &format!(
            "{INCREMENTS}?from={0}&to={0}&group_by=blogger_username",
            d(&app, 6)
        ),
        &key,
    )
    .await;
    assert_eq!(data["data"][0]["groups"]["mira"]["views"], 6_000);
    assert_eq!(data["data"][0]["groups"]["mira"]["label"], "Mira");
    let data = ok(
        &app,
        &format!(
            "{INCREMENTS}?from={}&to={}&group_by=campaign&platform=youtube",
            d(&app, 0),
            d(&app, 9)
        ),
        &key,
    )
    .await;
    let periods: Vec<&str> = data["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["period"].as_str().unwrap())
        .collect();
    assert_eq!(periods, [d(&app, 2), d(&app, 3), d(&app, 5), d(&app, 6)]);
    assert_eq!(data["data"][1]["groups"][""]["label"], "No campaign");
    assert_eq!(data["data"][1]["groups"][""]["views"], 2_000);

    // From on or after the first tracked day with growing counters: the sum
    // of increments equals totals (A alone, filtered by platform and creator).
    let q = format!(
        "from={}&to={}&platform=tiktok&published_at.to={}",
        d(&app, 0),
        d(&app, 9),
        d(&app, 0)
    );
    let inc = ok(&app, &format!("{INCREMENTS}?{q}"), &key).await;
    let sum: i64 = inc["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| views(&e["groups"]["total"]))
        .sum();
    assert_eq!(
        sum,
        views(&ok(&app, &format!("{TOTALS}?{q}"), &key).await["total"])
    );
}

#[rstest]
#[tokio::test]
async fn analytics_are_per_organization_paid_and_charged(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let (_, other) = app.org_with_key(Plan::Business).await;
    let window = format!("from={}&to={}", d(&app, 0), d(&app, 9));

    // Another organization sees none of it.
    let data = ok(
        &app,
        &format!("{TOTALS}?{window}&group_by=platform"),
        &other,
    )
    .await;
    assert_eq!(views(&data["total"]), 0);
    assert_eq!(data["groups"], json!([]));
    let data = ok(&app, &format!("{INCREMENTS}?{window}"), &other).await;
    assert_eq!(data["data"], json!([]));

    // The same video imported by the other organization counts only there.
    let (other_org, other_key) = app.org_with_key(Plan::Pro).await;
    let one_video: String = history_csv(&app)
        .lines()
        .filter(|l| l.starts_with("platform") || l.contains(B))
        .map(|l| format!("{l}\n"))
        .collect();
    import(&app, other_org, &one_video).await.unwrap();
    assert_eq!(
        views(&ok(&app, &format!("{TOTALS}?{window}"), &other_key).await["total"]),
        56_000
    );
    assert_eq!(
        views(&ok(&app, &format!("{TOTALS}?{window}"), &key).await["total"]),
        65_480
    );

    // Free plan: 402 with the upgrade URL, nothing charged.
    let (free_org, free) = app.org_with_key(Plan::Free).await;
    import(&app, free_org, &history_csv(&app)).await.unwrap();
    for path in [TOTALS, INCREMENTS] {
        let a = app.get(path, Some(&free)).await;
        assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
        assert!(a.body["error"]["upgrade_url"].is_string(), "{}", a.body);
        assert_nested_error(&app.get(path, None).await, 401, "MISSING_AUTH");
        assert_nested_error(
            &app.get(path, Some("vp_live_nope")).await,
            401,
            "INVALID_API_KEY",
        );
    }
    assert_eq!(credits(&app, &free).await, 0);

    // One credit per answer, none for an error.
    let (_, fresh) = app.org_with_key(Plan::Pro).await;
    ok(&app, TOTALS, &fresh).await;
    ok(&app, INCREMENTS, &fresh).await;
    app.get(&format!("{TOTALS}?group_by=nope"), Some(&fresh))
        .await;
    app.get(&format!("{INCREMENTS}?from=2026-02-30"), Some(&fresh))
        .await;
    assert_eq!(credits(&app, &fresh).await, 2);
}

#[rstest]
#[tokio::test]
async fn every_parameter_is_checked(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let today = app.clock.now().date_naive();
    let long = "c".repeat(201);
    let cases: Vec<(String, &str)> = vec![
        ("from=yesterday".into(), "from"),
        ("from=2026-02-30".into(), "from"),
        ("from=2026-1-5".into(), "from"),
        ("to=2026-13-01".into(), "to"),
        ("to=20260101".into(), "to"),
        ("from=2026-03-02&to=2026-03-01".into(), "from"),
        // 367 days.
        ("from=2025-01-01&to=2026-01-02".into(), "from"),
        (format!("from={}", today + Duration::days(1)), "from"),
        ("group_by=creator".into(), "group_by"),
        ("group_by=Platform%20".into(), "group_by"),
        ("platform=vimeo".into(), "platform"),
        ("published_at.from=soon".into(), "published_at.from"),
        ("published_at.to=2026-04-31".into(), "published_at.to"),
        (
            "published_at.from=2026-03-02&published_at.to=2026-03-01".into(),
            "published_at.from",
        ),
        ("tracked_at.from=x".into(), "tracked_at.from"),
        ("tracked_at.to=2026/01/01".into(), "tracked_at.to"),
        (
            "tracked_at.from=2026-03-02&tracked_at.to=2026-03-01".into(),
            "tracked_at.from",
        ),
        (format!("campaign={long}"), "campaign"),
    ];
    for path in [TOTALS, INCREMENTS] {
        for (query, field) in &cases {
            let a = app.get(&format!("{path}?{query}"), Some(&key)).await;
            assert_nested_error(&a, 400, "VALIDATION_ERROR");
            assert_eq!(
                a.body["error"]["field"], *field,
                "{path}?{query}: {}",
                a.body
            );
        }
        // Exactly 366 days, equal bounds and 200 characters are fine.
        for query in [
            "from=2025-01-01&to=2026-01-01".to_owned(),
            "published_at.from=2026-03-01&published_at.to=2026-03-01".to_owned(),
            format!("campaign={}", "c".repeat(200)),
            "group_by=none&platform=instagram".to_owned(),
        ] {
            let a = app.get(&format!("{path}?{query}"), Some(&key)).await;
            assert_eq!(a.status.as_u16(), 200, "{path}?{query}: {}", a.body);
        }
    }
    assert_eq!(credits(&app, &key).await, 8);
}

#[rstest]
#[tokio::test]
async fn a_bad_import_writes_nothing_and_a_repeat_changes_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = with_history(&app).await;
    let window = format!("{TOTALS}?from={}&to={}", d(&app, 0), d(&app, 9));
    let before = ok(&app, &window, &key).await;

    // Importing the same file again skips every row.
    assert_eq!(
        import(&app, org, &history_csv(&app)).await.unwrap(),
        json!({"videos_created": 0, "snapshots_imported": 0, "snapshots_skipped": 28})
    );
    assert_eq!(ok(&app, &window, &key).await, before);

    // A new video in a file that fails on a later row is not created.
    let zed = Video {
        platform: "youtube",
        id: "yt000000009",
        who: "zed",
        published: 0,
    };
    let good = csv_row(&app, &zed, 3, 12, 5_000);
    let bad_files = [
        ("plattform,external_video_id\n".to_owned(), "row 1"),
        (
            format!(
                "{HEADER}\n{good}\nvimeo,1,{}T00:00:00Z,1,1,1,1,1,,\n",
                d(&app, 1)
            ),
            "row 3",
        ),
        (format!("{HEADER}\n{good}\n{good}\n"), "row 3"),
        (
            format!(
                "{HEADER}\n{good}\ntiktok,{A},{}T00:00:00Z,-5,1,1,1,1,,\n",
                d(&app, 1)
            ),
            "row 3",
        ),
        (
            format!("{HEADER}\n{good}\ntiktok,{A},not-a-time,5,1,1,1,1,,\n"),
            "row 3",
        ),
        (String::new(), "row 1"),
    ];
    for (text, row) in bad_files {
        let err = import(&app, org, &text).await.unwrap_err().to_string();
        assert!(err.starts_with(row), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
    assert_eq!(ok(&app, &window, &key).await, before);
    let a = app
        .get("/v1/videos/by-external-id/yt000000009", Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 404, "{}", a.body);
}

/// Totals and increments asked again answer from what the API node kept
/// while the organization's analytics are unchanged, and follow every
/// change at once: a new reading, a campaign moved. Each read is charged.
#[rstest]
#[tokio::test]
async fn kept_analytics_follow_every_change_at_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = with_history(&app).await;
    let window = format!("from={}&to={}", d(&app, 0), d(&app, 9));
    let by_platform = format!("{TOTALS}?{window}&group_by=platform");
    let by_campaign = format!("{TOTALS}?{window}&group_by=campaign");
    let increments = format!("{INCREMENTS}?{window}");
    let before = credits(&app, &key).await;
    let first = ok(&app, &by_platform, &key).await;
    assert_eq!(ok(&app, &by_platform, &key).await, first, "asked again");
    let first_increments = ok(&app, &increments, &key).await;
    assert_eq!(ok(&app, &increments, &key).await, first_increments);
    assert_eq!(
        credits(&app, &key).await - before,
        4,
        "each read is charged"
    );

    // A later reading of A on its last day: 600 more views.
    let line = csv_row(&app, &VIDEO_A, 9, 20, 11_000);
    import(&app, org, &format!("{HEADER}\n{line}\n"))
        .await
        .unwrap();
    let now = ok(&app, &by_platform, &key).await;
    assert_eq!(
        groups(&now),
        [
            g("youtube", "YouTube", 56_000),
            g("tiktok", "TikTok", 9_480 + 600)
        ]
    );
    let now_increments = ok(&app, &increments, &key).await;
    assert_ne!(now_increments, first_increments);

    // A campaign set on A moves its gains to that campaign's group.
    let campaigns = ok(&app, &by_campaign, &key).await;
    assert!(
        campaigns["groups"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["group_key"] != "Spring"),
        "{campaigns}"
    );
    let a = app
        .patch(
            &format!("/v1/videos/by-external-id/{A}"),
            &key,
            &json!({ "campaign": "Spring" }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let moved = ok(&app, &by_campaign, &key).await;
    let spring = moved["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["group_key"] == "Spring")
        .cloned();
    assert!(spring.is_some_and(|g| views(&g) > 0), "{moved}");
}
