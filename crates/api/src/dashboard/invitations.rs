//! Team invitations (docs/api.md, "Dashboard rules"): admins invite up
//! to three addresses at a time; the invited person accepts or declines with
//! a token for that address. Each invitation is e-mailed (SMTP or outbox); an
//! address whose e-mail cannot be sent lands in `failed` and is not invited.
//! The e-mailed link carries a random token (its SHA-256 is stored): the
//! invitation's page reads the invitation with it, signed out. Admins cancel
//! and re-send pending invitations (`manage`).

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::identity::Role;
use vidpulse_domain::names::EmailAddress;
use vidpulse_store::{
    AcceptOutcome, DeclineOutcome, Invitation, InvitationDetails, InviteResult, NewInvite,
};

use crate::dashboard::access::OrgAuth;
use crate::dashboard::identity::UserAuth;
use crate::dashboard::team::Message;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::JsonBody;
use crate::extract::PathParam;
use crate::input::{Fault, Id, List, Object, Refusals, bad_id, not_an_object};
use crate::mail::InvitationMail;
use crate::middleware::RequestContext;
use crate::sign_in::session::{new_token, sent_token_hash, token_hash};
use crate::sign_in::{bad_token, unknown_link};
use crate::state::AppState;

mod manage;

/// Most addresses per invite request.
pub const MAX_INVITES: usize = 3;

/// The invitation routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(invite))
        .routes(routes!(pending_count))
        .routes(routes!(open_invitations))
        .routes(routes!(accept))
        .routes(routes!(decline))
        .routes(routes!(lookup))
        .routes(routes!(invitation, manage::cancel))
        .routes(routes!(manage::resend))
}

/// An address and role.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Invitee {
    /// E-mail address.
    pub email: String,
    /// Role offered.
    pub role: String,
}

/// An address that was not invited, and why.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FailedInvite {
    /// E-mail address.
    pub email: String,
    /// Role asked for.
    pub role: String,
    /// Why: `already_member`, `already_invited` or `email_failed`.
    pub reason: String,
}

/// The result of an invite request.
#[derive(Debug, Serialize, ToSchema)]
pub struct InviteData {
    /// Invited and e-mailed.
    pub sent: Vec<Invitee>,
    /// Not invited.
    pub failed: Vec<FailedInvite>,
}

/// The pending count.
#[derive(Debug, Serialize, ToSchema)]
pub struct PendingCount {
    /// Invitations sent, not accepted, not expired.
    pub count: i64,
}

/// What an accept answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct Accepted {
    /// The organization joined.
    pub organization_id: Uuid,
    /// Its name.
    pub organization_name: String,
    /// Set when the caller was a member already.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A role an invitation may offer (not `owner`).
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum InvitableRole {
    /// Reads.
    Viewer,
    /// Reads and manages creators and videos.
    Editor,
    /// Also manages the team, the settings and the API keys.
    Admin,
}

impl From<InvitableRole> for Role {
    fn from(role: InvitableRole) -> Self {
        match role {
            InvitableRole::Viewer => Role::Viewer,
            InvitableRole::Editor => Role::Editor,
            InvitableRole::Admin => Role::Admin,
        }
    }
}

/// One address to invite.
#[derive(Debug, Deserialize, ToSchema)]
pub struct InviteEntry {
    /// Required string: an e-mail address (trimmed): one `@` with text on
    /// both sides, a dot inside the domain, no whitespace, at most 254
    /// bytes; distinct (ignoring ASCII case) within the request.
    #[schema(value_type = String, min_length = 5, max_length = 254)]
    email: Email,
    /// Required: `viewer`, `editor` or `admin` (lower case).
    role: InvitableRole,
}

/// An e-mail address ([`EmailAddress`]), trimmed.
#[derive(Debug)]
struct Email(String);

impl<'de> Deserialize<'de> for Email {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        EmailAddress::parse(&raw)
            .map(|email| Email(email.as_str().to_owned()))
            .map_err(|_| de::Error::custom("not an e-mail address"))
    }
}

/// Body of `POST /organizations/team/invite`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct InviteRequest {
    /// Required array of 1 to 3 invitations, with distinct addresses.
    #[schema(value_type = Vec<InviteEntry>, min_items = 1, max_items = 3)]
    invites: List<Object<InviteEntry>, 1, MAX_INVITES>,
}

