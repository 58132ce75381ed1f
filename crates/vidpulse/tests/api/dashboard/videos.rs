//! The dashboard's videos, usage and creator jobs: the public endpoints'
//! rules and answers, for signed-in members by role, in the nested envelope.

use reqwest::Method;
use rstest::rstest;
use serde_json::json;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use super::{call, member, team};
use crate::helpers::{INSTAGRAM, TIKTOK, TestApp, YOUTUBE, assert_nested_error, youtube};

#[rstest]
#[tokio::test]
async fn members_list_track_read_and_edit_videos_as_the_public_api_does(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let org = Some(t.org.as_str());
    let links = json!({"urls": [youtube(1), youtube(2), "https://example.com/x"]});

    // Viewers read; tracking is for editors, and a refused track writes nothing.
    let refused = call(
        &app,
        Method::POST,
        "/dashboard/videos/track",
        &t.viewer,
        org,
        Some(&links),
    )
    .await;
    assert_nested_error(&refused, 403, "INSUFFICIENT_PERMISSIONS");
    let empty = call(&app, Method::GET, "/dashboard/videos", &t.viewer, org, None).await;
    assert_eq!(
        empty.body["data"]["pagination"]["total"], 0,
        "{:?}",
        empty.body
    );

    let tracked = call(
        &app,
        Method::POST,
        "/dashboard/videos/track",
        &t.editor,
        org,
        Some(&links),
    )
    .await;
    assert_eq!(tracked.status, 200, "{:?}", tracked.body);
    let results = tracked.body["data"]["results"].as_array().unwrap();
    let statuses: Vec<&str> = results
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["tracked", "tracked", "error"]);
    assert_eq!(tracked.body["meta"]["credits_used"], 60);
    assert_eq!(tracked.body["meta"]["summary"]["errors"], 1);
    let again = call(
        &app,
        Method::POST,
        "/dashboard/videos/track",
        &t.editor,
        org,
        Some(&json!({"urls": [youtube(1)]})),
    )
    .await;
    assert_eq!(
        again.body["data"]["results"][0]["status"],
        "already_tracked"
    );
    assert_eq!(again.body["meta"]["credits_used"], 0);
    for body in [json!({"urls": []}), json!({"urls": "x"}), json!({})] {
        let bad = call(
            &app,
            Method::POST,
            "/dashboard/videos/track",
            &t.editor,
            org,
            Some(&body),
        )
        .await;
        assert_nested_error(&bad, 400, "VALIDATION_ERROR");
    }
    app.run_worker_until_idle().await;

    // The listing answers what the public listing answers.
    let listed = call(
        &app,
        Method::GET,
        "/dashboard/videos?sort=views&limit=1",
        &t.viewer,
        org,
        None,
    )
    .await;
    assert_eq!(listed.status, 200, "{:?}", listed.body);
    let public = app
        .get("/v1/videos/stats?sort=views&limit=1", Some(&t.key))
        .await;
    assert_eq!(listed.body["data"], public.body["data"]);
    let bad_sort = call(
        &app,
        Method::GET,
        "/dashboard/videos?sort=nope",
        &t.viewer,
        org,
        None,
    )
    .await;
    assert_nested_error(&bad_sort, 400, "INVALID_PARAMETER");

    // One video, by id.
    let id = results[0]["video_id"].as_str().unwrap();
    let one = call(
        &app,
        Method::GET,
        &format!("/dashboard/videos/{id}"),
        &t.viewer,
        org,
        None,
    )
    .await;
    assert_eq!(one.status, 200, "{:?}", one.body);
    assert_eq!(one.body["data"]["data"]["video_id"], id);
    assert!(one.body["data"]["data"]["stats"]["views"].is_object());
    for unknown in [uuid::Uuid::new_v4().to_string(), "nope".to_owned()] {
        let a = call(
            &app,
            Method::GET,
            &format!("/dashboard/videos/{unknown}"),
            &t.viewer,
            org,
            None,
        )
        .await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }

    // Edits: editors, on a paid plan, with the PATCH's rules.
    let path = format!("/dashboard/videos/{id}");
    let edit = json!({"campaign": "Spring", "budget": 500, "tags": ["beach"]});
    let viewer = call(&app, Method::PATCH, &path, &t.viewer, org, Some(&edit)).await;
    assert_nested_error(&viewer, 403, "INSUFFICIENT_PERMISSIONS");
    let bad = call(
        &app,
        Method::PATCH,
        &path,
        &t.editor,
        org,
        Some(&json!({"budget": -1})),
    )
    .await;
    assert_nested_error(&bad, 400, "VALIDATION_ERROR");
    assert_eq!(bad.body["error"]["field"], "budget");
    let done = call(&app, Method::PATCH, &path, &t.editor, org, Some(&edit)).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    assert_eq!(
        done.body["data"]["tags_result"]["created"],
        json!(["beach"])
    );
    let read = call(&app, Method::GET, &path, &t.viewer, org, None).await;
    assert_eq!(read.body["data"]["data"]["campaign"], "Spring");
    assert_eq!(read.body["data"]["data"]["budget"], 500);
    let missing = call(
        &app,
        Method::PATCH,
        &format!("/dashboard/videos/{}", uuid::Uuid::new_v4()),
        &t.editor,
        org,
        Some(&edit),
    )
    .await;
    assert_nested_error(&missing, 404, "NOT_FOUND");

    // Usage, and a job that does not exist.
    let usage = call(&app, Method::GET, "/dashboard/usage", &t.viewer, org, None).await;
    assert_eq!(usage.status, 200, "{:?}", usage.body);
    assert!(usage.body["data"]["usage_history"].is_array());
    let job = call(
        &app,
        Method::GET,
        &format!("/blogger/jobs/{}", uuid::Uuid::new_v4()),
        &t.viewer,
        org,
        None,
    )
    .await;
    assert_nested_error(&job, 404, "NOT_FOUND");
}

