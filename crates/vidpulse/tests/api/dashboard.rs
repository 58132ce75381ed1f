//! The dashboard API's identity and organizations: tokens from the built-in
//! development identity, users created on first sight, register and list.

use chrono::Duration;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_api::dashboard::identity::{Identity, IdentityConfig};
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::helpers::{TestApp, assert_nested_error};

/// A 30-day token as `vidpulse admin issue-token` signs it, with the database's secret.
pub(crate) async fn token(app: &TestApp, email: &str, sub: Option<&str>) -> String {
    vidpulse::commands::admin::issue_token(
        &app.store,
        IdentityConfig::default(),
        email,
        sub,
        30 * 24 * 3600,
        app.clock.now(),
    )
    .await
    .unwrap()
    .token
}

/// A token signed with the database's secret but with hand-picked claims.
async fn signed(app: &TestApp, claims: &Value) -> String {
    let identity = Identity::new(IdentityConfig::default());
    let secret = identity.secret(app.store.as_ref()).await.unwrap().to_vec();
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        claims,
        &jsonwebtoken::EncodingKey::from_secret(&secret),
    )
    .unwrap()
}

pub(crate) async fn register(app: &TestApp, token: &str, body: &Value) -> crate::helpers::Answer {
    app.send_json(
        reqwest::Method::POST,
        "/organizations/register",
        Some(token),
        body,
    )
    .await
}

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
async fn an_owner_made_by_the_admin_command_signs_in_and_sees_the_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let org = vidpulse::commands::admin::create_org(
        &app.store,
        "Agency",
        Plan::Pro,
        Some("owner@example.com"),
        app.clock.now(),
    )
    .await
    .unwrap();
    let owner = token(&app, "OWNER@example.com", None).await;
    let a = app.get("/organizations/list", Some(&owner)).await;
    assert_eq!(
        a.body["data"],
        json!([{"id": org.organization_id, "name": "Agency", "role": "owner"}])
    );
    // The first identity provider's token with that address is linked to
    // the owner (the command's placeholder subject yields to it) ...
    let idp = token(&app, "owner@example.com", Some("idp|42")).await;
    let a = app.get("/organizations/list", Some(&idp)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"][0]["role"], "owner");
    // ... and from then on another identity claiming it is refused.
    let impostor = token(&app, "owner@example.com", Some("other-idp|43")).await;
    let a = app.get("/organizations/list", Some(&impostor)).await;
    assert_nested_error(&a, 409, "IDENTITY_CONFLICT");
    // An address equal only under Unicode case folding is another address.
    let kelvin = token(&app, "\u{212A}ate@example.com", Some("idp|k")).await;
    let a = app.get("/organizations/list", Some(&kelvin)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"], json!([]));
}

#[rstest]
#[tokio::test]
async fn bad_tokens_are_refused_and_change_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let now = app.clock.now().timestamp();
    let a = app.get("/organizations/list", None).await;
    assert_nested_error(&a, 401, "MISSING_AUTH");

    let expired = signed(
        &app,
        &json!({"sub": "x", "email": "a@b.co", "exp": now - 3600}),
    )
    .await;
    let no_email = signed(&app, &json!({"sub": "x", "exp": now + 3600})).await;
    let bad_email = signed(
        &app,
        &json!({"sub": "x", "email": "nobody", "exp": now + 3600}),
    )
    .await;
    let no_exp = signed(&app, &json!({"sub": "x", "email": "a@b.co"})).await;
    let other_secret = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &json!({"sub": "x", "email": "a@b.co", "exp": now + 3600}),
        &jsonwebtoken::EncodingKey::from_secret(b"not the secret"),
    )
    .unwrap();
    let good = token(&app, "a@b.co", None).await;
    let (_, payload_and_sig) = good.split_once('.').unwrap();
    let (payload, _) = payload_and_sig.split_once('.').unwrap();
    // {"alg":"none","typ":"JWT"} and {"alg":"HS512","typ":"JWT"}, unsigned.
    let alg_none = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{payload}.");
    let alg_hs512 = format!("eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9.{payload}.");
    for bad in [
        expired.as_str(),
        no_email.as_str(),
        bad_email.as_str(),
        no_exp.as_str(),
        other_secret.as_str(),
        alg_none.as_str(),
        alg_hs512.as_str(),
        "garbage",
        "a.b.c",
    ] {
        let a = app.get("/organizations/list", Some(bad)).await;
        assert_nested_error(&a, 401, "INVALID_TOKEN");
        let a = register(&app, bad, &json!({"name": "Nope"})).await;
        assert_nested_error(&a, 401, "INVALID_TOKEN");
    }
    // Not a Bearer header at all.
    let a = app
        .client
        .get(app.url("/organizations/list"))
        .header("authorization", format!("Basic {good}"))
        .send()
        .await
        .unwrap();
    assert_eq!(a.status().as_u16(), 401);
    // Nothing was created by the refused requests.
    let a = app.get("/organizations/list", Some(&good)).await;
    assert_eq!(a.body["data"], json!([]));
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

