//! The campaign report (`GET /v1/campaigns/{id}/report` and the
//! dashboard's): imported readings whose gains and costs are worked out by
//! hand below, the money rules, both baselines, the default window, CSV,
//! and every refusal.
//!
//! Day `D` is twelve days before the test's today. Likes are views/10,
//! comments views/100, reposts views/50 (unknown on YouTube), saves unknown.
//! The campaign "Launch" (budget 1000 EUR, target 50,000 views) holds:
//!
//! | video | platform, author | readings (views) | cost |
//! |---|---|---|---|
//! | V1 | TikTok "Mira" | D 06:00 1,000; D 18:00 1,400; D+2 3,000; D+5 6,000 | budget 500 |
//! | V2 | YouTube "mira" | D+1 10,000; D+4 15,000; D+8 20,000 | ecpm 20 |
//! | V3 | TikTok "Ana" | D+3 200; D+6 800 | none |
//! | V4 | TikTok "MIRA" | D+4 08:00 2,000; D+4 20:00 2,600; D+7 5,000 | ecpm 10 |
//!
//! A fifth video, V5 (TikTok "Mira", budget 9,999), is in another campaign.
//!
//! Over D+2..D+6, `baseline=window`: V1 gains 6,000 − 1,400 = 4,600; V2
//! 15,000 − 10,000 = 5,000; V3 (tracked after `from`) 800 − 0; V4 2,600 − 0.
//! With `baseline=tracking` V3 gains 800 − 200 = 600 and V4 2,600 − 2,000 =
//! 600. Views since tracking (to D+6): V1 5,000, V2 5,000, V3 600, V4 600,
//! so the costs are 500, 20 × 5 = 100, unknown, 10 × 0.6 = 6: spend 606.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_domain::analytics::{Baseline, DateRange, Metrics};
use vidpulse_domain::{Clock, Counters, OrgId, Plan, Platform};
use vidpulse_store::{Backend, ImportRow};

use crate::analytics::credits;
use crate::dashboard::{call, member, register, team};
use crate::helpers::{TestApp, assert_nested_error};

const V1: &str = "7000000000000000101";
const V2: &str = "yt000000102";
const V3: &str = "7000000000000000103";
const V4: &str = "7000000000000000104";
const V5: &str = "7000000000000000105";

/// Day `D + n`.
pub(crate) fn d(app: &TestApp, n: i64) -> NaiveDate {
    app.clock.now().date_naive() - Duration::days(12) + Duration::days(n)
}

fn at(app: &TestApp, n: i64, hour: u32) -> DateTime<Utc> {
    d(app, n).and_hms_opt(hour, 0, 0).unwrap().and_utc()
}

fn row(
    app: &TestApp,
    platform: Platform,
    id: &str,
    who: &str,
    (day, hour): (i64, u32),
    views: i64,
) -> ImportRow {
    ImportRow {
        platform,
        external_id: id.into(),
        captured_at: at(app, day, hour),
        counters: Counters {
            views: Some(views),
            likes: Some(views / 10),
            comments: Some(views / 100),
            reposts: (platform != Platform::YouTube).then_some(views / 50),
            saves: None,
        },
        url: None,
        channel_username: Some(who.into()),
        title: None,
        published_at: None,
    }
}

/// Imports the five videos into `org` and attaches them to their campaigns
/// with their costs (the video PATCH).
pub(crate) async fn with_videos(app: &TestApp, org: Uuid, key: &str) {
    let tt = Platform::TikTok;
    let rows = vec![
        row(app, tt, V1, "Mira", (0, 6), 1_000),
        row(app, tt, V1, "Mira", (0, 18), 1_400),
        row(app, tt, V1, "Mira", (2, 12), 3_000),
        row(app, tt, V1, "Mira", (5, 12), 6_000),
        row(app, Platform::YouTube, V2, "mira", (1, 12), 10_000),
        row(app, Platform::YouTube, V2, "mira", (4, 12), 15_000),
        row(app, Platform::YouTube, V2, "mira", (8, 12), 20_000),
        row(app, tt, V3, "Ana", (3, 9), 200),
        row(app, tt, V3, "Ana", (6, 9), 800),
        row(app, tt, V4, "MIRA", (4, 8), 2_000),
        row(app, tt, V4, "MIRA", (4, 20), 2_600),
        row(app, tt, V4, "MIRA", (7, 10), 5_000),
        row(app, tt, V5, "Mira", (3, 10), 70_000),
        row(app, tt, V5, "Mira", (4, 10), 90_000),
    ];
    app.store
        .import_observations(OrgId(org), &rows, Duration::days(30), app.clock.now())
        .await
        .unwrap();
    for (id, body) in [
        (V1, json!({"campaign": "Launch", "budget": 500})),
        (V2, json!({"campaign": "launch", "ecpm": 20})),
        (V3, json!({"campaign": "Launch"})),
        (V4, json!({"campaign": "LAUNCH", "ecpm": 10})),
        (V5, json!({"campaign": "Other", "budget": 9999})),
    ] {
        let a = app
            .patch(&format!("/v1/videos/by-external-id/{id}"), key, &body)
            .await;
        assert_eq!(a.status.as_u16(), 200, "{id}: {}", a.body);
    }
}

