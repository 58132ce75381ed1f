use std::collections::HashSet;

use chrono::{Datelike, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::{Clock, OrgId, Plan};
use vidpulse_store::{Backend, Charge};

use crate::helpers::{TestApp, TestConfig, assert_nested_error};

const SEARCH: &str = "/v1/trends/search?platform=tiktok&keyword=kitchen";

async fn credits(app: &TestApp, key: &str) -> i64 {
    app.flush_usage().await;
    app.get("/v1/account/usage", Some(key)).await.body["data"]["summary"]["total_credits_30_days"]
        .as_i64()
        .unwrap()
}

#[rstest]
#[tokio::test]
async fn search_pages_through_results_and_charges_one_credit_each(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let a = app
        .get(&format!("{SEARCH}&region=us&days=30"), Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let data = &a.body["data"];
    let videos = data["videos"].as_array().unwrap();
    assert!(!videos.is_empty());
    let v = &videos[0];
    assert!(v["id"].is_string() && v["url"].is_string());
    for stat in ["plays", "likes", "comments", "shares"] {
        assert!(v["stats"][stat].is_number(), "{stat}: {v}");
    }
    assert!(v["author"]["username"].is_string());
    assert_eq!(a.body["meta"]["credits_used"], 1);
    assert!(
        a.body["meta"]["request_id"].is_string()
            && a.body["meta"]["processing_time_ms"].is_number()
    );

    // Follow the cursor to the end: pages never overlap.
    let mut seen: HashSet<String> = videos
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    let mut cursor = data["cursor"].as_str().unwrap().to_owned();
    let mut has_more = data["hasMore"].as_bool().unwrap();
    let mut pages = 1;
    while has_more {
        let a = app
            .get(
                &format!("{SEARCH}&region=us&days=30&cursor={cursor}"),
                Some(&key),
            )
            .await;
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        for v in a.body["data"]["videos"].as_array().unwrap() {
            assert!(
                seen.insert(v["id"].as_str().unwrap().to_owned()),
                "duplicate across pages"
            );
        }
        cursor = a.body["data"]["cursor"].as_str().unwrap().to_owned();
        has_more = a.body["data"]["hasMore"].as_bool().unwrap();
        pages += 1;
        assert!(pages < 50);
    }
    assert_eq!(cursor, "", "the last page has an empty cursor");
    assert_eq!(credits(&app, &key).await, pages);

    // YouTube too.
    let a = app
        .get(
            "/v1/trends/search?platform=youtube&keyword=garlic",
            Some(&key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
}

#[rstest]
#[tokio::test]
async fn search_errors_charge_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, free) = app.org_with_key(Plan::Free).await;
    let (_, key) = app.org_with_key(Plan::Business).await;

    assert_nested_error(&app.get(SEARCH, None).await, 401, "MISSING_AUTH");
    assert_nested_error(
        &app.get(SEARCH, Some("bogus")).await,
        401,
        "AUTHENTICATION_FAILED",
    );
    let a = app.get(SEARCH, Some(&free)).await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    assert!(a.body["error"]["upgrade_url"].is_string());

    for (q, field) in [
        ("platform=tiktok", "keyword"),
        ("platform=tiktok&keyword=%20%20", "keyword"),
        ("keyword=x", "platform"),
        ("keyword=x&platform=instagram", "platform"),
        ("keyword=x&platform=TikTok", "platform"),
        ("keyword=x&platform=tiktok&region=USA", "region"),
        ("keyword=x&platform=tiktok&region=1a", "region"),
        ("keyword=x&platform=tiktok&days=-1", "days"),
        ("keyword=x&platform=tiktok&days=week", "days"),
        ("keyword=x&platform=tiktok&cursor=garbage", "cursor"),
    ] {
        let a = app.get(&format!("/v1/trends/search?{q}"), Some(&key)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{q}");
    }
    let long = "k".repeat(101);
    assert_nested_error(
        &app.get(
            &format!("/v1/trends/search?platform=tiktok&keyword={long}"),
            Some(&key),
        )
        .await,
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(credits(&app, &key).await, 0);
}

#[rstest]
#[tokio::test]
async fn an_upstream_failure_is_502_and_free(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let config = TestConfig {
        sim: vidpulse_platforms::SimulatedConfig {
            fail_rate: 1.0,
            ..Default::default()
        },
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    assert_nested_error(
        &app.get(SEARCH, Some(&key)).await,
        502,
        "EXTERNAL_API_ERROR",
    );
    assert_eq!(credits(&app, &key).await, 0);
}

#[rstest]
#[tokio::test]
async fn the_monthly_limit_answers_429_until_next_month(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let now = app.clock.now();
    // 999 searches already this month (and some last month, which do not count).
    for i in 0..1001 {
        let at = if i < 999 {
            now
        } else {
            now - chrono::Duration::days(40)
        };
        app.store
            .charge(&Charge {
                organization_id: OrgId(org),
                api_key_id: None,
                request_id: format!("seed-{i}"),
                amount: 1,
                reason: "trend_search",
                subject: None,
                at,
            })
            .await
            .unwrap();
    }
    assert_eq!(app.get(SEARCH, Some(&key)).await.status.as_u16(), 200);
    let a = app.get(SEARCH, Some(&key)).await;
    assert_nested_error(&a, 429, "RATE_LIMIT_EXCEEDED");
    let retry: i64 = a.headers["retry-after"].to_str().unwrap().parse().unwrap();
    let (y, m) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    let next_month = Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).unwrap();
    assert!(
        (retry - (next_month - now).num_seconds()).abs() <= 2,
        "{retry}"
    );

    // A new month starts a new budget.
    app.clock.set(next_month + chrono::Duration::minutes(1));
    assert_eq!(app.get(SEARCH, Some(&key)).await.status.as_u16(), 200);
}
