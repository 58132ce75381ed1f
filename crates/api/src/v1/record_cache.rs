//! Video records' histories as recently answered, kept compressed.
//!
//! A single video read is mostly its history (`stats`: up to 1,650 entries,
//! some 45 KB), which changes only when a reading lands, while the record's
//! other fields may change at any time. So the read asks the store for the
//! record without its history when the history is still the one kept here
//! (the store compares the [`HistoryStamp`]), and the answer is spliced from
//! the kept, compressed opening and this answer's own fields and meta
//! ([`crate::gzip`]). Each API node keeps its own; the database stays the
//! judge of whether an entry is current, so nodes never disagree.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use moka::sync::Cache;
use vidpulse_domain::OrgId;
use vidpulse_domain::metrics::Counters;
use vidpulse_store::{HistoryStamp, VideoLookup};

use crate::gzip::Deflated;

/// Which read an entry answers: the organization and its lookup.
type Key = (OrgId, VideoLookup);

/// The part of a record read off its history, under the stamp it was read with.
#[derive(Debug)]
pub struct KeptHistory {
    /// The history's version.
    pub stamp: HistoryStamp,
    /// The answer's opening up to and including the comma after `stats`
    /// ([`ANSWER_OPENING`], the `stats` object, `,`), compressed.
    pub opening: Deflated,
    /// The latest reading's counters.
    pub latest: Counters,
    /// When the latest reading was taken.
    pub stats_updated_at: Option<DateTime<Utc>>,
}

/// How a single video answer opens, before its `stats` object.
pub const ANSWER_OPENING: &[u8] = br#"{"success":true,"data":{"data":{"stats":"#;

/// Bytes an entry costs beyond its compressed opening (key, stamp, counters,
/// the cache's own bookkeeping), roughly.
const ENTRY_OVERHEAD: usize = 256;

/// The kept histories, bounded by their compressed size.
#[derive(Debug, Clone)]
pub struct RecordCache(Option<Cache<Key, Arc<KeptHistory>>>);

impl RecordCache {
    /// A cache of at most `capacity_bytes` of compressed histories; none
    /// (every read whole) when 0.
    pub fn new(capacity_bytes: u64) -> Self {
        Self((capacity_bytes > 0).then(|| {
            Cache::builder()
                .max_capacity(capacity_bytes)
                .weigher(|_: &Key, kept: &Arc<KeptHistory>| {
                    u32::try_from(kept.opening.compressed_len() + ENTRY_OVERHEAD)
                        .unwrap_or(u32::MAX)
                })
                .build()
        }))
    }

    /// Whether histories are kept at all.
    pub fn enabled(&self) -> bool {
        self.0.is_some()
    }

    /// The history kept for `lookup` in `org`, if any.
    pub fn get(&self, org: OrgId, lookup: &VideoLookup) -> Option<Arc<KeptHistory>> {
        // A borrowed key would need an owned lookup anyway: the clone is
        // a copy for ids and one short string for external ids.
        self.0.as_ref()?.get(&(org, lookup.clone()))
    }

    /// Keeps `kept` for `lookup` in `org` (replacing an older version) and
    /// hands it back.
    pub fn keep(&self, org: OrgId, lookup: VideoLookup, kept: KeptHistory) -> Arc<KeptHistory> {
        let kept = Arc::new(kept);
        if let Some(cache) = &self.0 {
            cache.insert((org, lookup), kept.clone());
        }
        kept
    }
}
