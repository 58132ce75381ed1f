//! Request bodies and query strings are read as their documented types; a
//! request that does not fit answers as the API always has: the same status,
//! code, field and message for a value of the wrong type, a missing field, an
//! unknown enum value, malformed JSON, and for `null` where it does not
//! stand for "absent". A role or plan check still answers before the body.

use reqwest::Method;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::identity::Role;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;

use crate::dashboard::{call, member, team};
use crate::helpers::{TIKTOK, TestApp, assert_flat_error, assert_nested_error};

const VIDEO: &str = "/v1/videos/by-external-id/7301234567890123456";
const UUID: &str = "0190c4a6-8f6e-7c3e-9d2a-4b5c6d7e8f90";

/// Who sends a request: the API key, or a dashboard member of the organization.
#[derive(Debug, Clone, Copy)]
enum As {
    Key,
    Editor,
    Admin,
}

/// What a request sends.
enum Sent {
    Json(Value),
    Raw(&'static str, &'static str),
    Nothing,
}

/// A request refused with 400 `VALIDATION_ERROR` in the nested envelope.
struct Case {
    who: As,
    method: Method,
    path: String,
    sent: Sent,
    field: String,
    message: String,
}

fn case(who: As, method: Method, path: &str, sent: Sent, field: &str, message: &str) -> Case {
    Case {
        who,
        method,
        path: path.to_owned(),
        sent,
        field: field.to_owned(),
        message: message.to_owned(),
    }
}

fn post(who: As, path: &str, body: Value, field: &str, message: &str) -> Case {
    case(who, Method::POST, path, Sent::Json(body), field, message)
}

fn patch(body: Value, field: &str, message: &str) -> Case {
    case(
        As::Key,
        Method::PATCH,
        VIDEO,
        Sent::Json(body),
        field,
        message,
    )
}

fn get(who: As, path: &str, field: &str, message: &str) -> Case {
    case(who, Method::GET, path, Sent::Nothing, field, message)
}