#[rstest]
#[tokio::test]
async fn another_organization_sees_none_of_it_and_the_free_plan_cannot_edit(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let org = Some(t.org.as_str());
    let tracked = call(
        &app,
        Method::POST,
        "/dashboard/videos/track",
        &t.editor,
        org,
        Some(&json!({"urls": [youtube(7)]})),
    )
    .await;
    let id = tracked.body["data"]["results"][0]["video_id"]
        .as_str()
        .unwrap()
        .to_owned();

    // An outsider, with their own free organization.
    let (free_org, _) = app.org_with_key(Plan::Free).await;
    let (outsider, outsider_id) = member(&app, "out@example.com").await;
    app.store
        .add_member(
            vidpulse_domain::OrgId(free_org),
            outsider_id,
            vidpulse_domain::identity::Role::Owner,
            app.clock.now(),
        )
        .await
        .unwrap();
    let theirs = Some(t.org.as_str());
    let denied = call(
        &app,
        Method::GET,
        "/dashboard/videos",
        &outsider,
        theirs,
        None,
    )
    .await;
    assert_nested_error(&denied, 404, "NOT_FOUND");
    let own = free_org.to_string();
    let not_there = call(
        &app,
        Method::GET,
        &format!("/dashboard/videos/{id}"),
        &outsider,
        Some(&own),
        None,
    )
    .await;
    assert_nested_error(&not_there, 404, "NOT_FOUND");
    let free = call(
        &app,
        Method::PATCH,
        &format!("/dashboard/videos/{id}"),
        &outsider,
        Some(&own),
        Some(&json!({"notes": "x"})),
    )
    .await;
    assert_nested_error(&free, 402, "PAID_PLAN_REQUIRED");
    let no_header = call(
        &app,
        Method::GET,
        "/dashboard/videos",
        &t.viewer,
        None,
        None,
    )
    .await;
    assert_nested_error(&no_header, 400, "VALIDATION_ERROR");
}

#[rstest]
#[tokio::test]
async fn the_listing_finds_videos_by_a_piece_of_their_title(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let urls: Vec<String> = (1..=6).map(youtube).collect();
    app.track(&t.key, &urls.iter().map(String::as_str).collect::<Vec<_>>())
        .await;
    app.run_worker_until_idle().await;
    let all = app.get("/v1/videos/stats?limit=100", Some(&t.key)).await;
    let titles: Vec<String> = all.body["data"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["title"].as_str().unwrap().to_owned())
        .collect();
    // A word of the first title, asked in upper case.
    let word = titles[0].split_whitespace().last().unwrap().to_lowercase();
    let expected = titles
        .iter()
        .filter(|t| t.to_lowercase().contains(&word))
        .count();
    let path = format!("/v1/videos/stats?limit=100&q={}", word.to_uppercase());
    let found = app.get(&path, Some(&t.key)).await;
    assert_eq!(found.status, 200, "{:?}", found.body);
    assert_eq!(found.body["data"]["pagination"]["total"], expected);
    for v in found.body["data"]["data"].as_array().unwrap() {
        assert!(v["title"].as_str().unwrap().to_lowercase().contains(&word));
    }
    // The dashboard's listing answers the same.
    let dash = call(
        &app,
        Method::GET,
        &path.replace("/v1/videos/stats", "/dashboard/videos"),
        &t.viewer,
        Some(&t.org),
        None,
    )
    .await;
    assert_eq!(dash.body["data"], found.body["data"]);
    // Wildcards are text; an empty search is no search; a long one is refused.
    let none = app.get("/v1/videos/stats?q=%25", Some(&t.key)).await;
    assert_eq!(none.body["data"]["pagination"]["total"], 0);
    let empty = app.get("/v1/videos/stats?q=", Some(&t.key)).await;
    assert_eq!(empty.body["data"]["pagination"]["total"], 6);
    let long = app
        .get(
            &format!("/v1/videos/stats?q={}", "x".repeat(201)),
            Some(&t.key),
        )
        .await;
    assert_eq!(long.status, 400);
    assert_eq!(long.body["code"], "INVALID_PARAMETER");
}

