//! The organization's campaigns in the dashboard API: the public API's
//! `/v1/campaigns` (docs/api.md, "Campaigns") under `/dashboard/campaigns`,
//! through the same use cases ([`crate::app::campaigns`]). Any member
//! reads; editors and above write, on a paid plan (the rule of a video's
//! PATCH).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::identity::Role;

use crate::app::campaigns::{
    CampaignView, CampaignsParams, CreateCampaign, Deleted, UpdateCampaign, campaign_id,
    create_campaign, delete_campaign, list_campaigns, read_campaign, update_campaign,
};
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The campaign routes of the dashboard.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, delete))
}

/// A write's checks: an editor or above, on a paid plan.
async fn may_write(app: &AppState, auth: &OrgAuth) -> Result<(), ApiError> {
    auth.require(Role::Editor)?;
    auth.require_paid_plan(app).await
}

/// The organization's campaigns, newest first, with their counts; the
/// page in `meta.pagination`. Any member, every plan.
#[utoipa::path(
    get, path = "/dashboard/campaigns", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization"), CampaignsParams),
    responses(
        (status = 200, description = "A page of campaigns", body = Envelope<Vec<CampaignView>>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    q: Query<CampaignsParams>,
) -> Result<Json<Envelope<Vec<CampaignView>>>, ApiError> {
    let (items, pagination) = list_campaigns(&app, auth.org, q.parse()?).await?;
    Ok(ok(items, Meta::of(&ctx).with_pagination(pagination)))
}

/// Creates a campaign (the body and rules of `POST /v1/campaigns`).
/// Editors and above, paid plans.
#[utoipa::path(
    post, path = "/dashboard/campaigns", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body = CreateCampaign,
    responses(
        (status = 201, description = "The campaign", body = Envelope<CampaignView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 409, description = "CAMPAIGN_EXISTS: the name is taken, in some letter case"),
    ),
    security(("bearer_jwt" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: Result<JsonBody<CreateCampaign>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<CampaignView>>), ApiError> {
    may_write(&app, &auth).await?;
    let created = create_campaign(&app, auth.org, body?.parse()?).await?;
    Ok((StatusCode::CREATED, ok(created, Meta::of(&ctx))))
}

/// One campaign. Any member, every plan.
#[utoipa::path(
    get, path = "/dashboard/campaigns/{campaign_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("campaign_id" = Uuid, Path, description = "The campaign"),
    ),
    responses(
        (status = 200, description = "The campaign", body = Envelope<CampaignView>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn read(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<CampaignView>>, ApiError> {
    let id = campaign_id(path)?;
    Ok(ok(read_campaign(&app, auth.org, id).await?, Meta::of(&ctx)))
}

/// Changes a campaign (the body and rules of `PATCH /v1/campaigns/{id}`).
/// Editors and above, paid plans.
#[utoipa::path(
    patch, path = "/dashboard/campaigns/{campaign_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("campaign_id" = Uuid, Path, description = "The campaign"),
    ),
    request_body = UpdateCampaign,
    responses(
        (status = 200, description = "The campaign", body = Envelope<CampaignView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
        (status = 409, description = "CAMPAIGN_EXISTS"),
    ),
    security(("bearer_jwt" = []))
)]
async fn update(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<UpdateCampaign>, ApiError>,
) -> Result<Json<Envelope<CampaignView>>, ApiError> {
    may_write(&app, &auth).await?;
    let id = campaign_id(path)?;
    let updated = update_campaign(&app, auth.org, id, body?.parse()?).await?;
    Ok(ok(updated, Meta::of(&ctx)))
}

/// Deletes a campaign; its videos stay tracked without a campaign.
/// Editors and above, paid plans.
#[utoipa::path(
    delete, path = "/dashboard/campaigns/{campaign_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("campaign_id" = Uuid, Path, description = "The campaign"),
    ),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Deleted>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn delete(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<Deleted>>, ApiError> {
    may_write(&app, &auth).await?;
    let id = campaign_id(path)?;
    Ok(ok(
        delete_campaign(&app, auth.org, id).await?,
        Meta::of(&ctx),
    ))
}
