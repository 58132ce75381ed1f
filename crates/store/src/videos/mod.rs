//! Tracked videos: tracking URLs, listing, reading and annotating them.

use async_trait::async_trait;
use chrono::{DateTime, Days, Duration, NaiveDate, NaiveTime, Utc};
use uuid::Uuid;
use vidpulse_domain::analytics::{Baseline, DateRange, Metric, Metrics};
use vidpulse_domain::names::TagName;
use vidpulse_domain::patch::{VideoPatch, VideoStatus, WorkflowStatus};
use vidpulse_domain::{ApiKeyId, Counters, Observation, OrgId, Plan, Platform, VideoId, VideoRef};

use crate::StoreError;

/// A request to start tracking videos for an organization.
#[derive(Debug, Clone)]
pub struct TrackBatch {
    /// The organization.
    pub organization_id: OrgId,
    /// The key that asked (for the ledger).
    pub api_key_id: Option<ApiKeyId>,
    /// The request id (for the ledger).
    pub request_id: String,
    /// Tracking start.
    pub now: DateTime<Utc>,
    /// How long tracking lasts.
    pub window: Duration,
    /// Credits charged per newly tracked video.
    pub credits_per_video: i64,
    /// The videos, in request order (duplicates allowed).
    pub videos: Vec<VideoRef>,
    /// Campaign given to the newly tracked videos (a creator's campaign).
    pub campaign: Option<String>,
    /// Budget given to the newly tracked videos (a creator's budget per video).
    pub budget: Option<i64>,
    /// The tracked creator whose backfill or discovery this is.
    pub account: Option<uuid::Uuid>,
}

/// One video of a [`TrackBatch`], once tracked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackedVideo {
    /// The organization's id of the video.
    pub video_id: VideoId,
    /// Whether this request started the tracking (and was charged).
    pub newly_tracked: bool,
    /// The credits the ledger charged for it (0 when already tracked).
    pub credits: i64,
}

/// The result of [`VideoStore::track_videos`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrackOutcome {
    /// Every video is tracked; one entry per requested video, in order.
    Tracked(Vec<TrackedVideo>),
    /// The quota would be exceeded: nothing was written.
    QuotaExceeded {
        /// The organization's plan.
        plan: Plan,
        /// Its video quota.
        quota: i64,
        /// Videos tracked now.
        in_use: i64,
        /// New videos the request would add.
        requested: i64,
    },
}

/// The refresh state of a tracked video as its organization sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoState {
    /// Inside its tracking window and refreshing.
    Active,
    /// Its window is over; history kept, no more reads.
    Completed,
    /// Gone at the platform, or failing its recent reads.
    Failed,
}

/// A tracked video with its history, as one organization sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoRecord {
    /// The organization's id of the video.
    pub video_id: VideoId,
    /// Platform.
    pub platform: Platform,
    /// The platform's id.
    pub external_id: String,
    /// Canonical page URL.
    pub url: String,
    /// Title or caption.
    pub title: Option<String>,
    /// Thumbnail URL.
    pub thumbnail_url: Option<String>,
    /// Author handle.
    pub author_username: Option<String>,
    /// Publish time.
    pub published_at: Option<DateTime<Utc>>,
    /// Latest counters inside the tracking window.
    pub latest: Counters,
    /// When the latest counters were read.
    pub stats_updated_at: Option<DateTime<Utc>>,
    /// When the organization started tracking it.
    pub created_at: DateTime<Utc>,
    /// Tracking window start.
    pub tracking_started_at: DateTime<Utc>,
    /// Tracking window end.
    pub tracking_ends_at: DateTime<Utc>,
    /// Refresh state.
    pub state: VideoState,
    /// The next scheduled read, while the organization's tracking is open
    /// (`None` after it, for a gone video, or when the next read falls
    /// after this organization's tracking ends).
    pub next_refresh_at: Option<DateTime<Utc>>,
    /// Notes.
    pub notes: Option<String>,
    /// Budget.
    pub budget: Option<i64>,
    /// Campaign tag.
    pub campaign: Option<String>,
    /// User label.
    pub video_status: VideoStatus,
    /// Workflow status.
    pub workflow_status: WorkflowStatus,
    /// eCPM.
    pub ecpm: Option<f64>,
    /// Tag names, sorted.
    pub tags: Vec<String>,
    /// Observations inside the tracking window, oldest first.
    pub history: Vec<Observation>,
    /// The version of everything above.
    pub stamp: RecordStamp,
}