/// Creates the campaign "Launch" with `body`'s fields (the name attached by
/// the PATCH above already made it: it is updated instead) and answers its id.
pub(crate) async fn launch(app: &TestApp, key: &str, body: Value) -> String {
    let a = app.get("/v1/campaigns?q=launch", Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let id = a.body["data"][0]["id"].as_str().unwrap().to_owned();
    let a = app.patch(&format!("/v1/campaigns/{id}"), key, &body).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    id
}

pub(crate) fn launch_fields(app: &TestApp) -> Value {
    json!({
        "budget": 1000, "currency": "EUR", "target_views": 50_000,
        "starts_on": d(app, 2).to_string(), "ends_on": d(app, 6).to_string(),
    })
}

async fn report(app: &TestApp, key: &str, path: &str) -> Value {
    let a = app.get(path, Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{path}: {}", a.body);
    assert_eq!(a.body["success"], true);
    assert_eq!(a.body["meta"]["credits_used"], 1);
    a.body["data"].clone()
}

/// `(platform, blogger_username, videos, views, spend, cpm)` of each creator.
fn creators(data: &Value) -> Vec<Value> {
    data["creators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            json!([
                c["platform"],
                c["blogger_username"],
                c["videos"],
                c["views"],
                c["spend"],
                c["cpm"]
            ])
        })
        .collect()
}

/// A video's figures: author, budget, ecpm, gain, views since tracking.
type Figures = (
    Option<String>,
    Option<i64>,
    Option<f64>,
    Option<Metrics>,
    i64,
);

#[rstest]
#[tokio::test]
async fn the_store_reads_each_videos_gain_and_views_since_tracking(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    with_videos(&app, org, &key).await;
    let window = DateRange {
        from: d(&app, 2),
        to: d(&app, 6),
    };
    let figures = |baseline| {
        let store = app.store.clone();
        async move {
            let mut rows: Vec<Figures> = store
                .campaign_video_figures(OrgId(org), "Launch", window, baseline)
                .await
                .unwrap()
                .into_iter()
                .map(|v| {
                    (
                        v.author_username,
                        v.budget,
                        v.ecpm,
                        v.gained,
                        v.views_since_tracking,
                    )
                })
                .collect();
            rows.sort_by(|a, b| a.0.cmp(&b.0));
            rows
        }
    };
    let m = |views: i64, reposts: i64| Metrics {
        views,
        likes: views / 10,
        comments: views / 100,
        reposts,
        saves: 0,
    };
    assert_eq!(
        figures(Baseline::Window).await,
        vec![
            (Some("Ana".into()), None, None, Some(m(800, 16)), 600),
            (
                Some("MIRA".into()),
                None,
                Some(10.0),
                Some(m(2_600, 52)),
                600
            ),
            (
                Some("Mira".into()),
                Some(500),
                None,
                Some(m(4_600, 92)),
                5_000
            ),
            (
                Some("mira".into()),
                None,
                Some(20.0),
                Some(m(5_000, 0)),
                5_000
            ),
        ]
    );
    let tracking = figures(Baseline::Tracking).await;
    assert_eq!(tracking[0].3, Some(m(600, 12)));
    assert_eq!(tracking[1].3, Some(m(600, 12)));
    assert_eq!(tracking[2].3, Some(m(4_600, 92)));
    // A window before any reading: no gain, nothing since tracking.
    let early = DateRange {
        from: d(&app, -5),
        to: d(&app, -1),
    };
    for v in app
        .store
        .campaign_video_figures(OrgId(org), "Launch", early, Baseline::Window)
        .await
        .unwrap()
    {
        assert_eq!((v.gained, v.views_since_tracking), (None, 0));
    }
    // Another organization's name, or another case of it: nothing.
    let (other, _) = app.org_with_key(Plan::Pro).await;
    for (org, name) in [(other, "Launch"), (org, "LAUNCH")] {
        assert!(
            app.store
                .campaign_video_figures(OrgId(org), name, window, Baseline::Window)
                .await
                .unwrap()
                .is_empty()
        );
    }
}

