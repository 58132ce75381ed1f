//! The five public counters of a video and one reading of them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The five counters, each `None` when the platform does not report it
/// (YouTube has no reposts or saves, Instagram often hides views).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Views (plays).
    pub views: Option<i64>,
    /// Likes.
    pub likes: Option<i64>,
    /// Comments.
    pub comments: Option<i64>,
    /// Reposts (shares).
    pub reposts: Option<i64>,
    /// Saves (favourites, bookmarks).
    pub saves: Option<i64>,
}

/// The metric names in the order the analytics responses use.
pub const METRIC_NAMES: [&str; 5] = ["views", "likes", "comments", "reposts", "saves"];

impl Counters {
    /// The counters in [`METRIC_NAMES`] order.
    pub fn as_array(&self) -> [Option<i64>; 5] {
        [
            self.views,
            self.likes,
            self.comments,
            self.reposts,
            self.saves,
        ]
    }

    /// Engagement rate in percent: (likes + comments + reposts) / views × 100,
    /// rounded to two decimals; `None` without views.
    pub fn engagement_rate(&self) -> Option<f64> {
        let views = self.views.filter(|v| *v > 0)?;
        let engaged =
            self.likes.unwrap_or(0) + self.comments.unwrap_or(0) + self.reposts.unwrap_or(0);
        Some(round2(engaged as f64 * 100.0 / views as f64))
    }
}

/// Cost per mille: budget / views × 1000, rounded to two decimals; `None`
/// without a budget or without views.
pub fn cost_per_mille(budget: Option<i64>, views: Option<i64>) -> Option<f64> {
    let views = views.filter(|v| *v > 0)?;
    let budget = budget?;
    Some(round2(budget as f64 * 1000.0 / views as f64))
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Where an observation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObservationSource {
    /// The built-in simulated source.
    Simulated,
    /// The YouTube Data API.
    YoutubeApi,
    /// yt-dlp.
    YtDlp,
    /// The TikTok Research API.
    TiktokResearch,
    /// The Instagram Graph API.
    InstagramGraph,
    /// A CSV import (`vidpulse admin import-stats`).
    Import,
}

impl ObservationSource {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ObservationSource::Simulated => "simulated",
            ObservationSource::YoutubeApi => "youtube_api",
            ObservationSource::YtDlp => "yt_dlp",
            ObservationSource::TiktokResearch => "tiktok_research",
            ObservationSource::InstagramGraph => "instagram_graph",
            ObservationSource::Import => "import",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Simulated,
            Self::YoutubeApi,
            Self::YtDlp,
            Self::TiktokResearch,
            Self::InstagramGraph,
            Self::Import,
        ]
        .into_iter()
        .find(|x| x.as_str() == s)
    }
}

/// One reading of a video's counters at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observation {
    /// When the counters were read.
    pub captured_at: DateTime<Utc>,
    /// The counters.
    pub counters: Counters,
}

/// What the platform says about a video besides its counters. Every field is
/// `None` when the platform does not say (and then keeps the stored value).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VideoMeta {
    /// Title or caption.
    pub title: Option<String>,
    /// Thumbnail (cover) image URL.
    pub thumbnail_url: Option<String>,
    /// The author's handle, without `@`.
    pub author_username: Option<String>,
    /// The author's display name.
    pub author_display_name: Option<String>,
    /// When the video was published.
    pub published_at: Option<DateTime<Utc>>,
    /// The canonical page URL, when the platform gives one (replaces a URL
    /// built without the author's handle).
    pub canonical_url: Option<String>,
}

/// What a read of one video produced, as the store saves it.
#[derive(Debug, Clone, PartialEq)]
pub enum RefreshOutcome {
    /// Counters were read: append an observation and move the daily close.
    Observed {
        /// The counters.
        counters: Counters,
        /// The metadata.
        meta: VideoMeta,
        /// The adapter that read them.
        source: ObservationSource,
    },
    /// The platform reports the video removed or private: stop refreshing.
    Gone {
        /// What the platform said.
        reason: String,
    },
    /// The read failed: count the failure and keep (or back off) the schedule.
    Failed {
        /// What went wrong.
        error: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engagement_rate_needs_views() {
        let c = Counters {
            views: Some(1000),
            likes: Some(50),
            comments: Some(5),
            reposts: Some(5),
            saves: None,
        };
        assert_eq!(c.engagement_rate(), Some(6.0));
        assert_eq!(
            Counters {
                views: Some(0),
                ..c
            }
            .engagement_rate(),
            None
        );
        assert_eq!(Counters { views: None, ..c }.engagement_rate(), None);
    }

    #[test]
    fn cpm_needs_budget_and_views() {
        assert_eq!(cost_per_mille(Some(500), Some(100_000)), Some(5.0));
        assert_eq!(cost_per_mille(None, Some(100_000)), None);
        assert_eq!(cost_per_mille(Some(500), Some(0)), None);
    }

    #[test]
    fn sources_round_trip() {
        for s in [
            "simulated",
            "youtube_api",
            "yt_dlp",
            "tiktok_research",
            "instagram_graph",
            "import",
        ] {
            assert_eq!(ObservationSource::parse(s).map(|x| x.as_str()), Some(s));
        }
    }
}
