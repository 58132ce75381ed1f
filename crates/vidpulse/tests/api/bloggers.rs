//! Creators: POST /v1/bloggers/track, the job resource through every state,
//! the lookup by username, the sweep, a dead worker, reactivation and the
//! daily discovery.

use std::time::Duration as StdDuration;

use chrono::Duration;
use rstest::rstest;
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_api::ApiConfig;
use vidpulse_api::rate_limit::RateLimitConfig;
use vidpulse_domain::{Clock, Plan};
use vidpulse_platforms::SimulatedConfig;
use vidpulse_store::Backend;
use vidpulse_worker::CreatorConfig;

use crate::helpers::{Answer, TestApp, TestConfig, assert_nested_error, pause_creator};

const TRACK: &str = "/v1/bloggers/track";

async fn start(app: &TestApp, key: &str, body: Value) -> Answer {
    app.post(TRACK, key, &body).await
}

/// Queues a job and returns its id, checking the 202 answer to the field.
async fn queue(app: &TestApp, key: &str, platform: &str, username: &str, n: i64) -> String {
    let a = start(
        app,
        key,
        json!({"platform": platform, "username": username, "initial_videos_count": n}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    let data = &a.body["data"];
    let id = data["job_id"].as_str().unwrap().to_owned();
    let url = format!("/v1/bloggers/jobs/{id}");
    assert_eq!(a.headers["location"], url.as_str());
    assert_eq!(a.headers["retry-after"], "1");
    assert_eq!(data["status"], "queued");
    assert_eq!(data["status_url"], url.as_str());
    assert_eq!(data["platform"], platform);
    assert_eq!(data["username"], username.trim_start_matches('@'));
    assert!(data["estimated_duration_seconds"].as_u64().unwrap() > 0);
    assert_eq!(data["polling"]["retry_after_seconds"], 1);
    assert!(a.body["meta"]["request_id"].is_string());
    id
}

async fn job(app: &TestApp, key: &str, id: &str) -> Answer {
    app.get(&format!("/v1/bloggers/jobs/{id}"), Some(key)).await
}

async fn credits(app: &TestApp, key: &str) -> i64 {
    app.flush_usage().await;
    let a = app.get("/v1/account/usage", Some(key)).await;
    a.body["data"]["summary"]["total_credits_30_days"]
        .as_i64()
        .unwrap()
}

async fn video_count(app: &TestApp, key: &str) -> u64 {
    let a = app.get("/v1/videos/stats?limit=100", Some(key)).await;
    a.body["data"]["pagination"]["total"].as_u64().unwrap()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[rstest]
#[tokio::test]
async fn a_creator_is_tracked_through_a_job_and_its_videos_flow(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let id = queue(&app, &key, "youtube", "@MiraCooks", 3).await;

    // Queued: no start, elapsed null, none of the terminal fields.
    let a = job(&app, &key, &id).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let d = &a.body["data"];
    assert_eq!(
        keys(d),
        [
            "completed_at",
            "created_at",
            "duration_seconds",
            "elapsed_seconds",
            "error",
            "job_id",
            "platform",
            "result",
            "started_at",
            "status",
            "username"
        ]
    );
    assert_eq!(d["status"], "queued");
    assert!(d["started_at"].is_null() && d["elapsed_seconds"].is_null());
    assert!(d["completed_at"].is_null() && d["result"].is_null() && d["error"].is_null());
    assert_eq!(d["username"], "MiraCooks");

    assert_eq!(app.run_jobs_until_idle().await, 1);
    let a = job(&app, &key, &id).await;
    let d = &a.body["data"];
    assert_eq!(d["status"], "succeeded", "{d}");
    assert_eq!(
        keys(d),
        [
            "blogger_id",
            "completed_at",
            "created_at",
            "duration_seconds",
            "error",
            "is_reactivation",
            "job_id",
            "platform",
            "result",
            "started_at",
            "status",
            "tracked_account_id",
            "username"
        ]
    );
    assert_eq!(d["is_reactivation"], false);
    assert!(d["duration_seconds"].is_number() && d["completed_at"].is_string());
    assert!(d["error"].is_null());
    let r = &d["result"];
    assert_eq!(
        keys(r),
        [
            "blogger_id",
            "campaign",
            "daily_videos_count",
            "ecpm",
            "initial_videos_count",
            "is_active",
            "last_scraped_at",
            "platform",
            "tracked_account_id",
            "username"
        ]
    );
    assert_eq!(r["tracked_account_id"], d["tracked_account_id"]);
    assert_eq!(r["blogger_id"], d["blogger_id"]);
    assert_eq!(
        (r["is_active"].clone(), r["initial_videos_count"].clone()),
        (json!(true), json!(3))
    );

    // The backfill: three videos, charged like tracked videos, read at once.
    assert_eq!(video_count(&app, &key).await, 3);
    assert_eq!(credits(&app, &key).await, 90);
    assert_eq!(app.run_worker_until_idle().await, 3);
    let a = app.get("/v1/videos/stats", Some(&key)).await;
    for v in a.body["data"]["data"].as_array().unwrap() {
        assert!(v["views"].is_number(), "{v}");
    }

    // The lookup: `@` percent-encoded, any case, optional platform.
    let a = app
        .get(
            "/v1/bloggers/by-username/%40miracooks?platform=youtube",
            Some(&key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let b = &a.body["data"]["blogger"];
    assert_eq!(b["id"], d["blogger_id"]);
    assert_eq!(b["platform"], "youtube");
    assert!(b["channel_id"].is_string() && b["follower_count"].is_number());
    assert_eq!(b["is_active"], true);
    assert!(b["last_fetched_at"].is_string());
    assert!(a.body["meta"]["processing_time_ms"].is_number());
    let a = app
        .get("/v1/bloggers/by-username/MIRACOOKS", Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 200);
    let a = app
        .get(
            "/v1/bloggers/by-username/miracooks?platform=tiktok",
            Some(&key),
        )
        .await;
    assert_nested_error(&a, 404, "BLOGGER_NOT_TRACKED");
    let a = app
        .get(
            "/v1/bloggers/by-username/miracooks?platform=vimeo",
            Some(&key),
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");

    // Another organization sees neither the job nor the creator.
    let (_, other) = app.org_with_key(Plan::Pro).await;
    assert_nested_error(&job(&app, &other, &id).await, 404, "NOT_FOUND");
    let a = app
        .get("/v1/bloggers/by-username/miracooks", Some(&other))
        .await;
    assert_nested_error(&a, 404, "BLOGGER_NOT_TRACKED");

    // Tracked now: a second request is a conflict and costs nothing.
    let a = start(
        &app,
        &key,
        json!({"platform": "youtube", "username": "miracooks"}),
    )
    .await;
    assert_nested_error(&a, 409, "CREATOR_ALREADY_TRACKED");
    assert_eq!(credits(&app, &key).await, 90);
}

#[rstest]
#[tokio::test]
async fn bad_requests_are_refused_and_write_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let ok = json!({"platform": "tiktok", "username": "mira.cooks"});
    for (body, field) in [
        (json!([]), "body"),
        (json!({"username": "a"}), "platform"),
        (json!({"platform": "vimeo", "username": "a"}), "platform"),
        (json!({"platform": 1, "username": "a"}), "platform"),
        (json!({"platform": "tiktok"}), "username"),
        (json!({"platform": "tiktok", "username": ""}), "username"),
        (json!({"platform": "tiktok", "username": "a b"}), "username"),
        (json!({"platform": "tiktok", "username": ["a"]}), "username"),
        (
            json!({"platform": "tiktok", "username": "a", "initial_videos_count": 51}),
            "initial_videos_count",
        ),
        (
            json!({"platform": "tiktok", "username": "a", "initial_videos_count": -1}),
            "initial_videos_count",
        ),
        (
            json!({"platform": "tiktok", "username": "a", "initial_videos_count": "5"}),
            "initial_videos_count",
        ),
    ] {
        let a = start(&app, &key, body.clone()).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let a = app
        .send_raw(
            reqwest::Method::POST,
            TRACK,
            Some(&key),
            "application/json",
            "{\"platform\":",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_nested_error(
        &app.send_json(reqwest::Method::POST, TRACK, None, &ok).await,
        401,
        "MISSING_AUTH",
    );
    assert_nested_error(
        &app.send_json(reqwest::Method::POST, TRACK, Some("vpk_nope"), &ok)
            .await,
        401,
        "INVALID_API_KEY",
    );
    let (_, free) = app.org_with_key(Plan::Free).await;
    let a = start(&app, &free, ok.clone()).await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    assert!(a.body["error"]["upgrade_url"].is_string());

    // Job ids: malformed and unknown alike are 404.
    assert_nested_error(&job(&app, &key, "not-a-uuid").await, 404, "NOT_FOUND");
    assert_nested_error(
        &job(&app, &key, &Uuid::new_v4().to_string()).await,
        404,
        "NOT_FOUND",
    );
    // The removed lookup stays removed.
    let a = app
        .get("/v1/bloggers/info?username=mira.cooks", Some(&key))
        .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Nothing was queued by any of it.
    assert_eq!(app.run_jobs_until_idle().await, 0);
    assert_eq!(credits(&app, &key).await, 0);
}

async fn set_limits(app: &TestApp, org: Uuid, quota: u32, cap: u32) {
    vidpulse::commands::admin::set_plan(&app.store, org, Plan::Pro, Some(quota), Some(cap))
        .await
        .unwrap();
}

#[rstest]
#[tokio::test]
async fn caps_and_quota_answer_422_before_anything_is_written(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    set_limits(&app, org, 5, 1).await;
    let a = start(
        &app,
        &key,
        json!({"platform": "tiktok", "username": "mira.cooks", "initial_videos_count": 6}),
    )
    .await;
    assert_nested_error(&a, 422, "SUBSCRIPTION_LIMIT");
    queue(&app, &key, "tiktok", "mira.cooks", 5).await;
    let a = start(
        &app,
        &key,
        json!({"platform": "tiktok", "username": "ana_builds", "initial_videos_count": 0}),
    )
    .await;
    assert_nested_error(&a, 422, "TRACKED_CREATORS_LIMIT");
    assert_eq!(a.body["error"]["limit"], 1);
    assert_eq!(
        app.run_jobs_until_idle().await,
        1,
        "only the accepted job exists"
    );
}

#[rstest]
#[tokio::test]
async fn concurrent_requests_for_one_creator_make_one_job(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let body =
        json!({"platform": "instagram", "username": "mira.cooks", "initial_videos_count": 1});
    let answers = futures::future::join_all((0..10).map(|_| start(&app, &key, body.clone()))).await;
    let accepted: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.status.as_u16() == 202)
        .collect();
    assert_eq!(accepted.len(), 1);
    let id = &accepted[0].body["data"]["job_id"];
    for a in answers.iter().filter(|a| a.status.as_u16() != 202) {
        assert_nested_error(a, 409, "CREATOR_TRACK_IN_FLIGHT");
        assert_eq!(&a.body["error"]["job_id"], id);
    }
    assert_eq!(app.run_jobs_until_idle().await, 1);
}

#[rstest]
#[tokio::test]
async fn unknown_accounts_end_the_job_in_error(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let id = queue(&app, &key, "tiktok", "unknown_person", 5).await;
    app.run_jobs_until_idle().await;
    let a = job(&app, &key, &id).await;
    let d = &a.body["data"];
    assert_eq!(d["status"], "error");
    assert_eq!(d["error"]["code"], "PLATFORM_NOT_FOUND");
    assert!(
        d["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown_person")
    );
    assert!(d["result"].is_null() && d["completed_at"].is_string());
    for absent in [
        "elapsed_seconds",
        "tracked_account_id",
        "blogger_id",
        "is_reactivation",
    ] {
        assert!(d.get(absent).is_none(), "{absent} in {d}");
    }
    assert_eq!(credits(&app, &key).await, 0);
    // A failed job does not block a new one.
    queue(&app, &key, "tiktok", "unknown_person", 5).await;
}

#[rstest]
#[tokio::test]
async fn a_dead_workers_job_is_retaken_after_its_lease(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let id = queue(&app, &key, "tiktok", "mira.cooks", 2).await;
    // A worker claims the job and dies.
    let claim = app
        .store
        .claim_creator_job(app.clock.now(), Duration::minutes(5))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claim.id.to_string(), id);
    app.advance(Duration::seconds(90));
    let a = job(&app, &key, &id).await;
    let d = &a.body["data"];
    assert_eq!(d["status"], "processing");
    assert_eq!(d["elapsed_seconds"], 90.0);
    assert!(d["started_at"].is_string() && d["completed_at"].is_null());
    assert!(d.get("tracked_account_id").is_none());
    assert_eq!(app.run_jobs_until_idle().await, 0, "the lease still holds");

    app.advance(Duration::minutes(4));
    assert_eq!(app.run_jobs_until_idle().await, 1);
    let a = job(&app, &key, &id).await;
    assert_eq!(a.body["data"]["status"], "succeeded");
    assert_eq!(credits(&app, &key).await, 60);
}

#[rstest]
#[tokio::test]
async fn the_sweep_closes_a_job_past_the_timeout_and_answers_410(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let config = TestConfig {
        creators: CreatorConfig {
            job_timeout: Duration::minutes(10),
            ..CreatorConfig::default()
        },
        sim: SimulatedConfig {
            channel_latency: StdDuration::from_secs(60),
            ..SimulatedConfig::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let id = queue(&app, &key, "tiktok", "slow.creator", 1).await;
    // A worker starts the job; the platform hangs.
    let ctx = app.services.creators.clone();
    let stuck = tokio::spawn(async move { vidpulse_worker::creators::tick_jobs(&ctx).await });
    for _ in 0..100 {
        if job(&app, &key, &id).await.body["data"]["status"] == "processing" {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    app.advance(Duration::minutes(9));
    assert_eq!(
        vidpulse_worker::creators::sweep(&app.services.creators)
            .await
            .unwrap(),
        0
    );
    app.advance(Duration::minutes(1));
    assert_eq!(
        vidpulse_worker::creators::sweep(&app.services.creators)
            .await
            .unwrap(),
        1
    );
    let a = job(&app, &key, &id).await;
    assert_nested_error(&a, 410, "JOB_TIMEOUT");
    stuck.abort();
    // Re-issuing the request starts over.
    queue(&app, &key, "tiktok", "slow.creator", 1).await;
}

#[rstest]
#[tokio::test]
async fn the_sweep_keeps_its_schedule_while_a_job_hangs_on_its_platform(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let config = TestConfig {
        creators: CreatorConfig {
            job_timeout: Duration::minutes(10),
            sweep_interval: StdDuration::from_millis(100),
            ..CreatorConfig::default()
        },
        sim: SimulatedConfig {
            channel_latency: StdDuration::from_secs(3),
            ..SimulatedConfig::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let id = queue(&app, &key, "tiktok", "slow.creator", 1).await;
    // The whole creator loop runs: its job hangs on the platform.
    let shutdown = tokio_util::sync::CancellationToken::new();
    let creators = tokio::spawn(vidpulse_worker::creators::run(
        app.services.creators.clone(),
        shutdown.clone(),
    ));
    for _ in 0..200 {
        if job(&app, &key, &id).await.body["data"]["status"] == "processing" {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    assert_eq!(
        job(&app, &key, &id).await.body["data"]["status"],
        "processing"
    );
    app.advance(Duration::minutes(11));
    // Within about two sweep intervals the job is closed.
    let mut answer = job(&app, &key, &id).await;
    for _ in 0..50 {
        if answer.status == 410 {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
        answer = job(&app, &key, &id).await;
    }
    assert_nested_error(&answer, 410, "JOB_TIMEOUT");
    // The hung run, when the platform answers at last, writes nothing.
    tokio::time::sleep(StdDuration::from_secs(4)).await;
    assert_nested_error(&job(&app, &key, &id).await, 410, "JOB_TIMEOUT");
    assert_eq!(credits(&app, &key).await, 0);
    shutdown.cancel();
    creators.await.unwrap();
}

#[rstest]
#[tokio::test]
async fn a_deactivated_creator_is_reactivated_by_a_new_job(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    queue(&app, &key, "tiktok", "mira.cooks", 1).await;
    app.run_jobs_until_idle().await;
    let account = pause_creator(&app, org, &key, "mira.cooks").await;
    let a = app
        .get("/v1/bloggers/by-username/mira.cooks", Some(&key))
        .await;
    assert_eq!(a.body["data"]["blogger"]["is_active"], false);

    let id = queue(&app, &key, "tiktok", "mira.cooks", 1).await;
    let a = start(
        &app,
        &key,
        json!({"platform": "tiktok", "username": "mira.cooks"}),
    )
    .await;
    assert_nested_error(&a, 409, "CREATOR_REACTIVATE_IN_FLIGHT");
    assert_eq!(a.body["error"]["job_id"], id.as_str());
    app.run_jobs_until_idle().await;
    let d = job(&app, &key, &id).await.body["data"].clone();
    assert_eq!(d["is_reactivation"], true);
    assert_eq!(d["tracked_account_id"], account.to_string().as_str());
    assert_eq!(d["result"]["is_active"], true);
    // The video tracked the first time is not charged again.
    assert_eq!(credits(&app, &key).await, 30);
}

#[rstest]
#[tokio::test]
async fn daily_discovery_tracks_new_videos_and_refreshes_the_profile(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    queue(&app, &key, "tiktok", "ana_builds", 2).await;
    app.run_jobs_until_idle().await;
    let before = app
        .get("/v1/bloggers/by-username/ana_builds", Some(&key))
        .await;
    let fetched = before.body["data"]["blogger"]["last_fetched_at"].clone();
    assert_eq!(
        app.run_discovery_until_idle().await,
        0,
        "not due before a day"
    );
    for _ in 0..4 {
        app.advance(Duration::days(1));
        assert_eq!(app.run_discovery_until_idle().await, 1);
    }
    assert!(
        video_count(&app, &key).await > 2,
        "new uploads were tracked"
    );
    let after = app
        .get("/v1/bloggers/by-username/ana_builds", Some(&key))
        .await;
    let b = &after.body["data"]["blogger"];
    assert_ne!(b["last_fetched_at"], fetched);
    assert!(b["last_scraped_at"].is_string() && b["discovery_note"].is_null());
    let n = video_count(&app, &key).await as i64;
    assert_eq!(credits(&app, &key).await, n * 30);
}

#[rstest]
#[tokio::test]
async fn discovery_with_a_full_quota_skips_and_says_why(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    set_limits(&app, org, 2, 10).await;
    queue(&app, &key, "tiktok", "ana_builds", 2).await;
    app.run_jobs_until_idle().await;
    // The channel posts every 12 to 72 hours: each run that finds new videos
    // skips them and says why (a run that finds none clears the note).
    let mut notes = Vec::new();
    for _ in 0..4 {
        app.advance(Duration::days(1));
        app.run_discovery_until_idle().await;
        let a = app
            .get("/v1/bloggers/by-username/ana_builds", Some(&key))
            .await;
        let b = &a.body["data"]["blogger"];
        assert_eq!(b["is_active"], true, "a full quota never fails the creator");
        notes.push(b["discovery_note"].clone());
    }
    assert_eq!(video_count(&app, &key).await, 2);
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains("quota full"))),
        "{notes:?}"
    );
}

#[rstest]
#[tokio::test]
async fn creator_requests_are_rate_limited_per_key(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let config = TestConfig {
        api: ApiConfig {
            rate_limits: RateLimitConfig {
                creator_requests_per_minute: 2,
                ..RateLimitConfig::default()
            },
            ..ApiConfig::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let id = queue(&app, &key, "tiktok", "a.one", 0).await;
    queue(&app, &key, "tiktok", "a.two", 0).await;
    let a = start(
        &app,
        &key,
        json!({"platform": "tiktok", "username": "a.three"}),
    )
    .await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    assert!(a.headers.contains_key("retry-after"));
    // Job reads have a budget of their own.
    assert_eq!(job(&app, &key, &id).await.status.as_u16(), 200);
    assert_eq!(job(&app, &key, &id).await.status.as_u16(), 200);
    assert_nested_error(&job(&app, &key, &id).await, 429, "RATE_LIMIT_EXCEEDED");
}
