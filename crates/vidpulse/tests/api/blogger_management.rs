//! Dashboard blogger management beyond pause, campaign, budget and delete:
//! adding bloggers (from the platform and from what the organization
//! knows), tags on bloggers and their videos, and creator profiles.

use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_store::Backend;

use crate::dashboard::{Team, call, member, register, team, track_creator};
use crate::helpers::{TestApp, assert_nested_error};

/// `POST path` as `token` in organization `org`.
async fn post(
    app: &TestApp,
    path: &str,
    token: &str,
    org: &str,
    body: &Value,
) -> crate::helpers::Answer {
    call(app, Method::POST, path, token, Some(org), Some(body)).await
}

/// The organization's bloggers as the dashboard lists them.
async fn bloggers(app: &TestApp, token: &str, org: &str) -> Vec<Value> {
    let a = call(app, Method::GET, "/blogger/list", token, Some(org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"].as_array().unwrap().clone()
}

/// The organization's videos through the public API, by video id.
async fn videos(app: &TestApp, key: &str) -> Vec<Value> {
    let a = app.get("/v1/videos/stats?limit=100", Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"]["data"].as_array().unwrap().clone()
}

/// `values` in their JSON text order.
fn sorted(mut values: Vec<Value>) -> Vec<Value> {
    values.sort_by_key(|v| v.to_string());
    values
}

/// Creates tag `name` as `token`, returning its id.
async fn tag(app: &TestApp, token: &str, org: &str, name: &str) -> String {
    let a = post(app, "/tags", token, org, &json!({ "name": name })).await;
    assert!(matches!(a.status.as_u16(), 200 | 201), "{}", a.body);
    a.body["data"]["id"].as_str().unwrap().to_owned()
}

/// A second organization, on the free plan, with an admin: (token,
/// organization id).
async fn free_organization(app: &TestApp) -> (String, String) {
    let (t, _) = member(app, "out@example.com").await;
    let a = register(app, &t, &json!({"name": "Other"})).await;
    (
        t,
        a.body["data"]["organization_id"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

/// A second organization, on a paid plan (it may add creators), with an
/// admin: (token, organization id).
async fn outsider(app: &TestApp) -> (String, String) {
    let (t, org) = free_organization(app).await;
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    app.store
        .set_plan(org_id, vidpulse_domain::Plan::Pro, None, None)
        .await
        .unwrap();
    (t, org)
}

#[rstest]
#[tokio::test]
async fn tags_are_listed_created_once_per_name_and_checked(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        editor,
        viewer,
        ..
    } = team(&app).await;
    let a = post(&app, "/tags", &viewer, &org, &json!({"name": "Fitness"})).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = post(&app, "/tags", &editor, &org, &json!({"name": " Fitness "})).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(a.body["data"]["name"], "Fitness");
    let id = a.body["data"]["id"].clone();
    let a = post(&app, "/tags", &editor, &org, &json!({"name": "FITNESS"})).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["id"], id);
    assert_eq!(a.body["data"]["name"], "Fitness");
    for body in [
        json!({}),
        json!({"name": ""}),
        json!({"name": "  "}),
        json!({"name": 5}),
        json!({"name": "x".repeat(81)}),
        json!(["Fitness"]),
    ] {
        let a = post(&app, "/tags", &editor, &org, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
    }
    tag(&app, &editor, &org, "beauty").await;
    let a = call(&app, Method::GET, "/tags", &viewer, Some(&org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let names: Vec<&str> = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["beauty", "Fitness"]);
    // Another organization sees none of them.
    let (out, their_org) = outsider(&app).await;
    let a = call(&app, Method::GET, "/tags", &out, Some(&their_org), None).await;
    assert_eq!(a.body["data"], json!([]));
    let a = call(&app, Method::GET, "/tags", &out, Some(&org), None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
}

#[rstest]
#[tokio::test]
async fn adding_a_blogger_reads_its_profile_and_backfills_it_with_its_settings(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
    } = team(&app).await;
    let fitness = tag(&app, &editor, &org, "Fitness").await;
    let body = json!({
        "username": "@Ana_Builds", "platform": "TikTok", "initial_videos_count": 2,
        "daily_videos_count": 3, "campaign": "Summer", "tag_ids": [fitness],
    });
    let a = post(&app, "/blogger/add", &viewer, &org, &body).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");

    // Bad bodies: 400 naming the field, nothing written, no platform call needed.
    let unknown_tag = uuid::Uuid::now_v7().to_string();
    for (body, field) in [
        (json!({"platform": "tiktok"}), "username"),
        (json!({"username": 5, "platform": "tiktok"}), "username"),
        (json!({"username": "a b", "platform": "tiktok"}), "username"),
        (json!({"username": "ana"}), "platform"),
        (json!({"username": "ana", "platform": "vine"}), "platform"),
        (
            json!({"username": "ana", "platform": "tiktok", "initial_videos_count": 51}),
            "initial_videos_count",
        ),
        (
            json!({"username": "ana", "platform": "tiktok", "initial_videos_count": "2"}),
            "initial_videos_count",
        ),
        (
            json!({"username": "ana", "platform": "tiktok", "daily_videos_count": -1}),
            "daily_videos_count",
        ),
        (
            json!({"username": "ana", "platform": "tiktok", "daily_videos_count": 1.5}),
            "daily_videos_count",
        ),
        (
            json!({"username": "ana", "platform": "tiktok", "campaign": 5}),
            "campaign",
        ),
        (
            json!({"username": "ana", "platform": "tiktok", "tag_ids": "x"}),
            "tag_ids",
        ),
        (
            json!({"username": "ana", "platform": "tiktok", "tag_ids": ["x"]}),
            "tag_ids",
        ),
        (
            json!({"username": "ana", "platform": "tiktok", "tag_ids": [unknown_tag]}),
            "tag_ids",
        ),
        (json!([1]), "body"),
    ] {
        let a = post(&app, "/blogger/add", &editor, &org, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let a = app
        .send_raw(
            Method::POST,
            "/blogger/add",
            None,
            "application/json",
            "{\"username\":",
        )
        .await;
    assert!(a.status.is_client_error(), "{}", a.body);
    // No such account on the platform.
    let a = post(
        &app,
        "/blogger/add",
        &editor,
        &org,
        &json!({"username": "notfound_ana", "platform": "tiktok"}),
    )
    .await;
    assert_nested_error(&a, 404, "PLATFORM_NOT_FOUND");
    assert!(bloggers(&app, &viewer, &org).await.is_empty());

    let a = post(&app, "/blogger/add", &editor, &org, &body).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(a.body["success"], true);
    assert!(a.body.get("data").is_none(), "{}", a.body);
    let blogger = &a.body["blogger"];
    assert_eq!(
        blogger["username"].as_str().unwrap().to_lowercase(),
        "ana_builds"
    );
    assert_eq!(blogger["platform"], "tiktok");
    assert!(blogger["channel_name"].is_string(), "{}", a.body);
    assert!(blogger["number_of_subscribers"].is_i64(), "{}", a.body);
    let tracking = a.body["tracking_id"].as_str().unwrap().to_owned();
    let blogger_id = blogger["id"].as_str().unwrap().to_owned();
    let job = a.body["job_id"].as_str().unwrap().to_owned();

    // Listed at once, active, with its settings; the backfill is queued.
    let list = bloggers(&app, &viewer, &org).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["tracking_id"], tracking.as_str());
    assert_eq!(list[0]["blogger_id"], blogger_id.as_str());
    assert_eq!(list[0]["is_active"], true);
    assert_eq!(list[0]["campaign"], "Summer");
    assert_eq!(list[0]["daily_videos_count"], 3);
    assert_eq!(list[0]["initial_videos_count"], 2);
    assert_eq!(list[0]["tags"][0]["name"], "Fitness");
    assert_eq!(list[0]["videos_tracked"], 0);
    // Once only, through either interface, before and after the backfill.
    let a = post(&app, "/blogger/add", &editor, &org, &body).await;
    assert_nested_error(&a, 409, "CREATOR_ALREADY_TRACKED");
    assert_eq!(a.body["error"]["tracked_account_id"], tracking.as_str());
    app.run_jobs_until_idle().await;
    let a = post(&app, "/blogger/add", &editor, &org, &body).await;
    assert_nested_error(&a, 409, "CREATOR_ALREADY_TRACKED");
    let a = app
        .post(
            "/v1/bloggers/track",
            &key,
            &json!({"platform": "tiktok", "username": "ana_builds"}),
        )
        .await;
    assert_nested_error(&a, 409, "CREATOR_ALREADY_TRACKED");

    let a = app
        .get(&format!("/v1/bloggers/jobs/{job}"), Some(&key))
        .await;
    assert_eq!(a.body["data"]["status"], "succeeded", "{}", a.body);
    let list = bloggers(&app, &viewer, &org).await;
    assert_eq!(list[0]["videos_tracked"], 2);
    assert!(list[0]["last_scraped_at"].is_string());
    let videos = videos(&app, &key).await;
    assert_eq!(videos.len(), 2);
    for v in &videos {
        assert_eq!(v["campaign"], "Summer", "{v}");
        assert_eq!(v["tags"], json!(["Fitness"]), "{v}");
    }

    // Another organization cannot use this one's tags.
    let (out, their_org) = outsider(&app).await;
    let a = post(&app, "/blogger/add", &out, &their_org, &body).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["unknown_tag_ids"], json!([fitness]));
    assert!(bloggers(&app, &out, &their_org).await.is_empty());
}

#[rstest]
#[tokio::test]
async fn adds_respect_the_creator_cap_and_the_video_quota(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        editor,
        viewer,
        ..
    } = team(&app).await;
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    app.store
        .set_plan(org_id, vidpulse_domain::Plan::Pro, Some(3), Some(1))
        .await
        .unwrap()
        .unwrap();
    let a = post(
        &app,
        "/blogger/add",
        &editor,
        &org,
        &json!({"username": "ana_builds", "platform": "tiktok", "initial_videos_count": 4}),
    )
    .await;
    assert_nested_error(&a, 422, "SUBSCRIPTION_LIMIT");
    let a = post(
        &app,
        "/blogger/add",
        &editor,
        &org,
        &json!({"username": "ana_builds", "platform": "tiktok", "initial_videos_count": 3}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    // The added account and its job count once against the cap of one.
    let a = post(
        &app,
        "/blogger/add",
        &editor,
        &org,
        &json!({"username": "mira_moves", "platform": "tiktok", "initial_videos_count": 0}),
    )
    .await;
    assert_nested_error(&a, 422, "TRACKED_CREATORS_LIMIT");
    assert_eq!(a.body["error"]["current_usage"], 1, "{}", a.body);
    app.run_jobs_until_idle().await;
    assert_eq!(bloggers(&app, &viewer, &org).await.len(), 1);
}

#[rstest]
#[tokio::test]
async fn a_known_blogger_is_added_again_from_tracking(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
    } = team(&app).await;
    track_creator(&app, &key, "ana_builds", 2).await;
    app.run_jobs_until_idle().await;
    let list = bloggers(&app, &viewer, &org).await;
    let tracking = list[0]["tracking_id"].as_str().unwrap().to_owned();
    let blogger_id = list[0]["blogger_id"].as_str().unwrap().to_owned();
    let body = json!({"blogger_id": blogger_id, "initial_videos_count": 2, "campaign": "Back"});

    let a = post(&app, "/blogger/add-from-tracking", &viewer, &org, &body).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = post(&app, "/blogger/add-from-tracking", &editor, &org, &body).await;
    assert_nested_error(&a, 409, "CREATOR_ALREADY_TRACKED");
    for (body, field) in [
        (json!({}), "blogger_id"),
        (json!({"blogger_id": "nope"}), "blogger_id"),
        (
            json!({"blogger_id": blogger_id, "initial_videos_count": -1}),
            "initial_videos_count",
        ),
    ] {
        let a = post(&app, "/blogger/add-from-tracking", &editor, &org, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field);
    }
    let a = post(
        &app,
        "/blogger/add-from-tracking",
        &editor,
        &org,
        &json!({"blogger_id": uuid::Uuid::now_v7()}),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Deleted, its videos kept: the organization still knows the creator,
    // and adds it back.
    let a = post(
        &app,
        "/blogger/delete",
        &editor,
        &org,
        &json!({"tracking_id": tracking}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = post(&app, "/blogger/add-from-tracking", &editor, &org, &body).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(a.body["blogger"]["id"], blogger_id.as_str());
    assert_eq!(a.body["blogger"]["username"], "ana_builds");
    let list = bloggers(&app, &viewer, &org).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["campaign"], "Back");
    app.run_jobs_until_idle().await;
    // The same videos: nothing tracked twice.
    assert_eq!(videos(&app, &key).await.len(), 2);

    // Another organization does not know it: 404, nothing written.
    let (out, their_org) = outsider(&app).await;
    let a = post(&app, "/blogger/add-from-tracking", &out, &their_org, &body).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert!(bloggers(&app, &out, &their_org).await.is_empty());
}

#[rstest]
#[tokio::test]
async fn set_tags_replaces_a_bloggers_tags_on_its_videos(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
    } = team(&app).await;
    track_creator(&app, &key, "ana_builds", 2).await;
    app.run_jobs_until_idle().await;
    // A video tracked by URL keeps its own tags.
    let other = app.track(&key, &[&crate::helpers::youtube(1)]).await;
    assert_eq!(other["meta"]["summary"]["tracked"], 1, "{other}");
    let tracking = bloggers(&app, &viewer, &org).await[0]["tracking_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let fitness = tag(&app, &editor, &org, "Fitness").await;
    let beauty = tag(&app, &editor, &org, "Beauty").await;

    let body = json!({"tracking_id": tracking, "tag_ids": [fitness, beauty, fitness]});
    let a = post(&app, "/blogger/set-tags", &viewer, &org, &body).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = post(&app, "/blogger/set-tags", &editor, &org, &body).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let names: Vec<&str> = a.body["data"]["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Beauty", "Fitness"]);
    // The videos' tag lists, in a fixed order (compared with `sorted`).
    let tags_of = |videos: &[Value]| -> Vec<Value> {
        sorted(videos.iter().map(|v| v["tags"].clone()).collect())
    };
    let vs = videos(&app, &key).await;
    assert_eq!(
        tags_of(&vs),
        sorted(vec![
            json!([]),
            json!(["Beauty", "Fitness"]),
            json!(["Beauty", "Fitness"])
        ])
    );

    // Replaced: Beauty comes off its videos; unknown ids change nothing.
    let a = post(
        &app,
        "/blogger/set-tags",
        &editor,
        &org,
        &json!({"tracking_id": tracking, "tag_ids": [fitness, uuid::Uuid::now_v7()]}),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = post(
        &app,
        "/blogger/set-tags",
        &editor,
        &org,
        &json!({"tracking_id": tracking, "tag_ids": [fitness]}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        tags_of(&videos(&app, &key).await),
        sorted(vec![json!([]), json!(["Fitness"]), json!(["Fitness"])])
    );
    let list = bloggers(&app, &viewer, &org).await;
    assert_eq!(list[0]["tags"].as_array().unwrap().len(), 1);
    // Cleared.
    let a = post(
        &app,
        "/blogger/set-tags",
        &editor,
        &org,
        &json!({"tracking_id": tracking, "tag_ids": []}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        tags_of(&videos(&app, &key).await),
        vec![json!([]), json!([]), json!([])]
    );

    for (body, field) in [
        (json!({"tag_ids": []}), "tracking_id"),
        (json!({"tracking_id": tracking}), "tag_ids"),
        (json!({"tracking_id": tracking, "tag_ids": [1]}), "tag_ids"),
        (
            json!({"tracking_id": tracking, "tag_ids": (0..51).map(|_| uuid::Uuid::now_v7().to_string()).collect::<Vec<_>>()}),
            "tag_ids",
        ),
    ] {
        let a = post(&app, "/blogger/set-tags", &editor, &org, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field);
    }
    // Another organization's editor: its own tags, this blogger unknown.
    let (out, their_org) = outsider(&app).await;
    let theirs = tag(&app, &out, &their_org, "Theirs").await;
    let a = post(
        &app,
        "/blogger/set-tags",
        &out,
        &their_org,
        &json!({"tracking_id": tracking, "tag_ids": [theirs]}),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = post(
        &app,
        "/blogger/set-tags",
        &editor,
        &org,
        &json!({"tracking_id": tracking, "tag_ids": [theirs]}),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
}

#[rstest]
#[tokio::test]
async fn bloggers_are_grouped_into_creator_profiles(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
    } = team(&app).await;
    track_creator(&app, &key, "ana_builds", 0).await;
    track_creator(&app, &key, "mira_moves", 0).await;
    app.run_jobs_until_idle().await;
    let list = bloggers(&app, &viewer, &org).await;
    let id_of = |name: &str| -> String {
        list.iter().find(|b| b["username"] == name).unwrap()["blogger_id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (ana, mira) = (id_of("ana_builds"), id_of("mira_moves"));
    let mut both = vec![ana.clone(), mira.clone()];
    both.sort();

    let body = json!({"blogger_ids": [ana, mira], "name": "Ana & Mira"});
    let a = post(&app, "/blogger/merge", &viewer, &org, &body).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    for (body, field) in [
        (json!({}), "blogger_ids"),
        (json!({"blogger_ids": []}), "blogger_ids"),
        (json!({"blogger_ids": ana}), "blogger_ids"),
        (json!({"blogger_ids": ["nope"]}), "blogger_ids"),
        (json!({"blogger_ids": [ana], "name": ""}), "name"),
        (json!({"blogger_ids": [ana], "name": 5}), "name"),
        (
            json!({"blogger_ids": [ana], "name": "x".repeat(101)}),
            "name",
        ),
    ] {
        let a = post(&app, "/blogger/merge", &editor, &org, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let stranger = uuid::Uuid::now_v7().to_string();
    let a = post(
        &app,
        "/blogger/merge",
        &editor,
        &org,
        &json!({"blogger_ids": [ana, stranger]}),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert_eq!(a.body["error"]["unknown_blogger_ids"], json!([stranger]));

    let a = post(&app, "/blogger/merge", &editor, &org, &body).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(a.body["data"]["name"], "Ana & Mira");
    assert_eq!(a.body["data"]["blogger_ids"], json!(both));
    let pair = a.body["data"]["creator_id"].as_str().unwrap().to_owned();
    for b in bloggers(&app, &viewer, &org).await {
        assert_eq!(b["creator_id"], pair.as_str());
        assert_eq!(b["creator_name"], "Ana & Mira");
    }

    // Ana alone in a new profile (named after her channel); Mira stays.
    let a = post(
        &app,
        "/blogger/merge",
        &editor,
        &org,
        &json!({"blogger_ids": [ana]}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert!(a.body["data"]["name"].is_string());
    let solo = a.body["data"]["creator_id"].as_str().unwrap().to_owned();
    // Back into the pair: the solo profile, left empty, goes.
    let add = json!({"creator_id": pair, "blogger_id": ana});
    let a = post(&app, "/blogger/add-to-creator", &viewer, &org, &add).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = post(&app, "/blogger/add-to-creator", &editor, &org, &add).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["blogger_ids"], json!(both));
    let a = post(
        &app,
        "/blogger/add-to-creator",
        &editor,
        &org,
        &json!({"creator_id": solo, "blogger_id": ana}),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert_eq!(a.body["error"]["field"], "creator_id");
    for (body, field) in [
        (json!({"blogger_id": ana}), "creator_id"),
        (json!({"creator_id": pair}), "blogger_id"),
        (json!({"creator_id": pair, "blogger_id": 7}), "blogger_id"),
    ] {
        let a = post(&app, "/blogger/add-to-creator", &editor, &org, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field);
    }

    // Another organization reaches neither the profile nor the bloggers.
    let (out, their_org) = outsider(&app).await;
    let a = post(&app, "/blogger/add-to-creator", &out, &their_org, &add).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = post(&app, "/blogger/merge", &out, &their_org, &body).await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Deleting its bloggers deletes the profile.
    for b in bloggers(&app, &viewer, &org).await {
        let a = post(
            &app,
            "/blogger/delete",
            &editor,
            &org,
            &json!({"tracking_id": b["tracking_id"]}),
        )
        .await;
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    }
    track_creator(&app, &key, "ana_builds", 0).await;
    app.run_jobs_until_idle().await;
    let a = post(&app, "/blogger/add-to-creator", &editor, &org, &add).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert_eq!(a.body["error"]["field"], "creator_id");
}

#[rstest]
#[tokio::test]
async fn adding_a_creator_needs_a_paid_plan_as_in_the_public_api(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (t, org) = free_organization(&app).await;
    let body = json!({"username": "mira.cooks", "platform": "TikTok", "initial_videos_count": 2});
    for path in ["/blogger/add", "/blogger/add-from-tracking"] {
        let a = post(&app, path, &t, &org, &body).await;
        assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
        assert!(a.body["error"]["upgrade_url"].is_string(), "{}", a.body);
    }
    assert!(
        bloggers(&app, &t, &org).await.is_empty(),
        "nothing was added"
    );
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    app.store
        .set_plan(org_id, vidpulse_domain::Plan::Pro, None, None)
        .await
        .unwrap();
    let a = post(&app, "/blogger/add", &t, &org, &body).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
}
