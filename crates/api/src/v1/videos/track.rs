//! Tracking videos by URL (docs/api.md: POST /v1/videos/track):
//! [`track_urls`] with the API key's rate limit.

use axum::Json;
use axum::extract::State;

use crate::app::videos::{TrackData, TrackRequest, track_urls};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::input::List;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Start tracking up to 50 video URLs for the caller's organization.
///
/// 30 credits per newly tracked video; videos already tracked and URLs that
/// fail cost nothing. The first statistics are read within seconds.
#[utoipa::path(
    post, path = "/v1/videos/track", tag = "videos",
    request_body = TrackRequest,
    responses(
        (status = 200, description = "Per-URL results", body = Envelope<TrackData>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 403, description = "SUBSCRIPTION_LIMIT: the tracked-video quota would be exceeded"),
        (status = 413, description = "PAYLOAD_TOO_LARGE"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn track(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    body: JsonBody<TrackRequest>,
) -> Result<Json<Envelope<TrackData>>, ApiError> {
    let List(urls) = body.parse()?.urls;
    app.limits.check_track(auth.key_id, urls.len()).await?;
    let tracked = track_urls(&app, &ctx, auth.org.id, Some(auth.key_id), urls).await?;
    let meta = Meta::of(&ctx)
        .with_credits(tracked.credits)
        .with_summary(tracked.summary);
    Ok(ok(tracked.data, meta))
}
