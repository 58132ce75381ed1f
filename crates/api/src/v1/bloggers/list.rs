//! Listing the organization's tracked creators (docs/api.md:
//! GET /v1/bloggers): [`tracked_page`].

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use vidpulse_store::AccountQuery;

use crate::app::bloggers::{BloggerView, PlatformId, bad_platform, tracked_page};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, Pagination, ok};
use crate::error::ApiError;
use crate::extract::Query;
use crate::input::{Bounded, Fault, Refusals, text, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Largest page.
pub const MAX_LIMIT: i64 = 100;
/// The page size when `limit` is omitted.
pub const DEFAULT_LIMIT: i64 = 50;

/// The listing's query; any other parameter is refused.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListBloggersParams {
    /// Creators per page, 1 to 100 (default 50)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 50)]
    limit: Option<Bounded<1, MAX_LIMIT>>,
    /// Creators skipped before the page, 0 or more (default 0)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>, minimum = 0, default = 0)]
    offset: Option<Bounded<0, { i64::MAX }>>,
    /// Only creators on this platform: tiktok, instagram or youtube, any case
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    platform: Option<PlatformId>,
    /// Only creators tracked now (`true`) or paused (`false`)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<bool>)]
    active: Option<bool>,
}

impl Refusals for ListBloggersParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let field = fault.field();
        let message = match field {
            "limit" => format!("`limit` must be a whole number from 1 to {MAX_LIMIT}"),
            "offset" => "`offset` must be a whole number of 0 or more".to_owned(),
            "platform" => return bad_platform("platform", fault.sent()),
            "active" => "`active` must be true or false".to_owned(),
            unknown => format!(
                "Unknown query parameter `{unknown}`; known: limit, offset, platform, active"
            ),
        };
        ApiError::validation(field, message)
    }
}

/// The organization's tracked creators, most recently tracked first. Free;
/// never calls a platform.
#[utoipa::path(
    get, path = "/v1/bloggers", tag = "creators",
    params(ListBloggersParams),
    responses(
        (status = 200, description = "A page of creators; `meta.pagination` says where it lies", body = Envelope<Vec<BloggerView>>),
        (status = 400, description = "VALIDATION_ERROR naming the `field` (an unknown parameter is named too)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    q: Query<ListBloggersParams>,
) -> Result<Json<Envelope<Vec<BloggerView>>>, ApiError> {
    let ListBloggersParams {
        limit,
        offset,
        platform,
        active,
    } = q.parse()?;
    let query = AccountQuery {
        platform: platform.map(|PlatformId(p)| p),
        active,
        limit: limit.map_or(DEFAULT_LIMIT, |Bounded(n)| n),
        offset: offset.map_or(0, |Bounded(n)| n),
    };
    let (items, total) = tracked_page(&app, auth.org.id, &query).await?;
    let pagination = Pagination::of(total, query.limit, query.offset);
    Ok(ok(items, Meta::of(&ctx).with_pagination(pagination)))
}
