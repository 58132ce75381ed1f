//! Dashboard users, their organizations, and the service's own settings.
//!
//! One SQL text per operation for both backends: written with `$n`
//! parameters, which SQLite reads as `?n` ([`sql`]).

use std::borrow::Cow;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::{Database, Decode, Encode, Executor, FromRow, IntoArguments, Type};
use uuid::Uuid;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{OrgId, Plan, UserId};

use crate::StoreError;

/// A dashboard user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// Id.
    pub id: UserId,
    /// The identity provider's subject.
    pub subject: Option<String>,
    /// E-mail address as first seen.
    pub email: String,
    /// Interface language.
    pub language: String,
}

/// An organization a user belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// The organization.
    pub organization_id: OrgId,
    /// Its name.
    pub name: String,
    /// The user's role there.
    pub role: Role,
}

/// Users, memberships and settings.
#[async_trait]
pub trait UserStore {
    /// The user a verified token names: found by subject; else the user with
    /// that e-mail and no subject yet (created by an admin command or an
    /// invitation), which takes the subject; else a new user.
    /// [`StoreError::Conflict`] when the e-mail belongs to another subject.
    async fn user_for_identity(
        &self,
        subject: &str,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<User, StoreError>;

    /// Creates an organization on the free plan with `user` as its admin.
    async fn register_organization(
        &self,
        user: UserId,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<OrgId, StoreError>;

    /// The organizations `user` belongs to, by name.
    async fn memberships(&self, user: UserId) -> Result<Vec<Membership>, StoreError>;

    /// The stored value of setting `key`, storing `value` first when there is
    /// none (the first writer wins; every caller gets the same value).
    async fn setting_or_insert(&self, key: &str, value: &str) -> Result<String, StoreError>;
}

/// `sql` in the backend's spelling: `$n` parameters become `?n` on SQLite.
pub(crate) fn sql(sql: &'static str, sqlite: bool) -> sqlx::AssertSqlSafe<Cow<'static, str>> {
    sqlx::AssertSqlSafe(if sqlite {
        Cow::Owned(sql.replace('$', "?"))
    } else {
        Cow::Borrowed(sql)
    })
}

#[derive(Debug, FromRow)]
pub(crate) struct UserRow {
    id: Uuid,
    subject: Option<String>,
    email: String,
    language: String,
}

impl From<UserRow> for User {
    fn from(r: UserRow) -> Self {
        Self {
            id: UserId(r.id),
            subject: r.subject,
            email: r.email,
            language: r.language,
        }
    }
}

/// [`UserStore::user_for_identity`] inside a write transaction.
pub(crate) async fn user_for_identity<DB>(
    conn: &mut DB::Connection,
    sqlite: bool,
    subject: &str,
    email: &str,
    now: DateTime<Utc>,
) -> Result<User, StoreError>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> Uuid: Encode<'q, DB> + Type<DB>,
    for<'q> String: Encode<'q, DB> + Type<DB>,
    for<'q> DateTime<Utc>: Encode<'q, DB> + Type<DB>,
    for<'q> <DB as Database>::Arguments: IntoArguments<DB>,
    for<'r> UserRow: FromRow<'r, DB::Row>,
{
    let by_subject: Option<UserRow> = sqlx::query_as(sql(
        "SELECT id, subject, email, language FROM users WHERE subject = $1",
        sqlite,
    ))
    .bind(subject.to_owned())
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(row) = by_subject {
        return Ok(row.into());
    }
    let by_email: Option<UserRow> = sqlx::query_as(sql(
        "SELECT id, subject, email, language FROM users WHERE email_lower = $1",
        sqlite,
    ))
    .bind(email.to_lowercase())
    .fetch_optional(&mut *conn)
    .await?;
    match by_email {
        Some(row) if row.subject.is_some() => Err(StoreError::Conflict {
            constraint: "users_email_lower".to_owned(),
        }),
        Some(row) => {
            sqlx::query(sql("UPDATE users SET subject = $2 WHERE id = $1", sqlite))
                .bind(row.id)
                .bind(subject.to_owned())
                .execute(&mut *conn)
                .await?;
            Ok(User {
                subject: Some(subject.to_owned()),
                ..row.into()
            })
        }
        None => {
            let id = UserId::new();
            sqlx::query(sql(
                "INSERT INTO users (id, subject, email, email_lower, created_at)
                 VALUES ($1, $2, $3, $4, $5)",
                sqlite,
            ))
            .bind(id.0)
            .bind(subject.to_owned())
            .bind(email.to_owned())
            .bind(email.to_lowercase())
            .bind(now)
            .execute(&mut *conn)
            .await?;
            Ok(User {
                id,
                subject: Some(subject.to_owned()),
                email: email.to_owned(),
                language: "en".to_owned(),
            })
        }
    }
}

/// [`UserStore::register_organization`] inside a write transaction.
pub(crate) async fn register_organization<DB>(
    conn: &mut DB::Connection,
    sqlite: bool,
    user: UserId,
    name: &str,
    now: DateTime<Utc>,
) -> Result<OrgId, StoreError>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> Uuid: Encode<'q, DB> + Type<DB>,
    for<'q> String: Encode<'q, DB> + Type<DB>,
    for<'q> &'static str: Encode<'q, DB> + Type<DB>,
    for<'q> DateTime<Utc>: Encode<'q, DB> + Type<DB>,
    for<'q> <DB as Database>::Arguments: IntoArguments<DB>,
{
    let id = OrgId::new();
    sqlx::query(sql(
        "INSERT INTO organizations (id, name, plan, created_at) VALUES ($1, $2, $3, $4)",
        sqlite,
    ))
    .bind(id.0)
    .bind(name.to_owned())
    .bind(Plan::Free.as_str())
    .bind(now)
    .execute(&mut *conn)
    .await?;
    sqlx::query(sql(
        "INSERT INTO memberships (organization_id, user_id, role, created_at)
         VALUES ($1, $2, $3, $4)",
        sqlite,
    ))
    .bind(id.0)
    .bind(user.0)
    .bind(Role::Admin.as_str())
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(id)
}

/// [`UserStore::memberships`].
pub(crate) async fn memberships<'e, DB, E>(
    executor: E,
    sqlite: bool,
    user: UserId,
) -> Result<Vec<Membership>, StoreError>
where
    DB: Database,
    E: Executor<'e, Database = DB>,
    for<'q> Uuid: Encode<'q, DB> + Type<DB>,
    for<'q> <DB as Database>::Arguments: IntoArguments<DB>,
    for<'r> (Uuid, String, String): FromRow<'r, DB::Row>,
{
    let rows: Vec<(Uuid, String, String)> = sqlx::query_as(sql(
        "SELECT o.id, o.name, m.role FROM memberships m
         JOIN organizations o ON o.id = m.organization_id
         WHERE m.user_id = $1 ORDER BY o.name, o.id",
        sqlite,
    ))
    .bind(user.0)
    .fetch_all(executor)
    .await?;
    rows.into_iter()
        .map(|(id, name, role)| {
            Ok(Membership {
                organization_id: OrgId(id),
                name,
                role: Role::parse(&role)
                    .ok_or_else(|| StoreError::Corrupt(format!("unknown role {role}")))?,
            })
        })
        .collect()
}

/// [`UserStore::setting_or_insert`] inside a write transaction.
pub(crate) async fn setting_or_insert<DB>(
    conn: &mut DB::Connection,
    sqlite: bool,
    key: &str,
    value: &str,
) -> Result<String, StoreError>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> String: Encode<'q, DB> + Type<DB>,
    for<'r> String: Decode<'r, DB>,
    for<'q> <DB as Database>::Arguments: IntoArguments<DB>,
    for<'r> (String,): FromRow<'r, DB::Row>,
{
    sqlx::query(sql(
        "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        sqlite,
    ))
    .bind(key.to_owned())
    .bind(value.to_owned())
    .execute(&mut *conn)
    .await?;
    let (stored,): (String,) =
        sqlx::query_as(sql("SELECT value FROM settings WHERE key = $1", sqlite))
            .bind(key.to_owned())
            .fetch_one(&mut *conn)
            .await?;
    Ok(stored)
}