impl Refusals for InviteRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        if fault.field() != "invites" {
            return not_an_object();
        }
        match fault.sent_in("invites") {
            Some(Value::Array(entries)) if (1..=MAX_INVITES).contains(&entries.len()) => {}
            Some(Value::Array(_)) => {
                return ApiError::validation(
                    "invites",
                    format!("`invites` must hold 1 to {MAX_INVITES} entries"),
                );
            }
            _ => return ApiError::validation("invites", "`invites` must be an array"),
        }
        // An entry's address is read before its role; an entry that is not
        // an object has no address.
        let i = fault.index().unwrap_or_default();
        if fault.path().ends_with(".role") {
            ApiError::validation(
                &format!("invites[{i}].role"),
                "`role` must be viewer, editor or admin",
            )
        } else {
            ApiError::validation(
                &format!("invites[{i}].email"),
                "`email` must be an e-mail address",
            )
        }
    }
}

impl InviteRequest {
    /// The addresses and roles, refusing an address listed twice (ignoring
    /// ASCII case).
    fn invites(self) -> Result<Vec<(String, Role)>, ApiError> {
        let List(entries) = self.invites;
        let mut out: Vec<(String, Role)> = Vec::with_capacity(entries.len());
        for (
            i,
            Object(InviteEntry {
                email: Email(email),
                role,
            }),
        ) in entries.into_iter().enumerate()
        {
            if out.iter().any(|(e, _)| e.eq_ignore_ascii_case(&email)) {
                return Err(ApiError::validation(
                    &format!("invites[{i}].email"),
                    "The address is listed twice",
                ));
            }
            out.push((email, role.into()));
        }
        Ok(out)
    }
}

/// Body of `POST /organizations/team/invite/accept` and `/decline`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct InviteIdRequest {
    /// Required UUID: the invitation (from its e-mail).
    #[schema(value_type = Uuid)]
    invite_id: Id,
}

impl Refusals for InviteIdRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "invite_id" => bad_id(fault),
            _ => not_an_object(),
        }
    }
}

/// Invites up to three addresses. Admins.
#[utoipa::path(
    post, path = "/organizations/team/invite", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = InviteRequest, description = "`{\"invites\": [{\"email\": \"a@b.co\", \"role\": \"editor\"}]}`"),
    responses(
        (status = 200, description = "Sent and failed addresses", body = Envelope<InviteData>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
    ),
    security(("bearer_jwt" = []))
)]
async fn invite(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<InviteRequest>,
) -> Result<Json<Envelope<InviteData>>, ApiError> {
    auth.require(Role::Admin)?;
    let invites = body.parse()?.invites()?;
    let tokens: Vec<String> = invites.iter().map(|_| new_token()).collect();
    let new: Vec<NewInvite> = invites
        .iter()
        .zip(&tokens)
        .map(|((email, role), token)| NewInvite {
            email: email.clone(),
            role: *role,
            token_hash: token_hash(token).to_vec(),
        })
        .collect();
    let now = app.clock.now();
    let expires_at = now + app.config.invite_ttl;
    let settings = app
        .store
        .organization_settings(auth.org)
        .await?
        .ok_or_else(|| ApiError::not_found("No such organization"))?;
    let results = app
        .store
        .create_invitations(auth.org, auth.user.id, &new, expires_at, now)
        .await?;
    let mut data = InviteData {
        sent: Vec::new(),
        failed: Vec::new(),
    };
    for (((email, role), token), result) in invites.into_iter().zip(tokens).zip(results) {
        let failed = |reason: &str| FailedInvite {
            email: email.clone(),
            role: role.as_str().to_owned(),
            reason: reason.to_owned(),
        };
        match result {
            InviteResult::AlreadyMember => data.failed.push(failed("already_member")),
            InviteResult::AlreadyInvited => data.failed.push(failed("already_invited")),
            InviteResult::Created(inv) => {
                let mail = InvitationMail {
                    to: &inv.email,
                    organization: &settings.name,
                    role: role.as_str(),
                    invite_id: inv.id,
                    token: &token,
                    expires_at: inv.expires_at,
                };
                match app.mailer.send_invitation(&mail).await {
                    Ok(()) => data.sent.push(Invitee {
                        email: email.clone(),
                        role: role.as_str().to_owned(),
                    }),
                    Err(why) => {
                        tracing::warn!(invite = %inv.id, error = %why, "invitation e-mail not sent");
                        app.store.delete_invitation(inv.id).await?;
                        data.failed.push(failed("email_failed"));
                    }
                }
            }
        }
    }
    Ok(ok(data, Meta::of(&ctx)))
}

