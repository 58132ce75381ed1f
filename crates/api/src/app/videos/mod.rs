//! The video use cases: track, list, read, patch (one and a batch), refresh
//! now and untrack, a module each, and here the record as the listing, the
//! reads and the exports show it. The public API's `/v1/videos` routes and
//! the dashboard's `/dashboard/videos` routes call the same functions.

use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::analytics::Metrics;
use vidpulse_domain::metrics::cost_per_mille;
use vidpulse_store::{VideoRecord, VideoState};

use crate::app::analytics::MetricsView;
use crate::app::rfc3339;
use crate::error::{ApiError, ErrorCode};

mod batch;
mod list;
mod patch;
mod read;
mod refresh;
mod stats_map;
mod track;
mod untrack;

pub use batch::{BATCH_MAX, BatchPatchRequest, BatchPatchResult, BatchTagsResult, BatchVideo};
pub(crate) use batch::{Batch, patch_videos};
pub use list::{FILTER_PARAMETERS, ListParams, Pagination, VideoPage};
pub(crate) use list::{
    Order, Sort, Status, filtered_query, list_page, list_page_answer, refused_query,
};
pub(crate) use patch::apply_patch;
pub use patch::{PatchRequest, PatchResult, TagsResultView};
pub use read::OneVideo;
pub(crate) use read::{read_video, record_json};
pub use refresh::RefreshResult;
pub(crate) use refresh::{refresh_video, seconds_until, too_soon};
pub use stats_map::StatsMap;
pub(crate) use track::track_urls;
pub use track::{MAX_URLS, TrackData, TrackRequest, TrackResult, Tracked};
pub use untrack::UntrackResult;
pub(crate) use untrack::untrack_video;

/// 404 `VIDEO_NOT_FOUND`: the organization has no such video.
pub(crate) fn video_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::VideoNotFound,
        "Video not found",
    )
}

/// A video record as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct VideoView {
    /// Metric name → (`YYYY-MM-DD HH:MM:SS.ffffff+00` → value), over the tracking window.
    #[schema(value_type = BTreeMap<String, BTreeMap<String, i64>>)]
    pub stats: StatsMap,
    /// The other fields.
    #[serde(flatten)]
    pub fields: VideoFields,
    /// In a listing with a gained sort or `from` / `to`: what each metric
    /// gained over the listing's `window` (the totals rules); `null` when
    /// the video has no reading within it. Absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<MetricsView>)]
    pub gained: Option<Option<MetricsView>>,
}

impl VideoView {
    /// The view with the gains a listing measured (`None`: not asked for).
    pub fn with_gains(mut self, gains: Option<Option<Metrics>>) -> Self {
        self.gained = gains.map(|g| g.map(MetricsView::from));
        self
    }
}

/// A video record as the API shows it, but for its `stats`.
#[derive(Debug, Serialize, ToSchema)]
pub struct VideoFields {
    /// The organization's id of the video.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Platform display name (`TikTok`, `Instagram`, `YouTube`).
    pub platform: &'static str,
    /// Canonical page URL.
    pub url: String,
    /// Title or caption.
    pub title: Option<String>,
    /// Thumbnail URL.
    pub thumbnail_url: Option<String>,
    /// The author's handle.
    pub author_username: Option<String>,
    /// When the video was published.
    pub published_at: Option<String>,
    /// Latest views.
    pub views: Option<i64>,
    /// Latest likes.
    pub likes: Option<i64>,
    /// Latest comments.
    pub comments: Option<i64>,
    /// Latest reposts.
    pub reposts: Option<i64>,
    /// Latest saves.
    pub saves: Option<i64>,
    /// When tracking started.
    pub created_at: String,
    /// When the latest statistics were read.
    pub stats_last_updated: Option<String>,
    /// Cost per mille: budget / views × 1000.
    pub cpm: Option<f64>,
    /// Engagement rate in percent: (likes + comments + reposts) / views × 100.
    pub er: Option<f64>,
    /// Notes.
    pub notes: Option<String>,
    /// Budget.
    pub budget: Option<i64>,
    /// Campaign tag.
    pub campaign: Option<String>,
    /// `tracking`, `paused` or `deleted`.
    pub video_status: &'static str,
    /// `to do`, `running` or `ended`.
    pub status: &'static str,
    /// eCPM.
    pub ecpm: Option<f64>,
    /// Tag names.
    pub tags: Vec<String>,
    /// `active`, `completed` or `failed` (the `status` filter of the listing).
    pub tracking_status: &'static str,
    /// When tracking ends: 30 days after it began, or later while the
    /// video's campaign runs (until 7 days after its `ends_on`).
    pub tracking_ends_at: String,
    /// When the video is read next, while this organization's tracking is
    /// open; `null` once it has ended, for a video gone from its platform,
    /// or when no further read falls within it.
    pub next_refresh_at: Option<String>,
}

fn state_name(s: VideoState) -> &'static str {
    match s {
        VideoState::Active => "active",
        VideoState::Completed => "completed",
        VideoState::Failed => "failed",
    }
}

impl From<VideoRecord> for VideoView {
    fn from(r: VideoRecord) -> Self {
        VideoView {
            stats: StatsMap::new(&r.history),
            fields: r.into(),
            gained: None,
        }
    }
}

impl From<VideoRecord> for VideoFields {
    /// The fields of a record, its history left aside.
    fn from(r: VideoRecord) -> Self {
        VideoFields {
            video_id: r.video_id.0,
            external_video_id: r.external_id,
            platform: r.platform.display_name(),
            url: r.url,
            title: r.title,
            thumbnail_url: r.thumbnail_url,
            author_username: r.author_username,
            published_at: r.published_at.map(rfc3339),
            views: r.latest.views,
            likes: r.latest.likes,
            comments: r.latest.comments,
            reposts: r.latest.reposts,
            saves: r.latest.saves,
            created_at: rfc3339(r.created_at),
            stats_last_updated: r.stats_updated_at.map(rfc3339),
            cpm: cost_per_mille(r.budget, r.latest.views),
            er: r.latest.engagement_rate(),
            notes: r.notes,
            budget: r.budget,
            campaign: r.campaign,
            video_status: r.video_status.as_str(),
            status: r.workflow_status.as_str(),
            ecpm: r.ecpm,
            tags: r.tags,
            tracking_status: state_name(r.state),
            tracking_ends_at: rfc3339(r.tracking_ends_at),
            next_refresh_at: r.next_refresh_at.map(rfc3339),
        }
    }
}
