//! The organization's tags in the dashboard: listing and creating them
//! (an addition of ours: `tag_ids` need a source), and `POST /blogger/set-tags`,
//! which replaces a blogger's tags on it and on its videos. The same tags
//! the public API's `PATCH` attaches to videos by name.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::identity::Role;
use vidpulse_store::{SetTags, Tag};

use crate::app::rfc3339;
use crate::dashboard::access::OrgAuth;
use crate::dashboard::blogger_add::{MAX_TAGS, unknown_tags};
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::input::{Fault, Id, Ids, Refusals, Trimmed, bad_id, bad_ids, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Longest tag name, in characters (as the public API's PATCH `tags`).
pub const TAG_NAME_MAX_CHARS: usize = 80;

/// The tag routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(set_tags))
}

/// One of the organization's tags.
#[derive(Debug, Serialize, ToSchema)]
pub struct TagView {
    /// Its id (for `tag_ids`).
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// When it was created.
    pub created_at: String,
}

impl From<Tag> for TagView {
    fn from(t: Tag) -> Self {
        Self {
            id: t.id,
            name: t.name,
            created_at: rfc3339(t.created_at),
        }
    }
}

/// A blogger's tags after `set-tags`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BloggerTags {
    /// The blogger's tracking.
    pub tracking_id: Uuid,
    /// Its tags now, by name.
    pub tags: Vec<TagView>,
}

/// Body of `POST /tags`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateTagRequest {
    /// Required string: the tag's name; trimmed, 1 to 80 characters.
    #[schema(value_type = String, min_length = 1, max_length = 80)]
    name: Trimmed<1, TAG_NAME_MAX_CHARS>,
}

impl Refusals for CreateTagRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let message = match fault.sent_in("name") {
            Some(Value::String(_)) => {
                format!("`name` must be 1 to {TAG_NAME_MAX_CHARS} characters")
            }
            _ => "`name` must be a string".to_owned(),
        };
        ApiError::validation("name", message)
    }
}

/// Body of `POST /blogger/set-tags`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SetTagsRequest {
    /// Required UUID: the organization's tracking of the creator.
    #[schema(value_type = Uuid)]
    tracking_id: Id,
    /// Required array of 0 to 50 ids of the organization's tags (`GET
    /// /tags`): the blogger's tags from now on (`[]` clears them); repeats
    /// are dropped.
    #[schema(value_type = Vec<Uuid>, max_items = 50)]
    tag_ids: Ids<0, MAX_TAGS>,
}

impl Refusals for SetTagsRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "tracking_id" => bad_id(fault),
            "tag_ids" => bad_ids::<0, MAX_TAGS>("tag_ids"),
            _ => not_an_object(),
        }
    }
}

/// The organization's tags, by name. Any member.
#[utoipa::path(
    get, path = "/tags", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses((status = 200, description = "Tags", body = Envelope<Vec<TagView>>)),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<Vec<TagView>>>, ApiError> {
    let tags = app.store.tags(auth.org).await?;
    Ok(ok(
        tags.into_iter().map(TagView::from).collect(),
        Meta::of(&ctx),
    ))
}

/// Creates a tag (201), or answers the one of that name in any case (200).
/// Editors and above.
#[utoipa::path(
    post, path = "/tags", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = CreateTagRequest, description = "`{\"name\": \"Fitness\"}`"),
    responses(
        (status = 201, description = "Created", body = Envelope<TagView>),
        (status = 200, description = "A tag of that name exists", body = Envelope<TagView>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
    ),
    security(("bearer_jwt" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<CreateTagRequest>,
) -> Result<(StatusCode, Json<Envelope<TagView>>), ApiError> {
    auth.require(Role::Editor)?;
    let Trimmed(name) = body.parse()?.name;
    let (tag, created) = app
        .store
        .create_tag(auth.org, &name, app.clock.now())
        .await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, ok(TagView::from(tag), Meta::of(&ctx))))
}

/// Replaces all tags of a blogger (`[]` clears them); its videos lose the
/// tags taken off and get the ones put on, and its future videos get them
/// too. Editors and above.
#[utoipa::path(
    post, path = "/blogger/set-tags", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = SetTagsRequest, description = "`{\"tracking_id\": \"<uuid>\", \"tag_ids\": [\"<uuid>\"]}`: up to 50 ids of the organization's tags"),
    responses(
        (status = 200, description = "Done", body = Envelope<BloggerTags>),
        (status = 400, description = "VALIDATION_ERROR with `field` (unknown tags: `unknown_tag_ids`)"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn set_tags(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<SetTagsRequest>,
) -> Result<Json<Envelope<BloggerTags>>, ApiError> {
    auth.require(Role::Editor)?;
    let SetTagsRequest {
        tracking_id: Id(tracking_id),
        tag_ids: Ids(tag_ids),
    } = body.parse()?;
    match app
        .store
        .set_blogger_tags(auth.org, tracking_id, &tag_ids)
        .await?
    {
        SetTags::Done(tags) => Ok(ok(
            BloggerTags {
                tracking_id,
                tags: tags.into_iter().map(TagView::from).collect(),
            },
            Meta::of(&ctx),
        )),
        SetTags::UnknownBlogger => Err(ApiError::not_found("No such tracked blogger")),
        SetTags::UnknownTags(ids) => Err(unknown_tags(&ids)),
    }
}
