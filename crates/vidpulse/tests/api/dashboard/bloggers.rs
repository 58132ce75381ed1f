//! Bloggers on the dashboard: listed, paused and resumed, campaign and
//! budget, deleted with or without their videos, initial videos fetched again.

use chrono::Duration;
use rstest::rstest;
use serde_json::json;
use vidpulse_domain::Clock;
use vidpulse_store::Backend;

use super::{Team, call, member, register, team, track_creator};
use crate::helpers::{TestApp, assert_nested_error};

#[rstest]
#[tokio::test]
async fn bloggers_are_listed_paused_resumed_and_their_new_videos_take_campaign_and_budget(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
        ..
    } = team(&app).await;
    let (outsider, _) = member(&app, "out@example.com").await;
    track_creator(&app, &key, "ana_builds", 2).await;
    app.run_jobs_until_idle().await;

    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let list = a.body["data"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    let b = &list[0];
    assert_eq!(b["username"], "ana_builds");
    assert_eq!(b["platform"], "tiktok");
    assert_eq!(b["is_active"], true);
    assert_eq!(b["videos_tracked"], 2);
    assert!(b["number_of_subscribers"].is_i64());
    let tracking = b["tracking_id"].as_str().unwrap().to_owned();

    // Writes need an editor; another organization cannot see or touch it.
    let body = json!({"tracking_id": tracking, "campaign": "Summer launch"});
    let a = call(
        &app,
        Method::POST,
        "/blogger/set-campaign",
        &viewer,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let theirs = register(&app, &outsider, &json!({"name": "Other"})).await;
    let their_org = theirs.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = call(
        &app,
        Method::POST,
        "/blogger/set-campaign",
        &outsider,
        Some(&their_org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &outsider,
        Some(&their_org),
        None,
    )
    .await;
    assert_eq!(a.body["data"], json!([]));

    let a = call(
        &app,
        Method::POST,
        "/blogger/set-campaign",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let budget = json!({"tracking_id": tracking, "budget_per_video": 250});
    let a = call(
        &app,
        Method::POST,
        "/blogger/set-budget-per-video",
        &editor,
        Some(&org),
        Some(&budget),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    for (path, bad, field) in [
        (
            "/blogger/set-campaign",
            json!({"tracking_id": tracking}),
            "campaign",
        ),
        (
            "/blogger/set-campaign",
            json!({"tracking_id": tracking, "campaign": 5}),
            "campaign",
        ),
        (
            "/blogger/set-campaign",
            json!({"tracking_id": tracking, "campaign": "x".repeat(201)}),
            "campaign",
        ),
        (
            "/blogger/set-campaign",
            json!({"campaign": "A"}),
            "tracking_id",
        ),
        (
            "/blogger/set-budget-per-video",
            json!({"tracking_id": tracking, "budget_per_video": 0}),
            "budget_per_video",
        ),
        (
            "/blogger/set-budget-per-video",
            json!({"tracking_id": tracking, "budget_per_video": "9"}),
            "budget_per_video",
        ),
        (
            "/blogger/set-budget-per-video",
            json!({"tracking_id": tracking}),
            "budget_per_video",
        ),
        (
            "/blogger/toggle",
            json!({"tracking_id": tracking, "is_active": "no"}),
            "is_active",
        ),
        (
            "/blogger/toggle",
            json!({"tracking_id": "nope", "is_active": false}),
            "tracking_id",
        ),
    ] {
        let a = call(&app, Method::POST, path, &editor, Some(&org), Some(&bad)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{path} {bad}");
    }
    let unknown = json!({"tracking_id": uuid::Uuid::new_v4().to_string(), "is_active": false});
    let a = call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&unknown),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // New videos found by discovery take the campaign and the budget.
    for _ in 0..3 {
        app.advance(Duration::days(1));
        app.run_discovery_until_idle().await;
    }
    let videos = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    let items = videos.body["data"]["data"].as_array().unwrap().clone();
    assert!(items.len() > 2, "{}", videos.body);
    let tagged = items
        .iter()
        .filter(|v| v["campaign"] == "Summer launch")
        .count();
    assert_eq!(
        tagged,
        items.len() - 2,
        "only the videos tracked after the change"
    );
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"][0]["campaign"], "Summer launch", "{}", a.body);
    assert_eq!(a.body["data"][0]["budget_per_video"], 250);

    // Paused: discovery stops; resumed: it runs again.
    let pause = json!({"tracking_id": tracking, "is_active": false});
    let a = call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&pause),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"][0]["is_active"], false);
    app.advance(Duration::days(1));
    assert_eq!(app.run_discovery_until_idle().await, 0);
    let resume = json!({"tracking_id": tracking, "is_active": true});
    let a = call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&resume),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"][0]["is_active"], true);
}

#[rstest]
#[tokio::test]
async fn deleting_a_blogger_keeps_or_removes_its_videos_and_their_analytics(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
        ..
    } = team(&app).await;
    let (outsider, _) = member(&app, "out@example.com").await;
    for who in ["ana_builds", "mira.cooks"] {
        track_creator(&app, &key, who, 3).await;
    }
    app.run_jobs_until_idle().await;
    app.run_worker_until_idle().await;
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    let list = a.body["data"].as_array().unwrap().clone();
    assert_eq!(list.len(), 2);
    let (ana, mira) = (
        list[0]["tracking_id"].as_str().unwrap().to_owned(),
        list[1]["tracking_id"].as_str().unwrap().to_owned(),
    );
    let mira_views = list[1]["total_views"].as_i64().unwrap();
    let before = views_today(&app, &key).await;
    assert!(
        mira_views > 0 && before > mira_views,
        "{before} {mira_views}"
    );

    let body = json!({"tracking_id": mira});
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete-with-videos",
        &viewer,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let theirs = register(&app, &outsider, &json!({"name": "Other"})).await;
    let their_org = theirs.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete-with-videos",
        &outsider,
        Some(&their_org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete",
        &editor,
        Some(&org),
        Some(&json!({"tracking_id": 7})),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");

    let a = call(
        &app,
        Method::POST,
        "/blogger/delete-with-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["videos_deleted"], 3);
    let videos = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    assert_eq!(videos.body["data"]["data"].as_array().unwrap().len(), 3);
    assert_eq!(
        views_today(&app, &key).await,
        before - mira_views,
        "its statistics left the analytics"
    );
    let maintained = vidpulse_store::testing::rollup_dump(&app.db.url)
        .await
        .unwrap();
    app.store.rebuild_analytics().await.unwrap();
    assert_eq!(
        vidpulse_store::testing::rollup_dump(&app.db.url)
            .await
            .unwrap(),
        maintained
    );
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete-with-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Deleting the other keeps its videos and their statistics.
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete",
        &editor,
        Some(&org),
        Some(&json!({"tracking_id": ana})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let videos = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    assert_eq!(videos.body["data"]["data"].as_array().unwrap().len(), 3);
    assert_eq!(views_today(&app, &key).await, before - mira_views);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"], json!([]));
    // The creator can be tracked again.
    let a = app
        .post(
            "/v1/bloggers/track",
            &key,
            &json!({"platform": "tiktok", "username": "ana_builds", "initial_videos_count": 1}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
}

/// Views gained since yesterday by the organization of `key` (public
/// totals: videos tracked today count in full).
async fn views_today(app: &TestApp, key: &str) -> i64 {
    let today = app.clock.now().date_naive();
    let yesterday = today.pred_opt().unwrap();
    let a = app
        .get(
            &format!("/v1/analytics/metrics/totals?from={yesterday}&to={today}"),
            Some(key),
        )
        .await;
    a.body["data"]["total"]["views"].as_i64().unwrap()
}

#[rstest]
#[tokio::test]
async fn fetching_initial_videos_again_runs_a_creator_job(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
        ..
    } = team(&app).await;
    track_creator(&app, &key, "ana_builds", 2).await;
    app.run_jobs_until_idle().await;
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    let tracking = a.body["data"][0]["tracking_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = json!({"tracking_id": tracking});

    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &viewer,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    let job = a.body["data"]["job_id"].as_str().unwrap().to_owned();
    // One job at a time.
    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 409, "CREATOR_TRACK_IN_FLIGHT");
    assert_eq!(a.body["error"]["job_id"], job.as_str());
    app.run_jobs_until_idle().await;
    let a = app
        .get(&format!("/v1/bloggers/jobs/{job}"), Some(&key))
        .await;
    assert_eq!(a.body["data"]["status"], "succeeded", "{}", a.body);
    assert_eq!(a.body["data"]["is_reactivation"], false);
    // The same videos: nothing tracked or charged twice; one account still.
    let videos = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    assert_eq!(videos.body["data"]["data"].as_array().unwrap().len(), 2);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(a.body["data"][0]["videos_tracked"], 2);

    // Paused: refused; unknown: 404.
    let pause = json!({"tracking_id": tracking, "is_active": false});
    call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&pause),
    )
    .await;
    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let unknown = json!({"tracking_id": uuid::Uuid::new_v4().to_string()});
    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &editor,
        Some(&org),
        Some(&unknown),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
}

#[rstest]
#[tokio::test]
async fn a_bloggers_follower_history_and_gains_are_read_by_any_member(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    let app = TestApp::spawn(backend).await;
    let Team {
        org, key, viewer, ..
    } = team(&app).await;
    let (outsider, _) = member(&app, "out@example.com").await;
    track_creator(&app, &key, "ana_builds", 1).await;
    app.run_jobs_until_idle().await;
    let first = app.clock.now().date_naive();
    for _ in 0..8 {
        app.advance(Duration::days(1));
        app.run_discovery_until_idle().await;
    }
    let today = app.clock.now().date_naive();

    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    let b = &a.body["data"][0];
    let tracking = b["tracking_id"].as_str().unwrap().to_owned();
    let path = format!("/blogger/{tracking}/followers");
    let a = call(&app, Method::GET, &path, &viewer, Some(&org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let d = &a.body["data"];
    assert_eq!(d["tracking_id"], tracking.as_str());
    assert_eq!(d["to"], today.to_string());
    assert_eq!(d["from"], (today - Duration::days(29)).to_string());
    let days = d["days"].as_array().unwrap();
    assert_eq!(days.len(), 9);
    assert_eq!(days[0]["date"], first.to_string());
    let count = |i: usize| days[i]["follower_count"].as_i64().unwrap();
    assert_eq!(count(8), b["number_of_subscribers"].as_i64().unwrap());
    // The list carries the same gains as the public API.
    assert_eq!(b["follower_gain_7d"], count(8) - count(1));
    assert_eq!(b["follower_gain_30d"], count(8) - count(0));
    let public = app.get("/v1/bloggers", Some(&key)).await;
    assert_eq!(
        public.body["data"][0]["follower_gain_7d"],
        b["follower_gain_7d"]
    );

    // A window.
    let to = first + Duration::days(1);
    let a = call(
        &app,
        Method::GET,
        &format!("{path}?from={first}&to={to}"),
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(
        a.body["data"]["days"].as_array().unwrap().len(),
        2,
        "{}",
        a.body
    );

    // Faults name their parameter.
    for (query, field) in [
        (format!("?from={today}&to={first}"), "from"),
        ("?to=2026-02-30".to_owned(), "to"),
        ("?platform=tiktok".to_owned(), "platform"),
    ] {
        let a = call(
            &app,
            Method::GET,
            &format!("{path}{query}"),
            &viewer,
            Some(&org),
            None,
        )
        .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}");
    }
    // Unknown ids, ids that are not UUIDs and other organizations' bloggers.
    let theirs = register(&app, &outsider, &json!({"name": "Other"})).await;
    let their_org = theirs.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for (token, org, p) in [
        (
            &viewer,
            &org,
            format!("/blogger/{}/followers", uuid::Uuid::now_v7()),
        ),
        (&viewer, &org, "/blogger/not-a-uuid/followers".to_owned()),
        (&outsider, &their_org, path.clone()),
    ] {
        let a = call(&app, Method::GET, &p, token, Some(org), None).await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }
    // Members only.
    let a = call(&app, Method::GET, &path, &outsider, Some(&org), None).await;
    assert!(a.status.is_client_error(), "{}", a.body);
}