/// Invitations sent, not accepted, not expired. Any member.
#[utoipa::path(
    get, path = "/organizations/team/pending-invites/count", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses((status = 200, description = "Count", body = Envelope<PendingCount>)),
    security(("bearer_jwt" = []))
)]
async fn pending_count(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<PendingCount>>, ApiError> {
    let count = app
        .store
        .pending_invitations(auth.org, app.clock.now())
        .await?;
    Ok(ok(PendingCount { count }, Meta::of(&ctx)))
}

/// An invitation still open to an answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct OpenInvitation {
    /// Its id.
    pub invite_id: Uuid,
    /// The invited address.
    pub email: String,
    /// The role it grants.
    pub role: String,
    /// Always `pending`.
    pub status: String,
    /// When it lapses.
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// The invitations sent, not answered and not expired, soonest to lapse
/// first. Admins and owners (the list shows who was invited).
#[utoipa::path(
    get, path = "/organizations/team/invites", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "Open invitations", body = Envelope<Vec<OpenInvitation>>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn open_invitations(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<Vec<OpenInvitation>>>, ApiError> {
    auth.require(Role::Admin)?;
    let items = app
        .store
        .open_invitations(auth.org, app.clock.now())
        .await?
        .into_iter()
        .map(OpenInvitation::from)
        .collect();
    Ok(ok(items, Meta::of(&ctx)))
}

impl From<Invitation> for OpenInvitation {
    fn from(i: Invitation) -> Self {
        Self {
            invite_id: i.id,
            email: i.email,
            role: i.role.as_str().to_owned(),
            status: "pending".to_owned(),
            expires_at: i.expires_at,
        }
    }
}

fn not_found() -> ApiError {
    ApiError::not_found("No such invitation")
}

fn wrong_email() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::FORBIDDEN,
        ErrorCode::InsufficientPermissions,
        "This invitation is for another e-mail address",
    )
}

fn expired() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::GONE,
        ErrorCode::InviteExpired,
        "This invitation has expired; ask for a new one",
    )
}

fn not_pending() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::CONFLICT,
        ErrorCode::InviteNotPending,
        "This invitation was already answered, or cancelled",
    )
}

/// Accepts an invitation for the caller's address (no organization header).
#[utoipa::path(
    post, path = "/organizations/team/invite/accept", tag = "dashboard",
    request_body(content = InviteIdRequest, description = "`{\"invite_id\": \"<uuid>\"}`"),
    responses(
        (status = 200, description = "Joined, or a member already (with `message`)", body = Envelope<Accepted>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: the invitation is for another address"),
        (status = 404, description = "NOT_FOUND"),
        (status = 409, description = "INVITE_NOT_PENDING: declined"),
        (status = 410, description = "INVITE_EXPIRED"),
    ),
    security(("bearer_jwt" = []))
)]
async fn accept(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: UserAuth,
    body: JsonBody<InviteIdRequest>,
) -> Result<Json<Envelope<Accepted>>, ApiError> {
    let Id(id) = body.parse()?.invite_id;
    let outcome = app
        .store
        .accept_invitation(id, auth.user.id, &auth.user.email, app.clock.now())
        .await?;
    let (org, name, message) = match outcome {
        AcceptOutcome::Joined(org, name) => (org, name, None),
        AcceptOutcome::AlreadyMember(org, name) => (
            org,
            name,
            Some("You are already a member of this organization".to_owned()),
        ),
        AcceptOutcome::NotFound => return Err(not_found()),
        AcceptOutcome::WrongEmail => return Err(wrong_email()),
        AcceptOutcome::Expired => return Err(expired()),
        AcceptOutcome::NotPending => return Err(not_pending()),
    };
    Ok(ok(
        Accepted {
            organization_id: org.0,
            organization_name: name,
            message,
        },
        Meta::of(&ctx),
    ))
}

