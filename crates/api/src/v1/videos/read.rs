//! The two video reads (docs/api.md: GET /v1/videos/by-id and
//! /v1/videos/by-external-id): the record with its whole history, from the
//! record cache when this node kept it and it is unchanged.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE, VARY};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
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
use crate::record_cache::gzip::{self, Part, accepts_gzip};
use crate::record_cache::{ANSWER_OPENING, KeptAnswer};
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

/// Answers a single video read (by id or by external id): the record
/// with its whole history. When this node kept the answer and the database
/// finds the record's stamp unchanged, the kept answer goes out with this
/// request's `meta`, gzip-compressed when the client accepts gzip;
/// otherwise the record is read whole, answered and kept. `None` when the
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
    let mut closing = serde_json::to_vec(&Meta::of(ctx)).map_err(|e| ApiError::internal(&e))?;
    closing.push(b'}');
    if let Some(kept) = app.records.get(org, &lookup) {
        let Some(stamp) = app.store.record_stamp(org, &lookup).await? else {
            return Ok(None);
        };
        if kept.is_current(&stamp, now) {
            return single_answer(&Opening::Kept(kept), &closing, gzip).map(Some);
        }
    }
    let Some(record) = app.store.video(org, &lookup, now).await? else {
        return Ok(None);
    };
    let (stamp, changes_at) = (record.stamp, record.changes_at());
    let body = answer_until_meta(record)?;
    let opening = match app.records.keep(org, lookup, stamp, changes_at, &body) {
        Some(kept) if gzip => Opening::Kept(kept),
        _ => Opening::Plain(body),
    };
    single_answer(&opening, &closing, gzip).map(Some)
}

/// A single read's answer of `record` up to its `meta` value:
/// [`ANSWER_OPENING`], the `stats` object, the other fields, `},"meta":`.
fn answer_until_meta(mut record: VideoRecord) -> Result<Vec<u8>, ApiError> {
    let history = std::mem::take(&mut record.history);
    let mut body = Vec::with_capacity(ANSWER_OPENING.len() + 180 * history.len() + 1024);
    body.extend_from_slice(ANSWER_OPENING);
    serde_json::to_writer(&mut body, &StatsMap::new(&history))
        .map_err(|e| ApiError::internal(&e))?;
    body.push(b',');
    // The other fields as an object without its `{`: they go on in `data`.
    let fields_at = body.len();
    serde_json::to_writer(&mut body, &VideoFields::from(record))
        .map_err(|e| ApiError::internal(&e))?;
    body.remove(fields_at);
    body.extend_from_slice(br#"},"meta":"#);
    Ok(body)
}

/// The answer made of `opening` and `closing`: gzip-compressed when the
/// opening was kept compressed and the client accepts gzip, plain otherwise.
fn single_answer(opening: &Opening, closing: &[u8], gzip: bool) -> Result<Response, ApiError> {
    let (body, encoding) = match opening {
        Opening::Kept(kept) if gzip => (
            gzip::gzip(&[Part::Deflated(&kept.body), Part::Plain(closing)]),
            Some(HeaderValue::from_static("gzip")),
        ),
        Opening::Kept(kept) => (
            gzip::plain(&[Part::Deflated(&kept.body), Part::Plain(closing)])
                .map_err(|e| ApiError::internal(&e))?,
            None,
        ),
        Opening::Plain(bytes) => ([bytes.as_slice(), closing].concat(), None),
    };
    let mut response = (
        [
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (VARY, HeaderValue::from_static("accept-encoding")),
        ],
        body,
    )
        .into_response();
    if let Some(encoding) = encoding {
        response.headers_mut().insert(CONTENT_ENCODING, encoding);
    }
    Ok(response)
}

/// The opening of a single video answer (up to its `meta` value): kept
/// (compressed) in the record cache, or this answer's own.
enum Opening {
    /// As the record cache keeps it.
    Kept(Arc<KeptAnswer>),
    /// Plain bytes, kept nowhere.
    Plain(Vec<u8>),
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
