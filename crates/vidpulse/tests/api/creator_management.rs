//! Creators managed by API key (PATCH, DELETE and POST .../refresh of
//! /v1/bloggers/by-username/{username}): the dashboard's rules and plan
//! gates, the organization's own creators only, and a failed request that
//! writes and charges nothing.

use chrono::Duration;
use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_domain::{OrgId, Plan, Platform};
use vidpulse_platforms::{SimulatedConfig, Source};
use vidpulse_store::{Backend, CreatorProfile, CreatorVideos, JobSuccess, NewCreatorJob, StartJob};

use crate::helpers::{Answer, TestApp, TestConfig, assert_nested_error};

const ANA: &str = "/v1/bloggers/by-username/ana_builds";

/// Tracks `username` on TikTok through the public API with `n` initial
/// videos, and runs its job.
async fn track_creator(app: &TestApp, key: &str, username: &str, n: i64) {
    let a = app
        .post(
            "/v1/bloggers/track",
            key,
            &json!({"platform": "tiktok", "username": username, "initial_videos_count": n}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    assert_eq!(app.run_jobs_until_idle().await, 1);
}

/// Tracks `username` on TikTok for `org` straight through the store (no
/// platform read, no plan check), with no initial video.
async fn track_in_store(app: &TestApp, org: Uuid, username: &str) {
    let now = app.clock_now();
    let platform = Platform::TikTok;
    // The platform's own account when it answers (as a job would read it).
    let profile = match app.source.resolve_channel(platform, username).await {
        Ok(c) => CreatorProfile {
            platform,
            channel_id: c.channel_id,
            username: c.username,
            display_name: c.display_name,
            avatar_url: c.avatar_url,
            follower_count: c.follower_count,
        },
        Err(_) => CreatorProfile {
            platform,
            channel_id: format!("ch-{username}"),
            username: username.into(),
            display_name: Some("Ana".into()),
            avatar_url: None,
            follower_count: Some(1000),
        },
    };
    let job = NewCreatorJob {
        organization_id: OrgId(org),
        api_key_id: None,
        request_id: "test".into(),
        platform,
        username: username.into(),
        initial_videos_count: 0,
        now,
        refetch: false,
        setup: None,
    };
    let StartJob::Queued(_) = app.store.start_creator_job(&job).await.unwrap() else {
        panic!("not queued");
    };
    let claimed = app
        .store
        .claim_creator_job(now, Duration::minutes(5))
        .await
        .unwrap()
        .unwrap();
    app.store
        .finish_creator_job(&JobSuccess {
            job_id: claimed.id,
            lease_token: claimed.lease_token,
            profile,
            backfill: CreatorVideos {
                videos: Vec::new(),
                window: Duration::days(30),
                credits_per_video: 30,
            },
            now,
            next_discovery_at: now + Duration::days(1),
        })
        .await
        .unwrap()
        .unwrap();
}

async fn credits(app: &TestApp, key: &str) -> i64 {
    app.flush_usage().await;
    let a = app.get("/v1/account/usage", Some(key)).await;
    a.body["data"]["summary"]["total_credits_30_days"]
        .as_i64()
        .unwrap()
}

/// How many of the organization's videos the listing `query` finds.
async fn videos(app: &TestApp, key: &str, query: &str) -> i64 {
    let a = app
        .get(&format!("/v1/videos/stats?limit=100{query}"), Some(key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"]["pagination"]["total"].as_i64().unwrap()
}

async fn lookup(app: &TestApp, key: &str) -> Answer {
    app.get(ANA, Some(key)).await
}

async fn patch(app: &TestApp, key: &str, path: &str, body: &Value) -> Answer {
    app.send_json(Method::PATCH, path, Some(key), body).await
}

async fn refresh(app: &TestApp, key: &str) -> Answer {
    app.post(&format!("{ANA}/refresh"), key, &json!({})).await
}

#[rstest]
#[tokio::test]
async fn a_creator_is_changed_with_the_dashboards_rules(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    track_creator(&app, &key, "ana_builds", 2).await;
    let before = credits(&app, &key).await;

    let a = patch(
        &app,
        &key,
        &format!("{ANA}?platform=TikTok"),
        &json!({
            "is_active": false, "campaign": " Summer ", "tags": ["Fitness", "fitness", "Food"],
            "daily_videos_count": 3, "budget_per_video": 500
        }),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let b = &a.body["data"]["blogger"];
    assert_eq!(b["is_active"], false);
    assert_eq!(b["campaign"], "Summer");
    assert_eq!(b["tags"], json!(["Fitness", "Food"]));
    assert_eq!(b["daily_videos_count"], 3);
    assert_eq!(b["budget_per_video"], 500);
    assert_eq!(b["channel_username"], "ana_builds");
    assert!(a.body["meta"]["request_id"].is_string());
    // The answer is the lookup's record.
    let looked = lookup(&app, &key).await;
    assert_eq!(looked.body["data"]["blogger"], *b);
    // Its videos carry its tags (not its campaign: that is for new videos);
    // the campaign is one of the organization's.
    assert_eq!(videos(&app, &key, "&tag=Food").await, 2);
    assert_eq!(videos(&app, &key, "&campaign=Summer").await, 0);
    let campaigns = app.get("/v1/campaigns", Some(&key)).await;
    assert!(
        campaigns.body.to_string().contains("\"Summer\""),
        "{}",
        campaigns.body
    );
    // Paused: no daily discovery.
    app.advance(Duration::days(2));
    assert_eq!(app.run_discovery_until_idle().await, 0);

    // Only the fields sent change; tags are replaced, `[]` and null clear.
    let a = patch(
        &app,
        &key,
        ANA,
        &json!({"tags": ["Food"], "is_active": true}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let b = &a.body["data"]["blogger"];
    assert_eq!(b["tags"], json!(["Food"]));
    assert_eq!(
        (b["is_active"].clone(), b["campaign"].clone()),
        (json!(true), json!("Summer"))
    );
    assert_eq!(
        videos(&app, &key, "&tag=Fitness").await,
        0,
        "taken off its videos"
    );
    assert_eq!(
        app.run_discovery_until_idle().await,
        1,
        "resumed: due at once"
    );
    let a = patch(
        &app,
        &key,
        ANA,
        &json!({"campaign": null, "tags": [], "daily_videos_count": null, "budget_per_video": null}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let b = &a.body["data"]["blogger"];
    for field in ["campaign", "daily_videos_count", "budget_per_video"] {
        assert!(b[field].is_null(), "{field}: {b}");
    }
    assert_eq!(b["tags"], json!([]));
    assert_eq!(
        patch(&app, &key, ANA, &json!({"campaign": ""}))
            .await
            .status,
        200
    );
    // Only the discovery's videos were charged: PATCH is free.
    let discovered = videos(&app, &key, "").await - 2;
    assert_eq!(credits(&app, &key).await, before + discovered * 30);
}

#[rstest]
#[tokio::test]
async fn bad_patches_are_refused_and_write_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    track_creator(&app, &key, "ana_builds", 0).await;
    let before = lookup(&app, &key).await.body["data"]["blogger"].clone();
    let many: Vec<String> = (0..51).map(|i| format!("t{i}")).collect();
    for (body, field) in [
        (json!({}), "body"),
        (json!([]), "body"),
        (json!({"is_active": "no"}), "is_active"),
        (json!({"is_active": null}), "is_active"),
        (json!({"campaign": "a,b"}), "campaign"),
        (json!({"campaign": 7}), "campaign"),
        (json!({"tags": "Food"}), "tags"),
        (json!({"tags": [" "]}), "tags"),
        (json!({ "tags": many }), "tags"),
        (json!({"daily_videos_count": 51}), "daily_videos_count"),
        (json!({"daily_videos_count": -1}), "daily_videos_count"),
        (json!({"budget_per_video": 0}), "budget_per_video"),
        (json!({"budget_per_video": "500"}), "budget_per_video"),
        (json!({"notes": "x"}), "notes"),
        // A good field beside a bad one: nothing is written.
        (
            json!({"tags": ["New"], "campaign": "Fine", "budget_per_video": -3}),
            "budget_per_video",
        ),
    ] {
        let a = patch(&app, &key, ANA, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}: {}", a.body);
    }
    let a = app
        .send_raw(
            Method::PATCH,
            ANA,
            Some(&key),
            "text/plain",
            "{\"is_active\": false}",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = patch(
        &app,
        &key,
        &format!("{ANA}?platform=vimeo"),
        &json!({"is_active": false}),
    )
    .await;
    assert_eq!(a.body["error"]["field"], "platform", "{}", a.body);
    let a = patch(
        &app,
        &key,
        "/v1/bloggers/by-username/a%2Fb",
        &json!({"is_active": false}),
    )
    .await;
    assert_eq!(a.body["error"]["field"], "username", "{}", a.body);
    assert_eq!(lookup(&app, &key).await.body["data"]["blogger"], before);
    assert!(
        app.store.tags(OrgId(org)).await.unwrap().is_empty(),
        "no tag created"
    );
    let campaigns = app.get("/v1/campaigns", Some(&key)).await;
    assert!(
        !campaigns.body.to_string().contains("Fine"),
        "no campaign created"
    );

    // Unknown creators, another platform, another organization: 404.
    let (_, other) = app.org_with_key(Plan::Pro).await;
    for (path, query, k) in [
        ("/v1/bloggers/by-username/nobody", "", &key),
        (ANA, "?platform=youtube", &key),
        (ANA, "", &other),
    ] {
        let a = patch(
            &app,
            k,
            &format!("{path}{query}"),
            &json!({"is_active": false}),
        )
        .await;
        assert_nested_error(&a, 404, "BLOGGER_NOT_TRACKED");
        let a = app.delete(&format!("{path}{query}"), k).await;
        assert_nested_error(&a, 404, "BLOGGER_NOT_TRACKED");
        let a = app
            .post(&format!("{path}/refresh{query}"), k, &json!({}))
            .await;
        assert_nested_error(&a, 404, "BLOGGER_NOT_TRACKED");
    }
    assert_eq!(
        lookup(&app, &key).await.body["data"]["blogger"]["is_active"],
        true
    );
    let a = app
        .send_json(Method::PATCH, ANA, None, &json!({"is_active": false}))
        .await;
    assert_nested_error(&a, 401, "MISSING_AUTH");
}

#[rstest]
#[tokio::test]
async fn any_plan_manages_its_creators_as_in_the_dashboard(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    // A free organization with a creator (tracked before a downgrade, say).
    let (org, key) = app.org_with_key(Plan::Free).await;
    track_in_store(&app, org, "ana_builds").await;
    let a = patch(
        &app,
        &key,
        ANA,
        &json!({"campaign": "Spring", "is_active": false}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = patch(&app, &key, ANA, &json!({"is_active": true})).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = refresh(&app, &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = app.delete(ANA, &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
}

#[rstest]
#[tokio::test]
async fn untracking_a_creator_keeps_its_videos(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    track_creator(&app, &key, "ana_builds", 2).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    track_creator(&app, &other, "ana_builds", 1).await;
    let before = lookup(&app, &key).await.body["data"]["blogger"].clone();
    let spent = credits(&app, &key).await;

    let a = app.delete(&format!("{ANA}?platform=tiktok"), &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let d = &a.body["data"];
    assert_eq!(d["untracked"], true);
    assert_eq!(d["id"], before["id"]);
    assert_eq!(d["tracked_account_id"], before["tracked_account_id"]);
    assert_eq!(d["platform"], "tiktok");
    assert_eq!(d["channel_username"], "ana_builds");
    assert_nested_error(&lookup(&app, &key).await, 404, "BLOGGER_NOT_TRACKED");
    assert_nested_error(&app.delete(ANA, &key).await, 404, "BLOGGER_NOT_TRACKED");
    let listed = app.get("/v1/bloggers", Some(&key)).await;
    assert_eq!(listed.status.as_u16(), 200, "{}", listed.body);
    assert!(
        !listed.body["data"].to_string().contains("ana_builds"),
        "{}",
        listed.body
    );
    // Its videos stay tracked, nothing refunded; the other organization
    // keeps its own tracking of the creator.
    assert_eq!(videos(&app, &key, "").await, 2);
    assert_eq!(credits(&app, &key).await, spent);
    assert_eq!(lookup(&app, &other).await.status.as_u16(), 200);
    // It can be tracked again.
    track_creator(&app, &key, "ana_builds", 0).await;
    assert_eq!(lookup(&app, &key).await.status.as_u16(), 200);
}

#[rstest]
#[tokio::test]
async fn a_creator_is_read_now_once_per_cooldown(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    track_creator(&app, &key, "ana_builds", 1).await;
    let a = patch(
        &app,
        &key,
        ANA,
        &json!({"campaign": "Summer", "tags": ["Food"]}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let before = lookup(&app, &key).await.body["data"]["blogger"].clone();
    assert_eq!(credits(&app, &key).await, 30);

    // Four days on (the channel posts every 12 to 72 hours): new videos,
    // up to the daily count, tracked and charged, with the creator's
    // campaign and tags.
    app.advance(Duration::days(4));
    let a = refresh(&app, &key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let d = &a.body["data"];
    let n = d["videos_tracked"].as_i64().unwrap();
    assert!((1..=5).contains(&n), "{d}");
    assert_eq!(d["videos_skipped"], 0);
    assert_eq!(a.body["meta"]["credits_used"], n * 30);
    assert_eq!(credits(&app, &key).await, 30 + n * 30);
    assert_eq!(videos(&app, &key, "").await, 1 + n);
    assert_eq!(videos(&app, &key, "&campaign=Summer").await, n);
    assert_eq!(videos(&app, &key, "&tag=Food").await, 1 + n);
    let b = &d["blogger"];
    assert_ne!(b["last_fetched_at"], before["last_fetched_at"]);
    assert_ne!(b["last_scraped_at"], before["last_scraped_at"]);
    assert_eq!(b["videos_tracked"], 1 + n);
    assert_eq!(lookup(&app, &key).await.body["data"]["blogger"], *b);
    assert!(d["next_refresh_allowed_at"].is_string());

    // Asked again within the cooldown: 429, nothing read or charged.
    let again = refresh(&app, &key).await;
    assert_nested_error(&again, 429, "REFRESH_TOO_SOON");
    assert_eq!(again.headers["retry-after"], "300");
    app.advance(Duration::minutes(2));
    assert_eq!(refresh(&app, &key).await.headers["retry-after"], "180");
    assert_eq!(credits(&app, &key).await, 30 + n * 30);

    // The daily discovery keeps its schedule (due now) and finds nothing
    // the refresh took.
    assert_eq!(app.run_discovery_until_idle().await, 1);
    assert_eq!(videos(&app, &key, "").await, 1 + n);

    // After the cooldown, two asks at once: one reads, the other waits for
    // it and is refused.
    app.advance(Duration::minutes(4));
    let (a, b) = tokio::join!(refresh(&app, &key), refresh(&app, &key));
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 429], "{} {}", a.body, b.body);

    // A paused creator is not read.
    app.advance(Duration::minutes(10));
    patch(&app, &key, ANA, &json!({"is_active": false})).await;
    assert_nested_error(&refresh(&app, &key).await, 409, "CREATOR_PAUSED");
}

#[rstest]
#[tokio::test]
async fn a_failed_creator_read_writes_and_charges_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    for (sim, status, code) in [
        (
            SimulatedConfig {
                unknown_usernames: vec!["ana_builds".into()],
                ..SimulatedConfig::default()
            },
            404,
            "PLATFORM_NOT_FOUND",
        ),
        (
            SimulatedConfig {
                fail_rate: 1.0,
                ..SimulatedConfig::default()
            },
            502,
            "EXTERNAL_API_ERROR",
        ),
    ] {
        let config = TestConfig {
            sim,
            ..TestConfig::default()
        };
        let app = TestApp::spawn_with(backend, config).await;
        let (org, key) = app.org_with_key(Plan::Pro).await;
        track_in_store(&app, org, "ana_builds").await;
        let before = lookup(&app, &key).await.body["data"]["blogger"].clone();
        app.advance(Duration::days(2));
        for _ in 0..2 {
            // Not an ask: the second is refused the same way, not 429.
            let a = refresh(&app, &key).await;
            assert_nested_error(&a, status, code);
        }
        assert_eq!(lookup(&app, &key).await.body["data"]["blogger"], before);
        assert_eq!(credits(&app, &key).await, 0);
    }
}

#[rstest]
#[tokio::test]
async fn resuming_a_creator_past_the_creator_cap_is_refused_and_writes_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let crate::dashboard::Team {
        org, key, editor, ..
    } = crate::dashboard::team(&app).await;
    track_creator(&app, &key, "ana_builds", 0).await;
    let a = patch(&app, &key, ANA, &json!({"is_active": false})).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let tracking = a.body["data"]["blogger"]["tracked_account_id"].clone();
    // One creator at a time; the paused one's place goes to another.
    app.store
        .set_plan(OrgId(org.parse().unwrap()), Plan::Pro, None, Some(1))
        .await
        .unwrap();
    track_creator(&app, &key, "bob_cooks", 0).await;

    let a = patch(
        &app,
        &key,
        ANA,
        &json!({"is_active": true, "campaign": "Summer", "tags": ["Food"]}),
    )
    .await;
    assert_nested_error(&a, 422, "TRACKED_CREATORS_LIMIT");
    assert_eq!(a.body["error"]["limit"], 1, "{}", a.body);
    assert_eq!(a.body["error"]["current_usage"], 1, "{}", a.body);
    let b = &lookup(&app, &key).await.body["data"]["blogger"];
    assert_eq!(
        (
            b["is_active"].clone(),
            b["campaign"].clone(),
            b["tags"].clone()
        ),
        (json!(false), Value::Null, json!([])),
        "nothing written"
    );
    // The dashboard's toggle answers the same.
    let resume = json!({"tracking_id": tracking, "is_active": true});
    let a = crate::dashboard::call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&resume),
    )
    .await;
    assert_nested_error(&a, 422, "TRACKED_CREATORS_LIMIT");
    assert_eq!(
        lookup(&app, &key).await.body["data"]["blogger"]["is_active"],
        false
    );

    // Pausing the other frees the place: resuming then passes.
    let a = patch(
        &app,
        &key,
        "/v1/bloggers/by-username/bob_cooks",
        &json!({"is_active": false}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = patch(&app, &key, ANA, &json!({"is_active": true})).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["blogger"]["is_active"], true);
}
