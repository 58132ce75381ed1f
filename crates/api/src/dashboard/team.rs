//! The team of an organization (docs/api.md, "Dashboard rules"):
//! members and their removal. Invitations come later.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::UserId;
use vidpulse_domain::identity::Role;
use vidpulse_store::MemberChange;

use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::JsonBody;
use crate::input::{Fault, Id, Refusals, bad_id, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The team routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(members))
        .routes(routes!(remove))
        .routes(routes!(set_role))
}

/// A member.
#[derive(Debug, Serialize, ToSchema)]
pub struct MemberItem {
    /// The user's id.
    pub id: Uuid,
    /// E-mail address.
    pub email: String,
    /// Their role: `viewer`, `editor`, `admin` or `owner`.
    pub role: String,
}

/// A confirmation.
#[derive(Debug, Serialize, ToSchema)]
pub struct Message {
    /// What happened.
    pub message: String,
}

/// Body of `POST /organizations/team/members/remove`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RemoveMemberRequest {
    /// Required UUID: the member's user id (`id` of the members list); not
    /// the caller's own.
    #[schema(value_type = Uuid)]
    user_id: Id,
}

impl Refusals for RemoveMemberRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "user_id" => bad_id(fault),
            _ => not_an_object(),
        }
    }
}

/// Body of `POST /organizations/team/members/role`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SetRoleRequest {
    /// Required UUID: the member's user id (`id` of the members list).
    #[schema(value_type = Uuid)]
    user_id: Id,
    /// `viewer`, `editor`, `admin` or `owner`.
    #[schema(value_type = String)]
    role: AnyRole,
}

/// A role by its name.
#[derive(Debug, Clone, Copy)]
struct AnyRole(Role);

impl<'de> Deserialize<'de> for AnyRole {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Role::parse(name.trim())
            .map(AnyRole)
            .ok_or_else(|| serde::de::Error::custom("unknown role"))
    }
}

impl Refusals for SetRoleRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "user_id" => bad_id(fault),
            "role" => ApiError::validation("role", "`role` must be viewer, editor, admin or owner"),
            _ => not_an_object(),
        }
    }
}

/// The organization's members, by e-mail address. Any member.
#[utoipa::path(
    get, path = "/organizations/team/members", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "Members", body = Envelope<Vec<MemberItem>>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn members(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<Vec<MemberItem>>>, ApiError> {
    let items = app
        .store
        .members(auth.org)
        .await?
        .into_iter()
        .map(|m| MemberItem {
            id: m.user_id.0,
            email: m.email,
            role: m.role.as_str().to_owned(),
        })
        .collect();
    Ok(ok(items, Meta::of(&ctx)))
}

/// Removes a member. Admins and owners; not yourself, not the last admin,
/// and only an owner removes an owner.
#[utoipa::path(
    post, path = "/organizations/team/members/remove", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = RemoveMemberRequest, description = "`{\"user_id\": \"<uuid>\"}`"),
    responses(
        (status = 200, description = "Removed", body = Envelope<Message>),
        (status = 400, description = "VALIDATION_ERROR: bad `user_id`, or yourself"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: no such member"),
        (status = 409, description = "LAST_ADMIN, or LAST_OWNER: the organization's only owner"),
    ),
    security(("bearer_jwt" = []))
)]
async fn remove(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<RemoveMemberRequest>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    auth.require(Role::Admin)?;
    let Id(target) = body.parse()?.user_id;
    let target = UserId(target);
    if target == auth.user.id {
        return Err(ApiError::validation(
            "user_id",
            "You cannot remove yourself",
        ));
    }
    // The policy (domain::identity::removal) is checked by the store in the
    // transaction that removes.
    match app.store.remove_member(auth.org, auth.role, target).await? {
        MemberChange::Done => Ok(ok(
            Message {
                message: "Member removed".into(),
            },
            Meta::of(&ctx),
        )),
        MemberChange::NotMember => Err(ApiError::not_found("No such member")),
        MemberChange::NeedsRole(needed) => Err(auth.lacks(needed)),
        MemberChange::LastAdmin => Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::LastAdmin,
            "The last admin of an organization cannot be removed",
        )),
        MemberChange::LastOwner => Err(last_owner()),
    }
}

/// Gives a member another role. Admins and owners; only an owner makes or
/// unmakes an owner, the last admin stays admin and the only owner owner.
#[utoipa::path(
    post, path = "/organizations/team/members/role", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = SetRoleRequest, description = "`{\"user_id\": \"<uuid>\", \"role\": \"editor\"}`"),
    responses(
        (status = 200, description = "Changed", body = Envelope<Message>),
        (status = 400, description = "VALIDATION_ERROR: bad `user_id` or `role`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: no such member"),
        (status = 409, description = "LAST_ADMIN, or LAST_OWNER: the organization's only owner stays owner"),
    ),
    security(("bearer_jwt" = []))
)]
async fn set_role(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<SetRoleRequest>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    auth.require(Role::Admin)?;
    let SetRoleRequest {
        user_id: Id(target),
        role: AnyRole(role),
    } = body.parse()?;
    match app
        .store
        .set_member_role(auth.org, auth.role, UserId(target), role)
        .await?
    {
        MemberChange::Done => Ok(ok(
            Message {
                message: format!("Role set to {}", role.as_str()),
            },
            Meta::of(&ctx),
        )),
        MemberChange::NotMember => Err(ApiError::not_found("No such member")),
        MemberChange::NeedsRole(needed) => Err(auth.lacks(needed)),
        MemberChange::LastAdmin => Err(last_admin()),
        MemberChange::LastOwner => Err(last_owner()),
    }
}

fn last_admin() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        ErrorCode::LastAdmin,
        "The last admin of an organization keeps the admin role",
    )
}

/// An organization always keeps an owner (once it has one).
fn last_owner() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        ErrorCode::LastOwner,
        "The only owner of an organization stays owner; make another member owner first",
    )
}
