//! Untracking a creator (docs/api.md, "Creators": DELETE
//! /v1/bloggers/by-username/{username}): [`untrack_blogger`]. Any plan;
//! free.

use axum::Json;
use axum::extract::State;

use super::lookup::{LookupParams, named_account};
use crate::app::bloggers::{UntrackedBlogger, untrack_blogger};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Stop tracking a creator for the organization: no more daily discovery,
/// and it leaves the creator listing. The videos it brought in stay
/// tracked, with their history, no longer tied to it. Free; any plan.
#[utoipa::path(
    delete, path = "/v1/bloggers/by-username/{username}", tag = "creators",
    operation_id = "untrack_blogger",
    params(
        ("username" = String, Path, description = "The handle; a leading `@` must be sent as `%40`"),
        LookupParams,
    ),
    responses(
        (status = 200, description = "The creator is no longer tracked", body = Envelope<UntrackedBlogger>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "BLOGGER_NOT_TRACKED"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn untrack(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    PathParam(username): PathParam,
    q: Query<LookupParams>,
) -> Result<Json<Envelope<UntrackedBlogger>>, ApiError> {
    let account = named_account(&app, &auth, &username, &q).await?;
    let data = untrack_blogger(&app, auth.org.id, account).await?;
    Ok(ok(data, Meta::of(&ctx)))
}
