//! The listing (docs/api.md: GET /v1/videos/stats, "Pagination": nothing is
//! silently clamped): [`list_page_answer`] answers it. Its errors are
//! `INVALID_PARAMETER` in the flat envelope.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::app::videos::{ListParams, VideoPage, list_page_answer, refused_query};
use crate::auth::ApiKeyAuth;
use crate::envelope::Envelope;
use crate::error::ApiError;
use crate::extract::Query;
use crate::middleware::RequestContext;
use crate::record_cache::gzip::accepts_gzip;
use crate::state::AppState;

/// List the organization's tracked videos with their latest statistics.
///
/// Errors use the flat envelope: `{"success": false, "error": "...", "code": "..."}`.
#[utoipa::path(
    get, path = "/v1/videos/stats", tag = "videos",
    params(ListParams),
    responses(
        (status = 200, description = "A page of videos", body = Envelope<VideoPage>),
        (status = 400, description = "INVALID_PARAMETER (flat), also for a parameter the listing does not know"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY (flat)"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn list_stats(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    headers: HeaderMap,
    q: Result<Query<ListParams>, ApiError>,
) -> Result<Response, ApiError> {
    // The listing's parameter errors are `INVALID_PARAMETER`, a NUL one too.
    let q = q.map_err(refused_query)?;
    list_page_answer(&app, &ctx, auth.org.id, &q, accepts_gzip(&headers)).await
}
