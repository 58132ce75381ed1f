//! The listing's filters and sorts beyond the spec's (`GET /v1/videos/stats`):
//! publish and tracking days, the gains over a window, and the refusal of
//! parameters it does not know. On the crafted history of the analytics
//! tests (`crate::analytics`): A (TikTok, "Mira", published D−3, tracked
//! from D), B (YouTube, "mira", published D−3, tracked from D+2), C (TikTok,
//! "Ana", published D+1, tracked from D+1); day `D` twelve days before today.

use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::Clock;
use vidpulse_store::Backend;

use crate::analytics::{A, B, C, d, with_history};
use crate::helpers::{TestApp, assert_flat_error, youtube};

/// The external ids of a listing, in order.
async fn ids(app: &TestApp, key: &str, query: &str) -> Vec<String> {
    let data = page(app, key, query).await;
    data["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["external_video_id"].as_str().unwrap().to_owned())
        .collect()
}

async fn page(app: &TestApp, key: &str, query: &str) -> Value {
    let a = app
        .get(&format!("/v1/videos/stats?{query}"), Some(key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{query}: {}", a.body);
    a.body["data"].clone()
}

/// The external ids of a listing, sorted.
async fn set_of(app: &TestApp, key: &str, query: impl AsRef<str>) -> Vec<String> {
    let mut listed = ids(app, key, query.as_ref()).await;
    listed.sort();
    listed
}

/// `(external id, gained views)` of a listing, in order.
async fn gained(app: &TestApp, key: &str, query: &str) -> Vec<(String, Value)> {
    page(app, key, query).await["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["external_video_id"].as_str().unwrap().to_owned(),
                v["gained"]["views"].clone(),
            )
        })
        .collect()
}

fn g(id: &str, views: Value) -> (String, Value) {
    (id.to_owned(), views)
}

#[rstest]
#[tokio::test]
async fn sorts_by_what_videos_gained_over_a_window(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let window = format!("from={}&to={}", d(&app, 3), d(&app, 5));

    assert_eq!(
        gained(&app, &key, &format!("sort=views_gained&{window}")).await,
        vec![g(A, json!(3000)), g(B, json!(1000)), g(C, json!(-280))]
    );
    assert_eq!(
        gained(&app, &key, &format!("sort=views_gained&order=asc&{window}")).await,
        vec![g(C, json!(-280)), g(B, json!(1000)), g(A, json!(3000))]
    );
    let data = page(&app, &key, &format!("sort=likes_gained&{window}&limit=1")).await;
    assert_eq!(
        data["window"],
        json!({"from": d(&app, 3), "to": d(&app, 5), "baseline": "window"})
    );
    let first = &data["data"][0];
    assert_eq!(first["external_video_id"], A);
    assert_eq!(
        first["gained"],
        json!({"views": 3000, "likes": 300, "comments": 30, "reposts": 60, "saves": 0})
    );
    assert_eq!(
        data["pagination"],
        json!({"total": 3, "limit": 1, "offset": 0, "has_more": true})
    );
    // The second page continues the order.
    assert_eq!(
        ids(
            &app,
            &key,
            &format!("sort=likes_gained&{window}&limit=2&offset=1")
        )
        .await,
        vec![B, C]
    );

    // A window where only A has a reading: the others gained nothing
    // measurable (null) and come last, in either order.
    let last_day = format!("from={}&to={}", d(&app, 9), d(&app, 9));
    let listed = gained(&app, &key, &format!("sort=views_gained&{last_day}")).await;
    assert_eq!(listed[0], g(A, json!(1000)));
    assert_eq!(
        (listed[1].1.clone(), listed[2].1.clone()),
        (Value::Null, Value::Null)
    );
    let listed = gained(
        &app,
        &key,
        &format!("sort=views_gained&order=asc&{last_day}"),
    )
    .await;
    assert_eq!(listed[0], g(A, json!(1000)));

    // The default window: the 30 days ending today, all of the history.
    let data = page(&app, &key, "sort=views_gained").await;
    let today = app.clock.now().date_naive();
    assert_eq!(
        data["window"],
        json!({"from": (today - chrono::Duration::days(29)).to_string(), "to": today.to_string(), "baseline": "window"})
    );
    assert_eq!(
        gained(&app, &key, "sort=views_gained").await,
        vec![g(B, json!(56_000)), g(A, json!(10_400)), g(C, json!(80))]
    );

    // `from`/`to` without a gained sort: the gains, in the usual order.
    let data = page(&app, &key, &window).await;
    assert!(
        data["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["gained"].is_object())
    );
    // Neither: no gains, no window.
    let data = page(&app, &key, "").await;
    assert!(data.get("window").is_none());
    assert!(data["data"][0].get("gained").is_none());
}

#[rstest]
#[tokio::test]
async fn filters_by_publish_and_tracking_days_and_combine(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    let set = |ids: &[&str]| {
        let mut v: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(
        set_of(&app, &key, format!("published_from={}", d(&app, 0))).await,
        set(&[C])
    );
    assert_eq!(
        set_of(&app, &key, format!("published_to={}", d(&app, -3))).await,
        set(&[A, B])
    );
    assert_eq!(
        set_of(
            &app,
            &key,
            format!("published_from={0}&published_to={0}", d(&app, -3))
        )
        .await,
        set(&[A, B])
    );
    assert_eq!(
        set_of(&app, &key, format!("published_to={}", d(&app, -4))).await,
        set(&[])
    );
    assert_eq!(
        set_of(&app, &key, format!("tracked_from={}", d(&app, 1))).await,
        set(&[B, C])
    );
    assert_eq!(
        set_of(&app, &key, format!("tracked_to={}", d(&app, 0))).await,
        set(&[A])
    );
    assert_eq!(
        set_of(
            &app,
            &key,
            format!("tracked_from={0}&tracked_to={0}", d(&app, 2))
        )
        .await,
        set(&[B])
    );
    // Combined with the other filters.
    assert_eq!(
        set_of(
            &app,
            &key,
            format!("platform=TikTok&published_to={}", d(&app, -3))
        )
        .await,
        set(&[A])
    );
    assert_eq!(set_of(&app, &key, "blogger=%40MIRA").await, set(&[A, B]));
    assert_eq!(
        set_of(
            &app,
            &key,
            format!("blogger=mira&tracked_from={}", d(&app, 1))
        )
        .await,
        set(&[B])
    );
    for (video, body) in [
        (A, json!({"campaign": "Spring", "tags": ["hero"]})),
        (B, json!({"campaign": "Spring"})),
        (C, json!({"tags": ["hero"]})),
    ] {
        let a = app
            .patch(&format!("/v1/videos/by-external-id/{video}"), &key, &body)
            .await;
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    }
    assert_eq!(
        set_of(&app, &key, "campaign=Spring&tag=HERO").await,
        set(&[A])
    );
    assert_eq!(
        set_of(
            &app,
            &key,
            format!("tag=hero&published_from={}", d(&app, 0))
        )
        .await,
        set(&[C])
    );
    assert_eq!(
        set_of(
            &app,
            &key,
            format!(
                "campaign=Spring&blogger=mira&platform=youtube&tracked_to={}",
                d(&app, 2)
            )
        )
        .await,
        set(&[B])
    );
    let data = page(
        &app,
        &key,
        &format!("campaign=Spring&published_to={}", d(&app, -3)),
    )
    .await;
    assert_eq!(data["pagination"]["total"], 2);
}

#[rstest]
#[tokio::test]
async fn sorts_by_comments_and_publish_time(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(vidpulse_domain::Plan::Pro).await;
    for i in 0..6 {
        app.track(&key, &[&youtube(i)]).await;
    }
    app.run_worker_until_idle().await;
    for (sort, field) in [("comments", "comments"), ("published_at", "published_at")] {
        for order in ["desc", "asc"] {
            let data = page(&app, &key, &format!("sort={sort}&order={order}")).await;
            let values: Vec<Value> = data["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v[field].clone())
                .collect();
            assert_eq!(values.len(), 6);
            assert!(values.iter().all(|v| !v.is_null()), "{values:?}");
            let mut expected = values.clone();
            expected.sort_by(|a, b| match (a.as_i64(), b.as_i64()) {
                (Some(a), Some(b)) => a.cmp(&b),
                _ => a.as_str().cmp(&b.as_str()),
            });
            if order == "desc" {
                expected.reverse();
            }
            assert_eq!(values, expected, "sort={sort}&order={order}");
        }
    }
}

#[rstest]
#[tokio::test]
async fn unknown_and_malformed_parameters_are_refused(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = with_history(&app).await;
    for (query, parameter) in [
        ("search=mira", "search"),
        ("page=2", "page"),
        ("limit=10&Sort=views", "Sort"),
        ("from=2026-1-1", "from"),
        ("to=yesterday", "to"),
        ("from=2026-11-10&to=2026-11-01", "from"),
        ("from=2025-01-01&to=2026-11-01", "from"),
        ("published_from=2026-02-30", "published_from"),
        (
            "published_from=2026-11-10&published_to=2026-11-01",
            "published_from",
        ),
        ("tracked_to=soon", "tracked_to"),
        (
            "tracked_from=2026-11-10&tracked_to=2026-11-01",
            "tracked_from",
        ),
        ("sort=views_gain", "sort"),
    ] {
        let a = app
            .get(&format!("/v1/videos/stats?{query}"), Some(&key))
            .await;
        assert_flat_error(&a, 400, "INVALID_PARAMETER");
        assert_eq!(
            a.body["details"]["parameter"], parameter,
            "{query}: {}",
            a.body
        );
    }
    let a = app.get("/v1/videos/stats?search=mira", Some(&key)).await;
    assert!(
        a.body["error"].as_str().unwrap().contains("`search`"),
        "{}",
        a.body
    );
    // Empty values are as good as absent.
    assert_eq!(
        ids(&app, &key, "from=&to=&published_from=&tracked_to=")
            .await
            .len(),
        3
    );
}
