//! Scheduled recaps (docs/api.md, "Recaps"): a member's daily or weekly
//! recap of a campaign or of the whole organization, e-mailed to them, and
//! the organization's recaps posted to a Slack or Discord channel. The
//! worker sends them (`vidpulse_worker::recaps`).
//!
//! Who may do what, in the dashboard: any member lists their own e-mail
//! recaps and the organization's channel recaps; any member subscribes
//! themselves (a paid plan); editors and above add, change and remove
//! channel recaps; a member's e-mail recap is theirs alone (another
//! member's answers 404, as an unknown id does). An API key acts for the
//! organization: it sees and manages every recap, and subscribes a member
//! by naming them (`member`). Stopping a recap needs no paid plan.

use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::identity::Role;
use vidpulse_domain::patch::sent;
use vidpulse_domain::{CampaignId, OrgId, UserId};
use vidpulse_notify::chat::refused_chat_url;
use vidpulse_store::{
    ChatTarget, Frequency, Member, NewRecap, RecapChange, RecapRefusal, RecapSubscription,
    RecapTarget,
};

use crate::app::rfc3339;
use crate::auth::ApiKeyAuth;
use crate::dashboard::access::OrgAuth;
use crate::error::{ApiError, ErrorCode};
use crate::extract::PathParam;
use crate::input::{Fault, Refusals, not_an_object};
use crate::state::AppState;

/// Longest chat URL, in characters.
pub const URL_MAX_CHARS: usize = 2048;

/// A recap subscription as the caller sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecapView {
    /// Its id.
    pub id: Uuid,
    /// `email` (to the member), `slack` or `discord` (a channel post).
    pub delivery: &'static str,
    /// The member's address (an e-mail recap; `null` in an API key's view
    /// when the member has left the organization: such a recap is not sent).
    pub email: Option<String>,
    /// The channel's incoming-webhook URL, masked (`https://host/…abcd`).
    pub channel_url: Option<String>,
    /// The campaign covered; `null`: the whole organization.
    pub campaign_id: Option<Uuid>,
    /// `daily` (the day before, sent from 06:00 UTC) or `weekly` (Monday to
    /// Sunday, sent on Monday from 06:00 UTC).
    pub frequency: &'static str,
    /// The first day of the last period sent.
    pub last_period_start: Option<String>,
    /// When it was last sent.
    pub last_sent_at: Option<String>,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
}

/// `url` as answers show it: scheme, host and its last 4 characters.
pub fn masked_url(url: &str) -> String {
    let tail: String = {
        let chars: Vec<char> = url.chars().collect();
        chars[chars.len().saturating_sub(4)..].iter().collect()
    };
    match url::Url::parse(url) {
        Ok(parsed) => format!(
            "{}://{}/…{tail}",
            parsed.scheme(),
            parsed.host_str().unwrap_or_default()
        ),
        Err(_) => format!("…{tail}"),
    }
}

/// Who acts on recaps: a member in the dashboard, or an API key for the
/// whole organization.
#[derive(Clone, Copy)]
pub(crate) enum Actor<'a> {
    /// A signed-in member: their own e-mail recaps, channel recaps by role.
    Member(&'a OrgAuth),
    /// An API key: every recap of its organization.
    Key(&'a ApiKeyAuth),
}

impl Actor<'_> {
    /// The organization acted in.
    fn org(self) -> OrgId {
        match self {
            Actor::Member(auth) => auth.org,
            Actor::Key(auth) => auth.org.id,
        }
    }

    /// Refuses a member below `needed`; a key may do anything its
    /// organization may.
    fn require(self, needed: Role) -> Result<(), ApiError> {
        match self {
            Actor::Member(auth) => auth.require(needed),
            Actor::Key(_) => Ok(()),
        }
    }

    /// Refuses with 402 on the free plan.
    async fn require_paid(self, app: &AppState) -> Result<(), ApiError> {
        match self {
            Actor::Member(auth) => auth.require_paid_plan(app).await,
            Actor::Key(auth) => auth.require_paid_plan(&app.config.upgrade_url),
        }
    }

    /// The members' addresses the views show: the caller's own for a
    /// member, every member's for a key.
    async fn addresses(self, app: &AppState) -> Result<Vec<(UserId, String)>, ApiError> {
        Ok(match self {
            Actor::Member(auth) => vec![(auth.user.id, auth.user.email.clone())],
            Actor::Key(auth) => app
                .store
                .members(auth.org.id)
                .await?
                .into_iter()
                .map(|m| (m.user_id, m.email))
                .collect(),
        })
    }
}

