//! The alert-rule use cases (docs/api.md, "Alerts"): an organization's
//! rules created, listed, read, changed and deleted, and each rule's
//! firings listed. The public API's `/v1/alerts` and the dashboard's
//! `/dashboard/alerts` call them alike; each face checks the caller's role
//! and plan first. The worker evaluates the rules
//! (`vidpulse_worker::alerts`).

use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::patch::sent;
use vidpulse_notify::chat::{ChatClient, ChatKind, refused_chat_url};
use vidpulse_store::alerts::{
    AlertEvent, AlertRefusal, AlertRule, AlertRuleChanges, MAX_RULES, NewAlertRule,
};

use crate::app::rfc3339;
use crate::envelope::Pagination;
use crate::error::{ApiError, ErrorCode};
use crate::extract::PathParam;
use crate::input::{Bounded, Fault, Refusals, not_an_object, text};
use crate::state::AppState;

/// Longest rule name, in characters.
pub const NAME_MAX_CHARS: usize = 200;
/// Most thresholds of a milestone rule.
pub const MAX_THRESHOLDS: usize = 20;
/// Most channels of a rule.
pub const MAX_CHANNELS: usize = 10;
/// Most recipients of one e-mail channel.
pub const MAX_RECIPIENTS: usize = 50;
/// The kinds of rules.
pub const KINDS: [&str; 5] = [
    "views_milestone",
    "velocity",
    "outlier",
    "followers_milestone",
    "video_unavailable",
];

/// A rule as its organization sees it (chat URLs masked).
#[derive(Debug, Serialize, ToSchema)]
pub struct AlertView {
    /// Its id.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// `views_milestone`, `velocity`, `outlier`, `followers_milestone` or `video_unavailable`.
    pub kind: String,
    /// The campaign it watches; `null`: the whole organization.
    pub campaign_id: Option<Uuid>,
    /// That campaign's name.
    pub campaign_name: Option<String>,
    /// Its parameters, by kind.
    #[schema(value_type = Object)]
    pub params: Value,
    /// Its channels; chat URLs shown masked (`https://host/…abcd`).
    #[schema(value_type = Vec<Object>)]
    pub channels: Value,
    /// Whether the worker evaluates it.
    pub enabled: bool,
    /// When it last fired.
    pub last_fired_at: Option<String>,
    /// How many times it fired.
    pub events: i64,
    /// When the worker last evaluated it.
    pub evaluated_at: Option<String>,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
}

/// A chat URL as answers show it: scheme, host and its last 4 characters.
pub fn masked_url(url: &str) -> String {
    let tail: String = {
        let chars: Vec<char> = url.chars().collect();
        chars[chars.len().saturating_sub(4)..].iter().collect()
    };
    match url::Url::parse(url) {
        Ok(u) => format!(
            "{}://{}/…{tail}",
            u.scheme(),
            u.host_str().unwrap_or_default()
        ),
        Err(_) => format!("…{tail}"),
    }
}

/// `channels` with each chat URL masked.
fn masked_channels(channels: &Value) -> Value {
    let mut channels = channels.clone();
    if let Value::Array(list) = &mut channels {
        for channel in list {
            if let Some(Value::String(url)) = channel.get_mut("url") {
                *url = masked_url(url);
            }
        }
    }
    channels
}

impl From<AlertRule> for AlertView {
    fn from(r: AlertRule) -> Self {
        Self {
            id: r.id,
            name: r.name,
            kind: r.kind,
            campaign_id: r.campaign_id,
            campaign_name: r.campaign_name,
            params: r.params,
            channels: masked_channels(&r.channels),
            enabled: r.enabled,
            last_fired_at: r.last_fired_at.map(rfc3339),
            events: r.events,
            evaluated_at: r.evaluated_at.map(rfc3339),
            created_at: rfc3339(r.created_at),
            updated_at: rfc3339(r.updated_at),
        }
    }
}

