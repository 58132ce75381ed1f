//! Video tracking and statistics (docs/api.md, "Videos": "POST /v1/videos/track",
//! "GET /v1/videos/stats", the two video reads and the PATCH).

use axum::Json;
use axum::extract::State;
use std::sync::Arc;

use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE, VARY};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, SecondsFormat, Utc};
use futures::StreamExt;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::metrics::cost_per_mille;
use vidpulse_domain::patch::VideoPatch;
use vidpulse_domain::{ParsedUrl, Platform, VideoId, VideoRef, parse_video_url};
use vidpulse_store::{
    ListQuery, SortKey, SortOrder, TrackBatch, TrackOutcome, VideoLookup, VideoRecord, VideoState,
};

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, TrackSummary, ok};
use crate::error::{ApiError, ErrorCode, ErrorForm};
use crate::extract::{JsonBody, PathParam, QueryParams};
use crate::middleware::{RequestContext, flat_errors};
use crate::record_cache::gzip::{self, Part, accepts_gzip};
use crate::record_cache::{ANSWER_OPENING, KeptAnswer};
use crate::state::AppState;
use crate::v1::stats_map::StatsMap;

/// Most URLs in one track request.
pub const MAX_URLS: usize = 50;
/// Short links resolved at once within one request.
const RESOLVE_CONCURRENCY: usize = 8;

/// The video routes.
pub fn router() -> OpenApiRouter<AppState> {
    let flat = OpenApiRouter::new()
        .routes(routes!(list_stats))
        .route_layer(axum::middleware::from_fn(flat_errors));
    OpenApiRouter::new()
        .routes(routes!(track))
        .routes(routes!(by_id))
        .routes(routes!(by_external_id, patch_by_external_id))
        .merge(flat)
}

/// Body of a track request.
#[derive(Debug, ToSchema)]
#[allow(
    dead_code,
    reason = "documents the body that the handler validates by hand"
)]
pub struct TrackRequest {
    /// 1 to 50 video URLs (TikTok, Instagram or YouTube, short links included).
    urls: Vec<String>,
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
async fn track(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    JsonBody(body): JsonBody,
) -> Result<Json<Envelope<TrackData>>, ApiError> {
    let urls = track_urls(&body)?;
    app.limits.check_track(auth.key_id, urls.len()).await?;

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
            organization_id: auth.org.id,
            api_key_id: Some(auth.key_id),
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
    let credits = summary.tracked as i64 * app.config.credits_per_video;
    let mut meta = Meta::of(&ctx).with_credits(credits);
    meta.summary = Some(summary);
    Ok(ok(TrackData { results }, meta))
}

/// The `urls` of a track body: 1 to 50 strings, else 400 naming `urls`.
fn track_urls(body: &Value) -> Result<Vec<String>, ApiError> {
    let obj = body.as_object().ok_or_else(|| {
        ApiError::validation("body", "The body must be a JSON object with `urls`")
    })?;
    let urls = obj
        .get("urls")
        .ok_or_else(|| ApiError::validation("urls", "`urls` is required"))?;
    let urls = urls
        .as_array()
        .ok_or_else(|| ApiError::validation("urls", "`urls` must be an array of URL strings"))?;
    if urls.is_empty() {
        return Err(ApiError::validation(
            "urls",
            "`urls` must contain at least one URL",
        ));
    }
    if urls.len() > MAX_URLS {
        return Err(ApiError::validation(
            "urls",
            format!(
                "`urls` may contain at most {MAX_URLS} URLs; got {}",
                urls.len()
            ),
        ));
    }
    urls.iter()
        .map(|u| {
            u.as_str().map(str::to_owned).ok_or_else(|| {
                ApiError::validation("urls", "`urls` must be an array of URL strings")
            })
        })
        .collect()
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

/// A video record as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct VideoView {
    /// Metric name → (`YYYY-MM-DD HH:MM:SS.ffffff+00` → value), over the tracking window.
    #[schema(value_type = BTreeMap<String, BTreeMap<String, i64>>)]
    pub stats: StatsMap,
    /// The other fields.
    #[serde(flatten)]
    pub fields: VideoFields,
}

/// A video record as the API shows it, but for its `stats`.
#[derive(Debug, Serialize, ToSchema)]
pub struct VideoFields {
    /// The organization's id of the video.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Platform display name (`TikTok`, `Instagram`, `YouTube`).
    pub platform: &'static str,
    /// Canonical page URL.
    pub url: String,
    /// Title or caption.
    pub title: Option<String>,
    /// Thumbnail URL.
    pub thumbnail_url: Option<String>,
    /// The author's handle.
    pub author_username: Option<String>,
    /// When the video was published.
    pub published_at: Option<String>,
    /// Latest views.
    pub views: Option<i64>,
    /// Latest likes.
    pub likes: Option<i64>,
    /// Latest comments.
    pub comments: Option<i64>,
    /// Latest reposts.
    pub reposts: Option<i64>,
    /// Latest saves.
    pub saves: Option<i64>,
    /// When tracking started.
    pub created_at: String,
    /// When the latest statistics were read.
    pub stats_last_updated: Option<String>,
    /// Cost per mille: budget / views × 1000.
    pub cpm: Option<f64>,
    /// Engagement rate in percent: (likes + comments + reposts) / views × 100.
    pub er: Option<f64>,
    /// Notes.
    pub notes: Option<String>,
    /// Budget.
    pub budget: Option<i64>,
    /// Campaign tag.
    pub campaign: Option<String>,
    /// `tracking`, `paused` or `deleted`.
    pub video_status: &'static str,
    /// `to do`, `running` or `ended`.
    pub status: &'static str,
    /// eCPM.
    pub ecpm: Option<f64>,
    /// Tag names.
    pub tags: Vec<String>,
    /// `active`, `completed` or `failed` (the `status` filter of the listing).
    pub tracking_status: &'static str,
    /// When tracking ends.
    pub tracking_ends_at: String,
}

/// RFC 3339 in UTC with a `Z` (docs/api.md, "Conventions").
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn state_name(s: VideoState) -> &'static str {
    match s {
        VideoState::Active => "active",
        VideoState::Completed => "completed",
        VideoState::Failed => "failed",
    }
}