/// The view of `sub`, with an e-mail recap's address from `addresses`.
fn view(sub: RecapSubscription, addresses: &[(UserId, String)]) -> RecapView {
    let (delivery, email, channel_url) = match &sub.target {
        RecapTarget::Email(user) => (
            "email",
            addresses
                .iter()
                .find(|(id, _)| id == user)
                .map(|(_, email)| email.clone()),
            None,
        ),
        RecapTarget::Chat(chat) => (
            if chat.kind == "discord" {
                "discord"
            } else {
                "slack"
            },
            None,
            Some(masked_url(&chat.url)),
        ),
    };
    RecapView {
        id: sub.id,
        delivery,
        email,
        channel_url,
        campaign_id: sub.campaign_id.map(|c| c.0),
        frequency: sub.frequency.as_str(),
        last_period_start: sub.last_sent.map(|(day, _)| day.to_string()),
        last_sent_at: sub.last_sent.map(|(_, at)| rfc3339(at)),
        created_at: rfc3339(sub.created_at),
        updated_at: rfc3339(sub.updated_at),
    }
}

/// A channel to post to.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChannelBody {
    /// `slack` or `discord`.
    #[serde(rename = "type")]
    kind: String,
    /// The channel's incoming-webhook URL (http or https, a public address, at most 2048 characters).
    url: String,
}

/// Body of a subscription.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRecap {
    /// Required: `daily` or `weekly`.
    frequency: String,
    /// The campaign to recap; absent or `null`: the whole organization.
    #[serde(default)]
    campaign_id: Option<Uuid>,
    /// Post to this channel (editors and above) instead of e-mailing a member.
    #[serde(default)]
    channel: Option<ChannelBody>,
    /// The member to e-mail (a user id or e-mail address): required with an
    /// API key unless `channel` is sent; in the dashboard it can only be the
    /// caller (the default).
    #[serde(default)]
    member: Option<String>,
}

/// Body of a change: the fields sent change.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateRecap {
    /// `daily` or `weekly`.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    frequency: Option<String>,
    /// The campaign to recap; `null`: the whole organization.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<Uuid>)]
    campaign_id: Option<Option<Uuid>>,
    /// A new incoming-webhook URL (channel recaps only).
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    channel_url: Option<String>,
}

/// The answer to a value of the wrong type, or a field no body has.
fn refuse_body(fault: &Fault<'_>) -> ApiError {
    let field = fault.field();
    let message = match field {
        "" => return not_an_object(),
        "frequency" if matches!(fault.sent(), None | Some(Value::Null)) => {
            "`frequency` is required".to_owned()
        }
        "frequency" => "`frequency` must be daily or weekly".to_owned(),
        "campaign_id" => "`campaign_id` must be a campaign's id (a UUID string) or null".to_owned(),
        "channel" => {
            return ApiError::validation(
                &fault.path(),
                "`channel` must be an object {\"type\": \"slack\" or \"discord\", \"url\": \"https://…\"}",
            );
        }
        "channel_url" => "`channel_url` must be a string".to_owned(),
        "member" => "`member` must be a member's user id or e-mail address".to_owned(),
        unknown => format!(
            "unknown field `{unknown}`; known: frequency, campaign_id, channel, member (new recaps), channel_url (changes)"
        ),
    };
    ApiError::validation(field, message)
}

impl Refusals for CreateRecap {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

impl Refusals for UpdateRecap {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

/// A checked frequency.
fn checked_frequency(raw: &str) -> Result<Frequency, ApiError> {
    Frequency::parse(raw.trim()).ok_or_else(|| {
        ApiError::validation(
            "frequency",
            format!("`frequency` must be daily or weekly; got `{}`", raw.trim()),
        )
    })
}

/// A checked chat URL of `field`.
fn checked_url(app: &AppState, field: &str, raw: &str) -> Result<String, ApiError> {
    let url = raw.trim();
    if url.is_empty() || url.chars().count() > URL_MAX_CHARS {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must be 1 to {URL_MAX_CHARS} characters"),
        ));
    }
    if let Some(why) = refused_chat_url(url, app.config.webhook_allow_private) {
        return Err(ApiError::validation(
            field,
            format!("`{field}` is refused: {why}"),
        ));
    }
    Ok(url.to_owned())
}

