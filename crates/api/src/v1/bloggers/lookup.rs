//! Looking up a tracked creator (docs/api.md:
//! GET /v1/bloggers/by-username/{username}): [`tracked_or_404`] and
//! [`blogger_view`]; the path and query every creator endpoint of that path
//! names its creator by ([`named_account`]).

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use vidpulse_domain::names::Handle;
use vidpulse_store::TrackedAccount;

use crate::app::bloggers::{
    BloggerView, PlatformId, bad_platform, blogger_view, refused_username, tracked_or_404,
};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::input::{Fault, Refusals, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// `data` of a creator lookup.
#[derive(Debug, Serialize, ToSchema)]
pub struct BloggerData {
    /// The creator.
    pub blogger: BloggerView,
}

/// The lookup's query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LookupParams {
    /// tiktok, instagram or youtube; omitted: any platform
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    platform: Option<PlatformId>,
}

impl Refusals for LookupParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        bad_platform("platform", fault.sent())
    }
}

/// Look up a creator the organization tracks. Free; never calls a platform.
#[utoipa::path(
    get, path = "/v1/bloggers/by-username/{username}", tag = "creators",
    params(
        ("username" = String, Path, description = "The handle; a leading `@` must be sent as `%40`"),
        LookupParams,
    ),
    responses(
        (status = 200, description = "The creator", body = Envelope<BloggerData>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "BLOGGER_NOT_TRACKED"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn by_username(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    PathParam(username): PathParam,
    q: Query<LookupParams>,
) -> Result<Json<Envelope<BloggerData>>, ApiError> {
    let account = named_account(&app, &auth, &username, &q).await?;
    let blogger = blogger_view(&app, auth.org.id, account).await?;
    Ok(ok(BloggerData { blogger }, Meta::of(&ctx)))
}

/// The caller's tracked account that the path's `username` and the query's
/// `platform` name, as the lookup finds it (the lookup, its PATCH, DELETE
/// and refresh): 400 for a malformed one, 404 `BLOGGER_NOT_TRACKED` when
/// the organization tracks none.
pub(super) async fn named_account(
    app: &AppState,
    auth: &ApiKeyAuth,
    username: &str,
    q: &Query<LookupParams>,
) -> Result<TrackedAccount, ApiError> {
    let username = Handle::parse(username).map_err(|fault| refused_username("username", fault))?;
    let platform = q.parse()?.platform.map(|PlatformId(p)| p);
    tracked_or_404(app, auth.org.id, platform, &username).await
}
