//! Instagram through the Graph API's business discovery (docs/platforms.md):
//! profiles and recent media of Business and Creator accounts, seen from
//! our own connected Business account.
//!
//! What it cannot give: views, shares or saves of other accounts' media (no
//! such fields), likes the owner hides, personal accounts (indistinguishable
//! from unknown ones), or a media item by shortcode. So [`Source::read_videos`]
//! is unsupported (reels are read with yt-dlp) and
//! [`InstagramGraphSource::read_owner_media`] refreshes reels by matching the
//! owner's recent media instead. No trend search.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::Value;
use url::Url;
use vidpulse_domain::{Counters, ObservationSource, ParsedUrl, Platform, parse_video_url};

use crate::http::{Call, HttpError, Upstream, UpstreamConfig, UpstreamSnapshot};
use crate::source::{
    Channel, ChannelVideo, ReadOutcome, Source, SourceError, VideoMeta, VideoSnapshot,
};

/// The Graph API's public base address, version included.
pub const DEFAULT_BASE_URL: &str = "https://graph.facebook.com/v25.0/";
/// Media per page (the documented maximum of `media.limit()` is unverified).
const PAGE: usize = 50;
/// How far back [`InstagramGraphSource::read_owner_media`] looks.
const OWNER_MEDIA: usize = 200;
/// Pages read at most for one listing.
const MAX_PAGES: usize = 10;
const PROFILE_FIELDS: &str = "id,username,name,profile_picture_url,followers_count,media_count";
const MEDIA_FIELDS: &str = "id,permalink,caption,like_count,comments_count,timestamp,media_type,\
                            media_product_type,thumbnail_url";
const NOT_RECENT: &str = "not among the owner's recent media";

/// Settings of the Instagram Graph API adapter.
#[derive(Clone)]
pub struct InstagramGraphConfig {
    /// User access token; never logged or put in error messages.
    pub access_token: SecretString,
    /// Our Instagram Business account id, the one the calls are made as.
    pub ig_user_id: String,
    /// Base address of the API with its version, ending with `/`.
    pub base_url: Url,
    /// Time allowed for one attempt.
    pub timeout: Duration,
    /// First backoff between retries of transient failures.
    pub retry_backoff: Duration,
}

impl InstagramGraphConfig {
    /// The public API (v25.0), 10 s per attempt, 250 ms backoff.
    pub fn new(access_token: impl Into<SecretString>, ig_user_id: impl Into<String>) -> Self {
        Self {
            access_token: access_token.into(),
            ig_user_id: ig_user_id.into(),
            base_url: Url::parse(DEFAULT_BASE_URL)
                .unwrap_or_else(|e| unreachable!("constant URL: {e}")),
            timeout: Duration::from_secs(10),
            retry_backoff: Duration::from_millis(250),
        }
    }
}

impl std::fmt::Debug for InstagramGraphConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstagramGraphConfig")
            .field("access_token", &self.access_token)
            .field("ig_user_id", &self.ig_user_id)
            .field("base_url", &self.base_url.as_str())
            .finish_non_exhaustive()
    }
}

/// The Instagram Graph API (business discovery) adapter.
#[derive(Debug)]
pub struct InstagramGraphSource {
    upstream: Upstream,
    access_token: SecretString,
    ig_user_id: String,
}

/// A media item as the API sends it.
#[derive(Deserialize)]
struct RawMedia {
    caption: Option<String>,
    like_count: Option<i64>,
    comments_count: Option<i64>,
    timestamp: Option<String>,
    media_type: Option<String>,
    media_product_type: Option<String>,
    thumbnail_url: Option<String>,
}

/// A media item with its shortcode found.
struct Media {
    shortcode: String,
    canonical_url: String,
    raw: RawMedia,
}