/// A checked channel.
fn checked_channel(app: &AppState, channel: &ChannelBody) -> Result<ChatTarget, ApiError> {
    let kind = channel.kind.trim();
    if kind != "slack" && kind != "discord" {
        return Err(ApiError::validation(
            "channel.type",
            format!("`channel.type` must be slack or discord; got `{kind}`"),
        ));
    }
    Ok(ChatTarget {
        kind: kind.to_owned(),
        url: checked_url(app, "channel.url", &channel.url)?,
    })
}

/// 404 for a recap the caller cannot see.
fn recap_not_found() -> ApiError {
    ApiError::not_found("No such recap")
}

/// 404 for a campaign the organization does not have.
fn campaign_not_found() -> ApiError {
    ApiError::not_found("No such campaign").with_field("campaign_id")
}

/// 400 for an e-mail recap the member has already.
fn already_subscribed(existing: &RecapSubscription) -> ApiError {
    ApiError::validation(
        "frequency",
        format!(
            "The member has a {} recap of this scope already (id {})",
            existing.frequency.as_str(),
            existing.id
        ),
    )
}

/// The member `who` (a user id or an e-mail address) names, among `members`.
fn named_member<'m>(members: &'m [Member], who: &str) -> Result<&'m Member, ApiError> {
    let who = who.trim();
    members
        .iter()
        .find(|m| m.user_id.0.to_string() == who.to_ascii_lowercase() || m.email.eq_ignore_ascii_case(who))
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::ValidationError,
                format!("`{who}` is not a member of the organization; recaps are e-mailed to members only"),
            )
            .with_field("member")
        })
}

/// Who an e-mail recap goes to: the caller in the dashboard (`member` may
/// name only them), the member `member` names with a key.
async fn recipient(
    app: &AppState,
    actor: Actor<'_>,
    member: Option<&str>,
) -> Result<UserId, ApiError> {
    match (actor, member) {
        (Actor::Member(auth), None) => Ok(auth.user.id),
        (Actor::Member(auth), Some(who)) => {
            let who = who.trim();
            if who.eq_ignore_ascii_case(&auth.user.email)
                || who.eq_ignore_ascii_case(&auth.user.id.0.to_string())
            {
                Ok(auth.user.id)
            } else {
                Err(ApiError::validation(
                    "member",
                    "In the app a member subscribes only themselves; leave `member` out",
                ))
            }
        }
        (Actor::Key(_), None) => Err(ApiError::validation(
            "member",
            "`member` is required: the member to e-mail (a user id or e-mail address), or send `channel`",
        )),
        (Actor::Key(auth), Some(who)) => {
            let members = app.store.members(auth.org.id).await?;
            Ok(named_member(&members, who)?.user_id)
        }
    }
}

/// The recap id of a path (an unparsable one is not found).
pub(crate) fn recap_id(path: Result<PathParam, ApiError>) -> Result<Uuid, ApiError> {
    path.ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .ok_or_else(recap_not_found)
}

/// The recaps `actor` sees: a member's own e-mail recaps and the
/// organization's channel recaps; every recap for a key.
pub(crate) async fn list_recaps(
    app: &AppState,
    actor: Actor<'_>,
) -> Result<Vec<RecapView>, ApiError> {
    let user = match actor {
        Actor::Member(auth) => Some(auth.user.id),
        Actor::Key(_) => None,
    };
    let subs = app.store.recaps_of(actor.org(), user).await?;
    let addresses = actor.addresses(app).await?;
    Ok(subs.into_iter().map(|s| view(s, &addresses)).collect())
}

