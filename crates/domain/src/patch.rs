//! Validation of editable video metadata (PATCH /v1/videos/by-external-id).
//!
//! The rules: docs/api.md, "Videos" (PATCH).
//! The body arrives as raw JSON so that "absent", `null` and `""` stay
//! distinguishable and unknown fields can be refused (400 naming the field).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Longest `notes`, in characters.
pub const NOTES_MAX_CHARS: usize = 2000;
/// Longest `campaign`, in characters, after trimming.
pub const CAMPAIGN_MAX_CHARS: usize = 200;
/// Most tags in one request.
pub const TAGS_MAX: usize = 50;
/// Longest tag name, in characters.
pub const TAG_MAX_CHARS: usize = 80;

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

/// A validated PATCH. For clearable fields, `Some(None)` clears the value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VideoPatch {
    /// New notes; `Some(None)` clears.
    pub notes: Option<Option<String>>,
    /// New budget; `Some(None)` clears.
    pub budget: Option<Option<i64>>,
    /// New campaign tag; `Some(None)` clears.
    pub campaign: Option<Option<String>>,
    /// New video status.
    pub video_status: Option<VideoStatus>,
    /// New workflow status.
    pub status: Option<WorkflowStatus>,
    /// New eCPM; `Some(None)` clears.
    pub ecpm: Option<Option<f64>>,
    /// Tag names to attach (trimmed, distinct ignoring case, in request order).
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

impl VideoPatch {
    /// Validates a PATCH body.
    pub fn parse(body: &Value) -> Result<Self, FieldError> {
        let obj: &Map<String, Value> = body
            .as_object()
            .ok_or_else(|| err("body", "the body must be a JSON object"))?;
        if obj.is_empty() {
            return Err(err(
                "body",
                "at least one of notes, budget, campaign, video_status, status, ecpm, tags is required",
            ));
        }
        let mut patch = VideoPatch::default();
        for (key, value) in obj {
            match key.as_str() {
                "notes" => patch.notes = Some(parse_notes(value)?),
                "budget" => patch.budget = Some(parse_budget(value)?),
                "campaign" => patch.campaign = Some(parse_campaign_value(value)?),
                "video_status" => {
                    patch.video_status =
                        Some(value.as_str().and_then(VideoStatus::parse).ok_or_else(|| {
                            err(
                                "video_status",
                                "video_status must be one of tracking, paused, deleted",
                            )
                        })?)
                }
                "status" => {
                    patch.status = Some(value.as_str().and_then(WorkflowStatus::parse).ok_or_else(
                        || err("status", "status must be one of `to do`, running, ended"),
                    )?)
                }
                "ecpm" => patch.ecpm = Some(parse_ecpm(value)?),
                "tags" => patch.tags = Some(parse_tags(value)?),
                other => return Err(err(other, format!("unknown field `{other}`"))),
            }
        }
        Ok(patch)
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

fn parse_notes(v: &Value) -> Result<Option<String>, FieldError> {
    let s = v
        .as_str()
        .ok_or_else(|| err("notes", "notes must be a string"))?;
    if s.chars().count() > NOTES_MAX_CHARS {
        return Err(err(
            "notes",
            format!("notes must be at most {NOTES_MAX_CHARS} characters"),
        ));
    }
    Ok((!s.is_empty()).then(|| s.to_owned()))
}

fn parse_budget(v: &Value) -> Result<Option<i64>, FieldError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::Number(n) => match n.as_i64() {
            Some(b) if b > 0 => Ok(Some(b)),
            _ => Err(err(
                "budget",
                "budget must be a whole number greater than 0",
            )),
        },
        _ => Err(err(
            "budget",
            "budget must be a whole number greater than 0, null or \"\"",
        )),
    }
}

fn parse_ecpm(v: &Value) -> Result<Option<f64>, FieldError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
            _ => Err(err("ecpm", "ecpm must be a number of 0 or more")),
        },
        _ => Err(err(
            "ecpm",
            "ecpm must be a number of 0 or more, null or \"\"",
        )),
    }
}

