//! Exports of videos (docs/api.md, "Exports"): every video a listing's
//! filters match (`GET /v1/videos/export`), and one video's every reading
//! (`GET /v1/videos/by-id/{video_id}/history`), as CSV or NDJSON. Streamed:
//! the matching ids are read first (one small row each), then the records a
//! slice at a time, each slice written out before the next is read, so
//! memory stays flat whatever the size.

use std::collections::HashMap;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use chrono::{DateTime, Utc};
use futures::stream::{self, StreamExt, TryStreamExt};
use serde::Serialize;
use serde_json::json;
use uuid::Uuid;
use vidpulse_domain::analytics::{Baseline, DateRange, Metrics};
use vidpulse_domain::{OrgId, VideoId};
use vidpulse_store::{VideoLookup, VideoRecord};

use crate::app::rfc3339;
use crate::app::videos::{
    ListParams, VideoFields, VideoView, filtered_query, refused_query, video_not_found,
};
use crate::auth::ApiKeyAuth;
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::export::{Format, cell, csv_bytes, csv_writer, download, number, write_row};

/// Records read (and written out) at a time. A record carries its whole
/// history (~45 KB at a reading every few hours), which the NDJSON line
/// writes and the CSV row does not: 25 records keep a slice's read near
/// 1 MB.
const SLICE_LEN: usize = 25;

/// The parameters the export knows before the listing's filters and sort
/// (no page: it answers every matching video).
const EXPORT_FIRST: [&str; 1] = ["format"];

/// The CSV columns of a video: the record's fields, in its order.
const VIDEO_COLUMNS: [&str; 27] = [
    "video_id",
    "external_video_id",
    "platform",
    "url",
    "title",
    "thumbnail_url",
    "author_username",
    "published_at",
    "views",
    "likes",
    "comments",
    "reposts",
    "saves",
    "created_at",
    "stats_last_updated",
    "cpm",
    "er",
    "notes",
    "budget",
    "campaign",
    "video_status",
    "status",
    "ecpm",
    "tags",
    "tracking_status",
    "tracking_ends_at",
    "next_refresh_at",
];

/// The CSV columns of a video's gains, when the export measures them.
const GAIN_COLUMNS: [&str; 5] = [
    "views_gained",
    "likes_gained",
    "comments_gained",
    "reposts_gained",
    "saves_gained",
];

/// Every tracked video the listing's filters match, in its sort order, as
/// CSV (the record's fields; `tags` joined with `; `; with `from`/`to` or a
/// gained sort, the five gains after) or NDJSON (each line a record as the
/// single read shows it, with `gained` when measured). Free, like the listing.
/// Errors are the listing's: `INVALID_PARAMETER`, flat.
#[utoipa::path(
    get, path = "/v1/videos/export", tag = "videos",
    params(
        ("format" = Option<String>, Query, description = "csv (default) or ndjson; without it, `Accept: application/x-ndjson` asks for NDJSON"),
        ("platform" = Option<String>, Query, description = "As the listing"),
        ("status" = Option<String>, Query, description = "As the listing"),
        ("sort" = Option<String>, Query, description = "As the listing"),
        ("order" = Option<String>, Query, description = "As the listing"),
        ("q" = Option<String>, Query, description = "As the listing"),
        ("campaign" = Option<String>, Query, description = "As the listing"),
        ("blogger" = Option<String>, Query, description = "As the listing"),
        ("tag" = Option<String>, Query, description = "As the listing (repeatable)"),
        ("from" = Option<String>, Query, description = "As the listing: with it, the gains are exported"),
        ("to" = Option<String>, Query, description = "As the listing: with it, the gains are exported"),
        ("published_from" = Option<String>, Query, description = "As the listing"),
        ("published_to" = Option<String>, Query, description = "As the listing"),
        ("tracked_from" = Option<String>, Query, description = "As the listing"),
        ("tracked_to" = Option<String>, Query, description = "As the listing"),
        ("baseline" = Option<String>, Query, description = "As the listing: window (default) or tracking, where the exported gains of a video tracked after `from` start"),
    ),
    responses(
        (status = 200, description = "Every matching video",
         content((String = "text/csv"), (String = "application/x-ndjson"))),
        (status = 400, description = "INVALID_PARAMETER (flat), also for a parameter the export does not know (`limit`, `offset`)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY (flat)"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn export_videos(
    State(app): State<AppState>,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    q: Result<Query<ListParams>, ApiError>,
) -> Result<Response, ApiError> {
    videos_export(app, auth.org.id, &headers, q).await
}

/// The export of `org`'s videos the listing's filters in `q` match: the
/// answer of `GET /v1/videos/export`, also served to the web app by
/// `GET /dashboard/videos/export`.
pub(crate) async fn videos_export(
    app: AppState,
    org: OrgId,
    headers: &HeaderMap,
    q: Result<Query<ListParams>, ApiError>,
) -> Result<Response, ApiError> {
    let q = q.map_err(refused_query)?;
    let format = Format::asked(
        q.all("format").last(),
        headers,
        &[Format::Csv, Format::Ndjson],
    )
    .map_err(|message| {
        ApiError::invalid_parameter(message).with_details(json!({ "parameter": "format" }))
    })?;
    let (mut query, with_gains) = filtered_query(&app, &q, &EXPORT_FIRST)?;
    query.limit = i64::MAX;
    query.offset = 0;
    let now = app.clock.now();
    let ids: Vec<VideoId> = app
        .store
        .list_stamps(org, &query, now)
        .await?
        .items
        .into_iter()
        .map(|stamp| stamp.video_id)
        .collect();
    let window = with_gains.then_some((query.window, query.baseline));
    let header = match format {
        Format::Csv => {
            let mut w = csv_writer();
            let columns = VIDEO_COLUMNS
                .iter()
                .chain(window.iter().flat_map(|_| GAIN_COLUMNS.iter()));
            write_row(&mut w, columns)?;
            csv_bytes(w)?
        }
        _ => Vec::new(),
    };
    let slices: Vec<Vec<VideoId>> = ids.chunks(SLICE_LEN).map(<[VideoId]>::to_vec).collect();
    let body = stream::once(async move { Ok::<_, std::io::Error>(vec![Bytes::from(header)]) })
        .chain(stream::iter(slices).then(move |slice| {
            let app = app.clone();
            async move {
                slice_chunks(&app, org, &slice, now, window, format)
                    .await
                    .map_err(|e| {
                        tracing::error!(error = %e.message, "an export stopped part way");
                        std::io::Error::other(e.message.clone())
                    })
            }
        }))
        .map_ok(|chunks| stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>)))
        .try_flatten();
    Ok(download(format, "videos", Body::from_stream(body)))
}

