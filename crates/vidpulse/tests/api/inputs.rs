//! A NUL character (U+0000) in any text a request carries: PostgreSQL refuses
//! it where SQLite would store it, so both answer the same clear error before
//! anything is written or charged: 400 `VALIDATION_ERROR` naming the field
//! (body) or parameter (query), 404 for a path.

use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::Clock;
use vidpulse_domain::identity::Role;
use vidpulse_store::Backend;

use crate::dashboard::{Team, call, member, team, track_creator};
use crate::helpers::{TIKTOK, TestApp, assert_flat_error, assert_nested_error};

const VIDEO: &str = "/v1/videos/by-external-id/7301234567890123456";

/// Who sends a request: the API key, or a dashboard member in the organization.
#[derive(Debug, Clone, Copy)]
enum As {
    Key,
    Editor,
    Admin,
}

/// What a refused request answers.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    /// 400 `VALIDATION_ERROR` in the nested envelope, naming this field.
    Field(&'static str),
    /// 400 `INVALID_PARAMETER` in the flat envelope (the stats listing).
    Parameter(&'static str),
    /// The flat 404 of the video reads.
    VideoNotFound,
    /// 404 with this code in the nested envelope.
    NotFound(&'static str),
}

struct Case {
    who: As,
    method: Method,
    path: String,
    body: Option<Value>,
    refusal: Refusal,
}

fn get(who: As, path: &str, refusal: Refusal) -> Case {
    Case {
        who,
        method: Method::GET,
        path: path.to_owned(),
        body: None,
        refusal,
    }
}

fn send(who: As, method: Method, path: &str, body: Value, refusal: Refusal) -> Case {
    Case {
        who,
        method,
        path: path.to_owned(),
        body: Some(body),
        refusal,
    }
}

/// Every listed input, with a NUL where a valid value would go.
fn cases(blogger_ids: &[Value], day: &str) -> Vec<Case> {
    use Refusal::*;
    let nul = "a\u{0}b";
    vec![
        get(
            As::Key,
            "/v1/analytics/metrics/totals?campaign=Summer%00",
            Field("campaign"),
        ),
        get(
            As::Key,
            "/v1/analytics/metrics/increments?group_by=campaign&campaign=%00",
            Field("campaign"),
        ),
        get(
            As::Key,
            "/v1/trends/search?platform=tiktok&keyword=cats%00",
            Field("keyword"),
        ),
        get(
            As::Key,
            "/v1/videos/stats?platform=%00",
            Parameter("platform"),
        ),
        get(As::Key, &format!("{VIDEO}%00"), VideoNotFound),
        get(
            As::Key,
            "/v1/bloggers/by-username/mira.cooks%00",
            NotFound("NOT_FOUND"),
        ),
        send(
            As::Key,
            Method::PATCH,
            &format!("{VIDEO}%00"),
            json!({"notes": "fine"}),
            NotFound("VIDEO_NOT_FOUND"),
        ),
        send(
            As::Key,
            Method::PATCH,
            VIDEO,
            json!({"notes": nul, "budget": 100}),
            Field("notes"),
        ),
        send(
            As::Key,
            Method::PATCH,
            VIDEO,
            json!({"notes": "fine", "tags": ["Food", nul]}),
            Field("tags[1]"),
        ),
        send(
            As::Key,
            Method::POST,
            "/v1/videos/track",
            json!({"urls": [format!("{TIKTOK}\u{0}")]}),
            Field("urls[0]"),
        ),
        send(
            As::Key,
            Method::POST,
            "/v1/bloggers/track",
            json!({"platform": "tiktok", "username": nul}),
            Field("username"),
        ),
        get(
            As::Editor,
            "/dashboard/stats?campaign=Summer%00",
            Field("campaign"),
        ),
        get(
            As::Editor,
            &format!("/analytics/videos/for_date?date={day}&campaign=%00"),
            Field("campaign"),
        ),
        send(
            As::Editor,
            Method::POST,
            "/tags",
            json!({"name": nul}),
            Field("name"),
        ),
        send(
            As::Editor,
            Method::POST,
            "/blogger/merge",
            json!({"blogger_ids": blogger_ids, "name": nul}),
            Field("name"),
        ),
        send(
            As::Admin,
            Method::POST,
            "/organizations/api-keys",
            json!({"name": nul}),
            Field("name"),
        ),
        send(
            As::Admin,
            Method::POST,
            "/organizations/team/invite",
            json!({"invites": [{"email": "ok@example.com", "role": "editor"},
                               {"email": "a\u{0}@example.com", "role": "viewer"}]}),
            Field("invites[1].email"),
        ),
        send(
            As::Admin,
            Method::POST,
            "/organizations/register",
            json!({"name": nul}),
            Field("name"),
        ),
        // A NUL in a field's name is refused too.
        send(
            As::Key,
            Method::PATCH,
            VIDEO,
            json!({"no\u{0}tes": "x"}),
            Field("body"),
        ),
    ]
}

/// Everything the cases could have written or charged, as the organization sees it.
async fn state(app: &TestApp, team: &Team, admin: &str) -> Value {
    let org = Some(team.org.as_str());
    let usage = app.get("/v1/account/usage", Some(&team.key)).await;
    let video = app.get(VIDEO, Some(&team.key)).await.body["data"]["data"].clone();
    let list = app.get("/v1/videos/stats?limit=100", Some(&team.key)).await;
    let dashboard = |path: &'static str, token: &'static str| {
        let token = if token == "admin" {
            admin
        } else {
            &team.editor
        };
        call(app, Method::GET, path, token, org, None)
    };
    let tags = dashboard("/tags", "editor").await;
    let bloggers = dashboard("/blogger/list", "editor").await;
    let keys = dashboard("/organizations/api-keys", "admin").await;
    let invites = dashboard("/organizations/team/pending-invites/count", "admin").await;
    let orgs = call(app, Method::GET, "/organizations/list", admin, None, None).await;
    json!({
        "credits": usage.body["data"]["summary"]["total_credits_30_days"],
        "notes": video["notes"], "budget": video["budget"], "video_tags": video["tags"],
        "videos": list.body["data"]["pagination"]["total"],
        "tags": tags.body["data"],
        "bloggers": bloggers.body["data"],
        "keys": keys.body["data"].as_array().map(Vec::len),
        "invites": invites.body["data"],
        "organizations": orgs.body["data"],
    })
}

#[rstest]
#[tokio::test]
async fn a_nul_character_is_refused_before_anything_is_written_or_charged(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let team = team(&app).await;
    let (admin, admin_id) = member(&app, "admin@example.com").await;
    let org_id = vidpulse_domain::OrgId(team.org.parse().unwrap());
    app.store
        .add_member(org_id, admin_id, Role::Admin, app.clock.now())
        .await
        .unwrap();
    app.track(&team.key, &[TIKTOK]).await;
    app.run_worker_until_idle().await;
    for name in ["ana.cooks", "ana.travels"] {
        track_creator(&app, &team.key, name, 2).await;
    }
    app.run_jobs_until_idle().await;
    let listed = call(
        &app,
        Method::GET,
        "/blogger/list",
        &team.editor,
        Some(&team.org),
        None,
    )
    .await;
    let blogger_ids: Vec<Value> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["blogger_id"].clone())
        .collect();
    assert_eq!(blogger_ids.len(), 2, "{}", listed.body);
    let day = app.clock.now().date_naive().to_string();

    let before = state(&app, &team, &admin).await;
    for case in cases(&blogger_ids, &day) {
        let what = format!("{} {}", case.method, case.path);
        let a = match case.who {
            As::Key => {
                let mut req = app
                    .client
                    .request(case.method.clone(), app.url(&case.path))
                    .bearer_auth(&team.key);
                if let Some(body) = &case.body {
                    req = req.json(body);
                }
                TestApp::answer(req.send().await.unwrap()).await
            }
            As::Editor | As::Admin => {
                let token = if matches!(case.who, As::Admin) {
                    admin.as_str()
                } else {
                    team.editor.as_str()
                };
                let org = (case.path != "/organizations/register").then_some(team.org.as_str());
                call(
                    &app,
                    case.method.clone(),
                    &case.path,
                    token,
                    org,
                    case.body.as_ref(),
                )
                .await
            }
        };
        match case.refusal {
            Refusal::Field(field) => {
                assert_nested_error(&a, 400, "VALIDATION_ERROR");
                assert_eq!(a.body["error"]["field"], field, "{what}: {}", a.body);
                let message = a.body["error"]["message"].as_str().unwrap();
                assert!(message.contains("NUL"), "{what}: {message}");
            }
            Refusal::Parameter(name) => {
                assert_flat_error(&a, 400, "INVALID_PARAMETER");
                assert_eq!(a.body["details"]["parameter"], name, "{what}: {}", a.body);
            }
            Refusal::VideoNotFound => {
                assert_eq!(a.status.as_u16(), 404, "{what}: {}", a.body);
                assert_eq!(a.body["error"], "Video not found", "{what}");
            }
            Refusal::NotFound(code) => assert_nested_error(&a, 404, code),
        }
    }
    assert_eq!(state(&app, &team, &admin).await, before);
    assert_eq!(
        app.run_jobs_until_idle().await,
        0,
        "no creator job was queued"
    );
}

#[rstest]
#[tokio::test]
async fn admin_names_with_a_nul_are_refused(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use vidpulse::commands::admin;
    let app = TestApp::spawn(backend).await;
    let now = app.clock.now();
    let plan = vidpulse_domain::Plan::Pro;
    let err = admin::create_org(&app.store, "Ac\u{0}me", plan, None, now)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("NUL"), "{err}");
    let org = admin::create_org(&app.store, "Acme", plan, None, now)
        .await
        .unwrap();
    let err = admin::create_api_key(&app.store, org.organization_id, Some("c\u{0}i"), now)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("NUL"), "{err}");
}