fn parse_campaign_value(v: &Value) -> Result<Option<String>, FieldError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => parse_campaign(s).map_err(|m| err("campaign", m)),
        _ => Err(err("campaign", "campaign must be a string or null")),
    }
}

/// Validates a campaign tag: trimmed, at most 200 characters of letters,
/// digits, spaces and `- _ . ( ) | : % &`; empty clears (`Ok(None)`).
pub fn parse_campaign(s: &str) -> Result<Option<String>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    if s.chars().count() > CAMPAIGN_MAX_CHARS {
        return Err(format!(
            "campaign must be at most {CAMPAIGN_MAX_CHARS} characters"
        ));
    }
    if let Some(bad) = s
        .chars()
        .find(|c| !(c.is_alphanumeric() || *c == ' ' || "-_.()|:%&".contains(*c)))
    {
        return Err(format!(
            "campaign may contain only letters, digits, spaces and - _ . ( ) | : % & (found `{bad}`)"
        ));
    }
    Ok(Some(s.to_owned()))
}

fn parse_tags(v: &Value) -> Result<Vec<String>, FieldError> {
    let items = v
        .as_array()
        .ok_or_else(|| err("tags", "tags must be an array of strings"))?;
    if items.is_empty() || items.len() > TAGS_MAX {
        return Err(err(
            "tags",
            format!("tags must have 1 to {TAGS_MAX} entries"),
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let name = item
            .as_str()
            .ok_or_else(|| err("tags", "tags must be an array of strings"))?
            .trim();
        if name.is_empty() {
            return Err(err("tags", "tag names must not be empty"));
        }
        if name.chars().count() > TAG_MAX_CHARS {
            return Err(err(
                "tags",
                format!("tag names must be at most {TAG_MAX_CHARS} characters"),
            ));
        }
        if !out.iter().any(|t| t.to_lowercase() == name.to_lowercase()) {
            out.push(name.to_owned());
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

    #[test]
    fn unknown_fields_are_refused_by_name() {
        let e = VideoPatch::parse(&json!({"notes": "a", "colour": 1})).unwrap_err();
        assert_eq!(e.field, "colour");
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
    #[case(json!({"notes": 5}), "notes")]
    #[case(json!({"notes": null}), "notes")]
    #[case(json!({"notes": "x".repeat(2001)}), "notes")]
    #[case(json!({"budget": 0}), "budget")]
    #[case(json!({"budget": -5}), "budget")]
    #[case(json!({"budget": 1.5}), "budget")]
    #[case(json!({"budget": "100"}), "budget")]
    #[case(json!({"campaign": "a,b"}), "campaign")]
    #[case(json!({"campaign": "x".repeat(201)}), "campaign")]
    #[case(json!({"campaign": 3}), "campaign")]
    #[case(json!({"video_status": "gone"}), "video_status")]
    #[case(json!({"status": "todo"}), "status")]
    #[case(json!({"status": null}), "status")]
    #[case(json!({"ecpm": -0.01}), "ecpm")]
    #[case(json!({"ecpm": "1"}), "ecpm")]
    #[case(json!({"tags": []}), "tags")]
    #[case(json!({"tags": "a"}), "tags")]
    #[case(json!({"tags": [1]}), "tags")]
    #[case(json!({"tags": ["  "]}), "tags")]
    #[case(json!({"tags": ["x".repeat(81)]}), "tags")]
    #[case(json!({"tags": vec!["t"; 51]}), "tags")]
    fn invalid_values_name_their_field(#[case] body: Value, #[case] field: &str) {
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
            p.campaign,
            Some(Some("Summer 2026 (EU) | part:1 & 50% ünïcode_.-".into()))
        );
        assert_eq!(p.video_status, Some(VideoStatus::Paused));
        assert_eq!(p.status, Some(WorkflowStatus::ToDo));
        assert_eq!(p.ecpm, Some(Some(0.0)));
        assert_eq!(p.tags, Some(vec!["Food".to_owned(), "Travel".to_owned()]));
    }
}