/// One send of a firing.
#[derive(Debug, Serialize, ToSchema)]
pub struct AlertSendView {
    /// `email`, `slack`, `discord` or `webhooks`.
    pub channel: String,
    /// The address, or the chat URL masked; `""` for webhooks.
    pub target: String,
    /// `pending`, `sent` or `failed`.
    pub status: String,
    /// Attempts made.
    pub attempts: i64,
    /// The last failure.
    pub last_error: Option<String>,
    /// When it was sent.
    pub sent_at: Option<String>,
}

/// One firing of a rule.
#[derive(Debug, Serialize, ToSchema)]
pub struct AlertEventView {
    /// Its id.
    pub id: Uuid,
    /// The rule.
    pub rule_id: Uuid,
    /// The video's id (video rules) or the creator's id (`followers_milestone`).
    pub subject: String,
    /// The threshold that fired (milestones), or the condition (`velocity`, `outlier`, `unavailable`).
    pub threshold: String,
    /// When.
    pub fired_at: String,
    /// The text sent.
    pub message: String,
    /// The figures: video or creator, numbers, link.
    #[schema(value_type = Object)]
    pub details: Value,
    /// One per recipient and channel.
    pub sends: Vec<AlertSendView>,
}

impl From<AlertEvent> for AlertEventView {
    fn from(e: AlertEvent) -> Self {
        Self {
            id: e.id,
            rule_id: e.rule_id,
            subject: e.subject,
            threshold: e.threshold_key,
            fired_at: rfc3339(e.fired_at),
            message: e.message,
            details: e.details,
            sends: e
                .sends
                .into_iter()
                .map(|s| AlertSendView {
                    target: if s.channel == "slack" || s.channel == "discord" {
                        masked_url(&s.target)
                    } else {
                        s.target
                    },
                    channel: s.channel,
                    status: s.status,
                    attempts: s.attempts,
                    last_error: s.last_error,
                    sent_at: s.sent_at.map(rfc3339),
                })
                .collect(),
        }
    }
}

/// Body of a creation.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateAlert {
    /// Required: at most 200 characters.
    name: String,
    /// Required: `views_milestone`, `velocity`, `outlier`, `followers_milestone` or `video_unavailable`.
    kind: String,
    /// The campaign watched; absent or `null`: every video (or creator) of the organization.
    #[serde(default)]
    campaign_id: Option<Uuid>,
    /// By kind: `views_milestone` and `followers_milestone` `{thresholds: [whole numbers ≥ 1, increasing, at most 20]}`; `velocity` `{views: ≥ 1, hours: 1 to 168}`; `outlier` `{factor: a number > 1, min_videos: 3 or more (default 5)}`; `video_unavailable` `{}`.
    #[serde(default)]
    #[schema(value_type = Object)]
    params: Value,
    /// 1 to 10 channels: `{type: "email", to: [member user ids or e-mails]}`, `{type: "slack" | "discord", url}`, `{type: "webhooks"}` (the organization's webhooks get `alert.triggered`).
    #[schema(value_type = Vec<Object>)]
    channels: Value,
    /// Whether it is evaluated (default `true`).
    #[serde(default)]
    enabled: Option<bool>,
}

/// Body of a change: the fields sent change. `kind` cannot change.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateAlert {
    /// A new name.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    name: Option<String>,
    /// The campaign watched; `null`: the whole organization.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<Uuid>)]
    campaign_id: Option<Option<Uuid>>,
    /// New parameters (the rules of the rule's kind).
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = Object)]
    params: Option<Value>,
    /// New channels; a chat URL sent back masked, as answers show it, keeps the saved one.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = Vec<Object>)]
    channels: Option<Value>,
    /// `false` pauses the rule.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = bool)]
    enabled: Option<bool>,
}

/// The fields a body may hold, for the message on an unknown one.
const FIELDS: &str = "name, kind, campaign_id, params, channels, enabled";