/// Every case, with the message each answered before requests were typed.
fn cases() -> Vec<Case> {
    use As::*;
    let track = "/v1/videos/track";
    let creator = "/v1/bloggers/track";
    let urls_type = "`urls` must be an array of URL strings";
    let many: Vec<String> = (0..51).map(|i| format!("{TIKTOK}{i}")).collect();
    vec![
        // The public track: missing field, wrong types, bounds, not an object.
        post(Key, track, json!({}), "urls", "`urls` is required"),
        post(Key, track, json!({"urls": "x"}), "urls", urls_type),
        post(Key, track, json!({"urls": null}), "urls", urls_type),
        post(Key, track, json!({"urls": [1]}), "urls", urls_type),
        post(
            Key,
            track,
            json!({"urls": []}),
            "urls",
            "`urls` must contain at least one URL",
        ),
        post(
            Key,
            track,
            json!({"urls": many}),
            "urls",
            "`urls` may contain at most 50 URLs; got 51",
        ),
        post(
            Key,
            track,
            json!([TIKTOK]),
            "body",
            "The body must be a JSON object with `urls`",
        ),
        // Malformed JSON and a wrong content type.
        case(
            Key,
            Method::POST,
            track,
            Sent::Raw("application/json", "{\"urls\":"),
            "body",
            "Malformed JSON: EOF while parsing a value at line 1 column 8",
        ),
        case(
            Key,
            Method::POST,
            track,
            Sent::Raw("text/plain", "urls"),
            "body",
            "Content-Type must be application/json",
        ),
        // The creator track: a missing, unknown or mistyped platform.
        post(
            Key,
            creator,
            json!({"username": "a"}),
            "platform",
            "`platform` is required: tiktok, instagram or youtube",
        ),
        post(
            Key,
            creator,
            json!({"platform": "vimeo", "username": "a"}),
            "platform",
            "`platform` must be tiktok, instagram or youtube; got `vimeo`",
        ),
        post(
            Key,
            creator,
            json!({"platform": 3, "username": "a"}),
            "platform",
            "`platform` must be a string: tiktok, instagram or youtube",
        ),
        post(
            Key,
            creator,
            json!({"platform": "tiktok", "username": 7}),
            "username",
            "`username` must be a string",
        ),
        post(
            Key,
            creator,
            json!({"platform": "tiktok", "username": null}),
            "username",
            "`username` is required",
        ),
        post(
            Key,
            creator,
            json!({"platform": "tiktok", "username": "a b"}),
            "username",
            "`username` may hold only letters, digits, `.`, `_` and `-` (after an optional `@`)",
        ),
        post(
            Key,
            creator,
            json!({"platform": "tiktok", "username": "a", "initial_videos_count": "3"}),
            "initial_videos_count",
            "`initial_videos_count` must be a whole number from 0 to 50; got \"3\"",
        ),
        post(
            Key,
            creator,
            json!({"platform": "tiktok", "username": "a", "initial_videos_count": 2.5}),
            "initial_videos_count",
            "`initial_videos_count` must be a whole number from 0 to 50; got 2.5",
        ),
        // PATCH: no field, an unknown one, wrong types, unknown enum values.
        patch(
            json!({}),
            "body",
            "at least one of notes, budget, campaign, video_status, status, ecpm, tags is required",
        ),
        patch(json!({"colour": "red"}), "colour", "unknown field `colour`"),
        patch(json!([1]), "body", "the body must be a JSON object"),
        patch(json!({"notes": 5}), "notes", "notes must be a string"),
        patch(
            json!({"budget": 2.5}),
            "budget",
            "budget must be a whole number greater than 0",
        ),
        patch(
            json!({"budget": 0}),
            "budget",
            "budget must be a whole number greater than 0",
        ),
        patch(
            json!({"budget": "100"}),
            "budget",
            "budget must be a whole number greater than 0, null or \"\"",
        ),
        patch(
            json!({"campaign": 3}),
            "campaign",
            "campaign must be a string or null",
        ),
        patch(
            json!({"campaign": "a,b"}),
            "campaign",
            "campaign may contain only letters, digits, spaces and - _ . ( ) | : % & (found `,`)",
        ),
        patch(
            json!({"video_status": "archived"}),
            "video_status",
            "video_status must be one of tracking, paused, deleted",
        ),
        patch(
            json!({"status": "done"}),
            "status",
            "status must be one of `to do`, running, ended",
        ),
        patch(
            json!({"ecpm": "1"}),
            "ecpm",
            "ecpm must be a number of 0 or more, null or \"\"",
        ),
        patch(
            json!({"ecpm": -1}),
            "ecpm",
            "ecpm must be a number of 0 or more",
        ),
        patch(
            json!({"tags": "food"}),
            "tags",
            "tags must be an array of strings",
        ),
        patch(
            json!({"tags": []}),
            "tags",
            "tags must have 1 to 50 entries",
        ),
        patch(
            json!({"tags": ["  "]}),
            "tags",
            "tag names must not be empty",
        ),
        // Query strings.
        get(
            Key,
            "/v1/analytics/metrics/totals?group_by=week",
            "group_by",
            "`group_by` must be one of none, platform, blogger_username, platform_blogger, campaign; got `week`",
        ),
        get(
            Key,
            "/v1/analytics/metrics/increments?from=2026-1-1",
            "from",
            "`from` must be a date YYYY-MM-DD; got `2026-1-1`",
        ),
        get(
            Key,
            "/v1/analytics/metrics/totals?published_at.from=2026-02-01&published_at.to=2026-01-01",
            "published_at.from",
            "`published_at.from` (2026-02-01) must be on or before `published_at.to` (2026-01-01)",
        ),
        get(
            Key,
            "/v1/analytics/metrics/totals?platform=vine",
            "platform",
            "`platform` must be tiktok, instagram or youtube; got `vine`",
        ),
        get(
            Key,
            "/v1/trends/search?platform=tiktok",
            "keyword",
            "`keyword` is required",
        ),
        get(
            Key,
            "/v1/trends/search?keyword=x",
            "platform",
            "`platform` is required: tiktok or youtube",
        ),
        get(
            Key,
            "/v1/trends/search?keyword=x&platform=TikTok",
            "platform",
            "`platform` must be tiktok or youtube; got `TikTok`",
        ),
        get(
            Key,
            "/v1/trends/search?keyword=x&platform=tiktok&days=week",
            "days",
            "`days` must be a whole number from 0 to 3650; got `week`",
        ),
        get(
            Key,
            "/v1/trends/search?keyword=x&platform=tiktok&region=USA",
            "region",
            "`region` must be a two-letter country code; got `USA`",
        ),
        get(
            Key,
            "/v1/bloggers/by-username/ana?platform=vimeo",
            "platform",
            "`platform` must be tiktok, instagram or youtube; got `vimeo`",
        ),
        get(
            Editor,
            "/analytics/videos/for_date",
            "date",
            "`date` is required",
        ),
        get(
            Editor,
            "/analytics/videos/for_date?date=2026-10-02&limit=0",
            "limit",
            "`limit` must be 1 to 1000",
        ),
        get(
            Editor,
            "/analytics/videos/for_date?date=2026-10-02&sort_by=shares",
            "sort_by",
            "`sort_by` must be views, likes, comments, reposts or saves",
        ),
        get(
            Editor,
            "/dashboard/stats?to=tomorrow",
            "to",
            "`to` must be a date YYYY-MM-DD; got `tomorrow`",
        ),
        // Dashboard bodies.
        post(
            Editor,
            "/tags",
            json!({"name": 5}),
            "name",
            "`name` must be a string",
        ),
        post(
            Editor,
            "/tags",
            json!([1]),
            "name",
            "`name` must be a string",
        ),
        post(
            Editor,
            "/tags",
            json!({"name": "  "}),
            "name",
            "`name` must be 1 to 80 characters",
        ),
        post(
            Editor,
            "/blogger/toggle",
            json!({"is_active": true}),
            "tracking_id",
            "`tracking_id` is required",
        ),
        post(
            Editor,
            "/blogger/toggle",
            json!({"tracking_id": "nope", "is_active": true}),
            "tracking_id",
            "`tracking_id` must be a UUID",
        ),
        post(
            Editor,
            "/blogger/toggle",
            json!({"tracking_id": 5, "is_active": true}),
            "tracking_id",
            "`tracking_id` must be a UUID string",
        ),
        post(
            Editor,
            "/blogger/toggle",
            json!({"tracking_id": UUID, "is_active": "no"}),
            "is_active",
            "`is_active` must be true or false",
        ),
        post(
            Editor,
            "/blogger/toggle",
            json!("x"),
            "body",
            "The body must be a JSON object",
        ),
        post(
            Editor,
            "/blogger/set-campaign",
            json!({"tracking_id": UUID}),
            "campaign",
            "`campaign` is required",
        ),
        post(
            Editor,
            "/blogger/set-campaign",
            json!({"tracking_id": UUID, "campaign": 5}),
            "campaign",
            "`campaign` must be a string or null",
        ),
        post(
            Editor,
            "/blogger/set-budget-per-video",
            json!({"tracking_id": UUID}),
            "budget_per_video",
            "`budget_per_video` is required",
        ),
        post(
            Editor,
            "/blogger/set-budget-per-video",
            json!({"tracking_id": UUID, "budget_per_video": "9"}),
            "budget_per_video",
            "`budget_per_video` must be a whole number greater than 0, or null",
        ),
        post(
            Editor,
            "/blogger/set-tags",
            json!({"tracking_id": UUID}),
            "tag_ids",
            "`tag_ids` must be an array of 0 to 50 UUID strings",
        ),
        post(
            Editor,
            "/blogger/merge",
            json!({"blogger_ids": []}),
            "blogger_ids",
            "`blogger_ids` must be an array of 1 to 50 UUID strings",
        ),
        post(
            Editor,
            "/blogger/merge",
            json!({"blogger_ids": [UUID], "name": 5}),
            "name",
            "`name` must be a string of 1 to 100 characters",
        ),
        post(
            Editor,
            "/blogger/add-to-creator",
            json!({"creator_id": UUID, "blogger_id": 7}),
            "blogger_id",
            "`blogger_id` must be a UUID string",
        ),
        post(
            Editor,
            "/blogger/add",
            json!({"username": "ana", "platform": "tiktok", "initial_videos_count": "3"}),
            "initial_videos_count",
            "`initial_videos_count` must be a whole number from 0 to 50; got \"3\"",
        ),
        post(
            Editor,
            "/blogger/add",
            json!({"username": "ana", "platform": "tiktok", "daily_videos_count": 51}),
            "daily_videos_count",
            "`daily_videos_count` must be a whole number from 0 to 50, or null",
        ),
        post(
            Editor,
            "/blogger/add",
            json!({"username": "ana", "platform": "tiktok", "tag_ids": "x"}),
            "tag_ids",
            "`tag_ids` must be an array of 0 to 50 UUID strings",
        ),
        post(
            Editor,
            "/blogger/add",
            json!({"platform": "tiktok"}),
            "username",
            "`username` is required",
        ),
        post(
            Editor,
            "/blogger/add-from-tracking",
            json!({}),
            "blogger_id",
            "`blogger_id` is required",
        ),
        post(
            Editor,
            "/blogger/add-from-tracking",
            json!({"blogger_id": UUID, "initial_videos_count": -1}),
            "initial_videos_count",
            "`initial_videos_count` must be a whole number from 0 to 50",
        ),
        post(
            Admin,
            "/organizations/api-keys",
            json!({"name": 5}),
            "name",
            "`name` must be a string",
        ),
        post(
            Admin,
            "/organizations/api-keys",
            json!({"name": " "}),
            "name",
            "`name` must be 1 to 200 characters",
        ),
        post(
            Admin,
            "/organizations/team/invite",
            json!({"invites": "x"}),
            "invites",
            "`invites` must be an array",
        ),
        post(
            Admin,
            "/organizations/team/invite",
            json!({"invites": []}),
            "invites",
            "`invites` must hold 1 to 3 entries",
        ),
        post(
            Admin,
            "/organizations/team/invite",
            json!({"invites": [{"email": "a@b.co", "role": "owner"}]}),
            "invites[0].role",
            "`role` must be viewer, editor or admin",
        ),
        post(
            Admin,
            "/organizations/team/invite",
            json!({"invites": [{"email": "a@b.co", "role": "viewer"}, {"role": "viewer"}]}),
            "invites[1].email",
            "`email` must be an e-mail address",
        ),
        post(
            Admin,
            "/organizations/team/invite",
            json!({"invites": ["a@b.co"]}),
            "invites[0].email",
            "`email` must be an e-mail address",
        ),
        post(
            Admin,
            "/organizations/team/invite",
            json!({"invites": [{"email": "a@b.co", "role": "viewer"},
                               {"email": "A@B.CO", "role": "editor"}]}),
            "invites[1].email",
            "The address is listed twice",
        ),
        post(
            Admin,
            "/organizations/team/members/remove",
            json!({"user_id": null}),
            "user_id",
            "`user_id` is required",
        ),
        post(
            Admin,
            "/organizations/register",
            json!({}),
            "name",
            "`name` is required",
        ),
        post(
            Admin,
            "/organizations/register",
            json!({"name": ["a"]}),
            "name",
            "`name` must be a string",
        ),
        post(
            Admin,
            "/organizations/register",
            json!({"name": "  "}),
            "name",
            "`name` must not be empty",
        ),
        post(
            Admin,
            "/organizations/register",
            json!({"name": "a\u{0007}b"}),
            "name",
            "`name` must not contain control characters",
        ),
        post(
            Admin,
            "/organizations/register",
            json!(["Acme"]),
            "body",
            "The body must be a JSON object",
        ),
        case(
            Admin,
            Method::PUT,
            "/organizations/user/language",
            Sent::Json(json!({})),
            "language",
            "`language` is required",
        ),
        case(
            Admin,
            Method::PUT,
            "/organizations/user/language",
            Sent::Json(json!({"language": 3})),
            "language",
            "`language` must be a string",
        ),
        case(
            Admin,
            Method::PUT,
            "/organizations/user/language",
            Sent::Json(json!({"language": "english!"})),
            "language",
            "`language` must be a language tag such as `en` or `pt-BR`",
        ),
        post(
            Admin,
            "/organizations/team/invite/accept",
            json!({"invite_id": "nope"}),
            "invite_id",
            "`invite_id` must be a UUID",
        ),
    ]
}

