//! Editable metadata of a video (PATCH /v1/videos/by-external-id).
//!
//! The rules: docs/api.md, "Videos" (PATCH).
//! A patch is read in two steps: its fields as sent ([`SentPatch`]), typed by
//! serde with the helpers of [`sent`] (so that "absent", `null` and `""` stay
//! distinct and unknown fields are refused, 400 naming the field); then
//! [`SentPatch::checked`] holds their values to the rules and gives the
//! [`VideoPatch`] the store writes, its campaign a [`Campaign`] and its tags
//! [`TagName`]s.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::names::{Campaign, NameError, TagName};

/// Longest `notes`, in characters.
pub const NOTES_MAX_CHARS: usize = 2000;
/// Longest `campaign`, in characters, after trimming.
pub use crate::names::CAMPAIGN_MAX_CHARS;
/// Most tags in one request.
pub const TAGS_MAX: usize = 50;
/// Longest tag name, in characters.
pub use crate::names::TAG_MAX_CHARS;

/// The user's label of a video's tracking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VideoStatus {
    /// Being tracked (the default).
    Tracking,
    /// Marked paused by the user.
    Paused,
    /// Marked deleted by the user.
    Deleted,
}

impl VideoStatus {
    /// The stored and displayed spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            VideoStatus::Tracking => "tracking",
            VideoStatus::Paused => "paused",
            VideoStatus::Deleted => "deleted",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Tracking, Self::Paused, Self::Deleted]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

/// The workflow status of a video in a campaign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkflowStatus {
    /// `to do` (the default).
    #[serde(rename = "to do")]
    ToDo,
    /// `running`.
    #[serde(rename = "running")]
    Running,
    /// `ended`.
    #[serde(rename = "ended")]
    Ended,
}

impl WorkflowStatus {
    /// The stored and displayed spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkflowStatus::ToDo => "to do",
            WorkflowStatus::Running => "running",
            WorkflowStatus::Ended => "ended",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(s: &str) -> Option<Self> {
        [Self::ToDo, Self::Running, Self::Ended]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

/// A PATCH: what it writes, checked ([`SentPatch::checked`]). For
/// clearable fields, `Some(None)` clears the value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VideoPatch {
    /// New notes; `Some(None)` clears.
    pub notes: Option<Option<String>>,
    /// New budget; `Some(None)` clears.
    pub budget: Option<Option<i64>>,
    /// New campaign tag; `Some(None)` clears.
    pub campaign: Option<Option<Campaign>>,
    /// New video status.
    pub video_status: Option<VideoStatus>,
    /// New workflow status.
    pub status: Option<WorkflowStatus>,
    /// New eCPM; `Some(None)` clears.
    pub ecpm: Option<Option<f64>>,
    /// Tag names to attach (distinct ignoring case, in request order).
    pub tags: Option<Vec<TagName>>,
}

/// A PATCH body as sent: its fields typed, their values not yet held to the
/// rules ([`SentPatch::checked`]). For clearable fields, `Some(None)` clears;
/// notes clear with `""`. The API reads the same fields with the same
/// helpers into its documented request type.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentPatch {
    /// Notes as sent.
    #[serde(default, deserialize_with = "sent::value")]
    pub notes: Option<String>,
    /// Budget as sent.
    #[serde(default, deserialize_with = "sent::clearable")]
    pub budget: Option<Option<i64>>,
    /// Campaign as sent.
    #[serde(default, deserialize_with = "sent::nullable")]
    pub campaign: Option<Option<String>>,
    /// Video status as sent.
    #[serde(default, deserialize_with = "sent::value")]
    pub video_status: Option<VideoStatus>,
    /// Workflow status as sent.
    #[serde(default, deserialize_with = "sent::value")]
    pub status: Option<WorkflowStatus>,
    /// eCPM as sent.
    #[serde(default, deserialize_with = "sent::clearable")]
    pub ecpm: Option<Option<f64>>,
    /// Tag names as sent.
    #[serde(default, deserialize_with = "sent::value")]
    pub tags: Option<Vec<String>>,
}

/// A field that failed validation; `message` is shown to the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FieldError {
    /// The offending field.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

fn err(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.to_owned(),
        message: message.into(),
    }
}

