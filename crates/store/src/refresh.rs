//! The refresh queue: claiming due catalog videos and saving what was read.
//!
//! A claim is a lease: `lease_until` and a token. A worker that dies loses
//! nothing; once the lease passes, another worker claims the video again. A
//! write whose token no longer matches (the lease was lost) is ignored, so a
//! due read is saved once.

use async_trait::async_trait;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use sqlx::{Database, Encode, Executor, FromRow, IntoArguments, Type};
use uuid::Uuid;
use vidpulse_domain::{Counters, ObservationSource, Platform};

use crate::StoreError;
use crate::rollup::Scope;

/// A catalog video due for a read, claimed by one worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueVideo {
    /// Catalog id.
    pub id: i64,
    /// Platform.
    pub platform: Platform,
    /// The platform's id.
    pub external_id: String,
    /// Start of the most recent tracking (picks the schedule tier).
    pub tracking_started_at: DateTime<Utc>,
    /// Latest tracking end over all organizations.
    pub refresh_until: DateTime<Utc>,
    /// Consecutive failed reads so far.
    pub failures: i64,
    /// The claim's token, to present when saving.
    pub lease_token: Uuid,
}

/// Metadata read with the counters; `None` fields keep the stored value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogMeta {
    /// Title or caption.
    pub title: Option<String>,
    /// Thumbnail URL.
    pub thumbnail_url: Option<String>,
    /// Author handle.
    pub author_username: Option<String>,
    /// Author display name.
    pub author_display_name: Option<String>,
    /// Publish time.
    pub published_at: Option<DateTime<Utc>>,
    /// Canonical page URL (replaces a URL built without the author's handle).
    pub canonical_url: Option<String>,
}

/// What a read of one video produced.
#[derive(Debug, Clone, PartialEq)]
pub enum RefreshOutcome {
    /// Counters were read: append an observation and move the daily close.
    Observed {
        /// The counters.
        counters: Counters,
        /// The metadata.
        meta: CatalogMeta,
        /// The adapter that read them.
        source: ObservationSource,
    },
    /// The platform reports the video removed or private: stop refreshing.
    Gone {
        /// What the platform said.
        reason: String,
    },
    /// The read failed: count the failure and keep (or back off) the schedule.
    Failed {
        /// What went wrong.
        error: String,
    },
}

/// The result of one claimed read, to save.
#[derive(Debug, Clone, PartialEq)]
pub struct RefreshWrite {
    /// Catalog id.
    pub video_id: i64,
    /// The claim's token.
    pub lease_token: Uuid,
    /// When the read happened.
    pub read_at: DateTime<Utc>,
    /// What it produced.
    pub outcome: RefreshOutcome,
    /// When to read next; `None` stops refreshing.
    pub next_refresh_at: Option<DateTime<Utc>>,
}

/// The closes whose analytics shares the counters read in `writes` can move
/// (only reads whose lease still holds): each video's close of the read day
/// and after, or every close when the read changes the video's author.
/// `held_sql` reads `author_username` of video `1` under lease token `2`.
pub(crate) async fn observed_scope<DB>(
    conn: &mut DB::Connection,
    held_sql: &'static str,
    writes: &[RefreshWrite],
) -> Result<Scope, StoreError>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'q> Uuid: Encode<'q, DB> + Type<DB>,
    for<'q> <DB as Database>::Arguments: IntoArguments<DB>,
    for<'r> (Option<String>,): FromRow<'r, DB::Row>,
{
    let mut scope = Scope::default();
    for w in writes {
        let RefreshOutcome::Observed { meta, .. } = &w.outcome else {
            continue;
        };
        let held: Option<(Option<String>,)> = sqlx::query_as::<DB, _>(held_sql)
            .bind(w.video_id)
            .bind(w.lease_token)
            .fetch_optional(&mut *conn)
            .await?;
        if let Some((author,)) = held {
            scope.add(w.video_id, shares_from(w, meta, author.as_deref()));
        }
    }
    Ok(scope)
}

/// The first day whose analytics shares a read can move: the read's day, or
/// `None` (every day) when it changes the video's author, which moves all
/// of the video's closes to another creator.
fn shares_from(
    w: &RefreshWrite,
    meta: &CatalogMeta,
    stored_author: Option<&str>,
) -> Option<NaiveDate> {
    match meta.author_username.as_deref() {
        Some(new) if Some(new) != stored_author => None,
        _ => Some(w.read_at.date_naive()),
    }
}

/// The refresh queue.
#[async_trait]
pub trait RefreshStore {
    /// Claims up to `limit` videos due at `now`, oldest due first, for `lease`.
    /// Safe to call from many workers at once: no video is claimed twice
    /// while its lease holds.
    async fn claim_due_videos(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueVideo>, StoreError>;

    /// Saves read results in one transaction; returns how many were saved
    /// (a write whose lease was lost is skipped).
    async fn save_refreshes(&self, writes: &[RefreshWrite]) -> Result<usize, StoreError>;

    /// The earliest scheduled read, claimed or not.
    async fn next_refresh_due(&self) -> Result<Option<DateTime<Utc>>, StoreError>;
}
