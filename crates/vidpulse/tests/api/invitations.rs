//! Team invitations end to end: e-mail to a local SMTP server and to the
//! outbox, expiry, accept and decline rules, concurrent accepts.

use std::sync::{Arc, Mutex};

use chrono::Duration;
use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use vidpulse_api::dashboard::identity::IdentityConfig;
use vidpulse_domain::Clock;
use vidpulse_store::Backend;

use crate::helpers::{Answer, TestApp, TestConfig, assert_nested_error};

async fn token(app: &TestApp, email: &str) -> String {
    vidpulse::commands::admin::issue_token(
        &app.store,
        IdentityConfig::default(),
        email,
        None,
        30 * 24 * 3600,
        app.clock.now(),
    )
    .await
    .unwrap()
    .token
}

async fn call(app: &TestApp, path: &str, token: &str, org: Option<&str>, body: &Value) -> Answer {
    let mut req = app
        .client
        .request(Method::POST, app.url(path))
        .bearer_auth(token)
        .json(body);
    if let Some(org) = org {
        req = req.header("X-Organization-ID", org);
    }
    TestApp::answer(req.send().await.unwrap()).await
}

async fn pending(app: &TestApp, token: &str, org: &str) -> i64 {
    let req = app
        .client
        .get(app.url("/organizations/team/pending-invites/count"))
        .bearer_auth(token)
        .header("X-Organization-ID", org);
    let a = TestApp::answer(req.send().await.unwrap()).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    a.body["data"]["count"].as_i64().unwrap()
}

/// An organization whose admin is `boss@example.com`.
async fn org(app: &TestApp) -> (String, String) {
    let boss = token(app, "boss@example.com").await;
    let a = call(
        app,
        "/organizations/register",
        &boss,
        None,
        &json!({"name": "Acme"}),
    )
    .await;
    (
        boss,
        a.body["data"]["organization_id"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

/// A server mailing to an outbox, an organization (its admin's token and
/// id) and one invitation of `email` as `role`: (app, boss, org, invite id,
/// the outbox kept alive).
async fn invited(
    backend: Backend,
    email: &str,
    role: &str,
) -> (TestApp, String, String, String, tempfile::TempDir) {
    let outbox = tempfile::tempdir().unwrap();
    let mut config = TestConfig::default();
    config.api.mail.outbox = outbox.path().to_owned();
    let app = TestApp::spawn_with(backend, config).await;
    let (boss, org) = org(&app).await;
    call(
        &app,
        "/organizations/team/invite",
        &boss,
        Some(&org),
        &json!({"invites": [{"email": email, "role": role}]}),
    )
    .await;
    let file = std::fs::read_dir(outbox.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mail = std::fs::read_to_string(file).unwrap();
    let id = mail.split("/invitations/").nth(1).unwrap()[..36].to_owned();
    (app, boss, org, id, outbox)
}

/// A minimal SMTP server on a free port that keeps every message's data.
async fn smtp_server() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let inbox = Arc::new(Mutex::new(Vec::new()));
    let kept = inbox.clone();
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let kept = kept.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 test ESMTP\r\n").await.unwrap();
                let mut data: Option<String> = None;
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(body) = data.as_mut() {
                        if line == "." {
                            kept.lock().unwrap().push(std::mem::take(body));
                            data = None;
                            write.write_all(b"250 queued\r\n").await.unwrap();
                        } else {
                            body.push_str(&line);
                            body.push('\n');
                        }
                        continue;
                    }
                    let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
                    let reply: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 test\r\n",
                        "DATA" => {
                            data = Some(String::new());
                            b"354 go ahead\r\n"
                        }
                        "QUIT" => {
                            write.write_all(b"221 bye\r\n").await.unwrap();
                            return;
                        }
                        _ => b"250 ok\r\n",
                    };
                    write.write_all(reply).await.unwrap();
                }
            });
        }
    });
    (port, inbox)
}

