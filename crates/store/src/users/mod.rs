//! Dashboard users, their organizations, and the service's own settings.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use vidpulse_domain::identity::Role;
use vidpulse_domain::{ApiKeyId, OrgId, Plan, UserId};

use crate::StoreError;
use crate::orgs::ApiKeyRecord;

mod store;

pub(crate) use store::parse_role;

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
    ) -> Result<OrgId, StoreError> {
        self.register_organization_on(user, name, Plan::Free, now)
            .await
    }

    /// Creates an organization on `plan` with `user` as its admin (the web
    /// app's "start an organization", on the operator's default plan).
    async fn register_organization_on(
        &self,
        user: UserId,
        name: &str,
        plan: Plan,
        now: DateTime<Utc>,
    ) -> Result<OrgId, StoreError>;

    /// The organizations `user` belongs to, by name.
    async fn memberships(&self, user: UserId) -> Result<Vec<Membership>, StoreError>;

    /// The stored value of setting `key`, storing `value` first when there is
    /// none (the first writer wins; every caller gets the same value).
    async fn setting_or_insert(&self, key: &str, value: &str) -> Result<String, StoreError>;

    /// `user`'s role in `org`; `None` when not a member (or no such organization).
    async fn membership_role(&self, user: UserId, org: OrgId) -> Result<Option<Role>, StoreError>;

    /// The settings the dashboard shows for `org`.
    async fn organization_settings(&self, org: OrgId) -> Result<Option<OrgSettings>, StoreError>;

    /// Sets the address of `org`'s logo.
    async fn set_logo_url(&self, org: OrgId, url: &str) -> Result<(), StoreError>;

    /// Renames `org`.
    async fn rename_organization(&self, org: OrgId, name: &str) -> Result<(), StoreError>;

    /// Sets `org`'s currency (an ISO 4217 code, checked by the caller): the
    /// one campaigns created from now on get unless they name their own.
    async fn set_organization_currency(&self, org: OrgId, currency: &str)
    -> Result<(), StoreError>;

    /// Sets `user`'s interface language.
    async fn set_language(&self, user: UserId, language: &str) -> Result<(), StoreError>;

    /// Adds `user` to `org` with `role`; `false` when already a member (the
    /// role is then left as it is).
    async fn add_member(
        &self,
        org: OrgId,
        user: UserId,
        role: Role,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// The members of `org`, by e-mail address (case-insensitive).
    async fn members(&self, org: OrgId) -> Result<Vec<Member>, StoreError>;

    /// Removes `user` from `org` at the request of a member with role `by`,
    /// as [`vidpulse_domain::identity::removal`] allows (checked in the same
    /// transaction: only an owner removes an owner; the organization keeps
    /// an admin, someone to manage it, and its owner).
    async fn remove_member(
        &self,
        org: OrgId,
        by: Role,
        user: UserId,
    ) -> Result<MemberChange, StoreError>;

    /// Gives member `user` of `org` the role `role`, at the request of a
    /// member with role `by`, as [`vidpulse_domain::identity::role_change`]
    /// allows (checked in the same transaction).
    async fn set_member_role(
        &self,
        org: OrgId,
        by: Role,
        user: UserId,
        role: Role,
    ) -> Result<MemberChange, StoreError>;

    /// The API keys of `org`, newest first (revoked ones included).
    async fn list_api_keys(&self, org: OrgId) -> Result<Vec<ApiKeyRecord>, StoreError>;

    /// Revokes key `key` of `org`; `false` when `org` has no such key or it was revoked.
    async fn revoke_api_key(
        &self,
        org: OrgId,
        key: ApiKeyId,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
}

/// What the dashboard shows of an organization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgSettings {
    /// Id.
    pub id: OrgId,
    /// Name.
    pub name: String,
    /// Logo address, once uploaded.
    pub logo_url: Option<String>,
    /// Currency code of budgets.
    pub currency: String,
}

/// A member of an organization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The user.
    pub user_id: UserId,
    /// E-mail address.
    pub email: String,
    /// Role.
    pub role: Role,
}

/// The outcome of [`UserStore::remove_member`] and
/// [`UserStore::set_member_role`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberChange {
    /// Done: removed, or given the role.
    Done,
    /// The user is not a member.
    NotMember,
    /// The organization would be left without a member whose role is
    /// `admin`, or without anyone to manage it
    /// ([`vidpulse_domain::identity::may_remove`]).
    LastAdmin,
    /// The organization would be left without an owner.
    LastOwner,
    /// Only a member with this role (or above) may make this change.
    NeedsRole(Role),
}
