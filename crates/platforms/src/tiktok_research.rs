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
use chrono::{DateTime, Days, NaiveDate, Utc};
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, HeaderValue};
use serde::Deserialize;
use serde_json::{Value, json};
use url::Url;
use vidpulse_domain::video_url::canonical_url;
use vidpulse_domain::{Counters, ObservationSource, Platform};

use crate::http::{Call, HttpError, QuotaReset, Upstream, UpstreamConfig, UpstreamSnapshot};
use crate::source::{
    Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery, TrendVideo,
    VideoMeta, VideoSnapshot,
};

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
    pub client_secret: String,
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
    pub fn new(client_key: impl Into<String>, client_secret: impl Into<String>) -> Self {
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
            .field("client_secret", &"[redacted]")
            .field("base_url", &self.base_url.as_str())
            .field("daily_requests", &self.daily_requests)
            .finish_non_exhaustive()
    }
}

/// A secret kept out of `Debug` output.
struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// A client access token and when to stop using it.
#[derive(Debug)]
struct Token {
    value: Secret,
    refresh_at: Instant,
}

/// The TikTok Research API adapter.
#[derive(Debug)]
pub struct TiktokResearchSource {
    upstream: Upstream,
    client_key: String,
    client_secret: Secret,
    token: tokio::sync::Mutex<Option<Token>>,
}

/// A video as the API sends it; any field may be missing.
#[derive(Deserialize)]
struct RawVideo {
    id: Number,
    create_time: Option<Number>,
    username: Option<String>,
    video_description: Option<String>,
    view_count: Option<Number>,
    like_count: Option<Number>,
    comment_count: Option<Number>,
    share_count: Option<Number>,
    favorites_count: Option<Number>,
}

/// An integer sent as a JSON number (ids exceed 2^53: never via f64) or a string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Number {
    Unsigned(u64),
    Signed(i64),
    Text(String),
}

impl Number {
    fn as_i64(&self) -> Result<i64, String> {
        match self {
            Number::Unsigned(n) => i64::try_from(*n).map_err(|_| format!("{n} is out of range")),
            Number::Signed(n) => Ok(*n),
            Number::Text(s) => s
                .trim()
                .parse()
                .map_err(|_| format!("`{s}` is not a number")),
        }
    }
}

/// A video with its fields checked.
struct Video {
    id: String,
    created: Option<DateTime<Utc>>,
    username: Option<String>,
    description: Option<String>,
    counters: Counters,
}