#[rstest]
#[tokio::test]
async fn a_configured_secret_issuer_and_audience_are_enforced(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let identity = IdentityConfig {
        secret: Some("configured-secret".into()),
        issuer: Some("https://id.example".into()),
        audience: Some("vidpulse".into()),
        ..IdentityConfig::default()
    };
    let mut config = crate::helpers::TestConfig::default();
    config.api.identity = identity.clone();
    let app = TestApp::spawn_with(backend, config).await;
    let now = app.clock.now();
    let issue = |cfg: IdentityConfig| {
        let app = &app;
        async move {
            vidpulse::commands::admin::issue_token(
                &app.store,
                cfg,
                "ann@example.com",
                None,
                600,
                now,
            )
            .await
            .unwrap()
            .token
        }
    };
    let good = issue(identity.clone()).await;
    let a = app.get("/organizations/list", Some(&good)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    for wrong in [
        IdentityConfig {
            issuer: Some("https://evil.example".into()),
            ..identity.clone()
        },
        IdentityConfig {
            audience: None,
            ..identity.clone()
        },
        IdentityConfig {
            secret: None, // the database's secret, not the configured one
            ..identity.clone()
        },
    ] {
        let t = issue(wrong).await;
        let a = app.get("/organizations/list", Some(&t)).await;
        assert_nested_error(&a, 401, "INVALID_TOKEN");
    }
    // Expiry follows the service's clock: eleven minutes on, the 10-minute token is dead.
    app.advance(Duration::minutes(11));
    let a = app.get("/organizations/list", Some(&good)).await;
    assert_nested_error(&a, 401, "INVALID_TOKEN");
}

/// Signs `email` in, returning the token and the user's id.
pub(crate) async fn member(app: &TestApp, email: &str) -> (String, vidpulse_domain::UserId) {
    let t = token(app, email, None).await;
    let user = app
        .store
        .user_for_identity(
            &vidpulse_domain::identity::dev_subject(email),
            email,
            app.clock.now(),
        )
        .await
        .unwrap();
    (t, user.id)
}

pub(crate) async fn call(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    token: &str,
    org: Option<&str>,
    body: Option<&Value>,
) -> crate::helpers::Answer {
    let mut req = app.client.request(method, app.url(path)).bearer_auth(token);
    if let Some(org) = org {
        req = req.header("X-Organization-ID", org);
    }
    if let Some(body) = body {
        req = req.json(body);
    }
    crate::helpers::TestApp::answer(req.send().await.unwrap()).await
}

#[rstest]
#[tokio::test]
async fn team_settings_language_and_roles(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    use vidpulse_domain::identity::Role;
    let app = TestApp::spawn(backend).await;
    let (admin, admin_id) = member(&app, "zed-admin@example.com").await;
    let (editor, editor_id) = member(&app, "Bea@example.com").await;
    let (viewer, viewer_id) = member(&app, "al@example.com").await;
    let (outsider, _) = member(&app, "out@example.com").await;
    let a = register(&app, &admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    let now = app.clock.now();
    assert!(
        app.store
            .add_member(org_id, editor_id, Role::Editor, now)
            .await
            .unwrap()
    );
    assert!(
        app.store
            .add_member(org_id, viewer_id, Role::Viewer, now)
            .await
            .unwrap()
    );
    assert!(
        !app.store
            .add_member(org_id, viewer_id, Role::Admin, now)
            .await
            .unwrap()
    );

    // Settings: any member; the header is required and checked.
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"],
        json!({"id": org, "name": "Acme", "logo_url": null, "currency": "USD"})
    );
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &viewer,
        None,
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "X-Organization-ID");
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &viewer,
        Some("nope"),
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // Another organization's id answers like an unknown one.
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &outsider,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let unknown = uuid::Uuid::new_v4().to_string();
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &admin,
        Some(&unknown),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Members sorted by e-mail, case-insensitively.
    let a = call(
        &app,
        Method::GET,
        "/organizations/team/members",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    let emails: Vec<&str> = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["email"].as_str().unwrap())
        .collect();
    assert_eq!(
        emails,
        ["al@example.com", "Bea@example.com", "zed-admin@example.com"]
    );
    assert_eq!(a.body["data"][0]["id"], viewer_id.0.to_string());

    // Language: per user, validated.
    let a = call(
        &app,
        Method::GET,
        "/organizations/user/language",
        &viewer,
        None,
        None,
    )
    .await;
    assert_eq!(a.body["data"], json!({"language": "en"}));
    let a = call(
        &app,
        Method::PUT,
        "/organizations/user/language",
        &viewer,
        None,
        Some(&json!({"language": "pt-BR"})),
    )
    .await;
    assert_eq!(a.body["data"], json!({"language": "pt-BR"}), "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/organizations/user/language",
        &viewer,
        None,
        None,
    )
    .await;
    assert_eq!(a.body["data"]["language"], "pt-BR");
    for bad in [
        json!({}),
        json!({"language": 3}),
        json!({"language": "english!"}),
    ] {
        let a = call(
            &app,
            Method::PUT,
            "/organizations/user/language",
            &viewer,
            None,
            Some(&bad),
        )
        .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], "language");
    }

    // Removal: admins only, not yourself, not the last admin.
    let remove = |t: &str, id: &str| {
        let body = json!({"user_id": id});
        let (app, org, t) = (&app, org.clone(), t.to_owned());
        async move {
            call(
                app,
                Method::POST,
                "/organizations/team/members/remove",
                &t,
                Some(&org),
                Some(&body),
            )
            .await
        }
    };
    let a = remove(&editor, &viewer_id.0.to_string()).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = remove(&admin, &admin_id.0.to_string()).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = remove(&admin, &uuid::Uuid::new_v4().to_string()).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = remove(&admin, "not-a-uuid").await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = remove(&admin, &viewer_id.0.to_string()).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    // Promote the editor to admin, who then cannot remove the last other admin
    // after that one is gone: the store refuses to empty the admins.
    app.store.remove_member(org_id, editor_id).await.unwrap();
    assert!(
        app.store
            .add_member(org_id, editor_id, Role::Admin, now)
            .await
            .unwrap()
    );
    let a = remove(&editor, &admin_id.0.to_string()).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        app.store.remove_member(org_id, editor_id).await.unwrap(),
        vidpulse_store::RemoveMember::LastAdmin
    );
    // An owner cannot remove the only admin either: the organization keeps
    // a member whose role is admin.
    let (owner, owner_id) = member(&app, "own@example.com").await;
    assert!(
        app.store
            .add_member(org_id, owner_id, Role::Owner, now)
            .await
            .unwrap()
    );
    let a = remove(&owner, &editor_id.0.to_string()).await;
    assert_nested_error(&a, 409, "LAST_ADMIN");
    assert_eq!(
        app.store.membership_role(editor_id, org_id).await.unwrap(),
        Some(Role::Admin)
    );
}

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

