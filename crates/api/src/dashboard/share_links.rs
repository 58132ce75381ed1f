//! A campaign's share links in the dashboard API: the public API's
//! `/v1/campaigns/{id}/share-links` (docs/api.md, "Share links") under
//! `/dashboard/campaigns/{id}/share-links`, through the same use cases
//! ([`crate::app::share_links`]). Any member lists; editors and above make
//! and revoke, on a paid plan (the rule of a campaign's writes).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::identity::Role;

use crate::app::campaigns::campaign_id;
use crate::app::share_links::{
    CreateShareLink, Revoked, ShareLinkView, create_share_link, link_ids, list_share_links,
    revoke_share_link,
};
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The share link routes of the dashboard.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(revoke))
}

/// A write's checks: an editor or above, on a paid plan.
async fn may_write(app: &AppState, auth: &OrgAuth) -> Result<(), ApiError> {
    auth.require(Role::Editor)?;
    auth.require_paid_plan(app).await
}

/// The campaign's share links, newest first, revoked ones included; never
/// their tokens. Any member, every plan.
#[utoipa::path(
    get, path = "/dashboard/campaigns/{campaign_id}/share-links", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("campaign_id" = Uuid, Path, description = "The campaign"),
    ),
    responses(
        (status = 200, description = "The links", body = Envelope<Vec<ShareLinkView>>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<Vec<ShareLinkView>>>, ApiError> {
    let id = campaign_id(path)?;
    let links = list_share_links(&app, auth.org, id).await?;
    Ok(ok(links, Meta::of(&ctx)))
}

/// Makes a share link (the body and rules of
/// `POST /v1/campaigns/{id}/share-links`; the token is shown this once).
/// Editors and above, paid plans.
#[utoipa::path(
    post, path = "/dashboard/campaigns/{campaign_id}/share-links", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("campaign_id" = Uuid, Path, description = "The campaign"),
    ),
    request_body = CreateShareLink,
    responses(
        (status = 201, description = "The link, with its `url` and `token`", body = Envelope<ShareLinkView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<CreateShareLink>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<ShareLinkView>>), ApiError> {
    may_write(&app, &auth).await?;
    let id = campaign_id(path)?;
    let made = create_share_link(&app, auth.org, id, body?.parse()?, Some(auth.user.id)).await?;
    Ok((StatusCode::CREATED, ok(made, Meta::of(&ctx))))
}

/// Revokes a share link at once (it stays listed, with `revoked_at`).
/// Editors and above, paid plans.
#[utoipa::path(
    delete, path = "/dashboard/campaigns/{campaign_id}/share-links/{link_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("campaign_id" = Uuid, Path, description = "The campaign"),
        ("link_id" = Uuid, Path, description = "The link"),
    ),
    responses(
        (status = 200, description = "Revoked", body = Envelope<Revoked>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn revoke(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    Path((campaign, link)): Path<(String, String)>,
) -> Result<Json<Envelope<Revoked>>, ApiError> {
    may_write(&app, &auth).await?;
    let (campaign, link) = link_ids(&campaign, &link)?;
    let revoked = revoke_share_link(&app, auth.org, campaign, link).await?;
    Ok(ok(revoked, Meta::of(&ctx)))
}
