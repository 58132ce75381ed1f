//! Importing historical statistics (`vidpulse admin import-stats`, docs/operations.md,
//! "Importing history"): all rows in one transaction, idempotent.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use vidpulse_domain::{Counters, OrgId, Platform};

use crate::StoreError;

/// One snapshot of one video, already validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRow {
    /// Platform.
    pub platform: Platform,
    /// The platform's id of the video.
    pub external_id: String,
    /// When the counters were read.
    pub captured_at: DateTime<Utc>,
    /// The counters (`None`: unknown).
    pub counters: Counters,
    /// Page URL.
    pub url: Option<String>,
    /// Creator handle without `@`.
    pub channel_username: Option<String>,
    /// Title or caption.
    pub title: Option<String>,
    /// Publish time.
    pub published_at: Option<DateTime<Utc>>,
}

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportOutcome {
    /// Videos the organization did not track before.
    pub videos_created: usize,
    /// Snapshots stored.
    pub snapshots_imported: usize,
    /// Snapshots already stored (same video and instant), left as they were.
    pub snapshots_skipped: usize,
}

/// Imports of statistics.
#[async_trait]
pub trait ImportStore {
    /// Stores every row or none: videos unknown to the organization become
    /// tracked from their earliest snapshot (for `window`); a video tracked
    /// from a later instant has its tracking start moved back; snapshots
    /// feed observations and daily closes. Not charged; no quota check.
    async fn import_observations(
        &self,
        org: OrgId,
        rows: &[ImportRow],
        window: Duration,
        now: DateTime<Utc>,
    ) -> Result<ImportOutcome, StoreError>;
}

/// The rows of each video, in first-seen order, with the earliest instant
/// and the first value given of each metadata column.
pub(crate) struct ImportVideo<'a> {
    pub platform: Platform,
    pub external_id: &'a str,
    pub earliest: DateTime<Utc>,
    pub latest: &'a ImportRow,
    pub url: String,
    pub channel_username: Option<&'a str>,
    pub title: Option<&'a str>,
    pub published_at: Option<DateTime<Utc>>,
    pub rows: Vec<&'a ImportRow>,
}

/// The rows grouped per video, videos sorted by platform and id.
pub(crate) fn by_video(rows: &[ImportRow]) -> Vec<ImportVideo<'_>> {
    let mut index: std::collections::HashMap<(Platform, &str), usize> =
        std::collections::HashMap::new();
    let mut out: Vec<ImportVideo<'_>> = Vec::new();
    for row in rows {
        let key = (row.platform, row.external_id.as_str());
        let i = *index.entry(key).or_insert_with(|| {
            out.push(ImportVideo {
                platform: row.platform,
                external_id: &row.external_id,
                earliest: row.captured_at,
                latest: row,
                url: String::new(),
                channel_username: None,
                title: None,
                published_at: None,
                rows: Vec::new(),
            });
            out.len() - 1
        });
        let v = &mut out[i];
        v.earliest = v.earliest.min(row.captured_at);
        if row.captured_at > v.latest.captured_at {
            v.latest = row;
        }
        if v.url.is_empty()
            && let Some(u) = &row.url
        {
            v.url = u.clone();
        }
        v.channel_username = v.channel_username.or(row.channel_username.as_deref());
        v.title = v.title.or(row.title.as_deref());
        v.published_at = v.published_at.or(row.published_at);
        v.rows.push(row);
    }
    for v in &mut out {
        if v.url.is_empty() {
            v.url = vidpulse_domain::video_url::canonical_url(
                v.platform,
                v.external_id,
                v.channel_username,
            );
        }
    }
    // A fixed order for the catalog rows an import locks: two imports (or an
    // import and a tracking) of the same videos cannot wait on each other in
    // a cycle.
    out.sort_by(|a, b| (a.platform.id(), a.external_id).cmp(&(b.platform.id(), b.external_id)));
    out
}
