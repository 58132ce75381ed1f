//! Dashboard statistics: one video's history, the organization's totals and
//! the top videos of a day.

use chrono::Duration;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::Clock;
use vidpulse_store::Backend;

use super::{call, member, register};
use crate::helpers::{TestApp, assert_nested_error};

fn import_row(
    platform: vidpulse_domain::Platform,
    id: &str,
    who: &str,
    at: chrono::DateTime<chrono::Utc>,
    views: i64,
) -> vidpulse_store::ImportRow {
    vidpulse_store::ImportRow {
        platform,
        external_id: id.into(),
        captured_at: at,
        counters: vidpulse_domain::Counters {
            views: Some(views),
            likes: Some(views / 10),
            comments: Some(1),
            reposts: None,
            saves: None,
        },
        url: None,
        channel_username: Some(who.into()),
        title: None,
        published_at: None,
    }
}

#[rstest]
#[tokio::test]
async fn dashboard_analytics_video_history_totals_and_top_videos_of_a_day(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use chrono::TimeZone;
    use reqwest::Method;
    use vidpulse_domain::Platform;
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let (outsider, _) = member(&app, "out@example.com").await;
    let a = register(&app, &admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    let other = register(&app, &outsider, &json!({"name": "Other"})).await;
    let other_org = other.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let at = |d: u32, h: u32| chrono::Utc.with_ymd_and_hms(2026, 10, d, h, 0, 0).unwrap();
    let rows = vec![
        import_row(
            Platform::TikTok,
            "7000000000000000001",
            "mira",
            at(1, 6),
            1000,
        ),
        import_row(
            Platform::TikTok,
            "7000000000000000001",
            "mira",
            at(1, 18),
            1500,
        ),
        import_row(
            Platform::TikTok,
            "7000000000000000001",
            "mira",
            at(2, 12),
            4000,
        ),
        import_row(
            Platform::TikTok,
            "7000000000000000001",
            "mira",
            at(3, 12),
            3000,
        ),
        import_row(Platform::YouTube, "yt000000001", "ana", at(2, 9), 500),
        import_row(Platform::YouTube, "yt000000001", "ana", at(3, 9), 9500),
    ];
    app.store
        .import_observations(org_id, &rows, Duration::days(30), at(20, 0))
        .await
        .unwrap();
    let tiktok = app
        .store
        .video(
            org_id,
            &vidpulse_store::VideoLookup::ExternalId("7000000000000000001".into()),
            app.clock.now(),
        )
        .await
        .unwrap()
        .unwrap()
        .video_id
        .0
        .to_string();

    // One video: every reading, and its daily increments (docs/api.md).
    let path = format!("/dashboard/videos/{tiktok}/stats");
    let a = call(&app, Method::GET, &path, &admin, Some(&org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["video_id"], tiktok.as_str());
    assert_eq!(a.body["data"]["stats"].as_array().unwrap().len(), 4);
    assert_eq!(a.body["data"]["stats"][0]["views"], 1000);
    assert_eq!(a.body["data"]["stats"][0]["reposts"], Value::Null);
    assert_eq!(
        a.body["data"]["daily_increments"],
        json!([
            {"date": "2026-10-01", "views_delta": 500, "likes_delta": 50},
            {"date": "2026-10-02", "views_delta": 2500, "likes_delta": 250},
            {"date": "2026-10-03", "views_delta": 0, "likes_delta": 0},
        ])
    );
    // Another organization, an unknown id, a malformed id: 404.
    let a = call(&app, Method::GET, &path, &outsider, Some(&other_org), None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    for bad in [uuid::Uuid::new_v4().to_string(), "nope".to_owned()] {
        let a = call(
            &app,
            Method::GET,
            &format!("/dashboard/videos/{bad}/stats"),
            &admin,
            Some(&org),
            None,
        )
        .await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }

    // The organization: totals and per-day series of the public rules.
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-01&to=2026-10-03",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    // TikTok: 3000 − 1000 (first on `from`); YouTube: 9500 (tracking began after `from`).
    assert_eq!(a.body["data"]["total"]["views"], 2000 + 9500);
    let days: Vec<i64> = a.body["data"]["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["views"].as_i64().unwrap())
        .collect();
    assert_eq!(days, [500, 2500, 9000]);
    assert_eq!(a.body["data"]["group_by_dimension"], "none");
    assert_eq!(a.body["data"]["groups"], json!([]));
    // Per creator on each platform: the public totals' groups, most views first.
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-01&to=2026-10-03&group_by=platform_blogger",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let groups: Vec<(&str, i64)> = a.body["data"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["group_key"].as_str().unwrap(),
                g["views"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(groups, [("youtube:ana", 9500), ("tiktok:mira", 2000)]);
    assert_eq!(a.body["data"]["total"]["views"], 2000 + 9500);
    // The comparison: 2026-09-28..30 before any reading, so nothing then.
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-01&to=2026-10-03&compare=previous_period&group_by=platform",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"]["previous_period"],
        json!({"from": "2026-09-28", "to": "2026-09-30"})
    );
    assert_eq!(a.body["data"]["previous"]["views"], 0);
    assert_eq!(a.body["data"]["change"]["views"], Value::Null);
    assert_eq!(a.body["data"]["groups"][0]["previous"]["views"], 0);
    // October 3 against October 2: TikTok 3000 − 4000 after 4000 − 1500.
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-03&to=2026-10-03&compare=previous_period&platform=tiktok",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        (
            a.body["data"]["total"]["views"].clone(),
            a.body["data"]["previous"]["views"].clone()
        ),
        (json!(-1000), json!(2500))
    );
    assert_eq!(a.body["data"]["change"]["views"], -1.4);

    // The leaderboard, free for members: the public answer.
    let a = call(
        &app,
        Method::GET,
        "/dashboard/top?from=2026-10-01&to=2026-10-03&compare=previous_period",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let items = a.body["data"]["items"].as_array().unwrap();
    let ranked: Vec<(&str, i64)> = items
        .iter()
        .map(|i| {
            (
                i["external_video_id"].as_str().unwrap(),
                i["views"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ranked,
        [("yt000000001", 9500), ("7000000000000000001", 2000)]
    );
    assert_eq!(items[1]["video_id"], tiktok.as_str());
    assert_eq!(items[0]["previous"]["views"], 0);
    assert!(a.body["meta"].get("credits_used").is_none(), "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/dashboard/top?from=2026-10-01&to=2026-10-03&by=blogger&metric=likes",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"]["items"][0]["key"], "ana", "{}", a.body);
    assert_eq!(a.body["data"]["items"][0]["likes"], 950);
    // Another organization sees none of it; a bad value or parameter is named.
    let a = call(
        &app,
        Method::GET,
        "/dashboard/top?from=2026-10-01&to=2026-10-03",
        &outsider,
        Some(&other_org),
        None,
    )
    .await;
    assert_eq!(a.body["data"]["items"], json!([]), "{}", a.body);
    for (query, field) in [
        ("by=everyone", "by"),
        ("limit=0", "limit"),
        ("sort=views", "sort"),
    ] {
        let a = call(
            &app,
            Method::GET,
            &format!("/dashboard/top?{query}"),
            &admin,
            Some(&org),
            None,
        )
        .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{}", a.body);
    }
    let a = call(
        &app,
        Method::GET,
        "/dashboard/top",
        &admin,
        Some(&other_org),
        None,
    )
    .await;
    // An organization the user is not a member of does not exist for them.
    assert_nested_error(&a, 404, "NOT_FOUND");
    let bad = call(
        &app,
        Method::GET,
        "/dashboard/stats?group_by=person",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&bad, 400, "VALIDATION_ERROR");
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-01&to=2026-10-03&platform=youtube",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"]["total"]["views"], 9500);
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-13-01",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "from");
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-01&to=2026-10-03",
        &outsider,
        Some(&other_org),
        None,
    )
    .await;
    assert_eq!(a.body["data"]["total"]["views"], 0);

    // Top videos of a day, by the chosen metric.
    let a = call(
        &app,
        Method::GET,
        "/analytics/videos/for_date?date=2026-10-03",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let top = a.body["data"].as_array().unwrap();
    assert_eq!(top.len(), 2);
    assert_eq!(top[0]["platform"], "youtube");
    assert_eq!(top[0]["views_increment"], 9000);
    assert_eq!(top[0]["blogger_channel_username"], "ana");
    assert_eq!(top[1]["views_increment"], 0, "a dip records 0");
    for key in [
        "video_id",
        "external_video_id",
        "thumbnail_url",
        "video_url",
        "campaign_tag",
        "likes_increment",
        "comments_increment",
        "reposts_increment",
        "saves_increment",
        "published_at",
        "created_at",
    ] {
        assert!(top[0].get(key).is_some(), "{key}");
    }
    let a = call(
        &app,
        Method::GET,
        "/analytics/videos/for_date?date=2026-10-02&limit=1&sort_by=likes",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(a.body["data"][0]["likes_increment"], 250);
    let a = call(
        &app,
        Method::GET,
        "/analytics/videos/for_date?date=2026-10-02",
        &outsider,
        Some(&other_org),
        None,
    )
    .await;
    assert_eq!(a.body["data"], json!([]));
    for (query, field) in [
        ("", "date"),
        ("?date=2026-10-32", "date"),
        ("?date=2026-10-02&sort_by=shares", "sort_by"),
        ("?date=2026-10-02&limit=0", "limit"),
        ("?date=2026-10-02&limit=1001", "limit"),
        ("?date=2026-10-02&limit=ten", "limit"),
        ("?date=2026-10-02&platform=vine", "platform"),
    ] {
        let a = call(
            &app,
            Method::GET,
            &format!("/analytics/videos/for_date{query}"),
            &admin,
            Some(&org),
            None,
        )
        .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}");
    }
}