#[rstest]
#[tokio::test]
async fn the_listing_filters_by_campaign_creator_and_every_tag(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let url =
        |who: &str, n: u64| format!("https://www.tiktok.com/@{who}/video/73000000000000000{n:02}");
    let urls = [
        url("Mira.Cooks", 1),
        url("mira.cooks", 2),
        url("zoe", 3),
        url("zoe", 4),
    ];
    app.track(&t.key, &urls.iter().map(String::as_str).collect::<Vec<_>>())
        .await;
    app.run_worker_until_idle().await;
    let patch = |n: u64, body: serde_json::Value| {
        let (app, key) = (&app, t.key.clone());
        async move {
            let a = app
                .patch(
                    &format!("/v1/videos/by-external-id/73000000000000000{n:02}"),
                    &key,
                    &body,
                )
                .await;
            assert_eq!(a.status, 200, "{:?}", a.body);
        }
    };
    patch(1, json!({"campaign": "Spring", "tags": ["food", "EU"]})).await;
    patch(2, json!({"campaign": "Spring", "tags": ["food"]})).await;
    patch(3, json!({"campaign": "Summer", "tags": ["eu", "food"]})).await;

    let ids = |query: &'static str| {
        let (app, key) = (&app, t.key.clone());
        async move {
            let a = app
                .get(&format!("/v1/videos/stats?limit=100&{query}"), Some(&key))
                .await;
            assert_eq!(a.status, 200, "{query}: {:?}", a.body);
            let mut ids: Vec<String> = a.body["data"]["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["external_video_id"].as_str().unwrap()[17..].to_owned())
                .collect();
            ids.sort();
            assert_eq!(a.body["data"]["pagination"]["total"], ids.len(), "{query}");
            ids
        }
    };
    assert_eq!(ids("campaign=Spring").await, ["01", "02"]);
    assert_eq!(ids("campaign=spring").await, Vec::<String>::new(), "exact");
    assert_eq!(ids("blogger=%40MIRA.COOKS").await, ["01", "02"]);
    assert_eq!(ids("blogger=zoe").await, ["03", "04"]);
    assert_eq!(ids("tag=FOOD").await, ["01", "02", "03"]);
    assert_eq!(ids("tag=food&tag=eu").await, ["01", "03"]);
    assert_eq!(ids("tag=food&tag=eu&campaign=Spring").await, ["01"]);
    assert_eq!(ids("tag=food&blogger=zoe&platform=tiktok").await, ["03"]);
    assert_eq!(ids("tag=nothing").await, Vec::<String>::new());
    assert_eq!(
        ids("campaign=&blogger=&tag=").await.len(),
        4,
        "empty filters filter nothing"
    );

    for (query, parameter) in [
        ("blogger=no%20spaces", "blogger"),
        ("campaign=%3Cscript%3E", "campaign"),
        ("tag=food&tag=", "tag"),
    ] {
        let a = app
            .get(&format!("/v1/videos/stats?{query}"), Some(&t.key))
            .await;
        if query.ends_with("tag=") {
            // An empty repeat is no filter.
            assert_eq!(a.status, 200, "{query}");
            continue;
        }
        assert_eq!(a.status, 400, "{query}: {:?}", a.body);
        assert_eq!(a.body["code"], "INVALID_PARAMETER");
        assert_eq!(a.body["details"]["parameter"], parameter);
    }
    let many: String = (0..11).map(|i| format!("tag=t{i}&")).collect();
    let a = app
        .get(&format!("/v1/videos/stats?{many}"), Some(&t.key))
        .await;
    assert_eq!(a.status, 400);
    // The dashboard's listing filters alike.
    let dash = call(
        &app,
        Method::GET,
        "/dashboard/videos?limit=100&tag=food&tag=eu",
        &t.viewer,
        Some(&t.org),
        None,
    )
    .await;
    assert_eq!(dash.body["data"]["pagination"]["total"], 2);
}

