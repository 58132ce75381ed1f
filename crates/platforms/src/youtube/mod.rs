//! YouTube through the Data API v3 (docs/platforms.md): videos.list for
//! counters and metadata in batches of 50, channels.list `forHandle` plus the
//! uploads playlist for creators, search.list plus one videos.list for trends.
//!
//! What it cannot give: shares and saves (the API has none), the channel
//! handle of a video or search result (only its id and title), private or
//! deleted videos (they are just absent). Every request spends quota units
//! that reset at midnight Pacific time; [`Upstream`] counts them and stops
//! calling once YouTube says the quota is spent.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use url::Url;
use vidpulse_domain::Platform;

use crate::http::{Call, HttpError, QuotaReset, Upstream, UpstreamConfig, UpstreamSnapshot};
use crate::source::{
    BatchedRead, Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery,
    TrendVideo,
};
use wire::{
    ListPage, Snippet, best_thumbnail, count, is_video_id, parse_items, rfc3339, watch_url,
};

mod wire;

/// The Data API's public base address.
pub const DEFAULT_BASE_URL: &str = "https://www.googleapis.com/youtube/v3/";
/// Ids per videos.list call (51+ are refused).
const BATCH: usize = 50;
/// search.list is counted as 100 units: Google's published cost has changed, so we count high.
const SEARCH_COST: u64 = 100;
/// The uploads playlist is reachable up to ~20,000 videos: 400 pages of 50.
const MAX_PAGES: usize = 400;
const GONE_REASON: &str = "not found, deleted or private on YouTube";

/// Settings of the YouTube adapter.
#[derive(Clone)]
pub struct YoutubeConfig {
    /// The API key, sent as `key=`; never logged or put in error messages.
    pub api_key: SecretString,
    /// Base address of the API, ending with `/`.
    pub base_url: Url,
    /// Quota units per day (reset at midnight Pacific time).
    pub daily_quota: u64,
    /// Time allowed for one attempt.
    pub timeout: Duration,
    /// First backoff between retries of transient failures.
    pub retry_backoff: Duration,
}

impl YoutubeConfig {
    /// The public API with 10,000 units a day, 10 s per attempt, 250 ms backoff.
    pub fn new(api_key: impl Into<SecretString>) -> Self {
        Self {
            api_key: api_key.into(),
            base_url: Url::parse(DEFAULT_BASE_URL)
                .unwrap_or_else(|e| unreachable!("constant URL: {e}")),
            daily_quota: 10_000,
            timeout: Duration::from_secs(10),
            retry_backoff: Duration::from_millis(250),
        }
    }
}

impl std::fmt::Debug for YoutubeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("YoutubeConfig")
            .field("api_key", &self.api_key)
            .field("base_url", &self.base_url.as_str())
            .field("daily_quota", &self.daily_quota)
            .field("timeout", &self.timeout)
            .field("retry_backoff", &self.retry_backoff)
            .finish()
    }
}

/// The YouTube Data API v3 adapter.
#[derive(Debug)]
pub struct YoutubeSource {
    upstream: Upstream,
    api_key: SecretString,
}

/// Drops HTML tags (Google puts `<a>` and `<code>` in messages) and caps the length.
fn plain(message: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in message.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.chars().take(300).collect()
}

fn unsupported(platform: Platform) -> SourceError {
    SourceError::Unsupported(format!(
        "the YouTube Data API cannot serve {}",
        platform.display_name()
    ))
}

impl YoutubeSource {
    /// An adapter for `config`; fails only if the HTTP client cannot be built.
    pub fn new(config: YoutubeConfig) -> Result<Self, SourceError> {
        let mut base = config.base_url;
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let mut up = UpstreamConfig::new("youtube", base);
        up.timeout = config.timeout;
        up.backoff = config.retry_backoff;
        up.daily_quota = Some(config.daily_quota);
        up.quota_reset = QuotaReset::PacificMidnight;
        let upstream = Upstream::new(up).map_err(|e| {
            SourceError::Permanent(format!("cannot set up the YouTube client: {e}"))
        })?;
        Ok(Self {
            upstream,
            api_key: config.api_key,
        })
    }

