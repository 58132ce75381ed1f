//! Reading a tracked creator now (docs/api.md, "Creators": POST
//! /v1/bloggers/by-username/{username}/refresh): its daily discovery made
//! early, under the claim the daily one takes: the profile read again and
//! the videos published since the last visit tracked (up to its daily
//! count, charged like tracked videos). An organization asks once per
//! cooldown; a platform failure writes and charges nothing.

use std::time::Duration as StdDuration;

use axum::http::StatusCode;
use chrono::Duration;
use serde::Serialize;
use utoipa::ToSchema;
use vidpulse_domain::plan::DEFAULT_DAILY_VIDEOS;
use vidpulse_domain::{ApiKeyId, OrgId, Platform, VideoRef};
use vidpulse_platforms::{Channel, SourceError, discover_channel};
use vidpulse_store::{
    CreatorProfile, CreatorVideos, DiscoveryAsk, DueDiscovery, ManualDiscovery, TrackedAccount,
};

use super::tracked::{BloggerView, account_now, blogger_view, not_tracked};
use crate::app::rfc3339;
use crate::app::videos::{seconds_until, too_soon};
use crate::error::{ApiError, ErrorCode};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Longest wait for the platform (the profile and the listing together).
const READ_TIMEOUT: StdDuration = StdDuration::from_secs(20);
/// How long a refresh holds its claim on the account (past the timeout, so
/// the claim never runs out under a read still going).
const READ_LEASE: Duration = Duration::seconds(60);
/// Longest wait for a discovery under way to end.
const IN_FLIGHT_WAIT: StdDuration = StdDuration::from_secs(15);
/// How often that wait looks again.
const IN_FLIGHT_POLL: StdDuration = StdDuration::from_millis(200);

/// `data` of a creator refresh.
#[derive(Debug, Serialize, ToSchema)]
pub struct BloggerRefresh {
    /// The creator as the lookup shows it, after the read.
    pub blogger: BloggerView,
    /// Videos this read tracked (charged like tracked videos).
    pub videos_tracked: usize,
    /// New videos left untracked because the tracked-video quota is full.
    pub videos_skipped: usize,
    /// From when the organization may ask again.
    pub next_refresh_allowed_at: String,
}

/// Reads the organization's tracked `account` (found by the caller) now,
/// for the API key `key`; the answer, and the credits it cost.
pub(crate) async fn refresh_blogger(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    key: Option<ApiKeyId>,
    account: &TrackedAccount,
) -> Result<(BloggerRefresh, i64), ApiError> {
    let cooldown = app.config.refresh_cooldown;
    let waited_since = tokio::time::Instant::now();
    let due = loop {
        let now = app.clock.now();
        match app
            .store
            .ask_discovery(org, account.tracked_account_id, now, cooldown, READ_LEASE)
            .await?
        {
            DiscoveryAsk::NotFound => return Err(not_tracked(&account.username)),
            DiscoveryAsk::Paused => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    ErrorCode::CreatorPaused,
                    format!(
                        "@{} is paused: resume it first (PATCH with is_active: true)",
                        account.username
                    ),
                ));
            }
            DiscoveryAsk::TooSoon { retry_at } => {
                return Err(too_soon(
                    format!(
                        "This creator was refreshed for your organization at {}; ask again from {}",
                        rfc3339(retry_at - cooldown),
                        rfc3339(retry_at)
                    ),
                    seconds_until(now, retry_at),
                ));
            }
            DiscoveryAsk::InFlight if waited_since.elapsed() < IN_FLIGHT_WAIT => {
                tokio::time::sleep(IN_FLIGHT_POLL).await;
            }
            DiscoveryAsk::InFlight => {
                return Err(too_soon(
                    "A read of this creator is under way; ask again in a few seconds".into(),
                    5,
                ));
            }
            DiscoveryAsk::Claimed(due) => break due,
        }
    };
    let outcome = read_now(app, ctx, key, &due).await?;
    let now = app.clock.now();
    let account = account_now(app, org, account.tracked_account_id, &account.username).await?;
    let refreshed = BloggerRefresh {
        blogger: blogger_view(app, org, account).await?,
        videos_tracked: outcome.videos_tracked,
        videos_skipped: outcome.videos_skipped,
        next_refresh_allowed_at: rfc3339(now + cooldown),
    };
    let videos = i64::try_from(outcome.videos_tracked).unwrap_or(i64::MAX);
    Ok((
        refreshed,
        videos.saturating_mul(app.config.credits_per_video),
    ))
}

