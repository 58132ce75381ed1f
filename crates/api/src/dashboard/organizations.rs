//! Organizations of the signed-in user (README, "The dashboard API"):
//! register one, list yours.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::dashboard::identity::UserAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Longest organization name, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// The organization routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(register))
        .routes(routes!(list))
}

/// The new organization.
#[derive(Debug, Serialize, ToSchema)]
pub struct Registered {
    /// Its id.
    pub organization_id: Uuid,
}

/// One organization of the caller.
#[derive(Debug, Serialize, ToSchema)]
pub struct OrganizationItem {
    /// Id.
    pub id: Uuid,
    /// Name.
    pub name: String,
    /// The caller's role: `viewer`, `editor`, `admin` or `owner`.
    pub role: String,
}

/// Body of `POST /organizations/register`.
#[derive(Debug, ToSchema)]
#[allow(dead_code, reason = "documents the body that the handler validates")]
pub struct RegisterRequest {
    /// Required string: the organization's name; trimmed, 1 to 200
    /// characters, no control characters.
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"
    )]
    name: String,
}

/// The `name` of a register body: a string of 1 to 200 characters once trimmed.
fn name_of(body: &Value) -> Result<String, ApiError> {
    let Some(obj) = body.as_object() else {
        return Err(ApiError::validation(
            "body",
            "The body must be a JSON object",
        ));
    };
    match obj.get("name") {
        None | Some(Value::Null) => Err(ApiError::validation("name", "`name` is required")),
        Some(Value::String(s)) => {
            let name = s.trim();
            if name.is_empty() {
                Err(ApiError::validation("name", "`name` must not be empty"))
            } else if name.chars().count() > MAX_NAME_CHARS {
                Err(ApiError::validation(
                    "name",
                    format!("`name` is longer than {MAX_NAME_CHARS} characters"),
                ))
            } else if name.chars().any(char::is_control) {
                Err(ApiError::validation(
                    "name",
                    "`name` must not contain control characters",
                ))
            } else {
                Ok(name.to_owned())
            }
        }
        Some(_) => Err(ApiError::validation("name", "`name` must be a string")),
    }
}

/// Creates an organization on the free plan; the caller becomes its admin.
#[utoipa::path(
    post, path = "/organizations/register", tag = "dashboard",
    request_body(content = RegisterRequest, description = "`{\"name\": \"Acme\"}`"),
    responses(
        (status = 201, description = "Created", body = Envelope<Registered>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
    ),
    security(("bearer_jwt" = []))
)]
async fn register(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: UserAuth,
    JsonBody(body): JsonBody,
) -> Result<(StatusCode, Json<Envelope<Registered>>), ApiError> {
    let name = name_of(&body)?;
    let id = app
        .store
        .register_organization(auth.user.id, &name, app.clock.now())
        .await?;
    Ok((
        StatusCode::CREATED,
        ok(
            Registered {
                organization_id: id.0,
            },
            Meta::of(&ctx),
        ),
    ))
}

/// The organizations the caller belongs to, by name.
#[utoipa::path(
    get, path = "/organizations/list", tag = "dashboard",
    responses(
        (status = 200, description = "The caller's organizations", body = Envelope<Vec<OrganizationItem>>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
    ),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: UserAuth,
) -> Result<Json<Envelope<Vec<OrganizationItem>>>, ApiError> {
    let items = app
        .store
        .memberships(auth.user.id)
        .await?
        .into_iter()
        .map(|m| OrganizationItem {
            id: m.organization_id.0,
            name: m.name,
            role: m.role.as_str().to_owned(),
        })
        .collect();
    Ok(ok(items, Meta::of(&ctx)))
}