impl VideoRecord {
    /// When time alone next changes this record: the end of its tracking
    /// window while it is active (it becomes completed) or shows a next
    /// read (which it stops showing); never otherwise.
    pub fn changes_at(&self) -> Option<DateTime<Utc>> {
        (self.state == VideoState::Active || self.next_refresh_at.is_some())
            .then_some(self.tracking_ends_at)
    }
}

/// Names one version of a record: the tracking, and the revisions of its
/// two rows, moved in the database by every change of what the record
/// shows (its columns, tags and readings; migration 0011). Two reads with
/// the same stamp read the same record, but for what time alone changes
/// ([`VideoRecord::changes_at`]), so a reader may keep what it made of a
/// record under its stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordStamp {
    /// The organization's id of the video.
    pub video_id: VideoId,
    /// The tracked video's revision (its columns and tags).
    pub revision: i64,
    /// The catalog video's revision (its columns and readings).
    pub catalog_revision: i64,
}

/// How to find one tracked video.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum VideoLookup {
    /// By the organization's video id.
    Id(VideoId),
    /// By the platform's id (the most recently tracked when two platforms share it).
    ExternalId(String),
}

impl From<(Uuid, i64, i64)> for RecordStamp {
    /// A stamp from its row: video id, revision, catalog revision.
    fn from((video_id, revision, catalog_revision): (Uuid, i64, i64)) -> Self {
        Self {
            video_id: VideoId(video_id),
            revision,
            catalog_revision,
        }
    }
}

/// Listing filter on the refresh state.
pub type StatusFilter = VideoState;

/// Listing sort keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// When tracking started.
    CreatedAt,
    /// Latest views.
    Views,
    /// Latest likes.
    Likes,
    /// Latest comments.
    Comments,
    /// When the statistics were last read.
    UpdatedAt,
    /// When the platform says the video was published.
    PublishedAt,
    /// What a metric gained over [`ListQuery::window`] (the totals rules).
    Gained(Metric),
}

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    /// Ascending.
    Asc,
    /// Descending.
    Desc,
}

/// A page request of the listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    /// Only this platform.
    pub platform: Option<Platform>,
    /// Only this state.
    pub status: Option<StatusFilter>,
    /// Only videos whose title holds this text, in any case (ASCII case on
    /// SQLite, Unicode lowercase on PostgreSQL).
    pub title: Option<String>,
    /// Only videos of this campaign (exactly).
    pub campaign: Option<String>,
    /// Only videos of the creator with this handle (any case, no `@`).
    pub author: Option<String>,
    /// Only videos carrying every one of these tags (matched by their key,
    /// any case).
    pub tags: Vec<TagName>,
    /// Only videos published at or after this instant.
    pub published_from: Option<DateTime<Utc>>,
    /// Only videos published before this instant.
    pub published_before: Option<DateTime<Utc>>,
    /// Only videos whose tracking started at or after this instant.
    pub tracked_from: Option<DateTime<Utc>>,
    /// Only videos whose tracking started before this instant.
    pub tracked_before: Option<DateTime<Utc>>,
    /// The days a [`SortKey::Gained`] sort measures.
    pub window: DateRange,
    /// Where a gain starts for a video tracked after the window's first day.
    pub baseline: Baseline,
    /// Sort key.
    pub sort: SortKey,
    /// Sort direction.
    pub order: SortOrder,
    /// Page size.
    pub limit: i64,
    /// Rows to skip.
    pub offset: i64,
}

impl ListQuery {
    /// Every video of the organization, newest first, 50 a page; a gained
    /// sort would measure the 30 days ending `today`.
    pub fn all(today: NaiveDate) -> Self {
        Self {
            platform: None,
            status: None,
            title: None,
            campaign: None,
            author: None,
            tags: Vec::new(),
            published_from: None,
            published_before: None,
            tracked_from: None,
            tracked_before: None,
            window: DateRange::window(None, Some(today), today).unwrap_or(DateRange {
                from: today,
                to: today,
            }),
            baseline: Baseline::Window,
            sort: SortKey::CreatedAt,
            order: SortOrder::Desc,
            limit: 50,
            offset: 0,
        }
    }

