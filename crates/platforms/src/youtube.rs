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
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use url::Url;
use vidpulse_domain::video_url::canonical_url;
use vidpulse_domain::{Counters, ObservationSource, Platform};

use crate::http::{Call, HttpError, QuotaReset, Upstream, UpstreamConfig, UpstreamSnapshot};
use crate::source::{
    Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery, TrendVideo,
    VideoMeta, VideoSnapshot,
};

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
    pub api_key: String,
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
    pub fn new(api_key: impl Into<String>) -> Self {
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
            .field("api_key", &"[redacted]")
            .field("base_url", &self.base_url.as_str())
            .field("daily_quota", &self.daily_quota)
            .field("timeout", &self.timeout)
            .field("retry_backoff", &self.retry_backoff)
            .finish()
    }
}

/// A secret kept out of `Debug` output.
struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// The YouTube Data API v3 adapter.
#[derive(Debug)]
pub struct YoutubeSource {
    upstream: Upstream,
    api_key: Secret,
}

// ---- wire shapes: every field optional, absent means unknown ----

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ListPage {
    items: Vec<Value>,
    next_page_token: Option<String>,
}

/// An item of any list: video, channel, playlist item or search result.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Item {
    id: ItemId,
    snippet: Snippet,
    statistics: Statistics,
    content_details: Details,
}

/// A plain id (videos, channels, playlist items) or a search result's object.
#[derive(Deserialize, Default)]
#[serde(untagged)]
enum ItemId {
    #[default]
    Missing,
    Plain(String),
    Search {
        #[serde(rename = "videoId")]
        video_id: Option<String>,
    },
}

