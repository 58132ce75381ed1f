//! The refresh queue: claiming due catalog videos and saving what was read.
//!
//! A claim is a lease: `lease_until` and a token. A worker that dies loses
//! nothing; once the lease passes, another worker claims the video again. A
//! write whose token no longer matches (the lease was lost) is ignored, so a
//! due read is saved once.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use vidpulse_domain::{Anchor, OrgId, Platform, RefreshOutcome};

use crate::StoreError;
use crate::credits::Charge;
use crate::videos::VideoLookup;

mod cap;
mod manual;
mod store;

pub(crate) use store::{insert_observations, relink};

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

/// What an ask to refresh a video found.
#[derive(Debug, Clone, PartialEq)]
pub enum RefreshAsk {
    /// The organization has no such video.
    NotFound,
    /// The organization's tracking window has ended: nothing more is read.
    Ended,
    /// The platform reported the video removed or private.
    Gone,
    /// The organization asked within the cooldown already: ask again at
    /// `retry_at`.
    TooSoon {
        /// When an ask will be taken.
        retry_at: DateTime<Utc>,
    },
    /// Another read of the video is under way: ask again in a moment.
    InFlight,
    /// A read within the cooldown (at `read_at`) answers this ask; the ask
    /// is recorded.
    Served {
        /// When the serving read was made.
        read_at: DateTime<Utc>,
    },
    /// Nothing answers it: read the video under this claim, then save with
    /// [`crate::RefreshStore::save_manual_refresh`].
    Claimed(ManualRead),
}

/// A manual read to make: the video claimed, as the queue claims it.
#[derive(Debug, Clone, PartialEq)]
pub struct ManualRead {
    /// The organization's tracked video that asked.
    pub tracked_video_id: Uuid,
    /// The catalog video, claimed.
    pub due: DueVideo,
    /// Its scheduled read, which a manual read leaves where it is.
    pub next_refresh_at: Option<DateTime<Utc>>,
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

    /// The operator's daily read cap (`cap` scheduled reads per
    /// organization per UTC day) over the claimed videos `due`, in order:
    /// the ones to read now, counted as reads of every organization whose
    /// tracking of them is open at `now`. A video every such organization
    /// has reached the cap for today is skipped: counted in their
    /// `reads_skipped`, its claim released and its read moved to the next
    /// UTC day (no read when its tracking ends before). A video no open
    /// tracking accounts for (its last read, closing the window) is read.
    async fn cap_reads(
        &self,
        due: Vec<DueVideo>,
        now: DateTime<Utc>,
        cap: i64,
    ) -> Result<Vec<DueVideo>, StoreError>;

    /// The earliest scheduled read, claimed or not.
    async fn next_refresh_due(&self) -> Result<Option<DateTime<Utc>>, StoreError>;

    /// The anchors of the catalog videos `videos` that have one, for a source
    /// that continues videos from them (the simulated one): each video's
    /// latest reading any organization imported (at one instant, the
    /// earliest tracking's) and the author its earliest tracking naming one
    /// gave (`tracked_videos.own_author`). One query for a claimed batch.
    async fn video_anchors(&self, videos: &[i64]) -> Result<BTreeMap<i64, Anchor>, StoreError>;

    /// An organization asks to read its video `video` now: answered by a
    /// read of the last `cooldown`, refused when the organization asked
    /// within it already, or the video claimed for `lease` to read it
    /// ([`RefreshAsk`]).
    async fn ask_refresh(
        &self,
        org: OrgId,
        video: &VideoLookup,
        now: DateTime<Utc>,
        cooldown: Duration,
        lease: Duration,
    ) -> Result<RefreshAsk, StoreError>;

    /// Saves what a manual read produced, in one transaction: a reading is
    /// saved like a scheduled one (its next read left where it was), the
    /// ask recorded and `charge` written; a failure only frees the claim.
    /// Whether a reading or a removal was saved (the claim still held).
    async fn save_manual_refresh(
        &self,
        read: &ManualRead,
        write: &RefreshWrite,
        charge: &Charge,
    ) -> Result<bool, StoreError>;
}
