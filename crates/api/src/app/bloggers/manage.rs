//! Managing a tracked creator (docs/api.md, "Creators": PATCH and DELETE
//! /v1/bloggers/by-username/{username}): its settings, with the rules of
//! the dashboard's blogger endpoints (toggle, set-campaign,
//! set-budget-per-video, set-tags, the adds' daily count), all written in
//! one transaction; and untracking it, its videos kept. Here too the
//! answers both interfaces word alike.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::names::{self, TAG_MAX_CHARS, TagName};
use vidpulse_domain::patch::sent;
use vidpulse_domain::plan::MAX_DAILY_VIDEOS;
use vidpulse_store::{AccountChange, BloggerChanges, TrackedAccount};

use super::job::creator_cap_reached;
use super::tracked::not_tracked;
use crate::error::ApiError;
use crate::input::{Bounded, Campaign, Fault, Refusals, bad_campaign};
use crate::state::AppState;

/// Most tags on one creator.
pub const MAX_TAGS: usize = 50;

/// 0 to [`MAX_TAGS`] tag names, each trimmed and 1 to 80 characters; names
/// that differ only by letter case are one tag (the first spelling sent
/// names a tag it creates).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagNames(pub Vec<TagName>);

impl<'de> Deserialize<'de> for TagNames {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let sent = Vec::<String>::deserialize(deserializer)?;
        if sent.len() > MAX_TAGS {
            return Err(de::Error::invalid_length(sent.len(), &"fewer tags"));
        }
        let mut names: Vec<TagName> = Vec::with_capacity(sent.len());
        for raw in &sent {
            let name = TagName::parse(raw).map_err(de::Error::custom)?;
            if !names.iter().any(|n| n.key() == name.key()) {
                names.push(name);
            }
        }
        Ok(TagNames(names))
    }
}

/// Body of `PATCH /v1/bloggers/by-username/{username}`: the fields to
/// change, at least one; an absent field stays as it is, a field not named
/// here is refused.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BloggerPatch {
    /// `false` pauses the creator (no more daily discovery; its videos keep
    /// their tracking), `true` resumes it.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = Option<bool>)]
    is_active: Option<bool>,
    /// The campaign its new videos get (videos tracked already keep
    /// theirs): trimmed, at most 200 characters of letters, digits, spaces
    /// and `- _ . ( ) | : % &`, the organization's campaign of that name in
    /// any letter case (created when it has none); `""` or `null` clears.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<String>, max_length = 200)]
    campaign: Option<Option<Campaign>>,
    /// Its tags from now on, 0 to 50 names of 1 to 80 characters, matched
    /// ignoring case, unknown names created; `[]` clears. Its videos lose the
    /// tags taken off and get the ones put on; its future videos get them.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = Option<Vec<String>>, max_items = 50)]
    tags: Option<TagNames>,
    /// New videos its daily discovery tracks at most, 0 to 50; `null`: the
    /// service's default (5).
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 50)]
    daily_videos_count: Option<Option<Bounded<0, MAX_DAILY_VIDEOS>>>,
    /// The budget each of its new videos gets, a whole number above 0;
    /// `null` clears.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<i64>, minimum = 1)]
    budget_per_video: Option<Option<Bounded<1, { i64::MAX }>>>,
}

impl Refusals for BloggerPatch {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "" => ApiError::validation("body", "The body must be a JSON object"),
            "is_active" => bad_is_active(),
            "campaign" => bad_campaign(fault.sent()),
            "tags" => bad_tag_names(fault.sent_in("tags")),
            "daily_videos_count" => bad_daily_count(),
            "budget_per_video" => bad_budget(),
            unknown => ApiError::validation(
                unknown,
                format!(
                    "unknown field `{unknown}`: send is_active, campaign, tags, \
                     daily_videos_count or budget_per_video"
                ),
            ),
        }
    }
}

/// The answer to an `is_active` that is not a boolean.
pub(crate) fn bad_is_active() -> ApiError {
    ApiError::validation("is_active", "`is_active` must be true or false")
}

/// The answer to a `daily_videos_count` out of its bounds.
pub(crate) fn bad_daily_count() -> ApiError {
    ApiError::validation(
        "daily_videos_count",
        format!(
            "`daily_videos_count` must be a whole number from 0 to {MAX_DAILY_VIDEOS}, or null"
        ),
    )
}

/// The answer to a `budget_per_video` that is not a whole number above 0.
pub(crate) fn bad_budget() -> ApiError {
    ApiError::validation(
        "budget_per_video",
        "`budget_per_video` must be a whole number greater than 0, or null",
    )
}

/// The answer to faulty tag names, which were `sent`.
fn bad_tag_names(sent: Option<&Value>) -> ApiError {
    let message = match sent {
        Some(Value::Array(names)) if names.len() > MAX_TAGS => {
            format!("`tags` must have at most {MAX_TAGS} names")
        }
        _ => format!(
            "`tags` must be an array of names, each 1 to {TAG_MAX_CHARS} characters once trimmed"
        ),
    };
    ApiError::validation("tags", message)
}

impl BloggerPatch {
    /// The changes the body asks for, or 400 naming the body when it asks
    /// for none.
    fn changes(self) -> Result<BloggerChanges, ApiError> {
        let campaign = match self.campaign {
            // Checked when read: the name parses again.
            Some(Some(Campaign(Some(name)))) => Some(
                names::Campaign::parse(&name)
                    .map_err(|_| bad_campaign(Some(&Value::String(name))))?,
            ),
            Some(_) => Some(None),
            None => None,
        };
        let changes = BloggerChanges {
            is_active: self.is_active,
            campaign,
            daily_videos_count: self.daily_videos_count.map(|n| n.map(|Bounded(n)| n)),
            budget_per_video: self.budget_per_video.map(|b| b.map(|Bounded(b)| b)),
            tags: self.tags.map(|TagNames(names)| names),
        };
        if changes == BloggerChanges::default() {
            return Err(ApiError::validation(
                "body",
                "Send at least one of is_active, campaign, tags, daily_videos_count, budget_per_video",
            ));
        }
        Ok(changes)
    }
}