/// The answer to a value of the wrong type, or a field no body has.
fn refuse_body(fault: &Fault<'_>) -> ApiError {
    let field = fault.field();
    let missing = fault.sent().is_none() || fault.sent() == Some(&Value::Null);
    let message = match field {
        "" => return not_an_object(),
        "name" | "kind" | "channels" if missing => format!("`{field}` is required"),
        "name" | "kind" => format!("`{field}` must be a string"),
        "campaign_id" => "`campaign_id` must be a campaign's id (a UUID) or null".to_owned(),
        "enabled" => "`enabled` must be true or false".to_owned(),
        "params" => "`params` must be an object".to_owned(),
        "channels" => "`channels` must be an array".to_owned(),
        unknown => format!("unknown field `{unknown}`; known: {FIELDS} (`kind` cannot change)"),
    };
    ApiError::validation(field, message)
}

impl Refusals for CreateAlert {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

impl Refusals for UpdateAlert {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

/// A checked name: trimmed, 1 to 200 characters.
fn checked_name(raw: &str) -> Result<String, ApiError> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(ApiError::validation("name", "`name` must not be empty"));
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(ApiError::validation(
            "name",
            format!("`name` must be at most {NAME_MAX_CHARS} characters"),
        ));
    }
    Ok(name.to_owned())
}

/// A checked kind.
fn checked_kind(raw: &str) -> Result<String, ApiError> {
    KINDS
        .iter()
        .find(|k| **k == raw)
        .map(|k| (*k).to_owned())
        .ok_or_else(|| {
            ApiError::validation(
                "kind",
                format!("`kind` must be one of {}", KINDS.join(", ")),
            )
        })
}

/// A whole number of `params.{key}` from `min` to `max`.
fn whole(params: &Map<String, Value>, key: &str, min: i64, max: i64) -> Result<i64, ApiError> {
    params
        .get(key)
        .and_then(Value::as_i64)
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            ApiError::validation(
                &format!("params.{key}"),
                format!("`params.{key}` must be a whole number from {min} to {max}"),
            )
        })
}

/// Refuses keys of `params` other than `known`.
fn only_keys(params: &Map<String, Value>, known: &[&str]) -> Result<(), ApiError> {
    match params.keys().find(|k| !known.contains(&k.as_str())) {
        Some(key) => Err(ApiError::validation(
            &format!("params.{key}"),
            format!(
                "unknown parameter `{key}`; known: {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        )),
        None => Ok(()),
    }
}

/// Checked thresholds: 1 to 20 whole numbers ≥ 1, increasing.
fn checked_thresholds(params: &Map<String, Value>) -> Result<Value, ApiError> {
    let field = "params.thresholds";
    let list = params.get("thresholds").and_then(Value::as_array);
    let Some(list) = list.filter(|l| (1..=MAX_THRESHOLDS).contains(&l.len())) else {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must be an array of 1 to {MAX_THRESHOLDS} whole numbers"),
        ));
    };
    let mut previous = 0;
    for (i, n) in list.iter().enumerate() {
        match n.as_i64() {
            Some(n) if n >= 1 && n > previous => previous = n,
            _ => {
                return Err(ApiError::validation(
                    &format!("{field}[{i}]"),
                    format!(
                        "`{field}` must be whole numbers of 1 or more, each greater than the one before"
                    ),
                ));
            }
        }
    }
    Ok(json!({ "thresholds": list }))
}

/// Checked parameters of a rule of `kind`, normalized (defaults filled in).
pub(crate) fn checked_params(kind: &str, params: &Value) -> Result<Value, ApiError> {
    let empty = Map::new();
    let params = match params {
        Value::Object(map) => map,
        Value::Null => &empty,
        _ => return Err(ApiError::validation("params", "`params` must be an object")),
    };
    match kind {
        "views_milestone" | "followers_milestone" => {
            only_keys(params, &["thresholds"])?;
            checked_thresholds(params)
        }
        "velocity" => {
            only_keys(params, &["views", "hours"])?;
            Ok(json!({
                "views": whole(params, "views", 1, i64::MAX)?,
                "hours": whole(params, "hours", 1, 168)?,
            }))
        }
        "outlier" => {
            only_keys(params, &["factor", "min_videos"])?;
            let factor = params
                .get("factor")
                .and_then(Value::as_f64)
                .filter(|f| f.is_finite() && *f > 1.0 && *f <= 1000.0)
                .ok_or_else(|| {
                    ApiError::validation(
                        "params.factor",
                        "`params.factor` must be a number greater than 1 (at most 1000)",
                    )
                })?;
            let min_videos = match params.get("min_videos") {
                None | Some(Value::Null) => 5,
                Some(_) => whole(params, "min_videos", 3, 100)?,
            };
            Ok(json!({ "factor": factor, "min_videos": min_videos }))
        }
        _ => {
            only_keys(params, &[])?;
            Ok(json!({}))
        }
    }
}

/// 422 for a recipient who is not a member.
fn not_a_member(field: &str, who: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::ValidationError,
        format!("`{who}` is not a member of the organization; e-mail alerts go to members only"),
    )
    .with_field(field)
}

