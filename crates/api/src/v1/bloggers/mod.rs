//! Creators (docs/api.md: POST /v1/bloggers/track,
//! GET /v1/bloggers/jobs/{job_id}, GET /v1/bloggers,
//! GET /v1/bloggers/by-username/{username} and its `/history`).
//!
//! Tracking a creator is a job: the request is checked and queued in one
//! transaction and answered 202 at once; the worker resolves the channel,
//! creates (or reactivates) the tracked account and backfills its most
//! recent videos; the client polls the job. Here: the routes, and the
//! platform and username rules the dashboard's adds share.

use std::str::FromStr;

use serde::{Deserialize, Deserializer, de};
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::Platform;
use vidpulse_domain::names::{Handle, NameError};

use crate::error::ApiError;
use crate::state::AppState;

mod history;
mod job;
mod list;
mod lookup;
mod track;

pub(crate) use history::follower_days;
pub use history::{FollowerDayView, FollowerHistory, HistoryParams, WindowParams};
pub(crate) use job::job_view;
pub use job::{JobError, JobResult, JobView};
pub use list::{DEFAULT_LIMIT, ListBloggersParams, MAX_LIMIT};
pub use lookup::{BloggerData, BloggerView, LookupParams};
pub use track::{CreatorTrackRequest, JobAccepted, Polling};
pub(crate) use track::{bad_initial_count, queued_or_refused};

/// Longest username, in characters.
pub use vidpulse_domain::names::HANDLE_MAX_CHARS as USERNAME_MAX_CHARS;
pub use vidpulse_domain::plan::{
    DEFAULT_BACKFILL_VIDEOS as DEFAULT_INITIAL_VIDEOS, MAX_BACKFILL_VIDEOS as MAX_INITIAL_VIDEOS,
};

/// The creator routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(track::track))
        .routes(routes!(job::job))
        .routes(routes!(list::list))
        .routes(routes!(lookup::by_username))
        .routes(routes!(history::history))
}

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

/// A username without its leading `@`: letters, digits, `.`, `_` and `-`,
/// at most [`USERNAME_MAX_CHARS`]; its case is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Username(pub String);

/// Why a username is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsernameFault {
    /// Nothing but an `@` and whitespace.
    Empty,
    /// Longer than [`USERNAME_MAX_CHARS`].
    TooLong,
    /// A character other than letters, digits, `.`, `_` and `-`.
    Characters,
}

impl Username {
    /// Trims `raw` and drops one leading `@`, then checks what is left
    /// (the domain's [`Handle`] rules).
    pub fn parse(raw: &str) -> Result<Self, UsernameFault> {
        match Handle::parse(raw) {
            Ok(handle) => Ok(Self(handle.as_str().to_owned())),
            Err(NameError::Empty) => Err(UsernameFault::Empty),
            Err(NameError::TooLong(_)) => Err(UsernameFault::TooLong),
            Err(NameError::BadCharacter(_) | NameError::NotAnEmail) => {
                Err(UsernameFault::Characters)
            }
        }
    }
}

impl UsernameFault {
    /// The answer naming `field`.
    pub fn answer(self, field: &str) -> ApiError {
        let message = match self {
            UsernameFault::Empty => format!("`{field}` is required"),
            UsernameFault::TooLong => {
                format!("`{field}` must be at most {USERNAME_MAX_CHARS} characters")
            }
            UsernameFault::Characters => format!(
                "`{field}` may hold only letters, digits, `.`, `_` and `-` (after an optional `@`)"
            ),
        };
        ApiError::validation(field, message)
    }
}

impl<'de> Deserialize<'de> for Username {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Username::parse(&raw).map_err(|_| de::Error::custom("not a username"))
    }
}

/// The answer to a faulty [`Username`] in `field`, which held `sent`.
pub(crate) fn bad_username(field: &str, sent: Option<&Value>) -> ApiError {
    match sent {
        None | Some(Value::Null) => ApiError::validation(field, format!("`{field}` is required")),
        Some(Value::String(raw)) => match Username::parse(raw) {
            Err(fault) => fault.answer(field),
            // serde refused it, so the rules do: not reached.
            Ok(_) => UsernameFault::Characters.answer(field),
        },
        Some(_) => ApiError::validation(field, format!("`{field}` must be a string")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_lose_their_at_and_keep_their_case() {
        let name = |raw: &str| Username::parse(raw).map(|Username(u)| u);
        assert_eq!(name(" @Mira.Cooks_1 ").unwrap(), "Mira.Cooks_1");
        assert_eq!(name("ñandú-9").unwrap(), "ñandú-9");
        for bad in ["", "@", "a b", "a/b", "@@a", "<script>"] {
            assert!(name(bad).is_err(), "{bad}");
        }
        assert_eq!(name(&"a".repeat(101)), Err(UsernameFault::TooLong));
    }

    #[test]
    fn platform_ids_are_read_in_any_case() {
        assert_eq!(" TikTok ".parse(), Ok(PlatformId(Platform::TikTok)));
        assert_eq!("youtube".parse(), Ok(PlatformId(Platform::YouTube)));
        assert_eq!("vimeo".parse::<PlatformId>(), Err(()));
    }
}
