//! The Research API's answers as they arrive: numbers that may come as
//! strings (ids exceed 2^53), videos checked one by one, and a query page.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use vidpulse_domain::video_url::canonical_url;
use vidpulse_domain::{Counters, Platform};

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
pub(super) enum Number {
    Unsigned(u64),
    Signed(i64),
    Text(String),
}

impl Number {
    pub(super) fn as_i64(&self) -> Result<i64, String> {
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
pub(super) struct Video {
    pub(super) id: String,
    pub(super) created: Option<DateTime<Utc>>,
    pub(super) username: Option<String>,
    pub(super) description: Option<String>,
    pub(super) counters: Counters,
}

impl Video {
    /// Checks one item; an error names the id when it can be read.
    pub(super) fn parse(raw: Value) -> Result<Video, (Option<String>, String)> {
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

    pub(super) fn url(&self) -> String {
        canonical_url(Platform::TikTok, &self.id, self.username.as_deref())
    }
}

/// The `data` of a video query: videos and paging.
pub(super) struct QueryPage {
    pub(super) videos: Vec<Result<Video, (Option<String>, String)>>,
    pub(super) cursor: Option<u64>,
    pub(super) search_id: Option<String>,
    pub(super) has_more: bool,
}

impl QueryPage {
    pub(super) fn parse(data: &Value) -> QueryPage {
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

pub(super) fn is_search_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric())
}