    /// Whether no filter is set (every video of the organization listed).
    pub fn is_unfiltered(&self) -> bool {
        self.campaign.is_none() && self.is_campaign_only()
    }

    /// Whether no filter but the campaign (if any) is set.
    pub fn is_campaign_only(&self) -> bool {
        self.platform.is_none()
            && self.status.is_none()
            && self.title.is_none()
            && self.author.is_none()
            && self.tags.is_empty()
            && self.published_from.is_none()
            && self.published_before.is_none()
            && self.tracked_from.is_none()
            && self.tracked_before.is_none()
    }
}

/// A leaderboard of videos: the filters of a listing, ranked by what
/// `metric` gained over `window`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TopVideosQuery {
    /// The days measured.
    pub window: DateRange,
    /// Where a gain starts for a video tracked after the window's first day.
    pub baseline: Baseline,
    /// The metric ranked, largest gain first.
    pub metric: Metric,
    /// Only this platform.
    pub platform: Option<Platform>,
    /// Only videos of this campaign (exactly).
    pub campaign: Option<String>,
    /// Only videos of the creator with this handle (any case, no `@`).
    pub author: Option<String>,
    /// At most this many videos.
    pub limit: i64,
}

/// One video of a leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct TopVideo {
    /// The organization's video id.
    pub video_id: VideoId,
    /// The platform's id.
    pub external_id: String,
    /// Title, when known.
    pub title: Option<String>,
    /// Page URL.
    pub url: String,
    /// Platform.
    pub platform: Platform,
    /// Author handle, when known.
    pub author_username: Option<String>,
    /// The five gains over the window.
    pub gains: Metrics,
}

/// A page of results.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The rows.
    pub items: Vec<T>,
    /// Rows matching the filter in all.
    pub total: i64,
}

/// What a tag request did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagsResult {
    /// Names linked to the video by the request (stored spelling).
    pub attached: Vec<String>,
    /// Names the request created.
    pub created: Vec<String>,
    /// Tags on the video afterwards.
    pub total: i64,
}

/// What a PATCH did.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchOutcome {
    /// The organization's id of the video.
    pub video_id: VideoId,
    /// The platform's id.
    pub external_id: String,
    /// Columns written.
    pub updated_fields: Vec<&'static str>,
    /// Present when tags were sent.
    pub tags: Option<TagsResult>,
}

/// Tracked videos.
#[async_trait]
pub trait VideoStore {
    /// Tracks videos for an organization in one transaction: catalog rows,
    /// tracked rows, first reads scheduled now, and the charges in the ledger.
    /// Checks the quota inside the transaction; concurrent calls for the same
    /// video track it once. A new catalog row starts with the author its URL
    /// names ([`VideoRef::handle`](vidpulse_domain::VideoRef::handle)) or,
    /// for a creator's videos, the creator's username, until a read says.
    async fn track_videos(&self, batch: TrackBatch) -> Result<TrackOutcome, StoreError>;

    /// A page of the organization's tracked videos.
    async fn list_videos(
        &self,
        org: OrgId,
        query: &ListQuery,
        now: DateTime<Utc>,
    ) -> Result<Page<VideoRecord>, StoreError>;

    /// The version of each record of a page of the organization's tracked
    /// videos (what [`list_videos`](Self::list_videos) would answer), in
    /// order, and the count: a reader that kept records can tell which to
    /// read again ([`videos_by_id`](Self::videos_by_id)).
    async fn list_stamps(
        &self,
        org: OrgId,
        query: &ListQuery,
        now: DateTime<Utc>,
    ) -> Result<Page<RecordStamp>, StoreError>;

    /// The organization's tracked videos `ids`, whole, in any order; an id
    /// that is not the organization's is absent.
    async fn videos_by_id(
        &self,
        org: OrgId,
        ids: &[VideoId],
        now: DateTime<Utc>,
    ) -> Result<Vec<VideoRecord>, StoreError>;

    /// The organization's videos that gained most of a metric over a window
    /// (the totals rules); videos without a reading in the window are left
    /// out. [`VideoStore::top_video_gains`], then [`VideoStore::top_videos_of`].
    async fn top_videos(
        &self,
        org: OrgId,
        query: &TopVideosQuery,
    ) -> Result<Vec<TopVideo>, StoreError> {
        let ranked = self.top_video_gains(org, query).await?;
        self.top_videos_of(org, &ranked).await
    }

