//! Campaign endpoints (docs/api.md, "Campaigns"): create, list, read,
//! change and delete an organization's campaigns. Writes are paid
//! operations (402 `PAID_PLAN_REQUIRED` on the free plan, like a video's
//! PATCH); reads answer on every plan, as a video record shows its
//! `campaign` on every plan. No credits. The dashboard API offers the same
//! under `/dashboard/campaigns`, through the same use cases
//! ([`crate::app::campaigns`]).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::campaigns::{
    CampaignView, CampaignsParams, CreateCampaign, Deleted, UpdateCampaign, campaign_id,
    create_campaign, delete_campaign, list_campaigns, read_campaign, update_campaign,
};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The campaign routes of the public API.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, delete))
}

/// The organization's campaigns, newest first, with their counts of
/// videos and creators; the page in `meta.pagination`. Every plan.
#[utoipa::path(
    get, path = "/v1/campaigns", tag = "campaigns",
    params(CampaignsParams),
    responses(
        (status = 200, description = "A page of campaigns", body = Envelope<Vec<CampaignView>>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
    ),
    security(("api_key" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    q: Query<CampaignsParams>,
) -> Result<Json<Envelope<Vec<CampaignView>>>, ApiError> {
    let (items, pagination) = list_campaigns(&app, auth.org.id, q.parse()?).await?;
    Ok(ok(items, Meta::of(&ctx).with_pagination(pagination)))
}

/// Create a campaign. `name` is required and unique in the organization in
/// any letter case; `currency` defaults to the organization's. Requires a
/// paid plan.
#[utoipa::path(
    post, path = "/v1/campaigns", tag = "campaigns",
    request_body = CreateCampaign,
    responses(
        (status = 201, description = "The campaign", body = Envelope<CampaignView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 409, description = "CAMPAIGN_EXISTS: the name is taken, in some letter case"),
    ),
    security(("api_key" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    body: Result<JsonBody<CreateCampaign>, ApiError>,
) -> Result<(StatusCode, Json<Envelope<CampaignView>>), ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let created = create_campaign(&app, auth.org.id, body?.parse()?).await?;
    Ok((StatusCode::CREATED, ok(created, Meta::of(&ctx))))
}

/// One campaign. Every plan.
#[utoipa::path(
    get, path = "/v1/campaigns/{campaign_id}", tag = "campaigns",
    params(("campaign_id" = Uuid, Path, description = "The campaign")),
    responses(
        (status = 200, description = "The campaign", body = Envelope<CampaignView>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND (also another organization's campaign, or an id that is not a UUID)"),
    ),
    security(("api_key" = []))
)]
async fn read(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<CampaignView>>, ApiError> {
    let id = campaign_id(path)?;
    Ok(ok(
        read_campaign(&app, auth.org.id, id).await?,
        Meta::of(&ctx),
    ))
}

/// Change a campaign: any field of a creation, and `archived`; `null`
/// clears an optional field. A new name moves the campaign's videos,
/// creators and analytics to it. Requires a paid plan.
#[utoipa::path(
    patch, path = "/v1/campaigns/{campaign_id}", tag = "campaigns",
    params(("campaign_id" = Uuid, Path, description = "The campaign")),
    request_body = UpdateCampaign,
    responses(
        (status = 200, description = "The campaign", body = Envelope<CampaignView>),
        (status = 400, description = "VALIDATION_ERROR with `field` (also an unknown field)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND"),
        (status = 409, description = "CAMPAIGN_EXISTS: another campaign has the new name, in some letter case"),
    ),
    security(("api_key" = []))
)]
async fn update(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
    body: Result<JsonBody<UpdateCampaign>, ApiError>,
) -> Result<Json<Envelope<CampaignView>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let id = campaign_id(path)?;
    let updated = update_campaign(&app, auth.org.id, id, body?.parse()?).await?;
    Ok(ok(updated, Meta::of(&ctx)))
}

/// Delete a campaign. Its videos stay tracked with their campaign cleared
/// (their analytics move to "no campaign"); creators that carried it lose
/// it too. Requires a paid plan.
#[utoipa::path(
    delete, path = "/v1/campaigns/{campaign_id}", tag = "campaigns",
    params(("campaign_id" = Uuid, Path, description = "The campaign")),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Deleted>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("api_key" = []))
)]
async fn delete(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<Deleted>>, ApiError> {
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let id = campaign_id(path)?;
    Ok(ok(
        delete_campaign(&app, auth.org.id, id).await?,
        Meta::of(&ctx),
    ))
}
