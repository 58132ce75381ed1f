//! TikTok through the Research API (docs/platforms.md), for operators
//! who hold approved research access: video counters by id, creator profiles
//! and backfill by username, and keyword trend search.
//!
//! What it cannot give: thumbnails (the API has none), videos younger than
//! ~48 h or deleted/private ones (they are silently left out), author display
//! names on videos, or more than 1,000 requests a day (the cap resets at
//! midnight UTC and [`Upstream`] counts it). Every query needs a date window
//! of at most 30 days; video ids carry their creation time, which picks it.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::NaiveDate;
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};
use url::Url;
use vidpulse_domain::{ObservationSource, Platform};

use crate::http::{Call, HttpError, QuotaReset, Upstream, UpstreamConfig, UpstreamSnapshot};
use crate::source::{
    BatchedRead, Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery,
    TrendVideo, VideoMeta, VideoSnapshot,
};
use windows::{batches, days_before, decode_cursor, encode_cursor, id_day, today, ymd};
use wire::{Number, QueryPage, Video};

mod windows;
mod wire;

/// The Research API's public base address.
pub const DEFAULT_BASE_URL: &str = "https://open.tiktokapis.com/";
/// Ids per query: `max_count` is 100, but the `IN` list limit is undocumented.
const BATCH: usize = 50;
const VIDEO_QUERY: &str = "v2/research/video/query/";
const VIDEO_FIELDS: &str = "id,create_time,username,region_code,video_description,view_count,\
                            like_count,comment_count,share_count,favorites_count";
const USER_FIELDS: &str = "display_name,bio_description,avatar_url,is_verified,follower_count,\
                           following_count,likes_count,video_count";
/// Longest query window: `end_date` ≤ `start_date` + 30 days.
const WINDOW_DAYS: u64 = 30;
/// Creator backfill looks back at most 6 windows (180 days).
const MAX_WINDOWS: u64 = 6;
/// Pages read per window before giving up on `has_more`.
const MAX_PAGES: usize = 10;
const NOT_RETURNED: &str = "not returned by the Research API (new videos can take 48 h)";

/// Settings of the TikTok Research API adapter.
#[derive(Clone)]
pub struct TiktokResearchConfig {
    /// Client key of the research app.
    pub client_key: String,
    /// Client secret; never logged or put in error messages.
    pub client_secret: SecretString,
    /// Base address of the API, ending with `/`.
    pub base_url: Url,
    /// Query requests per day (reset at midnight UTC).
    pub daily_requests: u64,
    /// Time allowed for one attempt.
    pub timeout: Duration,
    /// First backoff between retries of transient failures.
    pub retry_backoff: Duration,
}

impl TiktokResearchConfig {
    /// The public API with 1,000 requests a day, 10 s per attempt, 250 ms backoff.
    pub fn new(client_key: impl Into<String>, client_secret: impl Into<SecretString>) -> Self {
        Self {
            client_key: client_key.into(),
            client_secret: client_secret.into(),
            base_url: Url::parse(DEFAULT_BASE_URL)
                .unwrap_or_else(|e| unreachable!("constant URL: {e}")),
            daily_requests: 1000,
            timeout: Duration::from_secs(10),
            retry_backoff: Duration::from_millis(250),
        }
    }
}

impl std::fmt::Debug for TiktokResearchConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiktokResearchConfig")
            .field("client_key", &self.client_key)
            .field("client_secret", &self.client_secret)
            .field("base_url", &self.base_url.as_str())
            .field("daily_requests", &self.daily_requests)
            .finish_non_exhaustive()
    }
}

/// A client access token and when to stop using it.
#[derive(Debug)]
struct Token {
    value: SecretString,
    refresh_at: Instant,
}

/// The TikTok Research API adapter.
#[derive(Debug)]
pub struct TiktokResearchSource {
    upstream: Upstream,
    client_key: String,
    client_secret: SecretString,
    token: tokio::sync::Mutex<Option<Token>>,
}

fn condition(operation: &str, field: &str, values: &[&str]) -> Value {
    json!({"operation": operation, "field_name": field, "field_values": values})
}

fn unsupported(platform: Platform) -> SourceError {
    SourceError::Unsupported(format!(
        "the TikTok Research API cannot serve {}",
        platform.display_name()
    ))
}

fn failed(e: SourceError) -> ReadOutcome {
    ReadOutcome::Failed(e)
}

impl TiktokResearchSource {
    /// An adapter for `config`; fails only if the HTTP client cannot be built.
    pub fn new(config: TiktokResearchConfig) -> Result<Self, SourceError> {
        let mut base = config.base_url;
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let mut up = UpstreamConfig::new("tiktok_research", base);
        up.timeout = config.timeout;
        up.backoff = config.retry_backoff;
        up.daily_quota = Some(config.daily_requests);
        up.quota_reset = QuotaReset::UtcMidnight;
        let upstream = Upstream::new(up).map_err(|e| {
            SourceError::Permanent(format!("cannot set up the TikTok Research client: {e}"))
        })?;
        Ok(Self {
            upstream,
            client_key: config.client_key,
            client_secret: config.client_secret,
            token: tokio::sync::Mutex::new(None),
        })
    }