impl Video {
    /// Checks one item; an error names the id when it can be read.
    fn parse(raw: Value) -> Result<Video, (Option<String>, String)> {
        let id = match raw.get("id") {
            Some(Value::Number(n)) => n.as_u64().map(|n| n.to_string()),
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        let bad = |e: String| {
            (
                id.clone(),
                format!("the Research API sent a malformed video: {e}"),
            )
        };
        let v: RawVideo = serde_json::from_value(raw).map_err(|e| bad(e.to_string()))?;
        let video_id = match v.id {
            Number::Unsigned(n) => n.to_string(),
            Number::Text(s) if s.parse::<u64>().is_ok() => s,
            _ => return Err(bad("bad id".to_owned())),
        };
        // The one place where an absent counter means 0: the Research API
        // omits zero counters on the videos it returns (docs/platforms.md, seen in a
        // real captured response). Every other adapter maps absent to `None`.
        let zero_if_absent = |n: &Option<Number>| match n {
            Some(n) => n.as_i64().map(Some),
            None => Ok(Some(0)),
        };
        let counters = Counters {
            views: zero_if_absent(&v.view_count).map_err(bad)?,
            likes: zero_if_absent(&v.like_count).map_err(bad)?,
            comments: zero_if_absent(&v.comment_count).map_err(bad)?,
            reposts: zero_if_absent(&v.share_count).map_err(bad)?,
            saves: zero_if_absent(&v.favorites_count).map_err(bad)?,
        };
        let created = v.create_time.map(|t| t.as_i64()).transpose().map_err(bad)?;
        Ok(Video {
            id: video_id,
            created: created.and_then(|t| DateTime::from_timestamp(t, 0)),
            username: v.username.filter(|u| !u.is_empty()),
            description: v.video_description.filter(|d| !d.is_empty()),
            counters,
        })
    }

    fn url(&self) -> String {
        canonical_url(Platform::TikTok, &self.id, self.username.as_deref())
    }
}

/// The `data` of a video query: videos and paging.
struct QueryPage {
    videos: Vec<Result<Video, (Option<String>, String)>>,
    cursor: Option<u64>,
    search_id: Option<String>,
    has_more: bool,
}

impl QueryPage {
    fn parse(data: &Value) -> QueryPage {
        let videos = data
            .get("videos")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let search_id = match data.get("search_id") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        QueryPage {
            videos: videos.into_iter().map(Video::parse).collect(),
            cursor: data.get("cursor").and_then(Value::as_u64),
            search_id: search_id.filter(|s| is_search_id(s)),
            has_more: data
                .get("has_more")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }
}

fn is_search_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn ymd(d: NaiveDate) -> String {
    d.format("%Y%m%d").to_string()
}

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

fn days_before(d: NaiveDate, n: u64) -> NaiveDate {
    d.checked_sub_days(Days::new(n)).unwrap_or(NaiveDate::MIN)
}

/// The UTC day a video id was created: `id >> 32` is its Unix time (docs/platforms.md).
fn id_day(id: u64) -> NaiveDate {
    let secs = i64::try_from(id >> 32).unwrap_or(0);
    DateTime::from_timestamp(secs, 0)
        .unwrap_or_default()
        .date_naive()
}

fn condition(operation: &str, field: &str, values: &[&str]) -> Value {
    json!({"operation": operation, "field_name": field, "field_values": values})
}

/// Our opaque trend cursor: `{cursor}:{search_id}:{start}:{end}`.
fn encode_cursor(cursor: u64, search_id: &str, start: NaiveDate, end: NaiveDate) -> String {
    format!("{cursor}:{search_id}:{}:{}", ymd(start), ymd(end))
}

fn decode_cursor(s: &str) -> Option<(u64, String, NaiveDate, NaiveDate)> {
    let parts: Vec<&str> = s.split(':').collect();
    let [cursor, search_id, start, end] = parts.as_slice() else {
        return None;
    };
    let date = |d: &str| {
        NaiveDate::parse_from_str(d, "%Y%m%d")
            .ok()
            .filter(|_| d.len() == 8)
    };
    let (start, end) = (date(start)?, date(end)?);
    let span = (end - start).num_days();
    if !is_search_id(search_id) || !(0..=WINDOW_DAYS as i64).contains(&span) {
        return None;
    }
    Some((cursor.parse().ok()?, search_id.to_string(), start, end))
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
            client_secret: Secret(config.client_secret),
            token: tokio::sync::Mutex::new(None),
        })
    }

    fn redact(&self, message: String) -> String {
        match self.client_secret.0.as_str() {
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
            && stale != Some(t.value.0.as_str())
        {
            return Ok(t.value.0.clone());
        }
        *cached = None;
        let mut call = Call::get("v2/oauth/token/", Vec::new(), 0);
        call.method = Method::POST;
        call.form = Some(vec![
            ("client_key", self.client_key.clone()),
            ("client_secret", self.client_secret.0.clone()),
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
            value: Secret(token.to_owned()),
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
        match (code, user) {
            // Undocumented by TikTok (docs/platforms.md): an unknown user is taken to be
            // `invalid_params` or a 404.
            (_, Some(user)) if code == "invalid_params" || status == 404 => {
                SourceError::NotFound(format!("no TikTok account @{user} ({detail})"))
            }
            ("rate_limit_exceeded", _) => {
                SourceError::Transient(format!("TikTok Research API rate limit: {detail}"))
            }
            ("access_token_invalid" | "scope_not_authorized" | "scope_permission_missed", _) => {
                SourceError::Permanent(format!("TikTok Research API refused access: {detail}"))
            }
            ("internal_error", _) => {
                SourceError::Transient(format!("TikTok Research API failed: {detail}"))
            }
            _ if status == 429 || status >= 500 => {
                SourceError::Transient(format!("TikTok Research API failed: {detail}"))
            }
            _ if status == 401 => {
                SourceError::Permanent(format!("TikTok Research API refused access: {detail}"))
            }
            _ => SourceError::Permanent(format!("TikTok Research API refused the query: {detail}")),
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

/// Splits ids into batches of at most [`BATCH`] whose creation days span at
/// most 28 days, each with its window: a day of slack on both sides, never
/// past today.
fn batches<'a>(ids: &[(&'a str, NaiveDate)]) -> Vec<(Vec<&'a str>, (NaiveDate, NaiveDate))> {
    let mut sorted = ids.to_vec();
    sorted.sort_by_key(|(_, day)| *day);
    let mut out: Vec<(Vec<&str>, NaiveDate, NaiveDate)> = Vec::new();
    for (id, day) in sorted {
        match out.last_mut() {
            Some((batch, first, last))
                if batch.len() < BATCH && (day - *first).num_days() <= 28 =>
            {
                batch.push(id);
                *last = day;
            }
            _ => out.push((vec![id], day, day)),
        }
    }
    let today = today();
    out.into_iter()
        .map(|(batch, first, last)| {
            let end = last
                .checked_add_days(Days::new(1))
                .unwrap_or(last)
                .min(today);
            (batch, (days_before(first, 1).min(end), end))
        })
        .collect()
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
        let mut outcomes: HashMap<&str, ReadOutcome> = HashMap::new();
        let mut seen = HashSet::new();
        let mut to_read = Vec::new();
        for id in external_ids.iter().filter(|id| seen.insert(id.as_str())) {
            match id.parse::<u64>() {
                Ok(n) if id.bytes().all(|b| b.is_ascii_digit()) => {
                    to_read.push((id.as_str(), id_day(n)))
                }
                _ => {
                    let e = SourceError::Permanent(format!("`{id}` is not a TikTok video id"));
                    outcomes.insert(id, failed(e));
                }
            }
        }
        let (mut any_ok, mut first_err) = (false, None);
        for (batch, window) in batches(&to_read) {
            // A failed batch marks its ids; the call fails only if all batches did.
            let result = self.read_batch(&batch, window).await;
            for id in &batch {
                let outcome = match &result {
                    Ok(found) => found
                        .get(*id)
                        .cloned()
                        .unwrap_or_else(|| failed(SourceError::Transient(NOT_RETURNED.to_owned()))),
                    Err(e) => failed(e.clone()),
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
mod tests {
    use wiremock::matchers::{body_partial_json, body_string_contains, header, method, path};
    use wiremock::{Mock, MockServer, Respond, ResponseTemplate};

    use super::*;

    const SECRET: &str = "s3cr3t-research";
    const TOKEN: &str = "clt.8e2f4a9c7b1d3e5f6a0b2c4d6e8f0a1bR7kQp2WmXz9LvN4tYc3HsD6g!6120";
    const TT: Platform = Platform::TikTok;

    /// The fixture `tiktok-{name}.json` with `status`.
    fn reply(status: u16, name: &str) -> ResponseTemplate {
        let file = format!("{}/fixtures/tiktok-{name}.json", env!("CARGO_MANIFEST_DIR"));
        ResponseTemplate::new(status).set_body_string(std::fs::read_to_string(file).unwrap())
    }

    fn body(status: u16, body: Value) -> ResponseTemplate {
        ResponseTemplate::new(status).set_body_string(body.to_string())
    }

    fn token_reply(token: &str) -> ResponseTemplate {
        body(
            200,
            json!({"access_token": token, "expires_in": 7200, "token_type": "Bearer"}),
        )
    }

    /// Serves `r` to POSTs of `/{at}` carrying `bearer`, `n` times or more.
    async fn mock(s: &MockServer, at: &str, bearer: &str, r: impl Respond + 'static, n: u64) {
        let auth = format!("Bearer {bearer}");
        let m = Mock::given(method("POST"))
            .and(path(format!("/{at}")))
            .and(header("authorization", auth));
        m.respond_with(r).expect(n..).mount(s).await;
    }

    async fn mock_token(s: &MockServer, r: ResponseTemplate, n: u64) {
        let m = Mock::given(method("POST")).and(path("/v2/oauth/token/"));
        let m = m.and(body_string_contains("grant_type=client_credentials"));
        m.and(body_string_contains("client_key=ck"))
            .respond_with(r)
            .expect(n)
            .mount(s)
            .await;
    }

    async fn setup() -> (MockServer, TiktokResearchSource) {
        let server = MockServer::start().await;
        let mut c = TiktokResearchConfig::new("ck", SECRET);
        c.base_url = Url::parse(&server.uri()).unwrap();
        (c.timeout, c.retry_backoff) = (Duration::from_millis(300), Duration::from_millis(1));
        (server, TiktokResearchSource::new(c).unwrap())
    }

    async fn sent_bodies(server: &MockServer, at: &str) -> Vec<Value> {
        let requests = server.received_requests().await.unwrap();
        let mine = requests.iter().filter(|r| r.url.path() == format!("/{at}"));
        mine.map(|r| serde_json::from_slice(&r.body).unwrap())
            .collect()
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn day(ymd: &str) -> NaiveDate {
        NaiveDate::parse_from_str(ymd, "%Y%m%d").unwrap()
    }

    #[tokio::test]
    async fn reads_videos_by_id_within_their_creation_window() {
        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        mock(
            &server,
            VIDEO_QUERY,
            TOKEN,
            reply(200, "research-video-query"),
            2,
        )
        .await;
        let missing = "7704741832294412345";
        let asked = strings(&[
            "7704802802882512932",
            "7702548411371955982",
            missing,
            "not-an-id",
            "7703483974019743696",
        ]);
        let got = tt.read_videos(TT, &asked).await.unwrap();
        assert_eq!(
            got.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            asked.iter().collect::<Vec<_>>()
        );
        let ReadOutcome::Found(first) = &got[0].1 else {
            panic!("{got:?}")
        };
        let counters = Counters {
            views: Some(2_318_774),
            likes: Some(301_552),
            comments: Some(2_840),
            reposts: Some(15_407),
            saves: Some(41_230),
        };
        let meta = VideoMeta {
            title: Some(
                "the garlic trick nobody told you about #cooking #kitchenhacks #fyp".into(),
            ),
            thumbnail_url: None,
            author_username: Some("mira.cooks".into()),
            author_display_name: None,
            published_at: DateTime::from_timestamp(1_793_914_202, 0),
            canonical_url: Some(
                "https://www.tiktok.com/@mira.cooks/video/7704802802882512932".into(),
            ),
        };
        let source = ObservationSource::TiktokResearch;
        assert_eq!(
            first,
            &VideoSnapshot {
                counters,
                meta,
                source
            }
        );
        // Omitted counters on a returned video are zeros (the documented exception).
        let ReadOutcome::Found(third) = &got[1].1 else {
            panic!("{got:?}")
        };
        let zeros = Counters {
            views: Some(0),
            likes: Some(0),
            comments: Some(0),
            reposts: Some(0),
            saves: Some(0),
        };
        assert_eq!(third.counters, zeros);
        let not_returned = ReadOutcome::Failed(SourceError::Transient(NOT_RETURNED.into()));
        assert_eq!(got[2].1, not_returned);
        assert!(matches!(
            &got[3].1,
            ReadOutcome::Failed(SourceError::Permanent(_))
        ));
        assert!(matches!(&got[4].1, ReadOutcome::Found(s) if s.counters.views == Some(88_213)));
        // One query for ids created within 28 days: window = their days ± 1.
        let sent = &sent_bodies(&server, VIDEO_QUERY).await[0];
        let ids = json!([
            "7702548411371955982",
            "7703483974019743696",
            "7704802802882512932",
            missing
        ]);
        assert_eq!(
            sent["query"]["and"][0],
            json!({"operation": "IN", "field_name": "video_id", "field_values": ids})
        );
        assert_eq!(
            (&sent["start_date"], &sent["end_date"], &sent["max_count"]),
            (&json!("20261029"), &json!("20261106"), &json!(100))
        );
        let requests = server.received_requests().await.unwrap();
        let fields = requests[1]
            .url
            .query_pairs()
            .find(|(k, _)| k == "fields")
            .unwrap()
            .1;
        assert_eq!(fields, VIDEO_FIELDS);
        // The token is cached: the second read fetches none.
        tt.read_videos(TT, &asked[..1]).await.unwrap();
        assert_eq!(tt.max_batch(TT), 50);
    }

    #[test]
    fn ids_spread_over_months_split_into_windows_of_at_most_30_days() {
        let mk = |secs: u64| ((secs << 32) + 7).to_string();
        let ids: Vec<String> = [1_790_000_000, 1_790_100_000, 1_793_000_000, 1_780_000_000]
            .map(mk)
            .to_vec();
        let with_days: Vec<(&str, NaiveDate)> = ids
            .iter()
            .map(|id| (id.as_str(), id_day(id.parse().unwrap())))
            .collect();
        let got = batches(&with_days);
        assert_eq!(got.len(), 3);
        for (batch, (start, end)) in &got {
            assert!(!batch.is_empty() && (*end - *start).num_days() <= 30 && start <= end);
        }
        assert_eq!(got[1].0, [ids[0].as_str(), ids[1].as_str()]);
        assert_eq!(got[1].1, (day("20260920"), day("20260923")));
    }

    #[tokio::test]
    async fn credentials_refused_are_permanent_without_the_secret() {
        let (server, tt) = setup().await;
        mock_token(&server, reply(401, "oauth-token-error"), 1).await;
        let e = tt
            .read_videos(TT, &strings(&["7704802802882512932"]))
            .await
            .unwrap_err();
        let SourceError::Permanent(m) = &e else {
            panic!("{e:?}")
        };
        assert!(m.contains("invalid_client") && !m.contains(SECRET), "{m}");
    }

    #[tokio::test]
    async fn a_refused_token_is_renewed_once() {
        let (server, tt) = setup().await;
        let first = Mock::given(path("/v2/oauth/token/")).respond_with(token_reply("clt.old"));
        first.up_to_n_times(1).expect(1).mount(&server).await;
        mock_token(&server, token_reply("clt.new"), 1).await;
        let invalid = json!({"data": {}, "error": {"code": "access_token_invalid", "message": "expired", "log_id": "1"}});
        mock(
            &server,
            VIDEO_QUERY,
            "clt.old",
            body(401, invalid.clone()),
            1,
        )
        .await;
        mock(
            &server,
            VIDEO_QUERY,
            "clt.new",
            reply(200, "research-video-query"),
            1,
        )
        .await;
        let got = tt
            .read_videos(TT, &strings(&["7704802802882512932"]))
            .await
            .unwrap();
        assert!(matches!(got[0].1, ReadOutcome::Found(_)), "{got:?}");

        // Still refused after the renewal: permanent, and no third token.
        let (server, tt) = setup().await;
        let tokens = Mock::given(path("/v2/oauth/token/")).respond_with(reply(200, "oauth-token"));
        tokens.expect(2).mount(&server).await;
        mock(&server, VIDEO_QUERY, TOKEN, body(401, invalid), 2).await;
        let e = tt
            .read_videos(TT, &strings(&["7704802802882512932"]))
            .await
            .unwrap_err();
        assert!(
            matches!(&e, SourceError::Permanent(m) if m.contains("access_token_invalid")),
            "{e:?}"
        );
    }

    #[tokio::test]
    async fn rate_limits_and_server_errors_are_transient_and_retried() {
        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        let limited = reply(429, "research-error-rate-limit");
        mock(&server, "v2/research/user/info/", TOKEN, limited, 3).await;
        let e = tt.resolve_channel(TT, "mira.cooks").await.unwrap_err();
        assert!(
            matches!(&e, SourceError::Transient(m) if m.contains("rate_limit_exceeded")),
            "{e:?}"
        );

        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        let internal = json!({"error": {"code": "internal_error", "message": "", "log_id": "2"}});
        let failing =
            Mock::given(path(format!("/{VIDEO_QUERY}"))).respond_with(body(500, internal));
        failing.up_to_n_times(1).expect(1).mount(&server).await;
        mock(
            &server,
            VIDEO_QUERY,
            TOKEN,
            reply(200, "research-video-query"),
            1,
        )
        .await;
        let got = tt
            .read_videos(TT, &strings(&["7704802802882512932"]))
            .await
            .unwrap();
        assert!(matches!(got[0].1, ReadOutcome::Found(_)));

        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        let slow = reply(200, "research-video-query").set_delay(Duration::from_secs(2));
        mock(&server, VIDEO_QUERY, TOKEN, slow, 1).await;
        let e = tt
            .read_videos(TT, &strings(&["7704802802882512932"]))
            .await
            .unwrap_err();
        assert!(e.is_transient(), "{e:?}");
    }

    #[tokio::test]
    async fn resolves_users_and_unknown_ones_are_not_found() {
        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        let info = Mock::given(path("/v2/research/user/info/"))
            .and(body_partial_json(json!({"username": "mira.cooks"})));
        info.respond_with(reply(200, "research-user-info"))
            .expect(1)
            .mount(&server)
            .await;
        let unknown = json!({"data": {}, "error": {"code": "invalid_params", "message": "user not found", "log_id": "3"}});
        mock(
            &server,
            "v2/research/user/info/",
            TOKEN,
            body(400, unknown),
            1,
        )
        .await;
        let c = tt.resolve_channel(TT, "@mira.cooks").await.unwrap();
        let want = Channel {
            platform: TT,
            channel_id: "mira.cooks".into(),
            username: "mira.cooks".into(),
            display_name: Some("Mira Cooks".into()),
            avatar_url: Some("https://p16-sign-va.tiktokcdn.com/tos-maliva-avt-0068/3f9a1c7e2b5d4e8f9a0b1c2d3e4f5a6b~tplv-tiktokx-cropcenter:1080:1080.jpeg?dr=14579&x-expires=1794216600&x-signature=Q2h9r%2Bk1mT0vX4bN7cL3pW8sZ6E%3D".into()),
            follower_count: Some(874_210),
        };
        assert_eq!(c, want);
        let e = tt.resolve_channel(TT, "nobody.here").await.unwrap_err();
        assert!(matches!(e, SourceError::NotFound(_)), "{e:?}");
    }

    #[tokio::test]
    async fn recent_videos_walk_back_through_windows_newest_first() {
        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        let today = today();
        let older = json!({"data": {"videos": [{"id": 7600000000000000001u64, "create_time": 1_790_000_000, "username": "mira.cooks"}], "has_more": false}, "error": {"code": "ok"}});
        let window1 = Mock::given(body_partial_json(
            json!({"end_date": ymd(days_before(today, 30))}),
        ));
        window1
            .respond_with(body(200, older))
            .expect(1)
            .mount(&server)
            .await;
        let page2 = Mock::given(body_partial_json(
            json!({"cursor": 100, "search_id": "7705113947226113031"}),
        ));
        page2
            .respond_with(body(
                200,
                json!({"data": {"videos": [], "has_more": false}}),
            ))
            .expect(1)
            .mount(&server)
            .await;
        mock(
            &server,
            VIDEO_QUERY,
            TOKEN,
            reply(200, "research-video-query"),
            1,
        )
        .await;
        let channel = Channel {
            platform: TT,
            channel_id: "mira.cooks".into(),
            username: "mira.cooks".into(),
            display_name: None,
            avatar_url: None,
            follower_count: None,
        };
        let got = tt.recent_videos(&channel, 4).await.unwrap();
        let ids: Vec<&str> = got.iter().map(|v| v.external_id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "7704802802882512932",
                "7703483974019743696",
                "7702548411371955982",
                "7600000000000000001"
            ]
        );
        let first = ChannelVideo {
            external_id: "7704802802882512932".into(),
            canonical_url: "https://www.tiktok.com/@mira.cooks/video/7704802802882512932".into(),
            published_at: DateTime::from_timestamp(1_793_914_202, 0),
            title: Some(
                "the garlic trick nobody told you about #cooking #kitchenhacks #fyp".into(),
            ),
        };
        assert_eq!(got[0], first);
        let sent = sent_bodies(&server, VIDEO_QUERY).await;
        assert_eq!(sent.len(), 3);
        let by_user =
            json!({"operation": "EQ", "field_name": "username", "field_values": ["mira.cooks"]});
        assert_eq!(sent[0]["query"]["and"][0], by_user);
        assert_eq!(
            (&sent[0]["start_date"], &sent[0]["end_date"]),
            (&json!(ymd(days_before(today, 29))), &json!(ymd(today)))
        );
    }

    #[tokio::test]
    async fn trends_page_with_an_opaque_cursor() {
        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        mock(
            &server,
            VIDEO_QUERY,
            TOKEN,
            reply(200, "research-video-query"),
            2,
        )
        .await;
        let query = TrendQuery {
            keyword: "kitchen".into(),
            region: Some("us".into()),
            days: Some(90),
            cursor: None,
            page_size: 3,
        };
        let page = tt.search_trends(TT, &query).await.unwrap();
        let (end, start) = (today(), days_before(today(), 30));
        let cursor = format!("100:7705113947226113031:{}:{}", ymd(start), ymd(end));
        assert_eq!(
            (page.cursor.as_deref(), page.has_more),
            (Some(cursor.as_str()), true)
        );
        let first = TrendVideo {
            id: "7704802802882512932".into(),
            url: "https://www.tiktok.com/@mira.cooks/video/7704802802882512932".into(),
            cover: None,
            plays: Some(2_318_774),
            likes: Some(301_552),
            comments: Some(2_840),
            shares: Some(15_407),
            author_username: Some("mira.cooks".into()),
            author_cover: None,
        };
        assert_eq!(page.videos[0], first);
        let plays: Vec<_> = page.videos.iter().map(|v| v.plays).collect();
        assert_eq!(plays, [Some(2_318_774), Some(88_213), Some(0)]);
        let next = TrendQuery {
            cursor: Some(cursor),
            ..query.clone()
        };
        tt.search_trends(TT, &next).await.unwrap();
        let sent = sent_bodies(&server, VIDEO_QUERY).await;
        let conditions = json!([
            {"operation": "EQ", "field_name": "keyword", "field_values": ["kitchen"]},
            {"operation": "IN", "field_name": "region_code", "field_values": ["US"]}
        ]);
        assert_eq!(
            (&sent[0]["query"]["and"], &sent[0]["max_count"]),
            (&conditions, &json!(3))
        );
        assert_eq!(
            (&sent[1]["cursor"], &sent[1]["search_id"]),
            (&json!(100), &json!("7705113947226113031"))
        );
        assert_eq!(sent[1]["start_date"], json!(ymd(start)));
        for bad in [
            "garbage",
            "1:2:3",
            "x:1:20261101:20261102",
            "1:1:20260101:20260301",
            "1:a-b:20261101:20261102",
        ] {
            let q = TrendQuery {
                cursor: Some(bad.into()),
                ..query.clone()
            };
            assert_eq!(
                tt.search_trends(TT, &q).await,
                Err(SourceError::Permanent("invalid cursor".into())),
                "{bad}"
            );
        }
    }

    #[tokio::test]
    async fn malformed_answers_never_panic() {
        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        let videos = json!({"data": {"videos": [
            {"id": 7704802802882512932u64, "view_count": "lots"},
            {"id": {"nested": 1}},
            {"id": "7703483974019743696", "view_count": "12", "username": 5},
            {"id": 7702548411371955982u64, "view_count": 9}
        ]}, "error": {"code": "ok"}});
        mock(&server, VIDEO_QUERY, TOKEN, body(200, videos), 1).await;
        let asked = strings(&[
            "7704802802882512932",
            "7703483974019743696",
            "7702548411371955982",
        ]);
        let got = tt.read_videos(TT, &asked).await.unwrap();
        assert!(
            matches!(&got[0].1, ReadOutcome::Failed(SourceError::Permanent(_))),
            "{got:?}"
        );
        assert!(
            matches!(&got[1].1, ReadOutcome::Failed(SourceError::Permanent(_))),
            "{got:?}"
        );
        assert!(
            matches!(&got[2].1, ReadOutcome::Found(s) if s.counters.views == Some(9)),
            "{got:?}"
        );

        let (server, tt) = setup().await;
        mock_token(&server, reply(200, "oauth-token"), 1).await;
        let html = ResponseTemplate::new(200).set_body_string("<html>maintenance</html>");
        mock(&server, VIDEO_QUERY, TOKEN, html, 1).await;
        let huge = ResponseTemplate::new(200).set_body_string("x".repeat(9 << 20));
        mock(&server, "v2/research/user/info/", TOKEN, huge, 1).await;
        let e = tt.read_videos(TT, &asked).await.unwrap_err();
        assert!(matches!(e, SourceError::Permanent(_)), "{e:?}");
        let e = tt.resolve_channel(TT, "mira.cooks").await.unwrap_err();
        assert!(matches!(e, SourceError::Permanent(_)), "{e:?}");
    }
}
