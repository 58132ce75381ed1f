//! Tracking videos by URL (docs/api.md: POST /v1/videos/track and POST
//! /dashboard/videos/track): each URL parsed (short links resolved), the
//! videos tracked in one transaction with their credits, each URL's outcome.

use axum::http::StatusCode;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::{ApiKeyId, OrgId, ParsedUrl, Platform, VideoRef, parse_video_url};
use vidpulse_store::{TrackBatch, TrackOutcome};

use crate::envelope::TrackSummary;
use crate::error::{ApiError, ErrorCode};
use crate::input::{Fault, List, Refusals};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Most URLs in one track request.
pub const MAX_URLS: usize = 50;
/// Short links resolved at once within one request.
const RESOLVE_CONCURRENCY: usize = 8;

/// Body of a track request.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TrackRequest {
    /// 1 to 50 video URLs (TikTok, Instagram or YouTube, short links included).
    #[schema(value_type = Vec<String>)]
    pub(crate) urls: List<String, 1, MAX_URLS>,
}

impl Refusals for TrackRequest {
    /// docs/api.md: `urls` must be an array of 1 to 50 strings.
    fn refuse(fault: &Fault<'_>) -> ApiError {
        if fault.field() != "urls" {
            return ApiError::validation("body", "The body must be a JSON object with `urls`");
        }
        let message = match fault.sent_in("urls") {
            None => "`urls` is required".to_owned(),
            Some(Value::Array(urls)) if urls.is_empty() => {
                "`urls` must contain at least one URL".to_owned()
            }
            Some(Value::Array(urls)) if urls.len() > MAX_URLS => format!(
                "`urls` may contain at most {MAX_URLS} URLs; got {}",
                urls.len()
            ),
            Some(_) => "`urls` must be an array of URL strings".to_owned(),
        };
        ApiError::validation("urls", message)
    }
}

/// One URL's outcome.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackResult {
    /// Position in the request.
    pub index: usize,
    /// The processed URL (canonical; short links resolved), or the input on error.
    pub url: String,
    /// Detected platform id.
    pub platform: Option<&'static str>,
    /// The organization's id of the video.
    pub video_id: Option<Uuid>,
    /// The platform's id of the video.
    pub external_video_id: Option<String>,
    /// `tracked`, `already_tracked` or `error`.
    pub status: &'static str,
    /// Why, when `status` is `error`.
    pub error: Option<String>,
}

/// `data` of a track answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackData {
    /// One result per URL, in request order.
    pub results: Vec<TrackResult>,
}

/// What a track did: each URL's outcome, and the credits and counts its
/// answer's `meta` carries.
#[derive(Debug)]
pub struct Tracked {
    /// Each URL's outcome.
    pub data: TrackData,
    /// The credits the store charged, in the transaction that tracked.
    pub credits: i64,
    /// The outcomes counted.
    pub summary: TrackSummary,
}

/// Tracks `urls` for organization `org` (with the API key `key`, when one
/// made the request): each URL's outcome in order, the credits charged and
/// the summary.
pub(crate) async fn track_urls(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    key: Option<ApiKeyId>,
    urls: Vec<String>,
) -> Result<Tracked, ApiError> {
    // Parse every URL, then resolve short links a few at a time.
    let parsed: Vec<Result<VideoRef, (Option<Platform>, String)>> =
        futures::stream::iter(urls.clone())
            .map(|url| {
                let app = app.clone();
                async move { resolve(&app, &url).await }
            })
            .buffered(RESOLVE_CONCURRENCY)
            .collect()
            .await;
    let videos: Vec<VideoRef> = parsed
        .iter()
        .filter_map(|p| p.as_ref().ok().cloned())
        .collect();
    let tracked = if videos.is_empty() {
        Vec::new()
    } else {
        let batch = TrackBatch {
            organization_id: org,
            api_key_id: key,
            request_id: ctx.id.clone(),
            now: app.clock.now(),
            window: app.config.tracking_window,
            credits_per_video: app.config.credits_per_video,
            videos,
            campaign: None,
            budget: None,
            account: None,
        };
        match app.store.track_videos(batch).await? {
            TrackOutcome::Tracked(t) => t,
            TrackOutcome::QuotaExceeded {
                plan,
                quota,
                in_use,
                requested,
            } => {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    ErrorCode::SubscriptionLimit,
                    format!(
                        "Tracked-video quota reached: the {plan} plan allows {quota} tracked videos; \
                         {in_use} are tracked now and this request would add {requested}"
                    ),
                )
                .with_details(json!({
                    "plan": plan.as_str(), "quota": quota, "current_usage": in_use, "requested": requested
                })));
            }
        }
    };

    // The store answered one entry per video sent, in order.
    let charged: i64 = tracked.iter().map(|t| t.credits).sum();
    let mut tracked = tracked.into_iter();
    let mut summary = TrackSummary {
        total: urls.len(),
        tracked: 0,
        already_tracked: 0,
        errors: 0,
    };
    let mut results = Vec::with_capacity(urls.len());
    for (index, (parsed, input)) in parsed.into_iter().zip(urls).enumerate() {
        let outcome = parsed.and_then(|video| match tracked.next() {
            Some(t) => Ok((video, t)),
            None => Err((Some(video.platform), "internal error".to_owned())),
        });
        results.push(match outcome {
            Ok((video, t)) => {
                let status = if t.newly_tracked {
                    summary.tracked += 1;
                    "tracked"
                } else {
                    summary.already_tracked += 1;
                    "already_tracked"
                };
                TrackResult {
                    index,
                    url: video.canonical_url,
                    platform: Some(video.platform.id()),
                    video_id: Some(t.video_id.0),
                    external_video_id: Some(video.external_id),
                    status,
                    error: None,
                }
            }
            Err((platform, error)) => {
                summary.errors += 1;
                TrackResult {
                    index,
                    url: input,
                    platform: platform.map(Platform::id),
                    video_id: None,
                    external_video_id: None,
                    status: "error",
                    error: Some(error),
                }
            }
        });
    }
    if summary.tracked > 0 {
        app.refresh_wake.notify_one();
    }
    Ok(Tracked {
        data: TrackData { results },
        credits: charged,
        summary,
    })
}

/// Parses one URL and resolves it when it is a short link.
async fn resolve(app: &AppState, url: &str) -> Result<VideoRef, (Option<Platform>, String)> {
    match parse_video_url(url) {
        Ok(ParsedUrl::Video(video)) => Ok(video),
        Ok(ParsedUrl::ShortLink(link)) => app.resolver.resolve(&link).await.map_err(|e| {
            tracing::warn!(error = %e, url, "short link not resolved");
            (Some(link.platform), e.client_message())
        }),
        Err(e) => Err((None, e.to_string())),
    }
}