/// A Pro organization with an API key, an editor, an admin and a tracked video.
struct Setup {
    app: TestApp,
    key: String,
    org: String,
    editor: String,
    admin: String,
}

async fn setup(backend: Backend) -> Setup {
    let app = TestApp::spawn(backend).await;
    let team = team(&app).await;
    let (admin, admin_id) = member(&app, "admin@example.com").await;
    let org_id = vidpulse_domain::OrgId(team.org.parse().unwrap());
    app.store
        .add_member(org_id, admin_id, Role::Admin, app.clock.now())
        .await
        .unwrap();
    app.track(&team.key, &[TIKTOK]).await;
    Setup {
        app,
        key: team.key,
        org: team.org,
        editor: team.editor,
        admin,
    }
}

impl Setup {
    async fn send(
        &self,
        who: As,
        method: Method,
        path: &str,
        sent: &Sent,
    ) -> crate::helpers::Answer {
        let token = match who {
            As::Key => self.key.as_str(),
            As::Editor => self.editor.as_str(),
            As::Admin => self.admin.as_str(),
        };
        let mut req = self
            .app
            .client
            .request(method, self.app.url(path))
            .bearer_auth(token);
        if !matches!(who, As::Key) && path != "/organizations/register" {
            req = req.header("X-Organization-ID", &self.org);
        }
        req = match sent {
            Sent::Json(body) => req.json(body),
            Sent::Raw(content_type, body) => req
                .header("content-type", *content_type)
                .body(body.to_string()),
            Sent::Nothing => req,
        };
        TestApp::answer(req.send().await.unwrap()).await
    }
}