/// The ids of a track answer's results, in order.
fn tracked_ids(tracked: &serde_json::Value) -> Vec<String> {
    tracked["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["video_id"].as_str().unwrap().to_owned())
        .collect()
}

/// A dashboard request with a raw body of `content_type`.
async fn call_raw(
    app: &TestApp,
    method: Method,
    path: &str,
    token: &str,
    org: &str,
    content_type: &str,
    body: &'static str,
) -> crate::helpers::Answer {
    let req = app
        .client
        .request(method, app.url(path))
        .bearer_auth(token)
        .header("X-Organization-ID", org)
        .header("Content-Type", content_type)
        .body(body);
    TestApp::answer(req.send().await.unwrap()).await
}

#[rstest]
#[tokio::test]
async fn editors_untrack_refresh_and_batch_edit_videos_as_the_public_api_does(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let org = Some(t.org.as_str());
    let v = tracked_ids(&app.track(&t.key, &[TIKTOK, YOUTUBE, INSTAGRAM]).await);
    app.run_worker_until_idle().await;
    let (_, other_key) = app.org_with_key(Plan::Pro).await;
    let theirs = tracked_ids(&app.track(&other_key, &[&youtube(9)]).await);
    let read = |id: String| {
        let (app, viewer, org) = (&app, t.viewer.clone(), t.org.clone());
        async move {
            call(
                app,
                Method::GET,
                &format!("/dashboard/videos/{id}"),
                &viewer,
                Some(&org),
                None,
            )
            .await
        }
    };

    // Viewers read; untracking, reading now and batch edits are for editors.
    let batch = json!({"video_ids": [v[0], v[1]], "campaign": "Spring", "tags": ["paid"]});
    for (method, path, body) in [
        (Method::DELETE, format!("/dashboard/videos/{}", v[2]), None),
        (
            Method::POST,
            format!("/dashboard/videos/{}/refresh", v[0]),
            None,
        ),
        (
            Method::PATCH,
            "/dashboard/videos/batch".to_owned(),
            Some(&batch),
        ),
    ] {
        let a = call(&app, method.clone(), &path, &t.viewer, org, body).await;
        assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    }
    assert_eq!(
        read(v[2].clone()).await.status,
        200,
        "a refused untrack writes nothing"
    );
    assert!(read(v[0].clone()).await.body["data"]["data"]["campaign"].is_null());

    // The batch edit: one request, the public batch's answer.
    let done = call(
        &app,
        Method::PATCH,
        "/dashboard/videos/batch",
        &t.editor,
        org,
        Some(&batch),
    )
    .await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    assert_eq!(done.body["data"]["updated_count"], 2);
    assert_eq!(done.body["data"]["applied_fields"], json!(["campaign_tag"]));
    assert_eq!(
        done.body["data"]["tags_result"],
        json!({"attached": ["paid"], "created": ["paid"]})
    );
    for id in &v[..2] {
        let r = read(id.clone()).await;
        assert_eq!(r.body["data"]["data"]["campaign"], "Spring");
        assert_eq!(r.body["data"]["data"]["tags"], json!(["paid"]));
    }

    // Refused batches write nothing.
    let refusals = [
        (
            json!({"video_ids": [v[2], theirs[0]], "campaign": "Summer"}),
            404,
            "NOT_FOUND",
        ),
        (
            json!({"video_ids": [v[2], "not-a-uuid"], "campaign": "Summer"}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            json!({"video_ids": v[2], "campaign": "Summer"}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            json!({"video_ids": [], "campaign": "Summer"}),
            400,
            "VALIDATION_ERROR",
        ),
        (json!({"campaign": "Summer"}), 400, "VALIDATION_ERROR"),
        (
            json!({"video_ids": [v[2]], "budget": "lots"}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            json!({"video_ids": [v[2]], "nope": 1}),
            400,
            "VALIDATION_ERROR",
        ),
        (json!([v[2]]), 400, "VALIDATION_ERROR"),
    ];
    for (body, status, code) in refusals {
        let a = call(
            &app,
            Method::PATCH,
            "/dashboard/videos/batch",
            &t.editor,
            org,
            Some(&body),
        )
        .await;
        assert_nested_error(&a, status, code);
    }
    let missing = call(
        &app,
        Method::PATCH,
        "/dashboard/videos/batch",
        &t.editor,
        org,
        Some(&json!({"video_ids": [v[2], theirs[0]], "campaign": "Summer"})),
    )
    .await;
    assert_eq!(missing.body["error"]["not_found"], json!([theirs[0]]));
    let malformed = call_raw(
        &app,
        Method::PATCH,
        "/dashboard/videos/batch",
        &t.editor,
        &t.org,
        "application/json",
        "{\"video_ids\": [",
    )
    .await;
    assert_nested_error(&malformed, 400, "VALIDATION_ERROR");
    let text = call_raw(
        &app,
        Method::PATCH,
        "/dashboard/videos/batch",
        &t.editor,
        &t.org,
        "text/plain",
        "campaign=Summer",
    )
    .await;
    assert_nested_error(&text, 400, "VALIDATION_ERROR");
    assert!(read(v[2].clone()).await.body["data"]["data"]["campaign"].is_null());
    let no_header = call(
        &app,
        Method::PATCH,
        "/dashboard/videos/batch",
        &t.editor,
        None,
        Some(&batch),
    )
    .await;
    assert_nested_error(&no_header, 400, "VALIDATION_ERROR");

    // Reading now: the cooldown's rules and credits.
    let refresh_path = format!("/dashboard/videos/{}/refresh", v[0]);
    let first = call(&app, Method::POST, &refresh_path, &t.editor, org, None).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    assert_eq!(
        first.body["data"]["fresh"], false,
        "the scheduled read answers"
    );
    assert_eq!(first.body["meta"]["credits_used"], 0);
    let again = call(&app, Method::POST, &refresh_path, &t.editor, org, None).await;
    assert_nested_error(&again, 429, "REFRESH_TOO_SOON");
    assert_eq!(again.headers["retry-after"], "300");
    app.advance(chrono::Duration::minutes(10));
    let fresh = call(&app, Method::POST, &refresh_path, &t.editor, org, None).await;
    assert_eq!(fresh.status, 200, "{:?}", fresh.body);
    assert_eq!(fresh.body["data"]["fresh"], true);
    assert_eq!(fresh.body["data"]["video_id"], v[0].as_str());
    assert_eq!(fresh.body["meta"]["credits_used"], 1);

    // Untracking; then the video is gone for the organization only.
    let gone = call(
        &app,
        Method::DELETE,
        &format!("/dashboard/videos/{}", v[2]),
        &t.editor,
        org,
        None,
    )
    .await;
    assert_eq!(gone.status, 200, "{:?}", gone.body);
    assert_eq!(gone.body["data"]["untracked"], true);
    assert_eq!(gone.body["data"]["video_id"], v[2].as_str());
    assert_nested_error(&read(v[2].clone()).await, 404, "NOT_FOUND");

    // A video the organization does not have: 404, another's untouched.
    for id in [
        v[2].clone(),
        theirs[0].clone(),
        uuid::Uuid::new_v4().to_string(),
        "not-a-uuid".to_owned(),
    ] {
        for (method, path) in [
            (Method::DELETE, format!("/dashboard/videos/{id}")),
            (Method::POST, format!("/dashboard/videos/{id}/refresh")),
        ] {
            let a = call(&app, method.clone(), &path, &t.editor, org, None).await;
            assert_nested_error(&a, 404, "NOT_FOUND");
        }
    }
    let still = app
        .get(&format!("/v1/videos/by-id/{}", theirs[0]), Some(&other_key))
        .await;
    assert_eq!(still.status, 200, "{:?}", still.body);
}

#[rstest]
#[tokio::test]
async fn the_dashboards_refresh_answers_the_platforms_errors_and_charges_nothing_for_them(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let config = crate::helpers::TestConfig {
        sim: vidpulse_platforms::SimulatedConfig {
            failing_ids: vec!["dQw4w9WgXcQ".into()],
            ..vidpulse_platforms::SimulatedConfig::default()
        },
        ..crate::helpers::TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let t = team(&app).await;
    let org = Some(t.org.as_str());
    let v = tracked_ids(&app.track(&t.key, &[TIKTOK, YOUTUBE]).await);
    app.run_worker_until_idle().await;
    app.advance(chrono::Duration::minutes(10));
    let refresh = |id: String| {
        let (app, editor, org) = (&app, t.editor.clone(), t.org.clone());
        async move {
            call(
                app,
                Method::POST,
                &format!("/dashboard/videos/{id}/refresh"),
                &editor,
                Some(&org),
                None,
            )
            .await
        }
    };
    let usage = || async {
        app.flush_usage().await;
        let a = call(&app, Method::GET, "/dashboard/usage", &t.viewer, org, None).await;
        a.body["data"]["summary"]["total_credits_30_days"]
            .as_i64()
            .unwrap()
    };
    let before = usage().await;

    // The platform fails: 502, nothing charged, the ask not spent.
    for _ in 0..2 {
        assert_nested_error(&refresh(v[1].clone()).await, 502, "EXTERNAL_API_ERROR");
    }
    // Removed on the platform: 409.
    app.source.set_gone("7301234567890123456", true);
    assert_nested_error(&refresh(v[0].clone()).await, 409, "VIDEO_UNAVAILABLE");
    assert_eq!(usage().await, before, "refusals cost nothing");
    // Past the tracking window (signed in anew: tokens last 30 days): 409.
    app.advance(chrono::Duration::days(31));
    let editor = super::token(&app, "ed@example.com", None).await;
    let path = format!("/dashboard/videos/{}/refresh", v[1]);
    let ended = call(&app, Method::POST, &path, &editor, org, None).await;
    assert_nested_error(&ended, 409, "TRACKING_ENDED");
}

#[rstest]
#[tokio::test]
async fn the_free_plan_cannot_batch_edit_but_untracks(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (free_org, key) = app.org_with_key(Plan::Free).await;
    let (owner, owner_id) = member(&app, "free@example.com").await;
    app.store
        .add_member(
            vidpulse_domain::OrgId(free_org),
            owner_id,
            vidpulse_domain::identity::Role::Owner,
            app.clock.now(),
        )
        .await
        .unwrap();
    let org = free_org.to_string();
    let v = tracked_ids(&app.track(&key, &[YOUTUBE]).await);
    let a = call(
        &app,
        Method::PATCH,
        "/dashboard/videos/batch",
        &owner,
        Some(&org),
        Some(&json!({"video_ids": [v[0]], "campaign": "Spring"})),
    )
    .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = call(
        &app,
        Method::DELETE,
        &format!("/dashboard/videos/{}", v[0]),
        &owner,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.body);
}

#[rstest]
#[tokio::test]
async fn members_download_the_servers_video_export(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let org = Some(t.org.as_str());
    let links = json!({"urls": [youtube(1), youtube(2)]});
    let tracked = call(
        &app,
        Method::POST,
        "/dashboard/videos/track",
        &t.editor,
        org,
        Some(&links),
    )
    .await;
    assert_eq!(tracked.status, 200, "{:?}", tracked.body);

    // A viewer's download is the public export of the same filters, byte for byte.
    let from = (app.clock.now() - chrono::Duration::days(6)).date_naive();
    let filters = format!("sort=created_at&order=desc&baseline=tracking&from={from}");
    let dashboard = call(
        &app,
        Method::GET,
        &format!("/dashboard/videos/export?{filters}"),
        &t.viewer,
        org,
        None,
    )
    .await;
    assert_eq!(dashboard.status, 200, "{:?}", dashboard.body);
    assert!(
        dashboard.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let public = app
        .get(&format!("/v1/videos/export?{filters}"), Some(&t.key))
        .await;
    assert_eq!(public.status, 200, "{:?}", public.body);
    assert_eq!(dashboard.body, public.body);
    let text = dashboard.body.as_str().unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.starts_with("video_id,external_video_id,platform,url"));
    assert!(
        text.lines()
            .next()
            .unwrap()
            .ends_with("views_gained,likes_gained,comments_gained,reposts_gained,saves_gained")
    );

    // The listing's errors; another organization's member sees nothing.
    let refused = call(
        &app,
        Method::GET,
        "/dashboard/videos/export?limit=5",
        &t.viewer,
        org,
        None,
    )
    .await;
    assert_eq!(refused.status, 400, "{:?}", refused.body);
    assert_eq!(refused.body["error"]["code"], "INVALID_PARAMETER");
    assert_eq!(refused.body["error"]["parameter"], "limit");
    let (stranger, _) = member(&app, "stranger@example.com").await;
    let outside = call(
        &app,
        Method::GET,
        "/dashboard/videos/export",
        &stranger,
        org,
        None,
    )
    .await;
    assert_eq!(outside.status, 404, "{:?}", outside.body);
}