async fn upload(
    app: &TestApp,
    token: &str,
    org: &str,
    field: &str,
    bytes: Vec<u8>,
) -> crate::helpers::Answer {
    let form = reqwest::multipart::Form::new().part(
        field.to_owned(),
        reqwest::multipart::Part::bytes(bytes).file_name("logo.bin"),
    );
    let req = app
        .client
        .post(app.url("/organizations/logo"))
        .bearer_auth(token)
        .header("X-Organization-ID", org)
        .multipart(form);
    crate::helpers::TestApp::answer(req.send().await.unwrap()).await
}

/// A `width`×`height` image encoded as `format`, made here so the test
/// needs no fixture file.
fn image_bytes(format: image::ImageFormat, width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x * 40 % 256) as u8, (y * 40 % 256) as u8, 200])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// The `/files/...` path of a logo address.
fn file_path(url: &str) -> String {
    url.split_once("/files/")
        .map(|(_, n)| format!("/files/{n}"))
        .unwrap()
}

#[rstest]
#[tokio::test]
async fn admins_upload_a_logo_checked_by_content_and_size(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use image::ImageFormat;
    use vidpulse_domain::identity::Role;
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let (viewer, viewer_id) = member(&app, "viewer@example.com").await;
    let a = register(&app, &admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    app.store
        .add_member(org_id, viewer_id, Role::Viewer, app.clock.now())
        .await
        .unwrap();
    let png = image_bytes(ImageFormat::Png, 32, 16);
    let html = b"<html><script>alert(document.cookie)</script></html>".to_vec();

    let a = upload(&app, &viewer, &org, "file", png.clone()).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let svg = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>".to_vec();
    for (what, field, bytes, status, code) in [
        ("svg", "file", svg, 400, "VALIDATION_ERROR"),
        (
            "gif",
            "file",
            b"GIF89a....".to_vec(),
            400,
            "VALIDATION_ERROR",
        ),
        ("other field", "other", png.clone(), 400, "VALIDATION_ERROR"),
        (
            "PNG signature then HTML",
            "file",
            [&b"\x89PNG\r\n\x1a\n"[..], &html].concat(),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "PNG then HTML",
            "file",
            [png.as_slice(), &html].concat(),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "4097 pixels wide",
            "file",
            image_bytes(ImageFormat::Png, 4097, 1),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "over 512 KiB",
            "file",
            [png.clone(), vec![0; 512 * 1024]].concat(),
            413,
            "PAYLOAD_TOO_LARGE",
        ),
    ] {
        let a = upload(&app, &admin, &org, field, bytes).await;
        assert_nested_error(&a, status, code);
        if status == 400 {
            assert_eq!(a.body["error"]["field"], "file", "{what}: {}", a.body);
        }
    }
    let a = upload(
        &app,
        &admin,
        &org,
        "file",
        image_bytes(ImageFormat::Png, 5000, 2),
    )
    .await;
    let message = a.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("5000×2"), "{message}");
    let a = app
        .send_raw(
            reqwest::Method::POST,
            "/organizations/logo",
            Some(&admin),
            "application/json",
            "{}",
        )
        .await;
    assert_eq!(a.status.as_u16(), 400, "{}", a.body);
    // Nothing refused was kept.
    let settings = |token: String| {
        let (app, org) = (&app, org.clone());
        async move {
            let a = call(
                app,
                reqwest::Method::GET,
                "/organizations/settings",
                &token,
                Some(&org),
                None,
            )
            .await;
            a.body["data"]["logo_url"].clone()
        }
    };
    assert_eq!(settings(viewer.clone()).await, Value::Null);
    let files_dir = app.services.state.config.files_dir.clone();
    let stored = || {
        std::fs::read_dir(&files_dir)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().into_string().unwrap())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    assert!(stored().is_empty(), "{:?}", stored());

    let a = upload(&app, &admin, &org, "file", png.clone()).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let url = a.body["data"]["logo_url"].as_str().unwrap().to_owned();
    assert!(url.ends_with(".png"), "{url}");
    let path = file_path(&url);
    let got = app.client.get(app.url(&path)).send().await.unwrap();
    assert_eq!(got.status().as_u16(), 200);
    let name = path.trim_start_matches("/files/");
    let headers = got.headers();
    assert_eq!(headers["content-type"], "image/png");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(
        headers["content-disposition"],
        format!("inline; filename=\"{name}\"").as_str()
    );
    assert_eq!(
        headers["content-security-policy"],
        "default-src 'none'; sandbox"
    );
    assert_eq!(got.bytes().await.unwrap().to_vec(), png);
    assert_eq!(settings(viewer.clone()).await, url.as_str());
    for bad in ["/files/nope.png", "/files/..%2Fx.png", "/files/x.svg"] {
        let a = app.get(bad, None).await;
        assert_eq!(a.status.as_u16(), 404, "{bad}");
    }

    // The same logo again keeps its file; a new one replaces and deletes it.
    let a = upload(&app, &admin, &org, "file", png.clone()).await;
    assert_eq!(a.body["data"]["logo_url"], url.as_str());
    assert_eq!(stored(), [name]);
    let jpeg = image_bytes(ImageFormat::Jpeg, 20, 20);
    let a = upload(&app, &admin, &org, "file", jpeg).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let new_url = a.body["data"]["logo_url"].as_str().unwrap().to_owned();
    assert!(new_url.ends_with(".jpg"), "{new_url}");
    assert_eq!(settings(viewer).await, new_url.as_str());
    let new_path = file_path(&new_url);
    assert_eq!(stored(), [new_path.trim_start_matches("/files/")]);
    assert_eq!(app.get(&path, None).await.status.as_u16(), 404);
    let got = app.client.get(app.url(&new_path)).send().await.unwrap();
    assert_eq!(got.headers()["content-type"], "image/jpeg");
}