#[rstest]
#[tokio::test]
async fn a_request_that_does_not_fit_its_type_answers_as_it_always_has(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let s = setup(backend).await;
    for case in cases() {
        let what = format!("{} {}", case.method, case.path);
        let a = s.send(case.who, case.method, &case.path, &case.sent).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(
            a.body["error"]["field"],
            case.field.as_str(),
            "{what}: {}",
            a.body
        );
        assert_eq!(
            a.body["error"]["message"],
            case.message.as_str(),
            "{what}: {}",
            a.body
        );
    }
}

#[rstest]
#[tokio::test]
async fn the_listing_answers_invalid_parameters_flat(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let s = setup(backend).await;
    for (query, message, details) in [
        (
            "limit=0",
            "`limit` must be an integer from 1 to 100; got `0`",
            json!({"parameter": "limit"}),
        ),
        (
            "limit=",
            "`limit` must be an integer from 1 to 100; got ``",
            json!({"parameter": "limit"}),
        ),
        (
            "offset=-1",
            "`offset` must be an integer of 0 or more; got `-1`",
            json!({"parameter": "offset"}),
        ),
        (
            "platform=vine",
            "`platform` must be TikTok, YouTube or Instagram; got `vine`",
            json!({"parameter": "platform", "valid_platform_options": ["TikTok", "YouTube", "Instagram"]}),
        ),
        (
            "status=gone",
            "`status` must be active, completed or failed; got `gone`",
            json!({"parameter": "status", "valid_status_options": ["active", "completed", "failed"]}),
        ),
        (
            "sort=size",
            "`sort` must be one of created_at, views, likes, comments, updated_at, published_at, views_gained, likes_gained; got `size`",
            json!({"parameter": "sort", "valid_sort_options": [
                "created_at", "views", "likes", "comments", "updated_at", "published_at",
                "views_gained", "likes_gained"
            ]}),
        ),
        (
            "order=up",
            "`order` must be asc or desc; got `up`",
            json!({"parameter": "order", "valid_order_options": ["asc", "desc"]}),
        ),
    ] {
        let a = s
            .app
            .get(&format!("/v1/videos/stats?{query}"), Some(&s.key))
            .await;
        assert_flat_error(&a, 400, "INVALID_PARAMETER");
        assert_eq!(a.body["error"], message, "{query}");
        assert_eq!(a.body["details"], details, "{query}");
    }
    // Any case of a platform, and every listed value, is taken.
    let a = s
        .app
        .get(
            "/v1/videos/stats?platform=tIkToK&status=active&sort=views&order=asc&limit=1&offset=0",
            Some(&s.key),
        )
        .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(a.body["data"]["pagination"]["total"], 1);
}

