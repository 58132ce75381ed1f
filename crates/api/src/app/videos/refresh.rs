//! Reading a video now (docs/api.md: POST /v1/videos/by-id/{video_id}/refresh,
//! its by-external-id twin and POST /dashboard/videos/{id}/refresh). One
//! upstream read serves every organization
//! that asks within the cooldown; 1 credit only for a request that made a
//! fresh read.

use std::collections::HashMap;
use std::time::Duration as StdDuration;

use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::{ApiKeyId, OrgId};
use vidpulse_platforms::{ReadOutcome, SourceError};
use vidpulse_store::{Charge, ManualRead, RefreshAsk, RefreshOutcome, RefreshWrite, VideoLookup};

use crate::app::rfc3339;
use crate::app::videos::video_not_found as not_found;
use crate::error::{ApiError, ErrorCode};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Longest wait for the platform's answer.
const READ_TIMEOUT: StdDuration = StdDuration::from_secs(10);
/// How long a manual read holds its claim on the video (past the timeout,
/// so the claim never runs out under a read still going).
const READ_LEASE: Duration = Duration::seconds(30);
/// Longest wait for another read of the video under way to land.
const IN_FLIGHT_WAIT: StdDuration = StdDuration::from_secs(15);
/// How often that wait looks again.
const IN_FLIGHT_POLL: StdDuration = StdDuration::from_millis(200);

/// `data` of a manual refresh: the video's reading that answers it.
#[derive(Debug, Serialize, ToSchema)]
pub struct RefreshResult {
    /// The organization's id of the video.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Platform display name.
    pub platform: &'static str,
    /// `true` when this request read the platform (and was charged 1
    /// credit); `false` when a read of the cooldown answered it.
    pub fresh: bool,
    /// When the reading was made.
    pub read_at: Option<String>,
    /// Views read.
    pub views: Option<i64>,
    /// Likes read.
    pub likes: Option<i64>,
    /// Comments read.
    pub comments: Option<i64>,
    /// Reposts read.
    pub reposts: Option<i64>,
    /// Saves read.
    pub saves: Option<i64>,
    /// From when this organization may ask again.
    pub next_refresh_allowed_at: String,
}

impl RefreshResult {
    /// The credits the refresh cost: 1 when it read the platform.
    pub fn credits(&self) -> i64 {
        i64::from(self.fresh)
    }
}

fn unavailable() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        ErrorCode::VideoUnavailable,
        "The platform reports this video removed or private; it is no longer read",
    )
}

/// Reads the organization's video `video` names now, with the cooldown's
/// rules, for the API key `key` (none from the dashboard): the answer of
/// both interfaces (the caller checked who may), which costs 1 credit when
/// it is `fresh`.
pub(crate) async fn refresh_video(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    key: Option<ApiKeyId>,
    video: VideoLookup,
) -> Result<RefreshResult, ApiError> {
    let cooldown = app.config.refresh_cooldown;
    let waited_since = tokio::time::Instant::now();
    let fresh = loop {
        let now = app.clock.now();
        match app
            .store
            .ask_refresh(org, &video, now, cooldown, READ_LEASE)
            .await?
        {
            RefreshAsk::NotFound => return Err(not_found()),
            RefreshAsk::Ended => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    ErrorCode::TrackingEnded,
                    "This video's tracking window has ended; it is no longer read",
                ));
            }
            RefreshAsk::Gone => return Err(unavailable()),
            RefreshAsk::TooSoon { retry_at } => {
                return Err(too_soon(
                    format!(
                        "This video was refreshed for your organization at {}; ask again from {}",
                        rfc3339(retry_at - cooldown),
                        rfc3339(retry_at)
                    ),
                    seconds_until(now, retry_at),
                ));
            }
            RefreshAsk::InFlight if waited_since.elapsed() < IN_FLIGHT_WAIT => {
                tokio::time::sleep(IN_FLIGHT_POLL).await;
            }
            RefreshAsk::InFlight => {
                return Err(too_soon(
                    "A read of this video is under way; ask again in a few seconds".into(),
                    5,
                ));
            }
            RefreshAsk::Served { .. } => break false,
            RefreshAsk::Claimed(read) => {
                read_now(app, ctx, org, key, &read).await?;
                break true;
            }
        }
    };
    let now = app.clock.now();
    let record = app
        .store
        .video(org, &video, now)
        .await?
        .ok_or_else(not_found)?;
    Ok(RefreshResult {
        video_id: record.video_id.0,
        external_video_id: record.external_id,
        platform: record.platform.display_name(),
        fresh,
        read_at: record.stats_updated_at.map(rfc3339),
        views: record.latest.views,
        likes: record.latest.likes,
        comments: record.latest.comments,
        reposts: record.latest.reposts,
        saves: record.latest.saves,
        next_refresh_allowed_at: rfc3339(now + cooldown),
    })
}