/// Values at the edges of what the handlers take answer alike on both
/// backends: the last day a date parameter can name, and the largest
/// integers the PATCH and the listing accept.
#[rstest]
#[tokio::test]
async fn the_largest_accepted_values_answer_alike_on_both_backends(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.org_with_key(vidpulse_domain::Plan::Pro).await;
    app.track(&key, &[TIKTOK]).await;
    app.run_worker_until_idle().await;
    let views = |a: &crate::helpers::Answer| {
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        a.body["data"]["total"]["views"].as_i64().unwrap()
    };
    let all = views(&app.get("/v1/analytics/metrics/totals", Some(&key)).await);
    assert!(all > 0);
    for filter in [
        "published_at.from=0000-01-01&published_at.to=9999-12-31",
        "tracked_at.to=9999-12-31",
        "published_at.to=9999-12-30",
    ] {
        let path = format!("/v1/analytics/metrics/totals?{filter}");
        assert_eq!(views(&app.get(&path, Some(&key)).await), all, "{filter}");
    }

    let max = i64::MAX;
    let a = app
        .patch(VIDEO, &key, &json!({"budget": max, "ecpm": 1e300}))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let v = app.get(VIDEO, Some(&key)).await.body["data"]["data"].clone();
    assert_eq!(
        (v["budget"].as_i64(), v["ecpm"].as_f64()),
        (Some(max), Some(1e300))
    );
    let a = app
        .get(&format!("/v1/videos/stats?offset={max}"), Some(&key))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["data"], json!([]));
    assert_eq!(a.body["data"]["pagination"]["total"], 1);
}