/// Checked channels: 1 to 10; e-mail recipients resolved to members' user
/// ids; chat URLs checked (a masked URL of `saved` keeps the saved one).
async fn checked_channels(
    app: &AppState,
    org: OrgId,
    channels: &Value,
    saved: Option<&Value>,
) -> Result<Value, ApiError> {
    let Some(list) = channels
        .as_array()
        .filter(|l| (1..=MAX_CHANNELS).contains(&l.len()))
    else {
        return Err(ApiError::validation(
            "channels",
            format!("`channels` must be an array of 1 to {MAX_CHANNELS} channels"),
        ));
    };
    let members = app.store.members(org).await?;
    let mut out = Vec::with_capacity(list.len());
    let mut webhooks = false;
    for (i, channel) in list.iter().enumerate() {
        let at = format!("channels[{i}]");
        let kind = channel.get("type").and_then(Value::as_str).unwrap_or("");
        let keys: Vec<&str> = channel
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let allowed: &[&str] = match kind {
            "email" => &["type", "to"],
            "slack" | "discord" => &["type", "url"],
            "webhooks" => &["type"],
            _ => {
                return Err(ApiError::validation(
                    &format!("{at}.type"),
                    format!("`{at}.type` must be email, slack, discord or webhooks"),
                ));
            }
        };
        if let Some(key) = keys.iter().find(|k| !allowed.contains(k)) {
            return Err(ApiError::validation(
                &format!("{at}.{key}"),
                format!(
                    "unknown field `{key}` of a {kind} channel; known: {}",
                    allowed.join(", ")
                ),
            ));
        }
        match kind {
            "email" => {
                let Some(to) = channel
                    .get("to")
                    .and_then(Value::as_array)
                    .filter(|t| (1..=MAX_RECIPIENTS).contains(&t.len()))
                else {
                    return Err(ApiError::validation(
                        &format!("{at}.to"),
                        format!(
                            "`{at}.to` must be an array of 1 to {MAX_RECIPIENTS} members' user ids or e-mail addresses"
                        ),
                    ));
                };
                let mut ids: Vec<String> = Vec::new();
                for (j, who) in to.iter().enumerate() {
                    let field = format!("{at}.to[{j}]");
                    let Some(who) = who.as_str().map(str::trim) else {
                        return Err(ApiError::validation(
                            &field,
                            format!("`{field}` must be a user id or an e-mail address"),
                        ));
                    };
                    let member = members.iter().find(|m| {
                        m.user_id.0.to_string() == who.to_ascii_lowercase()
                            || m.email.eq_ignore_ascii_case(who)
                    });
                    let Some(member) = member else {
                        return Err(not_a_member(&field, who));
                    };
                    let id = member.user_id.0.to_string();
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                out.push(json!({"type": "email", "to": ids}));
            }
            "slack" | "discord" => {
                let field = format!("{at}.url");
                let Some(url) = channel.get("url").and_then(Value::as_str).map(str::trim) else {
                    return Err(ApiError::validation(
                        &field,
                        format!("`{field}` must be the chat's incoming-webhook URL"),
                    ));
                };
                let kept = saved.and_then(Value::as_array).and_then(|s| {
                    s.iter()
                        .filter(|c| c["type"] == kind)
                        .filter_map(|c| c["url"].as_str())
                        .find(|u| masked_url(u) == url)
                });
                let url = match kept {
                    Some(kept) => kept.to_owned(),
                    None => {
                        if let Some(why) = refused_chat_url(url, app.config.webhook_allow_private) {
                            return Err(ApiError::validation(
                                &field,
                                format!("`{field}` is refused: {why}"),
                            ));
                        }
                        url.to_owned()
                    }
                };
                out.push(json!({"type": kind, "url": url}));
            }
            _ => {
                if webhooks {
                    return Err(ApiError::validation(
                        &at,
                        "`webhooks` may be given once".to_owned(),
                    ));
                }
                webhooks = true;
                out.push(json!({"type": "webhooks"}));
            }
        }
    }
    Ok(Value::Array(out))
}

/// The answer for a rule the organization does not have.
pub(crate) fn alert_not_found() -> ApiError {
    ApiError::not_found("No such alert rule")
}

/// The rule id of a path (an unparsable one is not found).
pub(crate) fn alert_id(path: Result<PathParam, ApiError>) -> Result<Uuid, ApiError> {
    path.ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .ok_or_else(alert_not_found)
}

/// The answer to a refused write.
fn refused(refusal: AlertRefusal) -> ApiError {
    match refusal {
        AlertRefusal::NotFound => alert_not_found(),
        AlertRefusal::CampaignNotFound => ApiError::validation(
            "campaign_id",
            "`campaign_id` is not a campaign of the organization",
        ),
        AlertRefusal::TooMany => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::ValidationError,
            format!("The organization has {MAX_RULES} alert rules already; delete one first"),
        ),
    }
}

