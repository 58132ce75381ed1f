//! Editing many videos at once (docs/api.md: PATCH /v1/videos/batch and
//! PATCH /dashboard/videos/batch): the single PATCH's fields applied to up to
//! 100 videos, all or nothing. Paid plans (each face checks the plan).

use std::collections::BTreeSet;

use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::patch::{SentPatch, VideoPatch};
use vidpulse_domain::{OrgId, VideoId};
use vidpulse_store::VideoLookup;

use crate::app::videos::PatchRequest;
use crate::error::{ApiError, ErrorCode};
use crate::extract::JsonBody;
use crate::input::Input;
use crate::state::AppState;

/// Most videos one batch edits.
pub const BATCH_MAX: usize = 100;

/// Which videos a batch edits, and the edit: `video_ids` or
/// `external_video_ids` (not both), beside the single PATCH's fields. This
/// type documents the body; `Batch` reads it (serde cannot refuse unknown
/// fields beside a flattened part).
#[allow(dead_code)]
#[derive(Debug, Deserialize, ToSchema)]
pub struct BatchPatchRequest {
    /// 1 to 100 of the organization's video ids.
    #[schema(value_type = Option<Vec<Uuid>>)]
    video_ids: Option<Vec<String>>,
    /// 1 to 100 platform video ids (each the most recently tracked video with it).
    external_video_ids: Option<Vec<String>>,
    /// The fields of the single PATCH, with its rules.
    #[serde(flatten)]
    patch: PatchRequest,
}

/// The videos of a parsed batch and its edit.
pub(crate) struct Batch {
    /// The videos, as sent (repeats kept: the store edits each once).
    videos: Vec<VideoLookup>,
    /// The edit, checked.
    patch: VideoPatch,
}

impl Input for Batch {
    fn from_json(value: &Value) -> Result<Self, ApiError> {
        let Value::Object(fields) = value else {
            return Err(ApiError::validation(
                "body",
                "the body must be a JSON object",
            ));
        };
        let mut edit = fields.clone();
        let by_id = edit.remove("video_ids");
        let by_external_id = edit.remove("external_video_ids");
        let videos = match (by_id, by_external_id) {
            (Some(_), Some(_)) => {
                return Err(ApiError::validation(
                    "video_ids",
                    "send video_ids or external_video_ids, not both",
                ));
            }
            (None, None) => {
                return Err(ApiError::validation(
                    "video_ids",
                    "video_ids or external_video_ids is required",
                ));
            }
            (Some(ids), None) => id_list("video_ids", &ids)?
                .into_iter()
                .map(|id| {
                    Uuid::parse_str(id)
                        .map(|id| VideoLookup::Id(VideoId(id)))
                        .map_err(|_| {
                            ApiError::validation(
                                "video_ids",
                                format!("`{id}` is not a video id (a UUID)"),
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
            (None, Some(ids)) => id_list("external_video_ids", &ids)?
                .into_iter()
                .map(|id| VideoLookup::ExternalId(id.to_owned()))
                .collect(),
        };
        let patch = SentPatch::from(PatchRequest::from_json(&Value::Object(edit))?)
            .checked()
            .map_err(|e| ApiError::validation(&e.field, e.message))?;
        Ok(Batch { videos, patch })
    }
}

/// The strings of an id list: 1 to [`BATCH_MAX`] non-empty strings.
fn id_list<'v>(field: &str, sent: &'v Value) -> Result<Vec<&'v str>, ApiError> {
    let refuse = || {
        ApiError::validation(
            field,
            format!("{field} must be an array of 1 to {BATCH_MAX} non-empty strings"),
        )
    };
    let Value::Array(items) = sent else {
        return Err(refuse());
    };
    if items.is_empty() || items.len() > BATCH_MAX {
        return Err(refuse());
    }
    items
        .iter()
        .map(|item| {
            item.as_str()
                .filter(|s| !s.trim().is_empty())
                .ok_or_else(refuse)
        })
        .collect()
}

/// One video a batch edited.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchVideo {
    /// The organization's id of the video.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
}

/// What a batch did with tags.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchTagsResult {
    /// Names linked to every video.
    pub attached: Vec<String>,
    /// Names the request created.
    pub created: Vec<String>,
}

/// `data` of a batch edit.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchPatchResult {
    /// Columns written on every video (`campaign` is reported as `campaign_tag`).
    pub applied_fields: Vec<&'static str>,
    /// The videos edited, in the order named (each once).
    pub updated: Vec<BatchVideo>,
    /// How many videos were edited.
    pub updated_count: usize,
    /// Present when `tags` was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags_result: Option<BatchTagsResult>,
}

/// Applies the batch in `body` to the organization's videos, all or
/// nothing: the answer of both interfaces (the caller checked who may and
/// the plan).
pub(crate) async fn patch_videos(
    app: &AppState,
    org: OrgId,
    body: Result<JsonBody<Batch>, ApiError>,
) -> Result<BatchPatchResult, ApiError> {
    let Batch { videos, patch } = body?.parse()?;
    let outcomes = match app
        .store
        .patch_videos(org, &videos, &patch, app.clock.now())
        .await?
    {
        Ok(outcomes) => outcomes,
        Err(missing) => return Err(not_found(&missing)),
    };
    let tags_result = patch.tags.as_ref().map(|_| {
        let mut created = Vec::new();
        for outcome in &outcomes {
            if let Some(tags) = &outcome.tags {
                created.extend(tags.created.iter().cloned());
            }
        }
        BatchTagsResult {
            attached: outcomes
                .first()
                .and_then(|o| o.tags.as_ref())
                .map(|t| t.attached.clone())
                .unwrap_or_default(),
            created,
        }
    });
    Ok(BatchPatchResult {
        applied_fields: patch.written_columns(),
        updated_count: outcomes.len(),
        updated: outcomes
            .into_iter()
            .map(|o| BatchVideo {
                video_id: o.video_id.0,
                external_video_id: o.external_id,
            })
            .collect(),
        tags_result,
    })
}

/// 404 naming the ids that found no video, each once, as sent.
fn not_found(missing: &[VideoLookup]) -> ApiError {
    let mut named = BTreeSet::new();
    let ids: Vec<String> = missing
        .iter()
        .map(|lookup| match lookup {
            VideoLookup::Id(id) => id.0.to_string(),
            VideoLookup::ExternalId(id) => id.clone(),
        })
        .filter(|id| named.insert(id.clone()))
        .collect();
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::VideoNotFound,
        format!(
            "{} of the videos named {} not tracked by this organization: {}; nothing was written",
            ids.len(),
            if ids.len() == 1 { "is" } else { "are" },
            ids.join(", ")
        ),
    )
    .with_details(json!({ "not_found": ids }))
}