    async fn get(
        &self,
        path: &'static str,
        mut query: Vec<(&'static str, String)>,
        cost: u64,
    ) -> Result<ListPage, SourceError> {
        query.push(("key", self.api_key.expose_secret().to_owned()));
        let call = Call::get(path, query, cost);
        self.upstream
            .json(call)
            .await
            .map_err(|e| self.map_error(e))
    }

    fn redact(&self, message: String) -> String {
        match self.api_key.expose_secret() {
            "" => message,
            key => message.replace(key, "[redacted]"),
        }
    }

    fn map_error(&self, e: HttpError) -> SourceError {
        match e {
            HttpError::Status { status, body } => self.map_status(status, &body),
            HttpError::QuotaExhausted { limit, until } => SourceError::Transient(format!(
                "YouTube quota exhausted until {until} ({limit} units a day)"
            )),
            e if e.is_transient() => SourceError::Transient(self.redact(format!("YouTube: {e}"))),
            e => SourceError::Permanent(self.redact(format!("YouTube: {e}"))),
        }
    }

    /// Reads Google's `{"error":{"message","errors":[{"reason"}],"details"}}` body.
    fn map_status(&self, status: u16, body: &str) -> SourceError {
        let v: Value = serde_json::from_str(body).unwrap_or_default();
        let text = |ptr: &str| v.pointer(ptr).and_then(Value::as_str).unwrap_or("");
        let reason = text("/error/errors/0/reason");
        let message = self.redact(plain(text("/error/message")));
        let details = v.pointer("/error/details").and_then(Value::as_array);
        let key_invalid =
            details.is_some_and(|d| d.iter().any(|x| x["reason"] == "API_KEY_INVALID"));
        let key_rejected = matches!(
            reason,
            "keyInvalid" | "keyExpired" | "forbidden" | "accessNotConfigured"
        );
        let answered = |transient, message| SourceError::Status {
            status,
            transient,
            message,
        };
        match reason {
            "quotaExceeded" | "dailyLimitExceeded" => {
                let until = self.upstream.quota_exhausted();
                answered(true, format!("YouTube quota exhausted until {until}"))
            }
            "rateLimitExceeded" | "userRateLimitExceeded" => {
                answered(true, format!("YouTube rate limit exceeded: {message}"))
            }
            _ if key_rejected || key_invalid => {
                answered(false, format!("YouTube API key rejected: {message}"))
            }
            _ if status == 404 => SourceError::NotFound(format!("YouTube: {message}")),
            _ if status == 429 || status >= 500 => {
                answered(true, format!("YouTube answered HTTP {status}: {message}"))
            }
            _ => answered(
                false,
                format!("YouTube refused the request (HTTP {status} {reason}): {message}"),
            ),
        }
    }

    /// One videos.list call: each returned id's reading, or why it failed.
    async fn fetch_videos(
        &self,
        ids: &[&str],
    ) -> Result<HashMap<String, ReadOutcome>, SourceError> {
        let query = vec![
            ("part", "snippet,statistics,contentDetails".to_owned()),
            ("id", ids.join(",")),
        ];
        let mut found = HashMap::new();
        for item in parse_items(self.get("videos", query, 1).await?) {
            let (id, outcome) = match item {
                Ok(item) => match (item.id(), item.id().map(|id| item.snapshot(id))) {
                    (Some(id), Some(Ok(snap))) => (id.to_owned(), ReadOutcome::Found(snap)),
                    (Some(id), Some(Err(e))) => (id.to_owned(), permanent(e)),
                    _ => continue,
                },
                Err((Some(id), e)) => (id, permanent(e)),
                Err((None, _)) => continue,
            };
            found.insert(id, outcome);
        }
        Ok(found)
    }
}

fn permanent(message: String) -> ReadOutcome {
    ReadOutcome::Failed(SourceError::Permanent(message))
}

#[async_trait]
impl Source for YoutubeSource {
    fn max_batch(&self, platform: Platform) -> usize {
        if platform == Platform::YouTube {
            BATCH
        } else {
            1
        }
    }

