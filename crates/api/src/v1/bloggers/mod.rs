//! Creators (spec: public-api-v1.md, POST /v1/bloggers/track,
//! GET /v1/bloggers/jobs/{job_id}, GET /v1/bloggers/by-username/{username}).
//!
//! Tracking a creator is a job: the request is checked and queued in one
//! transaction and answered 202 at once; the worker resolves the channel,
//! creates (or reactivates) the tracked account and backfills its most
//! recent videos; the client polls the job. Here: the routes, and the
//! platform and username rules the dashboard's adds share.

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::Platform;

use crate::error::ApiError;
use crate::state::AppState;

mod job;
mod lookup;
mod track;

pub use job::{JobError, JobResult, JobView};
pub use lookup::{BloggerData, BloggerView};
pub use track::{CreatorTrackRequest, JobAccepted, Polling};
pub(crate) use track::{parse_track, queued_or_refused};

/// Videos backfilled when `initial_videos_count` is not given.
pub const DEFAULT_INITIAL_VIDEOS: i64 = 10;
/// Most videos a backfill may ask for.
pub const MAX_INITIAL_VIDEOS: i64 = 50;
/// Longest username, in characters.
pub const USERNAME_MAX_CHARS: usize = 100;

/// The creator routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(track::track))
        .routes(routes!(job::job))
        .routes(routes!(lookup::by_username))
}

/// Parses a platform id (any case).
pub(crate) fn platform_of(field: &str, value: Option<&str>) -> Result<Platform, ApiError> {
    let Some(raw) = value else {
        return Err(ApiError::validation(
            field,
            format!("`{field}` is required: tiktok, instagram or youtube"),
        ));
    };
    Platform::ALL
        .into_iter()
        .find(|p| p.id().eq_ignore_ascii_case(raw.trim()))
        .ok_or_else(|| {
            ApiError::validation(
                field,
                format!("`{field}` must be tiktok, instagram or youtube; got `{raw}`"),
            )
        })
}

/// A username without its leading `@`, checked: letters, digits, `.`, `_`, `-`.
pub fn parse_username(field: &str, raw: &str) -> Result<String, ApiError> {
    let name = raw.trim();
    let name = name.strip_prefix('@').unwrap_or(name);
    if name.is_empty() {
        return Err(ApiError::validation(
            field,
            format!("`{field}` is required"),
        ));
    }
    if name.chars().count() > USERNAME_MAX_CHARS {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must be at most {USERNAME_MAX_CHARS} characters"),
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Err(ApiError::validation(
            field,
            format!(
                "`{field}` may hold only letters, digits, `.`, `_` and `-` (after an optional `@`)"
            ),
        ));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_lose_their_at_and_keep_their_case() {
        assert_eq!(
            parse_username("u", " @Mira.Cooks_1 ").unwrap(),
            "Mira.Cooks_1"
        );
        assert_eq!(parse_username("u", "ñandú-9").unwrap(), "ñandú-9");
        for bad in ["", "@", "a b", "a/b", "@@a", "<script>"] {
            assert!(parse_username("u", bad).is_err(), "{bad}");
        }
        assert!(parse_username("u", &"a".repeat(101)).is_err());
    }
}
