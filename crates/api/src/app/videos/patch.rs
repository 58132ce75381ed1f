//! Editing a video's metadata (docs/api.md: PATCH
//! /v1/videos/by-external-id/{external_video_id} and PATCH
//! /dashboard/videos/{id}): the body, its rules and what was written. Paid
//! plans (each face checks the plan).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::patch::{SentPatch, TAGS_MAX, VideoStatus, WorkflowStatus, sent};
use vidpulse_store::VideoLookup;

use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::input::{Fault, Refusals};
use crate::state::AppState;

/// Editable metadata (docs/api.md, "Videos", has the rules). An absent
/// field is left as it is; a field this table does not name is refused.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchRequest {
    /// At most 2000 characters; `""` clears.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    notes: Option<String>,
    /// Greater than 0; `null` or `""` clears.
    #[serde(default, deserialize_with = "sent::clearable")]
    #[schema(value_type = Option<i64>)]
    budget: Option<Option<i64>>,
    /// At most 200 characters of letters, digits, spaces and `- _ . ( ) | : % &`; `""` or `null` clears.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<String>)]
    campaign: Option<Option<String>>,
    /// `tracking`, `paused` or `deleted`.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    video_status: Option<VideoStatus>,
    /// `to do`, `running` or `ended`.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    status: Option<WorkflowStatus>,
    /// 0 or more; `null` or `""` clears.
    #[serde(default, deserialize_with = "sent::clearable")]
    #[schema(value_type = Option<f64>)]
    ecpm: Option<Option<f64>>,
    /// 1 to 50 names of at most 80 characters; additive, matched ignoring case.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = Vec<String>)]
    tags: Option<Vec<String>>,
}

impl From<PatchRequest> for SentPatch {
    /// The patch as sent, before [`SentPatch::checked`].
    fn from(r: PatchRequest) -> Self {
        SentPatch {
            notes: r.notes,
            budget: r.budget,
            campaign: r.campaign,
            video_status: r.video_status,
            status: r.status,
            ecpm: r.ecpm,
            tags: r.tags,
        }
    }
}

impl Refusals for PatchRequest {
    /// A value of the wrong type; the rules on values are the domain's.
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let field = fault.field();
        let number = matches!(fault.sent(), Some(Value::Number(_)));
        let message = match field {
            "" => return ApiError::validation("body", "the body must be a JSON object"),
            "notes" => "notes must be a string".to_owned(),
            "budget" if number => "budget must be a whole number greater than 0".to_owned(),
            "budget" => "budget must be a whole number greater than 0, null or \"\"".to_owned(),
            "campaign" => "campaign must be a string or null".to_owned(),
            "video_status" => "video_status must be one of tracking, paused, deleted".to_owned(),
            "status" => "status must be one of `to do`, running, ended".to_owned(),
            "ecpm" => "ecpm must be a number of 0 or more, null or \"\"".to_owned(),
            "tags" => match fault.sent_in("tags") {
                Some(Value::Array(tags)) if tags.is_empty() || tags.len() > TAGS_MAX => {
                    format!("tags must have 1 to {TAGS_MAX} entries")
                }
                _ => "tags must be an array of strings".to_owned(),
            },
            unknown => format!("unknown field `{unknown}`"),
        };
        ApiError::validation(field, message)
    }
}

/// What a PATCH did with tags.
#[derive(Debug, Serialize, ToSchema)]
pub struct TagsResultView {
    /// Names linked to the video.
    pub attached: Vec<String>,
    /// Names created by the request.
    pub created: Vec<String>,
    /// Tags on the video now.
    pub total: i64,
}

/// `data` of a PATCH.
#[derive(Debug, Serialize, ToSchema)]
pub struct PatchResult {
    /// The organization's id of the video.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Columns written (`campaign` is reported as `campaign_tag`).
    pub updated_fields: Vec<&'static str>,
    /// Present when `tags` was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags_result: Option<TagsResultView>,
}

/// Applies the PATCH in `body` to the organization's video `video` names
/// (the plan checked by the caller); what was written, `None` when there is
/// no such video.
pub(crate) async fn apply_patch(
    app: &AppState,
    org: OrgId,
    video: &VideoLookup,
    body: Result<JsonBody<PatchRequest>, ApiError>,
) -> Result<Option<PatchResult>, ApiError> {
    let patch = SentPatch::from(body?.parse()?)
        .checked()
        .map_err(|e| ApiError::validation(&e.field, e.message))?;
    let Some(out) = app
        .store
        .patch_video(org, video, &patch, app.clock.now())
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(PatchResult {
        video_id: out.video_id.0,
        external_video_id: out.external_id,
        updated_fields: out.updated_fields,
        tags_result: out.tags.map(|t| TagsResultView {
            attached: t.attached,
            created: t.created,
            total: t.total,
        }),
    }))
}
