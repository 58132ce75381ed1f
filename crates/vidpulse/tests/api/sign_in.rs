//! The web app's sign-in: password links from the admin command and from
//! "forgot password", sessions in a cookie, CSRF on state-changing requests,
//! the throttle, the user's session list, and invited addresses creating
//! their password. A session reaches the dashboard API as its user.

use chrono::Utc;
use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse::commands::admin::{NewUser, create_user};
use vidpulse_store::Backend;

use crate::dashboard::token;
use crate::helpers::{Answer, TestApp, TestConfig, assert_nested_error};

/// A browser: the session cookie and CSRF token it holds.
#[derive(Default, Clone)]
struct Browser {
    cookie: Option<String>,
    csrf: Option<String>,
}

impl Browser {
    /// Sends a JSON request with the cookie (and the CSRF token when `csrf`).
    async fn send(
        &self,
        app: &TestApp,
        method: Method,
        path: &str,
        body: Option<&Value>,
        csrf: bool,
        org: Option<&str>,
    ) -> Answer {
        let mut req = app.client.request(method, app.url(path));
        if let Some(cookie) = &self.cookie {
            req = req.header("cookie", format!("vidpulse_session={cookie}"));
        }
        if let (true, Some(token)) = (csrf, &self.csrf) {
            req = req.header("x-csrf-token", token);
        }
        if let Some(org) = org {
            req = req.header("x-organization-id", org);
        }
        if let Some(body) = body {
            req = req.json(body);
        }
        TestApp::answer(req.send().await.unwrap()).await
    }

    async fn get(&self, app: &TestApp, path: &str) -> Answer {
        self.send(app, Method::GET, path, None, false, None).await
    }

    async fn post(&self, app: &TestApp, path: &str, body: &Value) -> Answer {
        self.send(app, Method::POST, path, Some(body), true, None)
            .await
    }

    /// Keeps the session an answer started.
    fn keep(answer: &Answer) -> Browser {
        assert_eq!(answer.status, 200, "{:?}", answer.body);
        Browser {
            cookie: Some(session_cookie(answer).expect("a session cookie")),
            csrf: answer.body["data"]["csrf_token"]
                .as_str()
                .map(str::to_owned),
        }
    }
}

/// The session token a `Set-Cookie` header of `answer` sets (empty: cleared).
fn session_cookie(answer: &Answer) -> Option<String> {
    answer
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix("vidpulse_session="))
        .map(|v| v.split(';').next().unwrap_or_default().to_owned())
}

/// The token of a fresh link for `email` (created by the admin command).
async fn link(app: &TestApp, email: &str, org: Option<&str>) -> String {
    let created = create_user(
        &app.store,
        NewUser {
            email,
            org,
            role: None,
            app_url: "http://app.example",
            link_hours: 72,
        },
        Utc::now(),
    )
    .await
    .unwrap();
    let url = created.set_password_url;
    assert!(
        url.starts_with("http://app.example/set-password?token="),
        "{url}"
    );
    url.rsplit('=').next().unwrap().to_owned()
}

const PASSWORD: &str = "correct horse battery";

async fn set_password(app: &TestApp, token: &str, password: &str) -> Answer {
    Browser::default()
        .post(
            app,
            "/auth/set-password",
            &json!({"token": token, "password": password}),
        )
        .await
}

async fn sign_in(app: &TestApp, email: &str, password: &str) -> Answer {
    Browser::default()
        .post(
            app,
            "/auth/sign-in",
            &json!({"email": email, "password": password}),
        )
        .await
}

