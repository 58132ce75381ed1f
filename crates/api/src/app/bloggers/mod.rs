//! The creator use cases: track a creator (queue its job), look one up, list
//! them, follower history, the job a creator read answers with, change its
//! settings, untrack it and read it now; here the platform, username,
//! backfill and settings rules the public API's `/v1/bloggers` and the
//! dashboard's `/blogger` routes share.
//!
//! Tracking a creator is a job: the request is checked and queued in one
//! transaction and answered at once; the worker resolves the channel,
//! creates (or reactivates) the tracked account and backfills its most
//! recent videos; the client polls the job.

use std::str::FromStr;

use serde::{Deserialize, Deserializer, de};
use serde_json::Value;
use vidpulse_domain::Platform;
use vidpulse_domain::names::{Handle, NameError};

use crate::error::ApiError;

mod followers;
mod job;
mod manage;
mod refresh;
mod tracked;

pub use followers::FollowerDayView;
pub(crate) use followers::{follower_days, follower_window};
pub use job::{JobError, JobResult, JobView};
pub(crate) use job::{creator_cap_reached, job_status_url, job_view, start_job};
pub use manage::{BloggerPatch, MAX_TAGS, TagNames, UntrackedBlogger};
pub(crate) use manage::{
    bad_budget, bad_daily_count, bad_is_active, untrack_blogger, update_blogger,
};
pub use refresh::BloggerRefresh;
pub(crate) use refresh::{profile_of, read_failed, refresh_blogger};
pub use tracked::BloggerView;
pub(crate) use tracked::{account_now, blogger_view, tracked_or_404, tracked_page};

/// Longest username, in characters.
pub use vidpulse_domain::names::HANDLE_MAX_CHARS as USERNAME_MAX_CHARS;
pub use vidpulse_domain::plan::{
    DEFAULT_BACKFILL_VIDEOS as DEFAULT_INITIAL_VIDEOS, MAX_BACKFILL_VIDEOS as MAX_INITIAL_VIDEOS,
};

/// A platform named by its id in any case, surrounding whitespace ignored
/// (`tiktok`, ` TikTok `).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlatformId(pub Platform);

impl FromStr for PlatformId {
    type Err = ();
    fn from_str(raw: &str) -> Result<Self, ()> {
        Platform::ALL
            .into_iter()
            .find(|p| p.id().eq_ignore_ascii_case(raw.trim()))
            .map(PlatformId)
            .ok_or(())
    }
}

impl<'de> Deserialize<'de> for PlatformId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        raw.parse()
            .map_err(|()| de::Error::custom("not a platform id"))
    }
}

/// The answer to a faulty [`PlatformId`] in `field`, which held `sent`.
pub(crate) fn bad_platform(field: &str, sent: Option<&Value>) -> ApiError {
    let message = match sent {
        None | Some(Value::Null) => {
            format!("`{field}` is required: tiktok, instagram or youtube")
        }
        Some(Value::String(raw)) => {
            format!("`{field}` must be tiktok, instagram or youtube; got `{raw}`")
        }
        Some(_) => "`platform` must be a string: tiktok, instagram or youtube".to_owned(),
    };
    ApiError::validation(field, message)
}

/// The answer to a faulty `initial_videos_count` of a creator track (and of
/// the dashboard's add, which words it alike).
pub(crate) fn bad_initial_count(sent: Option<&Value>) -> ApiError {
    let sent = sent.unwrap_or(&Value::Null);
    ApiError::validation(
        "initial_videos_count",
        format!(
            "`initial_videos_count` must be a whole number from 0 to {MAX_INITIAL_VIDEOS}; got {sent}"
        ),
    )
}

/// The answer to a username (a [`Handle`]) in `field` that
/// [`Handle::parse`] refused for `fault`.
pub(crate) fn refused_username(field: &str, fault: NameError) -> ApiError {
    let message = match fault {
        NameError::Empty => format!("`{field}` is required"),
        NameError::TooLong(_) => {
            format!("`{field}` must be at most {USERNAME_MAX_CHARS} characters")
        }
        NameError::BadCharacter(_) | NameError::NotAnEmail => format!(
            "`{field}` may hold only letters, digits, `.`, `_` and `-` (after an optional `@`)"
        ),
    };
    ApiError::validation(field, message)
}

/// The answer to a faulty username (a [`Handle`]) in `field`, which held `sent`.
pub(crate) fn bad_username(field: &str, sent: Option<&Value>) -> ApiError {
    match sent {
        None | Some(Value::Null) => ApiError::validation(field, format!("`{field}` is required")),
        Some(Value::String(raw)) => {
            // serde refused it, so the rules do: the fallback is not reached.
            let fault = Handle::parse(raw).err();
            refused_username(field, fault.unwrap_or(NameError::BadCharacter('@')))
        }
        Some(_) => ApiError::validation(field, format!("`{field}` must be a string")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_lose_their_at_and_keep_their_case() {
        let name = |raw: &str| Handle::parse(raw).map(|h| h.as_str().to_owned());
        assert_eq!(name(" @Mira.Cooks_1 ").unwrap(), "Mira.Cooks_1");
        assert_eq!(name("ñandú-9").unwrap(), "ñandú-9");
        for bad in ["", "@", "a b", "a/b", "@@a", "<script>"] {
            assert!(name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refused_usernames_say_why() {
        let message = |raw: &str| {
            let fault = Handle::parse(raw).unwrap_err();
            refused_username("username", fault).message.clone()
        };
        assert_eq!(message(" @ "), "`username` is required");
        assert_eq!(
            message(&"a".repeat(101)),
            "`username` must be at most 100 characters"
        );
        assert_eq!(
            message("a/b"),
            "`username` may hold only letters, digits, `.`, `_` and `-` (after an optional `@`)"
        );
    }

    #[test]
    fn platform_ids_are_read_in_any_case() {
        assert_eq!(" TikTok ".parse(), Ok(PlatformId(Platform::TikTok)));
        assert_eq!("youtube".parse(), Ok(PlatformId(Platform::YouTube)));
        assert_eq!("vimeo".parse::<PlatformId>(), Err(()));
    }
}
