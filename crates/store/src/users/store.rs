//! Users, memberships and settings, stored: the one implementation of
//! [`UserStore`] for both backends.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use vidpulse_domain::identity::Role;
use vidpulse_domain::identity::{Managers, Removal, dev_subject, email_key, removal, role_change};
use vidpulse_domain::{ApiKeyId, OrgId, Plan, UserId};

use super::{Member, MemberChange, Membership, OrgSettings, User, UserStore};
use crate::StoreError;
use crate::orgs::{API_KEY_COLUMNS, ApiKeyRecord, ApiKeyRow};
use crate::sql::{Dialect, SqlStore, Tx, rollback_with};

/// A stored role.
pub(crate) fn parse_role(s: &str) -> Result<Role, StoreError> {
    Role::parse(s).ok_or_else(|| StoreError::Corrupt(format!("unknown role {s}")))
}

/// The rows `sql` selects for `key` (`$1`): an id, a name and a stored
/// role each, made a `T` by `make` once the role is read.
async fn with_roles<D: Dialect, T>(
    store: &SqlStore<D>,
    sql: &'static str,
    key: uuid::Uuid,
    make: impl Fn(uuid::Uuid, String, Role) -> T + Send,
) -> Result<Vec<T>, StoreError> {
    let rows: Vec<(uuid::Uuid, String, String)> = D::query(sql)
        .bind(key)
        .fetch_all(&mut *store.read().await?)
        .await?;
    rows.into_iter()
        .map(|(id, name, role)| Ok(make(id, name, parse_role(&role)?)))
        .collect()
}

/// Runs the update `sql` of row `id` (`$1`) to `value` (`$2`) in a write
/// transaction of its own.
async fn set_text<D: Dialect>(
    store: &SqlStore<D>,
    sql: &'static str,
    id: uuid::Uuid,
    value: &str,
) -> Result<(), StoreError> {
    let mut tx = store.write_tx().await?;
    D::query(sql).bind(id).bind(value).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}

/// Member `user`'s role in `org` and the organization's managers, with the
/// organization row locked so that changes to its team run one at a time
/// (PostgreSQL; SQLite has one writer): two admins cannot remove or demote
/// each other. `None` when `user` is not a member.
async fn locked_member<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    user: UserId,
) -> Result<Option<(Role, Managers)>, StoreError> {
    let locked: Option<uuid::Uuid> = D::query(sqlx::AssertSqlSafe(format!(
        "SELECT id FROM organizations WHERE id = $1 {}",
        D::ORG_LOCK
    )))
    .bind(org.0)
    .fetch_scalar_optional(&mut **tx)
    .await?;
    if locked.is_none() {
        return Ok(None);
    }
    let role: Option<String> =
        D::query("SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2")
            .bind(org.0)
            .bind(user.0)
            .fetch_scalar_optional(&mut **tx)
            .await?;
    let Some(role) = role else {
        return Ok(None);
    };
    let (admins, owners): (i64, i64) = D::query(
        "SELECT coalesce(sum(CASE WHEN role = 'admin' THEN 1 ELSE 0 END), 0),
                coalesce(sum(CASE WHEN role = 'owner' THEN 1 ELSE 0 END), 0)
         FROM memberships WHERE organization_id = $1",
    )
    .bind(org.0)
    .fetch_one(&mut **tx)
    .await?;
    Ok(Some((parse_role(&role)?, Managers { admins, owners })))
}

/// A user row: id, subject, e-mail, language.
type UserRow = (uuid::Uuid, Option<String>, String, String);

const USER_BY_SUBJECT: &str = "SELECT id, subject, email, language FROM users WHERE subject = $1";

fn user((id, subject, email, language): UserRow) -> User {
    User {
        id: UserId(id),
        subject,
        email,
        language,
    }
}