#[rstest]
#[tokio::test]
async fn a_report_follows_the_money_rules(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    with_videos(&app, org, &key).await;
    let id = launch(&app, &key, launch_fields(&app)).await;
    let path = format!("/v1/campaigns/{id}/report");
    let window = format!("from={}&to={}", d(&app, 2), d(&app, 6));

    let data = report(&app, &key, &format!("{path}?{window}")).await;
    assert_eq!(data["campaign"]["id"], id.as_str());
    assert_eq!(data["campaign"]["name"], "Launch");
    assert_eq!(data["campaign"]["videos"], 4);
    assert_eq!(data["from"], d(&app, 2).to_string());
    assert_eq!(data["to"], d(&app, 6).to_string());
    assert_eq!(data["baseline"], "window");
    assert_eq!(
        data["total"],
        json!({"views": 13_000, "likes": 1_300, "comments": 130, "reposts": 160, "saves": 0})
    );
    assert_eq!(data["spend"], 606.0);
    assert_eq!(data["currency"], "EUR");
    assert_eq!(data["budget_left"], 394.0);
    // 606 / 13,000 × 1000; 606 / 1,590; 1,590 / 13,000; 13,000 / 50,000.
    assert_eq!(data["cpm"], 46.6154);
    assert_eq!(data["cpe"], 0.3811);
    assert_eq!(data["engagement_rate"], 0.1223);
    assert_eq!(data["target_progress"], 0.26);
    assert_eq!(data["videos"], 4);
    assert_eq!(data["videos_without_cost"], 1);
    // Creators by platform and handle in any case, most views first; the
    // first spelling in byte order; TikTok Mira: 506 / 7,200 × 1000.
    assert_eq!(
        creators(&data),
        vec![
            json!(["tiktok", "MIRA", 2, 7_200, 506.0, 70.2778]),
            json!(["youtube", "mira", 1, 5_000, 100.0, 20.0]),
            json!(["tiktok", "Ana", 1, 800, 0.0, 0.0]),
        ]
    );
    assert_eq!(data["creators"][2]["videos_without_cost"], 1);
    assert_eq!(data["creators"][0]["likes"], 720);

    // From the first reading the organization saw: only V3 and V4 change;
    // costs do not depend on the baseline.
    let data = report(&app, &key, &format!("{path}?{window}&baseline=tracking")).await;
    assert_eq!(data["baseline"], "tracking");
    assert_eq!(
        data["total"],
        json!({"views": 10_800, "likes": 1_080, "comments": 108, "reposts": 116, "saves": 0})
    );
    assert_eq!(data["spend"], 606.0);
    assert_eq!(data["cpm"], 56.1111);
    assert_eq!(data["cpe"], 0.4647);
    assert_eq!(data["engagement_rate"], 0.1207);
    assert_eq!(data["target_progress"], 0.216);
    assert_eq!(
        creators(&data),
        vec![
            json!(["tiktok", "MIRA", 2, 5_200, 506.0, 97.3077]),
            json!(["youtube", "mira", 1, 5_000, 100.0, 20.0]),
            json!(["tiktok", "Ana", 1, 600, 0.0, 0.0]),
        ]
    );

    // Without from and to: the campaign's dates.
    let data = report(&app, &key, &path).await;
    assert_eq!(
        (data["from"].clone(), data["to"].clone()),
        (json!(d(&app, 2).to_string()), json!(d(&app, 6).to_string()))
    );
    assert_eq!(data["total"]["views"], 13_000);
    // A campaign still running ends today; one without dates takes the
    // analytics window (the last 30 days); `to` alone keeps its start.
    let today = app.clock.now().date_naive();
    launch(
        &app,
        &key,
        json!({"ends_on": (today + Duration::days(10)).to_string()}),
    )
    .await;
    let data = report(&app, &key, &path).await;
    assert_eq!(data["to"], today.to_string());
    assert_eq!(data["from"], d(&app, 2).to_string());
    let data = report(&app, &key, &format!("{path}?to={}", d(&app, 4))).await;
    assert_eq!(
        (data["from"].clone(), data["to"].clone()),
        (json!(d(&app, 2).to_string()), json!(d(&app, 4).to_string()))
    );
    launch(&app, &key, json!({"starts_on": null, "ends_on": null})).await;
    let data = report(&app, &key, &path).await;
    assert_eq!(data["from"], (today - Duration::days(29)).to_string());
    assert_eq!(data["to"], today.to_string());
    // Every video was tracked inside that window: each counts from 0
    // (`window`), or from its first reading (`tracking`): the views of
    // D+8 and D+7 count, to today.
    assert_eq!(data["total"]["views"], 6_000 + 20_000 + 800 + 5_000);
    let data = report(&app, &key, &format!("{path}?baseline=tracking")).await;
    assert_eq!(data["total"]["views"], 5_000 + 10_000 + 600 + 3_000);
    // V2 costs 20 × 10 now, V4 10 × 3.
    assert_eq!(data["spend"], 500.0 + 200.0 + 30.0);

    // Without a budget or a target: null; no views in the window: no CPM.
    launch(&app, &key, json!({"budget": null, "target_views": null})).await;
    let early = format!("from={}&to={}", d(&app, -9), d(&app, -2));
    let data = report(&app, &key, &format!("{path}?{early}")).await;
    assert_eq!(data["total"]["views"], 0);
    assert_eq!(data["spend"], 500.0);
    for field in [
        "budget_left",
        "cpm",
        "cpe",
        "engagement_rate",
        "target_progress",
    ] {
        assert_eq!(data[field], Value::Null, "{field}");
    }
}

