//! The platforms vidpulse tracks and their two spellings: the lowercase id
//! (`tiktok`) used in requests and group keys, and the display name (`TikTok`)
//! used in video records.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A video platform vidpulse can track.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// TikTok.
    TikTok,
    /// Instagram (reels and video posts).
    Instagram,
    /// YouTube (videos, shorts, live replays).
    YouTube,
}

/// A string that names no platform.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown platform `{0}`: expected tiktok, instagram or youtube")]
pub struct UnknownPlatform(pub String);

impl Platform {
    /// Every platform, in a stable order.
    pub const ALL: [Platform; 3] = [Platform::TikTok, Platform::Instagram, Platform::YouTube];

    /// The lowercase id: `tiktok`, `instagram`, `youtube`.
    pub fn id(self) -> &'static str {
        match self {
            Platform::TikTok => "tiktok",
            Platform::Instagram => "instagram",
            Platform::YouTube => "youtube",
        }
    }

    /// The display name: `TikTok`, `Instagram`, `YouTube`.
    pub fn display_name(self) -> &'static str {
        match self {
            Platform::TikTok => "TikTok",
            Platform::Instagram => "Instagram",
            Platform::YouTube => "YouTube",
        }
    }

    /// Parses the lowercase id exactly (`tiktok`), as request bodies and imports spell it.
    pub fn from_id(s: &str) -> Result<Self, UnknownPlatform> {
        Self::ALL
            .into_iter()
            .find(|p| p.id() == s)
            .ok_or_else(|| UnknownPlatform(s.to_owned()))
    }

    /// Parses either spelling, ignoring case (`TikTok`, `tiktok`, `TIKTOK`).
    pub fn from_any_case(s: &str) -> Result<Self, UnknownPlatform> {
        Self::ALL
            .into_iter()
            .find(|p| p.id().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownPlatform(s.to_owned()))
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Platform {
    type Err = UnknownPlatform;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_id(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_display_names_round_trip() {
        for p in Platform::ALL {
            assert_eq!(Platform::from_id(p.id()), Ok(p));
            assert_eq!(Platform::from_any_case(p.display_name()), Ok(p));
        }
        assert!(Platform::from_id("TikTok").is_err());
        assert!(Platform::from_any_case("vimeo").is_err());
        assert!(Platform::from_any_case("").is_err());
    }
}