impl SentPatch {
    /// Holds a patch as sent to the spec's rules, and normalises it: notes
    /// `""` clear, a campaign is trimmed (blank clears), tags are trimmed and
    /// distinct ignoring case, in request order. Fields are checked in name
    /// order; the first that breaks a rule is answered.
    pub fn checked(self) -> Result<VideoPatch, FieldError> {
        if self == Self::default() {
            return Err(err(
                "body",
                "at least one of notes, budget, campaign, video_status, status, ecpm, tags is required",
            ));
        }
        if let Some(Some(budget)) = self.budget
            && budget <= 0
        {
            return Err(err(
                "budget",
                "budget must be a whole number greater than 0",
            ));
        }
        let campaign = match self.campaign {
            Some(Some(campaign)) => {
                Some(Campaign::parse(&campaign).map_err(|e| err("campaign", campaign_rule(e)))?)
            }
            cleared_or_absent => cleared_or_absent.map(|_| None),
        };
        if let Some(Some(ecpm)) = self.ecpm
            && !(ecpm.is_finite() && ecpm >= 0.0)
        {
            return Err(err("ecpm", "ecpm must be a number of 0 or more"));
        }
        if let Some(notes) = &self.notes
            && notes.chars().count() > NOTES_MAX_CHARS
        {
            return Err(err(
                "notes",
                format!("notes must be at most {NOTES_MAX_CHARS} characters"),
            ));
        }
        let tags = match &self.tags {
            Some(tags) => Some(checked_tags(tags)?),
            None => None,
        };
        Ok(VideoPatch {
            notes: self.notes.map(|n| (!n.is_empty()).then_some(n)),
            budget: self.budget,
            campaign,
            video_status: self.video_status,
            status: self.status,
            ecpm: self.ecpm,
            tags,
        })
    }
}

impl VideoPatch {
    /// Reads a PATCH body: typed by serde as the API types it, then
    /// [`SentPatch::checked`]. A value of the wrong type names the body,
    /// not its field: the API's reading of a body names the field.
    pub fn parse(body: &Value) -> Result<Self, FieldError> {
        if !body.is_object() {
            return Err(err("body", "the body must be a JSON object"));
        }
        SentPatch::deserialize(body)
            .map_err(|e| err("body", e.to_string()))?
            .checked()
    }

    /// The stored column names this patch writes, in a stable order
    /// (the campaign column is reported as `campaign_tag`, as clients expect).
    pub fn written_columns(&self) -> Vec<&'static str> {
        let mut cols = Vec::new();
        if self.notes.is_some() {
            cols.push("notes");
        }
        if self.budget.is_some() {
            cols.push("budget");
        }
        if self.campaign.is_some() {
            cols.push("campaign_tag");
        }
        if self.video_status.is_some() {
            cols.push("video_status");
        }
        if self.status.is_some() {
            cols.push("status");
        }
        if self.ecpm.is_some() {
            cols.push("ecpm");
        }
        cols
    }
}

/// serde helpers typing a PATCH field as sent, for
/// `#[serde(default, deserialize_with = "…")]`: an absent field is `None`
/// (the default); a present one is `Some`, and for a clearable field
/// `Some(None)` clears it.
pub mod sent {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserialize, Deserializer};

    /// A field `null` may not stand for: present means set.
    pub fn value<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        T::deserialize(deserializer).map(Some)
    }

    /// A field `null` clears (`campaign`).
    pub fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        Option::<T>::deserialize(deserializer).map(Some)
    }

    /// A field `null` or `""` clears (`budget`, `ecpm`).
    pub fn clearable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        Ok(Some(match Clearing::<T>::deserialize(deserializer)? {
            Clearing::Cleared(Blank) => None,
            Clearing::Set(value) => Some(value),
        }))
    }

    /// A clearable field's value.
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Clearing<T> {
        Cleared(Blank),
        Set(T),
    }

    /// `null` or `""`.
    struct Blank;

    impl<'de> Deserialize<'de> for Blank {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct BlankVisitor;
            impl Visitor<'_> for BlankVisitor {
                type Value = Blank;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("null or \"\"")
                }
                fn visit_unit<E: de::Error>(self) -> Result<Blank, E> {
                    Ok(Blank)
                }
                fn visit_none<E: de::Error>(self) -> Result<Blank, E> {
                    Ok(Blank)
                }
                fn visit_str<E: de::Error>(self, s: &str) -> Result<Blank, E> {
                    if s.is_empty() {
                        Ok(Blank)
                    } else {
                        Err(E::invalid_value(de::Unexpected::Str(s), &self))
                    }
                }
            }
            deserializer.deserialize_any(BlankVisitor)
        }
    }
}

/// Validates a campaign tag ([`Campaign`] rules): trimmed, at most 200
/// characters of letters, digits, spaces and `- _ . ( ) | : % &`; empty
/// clears (`Ok(None)`). The error is the message a client gets.
pub fn parse_campaign(s: &str) -> Result<Option<String>, String> {
    Campaign::parse(s)
        .map(|campaign| campaign.map(Campaign::into_string))
        .map_err(campaign_rule)
}

