//! Plans and the limits that come with them.
//!
//! Defaults as docs/api.md ("Plans, quotas and credits") lists them;
//! an operator can override the video quota and creator cap per organization.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Videos a creator's backfill tracks when the request names no count.
pub const DEFAULT_BACKFILL_VIDEOS: i64 = 10;
/// Most videos a creator's backfill may ask for.
pub const MAX_BACKFILL_VIDEOS: i64 = 50;
/// New videos a creator's discovery tracks per visit when its account sets
/// no daily count.
pub const DEFAULT_DAILY_VIDEOS: i64 = 5;
/// Most new videos a creator's daily count may allow.
pub const MAX_DAILY_VIDEOS: i64 = 50;

/// A subscription plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    /// Free: video tracking only.
    Free,
    /// Pro.
    Pro,
    /// Business.
    Business,
}

/// A string that names no plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown plan `{0}`: expected free, pro or business")]
pub struct UnknownPlan(pub String);

impl Plan {
    /// The stored and displayed spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Pro => "pro",
            Plan::Business => "business",
        }
    }

    /// Whether the plan unlocks paid operations (PATCH, creators, analytics, trends).
    pub fn is_paid(self) -> bool {
        !matches!(self, Plan::Free)
    }

    /// Default number of videos an organization may track at once.
    pub fn default_video_quota(self) -> i64 {
        match self {
            Plan::Free => 100,
            Plan::Pro => 1000,
            Plan::Business => 5000,
        }
    }

    /// Default number of creators an organization may track.
    pub fn default_creator_cap(self) -> i64 {
        match self {
            Plan::Free => 10,
            Plan::Pro => 200,
            Plan::Business => 300,
        }
    }

    /// Trend searches per calendar month; `None` when trends are unavailable.
    pub fn monthly_trend_searches(self) -> Option<i64> {
        match self {
            Plan::Free => None,
            Plan::Pro => Some(1000),
            Plan::Business => Some(6000),
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Plan {
    type Err = UnknownPlan;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "free" => Ok(Plan::Free),
            "pro" => Ok(Plan::Pro),
            "business" => Ok(Plan::Business),
            other => Err(UnknownPlan(other.to_owned())),
        }
    }
}

/// The limits in force for one organization: plan defaults unless overridden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Videos that may be tracked at once.
    pub video_quota: i64,
    /// Creators that may be tracked at once.
    pub creator_cap: i64,
}

impl Limits {
    /// The limits of `plan`, with the organization's overrides applied.
    pub fn of(plan: Plan, video_quota: Option<i64>, creator_cap: Option<i64>) -> Self {
        Self {
            video_quota: video_quota.unwrap_or_else(|| plan.default_video_quota()),
            creator_cap: creator_cap.unwrap_or_else(|| plan.default_creator_cap()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_semantics() {
        assert_eq!(
            Limits::of(Plan::Free, None, None),
            Limits {
                video_quota: 100,
                creator_cap: 10
            }
        );
        assert_eq!(
            Limits::of(Plan::Pro, None, None),
            Limits {
                video_quota: 1000,
                creator_cap: 200
            }
        );
        assert_eq!(
            Limits::of(Plan::Business, Some(7), None),
            Limits {
                video_quota: 7,
                creator_cap: 300
            }
        );
        assert!(!Plan::Free.is_paid());
        assert_eq!("pro".parse::<Plan>(), Ok(Plan::Pro));
        assert!("Pro".parse::<Plan>().is_err());
    }
}