#[rstest]
#[tokio::test]
async fn a_link_sets_the_password_once_and_signs_in(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let token = link(&app, "Owner@Example.com", Some("Acme")).await;

    let short = set_password(&app, &token, "short").await;
    assert_nested_error(&short, 400, "VALIDATION_ERROR");
    assert_eq!(short.body["error"]["field"], "password");
    let unknown = set_password(&app, &"0".repeat(64), PASSWORD).await;
    assert_nested_error(&unknown, 400, "VALIDATION_ERROR");
    assert_eq!(unknown.body["error"]["field"], "token");

    let set = set_password(&app, &token, PASSWORD).await;
    let cookie = set
        .headers
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(
        !cookie.contains("Secure"),
        "served over plain HTTP: {cookie}"
    );
    let browser = Browser::keep(&set);
    assert_eq!(set.body["data"]["user"]["email"], "Owner@Example.com");
    // Used once.
    let again = set_password(&app, &token, "another password").await;
    assert_eq!(again.body["error"]["field"], "token");

    // The session reaches the dashboard API as the user: the new
    // organization is theirs, as owner.
    let orgs = browser.get(&app, "/organizations/list").await;
    assert_eq!(orgs.status, 200, "{:?}", orgs.body);
    assert_eq!(orgs.body["data"][0]["name"], "Acme");
    assert_eq!(orgs.body["data"][0]["role"], "owner");
    let current = browser.get(&app, "/auth/session").await;
    assert_eq!(current.body["data"]["csrf_token"], json!(browser.csrf));
}

