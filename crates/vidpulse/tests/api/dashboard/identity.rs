//! The dashboard's identity: tokens from the built-in development identity
//! or a configured issuer, refused tokens, users created on first sight.

use chrono::Duration;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_api::dashboard::identity::{Identity, IdentityConfig};
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use super::{register, token};
use crate::helpers::{TestApp, assert_nested_error};

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
