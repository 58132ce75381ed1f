//! The trait every platform adapter implements, and what it returns.

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
pub use vidpulse_domain::VideoMeta;
use vidpulse_domain::{Anchor, Counters, ObservationSource, Platform, RefreshOutcome};

use crate::http::UpstreamSnapshot;

/// One successful reading of a video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoSnapshot {
    /// The counters read.
    pub counters: Counters,
    /// The metadata read alongside.
    pub meta: VideoMeta,
    /// Which adapter produced the reading.
    pub source: ObservationSource,
}

/// The outcome of reading one video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOutcome {
    /// The video was read.
    Found(VideoSnapshot),
    /// The platform reports the video removed or private: stop refreshing it.
    Gone {
        /// What the platform said.
        reason: String,
    },
    /// The read failed; see [`SourceError::is_transient`] for whether to retry.
    Failed(SourceError),
}

impl From<ReadOutcome> for RefreshOutcome {
    /// What a platform's answer about one video saves: counters and
    /// metadata, a removal, or a failure.
    fn from(outcome: ReadOutcome) -> Self {
        match outcome {
            ReadOutcome::Found(s) => RefreshOutcome::Observed {
                counters: s.counters,
                meta: s.meta,
                source: s.source,
            },
            ReadOutcome::Gone { reason } => RefreshOutcome::Gone { reason },
            ReadOutcome::Failed(error) => RefreshOutcome::Failed {
                error: error.to_string(),
            },
        }
    }
}

/// Why a call to a platform failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// Worth retrying later: timeouts, 5xx, rate limits, network errors, an
    /// open circuit breaker, a daily quota used up until its reset.
    #[error("temporary upstream failure: {0}")]
    Transient(String),
    /// Not worth retrying as is: bad credentials, a malformed request or answer.
    #[error("upstream failure: {0}")]
    Permanent(String),
    /// The thing asked for does not exist on the platform (an unknown username).
    #[error("not found on the platform: {0}")]
    NotFound(String),
    /// This source cannot serve the platform or operation.
    #[error("{0}")]
    Unsupported(String),
    /// The platform answered an HTTP error status (or an error in a 200
    /// answer's body).
    #[error("upstream failure, HTTP {status}: {message}")]
    Status {
        /// The status the platform answered.
        status: u16,
        /// Whether retrying later may succeed (429, 5xx, a rate limit, a
        /// quota until its reset).
        transient: bool,
        /// What went wrong, in the platform's own words too: for the log.
        message: String,
    },
}

impl SourceError {
    /// Whether retrying the same call later may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            SourceError::Transient(_) => true,
            SourceError::Status { transient, .. } => *transient,
            _ => false,
        }
    }

    /// What a client is told about this failure of `platform`: a plain
    /// sentence naming the platform and, when it answered one, its HTTP
    /// status. The platform's own words (its error bodies, yt-dlp's output)
    /// and the transport's details stay in the log, where
    /// [`std::fmt::Display`] shows them: they are not ours to show, and may
    /// name accounts, quotas or internal addresses.
    pub fn client_message(&self, platform: Platform) -> String {
        let name = platform.display_name();
        match self {
            SourceError::Status { status, .. } if *status >= 400 => {
                format!("{name} answered HTTP {status}")
            }
            SourceError::Status { status, .. } => {
                format!("{name} answered with an error (HTTP {status})")
            }
            SourceError::Transient(_) => {
                format!("{name} could not be reached or is busy; try again later")
            }
            SourceError::Permanent(_) => format!("{name} could not serve the request"),
            SourceError::NotFound(_) => format!("{name} has no such account or video"),
            // Written by this service, naming what the operator can set up.
            SourceError::Unsupported(why) => why.clone(),
        }
    }
}

/// A creator's account on a platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    /// Platform.
    pub platform: Platform,
    /// The platform's id of the account (YouTube `UC…`, TikTok user id or
    /// secUid, Instagram user id); the username when the platform gives none.
    pub channel_id: String,
    /// The handle, without `@`, as the platform spells it.
    pub username: String,
    /// Display name.
    pub display_name: Option<String>,
    /// Avatar image URL.
    pub avatar_url: Option<String>,
    /// Followers (subscribers); `None` when the platform does not say.
    pub follower_count: Option<i64>,
}

/// A video in a channel's listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelVideo {
    /// The platform's id of the video.
    pub external_id: String,
    /// Its canonical page URL.
    pub canonical_url: String,
    /// When it was published, when the listing says.
    pub published_at: Option<DateTime<Utc>>,
    /// Title or caption, when the listing says.
    pub title: Option<String>,
}

/// A trend search (GET /v1/trends/search).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrendQuery {
    /// The keyword.
    pub keyword: String,
    /// Two-letter ISO 3166-1 country code, upper case; `None` for all regions.
    pub region: Option<String>,
    /// Published within the last N days; `None` or `Some(0)` for all time.
    pub days: Option<u32>,
    /// The opaque cursor of the previous page.
    pub cursor: Option<String>,
    /// Videos per page.
    pub page_size: usize,
}

/// A video found by a trend search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrendVideo {
    /// The platform's id of the video.
    pub id: String,
    /// Its page URL.
    pub url: String,
    /// Cover image URL.
    pub cover: Option<String>,
    /// Plays (views).
    pub plays: Option<i64>,
    /// Likes.
    pub likes: Option<i64>,
    /// Comments.
    pub comments: Option<i64>,
    /// Shares.
    pub shares: Option<i64>,
    /// The author's handle.
    pub author_username: Option<String>,
    /// The author's avatar URL.
    pub author_cover: Option<String>,
}