/// The message a client gets for a campaign [`Campaign::parse`] refused.
fn campaign_rule(e: NameError) -> String {
    match e {
        NameError::BadCharacter(bad) => format!(
            "campaign may contain only letters, digits, spaces and - _ . ( ) | : % & (found `{bad}`)"
        ),
        _ => format!("campaign must be at most {CAMPAIGN_MAX_CHARS} characters"),
    }
}

fn checked_tags(sent: &[String]) -> Result<Vec<TagName>, FieldError> {
    if sent.is_empty() || sent.len() > TAGS_MAX {
        return Err(err(
            "tags",
            format!("tags must have 1 to {TAGS_MAX} entries"),
        ));
    }
    let mut out: Vec<TagName> = Vec::with_capacity(sent.len());
    for name in sent {
        let name = match TagName::parse(name) {
            Ok(name) => name,
            Err(NameError::TooLong(_)) => {
                return Err(err(
                    "tags",
                    format!("tag names must be at most {TAG_MAX_CHARS} characters"),
                ));
            }
            Err(_) => return Err(err("tags", "tag names must not be empty")),
        };
        if !out.iter().any(|t| t.key() == name.key()) {
            out.push(name);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;
    use serde_json::json;

    use super::*;

    #[test]
    fn empty_and_non_object_bodies_are_refused() {
        assert!(VideoPatch::parse(&json!({})).is_err());
        assert!(VideoPatch::parse(&json!([])).is_err());
        assert!(VideoPatch::parse(&json!("x")).is_err());
    }

    #[rstest]
    #[case(json!({"notes": "a", "colour": 1}))]
    #[case(json!({"notes": 5}))]
    #[case(json!({"notes": null}))]
    #[case(json!({"budget": 1.5}))]
    #[case(json!({"budget": "100"}))]
    #[case(json!({"campaign": 3}))]
    #[case(json!({"video_status": "gone"}))]
    #[case(json!({"status": "todo"}))]
    #[case(json!({"status": null}))]
    #[case(json!({"ecpm": "1"}))]
    #[case(json!({"tags": "a"}))]
    #[case(json!({"tags": [1]}))]
    fn values_of_the_wrong_type_are_refused(#[case] body: Value) {
        // The API's reading names the field; this one names the body.
        assert_eq!(VideoPatch::parse(&body).unwrap_err().field, "body");
    }

    #[test]
    fn clearing_values() {
        let p =
            VideoPatch::parse(&json!({"notes": "", "budget": null, "campaign": "", "ecpm": ""}))
                .unwrap();
        assert_eq!(p.notes, Some(None));
        assert_eq!(p.budget, Some(None));
        assert_eq!(p.campaign, Some(None));
        assert_eq!(p.ecpm, Some(None));
        assert_eq!(
            p.written_columns(),
            vec!["notes", "budget", "campaign_tag", "ecpm"]
        );
    }

    #[rstest]
    #[case(json!({"notes": "x".repeat(2001)}), "notes")]
    #[case(json!({"budget": 0}), "budget")]
    #[case(json!({"budget": -5}), "budget")]
    #[case(json!({"campaign": "a,b"}), "campaign")]
    #[case(json!({"campaign": "x".repeat(201)}), "campaign")]
    #[case(json!({"ecpm": -0.01}), "ecpm")]
    #[case(json!({"tags": []}), "tags")]
    #[case(json!({"tags": ["  "]}), "tags")]
    #[case(json!({"tags": ["x".repeat(81)]}), "tags")]
    #[case(json!({"tags": vec!["t"; 51]}), "tags")]
    fn values_breaking_a_rule_name_their_field(#[case] body: Value, #[case] field: &str) {
        assert_eq!(VideoPatch::parse(&body).unwrap_err().field, field);
    }

    #[test]
    fn valid_values() {
        let p = VideoPatch::parse(&json!({
            "notes": "n".repeat(2000),
            "budget": 250,
            "campaign": "  Summer 2026 (EU) | part:1 & 50% ünïcode_.-  ",
            "video_status": "paused",
            "status": "to do",
            "ecpm": 0,
            "tags": [" Food ", "food", "Travel"]
        }))
        .unwrap();
        assert_eq!(p.budget, Some(Some(250)));
        assert_eq!(
            p.campaign.flatten().as_ref().map(Campaign::as_str),
            Some("Summer 2026 (EU) | part:1 & 50% ünïcode_.-")
        );
        assert_eq!(p.video_status, Some(VideoStatus::Paused));
        assert_eq!(p.status, Some(WorkflowStatus::ToDo));
        assert_eq!(p.ecpm, Some(Some(0.0)));
        let tags: Vec<&str> = p.tags.iter().flatten().map(TagName::as_str).collect();
        assert_eq!(tags, ["Food", "Travel"]);
    }
}