#[rstest]
#[tokio::test]
async fn sign_in_refuses_wrong_passwords_and_unknown_addresses_alike(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let token = link(&app, "kim@example.com", None).await;
    // No password yet: refused like a wrong one.
    let early = sign_in(&app, "kim@example.com", PASSWORD).await;
    assert_nested_error(&early, 401, "INVALID_CREDENTIALS");
    set_password(&app, &token, PASSWORD).await;

    for (email, password) in [
        ("kim@example.com", "wrong password!"),
        ("nobody@example.com", PASSWORD),
    ] {
        let a = sign_in(&app, email, password).await;
        assert_nested_error(&a, 401, "INVALID_CREDENTIALS");
        assert_eq!(
            a.body["error"]["message"],
            "Wrong e-mail address or password"
        );
        assert!(session_cookie(&a).is_none());
    }
    for (body, field) in [
        (json!({"email": "kim@example.com"}), "password"),
        (json!({"password": PASSWORD}), "email"),
        (
            json!({"email": "not-an-address", "password": PASSWORD}),
            "email",
        ),
        (json!({"email": 7, "password": PASSWORD}), "email"),
        (
            json!({"email": "kim@example.com", "password": 7}),
            "password",
        ),
    ] {
        let a = Browser::default().post(&app, "/auth/sign-in", &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let malformed = app
        .send_raw(
            Method::POST,
            "/auth/sign-in",
            None,
            "application/json",
            "{\"email\":",
        )
        .await;
    assert_nested_error(&malformed, 400, "VALIDATION_ERROR");

    // The address in another case signs in.
    let ok = sign_in(&app, " KIM@example.com", PASSWORD).await;
    Browser::keep(&ok);
}

#[rstest]
#[tokio::test]
async fn state_changing_requests_of_a_session_need_its_csrf_token(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let token = link(&app, "ann@example.com", None).await;
    let browser = Browser::keep(&set_password(&app, &token, PASSWORD).await);
    let register = json!({"name": "Ann's agency"});
    for csrf in [None, Some("0".repeat(64))] {
        let forged = Browser {
            csrf,
            ..browser.clone()
        };
        let a = forged
            .send(
                &app,
                Method::POST,
                "/organizations/register",
                Some(&register),
                true,
                None,
            )
            .await;
        assert_nested_error(&a, 403, "CSRF_FAILED");
    }
    // Nothing was written.
    let none = browser.get(&app, "/organizations/list").await;
    assert_eq!(none.body["data"], json!([]));
    let made = browser
        .post(&app, "/organizations/register", &register)
        .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let one = browser.get(&app, "/organizations/list").await;
    assert_eq!(one.body["data"].as_array().unwrap().len(), 1);

    // A bearer token still works beside sessions, and a cookie that names
    // no session is refused.
    let bearer = token_of(&app, "ann@example.com").await;
    let with_token = app.get("/organizations/list", Some(&bearer)).await;
    assert_eq!(with_token.status, 200);
    let stale = Browser {
        cookie: Some("f".repeat(64)),
        csrf: None,
    };
    assert_nested_error(
        &stale.get(&app, "/organizations/list").await,
        401,
        "INVALID_TOKEN",
    );
    assert_nested_error(
        &Browser::default().get(&app, "/auth/session").await,
        401,
        "MISSING_AUTH",
    );
}

async fn token_of(app: &TestApp, email: &str) -> String {
    token(app, email, None).await
}

#[rstest]
#[tokio::test]
async fn sessions_are_listed_ended_and_signed_out(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let token = link(&app, "ann@example.com", None).await;
    set_password(&app, &token, PASSWORD).await;
    let laptop = Browser::keep(&sign_in(&app, "ann@example.com", PASSWORD).await);
    let phone = Browser::keep(&sign_in(&app, "ann@example.com", PASSWORD).await);
    let bob_token = link(&app, "bob@example.com", None).await;
    let bob = Browser::keep(&set_password(&app, &bob_token, PASSWORD).await);

    let listed = laptop.get(&app, "/auth/sessions").await;
    let items = listed.body["data"].as_array().unwrap();
    // The link's own session ended when... it did not: three sessions.
    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(
        items.iter().filter(|s| s["current"] == true).count(),
        1,
        "{items:?}"
    );
    let phone_id = phone.get(&app, "/auth/sessions").await.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["current"] == true)
        .unwrap()["id"]
        .clone();

    // Another user's session, or none: 404.
    let bobs = bob
        .post(
            &app,
            "/auth/sessions/revoke",
            &json!({"session_id": phone_id}),
        )
        .await;
    assert_nested_error(&bobs, 404, "NOT_FOUND");
    let bad = laptop
        .post(
            &app,
            "/auth/sessions/revoke",
            &json!({"session_id": "nope"}),
        )
        .await;
    assert_nested_error(&bad, 400, "VALIDATION_ERROR");
    assert_eq!(phone.get(&app, "/auth/session").await.status, 200);

    let ended = laptop
        .post(
            &app,
            "/auth/sessions/revoke",
            &json!({"session_id": phone_id}),
        )
        .await;
    assert_eq!(ended.status, 200, "{:?}", ended.body);
    assert_nested_error(
        &phone.get(&app, "/auth/session").await,
        401,
        "INVALID_TOKEN",
    );

    let out = laptop.post(&app, "/auth/sign-out", &json!({})).await;
    assert_eq!(out.status, 200, "{:?}", out.body);
    assert_eq!(session_cookie(&out).as_deref(), Some(""), "cleared");
    assert_nested_error(
        &laptop.get(&app, "/auth/session").await,
        401,
        "INVALID_TOKEN",
    );
}

#[rstest]
#[tokio::test]
async fn an_address_is_throttled_after_ten_attempts(#[values(Backend::Sqlite)] backend: Backend) {
    let app = TestApp::spawn(backend).await;
    for _ in 0..10 {
        let a = sign_in(&app, "target@example.com", "guess guess guess").await;
        assert_nested_error(&a, 401, "INVALID_CREDENTIALS");
    }
    let limited = sign_in(&app, "TARGET@example.com", "guess guess guess").await;
    assert_nested_error(&limited, 429, "RATE_LIMIT_EXCEEDED");
    assert!(limited.headers.contains_key("retry-after"));
    let other = sign_in(&app, "other@example.com", "guess guess guess").await;
    assert_nested_error(&other, 401, "INVALID_CREDENTIALS");
}

/// The newest message in `outbox`, its quoted-printable soft breaks and
/// escaped `=` undone (all a link needs).
fn newest_mail(outbox: &std::path::Path) -> Option<String> {
    let newest = std::fs::read_dir(outbox)
        .ok()?
        .filter_map(Result::ok)
        .max_by_key(|e| e.metadata().unwrap().modified().unwrap())?;
    let text = std::fs::read_to_string(newest.path()).unwrap();
    Some(
        text.replace("=\r\n", "")
            .replace("=\n", "")
            .replace("=3D", "="),
    )
}

/// The newest message in `outbox`, waiting up to 10 seconds for one.
async fn mail_soon(outbox: &std::path::Path) -> String {
    for _ in 0..200 {
        if let Some(mail) = newest_mail(outbox) {
            return mail;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no mail in {}", outbox.display())
}

#[rstest]
#[tokio::test]
async fn a_forgotten_password_is_reset_by_an_emailed_link(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let outbox = tempfile::tempdir().unwrap();
    let mut config = TestConfig::default();
    config.api.mail.outbox = outbox.path().to_owned();
    config.api.mail.dashboard_url = "http://app.example/".into();
    let app = TestApp::spawn_with(backend, config).await;
    let first = link(&app, "kim@example.com", None).await;
    let old = Browser::keep(&set_password(&app, &first, PASSWORD).await);

    let unknown = Browser::default()
        .post(
            &app,
            "/auth/forgot-password",
            &json!({"email": "who@example.com"}),
        )
        .await;
    assert_eq!(unknown.status, 202);
    let bad = Browser::default()
        .post(&app, "/auth/forgot-password", &json!({"email": "nope"}))
        .await;
    assert_nested_error(&bad, 400, "VALIDATION_ERROR");

    let known = Browser::default()
        .post(
            &app,
            "/auth/forgot-password",
            &json!({"email": "Kim@example.com"}),
        )
        .await;
    assert_eq!(known.status, 202);
    assert_eq!(
        known.body["data"]["message"],
        unknown.body["data"]["message"]
    );
    // The link is made and mailed after the answer, in the order asked:
    // the unknown address was looked up first and mailed nothing.
    let mail = mail_soon(outbox.path()).await;
    assert_eq!(all_mail(outbox.path()).len(), 1);
    let token = mail
        .split("http://app.example/set-password?token=")
        .nth(1)
        .expect("the link")[..64]
        .to_owned();
    let reset = set_password(&app, &token, "a brand new password").await;
    Browser::keep(&reset);
    // The old session ended; the old password no longer works.
    assert_nested_error(&old.get(&app, "/auth/session").await, 401, "INVALID_TOKEN");
    assert_nested_error(
        &sign_in(&app, "kim@example.com", PASSWORD).await,
        401,
        "INVALID_CREDENTIALS",
    );
    Browser::keep(&sign_in(&app, "kim@example.com", "a brand new password").await);
}

/// Issue 35, item 5: "forgot password" took longer for an address with an
/// account (it made the link and sent the mail before answering). Now the
/// answer never waits for either: against an SMTP server that accepts and
/// never speaks, both answers come at once, and the mail is attempted after.
#[rstest]
#[tokio::test]
async fn forgot_password_answers_without_waiting_for_the_mail(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (seen, mut connections) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
            let _ = seen.send(());
        }
    });
    let mut config = TestConfig::default();
    config.api.mail.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
    let app = TestApp::spawn_with(backend, config).await;
    let first = link(&app, "kim@example.com", None).await;
    Browser::keep(&set_password(&app, &first, PASSWORD).await);

    for email in ["kim@example.com", "who@example.com", "kim@example.com"] {
        let (browser, body) = (Browser::default(), json!({"email": email}));
        let asked = browser.post(&app, "/auth/forgot-password", &body);
        let answer = tokio::time::timeout(std::time::Duration::from_secs(5), asked)
            .await
            .expect("answered without waiting for the mail server");
        assert_eq!(answer.status, 202, "{:?}", answer.body);
    }
    // The mail is attempted after the answers: a connection arrives.
    tokio::time::timeout(std::time::Duration::from_secs(5), connections.recv())
        .await
        .expect("the mail is attempted")
        .unwrap();
}