/// How long a rule's test waits before the next one (per API node).
pub const TEST_COOLDOWN_SECS: u64 = 30;

/// How a test message went to one channel.
#[derive(Debug, Serialize, ToSchema)]
pub struct AlertTestSend {
    /// `email`, `slack`, `discord` or `webhooks`.
    pub channel: &'static str,
    /// The address, or the chat URL masked; `""` for webhooks.
    pub target: String,
    /// `sent`, `failed`, or `skipped` (webhooks: they have a test of their own).
    pub status: &'static str,
    /// Why it failed or was skipped.
    pub error: Option<String>,
}

/// `data` of a test: each channel's outcome.
#[derive(Debug, Serialize, ToSchema)]
pub struct AlertTest {
    /// The rule tested.
    pub id: Uuid,
    /// One entry per recipient or chat.
    pub sends: Vec<AlertTestSend>,
}

/// Sends a test message to every channel of `org`'s rule `id` now, and
/// says how each went. Nothing is recorded as a firing. One test per rule
/// every [`TEST_COOLDOWN_SECS`] (429 with `Retry-After`).
pub(crate) async fn test_alert(
    app: &AppState,
    org: OrgId,
    id: Uuid,
) -> Result<AlertTest, ApiError> {
    let rule = rule_of(app, org, id).await?;
    // Taken in one step, so two requests at once cannot both pass.
    if !app.alert_tests.entry(id).or_insert(()).is_fresh() {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimitExceeded,
            format!("This rule was tested moments ago; test it again in {TEST_COOLDOWN_SECS} s"),
        )
        .with_retry_after(TEST_COOLDOWN_SECS));
    }
    let subject = format!("vidpulse: a test of the alert rule “{}”", rule.name);
    let text = format!(
        "This is a test from vidpulse. The alert rule “{}” sends its alerts here when it fires.",
        rule.name
    );
    let members = app.store.members(org).await?;
    let chat = ChatClient::new(
        app.config.webhook_allow_private,
        std::time::Duration::from_secs(10),
    );
    let mut sends = Vec::new();
    for channel in rule.channels.as_array().into_iter().flatten() {
        match channel["type"].as_str().unwrap_or_default() {
            "email" => {
                let ids = channel["to"].as_array().into_iter().flatten();
                for who in ids.filter_map(Value::as_str) {
                    let Some(member) = members.iter().find(|m| m.user_id.0.to_string() == who)
                    else {
                        continue;
                    };
                    let sent = app
                        .mailer
                        .send(&member.email, subject.clone(), text.clone())
                        .await;
                    sends.push(outcome("email", member.email.clone(), sent));
                }
            }
            kind @ ("slack" | "discord") => {
                let url = channel["url"].as_str().unwrap_or_default();
                let sent = match (&chat, kind.parse::<ChatKind>()) {
                    (Ok(chat), Ok(kind)) => chat.post(kind, url, &text).await,
                    (Err(e), _) => Err(e.to_string()),
                    (_, Err(e)) => Err(e),
                };
                let channel = if kind == "slack" { "slack" } else { "discord" };
                sends.push(outcome(channel, masked_url(url), sent));
            }
            _ => sends.push(AlertTestSend {
                channel: "webhooks",
                target: String::new(),
                status: "skipped",
                error: Some(
                    "Webhook endpoints have a test of their own (POST /v1/webhooks/{id}/test)"
                        .into(),
                ),
            }),
        }
    }
    Ok(AlertTest { id, sends })
}