#[rstest]
#[tokio::test]
async fn a_report_as_csv_has_a_row_per_creator_and_the_total(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    with_videos(&app, org, &key).await;
    let id = launch(&app, &key, launch_fields(&app)).await;
    let (from, to) = (d(&app, 2), d(&app, 6));
    for ask in [
        app.client
            .get(app.url(&format!("/v1/campaigns/{id}/report?format=csv")))
            .bearer_auth(&key),
        app.client
            .get(app.url(&format!("/v1/campaigns/{id}/report")))
            .header("Accept", "text/csv")
            .bearer_auth(&key),
    ] {
        let response = ask.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(
            response.headers()["content-type"],
            "text/csv; charset=utf-8"
        );
        assert_eq!(
            response.headers()["content-disposition"],
            "attachment; filename=\"campaign-report.csv\""
        );
        let text = response.text().await.unwrap();
        let lead = format!("{id},Launch,EUR,{from},{to},window");
        assert_eq!(
            text.split("\r\n").collect::<Vec<_>>(),
            vec![
                "row,campaign_id,campaign,currency,from,to,baseline,platform,blogger_username,\
                 videos,videos_without_cost,views,likes,comments,reposts,saves,spend,cpm,cpe,\
                 engagement_rate,budget,budget_left,target_views,target_progress",
                &format!(
                    "creator,{lead},tiktok,MIRA,2,0,7200,720,72,144,0,506,70.2778,0.5406,0.13,,,,"
                ),
                &format!("creator,{lead},youtube,mira,1,0,5000,500,50,0,0,100,20,0.1818,0.11,,,,"),
                &format!("creator,{lead},tiktok,Ana,1,1,800,80,8,16,0,0,0,0,0.13,,,,"),
                &format!(
                    "total,{lead},,,4,1,13000,1300,130,160,0,606,46.6154,0.3811,0.1223,1000,394,50000,0.26"
                ),
                "",
            ]
        );
    }
    assert_eq!(credits(&app, &key).await, 2);

    // A campaign name a spreadsheet would run (`-…`) is written as text.
    launch(&app, &key, json!({"name": "-Launch"})).await;
    let a = app
        .get(&format!("/v1/campaigns/{id}/report?format=csv"), Some(&key))
        .await;
    let text = a.body.as_str().unwrap();
    assert!(
        text.contains(&format!("total,{id},'-Launch,EUR,")),
        "{text}"
    );
}

