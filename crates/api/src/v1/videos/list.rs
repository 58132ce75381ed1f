//! The listing (spec: public-api-v1.md, GET /v1/videos/stats; SEMANTICS.md,
//! "Listing, plans and limits": nothing is silently clamped). Its errors
//! are `INVALID_PARAMETER` in the flat envelope.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use vidpulse_domain::Platform;
use vidpulse_store::{ListQuery, SortKey, SortOrder, VideoState};

use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::videos::VideoView;

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

/// Parses the listing's query (spec: GET /v1/videos/stats; SEMANTICS.md,
/// "Listing, plans and limits": nothing is silently clamped).
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
pub(super) async fn list_stats(
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
