//! Tracked videos: tracking URLs, listing, reading and annotating them.

use std::sync::OnceLock;

use async_trait::async_trait;
use chrono::{DateTime, Days, Duration, NaiveDate, NaiveTime, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::names::tag_key;
use vidpulse_domain::patch::{VideoPatch, VideoStatus, WorkflowStatus};
use vidpulse_domain::plan::Limits;
use vidpulse_domain::schedule::FAILING_AFTER_FAILURES;
use vidpulse_domain::{ApiKeyId, Counters, Observation, OrgId, Plan, Platform, VideoId, VideoRef};

use crate::StoreError;
use crate::closes;
use crate::refresh::relink;
use crate::rollup::{self, Scope, Shares};
use crate::rows::{list_order, state_name};
use crate::sql::{Dialect, Query, SqlStore, Tx};

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
    /// The version of everything above.
    pub stamp: RecordStamp,
}

impl VideoRecord {
    /// When time alone next changes this record: the end of its tracking
    /// window while it is active (it becomes completed); never otherwise.
    pub fn changes_at(&self) -> Option<DateTime<Utc>> {
        (self.state == VideoState::Active).then_some(self.tracking_ends_at)
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

/// The parts of a video record's statement that differ between backends
/// ([`Dialect::RECORD_COLUMNS`], [`Dialect::RECORD_JOIN`]).
pub(crate) struct RecordParts {
    /// What the record selects.
    pub columns: &'static str,
    /// What its `FROM` joins beyond `tv` and `pv`.
    pub join: &'static str,
}

/// A statement finding one tracked video, by id and by external id: `make`
/// writes it from the backend's [`RecordParts`] and the lookup's condition
/// (on `tv.organization_id` bound first, the key second), once per backend
/// and lookup, on first use.
pub(crate) struct StatementsByLookup {
    make: fn(&RecordParts, &str) -> String,
    conditions: [&'static str; 2],
    /// Per backend, per lookup.
    made: [[OnceLock<String>; 2]; 2],
}

impl StatementsByLookup {
    /// Statements `make` writes from the conditions by id and by external id.
    pub(crate) const fn new(
        make: fn(&RecordParts, &str) -> String,
        by_id: &'static str,
        by_external_id: &'static str,
    ) -> Self {
        Self {
            make,
            conditions: [by_id, by_external_id],
            made: [
                [OnceLock::new(), OnceLock::new()],
                [OnceLock::new(), OnceLock::new()],
            ],
        }
    }

    /// The query finding `lookup` among `org`'s videos, bound.
    pub(crate) fn query<D: Dialect>(&'static self, org: OrgId, lookup: &VideoLookup) -> Query<D> {
        let by = match lookup {
            VideoLookup::Id(_) => 0,
            VideoLookup::ExternalId(_) => 1,
        };
        let backend = match D::BACKEND {
            crate::Backend::Sqlite => 0,
            crate::Backend::Postgres => 1,
        };
        let sql = self.made[backend][by].get_or_init(|| {
            let parts = RecordParts {
                columns: D::RECORD_COLUMNS,
                join: D::RECORD_JOIN,
            };
            (self.make)(&parts, self.conditions[by])
        });
        let query = D::query(AssertSqlSafe(sql.as_str())).bind(org.0);
        match lookup {
            VideoLookup::Id(id) => query.bind(id.0),
            VideoLookup::ExternalId(external_id) => query.bind(external_id.as_str()),
        }
    }
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

/// The statements of [`VideoStore::video`].
static READ_VIDEO: StatementsByLookup = StatementsByLookup::new(
    |record, lookup| {
        format!(
            "SELECT {columns}
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             {join}
             WHERE tv.organization_id = $1 AND {lookup}",
            columns = record.columns,
            join = record.join,
        )
    },
    BY_ID,
    BY_EXTERNAL_ID,
);

/// The statements of [`VideoStore::record_stamp`].
static READ_STAMP: StatementsByLookup = StatementsByLookup::new(
    |_, lookup| {
        format!(
            "SELECT tv.id, tv.revision, pv.revision
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND {lookup}"
        )
    },
    BY_ID,
    BY_EXTERNAL_ID,
);

/// How a single read finds its video by id ...
const BY_ID: &str = "tv.id = $2";
/// ... and by external id (the most recently tracked, across platforms).
const BY_EXTERNAL_ID: &str = "pv.external_id = $2 ORDER BY tv.created_at DESC LIMIT 1";

#[async_trait]
impl<D: Dialect> VideoStore for SqlStore<D> {
    async fn track_videos(&self, batch: TrackBatch) -> Result<TrackOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let outcome = track_in(&mut tx, &batch, "video_track", QuotaPolicy::AllOrNothing).await?;
        if matches!(outcome, TrackOutcome::Tracked(_)) {
            tx.commit().await?;
        }
        Ok(outcome)
    }

    async fn list_videos(
        &self,
        org: OrgId,
        query: &ListQuery,
        now: DateTime<Utc>,
    ) -> Result<Page<VideoRecord>, StoreError> {
        let order = list_order(query);
        // The page's ids first (an index walk for the default order), then
        // the wide columns (tags, history) of those rows only; the count apart.
        let list_from = list_from::<D>();
        let sql = format!(
            "WITH page AS (
               SELECT tv.id AS page_id {list_from}
               ORDER BY {order} LIMIT $6 OFFSET $7)
             SELECT {columns}
             FROM page JOIN tracked_videos tv ON tv.id = page.page_id
             JOIN platform_videos pv ON pv.id = tv.platform_video_id
             {join}
             ORDER BY {order}",
            columns = D::RECORD_COLUMNS,
            join = D::RECORD_JOIN,
        );
        let mut conn = self.read().await?;
        let page = D::query(AssertSqlSafe(sql))
            .bind(org.0)
            .bind(query.platform.map(|p| p.id()))
            .bind(query.status.map(state_name))
            .bind(now)
            .bind(FAILING_AFTER_FAILURES)
            .bind(query.limit)
            .bind(query.offset);
        let items = D::fetch_records(page, &mut conn, now).await?;
        let total: i64 = if query.platform.is_none() && query.status.is_none() {
            // Unfiltered: the organization's index alone answers.
            D::query("SELECT count(*) FROM tracked_videos WHERE organization_id = $1")
                .bind(org.0)
                .fetch_scalar(&mut conn)
                .await?
        } else {
            D::query(AssertSqlSafe(format!("SELECT count(*) {list_from}")))
                .bind(org.0)
                .bind(query.platform.map(|p| p.id()))
                .bind(query.status.map(state_name))
                .bind(now)
                .bind(FAILING_AFTER_FAILURES)
                .fetch_scalar(&mut conn)
                .await?
        };
        Ok(Page { items, total })
    }

    async fn video(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
        now: DateTime<Utc>,
    ) -> Result<Option<VideoRecord>, StoreError> {
        let query = READ_VIDEO.query::<D>(org, lookup);
        let records = D::fetch_records(query, &mut *self.read().await?, now).await?;
        Ok(records.into_iter().next())
    }

    async fn record_stamp(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
    ) -> Result<Option<RecordStamp>, StoreError> {
        let row: Option<(Uuid, i64, i64)> = READ_STAMP
            .query::<D>(org, lookup)
            .fetch_optional(&mut *self.read().await?)
            .await?;
        Ok(row.map(RecordStamp::from))
    }

    async fn patch_video(
        &self,
        org: OrgId,
        external_id: &str,
        patch: &VideoPatch,
        now: DateTime<Utc>,
    ) -> Result<Option<PatchOutcome>, StoreError> {
        let mut tx = self.write_tx().await?;
        let Some((video_id, catalog_id)): Option<(Uuid, i64)> = D::query(
            "SELECT tv.id, tv.platform_video_id FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND pv.external_id = $2
             ORDER BY tv.created_at DESC LIMIT 1",
        )
        .bind(org.0)
        .bind(external_id)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(None);
        };
        // A new campaign moves the video's analytics to another cell.
        let scope = match patch.campaign {
            Some(_) => Scope::tracked_by(org.0, [catalog_id]),
            None => Scope::default(),
        };
        let before = rollup::shares(&mut tx, &scope).await?;
        D::query(AssertSqlSafe(format!(
            "UPDATE tracked_videos SET
               notes = CASE WHEN $2 THEN {notes} ELSE notes END,
               budget = CASE WHEN $4 THEN {budget} ELSE budget END,
               campaign = CASE WHEN $6 THEN {campaign} ELSE campaign END,
               video_status = coalesce({video_status}, video_status),
               workflow_status = coalesce({workflow_status}, workflow_status),
               ecpm = CASE WHEN $10 THEN {ecpm} ELSE ecpm END,
               updated_at = $12
             WHERE id = $1",
            notes = D::typed("$3", "text"),
            budget = D::typed("$5", "bigint"),
            campaign = D::typed("$7", "text"),
            video_status = D::typed("$8", "text"),
            workflow_status = D::typed("$9", "text"),
            ecpm = D::typed("$11", "float8"),
        )))
        .bind(video_id)
        .bind(patch.notes.is_some())
        .bind(patch.notes.clone().flatten())
        .bind(patch.budget.is_some())
        .bind(patch.budget.flatten())
        .bind(patch.campaign.is_some())
        .bind(patch.campaign.clone().flatten())
        .bind(patch.video_status.map(|s| s.as_str()))
        .bind(patch.status.map(|s| s.as_str()))
        .bind(patch.ecpm.is_some())
        .bind(patch.ecpm.flatten())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        rollup::settle(&mut tx, &scope, before).await?;
        let tags = match &patch.tags {
            Some(names) => Some(attach_tags(&mut tx, org, video_id, names, now).await?),
            None => None,
        };
        tx.commit().await?;
        Ok(Some(PatchOutcome {
            video_id: VideoId(video_id),
            external_id: external_id.to_owned(),
            updated_fields: patch.written_columns(),
            tags,
        }))
    }
}

/// Links tags (created when unknown, matched ignoring case) to a tracked video.
async fn attach_tags<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    video_id: Uuid,
    names: &[String],
    now: DateTime<Utc>,
) -> Result<TagsResult, StoreError> {
    let mut attached = Vec::with_capacity(names.len());
    let mut created = Vec::new();
    for name in names {
        let lower = tag_key(name);
        let existing: Option<(Uuid, String)> =
            D::query("SELECT id, name FROM tags WHERE organization_id = $1 AND name_lower = $2")
                .bind(org.0)
                .bind(&lower)
                .fetch_optional(&mut **tx)
                .await?;
        let (tag_id, stored) = match existing {
            Some(found) => found,
            None => {
                let id = Uuid::now_v7();
                D::query(
                    "INSERT INTO tags (id, organization_id, name, name_lower, created_at)
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(id)
                .bind(org.0)
                .bind(name)
                .bind(&lower)
                .bind(now)
                .execute(&mut **tx)
                .await?;
                created.push(name.clone());
                (id, name.clone())
            }
        };
        D::query("INSERT INTO video_tags (tracked_video_id, tag_id) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(video_id)
            .bind(tag_id)
            .execute(&mut **tx)
            .await?;
        attached.push(stored);
    }
    let total: i64 = D::query("SELECT count(*) FROM video_tags WHERE tracked_video_id = $1")
        .bind(video_id)
        .fetch_scalar(&mut **tx)
        .await?;
    Ok(TagsResult {
        attached,
        created,
        total,
    })
}

/// The listing's rows. Parameters: $1 organization, $2 platform or NULL,
/// $3 state name or NULL, $4 now, $5 failing threshold.
fn list_from<D: Dialect>() -> String {
    format!(
        "
    FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
    WHERE tv.organization_id = $1
      AND ({platform} IS NULL OR pv.platform = $2)
      AND ({state} IS NULL OR $3 = CASE
            WHEN pv.gone_at IS NOT NULL OR pv.failures >= $5 THEN 'failed'
            WHEN tv.tracking_ends_at <= $4 THEN 'completed'
            ELSE 'active' END)",
        platform = D::typed("$2", "text"),
        state = D::typed("$3", "text"),
    )
}

/// The organization's videos still in their tracking window at `now`: the
/// day counts after today's (`tracked_video_ends`, kept by triggers) plus
/// today's videos counted one by one. Call it holding the organization's
/// lock (see [`track_in`]) so that no concurrent track changes the answer.
pub(crate) async fn videos_in_use<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let (today, tomorrow) = quota_day(now);
    D::query(
        "SELECT CAST((SELECT coalesce(sum(videos), 0) FROM tracked_video_ends
                 WHERE organization_id = $1 AND end_day > $3) AS BIGINT)
              + (SELECT count(*) FROM tracked_videos
                 WHERE organization_id = $1 AND tracking_ends_at > $2
                   AND tracking_ends_at < $4)",
    )
    .bind(org.0)
    .bind(now)
    .bind(today)
    .bind(tomorrow)
    .fetch_scalar(&mut **tx)
    .await
}

