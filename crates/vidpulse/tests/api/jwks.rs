//! Dashboard tokens from an outside identity provider: RS256 and ES256
//! against its JWKS (a local stub), key rotation, and the algorithm pins.

use std::time::Duration as StdDuration;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_api::dashboard::identity::IdentityConfig;
use vidpulse_domain::Clock;
use vidpulse_store::Backend;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::helpers::{TestApp, TestConfig, assert_nested_error};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/jwks");

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}/{name}")).unwrap()
}

fn jwks(name: &str) -> Value {
    serde_json::from_slice(&fixture(name)).unwrap()
}

fn sign(alg: Algorithm, kid: &str, pem: &str, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    let key = match alg {
        Algorithm::RS256 => EncodingKey::from_rsa_pem(&fixture(pem)).unwrap(),
        _ => EncodingKey::from_ec_pem(&fixture(pem)).unwrap(),
    };
    jsonwebtoken::encode(&header, claims, &key).unwrap()
}

async fn app_with_jwks(backend: Backend, server: &MockServer) -> TestApp {
    let mut config = TestConfig::default();
    config.api.identity = IdentityConfig {
        issuer: Some("https://id.example".into()),
        audience: Some("vidpulse".into()),
        jwks_url: Some(format!("{}/.well-known/jwks.json", server.uri())),
        jwks_refresh_floor: StdDuration::ZERO,
        ..IdentityConfig::default()
    };
    TestApp::spawn_with(backend, config).await
}

#[rstest]
#[tokio::test]
async fn rs256_and_es256_tokens_verify_against_the_jwks(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/.well-known/jwks.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(jwks("jwks.json")))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    let app = app_with_jwks(backend, &server).await;
    let exp = app.clock.now().timestamp() + 600;
    let claims = |sub: &str| {
        json!({"sub": sub, "email": format!("{sub}@example.com"), "exp": exp,
               "iss": "https://id.example", "aud": "vidpulse"})
    };
    let rs = sign(Algorithm::RS256, "rsa-1", "rsa.pem", &claims("ann"));
    let a = app.get("/organizations/list", Some(&rs)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let es = sign(Algorithm::ES256, "ec-1", "ec.pem", &claims("bob"));
    let a = app.get("/organizations/list", Some(&es)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);

    // A new key appears: an unknown kid fetches the set again.
    Mock::given(method("GET"))
        .and(path("/.well-known/jwks.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(jwks("jwks-rotated.json")))
        .mount(&server)
        .await;
    let rotated = sign(Algorithm::RS256, "rsa-2", "other-rsa.pem", &claims("cy"));
    let a = app.get("/organizations/list", Some(&rotated)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);

    // Refused: the local HS256 identity, HS256 signed with the RSA public key
    // (algorithm confusion), a key used for the other algorithm, a kid the
    // provider does not have, a key signing under another key's kid, other
    // issuer or audience, an expired token.
    let hs = vidpulse::commands::admin::issue_token(
        &app.store,
        IdentityConfig::default(),
        "ann@example.com",
        None,
        600,
        app.clock.now(),
    )
    .await
    .unwrap()
    .token;
    let public = jwks("jwks.json")["keys"][0]["n"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut confused_header = Header::new(Algorithm::HS256);
    confused_header.kid = Some("rsa-1".into());
    let confused = jsonwebtoken::encode(
        &confused_header,
        &claims("eve"),
        &EncodingKey::from_secret(public.as_bytes()),
    )
    .unwrap();
    let wrong_alg = sign(Algorithm::ES256, "rsa-1", "ec.pem", &claims("eve"));
    let unknown_kid = sign(Algorithm::RS256, "rsa-9", "rsa.pem", &claims("eve"));
    let stolen_kid = sign(Algorithm::RS256, "rsa-1", "other-rsa.pem", &claims("eve"));
    let mut other_iss = claims("eve");
    other_iss["iss"] = json!("https://evil.example");
    let other_iss = sign(Algorithm::RS256, "rsa-1", "rsa.pem", &other_iss);
    let mut no_aud = claims("eve");
    no_aud.as_object_mut().unwrap().remove("aud");
    let no_aud = sign(Algorithm::RS256, "rsa-1", "rsa.pem", &no_aud);
    let mut expired = claims("eve");
    expired["exp"] = json!(exp - 3600);
    let expired = sign(Algorithm::RS256, "rsa-1", "rsa.pem", &expired);
    for bad in [
        hs,
        confused,
        wrong_alg,
        unknown_kid,
        stolen_kid,
        other_iss,
        no_aud,
        expired,
    ] {
        let a = app.get("/organizations/list", Some(&bad)).await;
        assert_nested_error(&a, 401, "INVALID_TOKEN");
    }
}

#[rstest]
#[tokio::test]
async fn an_unreachable_jwks_answers_503_not_401(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&server)
        .await;
    let app = app_with_jwks(backend, &server).await;
    let exp = app.clock.now().timestamp() + 600;
    let token = sign(
        Algorithm::RS256,
        "rsa-1",
        "rsa.pem",
        &json!({"sub": "ann", "email": "ann@example.com", "exp": exp,
                "iss": "https://id.example", "aud": "vidpulse"}),
    );
    let a = app.get("/organizations/list", Some(&token)).await;
    assert_nested_error(&a, 503, "SERVICE_UNAVAILABLE");
}