/// One slice of the export: the records of `ids` (in that order; a video
/// untracked since the ids were read is left out), written in `format`: as
/// one chunk of CSV rows, or as one NDJSON line a chunk. A line carries its
/// record's whole history (~45 KB): written one by one, no buffer grows past
/// a record, and the allocator reuses the same few blocks for the whole
/// download (one buffer for a slice of lines was 1 MB, regrown for every
/// slice: the allocator kept tens of MB of them, BENCHMARKS.md).
async fn slice_chunks(
    app: &AppState,
    org: OrgId,
    ids: &[VideoId],
    now: DateTime<Utc>,
    window: Option<(DateRange, Baseline)>,
    format: Format,
) -> Result<Vec<Bytes>, ApiError> {
    let mut records: HashMap<VideoId, VideoRecord> = app
        .store
        .videos_by_id(org, ids, now)
        .await?
        .into_iter()
        .map(|r| (r.video_id, r))
        .collect();
    let gains: HashMap<VideoId, Metrics> = match window {
        Some((window, baseline)) => app
            .store
            .video_gains(org, ids, window, baseline)
            .await?
            .into_iter()
            .collect(),
        None => HashMap::new(),
    };
    let ordered = ids.iter().filter_map(|id| records.remove(id));
    match format {
        Format::Csv => {
            let mut w = csv_writer();
            for record in ordered {
                let gained = gains.get(&record.video_id).copied();
                let mut row = video_row(VideoFields::from(record));
                if window.is_some() {
                    row.extend(gain_cells(gained));
                }
                write_row(&mut w, &row)?;
            }
            Ok(vec![Bytes::from(csv_bytes(w)?)])
        }
        _ => ordered
            .map(|record| {
                let gained = window.map(|_| gains.get(&record.video_id).copied());
                let view = VideoView::from(record).with_gains(gained);
                let mut line = serde_json::to_vec(&view).map_err(|e| ApiError::internal(&e))?;
                line.push(b'\n');
                Ok(Bytes::from(line))
            })
            .collect(),
    }
}

