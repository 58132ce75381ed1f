//! Videos (docs/api.md: "POST /v1/videos/track",
//! "GET /v1/videos/stats", the two video reads, the PATCH and its batch,
//! untracking, reading now, exports): one module
//! per endpoint, and here the record as the listing and the reads show it.

use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::analytics::Metrics;
use vidpulse_domain::metrics::cost_per_mille;
use vidpulse_store::{VideoRecord, VideoState};

use crate::app::rfc3339;
use crate::middleware::flat_errors;
use crate::state::AppState;
use crate::v1::analytics::MetricsView;
use crate::v1::stats_map::StatsMap;

mod batch;
mod export;
mod list;
mod patch;
mod read;
mod refresh;
mod track;
mod untrack;

pub use batch::{BATCH_MAX, BatchPatchRequest, BatchPatchResult, BatchTagsResult, BatchVideo};
pub(crate) use batch::{Batch, patch_videos};
pub(crate) use list::list_page;
pub use list::{ListParams, Pagination, VideoPage};
pub(crate) use patch::apply_patch;
pub use patch::{PatchRequest, PatchResult, TagsResultView};
pub use read::OneVideo;
pub(crate) use read::read_video;
pub use refresh::RefreshResult;
pub(crate) use refresh::refresh_video;
pub(crate) use track::track_urls;
pub use track::{MAX_URLS, TrackData, TrackRequest, TrackResult};
pub use untrack::UntrackResult;
pub(crate) use untrack::untrack_video;

/// The video routes.
pub fn router() -> OpenApiRouter<AppState> {
    let flat = OpenApiRouter::new()
        .routes(routes!(list::list_stats))
        .routes(routes!(export::export_videos))
        .route_layer(axum::middleware::from_fn(flat_errors));
    OpenApiRouter::new()
        .routes(routes!(track::track))
        .routes(routes!(batch::patch_batch))
        .routes(routes!(refresh::refresh_by_id))
        .routes(routes!(refresh::refresh_by_external_id))
        .routes(routes!(export::export_history))
        .routes(routes!(read::by_id, untrack::untrack_by_id))
        .routes(routes!(
            read::by_external_id,
            patch::patch_by_external_id,
            untrack::untrack_by_external_id
        ))
        .merge(flat)
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
    /// When tracking ends.
    pub tracking_ends_at: String,
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
        }
    }
}
