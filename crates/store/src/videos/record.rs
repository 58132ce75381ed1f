//! A video record as both backends read it: the columns they share
//! ([`record_head`], [`VideoRow`]), the readings a tracking sees
//! ([`visible_readings`]), and what each backend adds in its own form
//! ([`RecordDialect`], [`IntoRecord`]: tags and history as JSON on SQLite,
//! as arrays on PostgreSQL, in `sqlite/record.rs` and `postgres/record.rs`).

use std::future::Future;
use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::names::tag_key;
use vidpulse_domain::patch::{VideoStatus, WorkflowStatus};
use vidpulse_domain::schedule::FAILING_AFTER_FAILURES;
use vidpulse_domain::{Observation, OrgId, VideoId};

use super::{RecordStamp, VideoLookup, VideoRecord, VideoState};
use crate::StoreError;
use crate::error::{corrupt, parse_platform};
use crate::sql::{Conn, Dialect, Query};

/// A tracked video with its catalog columns: the part of a record both
/// backends read alike. Tags and history come beside it, in each backend's
/// own form ([`IntoRecord`]).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct VideoRow {
    pub video_id: Uuid,
    pub platform: String,
    pub external_id: String,
    pub url: String,
    pub title: Option<String>,
    pub thumbnail_url: Option<String>,
    pub author_username: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub tracking_started_at: DateTime<Utc>,
    pub tracking_ends_at: DateTime<Utc>,
    pub gone: bool,
    pub failures: i64,
    pub notes: Option<String>,
    pub budget: Option<i64>,
    pub campaign: Option<String>,
    pub video_status: String,
    pub workflow_status: String,
    pub ecpm: Option<f64>,
    /// The catalog's next scheduled read.
    pub next_refresh_at: Option<DateTime<Utc>>,
    /// The tracked video's revision.
    pub revision: i64,
    /// The catalog video's revision.
    pub catalog_revision: i64,
}

pub(crate) fn video_state(
    gone: bool,
    failures: i64,
    ends: DateTime<Utc>,
    now: DateTime<Utc>,
) -> VideoState {
    if gone || failures >= FAILING_AFTER_FAILURES {
        VideoState::Failed
    } else if ends <= now {
        VideoState::Completed
    } else {
        VideoState::Active
    }
}

/// How a backend reads a video record: its row type, which selects the
/// record's tags and in-window history in the backend's own form (JSON on
/// SQLite, arrays from one lateral pass on PostgreSQL). Implemented in
/// `sqlite/record.rs` and `postgres/record.rs`.
pub(crate) trait RecordDialect: Dialect {
    /// The row of a video record.
    type RecordRow: for<'r> sqlx::FromRow<'r, <Self as sqlx::Database>::Row>
        + IntoRecord
        + Send
        + Unpin;

    /// What a video record selects ([`IntoRecord::COLUMNS`]).
    const RECORD_COLUMNS: &'static str = <Self::RecordRow as IntoRecord>::COLUMNS;

    /// What a record's `FROM` joins beyond `tv` and `pv`.
    const RECORD_JOIN: &'static str = <Self::RecordRow as IntoRecord>::JOIN;

    /// Runs a query selecting [`RecordDialect::RECORD_COLUMNS`]; its records
    /// as at `now`.
    fn fetch_records(
        query: Query<Self>,
        conn: &mut Conn<Self>,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<Vec<VideoRecord>, StoreError>> + Send {
        async move {
            let rows: Vec<Self::RecordRow> = Self::fetch_all_native(query, conn).await?;
            rows.into_iter().map(|r| r.into_record(now)).collect()
        }
    }
}

/// A backend's row of a video record ([`RecordDialect::RecordRow`]):
/// what it selects and how it becomes a record.
pub(crate) trait IntoRecord {
    /// What a video record selects: a tracked video `tv` joined with its
    /// catalog row `pv` ([`record_head`]), its tags and its in-window history.
    const COLUMNS: &'static str;

    /// What a record's `FROM` joins beyond `tv` and `pv`.
    const JOIN: &'static str = "";

