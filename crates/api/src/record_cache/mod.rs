//! The record cache: single video answers as recently given, kept
//! compressed, and the splice that sends them ([`gzip`]).
//!
//! A single video read is mostly its history (`stats`: up to 1,650 entries,
//! some 45 KB), and a record changes only when a reading lands or someone
//! edits it. So each API node keeps the answers it gave, compressed, under
//! the record's [`RecordStamp`]; a read asks the database for the stamp
//! alone (one small row) and answers from here when it is unchanged,
//! splicing this answer's `meta` onto the kept bytes ([`gzip`]).
//! The database stays the judge of whether an entry is current, so nodes
//! never disagree. The store's contract suite (`record_stamps.rs`) checks
//! that every column a record shows moves its stamp.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use moka::sync::Cache;
use vidpulse_domain::OrgId;
use vidpulse_store::{RecordStamp, VideoLookup};

use gzip::Deflated;

pub mod gzip;

/// Which read an entry answers: the organization and its lookup.
type Key = (OrgId, VideoLookup);

/// An answer kept under the version of the record it shows.
#[derive(Debug)]
pub struct KeptAnswer {
    /// The record's version.
    pub stamp: RecordStamp,
    /// When time alone changes the record (`None`: never).
    pub changes_at: Option<DateTime<Utc>>,
    /// The answer up to its `meta` value ([`ANSWER_OPENING`], the record,
    /// `},"meta":`), compressed.
    pub body: Deflated,
}

impl KeptAnswer {
    /// Whether this answer still shows the record that has `stamp` at `now`.
    pub fn is_current(&self, stamp: &RecordStamp, now: DateTime<Utc>) -> bool {
        self.stamp == *stamp && self.changes_at.is_none_or(|at| now < at)
    }
}

/// How a single video answer opens, before its `stats` object.
pub const ANSWER_OPENING: &[u8] = br#"{"success":true,"data":{"data":{"stats":"#;

/// Bytes an entry costs beyond its compressed body (key, stamp, the
/// cache's own bookkeeping), roughly.
const ENTRY_OVERHEAD: usize = 256;

/// The kept answers, bounded by their compressed size.
#[derive(Debug, Clone)]
pub struct RecordCache(Option<Cache<Key, Arc<KeptAnswer>>>);

impl RecordCache {
    /// A cache of at most `capacity_bytes` of compressed answers; none
    /// (every read whole) when 0.
    pub fn new(capacity_bytes: u64) -> Self {
        Self((capacity_bytes > 0).then(|| {
            Cache::builder()
                .max_capacity(capacity_bytes)
                .weigher(|_: &Key, kept: &Arc<KeptAnswer>| {
                    u32::try_from(kept.body.compressed_len() + ENTRY_OVERHEAD).unwrap_or(u32::MAX)
                })
                .build()
        }))
    }

    /// The answer kept for `lookup` in `org`, if any.
    pub fn get(&self, org: OrgId, lookup: &VideoLookup) -> Option<Arc<KeptAnswer>> {
        // A borrowed key would need an owned lookup anyway: the clone is
        // a copy for ids and one short string for external ids.
        self.0.as_ref()?.get(&(org, lookup.clone()))
    }

    /// Keeps `body` (an answer up to its `meta` value) for `lookup` in
    /// `org`, replacing an older version, and hands it back compressed;
    /// `None` when the cache keeps nothing.
    pub fn keep(
        &self,
        org: OrgId,
        lookup: VideoLookup,
        stamp: RecordStamp,
        changes_at: Option<DateTime<Utc>>,
        body: &[u8],
    ) -> Option<Arc<KeptAnswer>> {
        let cache = self.0.as_ref()?;
        let body = Deflated::new(body)
            .inspect_err(
                |e| tracing::warn!(error = %e, "an answer could not be compressed; not kept"),
            )
            .ok()?;
        let kept = Arc::new(KeptAnswer {
            stamp,
            changes_at,
            body,
        });
        cache.insert((org, lookup), kept.clone());
        Some(kept)
    }
}

#[cfg(test)]
mod tests;