impl From<VideoRecord> for VideoView {
    fn from(r: VideoRecord) -> Self {
        VideoView {
            stats: StatsMap::new(&r.history),
            fields: r.into(),
        }
    }
}

impl From<VideoRecord> for VideoFields {
    /// The fields of a record, its history left aside.
    fn from(r: VideoRecord) -> Self {
        VideoFields {
            video_id: r.video_id.0,
            external_video_id: r.external_id,
            platform: r.platform.display_name(),
            url: r.url,
            title: r.title,
            thumbnail_url: r.thumbnail_url,
            author_username: r.author_username,
            published_at: r.published_at.map(rfc3339),
            views: r.latest.views,
            likes: r.latest.likes,
            comments: r.latest.comments,
            reposts: r.latest.reposts,
            saves: r.latest.saves,
            created_at: rfc3339(r.created_at),
            stats_last_updated: r.stats_updated_at.map(rfc3339),
            cpm: cost_per_mille(r.budget, r.latest.views),
            er: r.latest.engagement_rate(),
            notes: r.notes,
            budget: r.budget,
            campaign: r.campaign,
            video_status: r.video_status.as_str(),
            status: r.workflow_status.as_str(),
            ecpm: r.ecpm,
            tags: r.tags,
            tracking_status: state_name(r.state),
            tracking_ends_at: rfc3339(r.tracking_ends_at),
        }
    }
}

/// Pagination facts of the listing.
#[derive(Debug, Serialize, ToSchema)]
pub struct Pagination {
    /// Matching videos in all.
    pub total: i64,
    /// Page size.
    pub limit: i64,
    /// Rows skipped.
    pub offset: i64,
    /// Whether more rows follow this page.
    pub has_more: bool,
}

/// `data` of the listing.
#[derive(Debug, Serialize, ToSchema)]
pub struct VideoPage {
    /// The page.
    pub data: Vec<VideoView>,
    /// Where the page sits.
    pub pagination: Pagination,
}

const SORT_OPTIONS: [&str; 4] = ["created_at", "views", "likes", "updated_at"];

