//! Team invitations: created by admins, accepted or declined by the invited
//! address, expired when their time passes (marked on every read).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::identity::{Role, email_key};
use vidpulse_domain::{OrgId, UserId};

use crate::StoreError;
use crate::sql::{Conn, Dialect, SqlStore};

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
    /// Invites each `(email, role)` to `org`, in one transaction.
    async fn create_invitations(
        &self,
        org: OrgId,
        invited_by: UserId,
        invites: &[(String, Role)],
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

    /// Invitation `id` when it is still open to an answer at `now`.
    async fn open_invitation(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<Invitation>, StoreError>;

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

/// Marks `org`'s (`$1`) pending invitations whose time (before `$2`) has
/// passed as expired.
const EXPIRE_LAPSED: &str = "UPDATE invitations SET status = 'expired'
     WHERE organization_id = $1 AND status = 'pending' AND expires_at <= $2";

/// An open invitation's columns: id, organization, e-mail, role, expiry.
type InvitationRow = (Uuid, Uuid, String, String, DateTime<Utc>);

const OPEN_INVITATION_COLUMNS: &str = "SELECT id, organization_id, email, role, expires_at
     FROM invitations WHERE status = 'pending' AND expires_at > $2";

fn invitation((id, org, email, role, expires_at): InvitationRow) -> Result<Invitation, StoreError> {
    Ok(Invitation {
        id,
        organization_id: OrgId(org),
        email,
        role: crate::users::parse_role(&role)?,
        expires_at,
    })
}

/// Marks invitation `id` as expired.
async fn expire<D: Dialect>(conn: &mut Conn<D>, id: Uuid) -> Result<(), StoreError> {
    D::query("UPDATE invitations SET status = 'expired' WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

#[async_trait]
impl<D: Dialect> InviteStore for SqlStore<D> {
    async fn create_invitations(
        &self,
        org: OrgId,
        invited_by: UserId,
        invites: &[(String, Role)],
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Vec<InviteResult>, StoreError> {
        let mut tx = self.write_tx().await?;
        D::query(EXPIRE_LAPSED)
            .bind(org.0)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let mut out = Vec::with_capacity(invites.len());
        for (email, role) in invites {
            let lower = email_key(email);
            let members: i64 = D::query(
                "SELECT count(*) FROM memberships m JOIN users u ON u.id = m.user_id
                 WHERE m.organization_id = $1 AND u.email_lower = $2",
            )
            .bind(org.0)
            .bind(&lower)
            .fetch_scalar(&mut *tx)
            .await?;
            if members > 0 {
                out.push(InviteResult::AlreadyMember);
                continue;
            }
            let id = Uuid::now_v7();
            let inserted = D::query(
                "INSERT INTO invitations (id, organization_id, email, email_lower, role,
                    status, invited_by, created_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8)
                 ON CONFLICT DO NOTHING",
            )
            .bind(id)
            .bind(org.0)
            .bind(email)
            .bind(&lower)
            .bind(role.as_str())
            .bind(invited_by.0)
            .bind(now)
            .bind(expires_at)
            .execute(&mut *tx)
            .await?
                == 1;
            out.push(if inserted {
                InviteResult::Created(Invitation {
                    id,
                    organization_id: org,
                    email: email.clone(),
                    role: *role,
                    expires_at,
                })
            } else {
                InviteResult::AlreadyInvited
            });
        }
        tx.commit().await?;
        Ok(out)
    }

    async fn delete_invitation(&self, id: Uuid) -> Result<(), StoreError> {
        let mut tx = self.write_tx().await?;
        D::query("DELETE FROM invitations WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn pending_invitations(&self, org: OrgId, now: DateTime<Utc>) -> Result<i64, StoreError> {
        let mut tx = self.write_tx().await?;
        D::query(EXPIRE_LAPSED)
            .bind(org.0)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let n: i64 = D::query(
            "SELECT count(*) FROM invitations WHERE organization_id = $1 AND status = 'pending'",
        )
        .bind(org.0)
        .fetch_scalar(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(n)
    }

    async fn open_invitations(
        &self,
        org: OrgId,
        now: DateTime<Utc>,
    ) -> Result<Vec<Invitation>, StoreError> {
        let sql = format!(
            "{OPEN_INVITATION_COLUMNS} AND organization_id = $1 ORDER BY expires_at, email_lower"
        );
        let rows: Vec<InvitationRow> = D::query(sqlx::AssertSqlSafe(sql))
            .bind(org.0)
            .bind(now)
            .fetch_all(&mut *self.read().await?)
            .await?;
        rows.into_iter().map(invitation).collect()
    }

    async fn open_invitation(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<Invitation>, StoreError> {
        let sql = format!("{OPEN_INVITATION_COLUMNS} AND id = $1");
        let row: Option<InvitationRow> = D::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(now)
            .fetch_optional(&mut *self.read().await?)
            .await?;
        row.map(invitation).transpose()
    }

    async fn accept_invitation(
        &self,
        id: Uuid,
        user: UserId,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<AcceptOutcome, StoreError> {
        type Row = (Uuid, String, String, String, DateTime<Utc>, String);
        let mut tx = self.write_tx().await?;
        // Locks the invitation (PostgreSQL): concurrent accepts queue
        // and the later ones find it accepted.
        let row: Option<Row> = D::query(sqlx::AssertSqlSafe(format!(
            "SELECT i.organization_id, o.name, i.email_lower, i.status, i.expires_at, i.role
             FROM invitations i JOIN organizations o ON o.id = i.organization_id
             WHERE i.id = $1 {}",
            D::row_lock_of("i")
        )))
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((org, name, invited, status, expires_at, role)) = row else {
            return Ok(AcceptOutcome::NotFound);
        };
        if invited != email_key(email) {
            return Ok(AcceptOutcome::WrongEmail);
        }
        let org = OrgId(org);
        let outcome = match status.as_str() {
            "pending" if expires_at <= now => {
                expire::<D>(&mut tx, id).await?;
                AcceptOutcome::Expired
            }
            // Accepted once: a member asking again (or a concurrent
            // accept of the same invitation) is told so; someone
            // removed since needs a new invitation.
            "accepted" => {
                let member: Option<String> = D::query(
                    "SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2",
                )
                .bind(org.0)
                .bind(user.0)
                .fetch_scalar_optional(&mut *tx)
                .await?;
                if member.is_some() {
                    AcceptOutcome::AlreadyMember(org, name)
                } else {
                    AcceptOutcome::NotPending
                }
            }
            "pending" => {
                let joined = D::query(
                    "INSERT INTO memberships (organization_id, user_id, role, created_at)
                     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                )
                .bind(org.0)
                .bind(user.0)
                .bind(&role)
                .bind(now)
                .execute(&mut *tx)
                .await?
                    == 1;
                D::query(
                    "UPDATE invitations SET status = 'accepted',
                       accepted_at = coalesce(accepted_at, $2), responded_at = coalesce(responded_at, $2)
                     WHERE id = $1",
                )
                .bind(id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                if joined {
                    AcceptOutcome::Joined(org, name)
                } else {
                    AcceptOutcome::AlreadyMember(org, name)
                }
            }
            "expired" => AcceptOutcome::Expired,
            _ => AcceptOutcome::NotPending,
        };
        tx.commit().await?;
        Ok(outcome)
    }

    async fn decline_invitation(
        &self,
        id: Uuid,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<DeclineOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let row: Option<(String, String, DateTime<Utc>)> =
            D::query("SELECT email_lower, status, expires_at FROM invitations WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((invited, status, expires_at)) = row else {
            return Ok(DeclineOutcome::NotFound);
        };
        if invited != email_key(email) {
            return Ok(DeclineOutcome::WrongEmail);
        }
        let outcome = match status.as_str() {
            "pending" if expires_at <= now => {
                expire::<D>(&mut tx, id).await?;
                DeclineOutcome::Expired
            }
            "pending" => {
                D::query(
                    "UPDATE invitations SET status = 'declined', responded_at = $2
                     WHERE id = $1 AND status = 'pending'",
                )
                .bind(id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                DeclineOutcome::Declined
            }
            "expired" => DeclineOutcome::Expired,
            _ => DeclineOutcome::NotPending,
        };
        tx.commit().await?;
        Ok(outcome)
    }
}