impl Media {
    /// Checks one item; an error names the shortcode when the permalink has one.
    fn parse(raw: Value) -> Result<Media, (Option<String>, String)> {
        let permalink = raw
            .get("permalink")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let video = permalink.as_deref().and_then(|p| match parse_video_url(p) {
            Ok(ParsedUrl::Video(v)) if v.platform == Platform::Instagram => Some(v),
            _ => None,
        });
        let Some(video) = video else {
            return Err((
                None,
                format!("a media item without a usable permalink: {permalink:?}"),
            ));
        };
        match serde_json::from_value::<RawMedia>(raw) {
            Ok(raw) => Ok(Media {
                shortcode: video.external_id,
                canonical_url: video.canonical_url,
                raw,
            }),
            Err(e) => Err((
                Some(video.external_id),
                format!("Instagram sent a malformed media item: {e}"),
            )),
        }
    }

    fn is_video(&self) -> bool {
        self.raw.media_type.as_deref() == Some("VIDEO")
            || self.raw.media_product_type.as_deref() == Some("REELS")
    }

    /// `2026-11-05T21:34:18+0000`: an offset without a colon, not RFC 3339.
    fn published_at(&self) -> Option<DateTime<Utc>> {
        let t = self.raw.timestamp.as_deref()?;
        DateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%z")
            .or_else(|_| DateTime::parse_from_rfc3339(t))
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }
}

/// A profile and the media read with it.
struct Discovery {
    profile: Value,
    media: Vec<Result<Media, (Option<String>, String)>>,
}