/// Parses the listing's query (docs/api.md, "Pagination": a value out of
/// range is refused, never silently clamped).
fn list_query(q: &QueryParams) -> Result<ListQuery, ApiError> {
    let int = |name: &str, default: i64, min: i64, max: i64, rule: &str| -> Result<i64, ApiError> {
        match q.get(name) {
            None => Ok(default),
            Some(raw) => raw
                .parse::<i64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    ApiError::invalid_parameter(format!("`{name}` must be {rule}; got `{raw}`"))
                        .with_details(json!({ "parameter": name }))
                }),
        }
    };
    let limit = int("limit", 50, 1, 100, "an integer from 1 to 100")?;
    let offset = int("offset", 0, 0, i64::MAX, "an integer of 0 or more")?;
    let platform = match q.get("platform") {
        None => None,
        Some(raw) => Some(Platform::from_any_case(raw).map_err(|_| {
            ApiError::invalid_parameter(format!("`platform` must be TikTok, YouTube or Instagram; got `{raw}`"))
                .with_details(json!({ "parameter": "platform", "valid_platform_options": ["TikTok", "YouTube", "Instagram"] }))
        })?),
    };
    let status = match q.get("status") {
        None => None,
        Some("active") => Some(VideoState::Active),
        Some("completed") => Some(VideoState::Completed),
        Some("failed") => Some(VideoState::Failed),
        Some(raw) => {
            return Err(ApiError::invalid_parameter(format!(
                "`status` must be active, completed or failed; got `{raw}`"
            ))
            .with_details(json!({ "parameter": "status", "valid_status_options": ["active", "completed", "failed"] })));
        }
    };
    let sort = match q.get("sort") {
        None | Some("created_at") => SortKey::CreatedAt,
        Some("views") => SortKey::Views,
        Some("likes") => SortKey::Likes,
        Some("updated_at") => SortKey::UpdatedAt,
        Some(raw) => {
            return Err(ApiError::invalid_parameter(format!(
                "`sort` must be one of created_at, views, likes, updated_at; got `{raw}`"
            ))
            .with_details(json!({ "parameter": "sort", "valid_sort_options": SORT_OPTIONS })));
        }
    };
    let order = match q.get("order") {
        None | Some("desc") => SortOrder::Desc,
        Some("asc") => SortOrder::Asc,
        Some(raw) => {
            return Err(ApiError::invalid_parameter(format!(
                "`order` must be asc or desc; got `{raw}`"
            ))
            .with_details(
                json!({ "parameter": "order", "valid_order_options": ["asc", "desc"] }),
            ));
        }
    };
    Ok(ListQuery {
        platform,
        status,
        sort,
        order,
        limit,
        offset,
    })
}