/// Tracks a batch inside `tx`, charging `reason` per newly tracked video.
/// [`QuotaPolicy::AllOrNothing`] refuses the whole batch past the quota;
/// [`QuotaPolicy::WhatFits`] tracks new videos in order until the quota is
/// full and leaves the rest out of the result.
pub(crate) async fn track_in<D: Dialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    reason: &str,
    policy: QuotaPolicy,
) -> Result<TrackOutcome, StoreError> {
    // Locks the organization: concurrent track requests queue here, so the
    // quota check and the inserts below see each other.
    let (plan, quota_override): (String, Option<i64>) = D::query(AssertSqlSafe(format!(
        "SELECT plan, video_quota FROM organizations WHERE id = $1 {}",
        D::ORG_LOCK
    )))
    .bind(batch.organization_id.0)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or(StoreError::NotFound)?;
    let plan: Plan = plan
        .parse()
        .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
    let quota = Limits::of(plan, quota_override, None).video_quota;

    // Which videos the organization tracks already (first occurrence wins).
    let mut known: Vec<((vidpulse_domain::Platform, &str), Option<Uuid>)> = Vec::new();
    for v in &batch.videos {
        let key = (v.platform, v.external_id.as_str());
        if known.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let existing: Option<Uuid> = D::query(
            "SELECT tv.id FROM tracked_videos tv
             JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND pv.platform = $2 AND pv.external_id = $3",
        )
        .bind(batch.organization_id.0)
        .bind(v.platform.id())
        .bind(&v.external_id)
        .fetch_scalar_optional(&mut **tx)
        .await?;
        known.push((key, existing));
    }
    let requested = known.iter().filter(|(_, id)| id.is_none()).count() as i64;
    let mut allowed = requested;
    if requested > 0 {
        let in_use = videos_in_use(tx, batch.organization_id, batch.now).await?;
        allowed = (quota - in_use).max(0);
        if policy == QuotaPolicy::AllOrNothing && in_use + requested > quota {
            return Ok(TrackOutcome::QuotaExceeded {
                plan,
                quota,
                in_use,
                requested,
            });
        }
    }

    let ends = batch.now + batch.window;
    // A creator's backfill and discoveries are that creator's videos.
    let account_author: Option<String> = match batch.account {
        Some(account) => {
            D::query(
                "SELECT c.username FROM tracked_accounts ta
                 JOIN creators c ON c.id = ta.creator_id WHERE ta.id = $1",
            )
            .bind(account)
            .fetch_scalar_optional(&mut **tx)
            .await?
        }
        None => None,
    };
    let mut results = Vec::with_capacity(batch.videos.len());
    let mut started: Vec<((vidpulse_domain::Platform, &str), Uuid)> = Vec::new();
    let mut new_catalog_ids = Vec::new();
    for v in &batch.videos {
        let key = (v.platform, v.external_id.as_str());
        if let Some((_, id)) = started.iter().find(|(k, _)| *k == key) {
            results.push(TrackedVideo {
                video_id: VideoId(*id),
                newly_tracked: false,
            });
            continue;
        }
        let existing = known
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, id)| *id);
        if let Some(id) = existing {
            results.push(TrackedVideo {
                video_id: VideoId(id),
                newly_tracked: false,
            });
            continue;
        }
        if started.len() as i64 >= allowed {
            // What fits is tracked; the rest is skipped (QuotaPolicy::WhatFits).
            continue;
        }
        let catalog_id: i64 = D::query(AssertSqlSafe(format!(
            "INSERT INTO platform_videos
               (platform, external_id, url, tracking_started_at, refresh_until, next_refresh_at,
                created_at, author_username)
             VALUES ($1, $2, $3, $4, $5, $4, $4, $6)
             ON CONFLICT (platform, external_id) DO UPDATE SET
               tracking_started_at = excluded.tracking_started_at,
               refresh_until = {}(platform_videos.refresh_until, excluded.refresh_until),
               next_refresh_at = CASE
                 WHEN platform_videos.gone_at IS NOT NULL THEN NULL
                 WHEN platform_videos.next_refresh_at < excluded.next_refresh_at
                   THEN platform_videos.next_refresh_at
                 ELSE excluded.next_refresh_at END
             RETURNING id",
            D::GREATEST
        )))
        .bind(v.platform.id())
        .bind(&v.external_id)
        .bind(&v.canonical_url)
        .bind(batch.now)
        .bind(ends)
        // Only a new catalog row takes it: an existing row keeps its author
        // (changing it would move other organizations' analytics shares).
        .bind(v.handle().or(account_author.as_deref()))
        .fetch_scalar(&mut **tx)
        .await?;
        let video_id = VideoId::new();
        D::query(
            "INSERT INTO tracked_videos
               (id, organization_id, platform_video_id, tracking_started_at, tracking_ends_at,
                created_at, updated_at, campaign, budget, tracked_account_id)
             VALUES ($1, $2, $3, $4, $5, $4, $4, $6, $7, $8)",
        )
        .bind(video_id.0)
        .bind(batch.organization_id.0)
        .bind(catalog_id)
        .bind(batch.now)
        .bind(ends)
        .bind(&batch.campaign)
        .bind(batch.budget)
        .bind(batch.account)
        .execute(&mut **tx)
        .await?;
        if let Some(account) = batch.account {
            // The tracked creator's tags go to its new videos.
            D::query(
                "INSERT INTO video_tags (tracked_video_id, tag_id)
                 SELECT $1, tag_id FROM account_tags WHERE tracked_account_id = $2",
            )
            .bind(video_id.0)
            .bind(account)
            .execute(&mut **tx)
            .await?;
        }
        D::query(
            "INSERT INTO credit_ledger
               (organization_id, api_key_id, request_id, amount, reason, subject, created_at)
             VALUES ($1, $2, $3, $4, $7, $5, $6)",
        )
        .bind(batch.organization_id.0)
        .bind(batch.api_key_id.map(|k| k.0))
        .bind(&batch.request_id)
        .bind(batch.credits_per_video)
        .bind(video_id.0.to_string())
        .bind(batch.now)
        .bind(reason)
        .execute(&mut **tx)
        .await?;
        started.push((key, video_id.0));
        new_catalog_ids.push(catalog_id);
        results.push(TrackedVideo {
            video_id,
            newly_tracked: true,
        });
    }
    // A video another organization already reads may have a reading taken
    // at this very instant, which this tracking sees: it joins its closes.
    let revealed = closes::reveal_platform_readings::<D>(
        tx,
        batch.organization_id.0,
        &new_catalog_ids,
        batch.now,
        None,
    )
    .await?;
    relink(tx, revealed).await?;
    let scope = Scope::tracked_by(batch.organization_id.0, new_catalog_ids);
    rollup::settle(tx, &scope, Shares::new()).await?;
    Ok(TrackOutcome::Tracked(results))
}
