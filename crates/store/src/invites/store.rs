//! The one implementation of [`InviteStore`], for both backends.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::identity::email_key;
use vidpulse_domain::{OrgId, UserId};

use super::{
    AcceptOutcome, DeclineOutcome, Invitation, InvitationDetails, InvitationPassword, InviteResult,
    InviteStatus, InviteStore, NewInvite, PendingOutcome,
};
use crate::StoreError;
use crate::sql::{Conn, Dialect, SqlStore, rollback_with};
use crate::users::User;

/// Marks `org`'s (`$1`) pending invitations whose time (before `$2`) has
/// passed as expired.
const EXPIRE_LAPSED: &str = "UPDATE invitations SET status = 'expired', token_hash = NULL
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
    D::query("UPDATE invitations SET status = 'expired', token_hash = NULL WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// What the invited person is shown: the invitation, its organization's
/// name, the inviter's address, its stored status.
type DetailsRow = (
    Uuid,
    Uuid,
    String,
    String,
    DateTime<Utc>,
    String,
    Option<String>,
    String,
);

const DETAILS: &str = "SELECT i.id, i.organization_id, i.email, i.role, i.expires_at,
            o.name, u.email, i.status
     FROM invitations i
     JOIN organizations o ON o.id = i.organization_id
     LEFT JOIN users u ON u.id = i.invited_by";

fn details(row: DetailsRow, now: DateTime<Utc>) -> Result<InvitationDetails, StoreError> {
    let (id, org, email, role, expires_at, organization_name, invited_by, status) = row;
    Ok(InvitationDetails {
        invitation: invitation((id, org, email, role, expires_at))?,
        organization_name,
        invited_by,
        status: InviteStatus::of(&status, expires_at, now)?,
    })
}

/// Invitation `id` of `org` when it is pending at `now`; in a write
/// transaction the row is locked (PostgreSQL) and a lapsed one marked
/// expired.
async fn pending_in<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    id: Uuid,
    now: DateTime<Utc>,
    write: bool,
) -> Result<PendingOutcome, StoreError> {
    let lock = if write { D::ROW_LOCK } else { "" };
    let row: Option<(Uuid, Uuid, String, String, DateTime<Utc>, String)> =
        D::query(sqlx::AssertSqlSafe(format!(
            "SELECT id, organization_id, email, role, expires_at, status
             FROM invitations WHERE id = $1 AND organization_id = $2 {lock}"
        )))
        .bind(id)
        .bind(org.0)
        .fetch_optional(&mut *conn)
        .await?;
    let Some((id, org_id, email, role, expires_at, status)) = row else {
        return Ok(PendingOutcome::NotFound);
    };
    Ok(match InviteStatus::of(&status, expires_at, now)? {
        InviteStatus::Pending => {
            PendingOutcome::Found(invitation((id, org_id, email, role, expires_at))?)
        }
        InviteStatus::Expired => {
            if write && status == "pending" {
                expire::<D>(conn, id).await?;
            }
            PendingOutcome::Expired
        }
        _ => PendingOutcome::NotPending,
    })
}

/// Whether the user `user` can sign in already: a password, an
/// identity-provider subject, or a set-password link unused and unexpired.
async fn can_sign_in<D: Dialect>(
    conn: &mut Conn<D>,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let ways: i64 = D::query(
        "SELECT count(*) FROM users u
         WHERE u.id = $1 AND (u.password_hash IS NOT NULL OR u.subject IS NOT NULL
            OR EXISTS (SELECT 1 FROM password_links l
                       WHERE l.user_id = u.id AND l.used_at IS NULL AND l.expires_at > $2))",
    )
    .bind(user)
    .bind(now)
    .fetch_scalar(conn)
    .await?;
    Ok(ways > 0)
}

#[async_trait]
impl<D: Dialect> InviteStore for SqlStore<D> {
    async fn create_invitations(
        &self,
        org: OrgId,
        invited_by: UserId,
        invites: &[NewInvite],
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
        for NewInvite {
            email,
            role,
            token_hash,
        } in invites
        {
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
                    status, invited_by, created_at, expires_at, token_hash)
                 VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9)
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
            .bind(&token_hash[..])
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

    async fn invitation_by_token(
        &self,
        token_hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Option<InvitationDetails>, StoreError> {
        let sql = format!(
            "{DETAILS} WHERE i.token_hash = $1 AND i.status = 'pending' AND i.expires_at > $2"
        );
        let row: Option<DetailsRow> = D::query(sqlx::AssertSqlSafe(sql))
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&mut *self.read().await?)
            .await?;
        row.map(|row| details(row, now)).transpose()
    }

