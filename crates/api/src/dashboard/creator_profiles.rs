//! Creator profiles (docs/glossary.md, "Creator profile"): one
//! person's tracked accounts on several platforms, grouped. `merge` makes a
//! new profile of one or more bloggers, `add-to-creator` adds a blogger to an
//! existing one; a blogger belongs to one profile at most, so either moves
//! it, and a profile left empty goes. Bloggers are named by `blogger_id`
//! (the creator, as `/blogger/list` shows it). Editors and above.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::identity::Role;
use vidpulse_store::{CreatorGroup, GroupInto, Grouped};

use crate::app::rfc3339;
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::input::{Fault, Id, Ids, Refusals, Trimmed, bad_id, bad_ids, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Most bloggers one merge takes.
pub const MAX_MERGE: usize = 50;
/// Longest profile name, in characters.
pub const PROFILE_NAME_MAX_CHARS: usize = 100;

/// The creator-profile routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(merge))
        .routes(routes!(add_to_creator))
}

/// A creator profile and its bloggers.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatorProfileView {
    /// The profile (`creator_id`).
    pub creator_id: Uuid,
    /// Its name.
    pub name: String,
    /// Its bloggers (`blogger_id`), sorted.
    pub blogger_ids: Vec<Uuid>,
    /// When it was created.
    pub created_at: String,
}

impl From<CreatorGroup> for CreatorProfileView {
    fn from(g: CreatorGroup) -> Self {
        Self {
            creator_id: g.id,
            name: g.name,
            blogger_ids: g.blogger_ids,
            created_at: rfc3339(g.created_at),
        }
    }
}

/// Body of `POST /blogger/merge`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct MergeRequest {
    /// Required array of 1 to 50 ids of tracked bloggers (`blogger_id` of
    /// `GET /blogger/list`); repeats are dropped.
    #[schema(value_type = Vec<Uuid>, min_items = 1, max_items = 50)]
    blogger_ids: Ids<1, MAX_MERGE>,
    /// Optional string or `null` (the default: the first blogger's channel
    /// name): the profile's name; trimmed, 1 to 100 characters.
    #[schema(value_type = Option<String>, min_length = 1, max_length = 100)]
    name: Option<Trimmed<1, PROFILE_NAME_MAX_CHARS>>,
}

impl Refusals for MergeRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "blogger_ids" => bad_ids::<1, MAX_MERGE>("blogger_ids"),
            "name" => ApiError::validation(
                "name",
                format!("`name` must be a string of 1 to {PROFILE_NAME_MAX_CHARS} characters"),
            ),
            _ => not_an_object(),
        }
    }
}

/// Body of `POST /blogger/add-to-creator`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AddToCreatorRequest {
    /// Required UUID: the creator profile (`creator_id`).
    #[schema(value_type = Uuid)]
    creator_id: Id,
    /// Required UUID: the tracked blogger to add (`blogger_id` of `GET
    /// /blogger/list`).
    #[schema(value_type = Uuid)]
    blogger_id: Id,
}

impl Refusals for AddToCreatorRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "creator_id" | "blogger_id" => bad_id(fault),
            _ => not_an_object(),
        }
    }
}

fn answer(grouped: Grouped) -> Result<CreatorProfileView, ApiError> {
    match grouped {
        Grouped::Done(group) => Ok(group.into()),
        Grouped::UnknownProfile => {
            Err(ApiError::not_found("No such creator profile").with_field("creator_id"))
        }
        Grouped::UnknownBloggers(ids) => Err(ApiError::not_found(
            "The organization tracks no such blogger",
        )
        .with_details(serde_json::json!({ "unknown_blogger_ids": ids }))),
    }
}

/// Creates a creator profile of one or more tracked bloggers (moved out of
/// the profiles they were in). Editors and above.
#[utoipa::path(
    post, path = "/blogger/merge", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = MergeRequest, description = "`{\"blogger_ids\": [\"<uuid>\", \"<uuid>\"], \"name\": \"Ana\"}`: `name` defaults to the first blogger's channel name"),
    responses(
        (status = 201, description = "Created", body = Envelope<CreatorProfileView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND with `unknown_blogger_ids`"),
    ),
    security(("bearer_jwt" = []))
)]
async fn merge(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<MergeRequest>,
) -> Result<(StatusCode, Json<Envelope<CreatorProfileView>>), ApiError> {
    auth.require(Role::Editor)?;
    let MergeRequest {
        blogger_ids: Ids(ids),
        name,
    } = body.parse()?;
    let name = name.as_ref().map(|Trimmed(n)| n.as_str());
    let grouped = app
        .store
        .group_bloggers(auth.org, GroupInto::New(name), &ids, app.clock.now())
        .await?;
    Ok((StatusCode::CREATED, ok(answer(grouped)?, Meta::of(&ctx))))
}

/// Adds a tracked blogger to an existing creator profile. Editors and above.
#[utoipa::path(
    post, path = "/blogger/add-to-creator", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = AddToCreatorRequest, description = "`{\"creator_id\": \"<uuid>\", \"blogger_id\": \"<uuid>\"}`"),
    responses(
        (status = 200, description = "Done", body = Envelope<CreatorProfileView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: no such profile (`field: creator_id`) or blogger (`unknown_blogger_ids`)"),
    ),
    security(("bearer_jwt" = []))
)]
async fn add_to_creator(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<AddToCreatorRequest>,
) -> Result<Json<Envelope<CreatorProfileView>>, ApiError> {
    auth.require(Role::Editor)?;
    let AddToCreatorRequest {
        creator_id: Id(profile),
        blogger_id: Id(blogger),
    } = body.parse()?;
    let grouped = app
        .store
        .group_bloggers(
            auth.org,
            GroupInto::Existing(profile),
            &[blogger],
            app.clock.now(),
        )
        .await?;
    Ok(ok(answer(grouped)?, Meta::of(&ctx)))
}