    /// The ranking of [`VideoStore::top_videos`] alone, best first, each
    /// place with its five gains: every matching video's gain computed and
    /// sorted (the costly part). Daily closes and tracking windows alone
    /// decide it, and each of their changes moves the organization's
    /// analytics revision (`AnalyticsStore::analytics_revision`), so it can
    /// be kept under it.
    async fn top_video_gains(
        &self,
        org: OrgId,
        query: &TopVideosQuery,
    ) -> Result<Vec<(VideoId, Metrics)>, StoreError>;

    /// The leaderboard entries of `ranked` (in that order, with those
    /// gains), their platform ids, titles, links and creators read now; a
    /// video no longer tracked is left out.
    async fn top_videos_of(
        &self,
        org: OrgId,
        ranked: &[(VideoId, Metrics)],
    ) -> Result<Vec<TopVideo>, StoreError>;

    /// The gains of the organization's videos `ids` over `window`, by id,
    /// counted from `baseline`; a video without a reading in the window (or
    /// not the organization's) is absent.
    async fn video_gains(
        &self,
        org: OrgId,
        ids: &[VideoId],
        window: DateRange,
        baseline: Baseline,
    ) -> Result<Vec<(VideoId, Metrics)>, StoreError>;

    /// One tracked video of the organization, whole, in one query.
    async fn video(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
        now: DateTime<Utc>,
    ) -> Result<Option<VideoRecord>, StoreError>;

    /// The stamp of the organization's tracked video as it is now: one
    /// small row, for a reader to tell whether a record it kept is current.
    async fn record_stamp(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
    ) -> Result<Option<RecordStamp>, StoreError>;

    /// Applies a validated PATCH to the organization's video `video` names
    /// (by external id: the most recently tracked one), in one transaction;
    /// `None` when there is no such video.
    async fn patch_video(
        &self,
        org: OrgId,
        video: &VideoLookup,
        patch: &VideoPatch,
        now: DateTime<Utc>,
    ) -> Result<Option<PatchOutcome>, StoreError>;

    /// Applies one validated PATCH to each of the organization's videos
    /// `videos` names, in one transaction: all or none. The outcomes in the
    /// order asked (a video named twice is edited once); `Err` with the
    /// lookups that found no video, and nothing written, when some did not.
    async fn patch_videos(
        &self,
        org: OrgId,
        videos: &[VideoLookup],
        patch: &VideoPatch,
        now: DateTime<Utc>,
    ) -> Result<Result<Vec<PatchOutcome>, Vec<VideoLookup>>, StoreError>;

    /// Removes the organization's video `video` names, in one transaction:
    /// its record, notes and tags, the readings it imported and the daily
    /// closes it saw, so its listing and analytics no longer show it. The
    /// shared catalog and other organizations' tracking are untouched; the
    /// quota counts it no more. `None` when there is no such video.
    async fn untrack_video(
        &self,
        org: OrgId,
        video: &VideoLookup,
    ) -> Result<Option<Untracked>, StoreError>;
}

/// A video an organization stopped tracking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untracked {
    /// The organization's id it had.
    pub video_id: VideoId,
    /// The platform's id.
    pub external_id: String,
}

/// How a batch of new videos meets the organization's quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaPolicy {
    /// Past the quota, nothing is tracked (a track request).
    AllOrNothing,
    /// New videos are tracked in order until the quota is full; the rest are
    /// skipped (a creator's backfill and discovery).
    WhatFits,
}

/// The UTC day of `now` and the first instant of the next: the quota counts
/// videos whose window ends after that instant by their day
/// (`tracked_video_ends`) and the rest of today's one by one.
pub(crate) fn quota_day(now: DateTime<Utc>) -> (NaiveDate, DateTime<Utc>) {
    let today = now.date_naive();
    let tomorrow = today
        .checked_add_days(Days::new(1))
        .map_or(DateTime::<Utc>::MAX_UTC, |d| {
            d.and_time(NaiveTime::MIN).and_utc()
        });
    (today, tomorrow)
}

mod gains;
mod record;
mod store;
mod track;

pub(crate) use record::{
    IntoRecord, RecordDialect, StatementsByLookup, VideoRow, record_head, visible_readings,
};
pub(crate) use track::{track_in, videos_in_use};
