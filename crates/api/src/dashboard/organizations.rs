//! Organizations of the signed-in user (README, "The dashboard API"):
//! register one, list yours.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::dashboard::identity::UserAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::input::{Fault, Refusals, not_an_object};
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
#[derive(Debug, Deserialize, ToSchema)]
pub struct RegisterRequest {
    /// Required string: the organization's name; trimmed, 1 to 200
    /// characters, no control characters.
    #[schema(
        value_type = String,
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"
    )]
    name: OrgName,
}

impl RegisterRequest {
    /// The name, checked: trimmed, 1 to [`MAX_NAME_CHARS`] characters, no
    /// control characters.
    pub(crate) fn into_name(self) -> String {
        self.name.0
    }
}

/// An organization's name, trimmed: 1 to [`MAX_NAME_CHARS`] characters,
/// none of them a control character.
#[derive(Debug)]
struct OrgName(String);

impl OrgName {
    /// The name, or what is wrong with it.
    fn parse(raw: &str) -> Result<Self, String> {
        let name = raw.trim();
        if name.is_empty() {
            Err("`name` must not be empty".to_owned())
        } else if name.chars().count() > MAX_NAME_CHARS {
            Err(format!("`name` is longer than {MAX_NAME_CHARS} characters"))
        } else if name.chars().any(char::is_control) {
            Err("`name` must not contain control characters".to_owned())
        } else {
            Ok(Self(name.to_owned()))
        }
    }
}

impl<'de> Deserialize<'de> for OrgName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        OrgName::parse(&raw).map_err(de::Error::custom)
    }
}

impl Refusals for RegisterRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        if fault.field() != "name" {
            return not_an_object();
        }
        let message = match fault.sent() {
            None | Some(Value::Null) => "`name` is required".to_owned(),
            Some(Value::String(raw)) => OrgName::parse(raw)
                .err()
                // serde refused it, so the rules do: not reached.
                .unwrap_or_else(|| "`name` must be a string".to_owned()),
            Some(_) => "`name` must be a string".to_owned(),
        };
        ApiError::validation("name", message)
    }
}

/// Creates an organization on the operator's default plan (free unless
/// `VIDPULSE_DEFAULT_PLAN` says otherwise); the caller becomes its admin.
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
    body: JsonBody<RegisterRequest>,
) -> Result<(StatusCode, Json<Envelope<Registered>>), ApiError> {
    let OrgName(name) = body.parse()?.name;
    let id = app
        .store
        .register_organization_on(
            auth.user.id,
            &name,
            app.config.default_plan,
            app.clock.now(),
        )
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
