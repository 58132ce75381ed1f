//! The organization's videos in the dashboard API (docs/api.md, "In the
//! dashboard"): the listing, tracking links, the single read, the PATCH and
//! its batch, untracking, reading now, the usage report and creator jobs,
//! each with the rules, limits and credits of its public counterpart (the
//! same use case, in [`crate::app`]), for a signed-in member instead of an
//! API key. Errors come in
//! the nested envelope; a video the organization does not have is 404
//! `NOT_FOUND`.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::VideoId;
use vidpulse_domain::identity::Role;
use vidpulse_store::VideoLookup;

use crate::app::account::{UsageReport, usage_report};
use crate::app::bloggers::{JobView, job_view};
use crate::app::videos::{
    Batch, BatchPatchRequest, BatchPatchResult, ListParams, OneVideo, PatchRequest, PatchResult,
    RefreshResult, TrackData, TrackRequest, UntrackResult, VideoPage, apply_patch, list_page,
    patch_videos, read_video, refresh_video, refused_query, track_urls, untrack_video,
};
use crate::auth::require_paid_plan;
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::{JsonBody, PathParam, Query};
use crate::input::List;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The dashboard's video, usage and job routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(export))
        .routes(routes!(track))
        .routes(routes!(patch_batch))
        .routes(routes!(read, patch, untrack))
        .routes(routes!(refresh))
        .routes(routes!(usage))
        .routes(routes!(job))
}

fn not_found() -> ApiError {
    ApiError::not_found("Video not found")
}

/// A public core's error as the dashboard answers it: its 404
/// `VIDEO_NOT_FOUND` is `NOT_FOUND` here (message and details kept).
fn dashboard_error(mut error: ApiError) -> ApiError {
    if error.code == ErrorCode::VideoNotFound {
        error.code = ErrorCode::NotFound;
    }
    error
}

/// The video a path names: a UUID, or nothing (404 like an unknown video).
fn video_of(path: Result<PathParam, ApiError>) -> Result<VideoLookup, ApiError> {
    path.ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .map(|id| VideoLookup::Id(VideoId(id)))
        .ok_or_else(not_found)
}