fn is_username(u: &str) -> bool {
    (1..=30).contains(&u.len())
        && u.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._".contains(&b))
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn unsupported(platform: Platform) -> SourceError {
    SourceError::Unsupported(format!(
        "the Instagram Graph API cannot serve {}",
        platform.display_name()
    ))
}

impl InstagramGraphSource {
    /// An adapter for `config`; fails if the account id is not numeric or the
    /// HTTP client cannot be built.
    pub fn new(config: InstagramGraphConfig) -> Result<Self, SourceError> {
        let id = config.ig_user_id.trim().to_owned();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(SourceError::Permanent(
                "the Instagram Business account id must be numeric".to_owned(),
            ));
        }
        let mut base = config.base_url;
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let mut up = UpstreamConfig::new("instagram_graph", base);
        up.timeout = config.timeout;
        up.backoff = config.retry_backoff;
        let upstream = Upstream::new(up).map_err(|e| {
            SourceError::Permanent(format!("cannot set up the Instagram Graph client: {e}"))
        })?;
        Ok(Self {
            upstream,
            access_token: config.access_token,
            ig_user_id: id,
        })
    }

    /// Removes the token from a message, as sent and as URL-encoded.
    fn redact(&self, message: String) -> String {
        let token = self.access_token.expose_secret();
        if token.is_empty() {
            return message;
        }
        let encoded: String = url::form_urlencoded::byte_serialize(token.as_bytes()).collect();
        message
            .replace(token, "[redacted]")
            .replace(&encoded, "[redacted]")
    }

    /// Reads `{"error":{"message","type","code","error_subcode","is_transient"}}`.
    fn map_error(&self, e: HttpError, username: &str) -> SourceError {
        let (status, body) = match e {
            HttpError::Status { status, body } => (status, body),
            e if e.is_transient() => {
                return SourceError::Transient(self.redact(format!("Instagram Graph API: {e}")));
            }
            e => return SourceError::Permanent(self.redact(format!("Instagram Graph API: {e}"))),
        };
        let v: Value = serde_json::from_str(&body).unwrap_or_default();
        let code = v
            .pointer("/error/code")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let subcode = v
            .pointer("/error/error_subcode")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let flagged = v.pointer("/error/is_transient").and_then(Value::as_bool) == Some(true);
        let message = v
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("");
        let message = self.redact(message.chars().take(300).collect());
        let answered = |transient, message| SourceError::Status {
            status,
            transient,
            message,
        };
        match code {
            110 => SourceError::NotFound(format!(
                "@{username}: not a business or creator account, or no such account"
            )),
            _ if subcode == 2_207_013 => SourceError::NotFound(format!(
                "@{username}: not a business or creator account, or no such account"
            )),
            190 => answered(
                false,
                "Instagram access token invalid or expired".to_owned(),
            ),
            4 | 17 | 32 | 613 | 80002 => answered(
                true,
                format!("Instagram Graph API throttled (code {code}): {message}"),
            ),
            _ if flagged || status == 429 || status >= 500 => answered(
                true,
                format!("Instagram Graph API failed (HTTP {status}, code {code}): {message}"),
            ),
            _ => answered(
                false,
                format!(
                    "Instagram Graph API refused the request (HTTP {status}, code {code}): {message}"
                ),
            ),
        }
    }

    /// Business discovery of `username`: its profile, and `pages` pages of
    /// `page_size` media until `enough` says so.
    async fn discover(
        &self,
        username: &str,
        page_size: usize,
        pages: usize,
        mut enough: impl FnMut(&[Result<Media, (Option<String>, String)>]) -> bool,
    ) -> Result<Discovery, SourceError> {
        let user = username.trim().trim_start_matches('@');
        // The name goes inside a field expression: only a valid username may.
        if !is_username(user) {
            return Err(SourceError::NotFound(format!(
                "`{username}` is not an Instagram username"
            )));
        }
        let mut found = Discovery {
            profile: Value::Null,
            media: Vec::new(),
        };
        let mut after: Option<String> = None;
        for _ in 0..pages.max(1) {
            let edge = match &after {
                Some(cursor) => format!("media.after({cursor}).limit({page_size})"),
                None => format!("media.limit({page_size})"),
            };
            let media = if pages == 0 {
                String::new()
            } else {
                format!(",{edge}{{{MEDIA_FIELDS}}}")
            };
            let fields = format!("business_discovery.username({user}){{{PROFILE_FIELDS}{media}}}");
            let query = vec![
                ("fields", fields),
                ("access_token", self.access_token.expose_secret().to_owned()),
            ];
            let call = Call::get(&self.ig_user_id, query, 1);
            let answer: Value = self
                .upstream
                .json(call)
                .await
                .map_err(|e| self.map_error(e, user))?;
            let Some(profile) = answer.get("business_discovery").filter(|p| p.is_object()) else {
                return Err(SourceError::Permanent(
                    "Instagram answered without business_discovery".to_owned(),
                ));
            };
            let items = profile.pointer("/media/data").and_then(Value::as_array);
            let items = items.cloned().unwrap_or_default();
            let empty = items.is_empty();
            found.media.extend(items.into_iter().map(Media::parse));
            let next = profile
                .pointer("/media/paging/cursors/after")
                .and_then(Value::as_str);
            // A cursor also goes inside the field expression: base64 characters only.
            let next = next.filter(|c| {
                !c.is_empty()
                    && c.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_=".contains(&b))
            });
            if found.profile.is_null() {
                found.profile = profile.clone();
            }
            if pages == 0 || empty || enough(&found.media) || next == after.as_deref() {
                break;
            }
            match next {
                Some(next) => after = Some(next.to_owned()),
                None => break,
            }
        }
        Ok(found)
    }

    /// Refreshes reels of `username` by shortcode: reads the owner's recent
    /// media (up to 200) and matches their permalinks. One entry per
    /// requested shortcode, in order; views, reposts and saves are `None`
    /// (the API has none), likes `None` when the owner hides them.
    pub async fn read_owner_media(
        &self,
        username: &str,
        shortcodes: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        let all_found = |media: &[Result<Media, (Option<String>, String)>]| {
            shortcodes.iter().all(|code| {
                media.iter().any(|m| match m {
                    Ok(m) => &m.shortcode == code,
                    Err((c, _)) => c.as_ref() == Some(code),
                })
            })
        };
        let found = self
            .discover(username, PAGE, OWNER_MEDIA / PAGE, all_found)
            .await?;
        let author_username = text(&found.profile, "username");
        let author_display_name = text(&found.profile, "name");
        let mut by_code: HashMap<String, ReadOutcome> = HashMap::new();
        for media in found.media {
            let (code, outcome) = match media {
                Ok(m) => {
                    let meta = VideoMeta {
                        title: m.raw.caption.clone().filter(|c| !c.is_empty()),
                        thumbnail_url: m.raw.thumbnail_url.clone(),
                        author_username: author_username.clone(),
                        author_display_name: author_display_name.clone(),
                        published_at: m.published_at(),
                        canonical_url: Some(m.canonical_url.clone()),
                    };
                    let counters = Counters {
                        likes: m.raw.like_count,
                        comments: m.raw.comments_count,
                        ..Counters::default()
                    };
                    let source = ObservationSource::InstagramGraph;
                    (
                        m.shortcode,
                        ReadOutcome::Found(VideoSnapshot {
                            counters,
                            meta,
                            source,
                        }),
                    )
                }
                Err((Some(code), e)) => (code, ReadOutcome::Failed(SourceError::Permanent(e))),
                Err((None, _)) => continue,
            };
            by_code.entry(code).or_insert(outcome);
        }
        Ok(shortcodes
            .iter()
            .map(|code| {
                let outcome = by_code.get(code).cloned().unwrap_or_else(|| {
                    ReadOutcome::Failed(SourceError::Transient(NOT_RECENT.to_owned()))
                });
                (code.clone(), outcome)
            })
            .collect())
    }
}