/// Every message in `outbox`, oldest first, decoded as [`newest_mail`]
/// decodes one.
fn all_mail(outbox: &std::path::Path) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(outbox) else {
        return Vec::new();
    };
    let mut files: Vec<_> = dir
        .filter_map(Result::ok)
        .map(|e| (e.metadata().unwrap().modified().unwrap(), e.path()))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|(_, path)| {
            std::fs::read_to_string(path)
                .unwrap()
                .replace("=\r\n", "")
                .replace("=\n", "")
                .replace("=3D", "=")
        })
        .collect()
}

/// The invitation id and token of the link in the newest message to `to`
/// in `outbox`.
pub(crate) fn mailed_invitation(outbox: &std::path::Path, to: &str) -> (String, String) {
    let mail = all_mail(outbox)
        .into_iter()
        .rfind(|m| m.contains(to) && m.contains("/invitations/"))
        .unwrap_or_else(|| panic!("no invitation to {to}"));
    let rest = mail.split("/invitations/").nth(1).expect("the link");
    let id = rest[..36].to_owned();
    let token = rest[36..]
        .strip_prefix("?token=")
        .map(|t| t[..64].to_owned())
        .expect("the link's token");
    (id, token)
}

/// What an attacker might change about a user: their password hash, their
/// sessions' ids and their organizations.
async fn footprint(app: &TestApp, email: &str) -> (Option<String>, Vec<uuid::Uuid>, Vec<String>) {
    let Some((user, hash)) = app.store.password_of(email).await.unwrap() else {
        return (None, Vec::new(), Vec::new());
    };
    let sessions = app
        .store
        .sessions(user.id, app.clock_now())
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    let orgs = app
        .store
        .memberships(user.id)
        .await
        .unwrap()
        .into_iter()
        .map(|m| format!("{} {}", m.name, m.role.as_str()))
        .collect();
    (hash, sessions, orgs)
}

