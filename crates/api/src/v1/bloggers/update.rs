//! Changing a tracked creator's settings (docs/api.md, "Creators": PATCH
//! /v1/bloggers/by-username/{username}): [`update_blogger`], with the
//! dashboard's rules. Any plan, as in the dashboard; free.

use axum::Json;
use axum::extract::State;

use super::lookup::{BloggerData, LookupParams, named_account};
use crate::app::bloggers::{BloggerPatch, account_now, blogger_view, update_blogger};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Change a tracked creator: pause or resume it, and the campaign, tags,
/// daily count and budget its videos get. Only the fields sent change, all
/// in one transaction. Answers the creator as the lookup shows it. Free;
/// any plan.
#[utoipa::path(
    patch, path = "/v1/bloggers/by-username/{username}", tag = "creators",
    operation_id = "patch_blogger",
    params(
        ("username" = String, Path, description = "The handle; a leading `@` must be sent as `%40`"),
        LookupParams,
    ),
    request_body(content = BloggerPatch, description = "`{\"is_active\": false, \"campaign\": \"Summer\", \"tags\": [\"fitness\"], \"daily_videos_count\": 3, \"budget_per_video\": 500}`: at least one field"),
    responses(
        (status = 200, description = "The creator, changed", body = Envelope<BloggerData>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "BLOGGER_NOT_TRACKED"),
        (status = 422, description = "TRACKED_CREATORS_LIMIT: resuming would pass the creator cap"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn update(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    PathParam(username): PathParam,
    q: Query<LookupParams>,
    body: JsonBody<BloggerPatch>,
) -> Result<Json<Envelope<BloggerData>>, ApiError> {
    let patch = body.parse()?;
    let account = named_account(&app, &auth, &username, &q).await?;
    update_blogger(&app, auth.org.id, &account, patch).await?;
    let account = account_now(
        &app,
        auth.org.id,
        account.tracked_account_id,
        &account.username,
    )
    .await?;
    let blogger = blogger_view(&app, auth.org.id, account).await?;
    Ok(ok(BloggerData { blogger }, Meta::of(&ctx)))
}