/// Reads the claimed account from its platform and saves what it found, or
/// frees the claim when the platform failed.
async fn read_now(
    app: &AppState,
    ctx: &RequestContext,
    key: Option<ApiKeyId>,
    due: &DueDiscovery,
) -> Result<vidpulse_store::DiscoveryOutcome, ApiError> {
    let platform = due.profile.platform;
    let username = &due.profile.username;
    let daily = due
        .daily_videos_count
        .unwrap_or(DEFAULT_DAILY_VIDEOS)
        .max(0);
    let read = tokio::time::timeout(
        READ_TIMEOUT,
        discover_channel(
            app.source.as_ref(),
            platform,
            username,
            due.discovered_since,
            daily,
        ),
    )
    .await
    .unwrap_or_else(|_| {
        Err(SourceError::Transient(format!(
            "no answer within {} seconds",
            READ_TIMEOUT.as_secs()
        )))
    });
    let (channel, videos) = match read {
        Ok(found) => found,
        Err(e) => {
            app.store
                .release_discovery(due.tracked_account_id, due.lease_token)
                .await?;
            return Err(read_failed(platform, username, e));
        }
    };
    let found = ManualDiscovery {
        tracked_account_id: due.tracked_account_id,
        lease_token: due.lease_token,
        new_videos: CreatorVideos {
            videos: videos
                .into_iter()
                .map(|v| VideoRef {
                    platform: channel.platform,
                    external_id: v.external_id,
                    canonical_url: v.canonical_url,
                })
                .collect(),
            window: app.config.tracking_window,
            credits_per_video: app.config.credits_per_video,
        },
        profile: profile_of(channel),
        api_key_id: key,
        request_id: ctx.id.clone(),
        now: app.clock.now(),
    };
    match app.store.save_manual_discovery(&found).await? {
        Some(outcome) => {
            if outcome.videos_tracked > 0 {
                app.refresh_wake.notify_one();
            }
            Ok(outcome)
        }
        // The claim ran out under a read longer than the lease: another
        // discovery has the account now.
        None => Err(too_soon(
            "A read of this creator is under way; ask again in a few seconds".into(),
            5,
        )),
    }
}

/// The catalog profile of a channel as the platform answered it.
pub(crate) fn profile_of(c: Channel) -> CreatorProfile {
    CreatorProfile {
        platform: c.platform,
        channel_id: c.channel_id,
        username: c.username,
        display_name: c.display_name,
        avatar_url: c.avatar_url,
        follower_count: c.follower_count,
    }
}

/// The answer to a failed read of `username`'s account on `platform`: 404
/// `PLATFORM_NOT_FOUND` naming `username` when the platform has no such
/// account, else 502 `EXTERNAL_API_ERROR` (the platform's own words go to the
/// log, not to the client).
pub(crate) fn read_failed(platform: Platform, username: &str, e: SourceError) -> ApiError {
    let name = platform.display_name();
    match e {
        SourceError::NotFound(_) => ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::PlatformNotFound,
            format!("No {name} account named @{username} was found"),
        )
        .with_field("username"),
        e => {
            tracing::warn!(%platform, %username, error = %e, "creator profile read failed");
            ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorCode::ExternalApiError,
                format!(
                    "The {name} profile could not be read: {}",
                    e.client_message(platform)
                ),
            )
        }
    }
}
