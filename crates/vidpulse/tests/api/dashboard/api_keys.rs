//! API keys on the dashboard: created, listed and revoked by admins.

use rstest::rstest;
use serde_json::json;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use super::{call, member, register};
use crate::helpers::{TestApp, assert_nested_error};

#[rstest]
#[tokio::test]
async fn admins_create_list_and_revoke_api_keys(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    use vidpulse_domain::identity::Role;
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let (editor, editor_id) = member(&app, "ed@example.com").await;
    let a = register(&app, &admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    app.store
        .add_member(org_id, editor_id, Role::Editor, app.clock.now())
        .await
        .unwrap();
    let (other_org, other_key) = app.org_with_key(Plan::Pro).await;

    let a = call(
        &app,
        Method::POST,
        "/organizations/api-keys",
        &editor,
        Some(&org),
        Some(&json!({})),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(
        &app,
        Method::POST,
        "/organizations/api-keys",
        &admin,
        Some(&org),
        Some(&json!({"name": 7})),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = call(
        &app,
        Method::POST,
        "/organizations/api-keys",
        &admin,
        Some(&org),
        Some(&json!({"name": "CI"})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let key = a.body["data"]["api_key"].as_str().unwrap().to_owned();
    let key_id = a.body["data"]["key_id"].as_str().unwrap().to_owned();
    assert!(key.starts_with(a.body["data"]["prefix"].as_str().unwrap()));
    // The key works on the public API.
    assert_eq!(
        app.get("/v1/videos/stats", Some(&key))
            .await
            .status
            .as_u16(),
        200
    );

    let a = call(
        &app,
        Method::GET,
        "/organizations/api-keys",
        &admin,
        Some(&org),
        None,
    )
    .await;
    let keys = a.body["data"].as_array().unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0]["name"], "CI");
    assert!(keys[0].get("api_key").is_none(), "never listed again");
    let a = call(
        &app,
        Method::GET,
        "/organizations/api-keys",
        &editor,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");

    // Another organization's key cannot be revoked from here.
    let others = app
        .store
        .list_api_keys(vidpulse_domain::OrgId(other_org))
        .await
        .unwrap();
    let path = format!("/organizations/api-keys/{}", others[0].id.0);
    let a = call(&app, Method::DELETE, &path, &admin, Some(&org), None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert_eq!(
        app.get("/v1/videos/stats", Some(&other_key))
            .await
            .status
            .as_u16(),
        200
    );

    let path = format!("/organizations/api-keys/{key_id}");
    let a = call(&app, Method::DELETE, &path, &editor, Some(&org), None).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(&app, Method::DELETE, &path, &admin, Some(&org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(&app, Method::DELETE, &path, &admin, Some(&org), None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    assert_eq!(
        app.get("/v1/videos/stats", Some(&key))
            .await
            .status
            .as_u16(),
        401
    );
    let a = call(
        &app,
        Method::DELETE,
        "/organizations/api-keys/xyz",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
}