/// Reads the claimed video from its platform and saves what it answered,
/// with the request's credit when it answered a reading.
async fn read_now(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    key: Option<ApiKeyId>,
    read: &ManualRead,
) -> Result<(), ApiError> {
    let due = &read.due;
    let ids = [due.external_id.clone()];
    let mut anchors = HashMap::new();
    if app.source.wants_anchors()
        && let Some(anchor) = app.store.video_anchors(&[due.id]).await?.remove(&due.id)
    {
        anchors.insert(due.external_id.clone(), anchor);
    }
    let answer = match tokio::time::timeout(
        READ_TIMEOUT,
        app.source.read_anchored(due.platform, &ids, &anchors),
    )
    .await
    {
        Ok(answer) => answer,
        Err(_) => Err(SourceError::Transient(format!(
            "read timed out after {READ_TIMEOUT:?}"
        ))),
    };
    let outcome = match answer {
        Ok(mut outcomes) => outcomes.pop().map_or_else(
            || ReadOutcome::Failed(SourceError::Transient("missing from the answer".into())),
            |(_, outcome)| outcome,
        ),
        Err(e) => ReadOutcome::Failed(e),
    };
    metrics::counter!(
        "vidpulse_manual_refreshes_total",
        "platform" => due.platform.id(),
        "outcome" => match &outcome {
            ReadOutcome::Found(_) => "read",
            ReadOutcome::Gone { .. } => "gone",
            ReadOutcome::Failed(_) => "failed",
        }
    )
    .increment(1);
    let told = match &outcome {
        ReadOutcome::Failed(e) => e.client_message(due.platform),
        _ => String::new(),
    };
    let read_at = app.clock.now();
    let write = RefreshWrite {
        video_id: due.id,
        lease_token: due.lease_token,
        read_at,
        outcome: outcome.into(),
        next_refresh_at: read.next_refresh_at,
    };
    let charge = Charge {
        organization_id: org,
        api_key_id: key,
        request_id: ctx.id.clone(),
        amount: 1,
        reason: "video_refresh",
        subject: Some(format!("{}:{}", due.platform.id(), due.external_id)),
        at: read_at,
    };
    app.store.save_manual_refresh(read, &write, &charge).await?;
    match write.outcome {
        RefreshOutcome::Observed { .. } => Ok(()),
        RefreshOutcome::Gone { .. } => Err(unavailable()),
        RefreshOutcome::Failed { error } => {
            // The platform's own words go to the log, not to the client.
            tracing::warn!(platform = %due.platform, error, "manual refresh failed upstream");
            Err(ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorCode::ExternalApiError,
                format!(
                    "The {} read failed: {told}; nothing was charged",
                    due.platform.display_name()
                ),
            ))
        }
    }
}

/// 429 `REFRESH_TOO_SOON` with `Retry-After` (a video's refresh, and a
/// creator's).
pub(crate) fn too_soon(message: String, retry_after: u64) -> ApiError {
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RefreshTooSoon,
        message,
    )
    .with_retry_after(retry_after)
}

/// Whole seconds from `now` to `at`, rounded up, at least 1.
pub(crate) fn seconds_until(now: DateTime<Utc>, at: DateTime<Utc>) -> u64 {
    let ms = (at - now).num_milliseconds().max(0) as u64;
    ms.div_ceil(1000).max(1)
}
