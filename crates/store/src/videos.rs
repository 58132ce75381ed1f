//! Tracked videos: tracking URLs, listing, reading and annotating them.

use std::sync::LazyLock;

use async_trait::async_trait;
use chrono::{DateTime, Days, Duration, NaiveDate, NaiveTime, Utc};
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
    /// The catalog video's history revision (see [`HistoryStamp`]).
    pub history_revision: i64,
}

impl VideoRecord {
    /// The stamp of this record's history.
    pub fn history_stamp(&self) -> HistoryStamp {
        HistoryStamp {
            video_id: self.video_id,
            revision: self.history_revision,
            from: self.tracking_started_at,
            to: self.tracking_ends_at,
        }
    }
}

/// Names one version of a record's history: the tracking, its window, and
/// the revision of the catalog video's readings (moved by every write that
/// adds or removes one). Two reads with the same stamp carry the same
/// history, so a reader may keep what it made of a history under its stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryStamp {
    /// The organization's id of the video.
    pub video_id: VideoId,
    /// The catalog video's history revision.
    pub revision: i64,
    /// Tracking window start.
    pub from: DateTime<Utc>,
    /// Tracking window end.
    pub to: DateTime<Utc>,
}

/// A record as [`VideoStore::read_video`] found it.
#[derive(Debug, Clone, PartialEq)]
pub enum VideoRead {
    /// The whole record.
    Whole(VideoRecord),
    /// The record without its history, which is still the one the caller's
    /// stamp names: `history` is empty, `latest` and `stats_updated_at`
    /// unset (they are read off the history).
    HistoryUnchanged(VideoRecord),
}

/// How to find one tracked video.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum VideoLookup {
    /// By the organization's video id.
    Id(VideoId),
    /// By the platform's id (the most recently tracked when two platforms share it).
    ExternalId(String),
}

/// A backend's two statements for reading a record, by id and by external
/// id, each made on first use.
pub(crate) struct StatementsByLookup {
    by_id: LazyLock<String>,
    by_external_id: LazyLock<String>,
}

impl StatementsByLookup {
    /// Statements that `by_id` and `by_external_id` make.
    pub(crate) const fn new(by_id: fn() -> String, by_external_id: fn() -> String) -> Self {
        Self {
            by_id: LazyLock::new(by_id),
            by_external_id: LazyLock::new(by_external_id),
        }
    }

    /// The statement for `lookup`.
    pub(crate) fn get(&self, lookup: &VideoLookup) -> &str {
        match lookup {
            VideoLookup::Id(_) => &self.by_id,
            VideoLookup::ExternalId(_) => &self.by_external_id,
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
    /// When the statistics were last read.
    UpdatedAt,
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
    /// Sort key.
    pub sort: SortKey,
    /// Sort direction.
    pub order: SortOrder,
    /// Page size.
    pub limit: i64,
    /// Rows to skip.
    pub offset: i64,
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
    /// video track it once.
    async fn track_videos(&self, batch: TrackBatch) -> Result<TrackOutcome, StoreError>;

    /// A page of the organization's tracked videos.
    async fn list_videos(
        &self,
        org: OrgId,
        query: &ListQuery,
        now: DateTime<Utc>,
    ) -> Result<Page<VideoRecord>, StoreError>;

    /// One tracked video of the organization, in one query; its history is
    /// not read again when `known` still names it (same tracking, window and
    /// revision).
    async fn read_video(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
        now: DateTime<Utc>,
        known: Option<&HistoryStamp>,
    ) -> Result<Option<VideoRead>, StoreError>;

    /// One tracked video of the organization, whole.
    async fn video(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
        now: DateTime<Utc>,
    ) -> Result<Option<VideoRecord>, StoreError> {
        match self.read_video(org, lookup, now, None).await? {
            Some(VideoRead::Whole(record)) => Ok(Some(record)),
            None => Ok(None),
            // Nothing was known, so the history is always read.
            Some(VideoRead::HistoryUnchanged(_)) => Err(StoreError::Corrupt(
                "a record read without a stamp came without its history".into(),
            )),
        }
    }

    /// Applies a validated PATCH to the organization's video with that
    /// external id, in one transaction; `None` when there is no such video.
    async fn patch_video(
        &self,
        org: OrgId,
        external_id: &str,
        patch: &VideoPatch,
        now: DateTime<Utc>,
    ) -> Result<Option<PatchOutcome>, StoreError>;
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

/// What a by-key read makes of its record: whole when the history was read;
/// unchanged when the stamp matched in the database (tracking and revision)
/// and the window matches too; `None` when only the window moved (an import
/// moved the tracking start back): the caller reads again, whole.
pub(crate) fn settle_read(
    record: VideoRecord,
    history_unchanged: bool,
    known: Option<&HistoryStamp>,
) -> Option<VideoRead> {
    if !history_unchanged {
        Some(VideoRead::Whole(record))
    } else if known.is_some_and(|k| *k == record.history_stamp()) {
        Some(VideoRead::HistoryUnchanged(record))
    } else {
        None
    }
}