    /// The record it holds, its state as at `now`.
    fn into_record(self, now: DateTime<Utc>) -> Result<VideoRecord, StoreError>;
}

impl VideoRow {
    /// The record, from these columns, the video's tag names and its
    /// in-window readings (both in any order).
    pub(crate) fn into_record(
        self,
        mut tags: Vec<String>,
        mut history: Vec<Observation>,
        now: DateTime<Utc>,
    ) -> Result<VideoRecord, StoreError> {
        tags.sort_by_key(|t| tag_key(t));
        history.sort_by_key(|o| o.captured_at);
        let last = history.last();
        let state = video_state(self.gone, self.failures, self.tracking_ends_at, now);
        // The next read this organization's tracking sees: none once it has
        // ended or the video is gone, nor one after its end.
        let open = !self.gone && self.tracking_ends_at > now;
        let next_refresh_at = self
            .next_refresh_at
            .filter(|at| open && *at <= self.tracking_ends_at);
        Ok(VideoRecord {
            video_id: VideoId(self.video_id),
            platform: parse_platform(&self.platform)?,
            external_id: self.external_id,
            url: self.url,
            title: self.title,
            thumbnail_url: self.thumbnail_url,
            author_username: self.author_username,
            published_at: self.published_at,
            latest: last.map(|o| o.counters).unwrap_or_default(),
            stats_updated_at: last.map(|o| o.captured_at),
            created_at: self.created_at,
            tracking_started_at: self.tracking_started_at,
            tracking_ends_at: self.tracking_ends_at,
            state,
            next_refresh_at,
            notes: self.notes,
            budget: self.budget,
            campaign: self.campaign,
            video_status: VideoStatus::parse(&self.video_status)
                .ok_or_else(|| corrupt(format!("video_status `{}`", self.video_status)))?,
            workflow_status: WorkflowStatus::parse(&self.workflow_status)
                .ok_or_else(|| corrupt(format!("workflow_status `{}`", self.workflow_status)))?,
            ecpm: self.ecpm,
            tags,
            history,
            stamp: RecordStamp {
                video_id: VideoId(self.video_id),
                revision: self.revision,
                catalog_revision: self.catalog_revision,
            },
        })
    }
}

/// The parts of a video record's statement that differ between backends
/// ([`RecordDialect::RECORD_COLUMNS`], [`RecordDialect::RECORD_JOIN`]).
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
    make: fn(&RecordParts, &'static str) -> String,
    conditions: [&'static str; 2],
    /// Per backend, per lookup.
    made: [[OnceLock<String>; 2]; 2],
}

impl StatementsByLookup {
    /// Statements `make` writes from the conditions by id and by external id.
    pub(crate) const fn new(
        make: fn(&RecordParts, &'static str) -> String,
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
    pub(crate) fn query<D: RecordDialect>(
        &'static self,
        org: OrgId,
        lookup: &VideoLookup,
    ) -> Query<D> {
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

/// The readings of catalog video `pv` that tracking `tv`'s organization sees
/// inside its window: the platform's, and its own imports at instants the
/// platform has none. One SQL text for both backends' record reads, as a
/// macro so it can be `concat!`ed into their constant statements.
macro_rules! visible_readings {
    () => {
        "(SELECT captured_at, views, likes, comments, reposts, saves
            FROM observations
           WHERE platform_video_id = pv.id
             AND captured_at >= tv.tracking_started_at AND captured_at <= tv.tracking_ends_at
          UNION ALL
          SELECT i.captured_at, i.views, i.likes, i.comments, i.reposts, i.saves
            FROM imported_observations i
           WHERE i.organization_id = tv.organization_id AND i.platform_video_id = pv.id
             AND i.captured_at >= tv.tracking_started_at AND i.captured_at <= tv.tracking_ends_at
             AND NOT EXISTS (SELECT 1 FROM observations x
                              WHERE x.platform_video_id = pv.id AND x.captured_at = i.captured_at))"
    };
}
pub(crate) use visible_readings;

/// The columns of a video record both backends read alike: a tracked video
/// `tv` joined with its catalog row `pv` (then each backend adds its tags and
/// history, see [`IntoRecord::COLUMNS`]). A macro so it can be `concat!`ed.
macro_rules! record_head {
    () => {
        "
    tv.id AS video_id, pv.platform, pv.external_id, coalesce(tv.own_url, pv.url) AS url,
    coalesce(pv.title, tv.own_title) AS title, pv.thumbnail_url,
    coalesce(pv.author_username, tv.own_author) AS author_username,
    coalesce(pv.published_at, tv.own_published_at) AS published_at,
    tv.created_at, tv.tracking_started_at,
    tv.tracking_ends_at, pv.gone_at IS NOT NULL AS gone, pv.failures, tv.notes, tv.budget,
    tv.campaign, tv.video_status, tv.workflow_status, tv.ecpm, pv.next_refresh_at, tv.revision,
    pv.revision AS catalog_revision,"
    };
}
pub(crate) use record_head;