    async fn invitation_for(
        &self,
        id: Uuid,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<InvitationDetails>, StoreError> {
        let sql = format!("{DETAILS} WHERE i.id = $1 AND i.email_lower = $2");
        let row: Option<DetailsRow> = D::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(email_key(email))
            .fetch_optional(&mut *self.read().await?)
            .await?;
        row.map(|row| details(row, now)).transpose()
    }

    async fn set_password_by_invitation(
        &self,
        token_hash: &[u8],
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<InvitationPassword, StoreError> {
        let mut tx = self.write_tx().await?;
        // Used once: the token is cleared as it is read.
        let email: Option<String> = D::query(
            "UPDATE invitations SET token_hash = NULL
             WHERE token_hash = $1 AND status = 'pending' AND expires_at > $2
             RETURNING email",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        let Some(email) = email else {
            return rollback_with(tx, Ok(InvitationPassword::UnknownToken)).await;
        };
        let found: Option<Uuid> = D::query("SELECT id FROM users WHERE email_lower = $1")
            .bind(email_key(&email))
            .fetch_scalar_optional(&mut *tx)
            .await?;
        let id = match found {
            // Dropping the transaction rolls the token's use back.
            Some(id) if can_sign_in::<D>(&mut tx, id, now).await? => {
                return rollback_with(tx, Ok(InvitationPassword::CanSignIn)).await;
            }
            Some(id) => id,
            None => {
                let id = UserId::new().0;
                D::query(
                    "INSERT INTO users (id, subject, email, email_lower, created_at)
                     VALUES ($1, NULL, $2, $3, $4)",
                )
                .bind(id)
                .bind(email.trim())
                .bind(email_key(&email))
                .bind(now)
                .execute(&mut *tx)
                .await?;
                id
            }
        };
        let (id, subject, email, language): (Uuid, Option<String>, String, String) = D::query(
            "UPDATE users SET password_hash = $2 WHERE id = $1
             RETURNING id, subject, email, language",
        )
        .bind(id)
        .bind(password_hash)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(InvitationPassword::Set(User {
            id: UserId(id),
            subject,
            email,
            language,
        }))
    }

    async fn pending_invitation(
        &self,
        org: OrgId,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<PendingOutcome, StoreError> {
        pending_in::<D>(&mut *self.read().await?, org, id, now, false).await
    }

    async fn cancel_invitation(
        &self,
        org: OrgId,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<PendingOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let outcome = pending_in::<D>(&mut tx, org, id, now, true).await?;
        if let PendingOutcome::Found(_) = outcome {
            D::query(
                "UPDATE invitations SET status = 'cancelled', token_hash = NULL, responded_at = $2
                 WHERE id = $1",
            )
            .bind(id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(outcome)
    }

    async fn renew_invitation(
        &self,
        org: OrgId,
        id: Uuid,
        token_hash: &[u8],
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<PendingOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let mut outcome = pending_in::<D>(&mut tx, org, id, now, true).await?;
        if let PendingOutcome::Found(invitation) = &mut outcome {
            D::query("UPDATE invitations SET token_hash = $2, expires_at = $3 WHERE id = $1")
                .bind(id)
                .bind(token_hash)
                .bind(expires_at)
                .execute(&mut *tx)
                .await?;
            invitation.expires_at = expires_at;
        }
        tx.commit().await?;
        Ok(outcome)
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
            return rollback_with(tx, Ok(AcceptOutcome::NotFound)).await;
        };
        if invited != email_key(email) {
            return rollback_with(tx, Ok(AcceptOutcome::WrongEmail)).await;
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
                    "UPDATE invitations SET status = 'accepted', token_hash = NULL,
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
            return rollback_with(tx, Ok(DeclineOutcome::NotFound)).await;
        };
        if invited != email_key(email) {
            return rollback_with(tx, Ok(DeclineOutcome::WrongEmail)).await;
        }
        let outcome = match status.as_str() {
            "pending" if expires_at <= now => {
                expire::<D>(&mut tx, id).await?;
                DeclineOutcome::Expired
            }
            "pending" => {
                D::query(
                    "UPDATE invitations SET status = 'declined', token_hash = NULL, responded_at = $2
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