#[rstest]
#[tokio::test]
async fn a_patch_tells_null_from_absent(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let s = setup(backend).await;
    let video = || async { s.app.get(VIDEO, Some(&s.key)).await.body["data"]["data"].clone() };
    let written = |a: &crate::helpers::Answer| {
        assert_eq!(a.status.as_u16(), 200, "{}", a.body);
        a.body["data"]["updated_fields"].clone()
    };
    let all =
        json!({"notes": "n", "budget": 100, "campaign": "Summer", "ecpm": 5, "status": "running"});
    let a = s.app.patch(VIDEO, &s.key, &all).await;
    assert_eq!(
        written(&a),
        json!(["notes", "budget", "campaign_tag", "status", "ecpm"])
    );

    // An absent field is left as it is.
    let a = s.app.patch(VIDEO, &s.key, &json!({"notes": "m"})).await;
    assert_eq!(written(&a), json!(["notes"]));
    let v = video().await;
    assert_eq!(
        (
            &v["notes"],
            &v["budget"],
            &v["campaign"],
            &v["ecpm"],
            &v["status"]
        ),
        (
            &json!("m"),
            &json!(100),
            &json!("Summer"),
            &json!(5.0),
            &json!("running")
        )
    );

    // `null` clears where the spec says so, as `""` does.
    let a = s
        .app
        .patch(
            VIDEO,
            &s.key,
            &json!({"budget": null, "campaign": null, "ecpm": ""}),
        )
        .await;
    assert_eq!(written(&a), json!(["budget", "campaign_tag", "ecpm"]));
    let v = video().await;
    assert_eq!(
        (&v["notes"], &v["budget"], &v["campaign"], &v["ecpm"]),
        (&json!("m"), &Value::Null, &Value::Null, &Value::Null)
    );
    let a = s.app.patch(VIDEO, &s.key, &json!({"notes": ""})).await;
    assert_eq!(written(&a), json!(["notes"]));
    assert_eq!(video().await["notes"], Value::Null);

    // Elsewhere `null` is refused, and nothing is written.
    for (body, field, message) in [
        (json!({"notes": null}), "notes", "notes must be a string"),
        (
            json!({"status": null}),
            "status",
            "status must be one of `to do`, running, ended",
        ),
        (
            json!({"video_status": null}),
            "video_status",
            "video_status must be one of tracking, paused, deleted",
        ),
        (
            json!({"tags": null}),
            "tags",
            "tags must be an array of strings",
        ),
    ] {
        let a = s.app.patch(VIDEO, &s.key, &body).await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], field, "{body}");
        assert_eq!(a.body["error"]["message"], message, "{body}");
    }
    assert_eq!(video().await["status"], "running");
}