/// A video's CSV cells, in [`VIDEO_COLUMNS`] order.
fn video_row(v: VideoFields) -> Vec<String> {
    let text = |t: Option<String>| t.as_deref().map(cell).unwrap_or_default().into_owned();
    vec![
        v.video_id.to_string(),
        cell(&v.external_video_id).into_owned(),
        v.platform.to_owned(),
        cell(&v.url).into_owned(),
        text(v.title),
        text(v.thumbnail_url),
        text(v.author_username),
        v.published_at.unwrap_or_default(),
        number(v.views),
        number(v.likes),
        number(v.comments),
        number(v.reposts),
        number(v.saves),
        v.created_at,
        v.stats_last_updated.unwrap_or_default(),
        number(v.cpm),
        number(v.er),
        text(v.notes),
        number(v.budget),
        text(v.campaign),
        v.video_status.to_owned(),
        v.status.to_owned(),
        number(v.ecpm),
        cell(&v.tags.join("; ")).into_owned(),
        v.tracking_status.to_owned(),
        v.tracking_ends_at,
        v.next_refresh_at.unwrap_or_default(),
    ]
}

/// The five gains' cells (empty without a reading in the window).
fn gain_cells(gained: Option<Metrics>) -> [String; 5] {
    match gained {
        Some(m) => [m.views, m.likes, m.comments, m.reposts, m.saves].map(|n| n.to_string()),
        None => Default::default(),
    }
}

/// One reading of a video, as the history export writes it.
#[derive(Debug, Serialize)]
struct Reading {
    captured_at: String,
    views: Option<i64>,
    likes: Option<i64>,
    comments: Option<i64>,
    reposts: Option<i64>,
    saves: Option<i64>,
}

/// Every reading of a tracked video within its tracking window, oldest
/// first, as CSV (`captured_at` and the five counters) or NDJSON. Free.
#[utoipa::path(
    get, path = "/v1/videos/by-id/{video_id}/history", tag = "videos",
    params(
        ("video_id" = Uuid, Path, description = "The organization's video id"),
        ("format" = Option<String>, Query, description = "csv (default) or ndjson; without it, `Accept: application/x-ndjson` asks for NDJSON"),
    ),
    responses(
        (status = 200, description = "Every reading",
         content((String = "text/csv"), (String = "application/x-ndjson"))),
        (status = 400, description = "VALIDATION_ERROR: a `format` other than csv or ndjson"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "VIDEO_NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn export_history(
    State(app): State<AppState>,
    _ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
    q: Query<serde_json::Value>,
) -> Result<Response, ApiError> {
    let id = path
        .ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .ok_or_else(video_not_found)?;
    let format = Format::asked(
        q.all("format").last(),
        &headers,
        &[Format::Csv, Format::Ndjson],
    )
    .map_err(|message| ApiError::validation("format", message))?;
    let record = app
        .store
        .video(auth.org.id, &VideoLookup::Id(VideoId(id)), app.clock.now())
        .await?
        .ok_or_else(video_not_found)?;
    let readings = record.history.iter().map(|o| Reading {
        captured_at: rfc3339(o.captured_at),
        views: o.counters.views,
        likes: o.counters.likes,
        comments: o.counters.comments,
        reposts: o.counters.reposts,
        saves: o.counters.saves,
    });
    let body = match format {
        Format::Csv => {
            let mut w = csv_writer();
            write_row(
                &mut w,
                [
                    "captured_at",
                    "views",
                    "likes",
                    "comments",
                    "reposts",
                    "saves",
                ],
            )?;
            for r in readings {
                write_row(
                    &mut w,
                    [
                        r.captured_at,
                        number(r.views),
                        number(r.likes),
                        number(r.comments),
                        number(r.reposts),
                        number(r.saves),
                    ],
                )?;
            }
            csv_bytes(w)?
        }
        _ => {
            let mut out = Vec::new();
            for r in readings {
                serde_json::to_writer(&mut out, &r).map_err(|e| ApiError::internal(&e))?;
                out.push(b'\n');
            }
            out
        }
    };
    Ok(download(
        format,
        &format!(
            "history-{}",
            record.external_id.replace(
                |c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_',
                "_"
            )
        ),
        Body::from(body),
    ))
}

#[cfg(test)]
mod tests {
    use utoipa::openapi::RefOr;

    use crate::app::videos::FILTER_PARAMETERS;

    use super::*;

    #[test]
    fn the_documented_parameters_are_the_known_ones_in_order() {
        let (_, doc) = crate::v1::videos::router().split_for_parts();
        let operation = doc.paths.paths["/v1/videos/export"].get.clone().unwrap();
        let documented: Vec<String> = operation
            .parameters
            .unwrap()
            .into_iter()
            .map(|p| match p {
                RefOr::T(p) => p.name,
                RefOr::Ref(r) => r.ref_location,
            })
            .collect();
        let known: Vec<&str> = EXPORT_FIRST
            .iter()
            .chain(&FILTER_PARAMETERS)
            .copied()
            .collect();
        assert_eq!(documented, known);
    }
}