#[async_trait]
impl<D: Dialect> UserStore for SqlStore<D> {
    async fn user_for_identity(
        &self,
        subject: &str,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<User, StoreError> {
        let mut tx = self.write_tx().await?;
        let by_subject: Option<UserRow> = D::query(USER_BY_SUBJECT)
            .bind(subject)
            .fetch_optional(&mut *tx)
            .await?;
        if let Some(row) = by_subject {
            return rollback_with(tx, Ok(user(row))).await;
        }
        let by_email: Option<UserRow> =
            D::query("SELECT id, subject, email, language FROM users WHERE email_lower = $1")
                .bind(email_key(email))
                .fetch_optional(&mut *tx)
                .await?;
        let found = match by_email {
            // A concurrent first sign-in of the same identity got there first.
            Some(row) if row.1.as_deref() == Some(subject) => user(row),
            // Another identity holds the address. Only the placeholder
            // subject `admin create-org --owner-email` gives (the
            // development identity's, derived from the address) yields
            // to the first verified token with that address.
            Some(row)
                if row.1.is_some() && row.1.as_deref() != Some(dev_subject(&row.2).as_str()) =>
            {
                return rollback_with(
                    tx,
                    Err(StoreError::Conflict {
                        constraint: "users_email_lower".to_owned(),
                    }),
                )
                .await;
            }
            Some(row) => {
                D::query("UPDATE users SET subject = $2 WHERE id = $1")
                    .bind(row.0)
                    .bind(subject)
                    .execute(&mut *tx)
                    .await?;
                User {
                    subject: Some(subject.to_owned()),
                    ..user(row)
                }
            }
            None => {
                // A first sign-in often comes as a burst of requests:
                // the losers of the insert race read the winner's row.
                let id = UserId::new();
                let inserted = D::query(
                    "INSERT INTO users (id, subject, email, email_lower, created_at)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                )
                .bind(id.0)
                .bind(subject)
                .bind(email)
                .bind(email_key(email))
                .bind(now)
                .execute(&mut *tx)
                .await?
                    == 1;
                if inserted {
                    User {
                        id,
                        subject: Some(subject.to_owned()),
                        email: email.to_owned(),
                        language: "en".to_owned(),
                    }
                } else {
                    let winner: Option<UserRow> = D::query(USER_BY_SUBJECT)
                        .bind(subject)
                        .fetch_optional(&mut *tx)
                        .await?;
                    match winner {
                        Some(row) => user(row),
                        None => {
                            return rollback_with(
                                tx,
                                Err(StoreError::Conflict {
                                    constraint: "users_email_lower".to_owned(),
                                }),
                            )
                            .await;
                        }
                    }
                }
            }
        };
        tx.commit().await?;
        Ok(found)
    }

    async fn register_organization_on(
        &self,
        user: UserId,
        name: &str,
        plan: Plan,
        now: DateTime<Utc>,
    ) -> Result<OrgId, StoreError> {
        let id = OrgId::new();
        let mut tx = self.write_tx().await?;
        D::query("INSERT INTO organizations (id, name, plan, created_at) VALUES ($1, $2, $3, $4)")
            .bind(id.0)
            .bind(name)
            .bind(plan.as_str())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        D::query(
            "INSERT INTO memberships (organization_id, user_id, role, created_at)
             VALUES ($1, $2, $3, $4)",
        )
        .bind(id.0)
        .bind(user.0)
        .bind(Role::Admin.as_str())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn memberships(&self, user: UserId) -> Result<Vec<Membership>, StoreError> {
        let sql = "SELECT o.id, o.name, m.role FROM memberships m
             JOIN organizations o ON o.id = m.organization_id
             WHERE m.user_id = $1 ORDER BY o.name, o.id";
        with_roles(self, sql, user.0, |id, name, role| Membership {
            organization_id: OrgId(id),
            name,
            role,
        })
        .await
    }

    async fn setting_or_insert(&self, key: &str, value: &str) -> Result<String, StoreError> {
        let mut tx = self.write_tx().await?;
        D::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(value)
            .execute(&mut *tx)
            .await?;
        let stored: String = D::query("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_scalar(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(stored)
    }

    async fn membership_role(&self, user: UserId, org: OrgId) -> Result<Option<Role>, StoreError> {
        let role: Option<String> =
            D::query("SELECT role FROM memberships WHERE user_id = $1 AND organization_id = $2")
                .bind(user.0)
                .bind(org.0)
                .fetch_scalar_optional(&mut *self.read().await?)
                .await?;
        role.as_deref().map(parse_role).transpose()
    }

    async fn organization_settings(&self, org: OrgId) -> Result<Option<OrgSettings>, StoreError> {
        let row: Option<(uuid::Uuid, String, Option<String>, String)> =
            D::query("SELECT id, name, logo_url, currency FROM organizations WHERE id = $1")
                .bind(org.0)
                .fetch_optional(&mut *self.read().await?)
                .await?;
        Ok(row.map(|(id, name, logo_url, currency)| OrgSettings {
            id: OrgId(id),
            name,
            logo_url,
            currency,
        }))
    }

    async fn set_logo_url(&self, org: OrgId, url: &str) -> Result<(), StoreError> {
        let sql = "UPDATE organizations SET logo_url = $2 WHERE id = $1";
        set_text(self, sql, org.0, url).await
    }

    async fn rename_organization(&self, org: OrgId, name: &str) -> Result<(), StoreError> {
        let sql = "UPDATE organizations SET name = $2 WHERE id = $1";
        set_text(self, sql, org.0, name).await
    }

    async fn set_organization_currency(
        &self,
        org: OrgId,
        currency: &str,
    ) -> Result<(), StoreError> {
        let sql = "UPDATE organizations SET currency = $2 WHERE id = $1";
        set_text(self, sql, org.0, currency).await
    }

    async fn set_language(&self, user: UserId, language: &str) -> Result<(), StoreError> {
        set_text(
            self,
            "UPDATE users SET language = $2 WHERE id = $1",
            user.0,
            language,
        )
        .await
    }

    async fn add_member(
        &self,
        org: OrgId,
        user: UserId,
        role: Role,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write_tx().await?;
        let added = D::query(
            "INSERT INTO memberships (organization_id, user_id, role, created_at)
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(org.0)
        .bind(user.0)
        .bind(role.as_str())
        .bind(now)
        .execute(&mut *tx)
        .await?
            == 1;
        tx.commit().await?;
        Ok(added)
    }

    async fn members(&self, org: OrgId) -> Result<Vec<Member>, StoreError> {
        let sql = "SELECT u.id, u.email, m.role FROM memberships m JOIN users u ON u.id = m.user_id
             WHERE m.organization_id = $1 ORDER BY u.email_lower, u.id";
        with_roles(self, sql, org.0, |id, email, role| Member {
            user_id: UserId(id),
            email,
            role,
        })
        .await
    }

    async fn remove_member(
        &self,
        org: OrgId,
        by: Role,
        user: UserId,
    ) -> Result<MemberChange, StoreError> {
        let mut tx = self.write_tx().await?;
        let Some((role, managers)) = locked_member(&mut tx, org, user).await? else {
            return rollback_with(tx, Ok(MemberChange::NotMember)).await;
        };
        match removal(by, role, managers) {
            Removal::Allowed => {}
            Removal::NeedsRole(needed) => {
                return rollback_with(tx, Ok(MemberChange::NeedsRole(needed))).await;
            }
            Removal::LastAdmin => return rollback_with(tx, Ok(MemberChange::LastAdmin)).await,
            Removal::LastOwner => return rollback_with(tx, Ok(MemberChange::LastOwner)).await,
        }
        D::query("DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2")
            .bind(org.0)
            .bind(user.0)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(MemberChange::Done)
    }

    async fn set_member_role(
        &self,
        org: OrgId,
        by: Role,
        user: UserId,
        role: Role,
    ) -> Result<MemberChange, StoreError> {
        let mut tx = self.write_tx().await?;
        let Some((from, managers)) = locked_member(&mut tx, org, user).await? else {
            return rollback_with(tx, Ok(MemberChange::NotMember)).await;
        };
        match role_change(by, from, role, managers) {
            Removal::Allowed => {}
            Removal::NeedsRole(needed) => {
                return rollback_with(tx, Ok(MemberChange::NeedsRole(needed))).await;
            }
            Removal::LastAdmin => return rollback_with(tx, Ok(MemberChange::LastAdmin)).await,
            Removal::LastOwner => return rollback_with(tx, Ok(MemberChange::LastOwner)).await,
        }
        D::query("UPDATE memberships SET role = $3 WHERE organization_id = $1 AND user_id = $2")
            .bind(org.0)
            .bind(user.0)
            .bind(role.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(MemberChange::Done)
    }

    async fn list_api_keys(&self, org: OrgId) -> Result<Vec<ApiKeyRecord>, StoreError> {
        let sql = format!(
            "SELECT {API_KEY_COLUMNS}
             FROM api_keys WHERE organization_id = $1 ORDER BY created_at DESC, id"
        );
        let rows: Vec<ApiKeyRow> = D::query(sqlx::AssertSqlSafe(sql))
            .bind(org.0)
            .fetch_all(&mut *self.read().await?)
            .await?;
        rows.into_iter().map(ApiKeyRecord::try_from).collect()
    }

    async fn revoke_api_key(
        &self,
        org: OrgId,
        key: ApiKeyId,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write_tx().await?;
        let done = D::query(
            "UPDATE api_keys SET revoked_at = $3
             WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL",
        )
        .bind(key.0)
        .bind(org.0)
        .bind(now)
        .execute(&mut *tx)
        .await?
            == 1;
        tx.commit().await?;
        Ok(done)
    }
}