/// The entry of one test send.
fn outcome(channel: &'static str, target: String, sent: Result<(), String>) -> AlertTestSend {
    let (status, error) = match sent {
        Ok(()) => ("sent", None),
        Err(e) => ("failed", Some(e)),
    };
    AlertTestSend {
        channel,
        target,
        status,
        error,
    }
}

/// `data` of a deletion.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    /// The rule deleted.
    pub id: Uuid,
    /// Always `true`.
    pub deleted: bool,
}

/// Creates a rule for `org` from `body`.
pub(crate) async fn create_alert(
    app: &AppState,
    org: OrgId,
    body: CreateAlert,
) -> Result<AlertView, ApiError> {
    let name = checked_name(&body.name)?;
    let kind = checked_kind(&body.kind)?;
    let params = checked_params(&kind, &body.params)?;
    let channels = checked_channels(app, org, &body.channels, None).await?;
    let new = NewAlertRule {
        campaign_id: body.campaign_id,
        name,
        kind,
        params,
        channels,
        enabled: body.enabled.unwrap_or(true),
    };
    match app
        .store
        .create_alert_rule(org, new, app.clock.now())
        .await?
    {
        Ok(rule) => Ok(rule.into()),
        Err(refusal) => Err(refused(refusal)),
    }
}

/// `org`'s rules, oldest first.
pub(crate) async fn list_alerts(app: &AppState, org: OrgId) -> Result<Vec<AlertView>, ApiError> {
    Ok(app
        .store
        .alert_rules(org)
        .await?
        .into_iter()
        .map(AlertView::from)
        .collect())
}

/// `org`'s rule `id`.
async fn rule_of(app: &AppState, org: OrgId, id: Uuid) -> Result<AlertRule, ApiError> {
    app.store
        .alert_rule(org, id)
        .await?
        .ok_or_else(alert_not_found)
}

/// `org`'s rule `id`, as shown.
pub(crate) async fn read_alert(
    app: &AppState,
    org: OrgId,
    id: Uuid,
) -> Result<AlertView, ApiError> {
    Ok(rule_of(app, org, id).await?.into())
}

