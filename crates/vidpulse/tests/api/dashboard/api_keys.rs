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

#[rstest]
#[tokio::test]
async fn admins_choose_a_keys_scopes(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let a = register(&app, &admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let create = |body: serde_json::Value| {
        let (app, admin, org) = (&app, &admin, &org);
        async move {
            call(
                app,
                Method::POST,
                "/organizations/api-keys",
                admin,
                Some(org),
                Some(&body),
            )
            .await
        }
    };

    // Refused, each naming `scopes`, and nothing made.
    for (body, words) in [
        (json!({"scopes": []}), "at least one scope"),
        (json!({"scopes": ["write"]}), "`write` needs `read`"),
        (
            json!({"scopes": ["read", "admin"]}),
            "unknown scope `admin`",
        ),
        (json!({"scopes": "read"}), "must be an array"),
        (json!({"scopes": [1]}), "strings"),
        (json!({"scopes": ["READ"]}), "unknown scope `READ`"),
    ] {
        let a = create(body.clone()).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], "scopes", "{body}");
        let message = a.body["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{body}: {message}");
    }
    let listed = call(
        &app,
        Method::GET,
        "/organizations/api-keys",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(listed.body["data"], json!([]));

    let read = create(json!({"name": "Looker", "scopes": ["read"]})).await;
    assert_eq!(read.status.as_u16(), 201, "{}", read.body);
    assert_eq!(read.body["data"]["scopes"], json!(["read"]));
    let full = create(json!({"name": "CI"})).await;
    assert_eq!(
        full.body["data"]["scopes"],
        json!(["read", "write"]),
        "full access by default"
    );
    let both = create(json!({"scopes": ["write", "read", "read"], "name": null})).await;
    assert_eq!(both.body["data"]["scopes"], json!(["read", "write"]));
    let null = create(json!({"scopes": null})).await;
    assert_eq!(null.body["data"]["scopes"], json!(["read", "write"]));

    let listed = call(
        &app,
        Method::GET,
        "/organizations/api-keys",
        &admin,
        Some(&org),
        None,
    )
    .await;
    let scopes: Vec<_> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["name"].clone(), k["scopes"].clone()))
        .collect();
    assert!(
        scopes.contains(&(json!("Looker"), json!(["read"]))),
        "{scopes:?}"
    );
    assert!(
        scopes.contains(&(json!("CI"), json!(["read", "write"]))),
        "{scopes:?}"
    );

    // The read-only key reads and may not write.
    let key = read.body["data"]["api_key"].as_str().unwrap();
    assert_eq!(
        app.get("/v1/videos/stats", Some(key)).await.status.as_u16(),
        200
    );
    let a = app
        .post(
            "/v1/videos/track",
            key,
            &json!({"urls": [crate::helpers::youtube(1)]}),
        )
        .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_SCOPE");
}
