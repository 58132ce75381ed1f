//! The organization's creators listed (GET /v1/bloggers), their follower
//! history (GET /v1/bloggers/by-username/{username}/history) and the
//! follower gains creator answers carry: filters, pages, errors, other
//! organizations, the free plan and credits.

use chrono::Duration;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::helpers::{TestApp, assert_nested_error, pause_creator};

/// Tracks `username` on `platform` with `n` initial videos and runs the job.
async fn tracked(app: &TestApp, key: &str, platform: &str, username: &str, n: i64) {
    let body = json!({"platform": platform, "username": username, "initial_videos_count": n});
    let a = app.post("/v1/bloggers/track", key, &body).await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    assert_eq!(app.run_jobs_until_idle().await, 1);
}

async fn credits(app: &TestApp, key: &str) -> i64 {
    app.flush_usage().await;
    let a = app.get("/v1/account/usage", Some(key)).await;
    a.body["data"]["summary"]["total_credits_30_days"]
        .as_i64()
        .unwrap()
}

/// The listing's handles in order, and its pagination.
async fn list(app: &TestApp, key: &str, query: &str) -> (Vec<String>, Value) {
    let a = app.get(&format!("/v1/bloggers{query}"), Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{query}: {}", a.body);
    assert_eq!(a.body["success"], true);
    let names = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["channel_username"].as_str().unwrap().to_owned())
        .collect();
    (names, a.body["meta"]["pagination"].clone())
}

fn page(total: i64, limit: i64, offset: i64, has_more: bool) -> Value {
    json!({"total": total, "limit": limit, "offset": offset, "has_more": has_more})
}