#[rstest]
#[tokio::test]
async fn invitations_are_mailed_accepted_declined_and_counted(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (port, inbox) = smtp_server().await;
    let mut config = TestConfig::default();
    config.api.mail.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
    let app = TestApp::spawn_with(backend, config).await;
    let (boss, org) = org(&app).await;

    let a = call(
        &app,
        "/organizations/team/invite",
        &boss,
        Some(&org),
        &json!({"invites": [
            {"email": "Ann@Example.com", "role": "editor"},
            {"email": "bob@example.com", "role": "viewer"},
            {"email": "boss@example.com", "role": "viewer"},
        ]}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"]["sent"],
        json!([{"email": "Ann@Example.com", "role": "editor"}, {"email": "bob@example.com", "role": "viewer"}])
    );
    assert_eq!(a.body["data"]["failed"][0]["reason"], "already_member");
    assert_eq!(pending(&app, &boss, &org).await, 2);
    let mails = inbox.lock().unwrap().clone();
    assert_eq!(mails.len(), 2);
    assert!(mails[0].contains("Join Acme on vidpulse"), "{}", mails[0]);
    // The message carries the invitation id; read it from the first mail.
    let id = mails
        .iter()
        .find(|m| m.contains("Ann@Example.com"))
        .and_then(|m| m.split("/invitations/").nth(1))
        .map(|rest| rest[..36].to_owned())
        .unwrap();

    // Inviting a pending address again fails for that address.
    let a = call(
        &app,
        "/organizations/team/invite",
        &boss,
        Some(&org),
        &json!({"invites": [{"email": "ann@example.com", "role": "admin"}]}),
    )
    .await;
    assert_eq!(a.body["data"]["failed"][0]["reason"], "already_invited");

    // Someone else cannot accept it; the invited address can, case-insensitively.
    let bob = token(&app, "bob@example.com").await;
    let a = call(
        &app,
        "/organizations/team/invite/accept",
        &bob,
        None,
        &json!({"invite_id": id}),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let ann = token(&app, "ann@example.com").await;
    let a = call(
        &app,
        "/organizations/team/invite/accept",
        &ann,
        None,
        &json!({"invite_id": id}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["organization_id"], org.as_str());
    assert_eq!(a.body["data"]["organization_name"], "Acme");
    assert!(a.body["data"].get("message").is_none());
    // Accepting again: success, with a message.
    let a = call(
        &app,
        "/organizations/team/invite/accept",
        &ann,
        None,
        &json!({"invite_id": id}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert!(a.body["data"]["message"].is_string());
    assert_eq!(pending(&app, &ann, &org).await, 1);
    // Ann is an editor: she cannot invite.
    let a = call(
        &app,
        "/organizations/team/invite",
        &ann,
        Some(&org),
        &json!({"invites": [{"email": "c@example.com", "role": "viewer"}]}),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");

    // Bob declines his; then cannot accept it.
    let bob_id = mails
        .iter()
        .find(|m| m.contains("bob@example.com"))
        .and_then(|m| m.split("/invitations/").nth(1))
        .map(|rest| rest[..36].to_owned())
        .unwrap();
    let a = call(
        &app,
        "/organizations/team/invite/decline",
        &bob,
        None,
        &json!({"invite_id": bob_id}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        "/organizations/team/invite/accept",
        &bob,
        None,
        &json!({"invite_id": bob_id}),
    )
    .await;
    assert_nested_error(&a, 409, "INVITE_NOT_PENDING");
    assert_eq!(pending(&app, &boss, &org).await, 0);

    for (body, status, code) in [
        (
            json!({"invite_id": uuid::Uuid::new_v4().to_string()}),
            404,
            "NOT_FOUND",
        ),
        (json!({"invite_id": "nope"}), 400, "VALIDATION_ERROR"),
        (json!({}), 400, "VALIDATION_ERROR"),
    ] {
        let a = call(&app, "/organizations/team/invite/accept", &bob, None, &body).await;
        assert_nested_error(&a, status, code);
        let a = call(
            &app,
            "/organizations/team/invite/decline",
            &bob,
            None,
            &body,
        )
        .await;
        assert_nested_error(&a, status, code);
    }
}

#[rstest]
#[tokio::test]
async fn invite_requests_are_validated(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let (boss, org) = org(&app).await;
    let one = |email: &str, role: &str| json!({"email": email, "role": role});
    for (body, field) in [
        (json!({}), "invites"),
        (json!({"invites": []}), "invites"),
        (json!({"invites": "a@b.co"}), "invites"),
        (
            json!({"invites": [one("a@b.co", "viewer"), one("b@b.co", "viewer"), one("c@b.co", "viewer"), one("d@b.co", "viewer")]}),
            "invites",
        ),
        (
            json!({"invites": [one("nobody", "viewer")]}),
            "invites[0].email",
        ),
        (
            json!({"invites": [one("a@b.co", "owner")]}),
            "invites[0].role",
        ),
        (
            json!({"invites": [one("a@b.co", "boss")]}),
            "invites[0].role",
        ),
        (
            json!({"invites": [one("a@b.co", "viewer"), one("A@B.co", "editor")]}),
            "invites[1].email",
        ),
    ] {
        let a = call(&app, "/organizations/team/invite", &boss, Some(&org), &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
    }
    assert_eq!(pending(&app, &boss, &org).await, 0);
}

#[rstest]
#[tokio::test]
async fn without_smtp_invitations_land_in_the_outbox_and_expire(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let outbox = tempfile::tempdir().unwrap();
    let mut config = TestConfig::default();
    config.api.mail.outbox = outbox.path().join("outbox");
    config.api.invite_ttl = Duration::seconds(60);
    let app = TestApp::spawn_with(backend, config).await;
    let (boss, org) = org(&app).await;
    let invite = json!({"invites": [{"email": "ann@example.com", "role": "viewer"}]});
    let a = call(
        &app,
        "/organizations/team/invite",
        &boss,
        Some(&org),
        &invite,
    )
    .await;
    assert_eq!(
        a.body["data"]["sent"].as_array().unwrap().len(),
        1,
        "{}",
        a.body
    );
    let files: Vec<_> = std::fs::read_dir(outbox.path().join("outbox"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].extension().unwrap(), "eml");
    let mail = std::fs::read_to_string(&files[0]).unwrap();
    let id = mail.split("/invitations/").nth(1).unwrap()[..36].to_owned();

    // A minute later it has expired: not counted, not acceptable, re-invitable.
    app.advance(Duration::seconds(61));
    assert_eq!(pending(&app, &boss, &org).await, 0);
    let ann = token(&app, "ann@example.com").await;
    let a = call(
        &app,
        "/organizations/team/invite/accept",
        &ann,
        None,
        &json!({"invite_id": id}),
    )
    .await;
    assert_nested_error(&a, 410, "INVITE_EXPIRED");
    let a = call(
        &app,
        "/organizations/team/invite",
        &boss,
        Some(&org),
        &invite,
    )
    .await;
    assert_eq!(
        a.body["data"]["sent"].as_array().unwrap().len(),
        1,
        "{}",
        a.body
    );
    assert_eq!(pending(&app, &boss, &org).await, 1);
}

#[rstest]
#[tokio::test]
async fn an_unsendable_invitation_fails_and_is_not_kept(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = TestConfig::default();
    config.api.mail.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
    let app = TestApp::spawn_with(backend, config).await;
    let (boss, org) = org(&app).await;
    let a = call(
        &app,
        "/organizations/team/invite",
        &boss,
        Some(&org),
        &json!({"invites": [{"email": "ann@example.com", "role": "viewer"}]}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["sent"], json!([]));
    assert_eq!(a.body["data"]["failed"][0]["reason"], "email_failed");
    assert_eq!(pending(&app, &boss, &org).await, 0);
}

#[rstest]
#[tokio::test]
async fn concurrent_accepts_all_succeed(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, _, org, id, _outbox) = invited(backend, "ann@example.com", "editor").await;
    let ann = token(&app, "ann@example.com").await;
    let body = json!({"invite_id": id});
    let answers = futures::future::join_all(
        (0..6).map(|_| call(&app, "/organizations/team/invite/accept", &ann, None, &body)),
    )
    .await;
    for a in &answers {
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        assert_eq!(a.body["data"]["organization_id"], org.as_str());
    }
    let joined = answers
        .iter()
        .filter(|a| a.body["data"].get("message").is_none())
        .count();
    assert_eq!(
        joined, 1,
        "exactly one accept joined; the others were members already"
    );
}

#[rstest]
#[tokio::test]
async fn a_removed_member_cannot_rejoin_with_the_accepted_invitation(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, boss, org, id, _outbox) = invited(backend, "ann@example.com", "admin").await;
    let ann = token(&app, "ann@example.com").await;
    let body = json!({"invite_id": id});
    let accept = || call(&app, "/organizations/team/invite/accept", &ann, None, &body);
    let a = accept().await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    // Asking again while a member: success, with a message.
    let a = accept().await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert!(a.body["data"]["message"].is_string(), "{}", a.body);

    let members = app
        .client
        .get(app.url("/organizations/team/members"))
        .bearer_auth(&boss)
        .header("X-Organization-ID", &org)
        .send()
        .await
        .unwrap();
    let members = TestApp::answer(members).await;
    let ann_id = members.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "ann@example.com")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = call(
        &app,
        "/organizations/team/members/remove",
        &boss,
        Some(&org),
        &json!({"user_id": ann_id}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);

    // The old invitation does not bring her back, before or after it expires.
    let a = accept().await;
    assert_nested_error(&a, 409, "INVITE_NOT_PENDING");
    app.advance(Duration::days(8));
    let a = accept().await;
    assert_eq!(a.status.as_u16(), 409, "{}", a.body);
    let a = call(
        &app,
        "/organizations/api-keys",
        &ann,
        Some(&org),
        &json!({"name": "back door"}),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
}

#[rstest]
#[tokio::test]
async fn an_address_equal_only_under_unicode_folding_cannot_take_an_invitation(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, _, _, id, _outbox) = invited(backend, "kate@a.test", "admin").await;
    let accept = json!({"invite_id": id});
    // KELVIN SIGN K: lowercases to `k` under Unicode rules, not under ours.
    let kelvin = token(&app, "\u{212A}ate@a.test").await;
    let a = call(
        &app,
        "/organizations/team/invite/accept",
        &kelvin,
        None,
        &accept,
    )
    .await;
    assert!(a.status.is_client_error(), "{}", a.body);
    let kate = token(&app, "Kate@A.test").await;
    let a = call(
        &app,
        "/organizations/team/invite/accept",
        &kate,
        None,
        &accept,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert!(a.body["data"].get("message").is_none(), "{}", a.body);
}

/// A dashboard request with any method and an optional token and body.
async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    org: Option<&str>,
    body: Option<&Value>,
) -> Answer {
    let mut req = app.client.request(method, app.url(path));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(org) = org {
        req = req.header("X-Organization-ID", org);
    }
    if let Some(body) = body {
        req = req.json(body);
    }
    TestApp::answer(req.send().await.unwrap()).await
}

/// `POST /organizations/team/invite/lookup` with `token`, signed out.
async fn lookup(app: &TestApp, token: &Value) -> Answer {
    send(
        app,
        Method::POST,
        "/organizations/team/invite/lookup",
        None,
        None,
        Some(&json!({ "token": token })),
    )
    .await
}

/// Issue 35, item 7: the invitation page names the organization and who
/// invited, for the holder of the mailed token (signed out) and for the
/// invited address signed in (by id); to anyone else the id is unknown.
#[rstest]
#[tokio::test]
async fn the_invitation_names_its_organization_and_inviter_to_the_invitee_only(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, boss, org, id, outbox) = invited(backend, "Ann@Example.com", "editor").await;
    let (mailed_id, link_token) =
        crate::sign_in::mailed_invitation(outbox.path(), "Ann@Example.com");
    assert_eq!(mailed_id, id);

    let by_token = lookup(&app, &json!(link_token)).await;
    assert_eq!(by_token.status.as_u16(), 200, "{}", by_token.body);
    let details = &by_token.body["data"];
    assert_eq!(details["invite_id"], id.as_str());
    assert_eq!(details["organization_name"], "Acme");
    assert_eq!(details["invited_by"], "boss@example.com");
    assert_eq!(details["email"], "Ann@Example.com");
    assert_eq!(details["role"], "editor");
    assert_eq!(details["status"], "pending");
    assert!(details["expires_at"].as_str().unwrap().ends_with('Z'));

    let ann = token(&app, "ann@example.com").await;
    let path = format!("/organizations/team/invites/{id}");
    let by_id = send(&app, Method::GET, &path, Some(&ann), None, None).await;
    assert_eq!(by_id.status.as_u16(), 200, "{}", by_id.body);
    assert_eq!(by_id.body["data"], *details);

    // A token that is not the invitation's: the set-password error.
    for bad in [json!("0".repeat(64)), json!(id), json!(7), json!(null)] {
        let a = lookup(&app, &bad).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], "token", "{bad}");
    }
    let a = send(
        &app,
        Method::POST,
        "/organizations/team/invite/lookup",
        None,
        None,
        Some(&json!([])),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // The id, to anyone but the invited address (its organization's admin
    // included): not found, as an unknown or malformed id.
    let eve = token(&app, "eve@example.com").await;
    for who in [&boss, &eve] {
        let a = send(&app, Method::GET, &path, Some(who), Some(&org), None).await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }
    for other in [uuid::Uuid::new_v4().to_string(), "nope".to_owned()] {
        let a = send(
            &app,
            Method::GET,
            &format!("/organizations/team/invites/{other}"),
            Some(&ann),
            None,
            None,
        )
        .await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }
    let a = send(&app, Method::GET, &path, None, None, None).await;
    assert_nested_error(&a, 401, "MISSING_AUTH");

    // Once answered, the token reads nothing; the invitee still sees what
    // became of it.
    let a = call(
        &app,
        "/organizations/team/invite/decline",
        &ann,
        None,
        &json!({"invite_id": id}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_nested_error(
        &lookup(&app, &json!(link_token)).await,
        400,
        "VALIDATION_ERROR",
    );
    let a = send(&app, Method::GET, &path, Some(&ann), None, None).await;
    assert_eq!(a.body["data"]["status"], "declined", "{}", a.body);
}

/// Issue 35, item 7: admins cancel and re-send pending invitations. A
/// cancelled invitation and its token stop working; a re-sent one gets a
/// new token, a fresh expiry and a new e-mail, and the old token stops
/// working. Other organizations' invitations are unknown.
#[rstest]
#[tokio::test]
async fn admins_cancel_and_resend_pending_invitations(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, boss, org, ann_id, outbox) = invited(backend, "ann@example.com", "editor").await;
    let a = call(
        &app,
        "/organizations/team/invite",
        &boss,
        Some(&org),
        &json!({"invites": [{"email": "bob@example.com", "role": "viewer"}]}),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let (bob_id, bob_token) = crate::sign_in::mailed_invitation(outbox.path(), "bob@example.com");
    let (_, old_token) = crate::sign_in::mailed_invitation(outbox.path(), "ann@example.com");
    let listed = send(
        &app,
        Method::GET,
        "/organizations/team/invites",
        Some(&boss),
        Some(&org),
        None,
    )
    .await;
    let old_expiry = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["invite_id"] == ann_id.as_str())
        .unwrap()["expires_at"]
        .clone();
    let resend = |id: &str| format!("/organizations/team/invites/{id}/resend");
    let cancel = |id: &str| format!("/organizations/team/invites/{id}");

    // Only admins; other organizations' ids and unknown ids are not found.
    let (viewer, viewer_id) = crate::dashboard::member(&app, "vi@example.com").await;
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    app.store
        .add_member(
            org_id,
            viewer_id,
            vidpulse_domain::identity::Role::Viewer,
            app.clock.now(),
        )
        .await
        .unwrap();
    for (method, path) in [
        (Method::POST, resend(&ann_id)),
        (Method::DELETE, cancel(&ann_id)),
    ] {
        let a = send(&app, method.clone(), &path, Some(&viewer), Some(&org), None).await;
        assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
        let a = send(&app, method.clone(), &path, Some(&boss), None, None).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
    }
    let mallory = token(&app, "mallory@evil.test").await;
    let evil = call(
        &app,
        "/organizations/register",
        &mallory,
        None,
        &json!({"name": "Evil"}),
    )
    .await;
    let evil = evil.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for id in [
        ann_id.clone(),
        uuid::Uuid::new_v4().to_string(),
        "nope".to_owned(),
    ] {
        for (method, path) in [(Method::POST, resend(&id)), (Method::DELETE, cancel(&id))] {
            let a = send(&app, method, &path, Some(&mallory), Some(&evil), None).await;
            assert_nested_error(&a, 404, "NOT_FOUND");
        }
    }
    assert_eq!(lookup(&app, &json!(old_token)).await.status.as_u16(), 200);

    // Re-sent a day later: a new token and expiry, mailed; the old token
    // stops working.
    app.advance(Duration::days(1));
    let a = send(
        &app,
        Method::POST,
        &resend(&ann_id),
        Some(&boss),
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["invite_id"], ann_id.as_str());
    assert_eq!(a.body["data"]["email"], "ann@example.com");
    assert_eq!(a.body["data"]["role"], "editor");
    assert_ne!(a.body["data"]["expires_at"], old_expiry);
    let (same_id, new_token) = crate::sign_in::mailed_invitation(outbox.path(), "ann@example.com");
    assert_eq!(same_id, ann_id);
    assert_ne!(new_token, old_token);
    assert_nested_error(
        &lookup(&app, &json!(old_token)).await,
        400,
        "VALIDATION_ERROR",
    );
    let fresh = lookup(&app, &json!(new_token)).await;
    assert_eq!(fresh.status.as_u16(), 200, "{}", fresh.body);
    assert_eq!(
        fresh.body["data"]["expires_at"],
        a.body["data"]["expires_at"]
    );
    // Six days after the first expiry would have passed, it still works.
    app.advance(Duration::days(6) + Duration::hours(1));
    assert_eq!(lookup(&app, &json!(new_token)).await.status.as_u16(), 200);

    // Cancelled: its token, accept and decline stop working, it leaves the
    // list and the count, and cancelling or re-sending again is refused.
    let a = send(
        &app,
        Method::DELETE,
        &cancel(&bob_id),
        Some(&boss),
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 410, "INVITE_EXPIRED");
    let a = send(
        &app,
        Method::DELETE,
        &cancel(&ann_id),
        Some(&boss),
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_nested_error(
        &lookup(&app, &json!(new_token)).await,
        400,
        "VALIDATION_ERROR",
    );
    assert_nested_error(
        &lookup(&app, &json!(bob_token)).await,
        400,
        "VALIDATION_ERROR",
    );
    let ann = token(&app, "ann@example.com").await;
    for verb in ["accept", "decline"] {
        let a = call(
            &app,
            &format!("/organizations/team/invite/{verb}"),
            &ann,
            None,
            &json!({"invite_id": ann_id}),
        )
        .await;
        assert_nested_error(&a, 409, "INVITE_NOT_PENDING");
    }
    let seen = send(&app, Method::GET, &cancel(&ann_id), Some(&ann), None, None).await;
    assert_eq!(seen.body["data"]["status"], "cancelled", "{}", seen.body);
    assert_eq!(pending(&app, &boss, &org).await, 0);
    for (method, path) in [
        (Method::POST, resend(&ann_id)),
        (Method::DELETE, cancel(&ann_id)),
    ] {
        let a = send(&app, method, &path, Some(&boss), Some(&org), None).await;
        assert_nested_error(&a, 409, "INVITE_NOT_PENDING");
    }
    // Bob's lapsed: re-sending it is refused too; inviting him again works.
    let a = send(
        &app,
        Method::POST,
        &resend(&bob_id),
        Some(&boss),
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 410, "INVITE_EXPIRED");
    let a = call(
        &app,
        "/organizations/team/invite",
        &boss,
        Some(&org),
        &json!({"invites": [{"email": "ann@example.com", "role": "admin"}]}),
    )
    .await;
    assert_eq!(
        a.body["data"]["sent"].as_array().unwrap().len(),
        1,
        "{}",
        a.body
    );
}

/// A re-send whose e-mail cannot be sent changes nothing: the mailed link
/// keeps working.
#[rstest]
#[tokio::test]
async fn a_resend_whose_mail_fails_keeps_the_old_link(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (app, boss, org, id, outbox) = invited(backend, "ann@example.com", "editor").await;
    let (_, mailed) = crate::sign_in::mailed_invitation(outbox.path(), "ann@example.com");
    // The outbox becomes a file: nothing can be written there.
    std::fs::remove_dir_all(outbox.path()).unwrap();
    std::fs::write(outbox.path(), b"not a folder").unwrap();
    let a = send(
        &app,
        Method::POST,
        &format!("/organizations/team/invites/{id}/resend"),
        Some(&boss),
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 502, "EMAIL_FAILED");
    let still = lookup(&app, &json!(mailed)).await;
    assert_eq!(still.status.as_u16(), 200, "{}", still.body);
    std::fs::remove_file(outbox.path()).unwrap();
}
