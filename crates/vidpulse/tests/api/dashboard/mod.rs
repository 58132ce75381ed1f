//! The dashboard API, one file per resource; this module holds what they
//! share: tokens, sign-in, requests with the organization header, a team.

mod api_keys;
mod bloggers;
mod identity;
mod logo;
mod organizations;
mod stats;
mod team;
mod videos;
mod webhooks;

use serde_json::{Value, json};
use vidpulse_api::dashboard::identity::IdentityConfig;
use vidpulse_domain::{Clock, Plan};

use crate::helpers::TestApp;

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

/// `POST /organizations/register` with `body`, signed in with `token`.
pub(crate) async fn register(app: &TestApp, token: &str, body: &Value) -> crate::helpers::Answer {
    app.send_json(
        reqwest::Method::POST,
        "/organizations/register",
        Some(token),
        body,
    )
    .await
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

/// An organization "Acme" registered by `admin` (who becomes its admin),
/// with `members` added in their roles; its id.
pub(crate) async fn registered(
    app: &TestApp,
    admin: &str,
    members: &[(vidpulse_domain::UserId, vidpulse_domain::identity::Role)],
) -> String {
    let a = register(app, admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    for (user, role) in members {
        assert!(
            app.store
                .add_member(org_id, *user, *role, app.clock.now())
                .await
                .unwrap()
        );
    }
    org
}

/// A dashboard request as `token`, with the `X-Organization-ID` header when `org` is given.
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

/// A Pro organization with an API key, and an editor and a viewer signed in.
pub(crate) struct Team {
    pub org: String,
    pub key: String,
    pub editor: String,
    pub viewer: String,
}

/// Makes the [`Team`]: its organization, key and two members.
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
