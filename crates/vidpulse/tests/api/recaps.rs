//! Scheduled recaps: subscribed, listed, changed and stopped in the
//! dashboard API and by API key in the public API, with their rules (roles, plan, another member's or
//! organization's ids, bad input); sent by the worker once per period even
//! with two workers racing, by e-mail in the member's language and to a
//! Slack-shaped receiver; a member who left gets no more.

use chrono::{Datelike, Duration, NaiveTime};
use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::identity::Role;
use vidpulse_domain::{Clock, OrgId, Plan};
use vidpulse_store::Backend;
use vidpulse_worker::{Tick, WebhookConfig};

use crate::analytics::{VIDEO_B, VIDEO_C, csv_row, import};
use crate::dashboard::{Team, call, member, team};
use crate::helpers::{TestApp, TestConfig, assert_nested_error};
use crate::receiver::Receiver;

const RECAPS: &str = "/dashboard/recaps";

/// A dashboard call on the team's organization.
async fn on(
    app: &TestApp,
    team: &Team,
    token: &str,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> crate::helpers::Answer {
    call(app, method, path, token, Some(&team.org), body).await
}

#[rstest]
#[tokio::test]
async fn recaps_are_subscribed_listed_changed_and_stopped(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let hook = "http://127.0.0.1:9/services/T000/B000/secretWXYZ";

    // Any member subscribes themselves; the same again answers it as it is.
    let mine = on(
        &app,
        &t,
        &t.viewer,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily"})),
    )
    .await;
    assert_eq!(mine.status.as_u16(), 201, "{}", mine.body);
    let recap = mine.body["data"].clone();
    assert_eq!(recap["delivery"], "email");
    assert_eq!(recap["email"], "vi@example.com");
    assert_eq!(recap["frequency"], "daily");
    assert_eq!(recap["campaign_id"], Value::Null);
    assert_eq!(recap["channel_url"], Value::Null);
    assert_eq!(recap["last_sent_at"], Value::Null);
    let again = on(
        &app,
        &t,
        &t.viewer,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily"})),
    )
    .await;
    assert_eq!(again.status.as_u16(), 200, "{}", again.body);
    assert_eq!(again.body["data"]["id"], recap["id"]);

    // A channel needs an editor; its URL is never shown whole.
    let channel = json!({"frequency": "weekly", "channel": {"type": "slack", "url": hook}});
    let refused = on(&app, &t, &t.viewer, Method::POST, RECAPS, Some(&channel)).await;
    assert_nested_error(&refused, 403, "INSUFFICIENT_PERMISSIONS");
    let posted = on(&app, &t, &t.editor, Method::POST, RECAPS, Some(&channel)).await;
    assert_eq!(posted.status.as_u16(), 201, "{}", posted.body);
    let chat = posted.body["data"].clone();
    assert_eq!(chat["delivery"], "slack");
    assert_eq!(chat["email"], Value::Null);
    assert_eq!(chat["channel_url"], "http://127.0.0.1/…WXYZ");
    assert!(!posted.body.to_string().contains("secretWXYZ"));

    // The viewer sees hers and the channel's; the editor only the channel's.
    let ids = |a: &crate::helpers::Answer| -> Vec<Value> {
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        a.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].clone())
            .collect()
    };
    let viewer_sees = on(&app, &t, &t.viewer, Method::GET, RECAPS, None).await;
    assert_eq!(
        ids(&viewer_sees),
        vec![recap["id"].clone(), chat["id"].clone()]
    );
    let editor_sees = on(&app, &t, &t.editor, Method::GET, RECAPS, None).await;
    assert_eq!(ids(&editor_sees), vec![chat["id"].clone()]);

    // Another member's e-mail recap is not there for the editor.
    let mine_path = format!("{RECAPS}/{}", recap["id"].as_str().unwrap());
    let chat_path = format!("{RECAPS}/{}", chat["id"].as_str().unwrap());
    let weekly = json!({"frequency": "weekly"});
    let a = on(
        &app,
        &t,
        &t.editor,
        Method::PATCH,
        &mine_path,
        Some(&weekly),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = on(&app, &t, &t.editor, Method::DELETE, &mine_path, None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    // A viewer cannot change the channel's.
    let a = on(
        &app,
        &t,
        &t.viewer,
        Method::PATCH,
        &chat_path,
        Some(&weekly),
    )
    .await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = on(&app, &t, &t.viewer, Method::DELETE, &chat_path, None).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");

    // Changes.
    let a = on(
        &app,
        &t,
        &t.viewer,
        Method::PATCH,
        &mine_path,
        Some(&weekly),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["frequency"], "weekly");
    let summer = app
        .post("/v1/campaigns", &t.key, &json!({"name": "Summer"}))
        .await
        .body["data"]["id"]
        .clone();
    let a = on(
        &app,
        &t,
        &t.viewer,
        Method::PATCH,
        &mine_path,
        Some(&json!({"campaign_id": summer})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["campaign_id"], summer);
    let new_hook = json!({"channel_url": "http://127.0.0.1:9/new/hookABCD"});
    let a = on(
        &app,
        &t,
        &t.editor,
        Method::PATCH,
        &chat_path,
        Some(&new_hook),
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["channel_url"], "http://127.0.0.1/…ABCD");
    let a = on(
        &app,
        &t,
        &t.viewer,
        Method::PATCH,
        &mine_path,
        Some(&new_hook),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "channel_url");

    // Stopped; then gone.
    let a = on(&app, &t, &t.viewer, Method::DELETE, &mine_path, None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"], json!({"id": recap["id"], "deleted": true}));
    let a = on(&app, &t, &t.viewer, Method::DELETE, &mine_path, None).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = on(&app, &t, &t.editor, Method::DELETE, &chat_path, None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = on(&app, &t, &t.viewer, Method::GET, RECAPS, None).await;
    assert_eq!(a.body["data"], json!([]));
}

#[rstest]
#[tokio::test]
async fn an_api_key_manages_every_recap_of_its_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    const V1: &str = "/v1/recaps";

    // A key subscribes the member it names (by address or id); the same
    // again answers the one there is.
    let a = app
        .post(
            V1,
            &t.key,
            &json!({"frequency": "daily", "member": " VI@example.com "}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let vi = a.body["data"].clone();
    assert_eq!(vi["delivery"], "email");
    assert_eq!(vi["email"], "vi@example.com");
    let again = app
        .post(
            V1,
            &t.key,
            &json!({"frequency": "daily", "member": "vi@example.com"}),
        )
        .await;
    assert_eq!(again.status.as_u16(), 200, "{}", again.body);
    assert_eq!(again.body["data"]["id"], vi["id"]);
    // The member sees it as theirs in the app.
    let theirs = on(&app, &t, &t.viewer, Method::GET, RECAPS, None).await;
    assert_eq!(theirs.body["data"][0]["id"], vi["id"]);

    // Who is not named, or not a member, or both targets: refused, nothing written.
    let a = app.post(V1, &t.key, &json!({"frequency": "daily"})).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "member");
    let a = app
        .post(
            V1,
            &t.key,
            &json!({"frequency": "daily", "member": "stranger@example.com"}),
        )
        .await;
    assert_nested_error(&a, 422, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "member");
    let both = json!({"frequency": "daily", "member": "vi@example.com",
        "channel": {"type": "slack", "url": "http://127.0.0.1:9/hook"}});
    let a = app.post(V1, &t.key, &both).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = app
        .post(V1, &t.key, &json!({"frequency": "daily", "member": 7}))
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "member");

    // A channel recap by key.
    let hook = "http://127.0.0.1:9/services/T000/B000/secretWXYZ";
    let a = app
        .post(
            V1,
            &t.key,
            &json!({"frequency": "weekly", "channel": {"type": "discord", "url": hook}}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let chat = a.body["data"].clone();
    assert_eq!(chat["delivery"], "discord");
    assert!(!a.body.to_string().contains("secretWXYZ"));

    // The editor's own recap is in the key's list too.
    let a = on(
        &app,
        &t,
        &t.editor,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "weekly"})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let list = app.get(V1, Some(&t.key)).await;
    assert_eq!(list.status.as_u16(), 200, "{}", list.body);
    let emails: Vec<&Value> = list.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["email"])
        .collect();
    assert_eq!(
        emails,
        vec![
            &json!("vi@example.com"),
            &Value::Null,
            &json!("ed@example.com")
        ]
    );

    // The key changes and stops any of them.
    let vi_path = format!("{V1}/{}", vi["id"].as_str().unwrap());
    let a = app
        .patch(&vi_path, &t.key, &json!({"frequency": "weekly"}))
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["frequency"], "weekly");
    let chat_path = format!("{V1}/{}", chat["id"].as_str().unwrap());
    let a = app
        .patch(
            &chat_path,
            &t.key,
            &json!({"channel_url": "http://127.0.0.1:9/new/hookABCD"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["channel_url"], "http://127.0.0.1/…ABCD");

    // Another organization's key sees none of it.
    let (_, other) = app.org_with_key(Plan::Pro).await;
    assert_eq!(app.get(V1, Some(&other)).await.body["data"], json!([]));
    let a = app
        .patch(&vi_path, &other, &json!({"frequency": "daily"}))
        .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = app.delete(&vi_path, &other).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = app.delete(&format!("{V1}/not-a-uuid"), &t.key).await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // A free organization's key cannot subscribe.
    let (_, free) = app.org_with_key(Plan::Free).await;
    let a = app
        .post(
            V1,
            &free,
            &json!({"frequency": "daily", "channel": {"type": "slack", "url": hook}}),
        )
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");

    let a = app.delete(&vi_path, &t.key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = app.delete(&chat_path, &t.key).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        app.get(V1, Some(&t.key)).await.body["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // In the app, `member` can only name the caller.
    let a = on(
        &app,
        &t,
        &t.viewer,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily", "member": "ed@example.com"})),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "member");
    let a = on(
        &app,
        &t,
        &t.viewer,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily", "member": "vi@example.com"})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
}

#[rstest]
#[tokio::test]
async fn recap_requests_are_validated(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let (_, other_key) = app.org_with_key(Plan::Pro).await;
    let foreign = app
        .post("/v1/campaigns", &other_key, &json!({"name": "Theirs"}))
        .await
        .body["data"]["id"]
        .clone();
    for (body, field) in [
        (json!({}), "frequency"),
        (json!({"frequency": null}), "frequency"),
        (json!({"frequency": 3}), "frequency"),
        (json!({"frequency": "hourly"}), "frequency"),
        (
            json!({"frequency": "daily", "campaign_id": "nope"}),
            "campaign_id",
        ),
        (
            json!({"frequency": "daily", "campaign_id": 7}),
            "campaign_id",
        ),
        (json!({"frequency": "daily", "to": "me"}), "to"),
        (json!({"frequency": "daily", "channel": "slack"}), "channel"),
        (
            json!({"frequency": "daily", "channel": {"type": "teams", "url": "https://example.com/x"}}),
            "channel.type",
        ),
        (
            json!({"frequency": "daily", "channel": {"type": "slack", "url": "ftp://example.com/x"}}),
            "channel.url",
        ),
        (
            json!({"frequency": "daily", "channel": {"type": "slack", "url": ""}}),
            "channel.url",
        ),
        (
            json!({"frequency": "daily", "channel": {"type": "slack"}}),
            "channel.url",
        ),
        (json!([]), "body"),
    ] {
        let a = on(&app, &t, &t.editor, Method::POST, RECAPS, Some(&body)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}: {}", a.body);
    }
    let long = format!("https://example.com/{}", "x".repeat(2050));
    let a = on(
        &app,
        &t,
        &t.editor,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily", "channel": {"type": "discord", "url": long}})),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // Malformed JSON.
    let a = app
        .client
        .post(app.url(RECAPS))
        .bearer_auth(&t.editor)
        .header("X-Organization-ID", &t.org)
        .header("content-type", "application/json")
        .body("{\"frequency\": ")
        .send()
        .await
        .unwrap();
    let a = TestApp::answer(a).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // Another organization's campaign is unknown.
    let a = on(
        &app,
        &t,
        &t.editor,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily", "campaign_id": foreign})),
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    // Unknown and malformed ids.
    for path in [
        format!("{RECAPS}/{}", uuid::Uuid::new_v4()),
        format!("{RECAPS}/nope"),
    ] {
        let a = on(
            &app,
            &t,
            &t.editor,
            Method::PATCH,
            &path,
            Some(&json!({"frequency": "daily"})),
        )
        .await;
        assert_nested_error(&a, 404, "NOT_FOUND");
        let a = on(&app, &t, &t.editor, Method::DELETE, &path, None).await;
        assert_nested_error(&a, 404, "NOT_FOUND");
    }
    let mine = on(
        &app,
        &t,
        &t.editor,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily"})),
    )
    .await;
    let path = format!("{RECAPS}/{}", mine.body["data"]["id"].as_str().unwrap());
    for (body, field) in [
        (json!({"frequency": "monthly"}), "frequency"),
        (json!({"frequency": null}), "frequency"),
        (json!({"campaign_id": "x"}), "campaign_id"),
        (json!({"colour": "red"}), "colour"),
    ] {
        let a = on(&app, &t, &t.editor, Method::PATCH, &path, Some(&body)).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}: {}", a.body);
    }
    // Into the scope and frequency of another of hers: refused.
    on(
        &app,
        &t,
        &t.editor,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "weekly"})),
    )
    .await;
    let a = on(
        &app,
        &t,
        &t.editor,
        Method::PATCH,
        &path,
        Some(&json!({"frequency": "weekly"})),
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // Nothing was written by the refusals.
    let a = on(&app, &t, &t.editor, Method::GET, RECAPS, None).await;
    assert_eq!(a.body["data"].as_array().unwrap().len(), 2, "{}", a.body);
    // Not a member of that organization; no header.
    let a = call(
        &app,
        Method::GET,
        RECAPS,
        &t.editor,
        Some(&uuid::Uuid::new_v4().to_string()),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = call(&app, Method::GET, RECAPS, &t.editor, None, None).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = app.get(RECAPS, None).await;
    assert_eq!(a.status.as_u16(), 401);
}

#[rstest]
#[tokio::test]
async fn the_free_plan_cannot_subscribe_but_can_stop(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let t = team(&app).await;
    let mine = on(
        &app,
        &t,
        &t.viewer,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily"})),
    )
    .await;
    let path = format!("{RECAPS}/{}", mine.body["data"]["id"].as_str().unwrap());
    let org = OrgId(t.org.parse().unwrap());
    app.store
        .set_plan(org, Plan::Free, None, None)
        .await
        .unwrap();
    let a = on(
        &app,
        &t,
        &t.viewer,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "weekly"})),
    )
    .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = on(
        &app,
        &t,
        &t.viewer,
        Method::PATCH,
        &path,
        Some(&json!({"frequency": "weekly"})),
    )
    .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = on(&app, &t, &t.viewer, Method::GET, RECAPS, None).await;
    assert_eq!(a.body["data"][0]["frequency"], "daily", "unchanged");
    let a = on(&app, &t, &t.viewer, Method::DELETE, &path, None).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
}

/// The text of the e-mails in `dir`, decoded (quoted-printable or 7-bit).
fn mails(dir: &std::path::Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .map(|e| decode(&std::fs::read_to_string(e.unwrap().path()).unwrap()))
        .collect()
}

/// `raw` with quoted-printable soft breaks and escapes undone.
fn decode(raw: &str) -> String {
    assert!(!raw.contains("Content-Transfer-Encoding: base64"), "{raw}");
    let joined = raw.replace("=\r\n", "").replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'=', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Two workers' ticks at once (two contexts over the one database); the
/// sends made.
async fn two_workers(app: &TestApp) -> usize {
    let first = app.services.notify.clone();
    let second = app.services.notify.clone();
    let (a, b) = tokio::join!(
        vidpulse_worker::recaps::tick(&first),
        vidpulse_worker::recaps::tick(&second)
    );
    [a.unwrap(), b.unwrap()]
        .into_iter()
        .map(|t| match t {
            Tick::Worked(n) => n,
            Tick::Idle => 0,
        })
        .sum()
}

#[rstest]
#[tokio::test]
async fn recaps_are_sent_once_per_period_in_the_members_language(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let outbox = tempfile::tempdir().unwrap();
    let mut config = TestConfig {
        webhooks: WebhookConfig {
            allow_private: true,
            ..WebhookConfig::default()
        },
        ..TestConfig::default()
    };
    config.api.mail.outbox = outbox.path().to_owned();
    let app = TestApp::spawn_with(backend, config).await;
    let outbox = outbox.path().to_owned();
    let receiver = Receiver::start().await;
    let t = team(&app).await;
    let org = OrgId(t.org.parse().unwrap());
    let (ann, ann_id) = member(&app, "ann@example.com").await;
    app.store
        .add_member(org, ann_id, Role::Viewer, app.clock.now())
        .await
        .unwrap();
    app.store.set_language(ann_id, "de").await.unwrap();

    // Everyone subscribes now; the first recaps go out at the next 06:00 UTC
    // or later: move to the next Monday, 07:00.
    let summer = app
        .post(
            "/v1/campaigns",
            &t.key,
            &json!({"name": "Summer", "budget": 1000}),
        )
        .await
        .body["data"]["id"]
        .clone();
    for (token, body) in [
        (&t.editor, json!({"frequency": "daily"})),
        (&ann, json!({"frequency": "daily"})),
        (&ann, json!({"frequency": "weekly", "campaign_id": summer})),
        (&t.viewer, json!({"frequency": "daily"})),
        (
            &t.editor,
            json!({"frequency": "daily", "channel": {"type": "slack", "url": receiver.url}}),
        ),
    ] {
        let a = on(&app, &t, token, Method::POST, RECAPS, Some(&body)).await;
        assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    }
    // The viewer leaves before anything is sent.
    let (_, viewer_id) = member(&app, "vi@example.com").await;
    app.store
        .remove_member(org, Role::Owner, viewer_id)
        .await
        .unwrap();

    let now = app.clock.now();
    let monday =
        now.date_naive() + Duration::days(7 - i64::from(now.weekday().num_days_from_monday()));
    let send_at = monday
        .and_time(NaiveTime::from_hms_opt(7, 0, 0).unwrap())
        .and_utc();
    app.advance(send_at - now);

    // A history of the last two days: B gains 8,000 views on Sunday.
    let csv = [
        crate::analytics::HEADER.to_owned(),
        csv_row(&app, &VIDEO_B, 10, 12, 50_000),
        csv_row(&app, &VIDEO_B, 11, 12, 58_000),
        csv_row(&app, &VIDEO_C, 11, 9, 300),
    ]
    .join("\n")
        + "\n";
    import(&app, org.0, &csv).await.unwrap();
    let b = app
        .patch(
            &format!("/v1/videos/by-external-id/{}", crate::analytics::B),
            &t.key,
            &json!({"campaign": "Summer", "budget": 250}),
        )
        .await;
    assert_eq!(b.status.as_u16(), 200, "{}", b.body);
    let b_id = b.body["data"]["video_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", b.body))
        .to_owned();

    // Two workers race: each recap is sent once.
    assert_eq!(
        two_workers(&app).await,
        4,
        "three daily (one member left) and the weekly"
    );
    assert_eq!(two_workers(&app).await, 0);
    let sent = mails(&outbox);
    assert_eq!(sent.len(), 3, "{sent:#?}");
    let to = |who: &str| -> Vec<&String> {
        sent.iter()
            .filter(|m| m.contains(&format!("To: {who}")))
            .collect()
    };
    assert!(
        to("vi@example.com").is_empty(),
        "a member who left gets none"
    );
    let editor = to("ed@example.com");
    assert_eq!(editor.len(), 1);
    assert!(editor[0].contains("Views gained: 8,000"), "{}", editor[0]);
    assert!(
        editor[0].contains("Videos that gained most:"),
        "{}",
        editor[0]
    );
    assert!(
        editor[0].contains(&format!("/videos/{b_id}")),
        "{}",
        editor[0]
    );
    let anns = to("ann@example.com");
    assert_eq!(anns.len(), 2);
    let daily = anns
        .iter()
        .find(|m| m.contains("Tägliche"))
        .expect("German daily");
    assert!(daily.contains("Gewonnene Aufrufe: 8.000"), "{daily}");
    let weekly = anns
        .iter()
        .find(|m| m.contains("Wöchentliche"))
        .expect("German weekly");
    assert!(weekly.contains("Kampagne Summer"), "{weekly}");
    assert!(
        weekly.contains("Ausgaben: 250,00 USD von einem Budget von 1.000,00 USD"),
        "{weekly}"
    );
    let posts = receiver.received();
    assert_eq!(posts.len(), 1);
    let text = posts[0].json()["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("Daily recap: Test org ("), "{text}");
    assert!(text.contains("Views gained: 8,000"), "{text}");

    // The next day: only the daily ones again.
    app.advance(Duration::days(1));
    assert_eq!(two_workers(&app).await, 3);
    assert_eq!(mails(&outbox).len(), 5);
    assert_eq!(receiver.received().len(), 2);
    let a = on(&app, &t, &ann, Method::GET, RECAPS, None).await;
    let last: Vec<&Value> = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["last_period_start"])
        .collect();
    assert!(last.iter().all(|l| l.is_string()), "{}", a.body);
}

#[rstest]
#[tokio::test]
async fn a_failing_channel_is_retried_then_given_up(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let receiver = Receiver::start().await;
    let t = team(&app).await;
    let a = on(
        &app,
        &t,
        &t.editor,
        Method::POST,
        RECAPS,
        Some(&json!({"frequency": "daily", "channel": {"type": "discord", "url": receiver.url}})),
    )
    .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    let now = app.clock.now();
    let next = (now.date_naive() + Duration::days(1))
        .and_time(NaiveTime::from_hms_opt(6, 30, 0).unwrap())
        .and_utc();
    app.advance(next - now);
    receiver.fail_next(10);
    assert_eq!(two_workers(&app).await, 1);
    assert_eq!(two_workers(&app).await, 0, "not before a minute");
    for wait in [1, 10, 60] {
        app.advance(Duration::minutes(wait));
        assert_eq!(two_workers(&app).await, 1);
    }
    app.advance(Duration::hours(5));
    assert_eq!(two_workers(&app).await, 0, "given up after four attempts");
    assert_eq!(receiver.received().len(), 4);
    let body = receiver.received()[0].json();
    assert!(
        body["content"]
            .as_str()
            .unwrap()
            .starts_with("Daily recap: "),
        "{body}"
    );
}