#[rstest]
#[tokio::test]
async fn creators_are_listed_newest_first_filtered_and_paged(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    assert_eq!(list(&app, &key, "").await, (vec![], page(0, 50, 0, false)));

    tracked(&app, &key, "youtube", "MiraCooks", 3).await;
    app.advance(Duration::minutes(1));
    tracked(&app, &key, "tiktok", "ana_builds", 2).await;
    app.advance(Duration::minutes(1));
    tracked(&app, &key, "tiktok", "mira.cooks", 1).await;
    app.run_worker_until_idle().await;
    pause_creator(&app, org, &key, "mira.cooks").await;
    let spent = credits(&app, &key).await;

    // Every creator, most recently tracked first, shaped like the lookup's.
    let a = app.get("/v1/bloggers", Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let items = a.body["data"].as_array().unwrap();
    let names: Vec<&str> = items
        .iter()
        .map(|b| b["channel_username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mira.cooks", "ana_builds", "miracooks"]);
    assert_eq!(a.body["meta"]["pagination"], page(3, 50, 0, false));
    assert!(a.body["meta"]["request_id"].is_string());
    assert!(a.body["meta"]["processing_time_ms"].is_number());
    let lookup = app
        .get("/v1/bloggers/by-username/ana_builds", Some(&key))
        .await;
    assert_eq!(
        items[1], lookup.body["data"]["blogger"],
        "the lookup's record"
    );
    for b in items {
        assert!(b["follower_count"].as_i64().unwrap() > 0, "{b}");
        // One count recorded so far: no gain yet.
        assert_eq!(
            (
                b["follower_gain_7d"].clone(),
                b["follower_gain_30d"].clone()
            ),
            (json!(0), json!(0))
        );
    }
    let videos: Vec<i64> = items
        .iter()
        .map(|b| b["videos_tracked"].as_i64().unwrap())
        .collect();
    assert_eq!(videos, [1, 2, 3]);
    assert_eq!(items[0]["is_active"], false);
    // Views: the latest views of those videos, summed.
    let stats = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    let all_views: i64 = stats.body["data"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["views"].as_i64().unwrap_or(0))
        .sum();
    let listed_views: i64 = items.iter().map(|b| b["views"].as_i64().unwrap()).sum();
    assert!(all_views > 0);
    assert_eq!(listed_views, all_views);

    // Filters, each alone and together; platform in any case.
    let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    for (query, expected, total) in [
        ("?platform=tiktok", vec!["mira.cooks", "ana_builds"], 2),
        ("?platform=TikTok", vec!["mira.cooks", "ana_builds"], 2),
        ("?platform=youtube", vec!["miracooks"], 1),
        ("?platform=instagram", vec![], 0),
        ("?active=false", vec!["mira.cooks"], 1),
        ("?active=true", vec!["ana_builds", "miracooks"], 2),
        ("?active=true&platform=tiktok", vec!["ana_builds"], 1),
        (
            "?platform=",
            vec!["mira.cooks", "ana_builds", "miracooks"],
            3,
        ),
    ] {
        let (got, p) = list(&app, &key, query).await;
        assert_eq!(got, names(&expected), "{query}");
        assert_eq!(p["total"], total, "{query}");
    }
    // Pages.
    assert_eq!(
        list(&app, &key, "?limit=1").await,
        (names(&["mira.cooks"]), page(3, 1, 0, true))
    );
    assert_eq!(
        list(&app, &key, "?limit=1&offset=1").await,
        (names(&["ana_builds"]), page(3, 1, 1, true))
    );
    assert_eq!(
        list(&app, &key, "?limit=2&offset=1").await,
        (names(&["ana_builds", "miracooks"]), page(3, 2, 1, false))
    );
    assert_eq!(
        list(&app, &key, "?offset=3").await,
        (vec![], page(3, 50, 3, false))
    );
    assert_eq!(
        list(&app, &key, "?limit=100").await.1,
        page(3, 100, 0, false)
    );

    // Faults name their parameter; an unknown parameter is refused.
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=101", "limit"),
        ("?limit=ten", "limit"),
        ("?limit=", "limit"),
        ("?limit=1.5", "limit"),
        ("?offset=-1", "offset"),
        ("?offset=x", "offset"),
        ("?platform=vimeo", "platform"),
        ("?active=yes", "active"),
        ("?active=1", "active"),
        ("?sort=views", "sort"),
        ("?limit=5&status=active", "status"),
    ] {
        let a = app.get(&format!("/v1/bloggers{query}"), Some(&key)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}: {}", a.body);
    }
    let a = app.get("/v1/bloggers", None).await;
    assert_eq!(a.status.as_u16(), 401, "{}", a.body);

    // Another organization sees none of them.
    assert_eq!(
        list(&app, &other, "").await,
        (vec![], page(0, 50, 0, false))
    );

    // Free of charge, and open to every plan, the free one included.
    assert_eq!(credits(&app, &key).await, spent);
    vidpulse::commands::admin::set_plan(&app.store, org, Plan::Free, None, None)
        .await
        .unwrap();
    assert_eq!(list(&app, &key, "?limit=1").await.1["total"], 3);
    let a = app
        .get("/v1/bloggers/by-username/miracooks/history", Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(credits(&app, &key).await, spent);
}

/// The history's days as (date, count).
fn days(a: &Value) -> Vec<(String, i64)> {
    a["data"]["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["date"].as_str().unwrap().to_owned(),
                d["follower_count"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[rstest]
#[tokio::test]
async fn follower_counts_are_recorded_daily_and_their_gains_reported(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let (_, other) = app.org_with_key(Plan::Pro).await;
    let first = app.clock.now().date_naive();
    tracked(&app, &key, "youtube", "MiraCooks", 1).await;
    // Ten daily discoveries, each reading the profile.
    for _ in 0..10 {
        app.advance(Duration::days(1));
        assert_eq!(app.run_discovery_until_idle().await, 1);
    }
    let today = app.clock.now().date_naive();
    let path = "/v1/bloggers/by-username/%40miracooks/history";

    // Default window: the last 30 days ending today; one entry per day read.
    let a = app.get(path, Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let d = &a.body["data"];
    assert_eq!(d["platform"], "youtube");
    assert_eq!(
        d["channel_username"], "miracooks",
        "as the platform spells it"
    );
    assert_eq!(d["to"], today.to_string());
    assert_eq!(d["from"], (today - Duration::days(29)).to_string());
    let all = days(&a.body);
    assert_eq!(all.len(), 11);
    assert_eq!(all[0].0, first.to_string());
    assert_eq!(all[10].0, today.to_string());
    assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "ascending");
    assert!(
        all.windows(2).all(|w| w[0].1 <= w[1].1),
        "the simulation only grows"
    );

    // The creator answers carry the gains: from the count of 7 days ago,
    // and (tracked 10 days ago) from the first count for 30 days.
    let latest = all[10].1;
    let week_ago = all[3].1;
    let lookup = app
        .get("/v1/bloggers/by-username/miracooks", Some(&key))
        .await;
    let b = &lookup.body["data"]["blogger"];
    assert_eq!(b["follower_count"], latest);
    assert_eq!(b["follower_gain_7d"], latest - week_ago);
    assert_eq!(b["follower_gain_30d"], latest - all[0].1);
    assert!(b["follower_gain_30d"].as_i64().unwrap() > 0, "{b}");
    let listed = app.get("/v1/bloggers", Some(&key)).await;
    assert_eq!(&listed.body["data"][0], b);

    // A window: bounds inclusive, days without a record left out.
    let (from, to) = (first + Duration::days(2), first + Duration::days(4));
    let a = app
        .get(
            &format!("{path}?from={from}&to={to}&platform=YouTube"),
            Some(&key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(days(&a.body), all[2..=4].to_vec());
    assert_eq!(
        (a.body["data"]["from"].clone(), a.body["data"]["to"].clone()),
        (json!(from.to_string()), json!(to.to_string()))
    );
    let before = first - Duration::days(5);
    let a = app.get(&format!("{path}?to={before}"), Some(&key)).await;
    assert_eq!(days(&a.body), vec![]);
    // `to` alone: the 30 days ending on it.
    let a = app
        .get(
            &format!("{path}?to={}", first + Duration::days(1)),
            Some(&key),
        )
        .await;
    assert_eq!(days(&a.body), all[..2].to_vec());
    // At most 366 days.
    let a = app
        .get(
            &format!("{path}?from={}", today - Duration::days(365)),
            Some(&key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);

    // Faults name their parameter.
    for (query, field) in [
        (format!("?from={today}&to={first}"), "from"),
        (format!("?from={}", today - Duration::days(366)), "from"),
        ("?from=2026-13-01".to_owned(), "from"),
        ("?to=yesterday".to_owned(), "to"),
        ("?from=2026-1-5".to_owned(), "from"),
        ("?platform=vimeo".to_owned(), "platform"),
        ("?days=7".to_owned(), "days"),
    ] {
        let a = app.get(&format!("{path}{query}"), Some(&key)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}: {}", a.body);
    }
    let a = app
        .get("/v1/bloggers/by-username/a%20b/history", Some(&key))
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "username");

    // Not tracked: on that platform, at all, or by this organization.
    for (k, p) in [
        (&key, format!("{path}?platform=tiktok")),
        (&key, "/v1/bloggers/by-username/nobody/history".to_owned()),
        (&other, path.to_owned()),
    ] {
        assert_nested_error(&app.get(&p, Some(k)).await, 404, "BLOGGER_NOT_TRACKED");
    }
    assert_eq!(app.get(path, None).await.status.as_u16(), 401);
}
