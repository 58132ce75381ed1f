//! The record cache: video records as recently shown, kept compressed,
//! and the splice that sends them ([`gzip`]).
//!
//! A video record is mostly its history (`stats`: up to 1,650 entries,
//! some 45 KB), and it changes only when a reading lands or someone edits
//! it. So each API node keeps the records it showed, as JSON and
//! compressed, under their [`RecordStamp`]; a single read, or a page of the
//! listing, asks the database for the stamps alone (small rows) and shows
//! each record whose stamp is unchanged from here, splicing the kept bytes
//! between the answer's own parts ([`answer`]). The database stays the
//! judge of whether an entry is current, so nodes never disagree. The
//! store's contract suite (`record_stamps.rs`) checks that every column a
//! record shows moves its stamp.

use std::sync::Arc;

use axum::http::HeaderValue;
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE, VARY};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use moka::sync::Cache;
use vidpulse_domain::OrgId;
use vidpulse_store::{RecordStamp, VideoLookup};

use crate::error::ApiError;
use gzip::{Deflated, Part};

pub mod gzip;

/// Which record an entry shows: the organization and its lookup.
type Key = (OrgId, VideoLookup);

/// A record's JSON kept under the version of the record it shows.
#[derive(Debug)]
pub struct KeptAnswer {
    /// The record's version.
    pub stamp: RecordStamp,
    /// When time alone changes the record (`None`: never).
    pub changes_at: Option<DateTime<Utc>>,
    /// The record as the API shows it (`{"stats":{…},"video_id":…}`),
    /// compressed.
    pub body: Deflated,
}

impl KeptAnswer {
    /// Whether this entry still shows the record that has `stamp` at `now`.
    pub fn is_current(&self, stamp: &RecordStamp, now: DateTime<Utc>) -> bool {
        self.stamp == *stamp && self.changes_at.is_none_or(|at| now < at)
    }
}

/// A record shown in an answer: kept (compressed) in the cache, or made
/// for this answer alone.
#[derive(Debug)]
pub enum Shown {
    /// As the record cache keeps it.
    Kept(Arc<KeptAnswer>),
    /// Plain JSON, kept nowhere.
    Plain(Vec<u8>),
}

impl Shown {
    /// The record as a part of an answer.
    pub fn part(&self) -> Part<'_> {
        match self {
            Shown::Kept(kept) => Part::Deflated(&kept.body),
            Shown::Plain(bytes) => Part::Plain(bytes),
        }
    }
}

/// The JSON answer made of `parts`, one after the other: gzip-compressed
/// (kept parts spliced in as they are) when the client accepts gzip and
/// some part was kept compressed, plain otherwise (an answer of plain parts
/// alone would go out no smaller).
pub fn answer(parts: &[Part], gzip: bool) -> Result<Response, ApiError> {
    let spliced = gzip && parts.iter().any(|p| matches!(p, Part::Deflated(_)));
    let (body, encoding) = if spliced {
        (gzip::gzip(parts), Some(HeaderValue::from_static("gzip")))
    } else {
        (
            gzip::plain(parts).map_err(|e| ApiError::internal(&e))?,
            None,
        )
    };
    let mut response = (
        [
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (VARY, HeaderValue::from_static("accept-encoding")),
        ],
        body,
    )
        .into_response();
    if let Some(encoding) = encoding {
        response.headers_mut().insert(CONTENT_ENCODING, encoding);
    }
    Ok(response)
}

/// Bytes an entry costs beyond its compressed body (key, stamp, the
/// cache's own bookkeeping), roughly.
const ENTRY_OVERHEAD: usize = 256;

/// The kept records, bounded by their compressed size.
#[derive(Debug, Clone)]
pub struct RecordCache(Option<Cache<Key, Arc<KeptAnswer>>>);

impl RecordCache {
    /// A cache of at most `capacity_bytes` of compressed records; none
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

    /// The record kept for `lookup` in `org`, if any.
    pub fn get(&self, org: OrgId, lookup: &VideoLookup) -> Option<Arc<KeptAnswer>> {
        // A borrowed key would need an owned lookup anyway: the clone is
        // a copy for ids and one short string for external ids.
        self.0.as_ref()?.get(&(org, lookup.clone()))
    }

    /// Keeps `body` (a record's JSON) for `lookup` in `org`, replacing an
    /// older version, and hands it back compressed; `None` when the cache
    /// keeps nothing.
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
                |e| tracing::warn!(error = %e, "a record could not be compressed; not kept"),
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

    /// Keeps `body` (a record's JSON, just made) as [`keep`](Self::keep)
    /// does, and answers how an answer shows it: as kept when the answer
    /// goes out compressed, as the plain bytes otherwise (no need to
    /// inflate what was just made).
    pub fn keep_and_show(
        &self,
        org: OrgId,
        lookup: VideoLookup,
        stamp: RecordStamp,
        changes_at: Option<DateTime<Utc>>,
        body: Vec<u8>,
        gzip: bool,
    ) -> Shown {
        match self.keep(org, lookup, stamp, changes_at, &body) {
            Some(kept) if gzip => Shown::Kept(kept),
            _ => Shown::Plain(body),
        }
    }
}

#[cfg(test)]
mod tests;