    async fn read_videos(
        &self,
        platform: Platform,
        external_ids: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        if platform != Platform::YouTube {
            return Err(unsupported(platform));
        }
        let mut read = BatchedRead::default();
        let mut seen = HashSet::new();
        let mut to_read = Vec::new();
        for id in external_ids.iter().filter(|id| seen.insert(id.as_str())) {
            if is_video_id(id) {
                to_read.push(id.as_str());
            } else {
                read.refuse(id, permanent(format!("`{id}` is not a YouTube video id")));
            }
        }
        for chunk in to_read.chunks(BATCH) {
            let result = self.fetch_videos(chunk).await;
            read.record(chunk, result, || ReadOutcome::Gone {
                reason: GONE_REASON.to_owned(),
            });
        }
        read.finish(external_ids)
    }

    async fn resolve_channel(
        &self,
        platform: Platform,
        username: &str,
    ) -> Result<Channel, SourceError> {
        if platform != Platform::YouTube {
            return Err(unsupported(platform));
        }
        let handle = username.trim().trim_start_matches('@');
        if handle.is_empty() {
            return Err(SourceError::NotFound("an empty YouTube handle".to_owned()));
        }
        let query = vec![
            ("part", "snippet,statistics,contentDetails".to_owned()),
            ("forHandle", format!("@{handle}")),
        ];
        // Not found: HTTP 200 without any `items` key.
        let Some(item) = parse_items(self.get("channels", query, 1).await?).next() else {
            return Err(SourceError::NotFound(format!(
                "no YouTube channel with handle @{handle}"
            )));
        };
        let item = item.map_err(|(_, e)| SourceError::Permanent(e))?;
        let Some(channel_id) = item.id().map(str::to_owned) else {
            return Err(SourceError::Permanent(
                "YouTube returned a channel without an id".to_owned(),
            ));
        };
        let follower_count = match item.statistics.hidden_subscriber_count {
            Some(true) => None,
            _ => count(&item.statistics.subscriber_count).map_err(SourceError::Permanent)?,
        };
        let custom = item
            .snippet
            .custom_url
            .as_deref()
            .map(|u| u.trim_start_matches('@'));
        Ok(Channel {
            platform: Platform::YouTube,
            channel_id,
            username: custom
                .filter(|u| !u.is_empty())
                .unwrap_or(handle)
                .to_owned(),
            display_name: item.snippet.title,
            avatar_url: best_thumbnail(&item.snippet.thumbnails),
            follower_count,
        })
    }

    async fn recent_videos(
        &self,
        channel: &Channel,
        limit: usize,
    ) -> Result<Vec<ChannelVideo>, SourceError> {
        if channel.platform != Platform::YouTube {
            return Err(unsupported(channel.platform));
        }
        // The uploads playlist is the channel id with `UC` turned into `UU`.
        let Some(rest) = channel
            .channel_id
            .strip_prefix("UC")
            .filter(|r| !r.is_empty())
        else {
            let id = &channel.channel_id;
            return Err(SourceError::Permanent(format!(
                "`{id}` is not a YouTube channel id"
            )));
        };
        let playlist = format!("UU{rest}");
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..MAX_PAGES {
            if out.len() >= limit {
                break;
            }
            let mut query = vec![
                ("part", "snippet,contentDetails".to_owned()),
                ("playlistId", playlist.clone()),
                ("maxResults", (limit - out.len()).min(BATCH).to_string()),
            ];
            query.extend(token.clone().map(|t| ("pageToken", t)));
            let page = self.get("playlistItems", query, 1).await?;
            let next = page.next_page_token.clone();
            let before = out.len();
            for item in parse_items(page).flatten() {
                let Some(id) = item.content_details.video_id.filter(|id| is_video_id(id)) else {
                    continue;
                };
                out.push(ChannelVideo {
                    canonical_url: watch_url(&id),
                    external_id: id,
                    published_at: rfc3339(&item.content_details.video_published_at),
                    title: item.snippet.title,
                });
            }
            match next {
                Some(next) if out.len() > before && token.as_ref() != Some(&next) => {
                    token = Some(next)
                }
                _ => break,
            }
        }
        out.truncate(limit);
        Ok(out)
    }