/// Applies `body` to `org`'s rule `id`.
pub(crate) async fn update_alert(
    app: &AppState,
    org: OrgId,
    id: Uuid,
    body: UpdateAlert,
) -> Result<AlertView, ApiError> {
    if body.name.is_none()
        && body.campaign_id.is_none()
        && body.params.is_none()
        && body.channels.is_none()
        && body.enabled.is_none()
    {
        return Err(ApiError::validation(
            "body",
            "at least one of name, campaign_id, params, channels, enabled is required",
        ));
    }
    let rule = rule_of(app, org, id).await?;
    let channels = match &body.channels {
        Some(c) => Some(checked_channels(app, org, c, Some(&rule.channels)).await?),
        None => None,
    };
    let changes = AlertRuleChanges {
        name: body.name.as_deref().map(checked_name).transpose()?,
        campaign_id: body.campaign_id,
        params: body
            .params
            .as_ref()
            .map(|p| checked_params(&rule.kind, p))
            .transpose()?,
        channels,
        enabled: body.enabled,
    };
    match app
        .store
        .update_alert_rule(org, id, changes, app.clock.now())
        .await?
    {
        Ok(rule) => Ok(rule.into()),
        Err(refusal) => Err(refused(refusal)),
    }
}

/// Deletes `org`'s rule `id` and its firings.
pub(crate) async fn delete_alert(
    app: &AppState,
    org: OrgId,
    id: Uuid,
) -> Result<Deleted, ApiError> {
    if !app.store.delete_alert_rule(org, id).await? {
        return Err(alert_not_found());
    }
    Ok(Deleted { id, deleted: true })
}

/// The firings listing's query.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AlertEventsParams {
    /// Firings per page, 1 to 100 (default 50)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 50)]
    limit: Option<Bounded<1, 100>>,
    /// Firings skipped, 0 or more (default 0)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>, minimum = 0, default = 0)]
    offset: Option<Bounded<0, { i64::MAX }>>,
}

impl Refusals for AlertEventsParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let field = fault.field();
        let message = match field {
            "limit" => "`limit` must be a whole number from 1 to 100".to_owned(),
            "offset" => "`offset` must be a whole number of 0 or more".to_owned(),
            unknown => format!("Unknown query parameter `{unknown}`; known: limit, offset"),
        };
        ApiError::validation(field, message)
    }
}

/// A page of the firings of `org`'s rule `id`, newest first.
pub(crate) async fn alert_events(
    app: &AppState,
    org: OrgId,
    id: Uuid,
    params: AlertEventsParams,
) -> Result<(Vec<AlertEventView>, Pagination), ApiError> {
    rule_of(app, org, id).await?;
    let limit = params.limit.map_or(50, |Bounded(n)| n);
    let offset = params.offset.map_or(0, |Bounded(n)| n);
    let (events, total) = app.store.alert_events(org, id, limit, offset).await?;
    Ok((
        events.into_iter().map(AlertEventView::from).collect(),
        Pagination::of(total, limit, offset),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_urls_are_masked() {
        assert_eq!(
            masked_url("https://hooks.slack.com/services/T000/B000/abcdWXYZ"),
            "https://hooks.slack.com/…WXYZ"
        );
    }

    #[test]
    fn params_are_checked_by_kind() {
        let ok = |k: &str, p: Value| checked_params(k, &p).unwrap();
        let err = |k: &str, p: Value| {
            checked_params(k, &p)
                .unwrap_err()
                .field
                .clone()
                .unwrap_or_default()
        };
        assert_eq!(
            ok("views_milestone", json!({"thresholds": [10, 100]})),
            json!({"thresholds": [10, 100]})
        );
        assert_eq!(
            err("views_milestone", json!({"thresholds": [10, 10]})),
            "params.thresholds[1]"
        );
        assert_eq!(err("views_milestone", json!({})), "params.thresholds");
        assert_eq!(
            err("velocity", json!({"views": 5, "hours": 169})),
            "params.hours"
        );
        assert_eq!(
            ok("outlier", json!({"factor": 3})),
            json!({"factor": 3.0, "min_videos": 5})
        );
        assert_eq!(err("outlier", json!({"factor": 1})), "params.factor");
        assert_eq!(err("video_unavailable", json!({"x": 1})), "params.x");
    }
}
