//! Organizations on the dashboard: register and list.

use rstest::rstest;
use serde_json::json;
use vidpulse_store::Backend;

use super::{register, token};
use crate::helpers::{TestApp, assert_nested_error};

#[rstest]
#[tokio::test]
async fn a_user_registers_organizations_and_lists_only_theirs(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let ann = token(&app, "Ann@Example.com", None).await;
    let bob = token(&app, "bob@example.com", None).await;

    let a = register(&app, &ann, &json!({"name": "  Zeta studio "})).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(a.body["success"], true);
    let zeta = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = register(&app, &ann, &json!({"name": "Acme"})).await;
    let acme = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    register(&app, &bob, &json!({"name": "Bob's"})).await;

    let a = app.get("/organizations/list", Some(&ann)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"],
        json!([
            {"id": acme, "name": "Acme", "role": "admin"},
            {"id": zeta, "name": "Zeta studio", "role": "admin"},
        ])
    );
    let a = app.get("/organizations/list", Some(&bob)).await;
    assert_eq!(a.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(a.body["data"][0]["name"], "Bob's");

    // The same person signing in again is the same user.
    let again = token(&app, "ann@example.com", None).await;
    let a = app.get("/organizations/list", Some(&again)).await;
    assert_eq!(a.body["data"].as_array().unwrap().len(), 2);
}

#[rstest]
#[tokio::test]
async fn register_validates_its_body_and_writes_nothing_on_error(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = token(&app, "ann@example.com", None).await;
    let long = "x".repeat(201);
    for (body, field) in [
        (json!({}), "name"),
        (json!({"name": null}), "name"),
        (json!({"name": 5}), "name"),
        (json!({"name": ["a"]}), "name"),
        (json!({"name": "   "}), "name"),
        (json!({"name": long}), "name"),
        (json!({"name": "a\u{0007}b"}), "name"),
        (json!(["Acme"]), "body"),
        (json!("Acme"), "body"),
    ] {
        let a = register(&app, &t, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let a = app
        .send_raw(
            reqwest::Method::POST,
            "/organizations/register",
            Some(&t),
            "application/json",
            "{\"name\": ",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = app
        .send_raw(
            reqwest::Method::POST,
            "/organizations/register",
            Some(&t),
            "text/plain",
            "name=Acme",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = app.get("/organizations/list", Some(&t)).await;
    assert_eq!(a.body["data"], json!([]));
    // 200 characters is fine.
    let a = register(&app, &t, &json!({"name": "y".repeat(200)})).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
}