/// Subscribes a member (or, with `channel`, a channel); an e-mail recap
/// the member has already is answered as it is, with `false`.
pub(crate) async fn create_recap(
    app: &AppState,
    actor: Actor<'_>,
    body: CreateRecap,
) -> Result<(RecapView, bool), ApiError> {
    let frequency = checked_frequency(&body.frequency)?;
    let target = match (&body.channel, &body.member) {
        (Some(_), Some(_)) => {
            return Err(ApiError::validation(
                "member",
                "Send `member` (an e-mail recap) or `channel` (a channel recap), not both",
            ));
        }
        (Some(channel), None) => {
            actor.require(Role::Editor)?;
            RecapTarget::Chat(checked_channel(app, channel)?)
        }
        (None, member) => RecapTarget::Email(recipient(app, actor, member.as_deref()).await?),
    };
    actor.require_paid(app).await?;
    let new = NewRecap {
        target,
        campaign_id: body.campaign_id.map(CampaignId),
        frequency,
        created_by: match actor {
            Actor::Member(auth) => Some(auth.user.id),
            Actor::Key(_) => None,
        },
    };
    let answer = app
        .store
        .create_recap(actor.org(), new, app.clock.now())
        .await?;
    let addresses = actor.addresses(app).await?;
    match answer {
        Ok(created) => Ok((view(created, &addresses), true)),
        Err(RecapRefusal::Exists(existing)) => Ok((view(*existing, &addresses), false)),
        Err(RecapRefusal::CampaignNotFound) => Err(campaign_not_found()),
        Err(RecapRefusal::NotFound) => Err(ApiError::not_found("No such organization")),
    }
}

/// The recap `id` if `actor` may change it: a member's own e-mail recap,
/// a channel recap for editors and above; any recap for a key.
async fn changeable(
    app: &AppState,
    actor: Actor<'_>,
    id: Uuid,
) -> Result<RecapSubscription, ApiError> {
    let sub = app
        .store
        .recap(actor.org(), id)
        .await?
        .ok_or_else(recap_not_found)?;
    match (&sub.target, actor) {
        (RecapTarget::Email(user), Actor::Member(auth)) if *user != auth.user.id => {
            Err(recap_not_found())
        }
        (RecapTarget::Email(_), _) => Ok(sub),
        (RecapTarget::Chat(_), _) => {
            actor.require(Role::Editor)?;
            Ok(sub)
        }
    }
}

/// Changes the recap `id`.
pub(crate) async fn update_recap(
    app: &AppState,
    actor: Actor<'_>,
    id: Uuid,
    body: UpdateRecap,
) -> Result<RecapView, ApiError> {
    let frequency = body
        .frequency
        .as_deref()
        .map(checked_frequency)
        .transpose()?;
    let current = changeable(app, actor, id).await?;
    let chat_url = match (&body.channel_url, &current.target) {
        (None, _) => None,
        (Some(url), RecapTarget::Chat(_)) => Some(checked_url(app, "channel_url", url)?),
        (Some(_), RecapTarget::Email(_)) => {
            return Err(ApiError::validation(
                "channel_url",
                "`channel_url` changes a channel recap; this one is e-mailed",
            ));
        }
    };
    actor.require_paid(app).await?;
    let change = RecapChange {
        frequency,
        campaign_id: body.campaign_id.map(|c| c.map(CampaignId)),
        chat_url,
    };
    match app
        .store
        .update_recap(actor.org(), id, change, app.clock.now())
        .await?
    {
        Ok(updated) => Ok(view(updated, &actor.addresses(app).await?)),
        Err(RecapRefusal::Exists(existing)) => Err(already_subscribed(&existing)),
        Err(RecapRefusal::CampaignNotFound) => Err(campaign_not_found()),
        Err(RecapRefusal::NotFound) => Err(recap_not_found()),
    }
}

/// `data` of a deletion.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecapDeleted {
    /// The recap stopped.
    pub id: Uuid,
    /// Always `true`.
    pub deleted: bool,
}

/// Stops the recap `id`.
pub(crate) async fn delete_recap(
    app: &AppState,
    actor: Actor<'_>,
    id: Uuid,
) -> Result<RecapDeleted, ApiError> {
    changeable(app, actor, id).await?;
    if !app.store.delete_recap(actor.org(), id).await? {
        return Err(recap_not_found());
    }
    Ok(RecapDeleted { id, deleted: true })
}

#[cfg(test)]
mod tests {
    use super::masked_url;

    #[test]
    fn urls_are_masked_to_scheme_host_and_last_four() {
        assert_eq!(
            masked_url("https://hooks.slack.com/services/T0/B0/abcdWXYZ"),
            "https://hooks.slack.com/…WXYZ"
        );
        assert_eq!(masked_url("abc"), "…abc");
    }
}
