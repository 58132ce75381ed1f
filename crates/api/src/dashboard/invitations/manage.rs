//! Admins' care of pending invitations (docs/api.md, "Dashboard rules"):
//! cancelling one (its link stops working) and re-sending one (a new link
//! and a fresh expiry; the old link stops working). Other organizations'
//! invitations are not found.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use vidpulse_domain::identity::Role;
use vidpulse_store::{Invitation, PendingOutcome};

use super::{OpenInvitation, expired, invite_id, not_found, not_pending};
use crate::dashboard::access::OrgAuth;
use crate::dashboard::team::Message;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::PathParam;
use crate::mail::InvitationMail;
use crate::middleware::RequestContext;
use crate::sign_in::session::{new_token, token_hash};
use crate::state::AppState;

/// The pending invitation `outcome` found, or the refusal it calls for.
fn pending(outcome: PendingOutcome) -> Result<Invitation, ApiError> {
    match outcome {
        PendingOutcome::Found(invitation) => Ok(invitation),
        PendingOutcome::NotFound => Err(not_found()),
        PendingOutcome::Expired => Err(expired()),
        PendingOutcome::NotPending => Err(not_pending()),
    }
}

/// Cancels a pending invitation: it can no longer be accepted, and its
/// link stops working. Admins.
#[utoipa::path(
    delete, path = "/organizations/team/invites/{invite_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("invite_id" = Uuid, Path, description = "The invitation"),
    ),
    responses(
        (status = 200, description = "Cancelled", body = Envelope<Message>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: no such invitation in this organization"),
        (status = 409, description = "INVITE_NOT_PENDING: answered or cancelled already"),
        (status = 410, description = "INVITE_EXPIRED"),
    ),
    security(("bearer_jwt" = []))
)]
pub(super) async fn cancel(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    auth.require(Role::Admin)?;
    let id = invite_id(path)?;
    pending(
        app.store
            .cancel_invitation(auth.org, id, app.clock.now())
            .await?,
    )?;
    Ok(ok(
        Message {
            message: "Invitation cancelled".into(),
        },
        Meta::of(&ctx),
    ))
}

/// Sends a pending invitation again with a new link and a fresh expiry;
/// the link sent before stops working. When the e-mail cannot be sent,
/// nothing changes (the earlier link keeps working). Admins.
#[utoipa::path(
    post, path = "/organizations/team/invites/{invite_id}/resend", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("invite_id" = Uuid, Path, description = "The invitation"),
    ),
    responses(
        (status = 200, description = "Sent again", body = Envelope<OpenInvitation>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: no such invitation in this organization"),
        (status = 409, description = "INVITE_NOT_PENDING: answered or cancelled already"),
        (status = 410, description = "INVITE_EXPIRED: invite the address again instead"),
        (status = 502, description = "EMAIL_FAILED: the e-mail could not be sent; nothing changed"),
    ),
    security(("bearer_jwt" = []))
)]
pub(super) async fn resend(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Json<Envelope<OpenInvitation>>, ApiError> {
    auth.require(Role::Admin)?;
    let id = invite_id(path)?;
    let now = app.clock.now();
    let invitation = pending(app.store.pending_invitation(auth.org, id, now).await?)?;
    let organization = app
        .store
        .organization_settings(auth.org)
        .await?
        .ok_or_else(not_found)?
        .name;
    let token = new_token();
    let expires_at = now + app.config.invite_ttl;
    // Mailed before the new token is stored: a mail that fails leaves the
    // invitation, and the link sent before, as they were.
    let mail = InvitationMail {
        to: &invitation.email,
        organization: &organization,
        role: invitation.role.as_str(),
        invite_id: id,
        token: &token,
        expires_at,
    };
    if let Err(why) = app.mailer.send_invitation(&mail).await {
        tracing::warn!(invite = %id, error = %why, "invitation e-mail not sent again");
        return Err(ApiError::new(
            StatusCode::BAD_GATEWAY,
            ErrorCode::EmailFailed,
            "The e-mail could not be sent; the invitation is unchanged",
        ));
    }
    let renewed = pending(
        app.store
            .renew_invitation(auth.org, id, &token_hash(&token), expires_at, now)
            .await?,
    )?;
    Ok(ok(renewed.into(), Meta::of(&ctx)))
}