/// Declines an invitation for the caller's address (no organization header).
#[utoipa::path(
    post, path = "/organizations/team/invite/decline", tag = "dashboard",
    request_body(content = InviteIdRequest, description = "`{\"invite_id\": \"<uuid>\"}`"),
    responses(
        (status = 200, description = "Declined", body = Envelope<Message>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: the invitation is for another address"),
        (status = 404, description = "NOT_FOUND"),
        (status = 409, description = "INVITE_NOT_PENDING"),
        (status = 410, description = "INVITE_EXPIRED"),
    ),
    security(("bearer_jwt" = []))
)]
async fn decline(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: UserAuth,
    body: JsonBody<InviteIdRequest>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    let Id(id) = body.parse()?.invite_id;
    match app
        .store
        .decline_invitation(id, &auth.user.email, app.clock.now())
        .await?
    {
        DeclineOutcome::Declined => Ok(ok(
            Message {
                message: "Invitation declined".into(),
            },
            Meta::of(&ctx),
        )),
        DeclineOutcome::NotFound => Err(not_found()),
        DeclineOutcome::WrongEmail => Err(wrong_email()),
        DeclineOutcome::Expired => Err(expired()),
        DeclineOutcome::NotPending => Err(not_pending()),
    }
}

/// Body of `POST /organizations/team/invite/lookup`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct InviteTokenRequest {
    /// Required: the token of the invitation's e-mailed link
    /// (`/invitations/{id}?token=…`).
    token: String,
}

impl Refusals for InviteTokenRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "token" => bad_token(),
            _ => not_an_object(),
        }
    }
}

/// An invitation as the invited person sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationView {
    /// Its id.
    pub invite_id: Uuid,
    /// The organization it is to.
    pub organization_name: String,
    /// The e-mail address of whoever sent it; `null` once they are gone.
    pub invited_by: Option<String>,
    /// The invited address.
    pub email: String,
    /// The role it grants.
    pub role: String,
    /// `pending`, `accepted`, `declined`, `expired` or `cancelled`.
    pub status: String,
    /// When it lapses.
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

impl From<InvitationDetails> for InvitationView {
    fn from(d: InvitationDetails) -> Self {
        Self {
            invite_id: d.invitation.id,
            organization_name: d.organization_name,
            invited_by: d.invited_by,
            email: d.invitation.email,
            role: d.invitation.role.as_str().to_owned(),
            status: d.status.as_str().to_owned(),
            expires_at: d.invitation.expires_at,
        }
    }
}

/// The invitation whose e-mailed link carries `token`, for its holder
/// (signed out): the organization, who invited, the role, the expiry. While
/// it is pending and its token unused.
#[utoipa::path(
    post, path = "/organizations/team/invite/lookup", tag = "dashboard",
    request_body(content = InviteTokenRequest, description = "`{\"token\": \"…\"}`"),
    responses(
        (status = 200, description = "The invitation", body = Envelope<InvitationView>),
        (status = 400, description = "VALIDATION_ERROR: `token` is missing, unknown, used or expired, or its invitation was answered or cancelled"),
    )
)]
async fn lookup(
    State(app): State<AppState>,
    ctx: RequestContext,
    body: JsonBody<InviteTokenRequest>,
) -> Result<Json<Envelope<InvitationView>>, ApiError> {
    let token = body.parse()?.token;
    let token_hash = sent_token_hash(&token).ok_or_else(unknown_link)?;
    let found = app
        .store
        .invitation_by_token(&token_hash, app.clock.now())
        .await?
        .ok_or_else(unknown_link)?;
    Ok(ok(found.into(), Meta::of(&ctx)))
}

/// The invitation `path` names, when it is a UUID.
fn invite_id(path: Result<PathParam, ApiError>) -> Result<Uuid, ApiError> {
    path.ok()
        .and_then(|PathParam(p)| Uuid::parse_str(p.trim()).ok())
        .ok_or_else(not_found)
}

/// An invitation sent to the caller's address, whatever became of it: the
/// organization, who invited, the role, the status. Anyone else: 404 (no
/// organization header).
#[utoipa::path(
    get, path = "/organizations/team/invites/{invite_id}", tag = "dashboard",
    params(("invite_id" = Uuid, Path, description = "The invitation")),
    responses(
        (status = 200, description = "The invitation", body = Envelope<InvitationView>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: no invitation with this id to the caller's address"),
    ),
    security(("bearer_jwt" = []))
)]
async fn invitation(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: UserAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<InvitationView>>, ApiError> {
    let id = invite_id(path)?;
    let found = app
        .store
        .invitation_for(id, &auth.user.email, app.clock.now())
        .await?
        .ok_or_else(not_found)?;
    Ok(ok(found.into(), Meta::of(&ctx)))
}
