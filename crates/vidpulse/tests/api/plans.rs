//! Plans on day one: `admin create-user` and `create-org` take `--plan`,
//! re-running `create-user` finds the user's organization of that name, new
//! organizations take the operator's default plan (the app's included), and
//! `GET /organizations/plan` shows the plan, its limits and their use.

use std::process::{Command, Output};

use reqwest::Method;
use rstest::rstest;
use serde_json::json;
use vidpulse_api::ApiConfig;
use vidpulse_domain::{OrgId, Plan, UserId};
use vidpulse_store::testing::TestDb;
use vidpulse_store::{Backend, StoreConfig};

use crate::cli::{json_out, one_line_error, vidpulse};
use crate::dashboard::{call, register, team, token, track_creator};
use crate::helpers::{TestApp, TestConfig, YOUTUBE, assert_nested_error};

/// The binary with `env` set on top of the database.
fn vidpulse_with(db: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vidpulse"))
        .args(args)
        .env("DATABASE_URL", db)
        .env_remove("RUST_LOG")
        .env_remove("VIDPULSE_DEFAULT_PLAN")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// `admin create-user --email EMAIL` with `more` flags.
fn create_user(db: &str, email: &str, more: &[&str]) -> Output {
    let mut args = vec!["admin", "create-user", "--email", email];
    args.extend_from_slice(more);
    vidpulse_with(db, &args, &[])
}

#[rstest]
#[tokio::test]
async fn create_user_again_finds_the_users_organization_and_keeps_its_plan(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, _dir) = TestDb::create(backend).await.unwrap();
    json_out(&vidpulse(&db, &["migrate"]));
    let first = json_out(&create_user(
        &db,
        "you@example.com",
        &["--org", "Your agency", "--role", "owner", "--plan", "pro"],
    ));
    assert_eq!(first["organization_created"], true, "{first}");
    assert_eq!(first["plan"], "pro");
    assert_eq!(first["role"], "owner");
    let org = first["organization_id"].as_str().unwrap().to_owned();

    // The README's advice for a forgotten password: the same command again
    // (and with the name in another case, and without --plan). Each run
    // prints a new link and creates nothing else.
    let mut links = vec![first["set_password_url"].clone()];
    for more in [
        &["--org", "Your agency", "--role", "owner", "--plan", "pro"][..],
        &["--org", "  your AGENCY "][..],
    ] {
        let again = json_out(&create_user(&db, "You@Example.com", more));
        assert_eq!(again["organization_id"], org.as_str(), "{more:?}: {again}");
        assert_eq!(again["organization_created"], false);
        assert_eq!(again["user_id"], first["user_id"]);
        assert_eq!(
            (again["plan"].as_str(), again["role"].as_str()),
            (Some("pro"), Some("owner"))
        );
        assert!(!links.contains(&again["set_password_url"]));
        links.push(again["set_password_url"].clone());
    }

    // Another plan than the organization's is refused, with the command
    // that changes it; nothing is written (not even a link for a new user).
    let refused = one_line_error(&create_user(
        &db,
        "you@example.com",
        &["--org", "Your agency", "--plan", "business"],
    ));
    assert!(
        refused.contains(&format!(
            "vidpulse admin set-plan --org {org} --plan business"
        )),
        "{refused}"
    );
    let refused = one_line_error(&create_user(
        &db,
        "new@example.com",
        &["--org", &org, "--plan", "free"],
    ));
    assert!(refused.contains("is on the pro plan"), "{refused}");
    let store = vidpulse_store::open(&StoreConfig::new(db.as_str()))
        .await
        .unwrap();
    assert!(
        store
            .password_of("new@example.com")
            .await
            .unwrap()
            .is_none()
    );
    // The same plan by id is no change: the new member joins as a viewer.
    let joined = json_out(&create_user(
        &db,
        "kim@example.com",
        &["--org", &org, "--plan", "pro"],
    ));
    assert_eq!(
        (joined["organization_id"].as_str(), joined["role"].as_str()),
        (Some(org.as_str()), Some("viewer"))
    );
    assert_eq!(joined["organization_created"], false);

    // One organization of that name for the user, however often they ran it.
    let user = UserId(first["user_id"].as_str().unwrap().parse().unwrap());
    let memberships = store.memberships(user).await.unwrap();
    assert_eq!(memberships.len(), 1, "{memberships:?}");
    // Someone who is not a member of it gets an organization of their own.
    let other = json_out(&create_user(
        &db,
        "ann@example.com",
        &["--org", "Your agency"],
    ));
    assert_ne!(other["organization_id"], org.as_str());
    assert_eq!(
        (
            other["organization_created"].as_bool(),
            other["plan"].as_str()
        ),
        (Some(true), Some("free"))
    );

    // --plan needs --org; an unknown plan is named.
    let out = create_user(&db, "x@example.com", &["--plan", "pro"]);
    assert!(one_line_error(&out).contains("--org"));
    let out = create_user(&db, "x@example.com", &["--org", "X", "--plan", "gold"]);
    assert!(one_line_error(&out).contains("unknown plan"));
    store.close().await;
}