/// A page of trend search results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrendPage {
    /// The videos.
    pub videos: Vec<TrendVideo>,
    /// The cursor of the next page; `None` on the last page.
    pub cursor: Option<String>,
    /// Whether another page follows.
    pub has_more: bool,
}

/// A platform data source. Every operation but [`Source::read_videos`] has a
/// default that answers [`SourceError::Unsupported`].
#[async_trait]
pub trait Source: Send + Sync + std::fmt::Debug {
    /// The largest number of ids one [`Source::read_videos`] call takes for
    /// `platform` (YouTube's videos.list takes 50).
    fn max_batch(&self, platform: Platform) -> usize;

    /// Reads many videos of one platform by external id. The answer has one
    /// entry per requested id, in request order. An `Err` means the whole
    /// call failed and no id was read.
    async fn read_videos(
        &self,
        platform: Platform,
        external_ids: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError>;

    /// Whether this source continues a video from its [`Anchor`]: callers
    /// load anchors for [`Source::read_anchored`] only when it says so (the
    /// simulated source; no live adapter, which reads the platform itself).
    fn wants_anchors(&self) -> bool {
        false
    }

    /// [`Source::read_videos`], told the anchors of some of the ids (by
    /// external id). The default ignores them.
    async fn read_anchored(
        &self,
        platform: Platform,
        external_ids: &[String],
        anchors: &HashMap<String, Anchor>,
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        let _ = anchors;
        self.read_videos(platform, external_ids).await
    }

    /// Finds a creator's account by username (without `@`).
    async fn resolve_channel(
        &self,
        platform: Platform,
        username: &str,
    ) -> Result<Channel, SourceError> {
        let _ = username;
        Err(SourceError::Unsupported(format!(
            "resolving {} channels is not supported by this source",
            platform.display_name()
        )))
    }

    /// The channel's most recent videos, newest first, at most `limit`.
    async fn recent_videos(
        &self,
        channel: &Channel,
        limit: usize,
    ) -> Result<Vec<ChannelVideo>, SourceError> {
        let _ = limit;
        Err(SourceError::Unsupported(format!(
            "listing {} channel videos is not supported by this source",
            channel.platform.display_name()
        )))
    }

    /// Searches videos by keyword.
    async fn search_trends(
        &self,
        platform: Platform,
        query: &TrendQuery,
    ) -> Result<TrendPage, SourceError> {
        let _ = query;
        Err(SourceError::Unsupported(format!(
            "trend search on {} is not supported by this source",
            platform.display_name()
        )))
    }

    /// Call, failure and quota counters of the upstreams behind this source.
    fn upstream_stats(&self) -> Vec<UpstreamSnapshot> {
        Vec::new()
    }
}

/// The outcomes of a read made in several upstream batches, gathered by id:
/// a failed batch marks its ids with its error, and the whole read fails
/// only when every batch did (so one bad batch does not cost the others).
#[derive(Debug, Default)]
pub(crate) struct BatchedRead<'a> {
    outcomes: HashMap<&'a str, ReadOutcome>,
    any_ok: bool,
    first_err: Option<SourceError>,
}

impl<'a> BatchedRead<'a> {
    /// Records the outcome of an id that was never sent (refused before).
    pub(crate) fn refuse(&mut self, id: &'a str, outcome: ReadOutcome) {
        self.outcomes.insert(id, outcome);
    }

    /// Records one batch's answer for its `ids`; an id the answer lacks gets `missing()`.
    pub(crate) fn record(
        &mut self,
        ids: &[&'a str],
        result: Result<HashMap<String, ReadOutcome>, SourceError>,
        missing: impl Fn() -> ReadOutcome,
    ) {
        for id in ids {
            let outcome = match &result {
                Ok(found) => found.get(*id).cloned().unwrap_or_else(&missing),
                Err(e) => ReadOutcome::Failed(e.clone()),
            };
            self.outcomes.insert(id, outcome);
        }
        match result {
            Ok(_) => self.any_ok = true,
            Err(e) => _ = self.first_err.get_or_insert(e),
        }
    }

    /// The outcomes in the order of `external_ids`, or the first batch error
    /// when no batch succeeded.
    pub(crate) fn finish(
        self,
        external_ids: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        if let (false, Some(e)) = (self.any_ok, self.first_err) {
            return Err(e);
        }
        Ok(external_ids
            .iter()
            .filter_map(|id| {
                self.outcomes
                    .get(id.as_str())
                    .map(|o| (id.clone(), o.clone()))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_told_the_platform_and_its_status_never_its_words() {
        let said = "quota of project 4242 used up; contact ops@internal.example";
        let cases = [
            (
                SourceError::Status {
                    status: 403,
                    transient: true,
                    message: said.into(),
                },
                "YouTube answered HTTP 403",
            ),
            (
                SourceError::Status {
                    status: 200,
                    transient: false,
                    message: said.into(),
                },
                "YouTube answered with an error (HTTP 200)",
            ),
            (
                SourceError::Transient(said.into()),
                "YouTube could not be reached or is busy; try again later",
            ),
            (
                SourceError::Permanent(said.into()),
                "YouTube could not serve the request",
            ),
            (
                SourceError::NotFound(said.into()),
                "YouTube has no such account or video",
            ),
        ];
        for (e, told) in cases {
            assert_eq!(e.client_message(Platform::YouTube), told);
            assert!(e.to_string().contains(said), "the log keeps it: {e}");
        }
        let unsupported = SourceError::Unsupported("YouTube is not configured".into());
        assert_eq!(
            unsupported.client_message(Platform::YouTube),
            "YouTube is not configured"
        );
        assert!(
            SourceError::Status {
                status: 503,
                transient: true,
                message: String::new()
            }
            .is_transient()
        );
    }
}
