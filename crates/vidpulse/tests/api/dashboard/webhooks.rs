//! Webhook endpoints on the dashboard: the public API's abilities for
//! admins, one organization's endpoints shared by both interfaces.

use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::identity::Role;
use vidpulse_store::Backend;

use super::{call, member, registered};
use crate::helpers::{TIKTOK, TestApp, assert_nested_error};
use crate::receiver::Receiver;

#[rstest]
#[tokio::test]
async fn admins_manage_webhooks(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let (editor, editor_id) = member(&app, "ed@example.com").await;
    let (stranger, _) = member(&app, "stranger@example.com").await;
    let org = registered(&app, &admin, &[(editor_id, Role::Editor)]).await;
    let receiver = Receiver::start().await;
    let as_admin = |method: Method, path: String, body: Option<Value>| {
        let (app, admin, org) = (&app, &admin, &org);
        async move { call(app, method, &path, admin, Some(org), body.as_ref()).await }
    };

    // Admins only; other organizations' members see nothing.
    let body = json!({ "url": receiver.url, "events": ["video.tracked"] });
    let a = call(
        &app,
        Method::POST,
        "/organizations/webhooks",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(
        &app,
        Method::GET,
        "/organizations/webhooks",
        &stranger,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Bad input: a clear error, nothing written.
    for (bad, field) in [
        (json!({ "events": ["video.tracked"] }), "url"),
        (json!({ "url": receiver.url, "events": ["nope"] }), "events"),
        (
            json!({ "url": receiver.url, "events": ["video.tracked"], "x": 1 }),
            "x",
        ),
    ] {
        let a = as_admin(Method::POST, "/organizations/webhooks".into(), Some(bad)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field);
    }
    let a = as_admin(Method::GET, "/organizations/webhooks".into(), None).await;
    assert_eq!(a.body["data"], json!([]));

    // Created with its secret, once.
    let a = as_admin(Method::POST, "/organizations/webhooks".into(), Some(body)).await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let hook = a.body["data"]["id"].as_str().unwrap().to_owned();
    let secret = a.body["data"]["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"));
    let a = as_admin(Method::GET, format!("/organizations/webhooks/{hook}"), None).await;
    assert_eq!(a.body["data"]["events"], json!(["video.tracked"]));
    assert!(a.body["data"].get("secret").is_none());
    let a = call(
        &app,
        Method::GET,
        &format!("/organizations/webhooks/{hook}"),
        &editor,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");

    // The same endpoint on the public API, and its events delivered.
    let a = as_admin(
        Method::POST,
        "/organizations/api-keys".into(),
        Some(json!({})),
    )
    .await;
    let key = a.body["data"]["api_key"].as_str().unwrap().to_owned();
    let listed = app.get("/v1/webhooks", Some(&key)).await;
    assert_eq!(listed.body["data"][0]["id"], hook.as_str());
    app.track(&key, &[TIKTOK]).await;
    let a = as_admin(
        Method::POST,
        format!("/organizations/webhooks/{hook}/test"),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    assert_eq!(app.run_webhooks_until_idle().await, 2);
    assert!(receiver.received().iter().all(|r| r.signed_by(&secret)));

    // Updated; the log read, one delivery and every event since replayed.
    let a = as_admin(
        Method::PATCH,
        format!("/organizations/webhooks/{hook}"),
        Some(json!({ "description": "CRM" })),
    )
    .await;
    assert_eq!(a.body["data"]["description"], "CRM", "{}", a.body);
    let a = as_admin(
        Method::GET,
        format!("/organizations/webhooks/{hook}/deliveries?status=delivered"),
        None,
    )
    .await;
    assert_eq!(a.body["meta"]["pagination"]["total"], 2, "{}", a.body);
    let delivery = a.body["data"][0]["id"].as_str().unwrap().to_owned();
    let a = as_admin(
        Method::GET,
        format!("/organizations/webhooks/{hook}/deliveries?limit=0"),
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = as_admin(
        Method::POST,
        format!("/organizations/webhooks/{hook}/deliveries/{delivery}/replay"),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    let a = as_admin(
        Method::POST,
        format!("/organizations/webhooks/{hook}/deliveries/not-an-id/replay"),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = as_admin(
        Method::POST,
        format!("/organizations/webhooks/{hook}/replay"),
        Some(json!({ "since": "2000-01-01T00:00:00Z" })),
    )
    .await;
    assert_eq!(
        a.body["data"]["queued"], 1,
        "video.tracked only: {}",
        a.body
    );
    assert_eq!(app.run_webhooks_until_idle().await, 2);
    assert_eq!(receiver.received().len(), 4);

    // Rotated: both secrets sign for a day.
    let a = as_admin(
        Method::POST,
        format!("/organizations/webhooks/{hook}/rotate-secret"),
        None,
    )
    .await;
    let new = a.body["data"]["secret"].as_str().unwrap().to_owned();
    as_admin(
        Method::POST,
        format!("/organizations/webhooks/{hook}/test"),
        None,
    )
    .await;
    app.run_webhooks_until_idle().await;
    let last = receiver.received().pop().unwrap();
    assert!(last.signed_by(&new) && last.signed_by(&secret));

    // Deleted, once.
    let path = format!("/organizations/webhooks/{hook}");
    let a = as_admin(Method::DELETE, path.clone(), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_nested_error(
        &as_admin(Method::DELETE, path.clone(), None).await,
        404,
        "NOT_FOUND",
    );
    assert_nested_error(&as_admin(Method::GET, path, None).await, 404, "NOT_FOUND");
}