impl Item {
    fn id(&self) -> Option<&str> {
        match &self.id {
            ItemId::Plain(id) => Some(id),
            ItemId::Search { video_id } => video_id.as_deref(),
            ItemId::Missing => None,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Details {
    video_id: Option<String>,
    video_published_at: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Snippet {
    published_at: Option<String>,
    title: Option<String>,
    channel_title: Option<String>,
    custom_url: Option<String>,
    thumbnails: Value,
}

/// The best thumbnail's URL: maxres > standard > high > medium > default.
fn best_thumbnail(thumbnails: &Value) -> Option<String> {
    ["maxres", "standard", "high", "medium", "default"]
        .iter()
        .find_map(|k| thumbnails.get(k)?.get("url")?.as_str().map(str::to_owned))
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Statistics {
    view_count: Option<Count>,
    like_count: Option<Count>,
    comment_count: Option<Count>,
    subscriber_count: Option<Count>,
    hidden_subscriber_count: Option<bool>,
}

/// A counter: YouTube sends strings of digits; numbers are accepted too.
#[derive(Deserialize)]
#[serde(untagged)]
enum Count {
    Int(i64),
    Text(String),
}

fn count(c: &Option<Count>) -> Result<Option<i64>, String> {
    match c {
        None => Ok(None),
        Some(Count::Int(n)) => Ok(Some(*n)),
        Some(Count::Text(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("bad counter `{s}`")),
    }
}

/// Parses each item on its own, so one malformed item spoils only itself.
fn parse_items(page: ListPage) -> impl Iterator<Item = Result<Item, (Option<String>, String)>> {
    page.items.into_iter().map(|raw| {
        let id = raw.get("id").and_then(Value::as_str).map(str::to_owned);
        serde_json::from_value(raw)
            .map_err(|e| (id, format!("YouTube returned a malformed item: {e}")))
    })
}

fn rfc3339(s: &Option<String>) -> Option<DateTime<Utc>> {
    s.as_deref()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

fn is_video_id(id: &str) -> bool {
    id.len() == 11
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn watch_url(id: &str) -> String {
    canonical_url(Platform::YouTube, id, None)
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

impl Item {
    /// The reading of a videos.list item.
    fn snapshot(&self, id: &str) -> Result<VideoSnapshot, String> {
        let s = &self.statistics;
        let counters = Counters {
            views: count(&s.view_count)?,
            likes: count(&s.like_count)?,
            comments: count(&s.comment_count)?,
            reposts: None,
            saves: None,
        };
        let meta = VideoMeta {
            title: self.snippet.title.clone(),
            thumbnail_url: best_thumbnail(&self.snippet.thumbnails),
            // The API names the channel (id and title) but not its handle.
            author_username: None,
            author_display_name: self.snippet.channel_title.clone(),
            published_at: rfc3339(&self.snippet.published_at),
            canonical_url: Some(watch_url(id)),
        };
        Ok(VideoSnapshot {
            counters,
            meta,
            source: ObservationSource::YoutubeApi,
        })
    }
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
            api_key: Secret(config.api_key),
        })
    }

    async fn get(
        &self,
        path: &'static str,
        mut query: Vec<(&'static str, String)>,
        cost: u64,
    ) -> Result<ListPage, SourceError> {
        query.push(("key", self.api_key.0.clone()));
        let call = Call::get(path, query, cost);
        self.upstream
            .json(call)
            .await
            .map_err(|e| self.map_error(e))
    }

    fn redact(&self, message: String) -> String {
        match self.api_key.0.as_str() {
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
        match reason {
            "quotaExceeded" | "dailyLimitExceeded" => {
                let until = self.upstream.quota_exhausted();
                SourceError::Transient(format!("YouTube quota exhausted until {until}"))
            }
            "rateLimitExceeded" | "userRateLimitExceeded" => {
                SourceError::Transient(format!("YouTube rate limit exceeded: {message}"))
            }
            _ if key_rejected || key_invalid => {
                SourceError::Permanent(format!("YouTube API key rejected: {message}"))
            }
            _ if status == 404 => SourceError::NotFound(format!("YouTube: {message}")),
            _ if status == 429 || status >= 500 => {
                SourceError::Transient(format!("YouTube answered HTTP {status}: {message}"))
            }
            _ => SourceError::Permanent(format!(
                "YouTube refused the request (HTTP {status} {reason}): {message}"
            )),
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
        let mut outcomes: HashMap<&str, ReadOutcome> = HashMap::new();
        let mut seen = HashSet::new();
        let mut to_read = Vec::new();
        for id in external_ids.iter().filter(|id| seen.insert(id.as_str())) {
            if is_video_id(id) {
                to_read.push(id.as_str());
            } else {
                outcomes.insert(id, permanent(format!("`{id}` is not a YouTube video id")));
            }
        }
        let (mut any_ok, mut first_err) = (false, None);
        for chunk in to_read.chunks(BATCH) {
            // A failed batch marks its ids; the call fails only if all batches did.
            let result = self.fetch_videos(chunk).await;
            for id in chunk {
                let outcome = match &result {
                    Ok(found) => found
                        .get(*id)
                        .cloned()
                        .unwrap_or_else(|| ReadOutcome::Gone {
                            reason: GONE_REASON.to_owned(),
                        }),
                    Err(e) => ReadOutcome::Failed(e.clone()),
                };
                outcomes.insert(id, outcome);
            }
            match result {
                Ok(_) => any_ok = true,
                Err(e) => _ = first_err.get_or_insert(e),
            }
        }
        if let (false, Some(e)) = (any_ok, first_err) {
            return Err(e);
        }
        Ok(external_ids
            .iter()
            .filter_map(|id| outcomes.get(id.as_str()).map(|o| (id.clone(), o.clone())))
            .collect())
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
mod tests {
    use serde_json::json;
    use wiremock::matchers::{path, query_param};
    use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

    use super::*;

    const KEY: &str = "AIzaTestKey-123";
    const YT: Platform = Platform::YouTube;

    /// The fixture `youtube-{name}.json` with `status`.
    fn reply(status: u16, name: &str) -> ResponseTemplate {
        let file = format!(
            "{}/fixtures/youtube-{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        ResponseTemplate::new(status).set_body_string(std::fs::read_to_string(file).unwrap())
    }

    fn body(status: u16, body: impl Into<String>) -> ResponseTemplate {
        ResponseTemplate::new(status).set_body_string(body.into())
    }

    /// Serves `r` at `/youtube/v3/{at}` to queries with `params`, `n` times or more.
    async fn mock(
        s: &MockServer,
        at: &str,
        params: &[(&str, &str)],
        r: impl Respond + 'static,
        n: u64,
    ) {
        let mut m = Mock::given(path(format!("/youtube/v3/{at}")));
        for (k, v) in params {
            m = m.and(query_param(*k, *v));
        }
        m.respond_with(r).expect(n..).mount(s).await;
    }

    fn source_at(base: &str) -> YoutubeSource {
        let mut c = YoutubeConfig::new(KEY);
        c.base_url = Url::parse(base).unwrap();
        (c.timeout, c.retry_backoff) = (Duration::from_millis(300), Duration::from_millis(1));
        YoutubeSource::new(c).unwrap()
    }

    async fn setup() -> (MockServer, YoutubeSource) {
        let server = MockServer::start().await;
        let source = source_at(&format!("{}/youtube/v3", server.uri()));
        (server, source)
    }

    async fn read(yt: &YoutubeSource, ids: &[&str]) -> Result<Vec<ReadOutcome>, SourceError> {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        let got = yt.read_videos(YT, &ids).await?;
        assert_eq!(
            got.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            ids.iter().collect::<Vec<_>>()
        );
        Ok(got.into_iter().map(|(_, o)| o).collect())
    }

    fn found(outcome: &ReadOutcome) -> &VideoSnapshot {
        match outcome {
            ReadOutcome::Found(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn reads_videos_in_request_order_with_gone_and_duplicates() {
        let (server, yt) = setup().await;
        let q = [
            ("part", "snippet,statistics,contentDetails"),
            ("id", "Qw7x2bYpR0s,aZ3kQm9TfLw,dEl3t3dVid0"),
            ("key", KEY),
        ];
        mock(&server, "videos", &q, reply(200, "videos-list"), 1).await;
        let asked = ["Qw7x2bYpR0s", "aZ3kQm9TfLw", "dEl3t3dVid0", "Qw7x2bYpR0s"];
        let got = read(&yt, &asked).await.unwrap();
        // Comments off: absent means unknown, never 0.
        let short = found(&got[0]);
        let c = Counters {
            views: Some(412_093),
            likes: Some(18_770),
            ..Default::default()
        };
        assert_eq!(short.counters, c);
        let thumb = "https://i.ytimg.com/vi/Qw7x2bYpR0s/sddefault.jpg";
        assert_eq!(short.meta.thumbnail_url.as_deref(), Some(thumb));
        let counters = Counters {
            views: Some(1_843_207),
            likes: Some(61_544),
            comments: Some(2_391),
            reposts: None,
            saves: None,
        };
        let meta = VideoMeta {
            title: Some("I tried every viral kitchen gadget so you don't have to".into()),
            thumbnail_url: Some("https://i.ytimg.com/vi/aZ3kQm9TfLw/maxresdefault.jpg".into()),
            author_username: None,
            author_display_name: Some("Mira Cooks".into()),
            published_at: Some("2026-10-29T15:00:07Z".parse().unwrap()),
            canonical_url: Some("https://www.youtube.com/watch?v=aZ3kQm9TfLw".into()),
        };
        let source = ObservationSource::YoutubeApi;
        assert_eq!(
            found(&got[1]),
            &VideoSnapshot {
                counters,
                meta,
                source
            }
        );
        let gone = ReadOutcome::Gone {
            reason: GONE_REASON.into(),
        };
        assert_eq!((&got[2], &got[3]), (&gone, &got[0]));
        assert_eq!(yt.upstream_stats()[0].quota_used, 1);
        let other = yt.read_videos(Platform::TikTok, &[]).await;
        assert!(matches!(other, Err(SourceError::Unsupported(_))));
    }

    /// Answers one item per requested id.
    struct Echo;

    impl Respond for Echo {
        fn respond(&self, req: &Request) -> ResponseTemplate {
            let (_, ids) = req.url.query_pairs().find(|(k, _)| k == "id").unwrap();
            let stats = json!({"viewCount": "7", "likeCount": 3});
            let items: Vec<Value> = ids
                .split(',')
                .map(|id| json!({"id": id, "statistics": stats}))
                .collect();
            ResponseTemplate::new(200).set_body_json(json!({ "items": items }))
        }
    }

    #[tokio::test]
    async fn a_thousand_ids_take_twenty_calls() {
        let (server, yt) = setup().await;
        Mock::given(path("/youtube/v3/videos"))
            .respond_with(Echo)
            .expect(20)
            .mount(&server)
            .await;
        assert_eq!(yt.max_batch(YT), 50);
        let asked: Vec<String> = (0..1000).map(|i| format!("vid{i:08}")).collect();
        let asked: Vec<&str> = asked.iter().map(String::as_str).collect();
        let got = read(&yt, &asked).await.unwrap();
        for outcome in &got {
            let c = found(outcome).counters;
            assert_eq!((c.views, c.likes), (Some(7), Some(3)));
        }
    }

    #[tokio::test]
    async fn quota_exceeded_stops_calls_until_the_reset() {
        let (server, yt) = setup().await;
        let quota = reply(403, "error-quota");
        Mock::given(path("/youtube/v3/videos"))
            .respond_with(quota)
            .expect(1)
            .mount(&server)
            .await;
        for _ in 0..3 {
            let e = read(&yt, &["aZ3kQm9TfLw"]).await.unwrap_err();
            let SourceError::Transient(m) = &e else {
                panic!("{e:?}")
            };
            assert!(m.contains("quota exhausted until"), "{m}");
        }
    }

    #[tokio::test]
    async fn a_rejected_key_is_permanent_and_never_echoed() {
        let (server, yt) = setup().await;
        mock(&server, "channels", &[], reply(400, "error-key-invalid"), 1).await;
        let e = yt.resolve_channel(YT, "miracooks").await.unwrap_err();
        let SourceError::Permanent(m) = &e else {
            panic!("{e:?}")
        };
        assert!(
            m.starts_with("YouTube API key rejected: API key not valid"),
            "{m}"
        );
        assert!(!m.contains(KEY));
        // A network failure's message names the URL, key included: redacted.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let offline = source_at(&format!("http://127.0.0.1:{port}/youtube/v3/"));
        let e = read(&offline, &["aZ3kQm9TfLw"]).await.unwrap_err();
        assert!(e.is_transient() && !e.to_string().contains(KEY), "{e}");
    }

    #[tokio::test]
    async fn resolves_channels_by_handle() {
        let (server, yt) = setup().await;
        let q = [
            ("forHandle", "@miracooks"),
            ("part", "snippet,statistics,contentDetails"),
        ];
        mock(&server, "channels", &q, reply(200, "channels-list"), 1).await;
        let q = [("forHandle", "@nobody")];
        mock(
            &server,
            "channels",
            &q,
            reply(200, "channels-list-empty"),
            1,
        )
        .await;
        let c = yt.resolve_channel(YT, "@miracooks").await.unwrap();
        let avatar =
            "https://yt3.ggpht.com/k3Xo9PqL2wR8tZ1vN6mB4cJ7hD0sF5gY=s800-c-k-c0x00ffffff-no-rj";
        let want = Channel {
            platform: YT,
            channel_id: "UCq8Xz4LmNp2Rt6Vw0Yb3KcA".into(),
            username: "miracooks".into(),
            display_name: Some("Mira Cooks".into()),
            avatar_url: Some(avatar.into()),
            follower_count: Some(1_240_000),
        };
        assert_eq!(c, want);
        let e = yt.resolve_channel(YT, "nobody").await.unwrap_err();
        assert!(matches!(e, SourceError::NotFound(_)), "{e:?}");
    }

    #[tokio::test]
    async fn lists_uploads_across_pages() {
        let (server, yt) = setup().await;
        let page2 = json!({"items": [
            {"snippet": {"title": "old"}, "contentDetails": {"videoId": "Old0000000A"}},
            {"contentDetails": {"videoId": 42}},
            {"contentDetails": {"videoId": "Old0000000B"}}
        ]});
        let q = [
            ("playlistId", "UUq8Xz4LmNp2Rt6Vw0Yb3KcA"),
            ("maxResults", "4"),
        ];
        mock(
            &server,
            "playlistItems",
            &q,
            reply(200, "playlistitems-list"),
            1,
        )
        .await;
        let q = [
            (
                "pageToken",
                "EAAaHlBUOkNBTWlFRUkzUVVRMU1UUTRNakEzTlRjd01qQQ",
            ),
            ("maxResults", "1"),
        ];
        mock(
            &server,
            "playlistItems",
            &q,
            body(200, page2.to_string()),
            1,
        )
        .await;
        let channel = Channel {
            platform: YT,
            channel_id: "UCq8Xz4LmNp2Rt6Vw0Yb3KcA".into(),
            username: "miracooks".into(),
            display_name: None,
            avatar_url: None,
            follower_count: None,
        };
        let got = yt.recent_videos(&channel, 4).await.unwrap();
        let got_ids: Vec<&str> = got.iter().map(|v| v.external_id.as_str()).collect();
        assert_eq!(
            got_ids,
            ["Qw7x2bYpR0s", "aZ3kQm9TfLw", "Tk4rWm7Yz0A", "Old0000000A"]
        );
        let first = ChannelVideo {
            external_id: "Qw7x2bYpR0s".into(),
            canonical_url: "https://www.youtube.com/watch?v=Qw7x2bYpR0s".into(),
            published_at: Some("2026-11-03T18:22:41Z".parse().unwrap()),
            title: Some("30-second garlic trick #shorts".into()),
        };
        assert_eq!(got[0], first);
        // A missing uploads playlist is a missing channel.
        let q = [("playlistId", "UUgone")];
        mock(
            &server,
            "playlistItems",
            &q,
            reply(404, "error-playlist-not-found"),
            1,
        )
        .await;
        let gone = Channel {
            channel_id: "UCgone".into(),
            ..channel
        };
        let e = yt.recent_videos(&gone, 10).await.unwrap_err();
        assert!(
            matches!(&e, SourceError::NotFound(m) if m.contains("playlist")),
            "{e:?}"
        );
    }

    #[tokio::test]
    async fn searches_trends_and_fills_statistics() {
        let (server, yt) = setup().await;
        let q = [
            ("q", "kitchen gadgets"),
            ("type", "video"),
            ("order", "viewCount"),
            ("maxResults", "2"),
            ("regionCode", "US"),
            ("pageToken", "CAEQAA"),
        ];
        mock(&server, "search", &q, reply(200, "search-list"), 1).await;
        let q = [("id", "aZ3kQm9TfLw,Lp0sD4fG8hJ")];
        mock(&server, "videos", &q, reply(200, "videos-list"), 1).await;
        let query = TrendQuery {
            keyword: "kitchen gadgets".into(),
            region: Some("US".into()),
            days: Some(30),
            cursor: Some("CAEQAA".into()),
            page_size: 2,
        };
        let page = yt.search_trends(YT, &query).await.unwrap();
        assert_eq!(
            (page.cursor.as_deref(), page.has_more),
            (Some("CAIQAA"), true)
        );
        let first = TrendVideo {
            id: "aZ3kQm9TfLw".into(),
            url: "https://www.youtube.com/watch?v=aZ3kQm9TfLw".into(),
            cover: Some("https://i.ytimg.com/vi/aZ3kQm9TfLw/maxresdefault.jpg".into()),
            plays: Some(1_843_207),
            likes: Some(61_544),
            comments: Some(2_391),
            shares: None,
            author_username: Some("Mira Cooks".into()),
            author_cover: None,
        };
        assert_eq!(page.videos[0], first);
        // Absent from the statistics answer: counters unknown, cover from the search.
        let second = &page.videos[1];
        assert_eq!((second.plays, second.likes), (None, None));
        assert_eq!(
            second.author_username.as_deref(),
            Some("Test Kitchen Weekly")
        );
        let cover = "https://i.ytimg.com/vi/Lp0sD4fG8hJ/hqdefault.jpg";
        assert_eq!(second.cover.as_deref(), Some(cover));
        assert_eq!(yt.upstream_stats()[0].quota_used, SEARCH_COST + 1);
        let requests = server.received_requests().await.unwrap();
        let query_pairs: HashMap<_, _> = requests[0].url.query_pairs().collect();
        let after = &query_pairs["publishedAfter"];
        assert!(after.ends_with('Z') && after.len() == 20, "{after}");
        let bad = TrendQuery {
            cursor: Some("x&key=1".into()),
            ..query
        };
        let e = yt.search_trends(YT, &bad).await;
        assert_eq!(e, Err(SourceError::Permanent("invalid cursor".into())));
    }

    #[tokio::test]
    async fn server_errors_are_retried_and_slow_answers_time_out() {
        let (server, yt) = setup().await;
        let busy = body(503, "<html>busy</html>");
        Mock::given(path("/youtube/v3/videos"))
            .respond_with(busy)
            .up_to_n_times(1)
            .mount(&server)
            .await;
        mock(&server, "videos", &[], reply(200, "videos-list"), 1).await;
        let got = read(&yt, &["aZ3kQm9TfLw"]).await.unwrap();
        assert_eq!(found(&got[0]).counters.views, Some(1_843_207));
        assert_eq!(yt.upstream_stats()[0].calls, 2);

        let (server, yt) = setup().await;
        let slow = reply(200, "videos-list").set_delay(Duration::from_secs(2));
        mock(&server, "videos", &[], slow, 1).await;
        let e = read(&yt, &["aZ3kQm9TfLw"]).await.unwrap_err();
        assert!(e.is_transient(), "{e:?}");
    }

    #[tokio::test]
    async fn malformed_answers_never_panic() {
        let (server, yt) = setup().await;
        let items = json!({"items": [
            {"id": "aZ3kQm9TfLw", "statistics": {"viewCount": "12", "likeCount": "many"}},
            {"id": "Qw7x2bYpR0s", "snippet": "oops"},
            {"id": 17},
            {"statistics": {"viewCount": "1"}, "id": "Tk4rWm7Yz0A"}
        ]});
        mock(&server, "videos", &[], body(200, items.to_string()), 1).await;
        mock(
            &server,
            "channels",
            &[],
            body(200, "<html>not json</html>"),
            1,
        )
        .await;
        mock(&server, "search", &[], body(200, "x".repeat(9 << 20)), 1).await;
        let got = read(
            &yt,
            &["aZ3kQm9TfLw", "Qw7x2bYpR0s", "Tk4rWm7Yz0A", "bad id"],
        )
        .await;
        let got = got.unwrap();
        for i in [0, 1, 3] {
            let outcome = &got[i];
            assert!(
                matches!(outcome, ReadOutcome::Failed(SourceError::Permanent(_))),
                "{got:?}"
            );
        }
        assert_eq!(found(&got[2]).counters.views, Some(1));
        let e = yt.resolve_channel(YT, "miracooks").await.unwrap_err();
        assert!(matches!(e, SourceError::Permanent(_)), "{e:?}");
        let query = TrendQuery {
            keyword: "k".into(),
            region: None,
            days: None,
            cursor: None,
            page_size: 5,
        };
        let e = yt.search_trends(YT, &query).await.unwrap_err();
        assert!(matches!(e, SourceError::Permanent(_)), "{e:?}");
    }
}