#[rstest]
#[tokio::test]
async fn new_organizations_take_the_operators_default_plan(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, _dir) = TestDb::create(backend).await.unwrap();
    json_out(&vidpulse(&db, &["migrate"]));
    let pro = [("VIDPULSE_DEFAULT_PLAN", "pro")];
    let plan_of = |out: &Output| json_out(out)["plan"].as_str().unwrap().to_owned();
    // Without a default: free, as before.
    assert_eq!(
        plan_of(&vidpulse_with(
            &db,
            &["admin", "create-org", "--name", "A"],
            &[]
        )),
        "free"
    );
    assert_eq!(
        plan_of(&vidpulse_with(
            &db,
            &["admin", "create-org", "--name", "B"],
            &pro
        )),
        "pro"
    );
    // The flag wins over the variable; --plan over both.
    let args = [
        "admin",
        "create-org",
        "--name",
        "C",
        "--default-plan",
        "business",
    ];
    assert_eq!(plan_of(&vidpulse_with(&db, &args, &pro)), "business");
    let args = ["admin", "create-org", "--name", "D", "--plan", "free"];
    assert_eq!(plan_of(&vidpulse_with(&db, &args, &pro)), "free");
    let args = [
        "admin",
        "create-user",
        "--email",
        "e@example.com",
        "--org",
        "E",
    ];
    assert_eq!(plan_of(&vidpulse_with(&db, &args, &pro)), "pro");
    let out = vidpulse_with(
        &db,
        &["admin", "create-org", "--name", "F"],
        &[("VIDPULSE_DEFAULT_PLAN", "gold")],
    );
    assert!(one_line_error(&out).contains("gold"));
}

/// `GET /organizations/plan` as `token` in `org`.
async fn plan(app: &TestApp, token: &str, org: &str) -> crate::helpers::Answer {
    call(
        app,
        Method::GET,
        "/organizations/plan",
        token,
        Some(org),
        None,
    )
    .await
}

#[rstest]
#[tokio::test]
async fn the_app_starts_organizations_on_the_default_plan(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    for (default, name) in [(Plan::Free, "free"), (Plan::Business, "business")] {
        let config = TestConfig {
            api: ApiConfig {
                default_plan: default,
                ..ApiConfig::default()
            },
            ..TestConfig::default()
        };
        let app = TestApp::spawn_with(backend, config).await;
        let ann = token(&app, "ann@example.com", None).await;
        let a = register(&app, &ann, &json!({"name": "Acme"})).await;
        assert_eq!(a.status.as_u16(), 201, "{}", a.body);
        let org = a.body["data"]["organization_id"].as_str().unwrap();
        let a = plan(&app, &ann, org).await;
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        assert_eq!(a.body["data"]["plan"], name);
    }
}

#[rstest]
#[tokio::test]
async fn the_plan_shows_each_limit_and_its_use_to_any_member(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let team = team(&app).await;
    let a = plan(&app, &team.viewer, &team.org).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let data = &a.body["data"];
    let resets = data["trend_searches"]["resets_at"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(resets.contains("-01T00:00:00"), "{resets}");
    assert_eq!(
        *data,
        json!({
            "organization_id": team.org,
            "plan": "pro",
            "paid_operations": true,
            "tracked_videos": {"used": 0, "limit": 1000},
            "creators": {"used": 0, "limit": 200},
            "trend_searches": {"used": 0, "limit": 1000, "resets_at": resets},
        })
    );

    // Two videos, a creator being added (its job still queued) and a trend
    // search: each counted as its limit counts it.
    app.track(&team.key, &[YOUTUBE, "https://youtu.be/yt000000001"])
        .await;
    track_creator(&app, &team.key, "mira.cooks", 0).await;
    let a = app
        .get(
            "/v1/trends/search?platform=tiktok&keyword=kitchen",
            Some(&team.key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let data = plan(&app, &team.editor, &team.org).await.body["data"].clone();
    assert_eq!(data["tracked_videos"], json!({"used": 2, "limit": 1000}));
    assert_eq!(data["creators"], json!({"used": 1, "limit": 200}));
    assert_eq!(data["trend_searches"]["used"], 1);

    // The operator's overrides are the limits in force.
    let org = OrgId(team.org.parse().unwrap());
    app.store
        .set_plan(org, Plan::Pro, Some(5), Some(3))
        .await
        .unwrap();
    let data = plan(&app, &team.viewer, &team.org).await.body["data"].clone();
    assert_eq!(data["tracked_videos"], json!({"used": 2, "limit": 5}));
    assert_eq!(data["creators"], json!({"used": 1, "limit": 3}));

    // The free plan: no paid operations, no trend searches.
    app.store
        .set_plan(org, Plan::Free, None, None)
        .await
        .unwrap();
    let data = plan(&app, &team.viewer, &team.org).await.body["data"].clone();
    assert_eq!(
        (data["plan"].as_str(), data["paid_operations"].as_bool()),
        (Some("free"), Some(false))
    );
    assert_eq!(data["tracked_videos"]["limit"], 100);
    assert_eq!(data["trend_searches"]["limit"], 0);

    // Once their tracking windows end, the videos no longer count.
    app.advance(chrono::Duration::days(31));
    let viewer = token(&app, "vi@example.com", None).await;
    let data = plan(&app, &viewer, &team.org).await.body["data"].clone();
    assert_eq!(data["tracked_videos"]["used"], 0);
}

#[rstest]
#[tokio::test]
async fn the_plan_of_another_organization_is_not_found(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let team = team(&app).await;
    let stranger = token(&app, "stranger@example.com", None).await;
    assert_nested_error(&plan(&app, &stranger, &team.org).await, 404, "NOT_FOUND");
    let unknown = uuid::Uuid::new_v4().to_string();
    assert_nested_error(&plan(&app, &team.viewer, &unknown).await, 404, "NOT_FOUND");
    let a = call(
        &app,
        Method::GET,
        "/organizations/plan",
        &team.viewer,
        None,
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = call(
        &app,
        Method::GET,
        "/organizations/plan",
        &team.viewer,
        Some("nope"),
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = app.get("/organizations/plan", None).await;
    assert_nested_error(&a, 401, "MISSING_AUTH");
}