fn import_row(
    platform: vidpulse_domain::Platform,
    id: &str,
    who: &str,
    at: chrono::DateTime<chrono::Utc>,
    views: i64,
) -> vidpulse_store::ImportRow {
    vidpulse_store::ImportRow {
        platform,
        external_id: id.into(),
        captured_at: at,
        counters: vidpulse_domain::Counters {
            views: Some(views),
            likes: Some(views / 10),
            comments: Some(1),
            reposts: None,
            saves: None,
        },
        url: None,
        channel_username: Some(who.into()),
        title: None,
        published_at: None,
    }
}

#[rstest]
#[tokio::test]
async fn dashboard_analytics_video_history_totals_and_top_videos_of_a_day(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use chrono::TimeZone;
    use reqwest::Method;
    use vidpulse_domain::Platform;
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let (outsider, _) = member(&app, "out@example.com").await;
    let a = register(&app, &admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    let other = register(&app, &outsider, &json!({"name": "Other"})).await;
    let other_org = other.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let at = |d: u32, h: u32| chrono::Utc.with_ymd_and_hms(2026, 10, d, h, 0, 0).unwrap();
    let rows = vec![
        import_row(
            Platform::TikTok,
            "7000000000000000001",
            "mira",
            at(1, 6),
            1000,
        ),
        import_row(
            Platform::TikTok,
            "7000000000000000001",
            "mira",
            at(1, 18),
            1500,
        ),
        import_row(
            Platform::TikTok,
            "7000000000000000001",
            "mira",
            at(2, 12),
            4000,
        ),
        import_row(
            Platform::TikTok,
            "7000000000000000001",
            "mira",
            at(3, 12),
            3000,
        ),
        import_row(Platform::YouTube, "yt000000001", "ana", at(2, 9), 500),
        import_row(Platform::YouTube, "yt000000001", "ana", at(3, 9), 9500),
    ];
    app.store
        .import_observations(org_id, &rows, Duration::days(30), at(20, 0))
        .await
        .unwrap();
    let tiktok = app
        .store
        .video(
            org_id,
            &vidpulse_store::VideoLookup::ExternalId("7000000000000000001".into()),
            app.clock.now(),
        )
        .await
        .unwrap()
        .unwrap()
        .video_id
        .0
        .to_string();

    // One video: every reading, and its daily increments (docs/api.md).
    let path = format!("/dashboard/videos/{tiktok}/stats");
    let a = call(&app, Method::GET, &path, &admin, Some(&org), None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["video_id"], tiktok.as_str());
    assert_eq!(a.body["data"]["stats"].as_array().unwrap().len(), 4);
    assert_eq!(a.body["data"]["stats"][0]["views"], 1000);
    assert_eq!(a.body["data"]["stats"][0]["reposts"], Value::Null);
    assert_eq!(
        a.body["data"]["daily_increments"],
        json!([
            {"date": "2026-10-01", "views_delta": 500, "likes_delta": 50},
            {"date": "2026-10-02", "views_delta": 2500, "likes_delta": 250},
            {"date": "2026-10-03", "views_delta": 0, "likes_delta": 0},
        ])
    );
    // Another organization, an unknown id, a malformed id: 404.
    let a = call(&app, Method::GET, &path, &outsider, Some(&other_org), None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    for bad in [uuid::Uuid::new_v4().to_string(), "nope".to_owned()] {
        let a = call(
            &app,
            Method::GET,
            &format!("/dashboard/videos/{bad}/stats"),
            &admin,
            Some(&org),
            None,
        )
        .await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }

    // The organization: totals and per-day series of the public rules.
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-01&to=2026-10-03",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    // TikTok: 3000 − 1000 (first on `from`); YouTube: 9500 (tracking began after `from`).
    assert_eq!(a.body["data"]["total"]["views"], 2000 + 9500);
    let days: Vec<i64> = a.body["data"]["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["views"].as_i64().unwrap())
        .collect();
    assert_eq!(days, [500, 2500, 9000]);
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-01&to=2026-10-03&platform=youtube",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"]["total"]["views"], 9500);
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-13-01",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "from");
    let a = call(
        &app,
        Method::GET,
        "/dashboard/stats?from=2026-10-01&to=2026-10-03",
        &outsider,
        Some(&other_org),
        None,
    )
    .await;
    assert_eq!(a.body["data"]["total"]["views"], 0);

    // Top videos of a day, by the chosen metric.
    let a = call(
        &app,
        Method::GET,
        "/analytics/videos/for_date?date=2026-10-03",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let top = a.body["data"].as_array().unwrap();
    assert_eq!(top.len(), 2);
    assert_eq!(top[0]["platform"], "youtube");
    assert_eq!(top[0]["views_increment"], 9000);
    assert_eq!(top[0]["blogger_channel_username"], "ana");
    assert_eq!(top[1]["views_increment"], 0, "a dip records 0");
    for key in [
        "video_id",
        "external_video_id",
        "thumbnail_url",
        "video_url",
        "campaign_tag",
        "likes_increment",
        "comments_increment",
        "reposts_increment",
        "saves_increment",
        "published_at",
        "created_at",
    ] {
        assert!(top[0].get(key).is_some(), "{key}");
    }
    let a = call(
        &app,
        Method::GET,
        "/analytics/videos/for_date?date=2026-10-02&limit=1&sort_by=likes",
        &admin,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(a.body["data"][0]["likes_increment"], 250);
    let a = call(
        &app,
        Method::GET,
        "/analytics/videos/for_date?date=2026-10-02",
        &outsider,
        Some(&other_org),
        None,
    )
    .await;
    assert_eq!(a.body["data"], json!([]));
    for (query, field) in [
        ("", "date"),
        ("?date=2026-10-32", "date"),
        ("?date=2026-10-02&sort_by=shares", "sort_by"),
        ("?date=2026-10-02&limit=0", "limit"),
        ("?date=2026-10-02&limit=1001", "limit"),
        ("?date=2026-10-02&limit=ten", "limit"),
        ("?date=2026-10-02&platform=vine", "platform"),
    ] {
        let a = call(
            &app,
            Method::GET,
            &format!("/analytics/videos/for_date{query}"),
            &admin,
            Some(&org),
            None,
        )
        .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{query}");
    }
}

#[rstest]
#[tokio::test]
async fn a_burst_of_first_requests_creates_one_user(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = token(&app, "burst@example.com", None).await;
    for round in 0..3 {
        let t = if round == 0 {
            t.clone()
        } else {
            token(&app, &format!("burst{round}@example.com"), None).await
        };
        let answers =
            futures::future::join_all((0..16).map(|_| app.get("/organizations/list", Some(&t))))
                .await;
        for a in answers {
            assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        }
    }
}

#[rstest]
#[tokio::test]
async fn bloggers_are_listed_paused_resumed_and_their_new_videos_take_campaign_and_budget(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
        ..
    } = team(&app).await;
    let (outsider, _) = member(&app, "out@example.com").await;
    track_creator(&app, &key, "ana_builds", 2).await;
    app.run_jobs_until_idle().await;

    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let list = a.body["data"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    let b = &list[0];
    assert_eq!(b["username"], "ana_builds");
    assert_eq!(b["platform"], "tiktok");
    assert_eq!(b["is_active"], true);
    assert_eq!(b["videos_tracked"], 2);
    assert!(b["number_of_subscribers"].is_i64());
    let tracking = b["tracking_id"].as_str().unwrap().to_owned();

    // Writes need an editor; another organization cannot see or touch it.
    let body = json!({"tracking_id": tracking, "campaign": "Summer launch"});
    let a = call(
        &app,
        Method::POST,
        "/blogger/set-campaign",
        &viewer,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let theirs = register(&app, &outsider, &json!({"name": "Other"})).await;
    let their_org = theirs.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = call(
        &app,
        Method::POST,
        "/blogger/set-campaign",
        &outsider,
        Some(&their_org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &outsider,
        Some(&their_org),
        None,
    )
    .await;
    assert_eq!(a.body["data"], json!([]));

    let a = call(
        &app,
        Method::POST,
        "/blogger/set-campaign",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let budget = json!({"tracking_id": tracking, "budget_per_video": 250});
    let a = call(
        &app,
        Method::POST,
        "/blogger/set-budget-per-video",
        &editor,
        Some(&org),
        Some(&budget),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    for (path, bad, field) in [
        (
            "/blogger/set-campaign",
            json!({"tracking_id": tracking}),
            "campaign",
        ),
        (
            "/blogger/set-campaign",
            json!({"tracking_id": tracking, "campaign": 5}),
            "campaign",
        ),
        (
            "/blogger/set-campaign",
            json!({"tracking_id": tracking, "campaign": "x".repeat(201)}),
            "campaign",
        ),
        (
            "/blogger/set-campaign",
            json!({"campaign": "A"}),
            "tracking_id",
        ),
        (
            "/blogger/set-budget-per-video",
            json!({"tracking_id": tracking, "budget_per_video": 0}),
            "budget_per_video",
        ),
        (
            "/blogger/set-budget-per-video",
            json!({"tracking_id": tracking, "budget_per_video": "9"}),
            "budget_per_video",
        ),
        (
            "/blogger/set-budget-per-video",
            json!({"tracking_id": tracking}),
            "budget_per_video",
        ),
        (
            "/blogger/toggle",
            json!({"tracking_id": tracking, "is_active": "no"}),
            "is_active",
        ),
        (
            "/blogger/toggle",
            json!({"tracking_id": "nope", "is_active": false}),
            "tracking_id",
        ),
    ] {
        let a = call(&app, Method::POST, path, &editor, Some(&org), Some(&bad)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{path} {bad}");
    }
    let unknown = json!({"tracking_id": uuid::Uuid::new_v4().to_string(), "is_active": false});
    let a = call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&unknown),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // New videos found by discovery take the campaign and the budget.
    for _ in 0..3 {
        app.advance(Duration::days(1));
        app.run_discovery_until_idle().await;
    }
    let videos = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    let items = videos.body["data"]["data"].as_array().unwrap().clone();
    assert!(items.len() > 2, "{}", videos.body);
    let tagged = items
        .iter()
        .filter(|v| v["campaign"] == "Summer launch")
        .count();
    assert_eq!(
        tagged,
        items.len() - 2,
        "only the videos tracked after the change"
    );
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"][0]["campaign"], "Summer launch", "{}", a.body);
    assert_eq!(a.body["data"][0]["budget_per_video"], 250);

    // Paused: discovery stops; resumed: it runs again.
    let pause = json!({"tracking_id": tracking, "is_active": false});
    let a = call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&pause),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"][0]["is_active"], false);
    app.advance(Duration::days(1));
    assert_eq!(app.run_discovery_until_idle().await, 0);
    let resume = json!({"tracking_id": tracking, "is_active": true});
    let a = call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&resume),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"][0]["is_active"], true);
}

#[rstest]
#[tokio::test]
async fn deleting_a_blogger_keeps_or_removes_its_videos_and_their_analytics(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
        ..
    } = team(&app).await;
    let (outsider, _) = member(&app, "out@example.com").await;
    for who in ["ana_builds", "mira.cooks"] {
        track_creator(&app, &key, who, 3).await;
    }
    app.run_jobs_until_idle().await;
    app.run_worker_until_idle().await;
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    let list = a.body["data"].as_array().unwrap().clone();
    assert_eq!(list.len(), 2);
    let (ana, mira) = (
        list[0]["tracking_id"].as_str().unwrap().to_owned(),
        list[1]["tracking_id"].as_str().unwrap().to_owned(),
    );
    let mira_views = list[1]["total_views"].as_i64().unwrap();
    let before = views_today(&app, &key).await;
    assert!(
        mira_views > 0 && before > mira_views,
        "{before} {mira_views}"
    );

    let body = json!({"tracking_id": mira});
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete-with-videos",
        &viewer,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let theirs = register(&app, &outsider, &json!({"name": "Other"})).await;
    let their_org = theirs.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete-with-videos",
        &outsider,
        Some(&their_org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete",
        &editor,
        Some(&org),
        Some(&json!({"tracking_id": 7})),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");

    let a = call(
        &app,
        Method::POST,
        "/blogger/delete-with-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["videos_deleted"], 3);
    let videos = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    assert_eq!(videos.body["data"]["data"].as_array().unwrap().len(), 3);
    assert_eq!(
        views_today(&app, &key).await,
        before - mira_views,
        "its statistics left the analytics"
    );
    let maintained = vidpulse_store::testing::rollup_dump(&app.db.url)
        .await
        .unwrap();
    app.store.rebuild_analytics().await.unwrap();
    assert_eq!(
        vidpulse_store::testing::rollup_dump(&app.db.url)
            .await
            .unwrap(),
        maintained
    );
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete-with-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Deleting the other keeps its videos and their statistics.
    let a = call(
        &app,
        Method::POST,
        "/blogger/delete",
        &editor,
        Some(&org),
        Some(&json!({"tracking_id": ana})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let videos = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    assert_eq!(videos.body["data"]["data"].as_array().unwrap().len(), 3);
    assert_eq!(views_today(&app, &key).await, before - mira_views);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"], json!([]));
    // The creator can be tracked again.
    let a = app
        .post(
            "/v1/bloggers/track",
            &key,
            &json!({"platform": "tiktok", "username": "ana_builds", "initial_videos_count": 1}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
}

/// Views gained since yesterday by the organization of `key` (public
/// totals: videos tracked today count in full).
async fn views_today(app: &TestApp, key: &str) -> i64 {
    let today = app.clock.now().date_naive();
    let yesterday = today.pred_opt().unwrap();
    let a = app
        .get(
            &format!("/v1/analytics/metrics/totals?from={yesterday}&to={today}"),
            Some(key),
        )
        .await;
    a.body["data"]["total"]["views"].as_i64().unwrap()
}

#[rstest]
#[tokio::test]
async fn fetching_initial_videos_again_runs_a_creator_job(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    let app = TestApp::spawn(backend).await;
    let Team {
        org,
        key,
        editor,
        viewer,
        ..
    } = team(&app).await;
    track_creator(&app, &key, "ana_builds", 2).await;
    app.run_jobs_until_idle().await;
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    let tracking = a.body["data"][0]["tracking_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = json!({"tracking_id": tracking});

    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &viewer,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    let job = a.body["data"]["job_id"].as_str().unwrap().to_owned();
    // One job at a time.
    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 409, "CREATOR_TRACK_IN_FLIGHT");
    assert_eq!(a.body["error"]["job_id"], job.as_str());
    app.run_jobs_until_idle().await;
    let a = app
        .get(&format!("/v1/bloggers/jobs/{job}"), Some(&key))
        .await;
    assert_eq!(a.body["data"]["status"], "succeeded", "{}", a.body);
    assert_eq!(a.body["data"]["is_reactivation"], false);
    // The same videos: nothing tracked or charged twice; one account still.
    let videos = app.get("/v1/videos/stats?limit=100", Some(&key)).await;
    assert_eq!(videos.body["data"]["data"].as_array().unwrap().len(), 2);
    let a = call(
        &app,
        Method::GET,
        "/blogger/list",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(a.body["data"][0]["videos_tracked"], 2);

    // Paused: refused; unknown: 404.
    let pause = json!({"tracking_id": tracking, "is_active": false});
    call(
        &app,
        Method::POST,
        "/blogger/toggle",
        &editor,
        Some(&org),
        Some(&pause),
    )
    .await;
    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &editor,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let unknown = json!({"tracking_id": uuid::Uuid::new_v4().to_string()});
    let a = call(
        &app,
        Method::POST,
        "/blogger/fetch-initial-videos",
        &editor,
        Some(&org),
        Some(&unknown),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
}

/// A Pro organization with an API key, and an editor and a viewer signed in.
pub(crate) struct Team {
    pub org: String,
    pub key: String,
    pub editor: String,
    pub viewer: String,
}

pub(crate) async fn team(app: &TestApp) -> Team {
    use vidpulse_domain::identity::Role;
    let (org, key) = app.org_with_key(Plan::Pro).await;
    let org_id = vidpulse_domain::OrgId(org);
    let (editor, editor_id) = member(app, "ed@example.com").await;
    let (viewer, viewer_id) = member(app, "vi@example.com").await;
    for (user, role) in [(editor_id, Role::Editor), (viewer_id, Role::Viewer)] {
        app.store
            .add_member(org_id, user, role, app.clock.now())
            .await
            .unwrap();
    }
    Team {
        org: org.to_string(),
        key,
        editor,
        viewer,
    }
}

/// Starts tracking a TikTok creator through the public API (202 expected).
pub(crate) async fn track_creator(app: &TestApp, key: &str, username: &str, initial: i64) {
    let a = app
        .post(
            "/v1/bloggers/track",
            key,
            &json!({"platform": "tiktok", "username": username, "initial_videos_count": initial}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
}