    fn redact(&self, message: String) -> String {
        match self.client_secret.expose_secret() {
            "" => message,
            secret => message.replace(secret, "[redacted]"),
        }
    }

    /// The cached access token, or a new one when it is due or is `stale`
    /// (the one the API just refused).
    async fn token(&self, stale: Option<&str>) -> Result<String, SourceError> {
        let mut cached = self.token.lock().await;
        if let Some(t) = cached.as_ref()
            && t.refresh_at > Instant::now()
            && stale != Some(t.value.expose_secret())
        {
            return Ok(t.value.expose_secret().to_owned());
        }
        *cached = None;
        let mut call = Call::get("v2/oauth/token/", Vec::new(), 0);
        call.method = Method::POST;
        call.form = Some(vec![
            ("client_key", self.client_key.clone()),
            (
                "client_secret",
                self.client_secret.expose_secret().to_owned(),
            ),
            ("grant_type", "client_credentials".to_owned()),
        ]);
        let answer = match self.upstream.json::<Value>(call).await {
            Ok(v) => v,
            Err(HttpError::Status { status, body }) if status < 500 && status != 429 => {
                serde_json::from_str(&body).unwrap_or_default()
            }
            Err(e) => return Err(self.map_error(e, None)),
        };
        let Some(token) = answer["access_token"].as_str().filter(|t| !t.is_empty()) else {
            // OAuth-style failure: {"error", "error_description", "log_id"}.
            let error = answer["error"].as_str().unwrap_or("no access token");
            let why = answer["error_description"].as_str().unwrap_or("");
            return Err(SourceError::Permanent(self.redact(format!(
                "TikTok refused the research client credentials: {error} {why}"
            ))));
        };
        // Refresh a little before expiry (tokens live 2 h).
        let lifetime = answer["expires_in"].as_u64().unwrap_or(7200);
        let margin = (lifetime / 10).min(300);
        let refresh_at = Instant::now() + Duration::from_secs(lifetime - margin);
        *cached = Some(Token {
            value: SecretString::from(token),
            refresh_at,
        });
        Ok(token.to_owned())
    }