#[rstest]
#[tokio::test]
async fn a_report_refuses_mistakes_other_organizations_and_free_plans_and_charges_only_answers(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    with_videos(&app, org, &key).await;
    let id = launch(&app, &key, launch_fields(&app)).await;
    let path = format!("/v1/campaigns/{id}/report");
    let today = app.clock.now().date_naive();

    for (query, field) in [
        ("from=2026-03-02&to=2026-03-01".to_owned(), "from"),
        ("from=2025-01-01&to=2026-01-02".to_owned(), "from"),
        (format!("from={}", today + Duration::days(30)), "from"),
        ("from=yesterday".to_owned(), "from"),
        ("to=2026-02-30".to_owned(), "to"),
        ("baseline=first".to_owned(), "baseline"),
        ("baseline=Window".to_owned(), "baseline"),
        ("format=xml".to_owned(), "format"),
        ("group_by=platform".to_owned(), "group_by"),
        ("campaign=Launch".to_owned(), "campaign"),
    ] {
        let a = app.get(&format!("{path}?{query}"), Some(&key)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}: {}", a.body);
    }
    // Unknown, malformed, or another organization's campaign: 404.
    let (_, other_key) = app.org_with_key(Plan::Business).await;
    for (path, key) in [
        (format!("/v1/campaigns/{}/report", Uuid::new_v4()), &key),
        ("/v1/campaigns/nope/report".to_owned(), &key),
        (path.clone(), &other_key),
    ] {
        assert_nested_error(&app.get(&path, Some(key)).await, 404, "NOT_FOUND");
    }
    // No key, a wrong key: 401.
    assert_nested_error(&app.get(&path, None).await, 401, "MISSING_AUTH");
    assert_nested_error(
        &app.get(&path, Some("vp_live_nope")).await,
        401,
        "INVALID_API_KEY",
    );
    assert_eq!(credits(&app, &key).await, 0);
    assert_eq!(credits(&app, &other_key).await, 0);

    // One credit an answer.
    report(&app, &key, &path).await;
    report(&app, &key, &format!("{path}?baseline=tracking&format=json")).await;
    assert_eq!(credits(&app, &key).await, 2);

    // Free plan: 402 with where to upgrade, nothing charged.
    let (free_org, free) = app.org_with_key(Plan::Free).await;
    let free_campaign = app
        .store
        .create_campaign(
            OrgId(free_org),
            vidpulse_store::NewCampaign {
                name: vidpulse_domain::names::Campaign::parse("Free")
                    .unwrap()
                    .unwrap(),
                client: None,
                starts_on: None,
                ends_on: None,
                budget: None,
                currency: None,
                target_views: None,
                notes: None,
            },
            app.clock.now(),
        )
        .await
        .unwrap()
        .unwrap()
        .id
        .0;
    let a = app
        .get(
            &format!("/v1/campaigns/{free_campaign}/report"),
            Some(&free),
        )
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    assert!(a.body["error"]["upgrade_url"].is_string(), "{}", a.body);
    assert_eq!(credits(&app, &free).await, 0);
}

#[rstest]
#[tokio::test]
async fn the_dashboard_report_answers_the_same_for_members_without_credits(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    with_videos(&app, t.org.parse().unwrap(), &t.key).await;
    let id = launch(&app, &t.key, launch_fields(&app)).await;
    let window = format!("from={}&to={}", d(&app, 2), d(&app, 6));
    let public = report(&app, &t.key, &format!("/v1/campaigns/{id}/report?{window}")).await;
    let path = format!("/dashboard/campaigns/{id}/report?{window}");

    // A viewer reads it; the same data, no credits.
    let a = call(&app, Method::GET, &path, &t.viewer, Some(&t.org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let mut data = a.body["data"].clone();
    let mut expected = public.clone();
    // The campaign's counts and dates are the same; only the request differs.
    data["campaign"]["updated_at"] = Value::Null;
    expected["campaign"]["updated_at"] = Value::Null;
    assert_eq!(data, expected);
    assert!(a.body["meta"]["credits_used"].is_null(), "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        &format!("{path}&format=csv&baseline=tracking"),
        &t.editor,
        Some(&t.org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200);
    assert!(
        a.body
            .as_str()
            .unwrap()
            .starts_with("row,campaign_id,campaign"),
        "{}",
        a.body
    );
    assert_eq!(credits(&app, &t.key).await, 1);

    // Mistakes, unknown ids.
    let a = call(
        &app,
        Method::GET,
        &format!("/dashboard/campaigns/{id}/report?baseline=nope"),
        &t.viewer,
        Some(&t.org),
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "baseline");
    for bad in [Uuid::new_v4().to_string(), "nope".to_owned()] {
        let a = call(
            &app,
            Method::GET,
            &format!("/dashboard/campaigns/{bad}/report"),
            &t.viewer,
            Some(&t.org),
            None,
        )
        .await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }

    // Another organization's member: its own organization has no such
    // campaign (404), and it cannot name this one (404).
    let (outsider, _) = member(&app, "out@example.com").await;
    let other = register(&app, &outsider, &json!({"name": "Other"})).await;
    let other_org = other.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = call(&app, Method::GET, &path, &outsider, Some(&t.org), None).await;
    assert_eq!(a.status.as_u16(), 404, "{}", a.body);
    // Its organization is on the free plan: 402 before anything else.
    let a = call(&app, Method::GET, &path, &outsider, Some(&other_org), None).await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
}