/// List the organization's tracked videos with their latest statistics.
///
/// Errors use the flat envelope: `{"success": false, "error": "...", "code": "..."}`.
#[utoipa::path(
    get, path = "/v1/videos/stats", tag = "videos",
    params(
        ("limit" = Option<i64>, Query, description = "Page size, 1 to 100 (default 50)"),
        ("offset" = Option<i64>, Query, description = "Rows to skip, 0 or more (default 0)"),
        ("platform" = Option<String>, Query, description = "TikTok, YouTube or Instagram"),
        ("status" = Option<String>, Query, description = "active, completed or failed"),
        ("sort" = Option<String>, Query, description = "created_at (default), views, likes or updated_at"),
        ("order" = Option<String>, Query, description = "asc or desc (default)"),
    ),
    responses(
        (status = 200, description = "A page of videos", body = Envelope<VideoPage>),
        (status = 400, description = "INVALID_PARAMETER (flat)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY (flat)"),
    ),
    security(("api_key" = []))
)]
async fn list_stats(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    q: Result<QueryParams, ApiError>,
) -> Result<Json<Envelope<VideoPage>>, ApiError> {
    // The listing's parameter errors are `INVALID_PARAMETER`, a NUL one too.
    let q = q.map_err(|e| {
        ApiError::invalid_parameter(e.message.clone()).with_details(json!({ "parameter": e.field }))
    })?;
    let query = list_query(&q)?;
    let page = app
        .store
        .list_videos(auth.org.id, &query, app.clock.now())
        .await?;
    let has_more = query.offset.saturating_add(page.items.len() as i64) < page.total;
    let data = VideoPage {
        data: page.items.into_iter().map(VideoView::from).collect(),
        pagination: Pagination {
            total: page.total,
            limit: query.limit,
            offset: query.offset,
            has_more,
        },
    };
    Ok(ok(data, Meta::of(&ctx)))
}

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
/// otherwise the record is read whole, answered and kept.
async fn read_video(
    app: &AppState,
    ctx: &RequestContext,
    auth: &ApiKeyAuth,
    headers: &HeaderMap,
    lookup: VideoLookup,
) -> Result<Response, ApiError> {
    let org = auth.org.id;
    let now = app.clock.now();
    let gzip = accepts_gzip(headers);
    let mut closing = serde_json::to_vec(&Meta::of(ctx)).map_err(|e| ApiError::internal(&e))?;
    closing.push(b'}');
    if let Some(kept) = app.records.get(org, &lookup) {
        let stamp = app
            .store
            .record_stamp(org, &lookup)
            .await?
            .ok_or_else(video_not_found)?;
        if kept.is_current(&stamp, now) {
            return single_answer(&Opening::Kept(kept), &closing, gzip);
        }
    }
    let record = app
        .store
        .video(org, &lookup, now)
        .await?
        .ok_or_else(video_not_found)?;
    let (stamp, changes_at) = (record.stamp, record.changes_at());
    let body = answer_until_meta(record)?;
    let opening = match app.records.keep(org, lookup, stamp, changes_at, &body) {
        Some(kept) if gzip => Opening::Kept(kept),
        _ => Opening::Plain(body),
    };
    single_answer(&opening, &closing, gzip)
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
async fn by_id(
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
    read_video(&app, &ctx, &auth, &headers, VideoLookup::Id(VideoId(id))).await
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
async fn by_external_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
) -> Result<Response, ApiError> {
    let PathParam(id) = path.map_err(|_| video_not_found())?;
    read_video(&app, &ctx, &auth, &headers, VideoLookup::ExternalId(id)).await
}

/// Editable metadata; only the fields sent are written.
#[derive(Debug, ToSchema)]
#[allow(dead_code, reason = "documents the body that the domain validates")]
pub struct PatchRequest {
    /// At most 2000 characters; `""` clears.
    notes: Option<String>,
    /// Greater than 0; `null` or `""` clears.
    budget: Option<i64>,
    /// At most 200 characters of letters, digits, spaces and `- _ . ( ) | : % &`; `""` or `null` clears.
    campaign: Option<String>,
    /// `tracking`, `paused` or `deleted`.
    video_status: Option<String>,
    /// `to do`, `running` or `ended`.
    status: Option<String>,
    /// 0 or more; `null` or `""` clears.
    ecpm: Option<f64>,
    /// 1 to 50 names of at most 80 characters; additive, matched ignoring case.
    tags: Option<Vec<String>>,
}

/// What a PATCH did with tags.
#[derive(Debug, Serialize, ToSchema)]
pub struct TagsResultView {
    /// Names linked to the video.
    pub attached: Vec<String>,
    /// Names created by the request.
    pub created: Vec<String>,
    /// Tags on the video now.
    pub total: i64,
}

/// `data` of a PATCH.
#[derive(Debug, Serialize, ToSchema)]
pub struct PatchResult {
    /// The organization's id of the video.
    pub video_id: Uuid,
    /// The platform's id.
    pub external_video_id: String,
    /// Columns written (`campaign` is reported as `campaign_tag`).
    pub updated_fields: Vec<&'static str>,
    /// Present when `tags` was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags_result: Option<TagsResultView>,
}

/// Update the editable metadata of a tracked video. Requires a paid plan.
#[utoipa::path(
    patch, path = "/v1/videos/by-external-id/{external_video_id}", tag = "videos",
    params(("external_video_id" = String, Path, description = "The platform's video id, percent-encoded")),
    request_body = PatchRequest,
    responses(
        (status = 200, description = "What was written", body = Envelope<PatchResult>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "VIDEO_NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn patch_by_external_id(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody, ApiError>,
) -> Result<Json<Envelope<PatchResult>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::VideoNotFound,
            "Video not found",
        )
    };
    let PathParam(external_id) = path.map_err(|_| not_found())?;
    let JsonBody(body) = body?;
    let patch = VideoPatch::parse(&body).map_err(|e| ApiError::validation(&e.field, e.message))?;
    let out = app
        .store
        .patch_video(auth.org.id, &external_id, &patch, app.clock.now())
        .await?
        .ok_or_else(not_found)?;
    let data = PatchResult {
        video_id: out.video_id.0,
        external_video_id: out.external_id,
        updated_fields: out.updated_fields,
        tags_result: out.tags.map(|t| TagsResultView {
            attached: t.attached,
            created: t.created,
            total: t.total,
        }),
    };
    Ok(ok(data, Meta::of(&ctx)))
}