/// Applies `patch` to the organization's tracked `account` (found by the
/// caller): all of it or nothing: 404 when the account went meanwhile, 422
/// `TRACKED_CREATORS_LIMIT` when resuming it would pass the creator cap.
pub(crate) async fn update_blogger(
    app: &AppState,
    org: OrgId,
    account: &TrackedAccount,
    patch: BloggerPatch,
) -> Result<(), ApiError> {
    let changes = patch.changes()?;
    match app
        .store
        .update_blogger(org, account.tracked_account_id, &changes, app.clock.now())
        .await?
    {
        AccountChange::Done => Ok(()),
        AccountChange::NotFound => Err(not_tracked(&account.username)),
        AccountChange::CreatorCapReached { cap, in_use } => Err(creator_cap_reached(cap, in_use)),
    }
}

/// `data` of an untrack.
#[derive(Debug, Serialize, ToSchema)]
pub struct UntrackedBlogger {
    /// The creator (`id` of the creator record).
    pub id: Uuid,
    /// The organization's tracked account, gone.
    pub tracked_account_id: Uuid,
    /// Platform id.
    pub platform: &'static str,
    /// Handle, without `@`.
    pub channel_username: String,
    /// Always true.
    pub untracked: bool,
}

/// Stops the organization tracking `account` (found by the caller): its
/// videos stay tracked, no longer tied to it.
pub(crate) async fn untrack_blogger(
    app: &AppState,
    org: OrgId,
    account: TrackedAccount,
) -> Result<UntrackedBlogger, ApiError> {
    if !app
        .store
        .delete_blogger(org, account.tracked_account_id)
        .await?
    {
        return Err(not_tracked(&account.username));
    }
    Ok(UntrackedBlogger {
        id: account.creator_id,
        tracked_account_id: account.tracked_account_id,
        platform: account.platform.id(),
        channel_username: account.username,
        untracked: true,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::input::Input;

    fn refused(body: Value) -> (String, String) {
        let e = BloggerPatch::from_json(&body)
            .and_then(BloggerPatch::changes)
            .unwrap_err();
        (e.field.clone().unwrap_or_default(), e.message.clone())
    }

    #[test]
    fn patches_are_checked_field_by_field() {
        assert_eq!(refused(json!({})).0, "body");
        assert_eq!(refused(json!([])).0, "body");
        assert_eq!(refused(json!({"is_active": "yes"})).0, "is_active");
        assert_eq!(refused(json!({"is_active": null})).0, "is_active");
        assert_eq!(refused(json!({"campaign": "a,b"})).0, "campaign");
        assert_eq!(refused(json!({"campaign": 5})).0, "campaign");
        assert_eq!(refused(json!({"campaign": "x".repeat(201)})).0, "campaign");
        assert_eq!(refused(json!({"tags": "a"})).0, "tags");
        assert_eq!(refused(json!({"tags": [""]})).0, "tags");
        assert_eq!(refused(json!({"tags": [3]})).0, "tags");
        assert_eq!(refused(json!({"tags": ["x".repeat(81)]})).0, "tags");
        let many: Vec<String> = (0..51).map(|i| format!("t{i}")).collect();
        assert_eq!(
            refused(json!({ "tags": many })),
            ("tags".into(), "`tags` must have at most 50 names".into())
        );
        for bad in [json!(-1), json!(51), json!(2.5), json!("3")] {
            assert_eq!(
                refused(json!({ "daily_videos_count": bad })).0,
                "daily_videos_count"
            );
        }
        for bad in [json!(0), json!(-5), json!(1.5), json!("")] {
            assert_eq!(
                refused(json!({ "budget_per_video": bad })).0,
                "budget_per_video"
            );
        }
        assert_eq!(refused(json!({"ecpm": 3})).0, "ecpm");
    }

    #[test]
    fn a_patch_says_what_it_changes() {
        let changes = |body: Value| BloggerPatch::from_json(&body).unwrap().changes().unwrap();
        let c = changes(json!({
            "is_active": false, "campaign": " Summer ", "tags": ["A", "b", "a"],
            "daily_videos_count": 0, "budget_per_video": 500
        }));
        assert_eq!(c.is_active, Some(false));
        assert_eq!(c.campaign.unwrap().unwrap().as_str(), "Summer", "trimmed");
        let tags: Vec<_> = c
            .tags
            .unwrap()
            .iter()
            .map(|t| t.as_str().to_owned())
            .collect();
        assert_eq!(tags, ["A", "b"], "one tag per name in any case");
        assert_eq!(c.daily_videos_count, Some(Some(0)));
        assert_eq!(c.budget_per_video, Some(Some(500)));
        let cleared = changes(json!({
            "campaign": "", "tags": [], "daily_videos_count": null, "budget_per_video": null
        }));
        assert_eq!(cleared.campaign, Some(None));
        assert_eq!(cleared.tags, Some(vec![]));
        assert_eq!(cleared.daily_videos_count, Some(None));
        assert_eq!(cleared.budget_per_video, Some(None));
        assert_eq!(cleared.is_active, None);
        assert_eq!(changes(json!({"campaign": null})).campaign, Some(None));
    }
}
