//! One video's statistics for the dashboard: every reading inside its
//! tracking window and its gains per day.

use chrono::NaiveDate;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::analytics::{daily_closes, daily_increments};
use vidpulse_domain::{OrgId, VideoId};
use vidpulse_store::VideoLookup;

use crate::app::rfc3339;
use crate::error::ApiError;
use crate::state::AppState;

/// One reading of a video.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryEntry {
    /// When it was read.
    pub created_at: String,
    /// Views (null when the platform does not report them).
    pub views: Option<i64>,
    /// Likes.
    pub likes: Option<i64>,
    /// Comments.
    pub comments: Option<i64>,
    /// Reposts.
    pub reposts: Option<i64>,
}

/// One day's gain of a video.
#[derive(Debug, Serialize, ToSchema)]
pub struct DailyIncrement {
    /// The UTC day.
    pub date: NaiveDate,
    /// Views gained.
    pub views_delta: i64,
    /// Likes gained.
    pub likes_delta: i64,
}

/// A video's statistics.
#[derive(Debug, Serialize, ToSchema)]
pub struct VideoStats {
    /// The organization's video id.
    pub video_id: Uuid,
    /// Every reading inside the tracking window, oldest first.
    pub stats: Vec<HistoryEntry>,
    /// Gains per day with a reading, ascending.
    pub daily_increments: Vec<DailyIncrement>,
}

/// `org`'s video `id`: its readings and daily gains.
pub(crate) async fn video_stats(
    app: &AppState,
    org: OrgId,
    id: VideoId,
) -> Result<VideoStats, ApiError> {
    let video = app
        .store
        .video(org, &VideoLookup::Id(id), app.clock.now())
        .await?
        .ok_or_else(|| ApiError::not_found("No such video"))?;
    let closes = daily_closes(&video.history);
    let daily_increments = daily_increments(&closes)
        .into_iter()
        .map(|(date, m)| DailyIncrement {
            date,
            views_delta: m.views,
            likes_delta: m.likes,
        })
        .collect();
    let stats = video
        .history
        .iter()
        .map(|o| HistoryEntry {
            created_at: rfc3339(o.captured_at),
            views: o.counters.views,
            likes: o.counters.likes,
            comments: o.counters.comments,
            reposts: o.counters.reposts,
        })
        .collect();
    Ok(VideoStats {
        video_id: video.video_id.0,
        stats,
        daily_increments,
    })
}
