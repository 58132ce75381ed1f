//! `baseline=window|tracking` (docs/api.md, "Analytics", "Where growth
//! starts") on every read that measures growth over a window: totals,
//! increments, the leaderboard, the listing's gains and its export, and the
//! dashboard's statistics and leaderboard. Readings are imported so that
//! every number is computed by hand.
//!
//! Day `D` is twelve days before the test's today; the window is D..D+9.
//!
//! - N, TikTok `…101` by "nova", tracked mid-window (its first reading is
//!   its tracking start): 1,000 views at D+4 06:00 (already there when
//!   tracking began), 1,200 at D+4 18:00, 1,500 at D+6. Window rule: 1,500
//!   (from 0); tracking rule: 500 (from its first reading). Increments:
//!   200 on D+4, 300 on D+6.
//! - O, YouTube by "olga", with a close before the window: 10,000 at D−2,
//!   10,400 at D+1, 11,000 at D+5: 1,000 under both rules. Increments: 400
//!   on D+1, 600 on D+5.
//!
//! Likes are views/10, comments views/100; reposts and saves unknown (0).
//! Totals: window 2,500 views, tracking 1,500 = the sum of the increments.

use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::identity::Role;
use vidpulse_domain::{Clock, OrgId, Plan};
use vidpulse_store::Backend;

use crate::analytics::{HEADER, credits, d, import, ok};
use crate::dashboard::{call, member};
use crate::helpers::{TestApp, assert_flat_error, assert_nested_error};

const N: &str = "7000000000000000101";
const O: &str = "yt000000101";
const TOTALS: &str = "/v1/analytics/metrics/totals";
const INCREMENTS: &str = "/v1/analytics/metrics/increments";
const TOP: &str = "/v1/analytics/top";

/// A CSV line of the import: `(platform, id, who)` read at `hour`:00 on
/// day `D+day` with `views`.
fn line(
    app: &TestApp,
    (platform, id, who): (&str, &str, &str),
    day: i64,
    hour: u32,
    views: i64,
) -> String {
    format!(
        "{platform},{id},{}T{hour:02}:00:00Z,{views},{},{},,,{who},{}T10:00:00Z",
        d(app, day),
        views / 10,
        views / 100,
        d(app, -20),
    )
}

fn history(app: &TestApp) -> String {
    let n = ("tiktok", N, "nova");
    let o = ("youtube", O, "olga");
    let lines = [
        line(app, n, 4, 6, 1_000),
        line(app, n, 4, 18, 1_200),
        line(app, n, 6, 12, 1_500),
        line(app, o, -2, 12, 10_000),
        line(app, o, 1, 12, 10_400),
        line(app, o, 5, 12, 11_000),
    ];
    format!("{HEADER}\n{}\n", lines.join("\n"))
}

/// A Pro organization with an API key and an admin signed in to the
/// dashboard, holding the history, N in campaign "Launch".
struct Setup {
    app: TestApp,
    org: String,
    key: String,
    admin: String,
    window: String,
}

async fn setup(backend: Backend) -> Setup {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let out = import(&app, org, &history(&app)).await.unwrap();
    assert_eq!(
        out,
        json!({"videos_created": 2, "snapshots_imported": 6, "snapshots_skipped": 0})
    );
    let patched = app
        .patch(
            &format!("/v1/videos/by-external-id/{N}"),
            &key,
            &json!({"campaign": "Launch"}),
        )
        .await;
    assert_eq!(patched.status.as_u16(), 200, "{}", patched.body);
    let (admin, user) = member(&app, "admin@example.com").await;
    assert!(
        app.store
            .add_member(OrgId(org), user, Role::Admin, app.clock.now())
            .await
            .unwrap()
    );
    let window = format!("from={}&to={}", d(&app, 0), d(&app, 9));
    Setup {
        app,
        org: org.to_string(),
        key,
        admin,
        window,
    }
}

impl Setup {
    /// `data` of a dashboard read.
    async fn dashboard(&self, path: &str) -> Value {
        let a = call(
            &self.app,
            Method::GET,
            path,
            &self.admin,
            Some(&self.org),
            None,
        )
        .await;
        assert_eq!(a.status.as_u16(), 200, "{path}: {}", a.body);
        a.body["data"].clone()
    }
}