    /// POSTs a Research API call (1 request of the daily cap) and returns its
    /// `data`; a refused token is renewed once. `user` names the account a
    /// user-info call asks for, so an unknown account becomes `NotFound`.
    async fn post(
        &self,
        path: &'static str,
        fields: &'static str,
        body: Value,
        user: Option<&str>,
    ) -> Result<Value, SourceError> {
        let mut token = self.token(None).await?;
        let mut refreshed = false;
        loop {
            let mut call =
                Call::post_json(path, vec![("fields", fields.to_owned())], body.clone(), 1);
            let mut bearer = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                SourceError::Permanent("TikTok sent an unusable access token".to_owned())
            })?;
            bearer.set_sensitive(true);
            call.headers.insert(AUTHORIZATION, bearer);
            match self.upstream.json::<Value>(call).await {
                Err(HttpError::Status { status: 401, .. }) if !refreshed => {
                    refreshed = true;
                    token = self.token(Some(&token)).await?;
                }
                Err(e) => return Err(self.map_error(e, user)),
                Ok(v) => {
                    let code = v
                        .pointer("/error/code")
                        .and_then(Value::as_str)
                        .unwrap_or("ok");
                    if code != "ok" {
                        return Err(self.map_api_error(200, &v, user));
                    }
                    return Ok(v.get("data").cloned().unwrap_or(Value::Null));
                }
            }
        }
    }

    fn map_error(&self, e: HttpError, user: Option<&str>) -> SourceError {
        match e {
            HttpError::Status { status, body } => {
                let v = serde_json::from_str(&body).unwrap_or_default();
                self.map_api_error(status, &v, user)
            }
            HttpError::QuotaExhausted { limit, until } => SourceError::Transient(format!(
                "TikTok Research API daily cap of {limit} requests reached until {until}"
            )),
            e if e.is_transient() => {
                SourceError::Transient(self.redact(format!("TikTok Research API: {e}")))
            }
            e => SourceError::Permanent(self.redact(format!("TikTok Research API: {e}"))),
        }
    }

    /// Reads the `{"error":{"code","message","log_id"}}` envelope.
    fn map_api_error(&self, status: u16, v: &Value, user: Option<&str>) -> SourceError {
        let text = |ptr: &str| v.pointer(ptr).and_then(Value::as_str).unwrap_or("");
        let code = text("/error/code");
        let message: String = self.redact(text("/error/message").chars().take(300).collect());
        let detail = format!("HTTP {status} {code}: {message}");
        let answered = |transient, message| SourceError::Status {
            status,
            transient,
            message,
        };
        match (code, user) {
            // Undocumented by TikTok (docs/platforms.md): an unknown user is taken to be
            // `invalid_params` or a 404.
            (_, Some(user)) if code == "invalid_params" || status == 404 => {
                SourceError::NotFound(format!("no TikTok account @{user} ({detail})"))
            }
            ("rate_limit_exceeded", _) => {
                answered(true, format!("TikTok Research API rate limit: {detail}"))
            }
            ("access_token_invalid" | "scope_not_authorized" | "scope_permission_missed", _) => {
                answered(
                    false,
                    format!("TikTok Research API refused access: {detail}"),
                )
            }
            ("internal_error", _) => {
                answered(true, format!("TikTok Research API failed: {detail}"))
            }
            _ if status == 429 || status >= 500 => {
                answered(true, format!("TikTok Research API failed: {detail}"))
            }
            _ if status == 401 => answered(
                false,
                format!("TikTok Research API refused access: {detail}"),
            ),
            _ => answered(
                false,
                format!("TikTok Research API refused the query: {detail}"),
            ),
        }
    }

    /// One video query page.
    async fn query(
        &self,
        conditions: Vec<Value>,
        window: (NaiveDate, NaiveDate),
        max_count: usize,
        page: Option<(u64, &str)>,
    ) -> Result<QueryPage, SourceError> {
        let mut body = json!({
            "query": {"and": conditions},
            "start_date": ymd(window.0),
            "end_date": ymd(window.1),
            "max_count": max_count,
        });
        if let Some((cursor, search_id)) = page {
            body["cursor"] = json!(cursor);
            body["search_id"] = json!(search_id);
        }
        let data = self.post(VIDEO_QUERY, VIDEO_FIELDS, body, None).await?;
        Ok(QueryPage::parse(&data))
    }

    /// Reads one batch of ids created within one window.
    async fn read_batch(
        &self,
        ids: &[&str],
        window: (NaiveDate, NaiveDate),
    ) -> Result<HashMap<String, ReadOutcome>, SourceError> {
        let conditions = vec![condition("IN", "video_id", ids)];
        let page = self.query(conditions, window, 100, None).await?;
        let mut out = HashMap::new();
        for video in page.videos {
            let (id, outcome) = match video {
                Ok(v) => {
                    let meta = VideoMeta {
                        title: v.description.clone(),
                        thumbnail_url: None,
                        author_username: v.username.clone(),
                        author_display_name: None,
                        published_at: v.created,
                        canonical_url: Some(v.url()),
                    };
                    let source = ObservationSource::TiktokResearch;
                    let snap = VideoSnapshot {
                        counters: v.counters,
                        meta,
                        source,
                    };
                    (v.id, ReadOutcome::Found(snap))
                }
                Err((Some(id), e)) => (id, failed(SourceError::Permanent(e))),
                Err((None, e)) => {
                    tracing::warn!(error = %e, "Research API video without an id skipped");
                    continue;
                }
            };
            out.insert(id, outcome);
        }
        Ok(out)
    }
}

#[async_trait]
impl Source for TiktokResearchSource {
    fn max_batch(&self, platform: Platform) -> usize {
        if platform == Platform::TikTok {
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
        if platform != Platform::TikTok {
            return Err(unsupported(platform));
        }
        let mut read = BatchedRead::default();
        let mut seen = HashSet::new();
        let mut to_read = Vec::new();
        for id in external_ids.iter().filter(|id| seen.insert(id.as_str())) {
            match id.parse::<u64>() {
                Ok(n) if id.bytes().all(|b| b.is_ascii_digit()) => {
                    to_read.push((id.as_str(), id_day(n)))
                }
                _ => {
                    let e = SourceError::Permanent(format!("`{id}` is not a TikTok video id"));
                    read.refuse(id, failed(e));
                }
            }
        }
        for (batch, window) in batches(&to_read) {
            let result = self.read_batch(&batch, window).await;
            read.record(&batch, result, || {
                failed(SourceError::Transient(NOT_RETURNED.to_owned()))
            });
        }
        read.finish(external_ids)
    }

    async fn resolve_channel(
        &self,
        platform: Platform,
        username: &str,
    ) -> Result<Channel, SourceError> {
        if platform != Platform::TikTok {
            return Err(unsupported(platform));
        }
        let user = username.trim().trim_start_matches('@');
        let valid = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-');
        if user.is_empty() || user.len() > 64 || !user.bytes().all(valid) {
            return Err(SourceError::NotFound(format!(
                "`{username}` is not a TikTok username"
            )));
        }
        let body = json!({ "username": user });
        let data = self
            .post("v2/research/user/info/", USER_FIELDS, body, Some(user))
            .await?;
        if data.as_object().is_none_or(|o| o.is_empty()) {
            return Err(SourceError::NotFound(format!("no TikTok account @{user}")));
        }
        let text = |k: &str| {
            data.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let followers = match data.get("follower_count") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                serde_json::from_value::<Number>(v.clone())
                    .ok()
                    .and_then(|n| n.as_i64().ok())
                    .ok_or_else(|| {
                        SourceError::Permanent(format!(
                            "the Research API sent a malformed follower count: {v}"
                        ))
                    })?,
            ),
        };
        Ok(Channel {
            platform: Platform::TikTok,
            // The API returns no user id: the username stands in.
            channel_id: user.to_owned(),
            username: user.to_owned(),
            display_name: text("display_name"),
            avatar_url: text("avatar_url"),
            follower_count: followers,
        })
    }

