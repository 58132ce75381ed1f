//! The two video reads (docs/api.md: GET /v1/videos/by-id and
//! /v1/videos/by-external-id): the record with its whole history, from the
//! record cache when this node kept it and it is unchanged.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::{OrgId, VideoId};
use vidpulse_store::{VideoLookup, VideoRecord};

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta};
use crate::error::{ApiError, ErrorCode, ErrorForm};
use crate::extract::PathParam;
use crate::middleware::RequestContext;
use crate::record_cache::gzip::{Part, accepts_gzip};
use crate::record_cache::{Shown, answer};
use crate::state::AppState;
use crate::v1::stats_map::StatsMap;
use crate::v1::videos::{VideoFields, VideoView};

/// `data` of a single video read.
#[derive(Debug, Serialize, ToSchema)]
pub struct OneVideo {
    /// The video.
    pub data: VideoView,
}

fn video_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        "Video not found",
    )
    .with_form(ErrorForm::Flat { with_code: false })
}

/// How a single video answer opens, before its record.
const SINGLE_OPENING: &[u8] = br#"{"success":true,"data":{"data":"#;

/// Answers a single video read (by id or by external id): the record
/// with its whole history. When this node kept the record and the database
/// finds its stamp unchanged, the kept record goes out between this
/// request's parts, gzip-compressed when the client accepts gzip;
/// otherwise the record is read whole, shown and kept. `None` when the
/// organization has no such video (each interface words its own 404).
pub(crate) async fn read_video(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    headers: &HeaderMap,
    lookup: VideoLookup,
) -> Result<Option<Response>, ApiError> {
    let now = app.clock.now();
    let gzip = accepts_gzip(headers);
    let mut shown = None;
    if let Some(kept) = app.records.get(org, &lookup) {
        let Some(stamp) = app.store.record_stamp(org, &lookup).await? else {
            return Ok(None);
        };
        if kept.is_current(&stamp, now) {
            shown = Some(Shown::Kept(kept));
        }
    }
    let shown = match shown {
        Some(shown) => shown,
        None => {
            let Some(record) = app.store.video(org, &lookup, now).await? else {
                return Ok(None);
            };
            let (stamp, changes_at) = (record.stamp, record.changes_at());
            let body = record_json(record)?;
            app.records
                .keep_and_show(org, lookup, stamp, changes_at, body, gzip)
        }
    };
    let mut closing = br#"},"meta":"#.to_vec();
    serde_json::to_writer(&mut closing, &Meta::of(ctx)).map_err(|e| ApiError::internal(&e))?;
    closing.push(b'}');
    answer(
        &[
            Part::Plain(SINGLE_OPENING),
            shown.part(),
            Part::Plain(&closing),
        ],
        gzip,
    )
    .map(Some)
}

/// A record as the API shows it, as JSON: the `stats` object first, then
/// the other fields (the bytes `VideoView` serializes to without gains).
pub(crate) fn record_json(mut record: VideoRecord) -> Result<Vec<u8>, ApiError> {
    let history = std::mem::take(&mut record.history);
    let mut body = Vec::with_capacity(180 * history.len() + 1024);
    body.extend_from_slice(br#"{"stats":"#);
    serde_json::to_writer(&mut body, &StatsMap::new(&history))
        .map_err(|e| ApiError::internal(&e))?;
    body.push(b',');
    // The other fields as an object without its `{`: they go on in the record.
    let fields_at = body.len();
    serde_json::to_writer(&mut body, &VideoFields::from(record))
        .map_err(|e| ApiError::internal(&e))?;
    body.remove(fields_at);
    Ok(body)
}

/// Read one tracked video, with its statistics history, by its `video_id`.
#[utoipa::path(
    get, path = "/v1/videos/by-id/{video_id}", tag = "videos",
    params(("video_id" = String, Path, description = "The video's UUID")),
    responses(
        (status = 200, description = "The video", body = Envelope<OneVideo>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "Flat `Video not found`"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn by_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
) -> Result<Response, ApiError> {
    let id = path
        .ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .ok_or_else(video_not_found)?;
    read_video(
        &app,
        &ctx,
        auth.org.id,
        &headers,
        VideoLookup::Id(VideoId(id)),
    )
    .await?
    .ok_or_else(video_not_found)
}

/// Read one tracked video by the platform's id (the most recently tracked
/// one when two platforms share the id).
#[utoipa::path(
    get, path = "/v1/videos/by-external-id/{external_video_id}", tag = "videos",
    params(("external_video_id" = String, Path, description = "The platform's video id, percent-encoded")),
    responses(
        (status = 200, description = "The video", body = Envelope<OneVideo>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "Flat `Video not found`"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn by_external_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
) -> Result<Response, ApiError> {
    let PathParam(id) = path.map_err(|_| video_not_found())?;
    read_video(
        &app,
        &ctx,
        auth.org.id,
        &headers,
        VideoLookup::ExternalId(id),
    )
    .await?
    .ok_or_else(video_not_found)
}
