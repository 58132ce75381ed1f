//! Reading a creator now (docs/api.md, "Creators": POST
//! /v1/bloggers/by-username/{username}/refresh): [`refresh_blogger`] for
//! the API key. Any plan; new videos are charged like tracked videos.

use axum::Json;
use axum::extract::State;

use super::lookup::{LookupParams, named_account};
use crate::app::bloggers::{BloggerRefresh, refresh_blogger};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Read a tracked creator from its platform now: its profile (followers,
/// name, avatar) and the videos published since its last visit, up to its
/// daily count, as its daily discovery does, which keeps its schedule. The
/// new videos are tracked and charged 30 credits each (`meta.credits_used`).
/// Once per refresh cooldown (5 minutes by default): asked again within it,
/// or while a read of the creator is under way, answers 429
/// `REFRESH_TOO_SOON` with `Retry-After`. A platform failure charges
/// nothing and does not count as an ask. Any plan; no body.
#[utoipa::path(
    post, path = "/v1/bloggers/by-username/{username}/refresh", tag = "creators",
    operation_id = "refresh_blogger",
    params(
        ("username" = String, Path, description = "The handle; a leading `@` must be sent as `%40`"),
        LookupParams,
    ),
    responses(
        (status = 200, description = "The creator as read now, and what the read tracked", body = Envelope<BloggerRefresh>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "BLOGGER_NOT_TRACKED, or PLATFORM_NOT_FOUND: the platform no longer has the account (nothing written)"),
        (status = 409, description = "CREATOR_PAUSED: resume it first"),
        (status = 429, description = "REFRESH_TOO_SOON, with `Retry-After`"),
        (status = 502, description = "EXTERNAL_API_ERROR: the platform failed; nothing charged"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn refresh(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    PathParam(username): PathParam,
    q: Query<LookupParams>,
) -> Result<Json<Envelope<BloggerRefresh>>, ApiError> {
    let account = named_account(&app, &auth, &username, &q).await?;
    let (data, credits) =
        refresh_blogger(&app, &ctx, auth.org.id, Some(auth.key_id), &account).await?;
    Ok(ok(data, Meta::of(&ctx).with_credits(credits)))
}
