//! Reading one video (docs/api.md: GET /v1/videos/by-id, /v1/videos/by-external-id
//! and GET /dashboard/videos/{id}): the record with its whole history, from
//! the record cache when this node kept it and it is unchanged.

use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use utoipa::ToSchema;
use vidpulse_domain::OrgId;
use vidpulse_store::{VideoLookup, VideoRecord};

use crate::app::videos::{StatsMap, VideoFields, VideoView};
use crate::envelope::Meta;
use crate::error::ApiError;
use crate::middleware::RequestContext;
use crate::record_cache::gzip::{Part, accepts_gzip};
use crate::record_cache::{Shown, answer};
use crate::state::AppState;

/// `data` of a single video read.
#[derive(Debug, Serialize, ToSchema)]
pub struct OneVideo {
    /// The video.
    pub data: VideoView,
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