    async fn search_trends(
        &self,
        platform: Platform,
        query: &TrendQuery,
    ) -> Result<TrendPage, SourceError> {
        if platform != Platform::YouTube {
            return Err(unsupported(platform));
        }
        let mut q = vec![
            ("part", "snippet".to_owned()),
            ("type", "video".to_owned()),
            ("q", query.keyword.clone()),
            ("order", "viewCount".to_owned()),
            ("maxResults", query.page_size.clamp(1, BATCH).to_string()),
        ];
        if let Some(region) = &query.region {
            if region.len() != 2 || !region.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(SourceError::Permanent(format!("invalid region `{region}`")));
            }
            q.push(("regionCode", region.to_ascii_uppercase()));
        }
        if let Some(days) = query.days.filter(|d| *d > 0) {
            let after = Utc::now() - chrono::Duration::days(i64::from(days));
            q.push((
                "publishedAfter",
                after.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            ));
        }
        if let Some(cursor) = &query.cursor {
            let token_char = |b: u8| b.is_ascii_alphanumeric() || b"-_=".contains(&b);
            if cursor.is_empty() || cursor.len() > 256 || !cursor.bytes().all(token_char) {
                return Err(SourceError::Permanent("invalid cursor".to_owned()));
            }
            q.push(("pageToken", cursor.clone()));
        }
        let page = self.get("search", q, SEARCH_COST).await?;
        let cursor = page.next_page_token.clone();
        let found: Vec<(String, Snippet)> = parse_items(page)
            .flatten()
            .filter_map(|item| {
                Some((
                    item.id().filter(|id| is_video_id(id))?.to_owned(),
                    item.snippet,
                ))
            })
            .collect();
        // Search results carry no statistics: one videos.list call fills them.
        let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
        let stats = match ids.is_empty() {
            true => HashMap::new(),
            false => self.fetch_videos(&ids).await.unwrap_or_else(|e| {
                // The search itself is paid for: answer it without counters.
                tracing::warn!(error = %e, "YouTube trend statistics unavailable");
                HashMap::new()
            }),
        };
        let videos = found
            .into_iter()
            .map(|(id, snippet)| {
                let read = match stats.get(&id) {
                    Some(ReadOutcome::Found(s)) => Some(s),
                    _ => None,
                };
                let c = read.map(|s| s.counters).unwrap_or_default();
                TrendVideo {
                    url: watch_url(&id),
                    cover: read
                        .and_then(|s| s.meta.thumbnail_url.clone())
                        .or_else(|| best_thumbnail(&snippet.thumbnails)),
                    plays: c.views,
                    likes: c.likes,
                    comments: c.comments,
                    shares: None,
                    // No handle in search results; the channel title stands in.
                    author_username: snippet.channel_title,
                    author_cover: None,
                    id,
                }
            })
            .collect();
        Ok(TrendPage {
            videos,
            has_more: cursor.is_some(),
            cursor,
        })
    }

    fn upstream_stats(&self) -> Vec<UpstreamSnapshot> {
        vec![self.upstream.snapshot()]
    }
}

#[cfg(test)]
mod tests;