#[async_trait]
impl Source for InstagramGraphSource {
    fn max_batch(&self, platform: Platform) -> usize {
        if platform == Platform::Instagram {
            PAGE
        } else {
            1
        }
    }

    async fn read_videos(
        &self,
        platform: Platform,
        external_ids: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        let _ = external_ids;
        if platform != Platform::Instagram {
            return Err(unsupported(platform));
        }
        Err(SourceError::Unsupported(
            "the Instagram Graph API cannot read media by shortcode; reels are read with yt-dlp"
                .to_owned(),
        ))
    }

    async fn resolve_channel(
        &self,
        platform: Platform,
        username: &str,
    ) -> Result<Channel, SourceError> {
        if platform != Platform::Instagram {
            return Err(unsupported(platform));
        }
        let found = self.discover(username, 0, 0, |_| true).await?;
        let p = &found.profile;
        let Some(channel_id) = text(p, "id") else {
            return Err(SourceError::Permanent(
                "Instagram sent a profile without an id".to_owned(),
            ));
        };
        let follower_count = match p.get("followers_count") {
            None | Some(Value::Null) => None,
            Some(n) => Some(n.as_i64().ok_or_else(|| {
                SourceError::Permanent(format!("Instagram sent a malformed follower count: {n}"))
            })?),
        };
        let requested = username.trim().trim_start_matches('@');
        Ok(Channel {
            platform: Platform::Instagram,
            channel_id,
            username: text(p, "username").unwrap_or_else(|| requested.to_owned()),
            display_name: text(p, "name"),
            avatar_url: text(p, "profile_picture_url"),
            follower_count,
        })
    }

    async fn recent_videos(
        &self,
        channel: &Channel,
        limit: usize,
    ) -> Result<Vec<ChannelVideo>, SourceError> {
        if channel.platform != Platform::Instagram {
            return Err(unsupported(channel.platform));
        }
        if limit == 0 {
            return Ok(Vec::new());
        }
        let videos_at_least = |media: &[Result<Media, (Option<String>, String)>]| {
            media.iter().flatten().filter(|m| m.is_video()).count() >= limit
        };
        let page_size = limit.min(PAGE);
        let found = self
            .discover(&channel.username, page_size, MAX_PAGES, videos_at_least)
            .await?;
        let mut out: Vec<ChannelVideo> = found
            .media
            .into_iter()
            .flatten()
            .filter(Media::is_video)
            .map(|m| ChannelVideo {
                published_at: m.published_at(),
                title: m.raw.caption.filter(|c| !c.is_empty()),
                external_id: m.shortcode,
                canonical_url: m.canonical_url,
            })
            .collect();
        out.truncate(limit);
        Ok(out)
    }

    fn upstream_stats(&self) -> Vec<UpstreamSnapshot> {
        vec![self.upstream.snapshot()]
    }
}

#[cfg(test)]
mod tests;
