//! Tracking as long as the campaign runs (issue 37): a video whose campaign
//! ends after its 30-day window is read daily until 7 days after the
//! campaign's `ends_on`, `tracking_ends_at` follows the campaign, every
//! record carries `next_refresh_at`, and the operator's daily read cap per
//! organization skips reads that usage then shows.

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::{OrgId, Plan, Platform, VideoRef};
use vidpulse_store::testing::{execute, rollup_dump};
use vidpulse_store::{Backend, TrackBatch, TrackOutcome};
use vidpulse_worker::RefreshConfig;

use crate::helpers::{TIKTOK, TestApp, TestConfig, YOUTUBE, youtube};

fn at(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("a time: {v}")))
        .unwrap()
        .with_timezone(&Utc)
}

async fn record(app: &TestApp, key: &str, id: &str) -> Value {
    let a = app.get(&format!("/v1/videos/by-id/{id}"), Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"]["data"].clone()
}

async fn track_one(app: &TestApp, key: &str, url: &str) -> String {
    let t = app.track(key, &[url]).await;
    t["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn set_campaign(app: &TestApp, key: &str, id: &str, campaign: Value) {
    let a = app
        .patch(
            "/v1/videos/batch",
            key,
            &json!({ "video_ids": [id], "campaign": campaign }),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
}

/// Sets the last day of the organization's campaign `name` behind the
/// store's back (as the campaigns' own PATCH would, without its retiming).
async fn set_ends_on(app: &TestApp, name: &str, day: NaiveDate) {
    let sql = format!("UPDATE campaigns SET ends_on = '{day}' WHERE name = '{name}'");
    execute(&app.db.url, &[&sql]).await.unwrap();
}

/// The start of the 8th day after `day` (UTC).
fn after_campaign(day: NaiveDate) -> DateTime<Utc> {
    (day + Duration::days(8)).and_time(NaiveTime::MIN).and_utc()
}

/// The rollup kept by the writes equals one rebuilt from every close.
async fn assert_rollup_settled(app: &TestApp) {
    let kept = rollup_dump(&app.db.url).await.unwrap();
    app.store.rebuild_analytics().await.unwrap();
    assert_eq!(
        kept,
        rollup_dump(&app.db.url).await.unwrap(),
        "rollup drifted"
    );
}

#[rstest]
#[tokio::test]
async fn a_campaign_keeps_its_video_read_daily_until_seven_days_after_it(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let start = app.clock_now();
    let id = track_one(&app, &key, YOUTUBE).await;
    assert_eq!(app.run_worker_until_idle().await, 1);
    let r = record(&app, &key, &id).await;
    assert_eq!(at(&r["tracking_ends_at"]), start + Duration::days(30));
    assert_eq!(
        at(&r["next_refresh_at"]),
        start + Duration::minutes(15),
        "the next read is on the record"
    );

    // A campaign without dates changes nothing; one ending 60 days after
    // the tracking began tracks it until 7 days after that day.
    set_campaign(&app, &key, &id, json!("Launch")).await;
    let r = record(&app, &key, &id).await;
    assert_eq!(at(&r["tracking_ends_at"]), start + Duration::days(30));
    let ends_on = (start + Duration::days(60)).date_naive();
    set_ends_on(&app, "Launch", ends_on).await;
    set_campaign(&app, &key, &id, json!("launch")).await;
    let r = record(&app, &key, &id).await;
    assert_eq!(r["campaign"], "Launch");
    let end = after_campaign(ends_on);
    assert_eq!(at(&r["tracking_ends_at"]), end);
    assert_rollup_settled(&app).await;

    // Past day 30: read, then daily.
    app.advance(Duration::days(31));
    assert_eq!(app.run_worker_until_idle().await, 1);
    let r = record(&app, &key, &id).await;
    assert_eq!(r["tracking_status"], "active");
    let read_at = at(&r["stats_last_updated"]);
    assert_eq!(read_at, app.clock_now(), "the reading is visible");
    assert_eq!(at(&r["next_refresh_at"]), read_at + Duration::days(1));
    app.advance(Duration::hours(23));
    assert_eq!(app.run_worker_until_idle().await, 0, "daily, not every 6 h");
    app.advance(Duration::hours(1));
    assert_eq!(app.run_worker_until_idle().await, 1);

    // Analytics count the days past day 30.
    let day = |d: DateTime<Utc>| d.date_naive().to_string();
    let totals = app
        .get(
            &format!(
                "/v1/analytics/metrics/totals?from={}&to={}",
                day(read_at),
                day(app.clock_now())
            ),
            Some(&key),
        )
        .await;
    assert_eq!(totals.status.as_u16(), 200, "{}", totals.body);
    assert!(
        totals.body["data"]["total"]["views"].as_i64().unwrap() > 0,
        "{}",
        totals.body
    );
    let history = r["stats"]["views"].as_object().unwrap().len();
    assert!(
        record(&app, &key, &id).await["stats"]["views"]
            .as_object()
            .unwrap()
            .len()
            > history
    );
    assert_rollup_settled(&app).await;

    // Until 7 days after the campaign: a last read at the end, then none.
    app.clock.set(end - Duration::hours(1));
    assert_eq!(app.run_worker_until_idle().await, 1);
    let r = record(&app, &key, &id).await;
    assert_eq!(at(&r["next_refresh_at"]), end, "one last read at the end");
    app.clock.set(end);
    assert_eq!(app.run_worker_until_idle().await, 1);
    app.advance(Duration::days(2));
    assert_eq!(app.run_worker_until_idle().await, 0);
    let r = record(&app, &key, &id).await;
    assert_eq!(r["tracking_status"], "completed");
    assert_eq!(r["next_refresh_at"], Value::Null);
    // The dashboard's video objects show the same.
    let list = app.get("/v1/videos/stats", Some(&key)).await;
    let item = &list.body["data"]["data"][0];
    assert_eq!(item["next_refresh_at"], Value::Null, "{}", list.body);
    assert_eq!(at(&item["tracking_ends_at"]), end);
}

#[rstest]
#[tokio::test]
async fn tracking_ends_at_follows_the_campaign_and_its_dates(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other_key) = app.org_with_key(Plan::Pro).await;
    let start = app.clock_now();
    let id = track_one(&app, &key, TIKTOK).await;
    // Another organization tracks the same video, without a campaign.
    let other = track_one(&app, &other_key, TIKTOK).await;
    app.run_worker_until_idle().await;
    let window_end = start + Duration::days(30);

    // Attached to a campaign ending in 45 days: 53 days.
    set_campaign(&app, &key, &id, json!("Winter")).await;
    let ends_on = (start + Duration::days(45)).date_naive();
    set_ends_on(&app, "Winter", ends_on).await;
    set_campaign(&app, &key, &id, json!("WINTER")).await;
    assert_eq!(
        at(&record(&app, &key, &id).await["tracking_ends_at"]),
        after_campaign(ends_on)
    );
    // The other organization's tracking is its own.
    assert_eq!(
        at(&record(&app, &other_key, &other).await["tracking_ends_at"]),
        window_end
    );
    // A campaign ending sooner than the window keeps the window.
    let early = (start + Duration::days(5)).date_naive();
    set_ends_on(&app, "Winter", early).await;
    set_campaign(&app, &key, &id, json!("Winter")).await;
    assert_eq!(
        at(&record(&app, &key, &id).await["tracking_ends_at"]),
        window_end
    );
    set_ends_on(&app, "Winter", ends_on).await;
    set_campaign(&app, &key, &id, json!("Winter")).await;
    assert_rollup_settled(&app).await;

    // Cleared: back to the 30 days. Batch PATCH attaches again.
    set_campaign(&app, &key, &id, Value::Null).await;
    assert_eq!(
        at(&record(&app, &key, &id).await["tracking_ends_at"]),
        window_end
    );
    assert_rollup_settled(&app).await;
    let a = app
        .patch(
            "/v1/videos/batch",
            &key,
            &json!({"video_ids": [id], "campaign": "winter"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        at(&record(&app, &key, &id).await["tracking_ends_at"]),
        after_campaign(ends_on)
    );

    // A tracking that had ended is read again once a campaign extends it.
    set_campaign(&app, &key, &id, Value::Null).await;
    app.advance(Duration::days(31));
    app.run_worker_until_idle().await;
    assert_eq!(app.run_worker_until_idle().await, 0);
    let r = record(&app, &key, &id).await;
    assert_eq!(r["tracking_status"], "completed");
    assert_eq!(r["next_refresh_at"], Value::Null);
    set_campaign(&app, &key, &id, json!("Winter")).await;
    let r = record(&app, &key, &id).await;
    assert_eq!(r["tracking_status"], "active");
    assert!(at(&r["next_refresh_at"]) <= app.clock_now(), "due again");
    assert_eq!(app.run_worker_until_idle().await, 1);
    let r = record(&app, &key, &id).await;
    assert_eq!(at(&r["stats_last_updated"]), app.clock_now());
    assert_eq!(
        record(&app, &other_key, &other).await["next_refresh_at"],
        Value::Null,
        "the other organization's tracking has ended"
    );
    assert_rollup_settled(&app).await;
}

#[rstest]
#[tokio::test]
async fn a_creators_new_video_starts_tracked_as_long_as_its_campaign(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let start = app.clock_now();
    // The campaign exists with its dates before the creator's videos come.
    let id = track_one(&app, &key, YOUTUBE).await;
    set_campaign(&app, &key, &id, json!("Spring")).await;
    let ends_on = (start + Duration::days(50)).date_naive();
    set_ends_on(&app, "Spring", ends_on).await;
    // A creator's discovery tracks a new video with the creator's campaign
    // (as `finish_creator_job` and the discovery build their batch).
    let batch = TrackBatch {
        organization_id: OrgId(org),
        api_key_id: None,
        request_id: "req-discovery".into(),
        now: start,
        window: Duration::days(30),
        credits_per_video: 30,
        videos: vec![VideoRef {
            platform: Platform::YouTube,
            external_id: "spring00001".into(),
            canonical_url: "https://www.youtube.com/watch?v=spring00001".into(),
        }],
        campaign: Some("Spring".into()),
        budget: None,
        account: None,
    };
    let TrackOutcome::Tracked(tracked) = app.store.track_videos(batch).await.unwrap() else {
        panic!("not tracked");
    };
    let new_id = tracked[0].video_id.0.to_string();
    let r = record(&app, &key, &new_id).await;
    assert_eq!(r["campaign"], "Spring");
    assert_eq!(at(&r["tracking_ends_at"]), after_campaign(ends_on));
    // Leaving the campaign brings it back to its own 30 days.
    set_campaign(&app, &key, &new_id, Value::Null).await;
    assert_eq!(
        at(&record(&app, &key, &new_id).await["tracking_ends_at"]),
        start + Duration::days(30)
    );
    assert_rollup_settled(&app).await;
}

fn capped(cap: i64) -> TestConfig {
    TestConfig {
        refresh: RefreshConfig {
            read_cap: Some(cap),
            ..RefreshConfig::default()
        },
        ..TestConfig::default()
    }
}

async fn usage(app: &TestApp, key: &str) -> Value {
    let a = app.get("/v1/account/usage", Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"].clone()
}

#[rstest]
#[tokio::test]
async fn the_daily_read_cap_skips_reads_and_usage_shows_them(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn_with(backend, capped(3)).await;
    // At 01:00 UTC, so that the test's day does not end under it.
    let next_day = app.clock_now().date_naive() + Duration::days(1);
    app.clock
        .set(next_day.and_time(NaiveTime::MIN).and_utc() + Duration::hours(1));
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other_key) = app.org_with_key(Plan::Pro).await;
    let urls: Vec<String> = (0..5).map(youtube).collect();
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    app.track(&key, &refs).await;
    // Three reads today, then the other two wait for tomorrow.
    assert_eq!(app.run_worker_until_idle().await, 3);
    let u = usage(&app, &key).await;
    assert_eq!(u["limits"]["read_cap"], 3);
    assert_eq!(u["usage_history"][0]["reads_skipped"], 2, "{u}");
    assert_eq!(u["summary"]["reads_skipped_30_days"], 2);
    let list = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    let videos = list.body["data"]["data"].as_array().unwrap().clone();
    let unread: Vec<&Value> = videos
        .iter()
        .filter(|v| v["stats_last_updated"].is_null())
        .collect();
    assert_eq!(unread.len(), 2);
    let tomorrow = (app.clock_now().date_naive() + Duration::days(1))
        .and_time(NaiveTime::MIN)
        .and_utc();
    for v in &unread {
        assert_eq!(at(&v["next_refresh_at"]), tomorrow, "{v}");
    }
    // The capped organization's reads wait even when due.
    app.advance(Duration::minutes(15));
    assert_eq!(app.run_worker_until_idle().await, 0);
    assert_eq!(
        usage(&app, &key).await["usage_history"][0]["reads_skipped"],
        5
    );

    // The next UTC day, reads resume, up to the cap again.
    app.clock.set(tomorrow);
    assert_eq!(app.run_worker_until_idle().await, 3);
    let list = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    let videos = list.body["data"]["data"].as_array().unwrap().clone();
    let waiting: Vec<&Value> = videos
        .iter()
        .filter(|v| at(&v["next_refresh_at"]) > tomorrow + Duration::hours(1))
        .collect();
    assert_eq!(waiting.len(), 2, "{}", list.body);

    // A video another organization under the cap tracks is read: the read
    // counts for both, and skips nothing of the other's.
    let shared = waiting[0]["url"].as_str().unwrap().to_owned();
    app.track(&other_key, &[&shared]).await;
    assert_eq!(app.run_worker_until_idle().await, 1);
    let other_usage = usage(&app, &other_key).await;
    assert_eq!(other_usage["usage_history"][0]["reads_skipped"], 0);
    let u = usage(&app, &key).await;
    assert_eq!(u["usage_history"][0]["reads_skipped"], 2, "{u}");
    assert_eq!(u["summary"]["reads_skipped_30_days"], 7);
}

#[rstest]
#[tokio::test]
async fn without_a_cap_nothing_is_skipped(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let urls: Vec<String> = (0..5).map(youtube).collect();
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    app.track(&key, &refs).await;
    assert_eq!(app.run_worker_until_idle().await, 5);
    for _ in 0..4 {
        app.advance(Duration::minutes(15));
        assert_eq!(app.run_worker_until_idle().await, 5);
    }
    let u = usage(&app, &key).await;
    assert_eq!(u["limits"]["read_cap"], Value::Null);
    assert_eq!(u["usage_history"][0]["reads_skipped"], 0);
    assert_eq!(u["summary"]["reads_skipped_30_days"], 0);
}

#[rstest]
#[tokio::test]
async fn the_campaigns_own_edits_move_tracking_ends_at(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let start = app.clock_now();
    let id = track_one(&app, &key, TIKTOK).await;
    app.run_worker_until_idle().await;
    let window_end = start + Duration::days(30);
    let ends_on = (start + Duration::days(40)).date_naive();
    let created = app
        .post(
            "/v1/campaigns",
            &key,
            &json!({"name": "Autumn", "ends_on": ends_on.to_string()}),
        )
        .await;
    assert_eq!(created.status.as_u16(), 201, "{}", created.body);
    let campaign = created.body["data"]["id"].as_str().unwrap().to_owned();
    // Attached by a video PATCH in another case: tracked until 7 days after it.
    set_campaign(&app, &key, &id, json!("autumn")).await;
    assert_eq!(
        at(&record(&app, &key, &id).await["tracking_ends_at"]),
        after_campaign(ends_on)
    );
    // The campaign's PATCH moves its end; a rename keeps it.
    let later = ends_on + Duration::days(20);
    let moved = app
        .patch(
            &format!("/v1/campaigns/{campaign}"),
            &key,
            &json!({"ends_on": later.to_string()}),
        )
        .await;
    assert_eq!(moved.status.as_u16(), 200, "{}", moved.body);
    assert_eq!(
        at(&record(&app, &key, &id).await["tracking_ends_at"]),
        after_campaign(later)
    );
    let renamed = app
        .patch(
            &format!("/v1/campaigns/{campaign}"),
            &key,
            &json!({"name": "Autumn 2026"}),
        )
        .await;
    assert_eq!(renamed.status.as_u16(), 200, "{}", renamed.body);
    let r = record(&app, &key, &id).await;
    assert_eq!(r["campaign"], "Autumn 2026");
    assert_eq!(at(&r["tracking_ends_at"]), after_campaign(later));
    // Without an end: the 30 days again; deleted: likewise, and the video stays.
    let cleared = app
        .patch(
            &format!("/v1/campaigns/{campaign}"),
            &key,
            &json!({"ends_on": null}),
        )
        .await;
    assert_eq!(cleared.status.as_u16(), 200, "{}", cleared.body);
    assert_eq!(
        at(&record(&app, &key, &id).await["tracking_ends_at"]),
        window_end
    );
    app.patch(
        &format!("/v1/campaigns/{campaign}"),
        &key,
        &json!({"ends_on": later.to_string()}),
    )
    .await;
    let deleted = app.delete(&format!("/v1/campaigns/{campaign}"), &key).await;
    assert_eq!(deleted.status.as_u16(), 200, "{}", deleted.body);
    let r = record(&app, &key, &id).await;
    assert_eq!(r["campaign"], Value::Null);
    assert_eq!(at(&r["tracking_ends_at"]), window_end);
    assert_rollup_settled(&app).await;
}