/// The organization's tracked videos with their latest statistics: the
/// parameters and answer of `GET /v1/videos/stats`. Any member.
#[utoipa::path(
    get, path = "/dashboard/videos", tag = "dashboard",
    params(ListParams, ("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "A page of videos", body = Envelope<VideoPage>),
        (status = 400, description = "INVALID_PARAMETER"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    q: Result<Query<ListParams>, ApiError>,
) -> Result<Json<Envelope<VideoPage>>, ApiError> {
    let q = q.map_err(refused_query)?;
    Ok(ok(list_page(&app, auth.org, &q).await?, Meta::of(&ctx)))
}

/// Every video the listing's filters match, as the server's export: the
/// parameters, columns, formats and errors of `GET /v1/videos/export`
/// (CSV by default, NDJSON on request), for any member. Free.
#[utoipa::path(
    get, path = "/dashboard/videos/export", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("format" = Option<String>, Query, description = "csv (default) or ndjson"),
        ("baseline" = Option<String>, Query, description = "window (default) or tracking: where the gains of a video tracked after `from` start"),
    ),
    responses(
        (status = 200, description = "Every matching video, as `GET /v1/videos/export`",
         content((String = "text/csv"), (String = "application/x-ndjson"))),
        (status = 400, description = "INVALID_PARAMETER (flat), as the listing"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn export(
    State(app): State<AppState>,
    auth: OrgAuth,
    headers: HeaderMap,
    q: Result<Query<ListParams>, ApiError>,
) -> Result<Response, ApiError> {
    crate::v1::videos::videos_export(app, auth.org, &headers, q).await
}

/// Tracks 1 to 50 links: the body, answer, quota and credits of
/// `POST /v1/videos/track`. Editors and above.
#[utoipa::path(
    post, path = "/dashboard/videos/track", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = TrackRequest, description = "`{\"urls\": [\"https://...\"]}`"),
    responses(
        (status = 200, description = "Per-URL results", body = Envelope<TrackData>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS, or SUBSCRIPTION_LIMIT: the tracked-video quota would be exceeded"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn track(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<TrackRequest>,
) -> Result<Json<Envelope<TrackData>>, ApiError> {
    auth.require(Role::Editor)?;
    let List(urls) = body.parse()?.urls;
    let tracked = track_urls(&app, &ctx, auth.org, None, urls).await?;
    let meta = Meta::of(&ctx)
        .with_credits(tracked.credits)
        .with_summary(tracked.summary);
    Ok(ok(tracked.data, meta))
}

/// One tracked video with its statistics history: the answer of
/// `GET /v1/videos/by-id/{video_id}`. Any member.
#[utoipa::path(
    get, path = "/dashboard/videos/{id}", tag = "dashboard",
    params(
        ("id" = String, Path, description = "The video's UUID"),
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
    ),
    responses(
        (status = 200, description = "The video", body = Envelope<OneVideo>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn read(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    headers: HeaderMap,
    path: Result<PathParam, ApiError>,
) -> Result<Response, ApiError> {
    let video = video_of(path)?;
    read_video(&app, &ctx, auth.org, &headers, video)
        .await?
        .ok_or_else(not_found)
}

/// Edits a video's notes, budget, campaign, statuses, eCPM and tags: the
/// body, rules and answer of the public PATCH (a paid plan). Editors and above.
#[utoipa::path(
    patch, path = "/dashboard/videos/{id}", tag = "dashboard",
    params(
        ("id" = String, Path, description = "The video's UUID"),
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
    ),
    request_body = PatchRequest,
    responses(
        (status = 200, description = "What was written", body = Envelope<PatchResult>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn patch(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<PatchRequest>, ApiError>,
) -> Result<Json<Envelope<PatchResult>>, ApiError> {
    auth.require(Role::Editor)?;
    let org = app
        .store
        .organization(auth.org)
        .await?
        .ok_or_else(not_found)?;
    require_paid_plan(org.plan, &app.config.upgrade_url)?;
    let video = video_of(path)?;
    let data = apply_patch(&app, auth.org, &video, body)
        .await?
        .ok_or_else(not_found)?;
    Ok(ok(data, Meta::of(&ctx)))
}

/// Edits up to 100 videos at once, all or nothing: the body, rules and
/// answer of `PATCH /v1/videos/batch` (a paid plan). Editors and above.
#[utoipa::path(
    patch, path = "/dashboard/videos/batch", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body = BatchPatchRequest,
    responses(
        (status = 200, description = "What was written", body = Envelope<BatchPatchResult>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND with `not_found`: the ids that name no video of the organization; nothing written"),
    ),
    security(("bearer_jwt" = []))
)]
async fn patch_batch(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: Result<JsonBody<Batch>, ApiError>,
) -> Result<Json<Envelope<BatchPatchResult>>, ApiError> {
    auth.require(Role::Editor)?;
    let org = app
        .store
        .organization(auth.org)
        .await?
        .ok_or_else(not_found)?;
    require_paid_plan(org.plan, &app.config.upgrade_url)?;
    let data = patch_videos(&app, auth.org, body)
        .await
        .map_err(dashboard_error)?;
    Ok(ok(data, Meta::of(&ctx)))
}

/// Stops tracking a video: what `DELETE /v1/videos/by-id/{video_id}` does
/// and answers (every plan; credits spent are not refunded). Editors and above.
#[utoipa::path(
    delete, path = "/dashboard/videos/{id}", tag = "dashboard",
    params(
        ("id" = String, Path, description = "The video's UUID"),
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
    ),
    responses(
        (status = 200, description = "The video is no longer tracked", body = Envelope<UntrackResult>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn untrack(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<UntrackResult>>, ApiError> {
    auth.require(Role::Editor)?;
    let video = video_of(path)?;
    let data = untrack_video(&app, auth.org, video)
        .await
        .map_err(dashboard_error)?;
    Ok(ok(data, Meta::of(&ctx)))
}

/// Reads a video from its platform now: the cooldown, credit (1 for a
/// fresh read) and answer of `POST /v1/videos/by-id/{video_id}/refresh`
/// (every plan). Editors and above.
#[utoipa::path(
    post, path = "/dashboard/videos/{id}/refresh", tag = "dashboard",
    params(
        ("id" = String, Path, description = "The video's UUID"),
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
    ),
    responses(
        (status = 200, description = "The video's reading", body = Envelope<RefreshResult>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
        (status = 409, description = "TRACKING_ENDED or VIDEO_UNAVAILABLE (removed or private on the platform)"),
        (status = 429, description = "REFRESH_TOO_SOON, with `Retry-After`"),
        (status = 502, description = "EXTERNAL_API_ERROR: the platform failed; nothing charged"),
    ),
    security(("bearer_jwt" = []))
)]
async fn refresh(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<RefreshResult>>, ApiError> {
    auth.require(Role::Editor)?;
    let video = video_of(path)?;
    let data = refresh_video(&app, &ctx, auth.org, None, video)
        .await
        .map_err(dashboard_error)?;
    let meta = Meta::of(&ctx).with_credits(data.credits());
    Ok(ok(data, meta))
}

/// The organization's requests and credits per day over the last 30 days:
/// the answer of `GET /v1/account/usage`. Any member.
#[utoipa::path(
    get, path = "/dashboard/usage", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "Daily usage", body = Envelope<UsageReport>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn usage(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<UsageReport>>, ApiError> {
    Ok(ok(usage_report(&app, auth.org).await?, Meta::of(&ctx)))
}

/// A creator job (from `POST /blogger/add`): the answer of
/// `GET /v1/bloggers/jobs/{job_id}`. Any member.
#[utoipa::path(
    get, path = "/blogger/jobs/{job_id}", tag = "dashboard",
    params(
        ("job_id" = String, Path, description = "The job id"),
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
    ),
    responses(
        (status = 200, description = "The job", body = Envelope<JobView>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND"),
        (status = 410, description = "JOB_TIMEOUT"),
    ),
    security(("bearer_jwt" = []))
)]
async fn job(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    PathParam(job_id): PathParam,
) -> Result<Json<Envelope<JobView>>, ApiError> {
    Ok(ok(job_view(&app, auth.org, &job_id).await?, Meta::of(&ctx)))
}