async fn invitation_password(app: &TestApp, body: &Value) -> Answer {
    Browser::default()
        .post(app, "/auth/invitation-password", body)
        .await
}

/// Issue 35, item 1: an admin of any organization invited an address, read
/// the invitation's id from the list and set the address's first password
/// with it, taking over the account. The id proves nothing; the mailed
/// token sets a first password only for an address nobody can sign in as.
#[rstest]
#[tokio::test]
async fn an_invitation_id_takes_over_no_account_and_its_token_sets_only_a_first_password(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let outbox = tempfile::tempdir().unwrap();
    let mut config = TestConfig::default();
    config.api.mail.outbox = outbox.path().to_owned();
    let app = TestApp::spawn_with(backend, config).await;

    // The victims: Kim has a password and an organization; Lee was created
    // by `admin create-user` and has not used his link yet; Ida signs in
    // through the identity provider and has an organization.
    let kim = Browser::keep(
        &set_password(
            &app,
            &link(&app, "kim@example.com", Some("Kim's")).await,
            PASSWORD,
        )
        .await,
    );
    let lee_link = link(&app, "lee@example.com", Some("Lee's")).await;
    let ida = token_of(&app, "ida@example.com").await;
    let ida_org = app
        .send_json(
            Method::POST,
            "/organizations/register",
            Some(&ida),
            &json!({"name": "Ida's"}),
        )
        .await;
    assert_eq!(ida_org.status, 201, "{:?}", ida_org.body);

    // The attacker: admin of an organization of their own.
    let mallory = token_of(&app, "mallory@evil.test").await;
    let evil = app
        .send_json(
            Method::POST,
            "/organizations/register",
            Some(&mallory),
            &json!({"name": "Evil"}),
        )
        .await;
    let evil = evil.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let victims = ["lee@example.com", "ida@example.com", "kim@example.com"];
    for invites in [
        json!({"invites": [
            {"email": victims[0], "role": "viewer"},
            {"email": victims[1], "role": "viewer"},
            {"email": victims[2], "role": "viewer"},
        ]}),
        json!({"invites": [{"email": "new@example.com", "role": "editor"}]}),
    ] {
        let sent = app
            .client
            .post(app.url("/organizations/team/invite"))
            .bearer_auth(&mallory)
            .header("x-organization-id", &evil)
            .json(&invites)
            .send()
            .await
            .unwrap();
        let sent = TestApp::answer(sent).await;
        assert_eq!(sent.status, 200, "{:?}", sent.body);
        assert_eq!(sent.body["data"]["failed"], json!([]), "{:?}", sent.body);
    }
    let listed = app
        .client
        .get(app.url("/organizations/team/invites"))
        .bearer_auth(&mallory)
        .header("x-organization-id", &evil)
        .send()
        .await
        .unwrap();
    let listed = TestApp::answer(listed).await;
    let id_of = |email: &str| {
        listed.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["email"] == email)
            .unwrap()["invite_id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let before = futures::future::join_all(victims.map(|v| footprint(&app, v))).await;

    // The id alone, or with a guessed token, proves nothing.
    for victim in victims {
        let id = id_of(victim);
        for body in [
            json!({"invite_id": id, "password": "attacker's password"}),
            json!({"invite_id": id, "token": "0".repeat(64), "password": "attacker's password"}),
            json!({"invite_id": id, "token": id, "password": "attacker's password"}),
        ] {
            let a = invitation_password(&app, &body).await;
            assert_nested_error(&a, 400, "VALIDATION_ERROR");
            assert_eq!(a.body["error"]["field"], "token", "{body}");
            assert!(session_cookie(&a).is_none());
        }
    }
    // Even the mailed token does not set the password of an address that
    // can sign in already (a password, an unused link, an identity).
    for victim in victims {
        let (id, token) = mailed_invitation(outbox.path(), victim);
        assert_eq!(id, id_of(victim));
        let a = invitation_password(
            &app,
            &json!({"token": token, "password": "attacker's password"}),
        )
        .await;
        assert_nested_error(&a, 409, "PASSWORD_ALREADY_SET");
        assert!(session_cookie(&a).is_none());
    }
    let after = futures::future::join_all(victims.map(|v| footprint(&app, v))).await;
    assert_eq!(before, after, "nothing changed for the victims");
    assert_nested_error(
        &sign_in(&app, "lee@example.com", "attacker's password").await,
        401,
        "INVALID_CREDENTIALS",
    );
    assert_eq!(kim.get(&app, "/auth/session").await.status, 200);
    // Lee's own link still works, and he accepts as himself.
    Browser::keep(&set_password(&app, &lee_link, PASSWORD).await);

    // A new address: its mailed token creates the password, once.
    let (new_id, new_token) = mailed_invitation(outbox.path(), "new@example.com");
    for (body, field) in [
        (json!({"token": new_token, "password": "short"}), "password"),
        (json!({"password": PASSWORD}), "token"),
        (json!({"token": 7, "password": PASSWORD}), "token"),
        (json!({"token": new_token}), "password"),
        (
            json!({"token": new_token, "invite_id": id_of("kim@example.com"), "password": PASSWORD}),
            "token",
        ),
        (
            json!({"token": new_token, "invite_id": "nope", "password": PASSWORD}),
            "invite_id",
        ),
    ] {
        let a = invitation_password(&app, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    let malformed = app
        .send_raw(
            Method::POST,
            "/auth/invitation-password",
            None,
            "application/json",
            "{\"token\":",
        )
        .await;
    assert_nested_error(&malformed, 400, "VALIDATION_ERROR");
    assert_eq!(footprint(&app, "new@example.com").await.0, None);

    let created = invitation_password(
        &app,
        &json!({"invite_id": new_id, "token": new_token, "password": PASSWORD}),
    )
    .await;
    let invitee = Browser::keep(&created);
    assert_eq!(created.body["data"]["user"]["email"], "new@example.com");
    let twice = invitation_password(
        &app,
        &json!({"token": new_token, "password": "another password"}),
    )
    .await;
    assert_nested_error(&twice, 400, "VALIDATION_ERROR");
    assert_eq!(twice.body["error"]["field"], "token");
    Browser::keep(&sign_in(&app, "new@example.com", PASSWORD).await);

    // The invitation itself is then accepted as usual.
    let accepted = invitee
        .post(
            &app,
            "/organizations/team/invite/accept",
            &json!({"invite_id": new_id}),
        )
        .await;
    assert_eq!(accepted.status, 200, "{:?}", accepted.body);
    assert_eq!(accepted.body["data"]["organization_name"], "Evil");
}
