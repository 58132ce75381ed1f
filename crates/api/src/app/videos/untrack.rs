//! Untracking a video (docs/api.md: DELETE /v1/videos/by-id/{video_id},
//! /v1/videos/by-external-id/{external_video_id} and DELETE
//! /dashboard/videos/{id}): the video leaves the organization; the shared
//! catalog and other organizations keep theirs.

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_store::VideoLookup;

use crate::app::videos::video_not_found;
use crate::error::ApiError;
use crate::state::AppState;

/// `data` of an untrack.
#[derive(Debug, Serialize, ToSchema)]
pub struct UntrackResult {
    /// The organization's id the video had.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Always `true`: the video is no longer tracked.
    pub untracked: bool,
}

/// Untracks the organization's video `video` names (the caller checked who
/// may): the answer of both interfaces, 404 `VIDEO_NOT_FOUND` when the
/// organization has no such video.
pub(crate) async fn untrack_video(
    app: &AppState,
    org: OrgId,
    video: VideoLookup,
) -> Result<UntrackResult, ApiError> {
    let gone = app
        .store
        .untrack_video(org, &video)
        .await?
        .ok_or_else(video_not_found)?;
    Ok(UntrackResult {
        video_id: gone.video_id.0,
        external_video_id: gone.external_id,
        untracked: true,
    })
}
