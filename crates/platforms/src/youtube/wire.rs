//! The Data API's answers as they arrive: every field optional (absent
//! means unknown), each list item parsed on its own, and what a videos.list
//! item reads as.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use vidpulse_domain::video_url::canonical_url;
use vidpulse_domain::{Counters, ObservationSource, Platform};

use crate::source::{VideoMeta, VideoSnapshot};

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct ListPage {
    pub(super) items: Vec<Value>,
    pub(super) next_page_token: Option<String>,
}

/// An item of any list: video, channel, playlist item or search result.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Item {
    pub(super) id: ItemId,
    pub(super) snippet: Snippet,
    pub(super) statistics: Statistics,
    pub(super) content_details: Details,
}

/// A plain id (videos, channels, playlist items) or a search result's object.
#[derive(Deserialize, Default)]
#[serde(untagged)]
pub(super) enum ItemId {
    #[default]
    Missing,
    Plain(String),
    Search {
        #[serde(rename = "videoId")]
        video_id: Option<String>,
    },
}

impl Item {
    pub(super) fn id(&self) -> Option<&str> {
        match &self.id {
            ItemId::Plain(id) => Some(id),
            ItemId::Search { video_id } => video_id.as_deref(),
            ItemId::Missing => None,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Details {
    pub(super) video_id: Option<String>,
    pub(super) video_published_at: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Snippet {
    pub(super) published_at: Option<String>,
    pub(super) title: Option<String>,
    pub(super) channel_title: Option<String>,
    pub(super) custom_url: Option<String>,
    pub(super) thumbnails: Value,
}

/// The best thumbnail's URL: maxres > standard > high > medium > default.
pub(super) fn best_thumbnail(thumbnails: &Value) -> Option<String> {
    ["maxres", "standard", "high", "medium", "default"]
        .iter()
        .find_map(|k| thumbnails.get(k)?.get("url")?.as_str().map(str::to_owned))
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Statistics {
    pub(super) view_count: Option<Count>,
    pub(super) like_count: Option<Count>,
    pub(super) comment_count: Option<Count>,
    pub(super) subscriber_count: Option<Count>,
    pub(super) hidden_subscriber_count: Option<bool>,
}

/// A counter: YouTube sends strings of digits; numbers are accepted too.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum Count {
    Int(i64),
    Text(String),
}

pub(super) fn count(c: &Option<Count>) -> Result<Option<i64>, String> {
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
pub(super) fn parse_items(
    page: ListPage,
) -> impl Iterator<Item = Result<Item, (Option<String>, String)>> {
    page.items.into_iter().map(|raw| {
        let id = raw.get("id").and_then(Value::as_str).map(str::to_owned);
        serde_json::from_value(raw)
            .map_err(|e| (id, format!("YouTube returned a malformed item: {e}")))
    })
}

pub(super) fn rfc3339(s: &Option<String>) -> Option<DateTime<Utc>> {
    s.as_deref()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

pub(super) fn is_video_id(id: &str) -> bool {
    id.len() == 11
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

pub(super) fn watch_url(id: &str) -> String {
    canonical_url(Platform::YouTube, id, None)
}

impl Item {
    /// The reading of a videos.list item.
    pub(super) fn snapshot(&self, id: &str) -> Result<VideoSnapshot, String> {
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