/// `(group_key, views)` of a totals answer's groups, in order.
fn groups(data: &Value) -> Vec<(String, i64)> {
    data["groups"]
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

fn g(key: &str, views: i64) -> (String, i64) {
    (key.to_owned(), views)
}

/// `(key or external id, views)` of a leaderboard's places, in order.
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

/// The sum of an increments answer's views, every day and group.
fn summed_increments(data: &Value) -> i64 {
    data["data"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|day| day["groups"].as_object().unwrap().values())
        .map(|g| g["views"].as_i64().unwrap())
        .sum()
}

#[rstest]
#[tokio::test]
async fn totals_count_from_the_first_reading_with_the_tracking_baseline(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let s = setup(backend).await;
    let (app, key, window) = (&s.app, &s.key, &s.window);
    // The spec's rule first, then tracking: the kept answers are keyed by
    // the baseline, so the second is not the first's.
    let data = ok(app, &format!("{TOTALS}?{window}"), key).await;
    assert_eq!(data["baseline"], "window");
    assert_eq!(data["total"]["views"], 2_500);
    let data = ok(app, &format!("{TOTALS}?{window}&baseline=window"), key).await;
    assert_eq!(data["total"]["views"], 2_500);
    let data = ok(app, &format!("{TOTALS}?{window}&baseline=tracking"), key).await;
    assert_eq!(data["baseline"], "tracking");
    assert_eq!(
        data["total"],
        json!({"views": 1_500, "likes": 150, "comments": 15, "reposts": 0, "saves": 0})
    );
    // Kept side by side: window again is window.
    let data = ok(app, &format!("{TOTALS}?{window}"), key).await;
    assert_eq!(data["total"]["views"], 2_500);

    // With tracking, the totals are the sum of the increments; the
    // increments are the same under both rules.
    let incs = ok(
        app,
        &format!("{INCREMENTS}?{window}&baseline=tracking"),
        key,
    )
    .await;
    assert_eq!(incs["baseline"], "tracking");
    assert_eq!(summed_increments(&incs), 1_500);
    let plain = ok(app, &format!("{INCREMENTS}?{window}"), key).await;
    assert_eq!(plain["baseline"], "window");
    assert_eq!(plain["data"], incs["data"]);
    let days: Vec<(String, i64)> = incs["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|day| {
            (
                day["date"].as_str().unwrap().to_owned(),
                day["groups"]["total"]["views"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        days,
        [
            (d(app, 1), 400),
            (d(app, 4), 200),
            (d(app, 5), 600),
            (d(app, 6), 300)
        ]
    );

    // A video with a close before `from` counts the same under both.
    for baseline in ["window", "tracking"] {
        let data = ok(
            app,
            &format!("{TOTALS}?{window}&platform=youtube&baseline={baseline}"),
            key,
        )
        .await;
        assert_eq!(data["total"]["views"], 1_000, "{baseline}");
    }
    // `from` on N's first day: the same under both too (its first reading).
    for baseline in ["window", "tracking"] {
        let path = format!(
            "{TOTALS}?from={}&to={}&platform=tiktok&baseline={baseline}",
            d(app, 4),
            d(app, 9)
        );
        assert_eq!(
            ok(app, &path, key).await["total"]["views"],
            500,
            "{baseline}"
        );
    }

    // Grouped, through the rollup and through each video (a publish filter
    // keeps the query off the rollup): the same answers.
    let published = format!("published_at.from={}", d(app, -30));
    for filter in ["", published.as_str()] {
        for (group_by, window_groups, tracking_groups) in [
            (
                "platform",
                vec![g("tiktok", 1_500), g("youtube", 1_000)],
                vec![g("youtube", 1_000), g("tiktok", 500)],
            ),
            (
                "campaign",
                vec![g("Launch", 1_500), g("", 1_000)],
                vec![g("", 1_000), g("Launch", 500)],
            ),
            (
                "blogger_username",
                vec![g("nova", 1_500), g("olga", 1_000)],
                vec![g("olga", 1_000), g("nova", 500)],
            ),
            (
                "platform_blogger",
                vec![g("tiktok:nova", 1_500), g("youtube:olga", 1_000)],
                vec![g("youtube:olga", 1_000), g("tiktok:nova", 500)],
            ),
        ] {
            let path = format!("{TOTALS}?{window}&group_by={group_by}&{filter}");
            let data = ok(app, &path, key).await;
            assert_eq!(groups(&data), window_groups, "{path}");
            assert_eq!(data["total"]["views"], 2_500, "{path}");
            let path = format!("{path}&baseline=tracking");
            let data = ok(app, &path, key).await;
            assert_eq!(groups(&data), tracking_groups, "{path}");
            assert_eq!(data["total"]["views"], 1_500, "{path}");
            let incs = ok(
                app,
                &format!("{INCREMENTS}?{window}&group_by={group_by}&{filter}&baseline=tracking"),
                key,
            )
            .await;
            assert_eq!(summed_increments(&incs), 1_500, "{path}");
        }
        // One campaign, one creator.
        let path = format!("{TOTALS}?{window}&campaign=Launch&baseline=tracking&{filter}");
        assert_eq!(ok(app, &path, key).await["total"]["views"], 500, "{path}");
        let path = format!("{TOTALS}?{window}&blogger=NOVA&baseline=tracking&{filter}");
        assert_eq!(ok(app, &path, key).await["total"]["views"], 500, "{path}");
    }

    // The comparison measures the previous period (D−10..D−1) by the same
    // rule: N has nothing then; O, first read on D−2 with 10,000 views and
    // not again before D, gained 10,000 by the window rule, 0 by tracking.
    for (baseline, total, previous) in [("window", 2_500, 10_000), ("tracking", 1_500, 0)] {
        let data = ok(
            app,
            &format!("{TOTALS}?{window}&baseline={baseline}&compare=previous_period"),
            key,
        )
        .await;
        assert_eq!(data["total"]["views"], total, "{baseline}");
        assert_eq!(data["previous"]["views"], previous, "{baseline}");
    }
}

#[rstest]
#[tokio::test]
async fn leaderboards_rank_by_the_tracking_gain(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let s = setup(backend).await;
    let (app, key, window) = (&s.app, &s.key, &s.window);
    let data = ok(app, &format!("{TOP}?{window}"), key).await;
    assert_eq!(data["baseline"], "window");
    assert_eq!(places(&data), [g(N, 1_500), g(O, 1_000)]);
    let data = ok(app, &format!("{TOP}?{window}&baseline=tracking"), key).await;
    assert_eq!(data["baseline"], "tracking");
    assert_eq!(places(&data), [g(O, 1_000), g(N, 500)]);
    assert_eq!(data["items"][1]["likes"], 50);
    // Kept side by side.
    let data = ok(app, &format!("{TOP}?{window}"), key).await;
    assert_eq!(places(&data), [g(N, 1_500), g(O, 1_000)]);
    // Compared with the previous period by the same rule.
    let data = ok(
        app,
        &format!("{TOP}?{window}&baseline=tracking&compare=previous_period"),
        key,
    )
    .await;
    assert_eq!(places(&data), [g(O, 1_000), g(N, 500)]);
    assert_eq!(data["items"][1]["previous"]["views"], 0);
    // Groups.
    for (by, window_places, tracking_places) in [
        (
            "campaign",
            [g("Launch", 1_500), g("", 1_000)],
            [g("", 1_000), g("Launch", 500)],
        ),
        (
            "blogger",
            [g("nova", 1_500), g("olga", 1_000)],
            [g("olga", 1_000), g("nova", 500)],
        ),
    ] {
        let path = format!("{TOP}?{window}&by={by}");
        assert_eq!(places(&ok(app, &path, key).await), window_places, "{path}");
        let path = format!("{path}&baseline=tracking");
        assert_eq!(
            places(&ok(app, &path, key).await),
            tracking_places,
            "{path}"
        );
    }

    // The dashboard's leaderboard and statistics: the same rules.
    let top = s
        .dashboard(&format!("/dashboard/top?{window}&baseline=tracking"))
        .await;
    assert_eq!(places(&top), [g(O, 1_000), g(N, 500)]);
    let top = s.dashboard(&format!("/dashboard/top?{window}")).await;
    assert_eq!(places(&top), [g(N, 1_500), g(O, 1_000)]);
    let stats = s.dashboard(&format!("/dashboard/stats?{window}")).await;
    assert_eq!(
        (stats["baseline"].clone(), stats["total"]["views"].clone()),
        (json!("window"), json!(2_500))
    );
    let stats = s
        .dashboard(&format!(
            "/dashboard/stats?{window}&baseline=tracking&group_by=campaign"
        ))
        .await;
    assert_eq!(stats["baseline"], "tracking");
    assert_eq!(stats["total"]["views"], 1_500);
    // The headline equals the chart under it.
    let days: i64 = stats["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["views"].as_i64().unwrap())
        .sum();
    assert_eq!(days, 1_500);
    assert_eq!(groups(&stats), [g("", 1_000), g("Launch", 500)]);
}

#[rstest]
#[tokio::test]
async fn the_listing_and_its_export_measure_gains_from_the_baseline(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let s = setup(backend).await;
    let (app, key, window) = (&s.app, &s.key, &s.window);
    let gained = |data: &Value| -> Vec<(String, i64)> {
        data["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["external_video_id"].as_str().unwrap().to_owned(),
                    v["gained"]["views"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    let path = format!("/v1/videos/stats?{window}&sort=views_gained");
    let a = app.get(&path, Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(gained(&a.body["data"]), [g(N, 1_500), g(O, 1_000)]);
    assert_eq!(
        a.body["data"]["window"],
        json!({"from": d(app, 0), "to": d(app, 9), "baseline": "window"})
    );
    let a = app
        .get(&format!("{path}&baseline=tracking"), Some(key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(gained(&a.body["data"]), [g(O, 1_000), g(N, 500)]);
    assert_eq!(a.body["data"]["window"]["baseline"], "tracking");
    assert_eq!(a.body["data"]["data"][1]["gained"]["likes"], 50);
    // Without a gained sort, `from`/`to` still bring the gains.
    let a = app
        .get(
            &format!("/v1/videos/stats?{window}&baseline=tracking&platform=tiktok"),
            Some(key),
        )
        .await;
    assert_eq!(gained(&a.body["data"]), [g(N, 500)]);
    // `baseline` alone does not make the answer carry gains.
    let a = app
        .get("/v1/videos/stats?baseline=tracking", Some(key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert!(a.body["data"].get("window").is_none(), "{}", a.body);
    // The dashboard's listing is the same.
    let data = s
        .dashboard(&format!(
            "/dashboard/videos?{window}&sort=views_gained&baseline=tracking"
        ))
        .await;
    assert_eq!(gained(&data), [g(O, 1_000), g(N, 500)]);

    // The export: the gain columns by the same rule.
    for (baseline, n, o) in [("window", "1500", "1000"), ("tracking", "500", "1000")] {
        let response = app
            .client
            .get(app.url(&format!(
                "/v1/videos/export?{window}&sort=views_gained&baseline={baseline}"
            )))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let text = response.text().await.unwrap();
        let mut rows = text.lines();
        let header: Vec<&str> = rows.next().unwrap().split(',').collect();
        let id = header
            .iter()
            .position(|c| *c == "external_video_id")
            .unwrap();
        let views = header.iter().position(|c| *c == "views_gained").unwrap();
        let got: Vec<(String, String)> = rows
            .map(|r| {
                let cells: Vec<&str> = r.split(',').collect();
                (cells[id].to_owned(), cells[views].to_owned())
            })
            .collect();
        let want = if baseline == "window" {
            vec![(N.to_owned(), n.to_owned()), (O.to_owned(), o.to_owned())]
        } else {
            vec![(O.to_owned(), o.to_owned()), (N.to_owned(), n.to_owned())]
        };
        assert_eq!(got, want, "{baseline}: {text}");
    }
}

#[rstest]
#[tokio::test]
async fn a_baseline_that_is_neither_window_nor_tracking_is_refused(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let s = setup(backend).await;
    let (app, key) = (&s.app, &s.key);
    for bad in ["Tracking", "since", "0", "window,tracking"] {
        for path in [TOTALS, INCREMENTS, TOP] {
            let a = app.get(&format!("{path}?baseline={bad}"), Some(key)).await;
            assert_nested_error(&a, 400, "VALIDATION_ERROR");
            assert_eq!(a.body["error"]["field"], "baseline", "{path}: {}", a.body);
        }
        for path in ["/dashboard/stats", "/dashboard/top"] {
            let a = call(
                app,
                Method::GET,
                &format!("{path}?baseline={bad}"),
                &s.admin,
                Some(&s.org),
                None,
            )
            .await;
            assert_nested_error(&a, 400, "VALIDATION_ERROR");
            assert_eq!(a.body["error"]["field"], "baseline", "{path}: {}", a.body);
        }
        for path in ["/v1/videos/stats", "/v1/videos/export"] {
            let a = app.get(&format!("{path}?baseline={bad}"), Some(key)).await;
            assert_flat_error(&a, 400, "INVALID_PARAMETER");
            assert_eq!(
                a.body["details"]["parameter"], "baseline",
                "{path}: {}",
                a.body
            );
        }
        let a = call(
            app,
            Method::GET,
            &format!("/dashboard/videos?baseline={bad}"),
            &s.admin,
            Some(&s.org),
            None,
        )
        .await;
        assert_eq!(a.status.as_u16(), 400, "{}", a.body);
    }
    assert_eq!(
        credits(app, key).await,
        0,
        "a refused request costs nothing"
    );
    // Empty is the default.
    let data = ok(app, &format!("{TOTALS}?baseline="), key).await;
    assert_eq!(data["baseline"], "window");
}
