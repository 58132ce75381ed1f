//! Team invitations: created by admins, accepted or declined by the invited
//! address, expired when their time passes (marked on every read), cancelled
//! or re-sent by admins.
//!
//! Each invitation's e-mailed link carries a token of which only the SHA-256
//! is kept (the caller hashes): the id is listed to admins and proves
//! nothing, the token proves the mailbox. It works while the invitation is
//! pending and unexpired, sets a first password once (that clears it), and
//! a re-send replaces it.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{OrgId, UserId};

use crate::StoreError;
use crate::users::User;

mod store;

/// A pending invitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invitation {
    /// Id.
    pub id: Uuid,
    /// The organization.
    pub organization_id: OrgId,
    /// The invited address, as given.
    pub email: String,
    /// The role it grants.
    pub role: Role,
    /// When it lapses.
    pub expires_at: DateTime<Utc>,
}

/// An address to invite, with the SHA-256 of its link's token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewInvite {
    /// The address, as given.
    pub email: String,
    /// The role it grants.
    pub role: Role,
    /// SHA-256 of the token the e-mailed link carries.
    pub token_hash: Vec<u8>,
}

/// Where an invitation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InviteStatus {
    /// Sent, not answered, not expired.
    Pending,
    /// Accepted.
    Accepted,
    /// Declined.
    Declined,
    /// Its time passed unanswered.
    Expired,
    /// Cancelled by an admin.
    Cancelled,
}

impl InviteStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            InviteStatus::Pending => "pending",
            InviteStatus::Accepted => "accepted",
            InviteStatus::Declined => "declined",
            InviteStatus::Expired => "expired",
            InviteStatus::Cancelled => "cancelled",
        }
    }

    /// A stored status, `pending` past `expires_at` read as expired.
    fn of(stored: &str, expires_at: DateTime<Utc>, now: DateTime<Utc>) -> Result<Self, StoreError> {
        Ok(match stored {
            "pending" if expires_at <= now => InviteStatus::Expired,
            "pending" => InviteStatus::Pending,
            "accepted" => InviteStatus::Accepted,
            "declined" => InviteStatus::Declined,
            "expired" => InviteStatus::Expired,
            "cancelled" => InviteStatus::Cancelled,
            other => {
                return Err(StoreError::Corrupt(format!(
                    "unknown invitation status {other}"
                )));
            }
        })
    }
}

/// What the invited person is shown of an invitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvitationDetails {
    /// The invitation.
    pub invitation: Invitation,
    /// Its organization's name.
    pub organization_name: String,
    /// The address of whoever sent it (`None` once they are gone).
    pub invited_by: Option<String>,
    /// Where it stands now.
    pub status: InviteStatus,
}

/// What an admin's cancel or re-send (or its check) found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PendingOutcome {
    /// The invitation was pending: as it stands after the change.
    Found(Invitation),
    /// No such invitation in the organization.
    NotFound,
    /// Its time has passed (it is now marked so).
    Expired,
    /// It was answered or cancelled.
    NotPending,
}

/// What setting a first password with an invitation's token did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvitationPassword {
    /// The password is set (for the user created when the address had
    /// none); the token is used up.
    Set(User),
    /// No pending, unexpired invitation has this token (or it was used).
    UnknownToken,
    /// The address can sign in already (a password, an identity-provider
    /// subject, or an unused unexpired set-password link): nothing written.
    CanSignIn,
}

/// What became of one address of an invite request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InviteResult {
    /// A new pending invitation.
    Created(Invitation),
    /// The address is already a member.
    AlreadyMember,
    /// A pending invitation for the address exists.
    AlreadyInvited,
}

/// What an accept did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcceptOutcome {
    /// The caller joined the organization (id, name).
    Joined(OrgId, String),
    /// The caller was a member already (id, name): success with a message.
    AlreadyMember(OrgId, String),
    /// No such invitation.
    NotFound,
    /// The invitation is for another address.
    WrongEmail,
    /// The invitation has expired (and is now marked so).
    Expired,
    /// The invitation was declined, or accepted before by someone who is no
    /// longer a member (an invitation is accepted once).
    NotPending,
}

/// What a decline did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclineOutcome {
    /// Declined.
    Declined,
    /// No such invitation.
    NotFound,
    /// The invitation is for another address.
    WrongEmail,
    /// The invitation has expired.
    Expired,
    /// The invitation is no longer pending.
    NotPending,
}

/// Team invitations.
#[async_trait]
pub trait InviteStore {
    /// Invites each address to `org`, in one transaction.
    async fn create_invitations(
        &self,
        org: OrgId,
        invited_by: UserId,
        invites: &[NewInvite],
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Vec<InviteResult>, StoreError>;

    /// Forgets an invitation whose e-mail could not be sent.
    async fn delete_invitation(&self, id: Uuid) -> Result<(), StoreError>;

    /// Invitations of `org` sent, not accepted, not expired (expired ones are
    /// marked first).
    async fn pending_invitations(&self, org: OrgId, now: DateTime<Utc>) -> Result<i64, StoreError>;

    /// The invitations of `org` still open to an answer (pending and not
    /// expired at `now`), soonest to lapse first.
    async fn open_invitations(
        &self,
        org: OrgId,
        now: DateTime<Utc>,
    ) -> Result<Vec<Invitation>, StoreError>;

    /// The pending, unexpired invitation whose token hashes to
    /// `token_hash` (a used or replaced token finds nothing).
    async fn invitation_by_token(
        &self,
        token_hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Option<InvitationDetails>, StoreError>;

    /// Invitation `id`, whatever its status, when it was sent to `email`
    /// (compared as e-mail keys); `None` otherwise.
    async fn invitation_for(
        &self,
        id: Uuid,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<InvitationDetails>, StoreError>;

    /// Uses the token that hashes to `token_hash` to set the first password
    /// (`password_hash`) of its invitation's address, creating its user
    /// when there is none, in one transaction; refused, writing nothing,
    /// when the address can sign in already. The invitation stays pending
    /// (it is accepted or declined as usual).
    async fn set_password_by_invitation(
        &self,
        token_hash: &[u8],
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<InvitationPassword, StoreError>;

    /// Invitation `id` of `org` when it is pending at `now` (nothing written).
    async fn pending_invitation(
        &self,
        org: OrgId,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<PendingOutcome, StoreError>;

    /// Cancels pending invitation `id` of `org`: its link stops working.
    async fn cancel_invitation(
        &self,
        org: OrgId,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<PendingOutcome, StoreError>;

    /// Gives pending invitation `id` of `org` a new token (the old one stops
    /// working) and a new expiry.
    async fn renew_invitation(
        &self,
        org: OrgId,
        id: Uuid,
        token_hash: &[u8],
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<PendingOutcome, StoreError>;

    /// Accepts invitation `id` for the user `user` whose address is `email`.
    async fn accept_invitation(
        &self,
        id: Uuid,
        user: UserId,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<AcceptOutcome, StoreError>;

    /// Declines invitation `id` for the address `email`.
    async fn decline_invitation(
        &self,
        id: Uuid,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<DeclineOutcome, StoreError>;
}