#[rstest]
#[tokio::test]
async fn roles_and_plans_answer_before_the_body_is_read(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let s = setup(backend).await;
    let (_, free) = s.app.org_with_key(Plan::Free).await;
    let (viewer, viewer_id) = member(&s.app, "viewer2@example.com").await;
    let org_id = vidpulse_domain::OrgId(s.org.parse().unwrap());
    s.app
        .store
        .add_member(org_id, viewer_id, Role::Viewer, s.app.clock.now())
        .await
        .unwrap();
    let bad = json!({"name": 5, "tracking_id": 5, "invites": 5});
    for path in ["/tags", "/blogger/toggle", "/blogger/merge"] {
        let a = call(
            &s.app,
            Method::POST,
            path,
            &viewer,
            Some(&s.org),
            Some(&bad),
        )
        .await;
        assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    }
    let a = s
        .app
        .patch(VIDEO, &free, &json!({"notes": null, "colour": 1}))
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = s
        .app
        .send_raw(Method::PATCH, VIDEO, Some(&free), "application/json", "{")
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = s
        .app
        .post("/v1/bloggers/track", &free, &json!({"platform": 3}))
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    let a = s
        .app
        .get("/v1/analytics/metrics/totals?group_by=week", Some(&free))
        .await;
    assert_nested_error(&a, 402, "PAID_PLAN_REQUIRED");
    // Malformed JSON is refused before the plan is looked at, as it was.
    let a = s
        .app
        .send_raw(
            Method::POST,
            "/v1/bloggers/track",
            Some(&free),
            "application/json",
            "{",
        )
        .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
}
