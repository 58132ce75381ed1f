//! Share link endpoints (docs/api.md, "Share links"): a campaign's
//! read-only links for clients, made, listed and revoked. Making and
//! revoking are paid operations (402 `PAID_PLAN_REQUIRED` on the free
//! plan, like every campaign write); the list answers on every plan. No
//! credits. The dashboard offers the same under
//! `/dashboard/campaigns/{id}/share-links`, through the same use cases
//! ([`crate::app::share_links`]).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::campaigns::campaign_id;
use crate::app::share_links::{
    CreateShareLink, Revoked, ShareLinkView, create_share_link, link_ids, list_share_links,
    revoke_share_link,
};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The share link routes of the public API.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(revoke))
}

/// The campaign's share links, newest first, revoked ones included (with
/// `revoked_at`); never their tokens. Every plan.
#[utoipa::path(
    get, path = "/v1/campaigns/{campaign_id}/share-links", tag = "campaigns",
    params(("campaign_id" = Uuid, Path, description = "The campaign")),
    responses(
        (status = 200, description = "The links", body = Envelope<Vec<ShareLinkView>>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND: no such campaign in the organization"),
    ),
    security(("api_key" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<Vec<ShareLinkView>>>, ApiError> {
    let id = campaign_id(path)?;
    let links = list_share_links(&app, auth.org.id, id).await?;
    Ok(ok(links, Meta::of(&ctx)))
}

/// Make a read-only link to the campaign's report for a client. The answer
/// carries `url` and `token`, shown this once (only a hash is kept).
/// Requires a paid plan.
#[utoipa::path(
    post, path = "/v1/campaigns/{campaign_id}/share-links", tag = "campaigns",
    params(("campaign_id" = Uuid, Path, description = "The campaign")),
    request_body = CreateShareLink,
    responses(
        (status = 201, description = "The link, with its `url` and `token`", body = Envelope<ShareLinkView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND: no such campaign in the organization"),
    ),
    security(("api_key" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<CreateShareLink>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<ShareLinkView>>), ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let id = campaign_id(path)?;
    let made = create_share_link(&app, auth.org.id, id, body?.parse()?, None).await?;
    Ok((StatusCode::CREATED, ok(made, Meta::of(&ctx))))
}

/// Revoke a share link: its page and data answer 404 from now on. The link
/// stays listed, with `revoked_at`. Requires a paid plan.
#[utoipa::path(
    delete, path = "/v1/campaigns/{campaign_id}/share-links/{link_id}", tag = "campaigns",
    params(
        ("campaign_id" = Uuid, Path, description = "The campaign"),
        ("link_id" = Uuid, Path, description = "The link"),
    ),
    responses(
        (status = 200, description = "Revoked", body = Envelope<Revoked>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn revoke(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    Path((campaign, link)): Path<(String, String)>,
) -> Result<Json<Envelope<Revoked>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let (campaign, link) = link_ids(&campaign, &link)?;
    let revoked = revoke_share_link(&app, auth.org.id, campaign, link).await?;
    Ok(ok(revoked, Meta::of(&ctx)))
}