    async fn recent_videos(
        &self,
        channel: &Channel,
        limit: usize,
    ) -> Result<Vec<ChannelVideo>, SourceError> {
        if channel.platform != Platform::TikTok {
            return Err(unsupported(channel.platform));
        }
        let user = channel.username.as_str();
        let max_count = limit.clamp(1, 100);
        let mut videos: Vec<Video> = Vec::new();
        // Rolling 30-day windows going back from today, newest first.
        let mut end = today();
        for _ in 0..MAX_WINDOWS {
            if videos.len() >= limit {
                break;
            }
            let window = (days_before(end, WINDOW_DAYS - 1), end);
            let mut page_at: Option<(u64, String)> = None;
            for _ in 0..MAX_PAGES {
                let conditions = vec![condition("EQ", "username", &[user])];
                let paging = page_at.as_ref().map(|(c, s)| (*c, s.as_str()));
                let page = self.query(conditions, window, max_count, paging).await?;
                videos.extend(page.videos.into_iter().flatten());
                match (page.has_more, page.cursor, page.search_id) {
                    (true, Some(c), Some(s)) if videos.len() < limit => page_at = Some((c, s)),
                    _ => break,
                }
            }
            end = days_before(window.0, 1);
        }
        videos.sort_by_key(|v| std::cmp::Reverse(v.created));
        videos.truncate(limit);
        Ok(videos
            .into_iter()
            .map(|v| ChannelVideo {
                canonical_url: v.url(),
                external_id: v.id,
                published_at: v.created,
                title: v.description,
            })
            .collect())
    }

    async fn search_trends(
        &self,
        platform: Platform,
        query: &TrendQuery,
    ) -> Result<TrendPage, SourceError> {
        if platform != Platform::TikTok {
            return Err(unsupported(platform));
        }
        let keyword = query.keyword.trim();
        if keyword.is_empty() {
            return Err(SourceError::Permanent("empty keyword".to_owned()));
        }
        let mut conditions = vec![condition("EQ", "keyword", &[keyword])];
        if let Some(region) = &query.region {
            if region.len() != 2 || !region.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(SourceError::Permanent(format!("invalid region `{region}`")));
            }
            conditions.push(condition(
                "IN",
                "region_code",
                &[&region.to_ascii_uppercase()],
            ));
        }
        let (window, paging) = match &query.cursor {
            Some(c) => {
                let (cursor, search_id, start, end) = decode_cursor(c)
                    .ok_or_else(|| SourceError::Permanent("invalid cursor".to_owned()))?;
                ((start, end), Some((cursor, search_id)))
            }
            None => {
                // One query spans at most 30 days, so "all time" (None or 0)
                // and anything longer are capped to the last 30 days.
                let days = query
                    .days
                    .filter(|d| *d > 0)
                    .map_or(WINDOW_DAYS, |d| u64::from(d).min(WINDOW_DAYS));
                let end = today();
                ((days_before(end, days), end), None)
            }
        };
        let max_count = query.page_size.clamp(1, 100);
        let paging_ref = paging.as_ref().map(|(c, s)| (*c, s.as_str()));
        let page = self
            .query(conditions, window, max_count, paging_ref)
            .await?;
        let mut videos: Vec<TrendVideo> = page
            .videos
            .into_iter()
            .flatten()
            .map(|v| TrendVideo {
                url: v.url(),
                cover: None,
                plays: v.counters.views,
                likes: v.counters.likes,
                comments: v.counters.comments,
                shares: v.counters.reposts,
                author_username: v.username,
                author_cover: None,
                id: v.id,
            })
            .collect();
        videos.sort_by_key(|v| std::cmp::Reverse(v.plays));
        let cursor = match (page.has_more, page.cursor, &page.search_id) {
            (true, Some(c), Some(s)) => Some(encode_cursor(c, s, window.0, window.1)),
            _ => None,
        };
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
