//! `vidpulse admin ...`: organizations, plans, web-app users, API keys and
//! dashboard tokens.

use std::sync::Arc;

use anyhow::{Context, bail};
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;
use vidpulse_api::dashboard::identity::{Identity, IdentityConfig};
use vidpulse_api::sign_in::session::{new_token, token_hash};
use vidpulse_domain::api_key::Scopes;
use vidpulse_domain::identity::{Role, dev_subject};
use vidpulse_domain::names::EmailAddress;
use vidpulse_domain::{OrgId, Plan, UserId, api_key};
use vidpulse_store::{NewApiKey, NewOrganization, Store};

/// Longest organization or key name.
const MAX_NAME_CHARS: usize = 200;

/// What `admin create-org` prints.
#[derive(Debug, Serialize)]
pub struct CreatedOrg {
    /// The new organization's id.
    pub organization_id: Uuid,
    /// Its name.
    pub name: String,
    /// Its plan.
    pub plan: Plan,
}

/// What `admin set-plan` prints.
#[derive(Debug, Serialize)]
pub struct PlanSet {
    /// The organization.
    pub organization_id: Uuid,
    /// Its plan.
    pub plan: Plan,
    /// The tracked-video quota in force.
    pub video_quota: i64,
    /// The tracked-creator cap in force.
    pub creator_cap: i64,
}

/// What `admin create-api-key` prints.
#[derive(Debug, Serialize)]
pub struct CreatedApiKey {
    /// The key: shown this once, stored only as a hash.
    pub api_key: String,
    /// The key's id.
    pub key_id: Uuid,
    /// Its organization.
    pub organization_id: Uuid,
    /// What it may do: `["read"]` or `["read", "write"]`.
    pub scopes: Scopes,
}

/// A trimmed name: not empty, not too long, and without a NUL character
/// (PostgreSQL refuses one; SQLite would store it).
fn checked_name(name: &str, what: &str) -> anyhow::Result<String> {
    let name = name.trim();
    if name.is_empty() {
        bail!("{what} must not be empty");
    }
    if name.contains('\0') {
        bail!("{what} contains a NUL character");
    }
    if name.chars().count() > MAX_NAME_CHARS {
        bail!("{what} must be at most {MAX_NAME_CHARS} characters");
    }
    Ok(name.to_owned())
}

/// Creates an organization, with `owner_email` as its owner when given.
pub async fn create_org(
    store: &Arc<dyn Store>,
    name: &str,
    plan: Plan,
    owner_email: Option<&str>,
    now: DateTime<Utc>,
) -> anyhow::Result<CreatedOrg> {
    let name = checked_name(name, "--name")?;
    let owner_email = match owner_email {
        Some(raw) => match EmailAddress::parse(raw) {
            Ok(email) => Some(email.as_str().to_owned()),
            Err(_) => bail!("--owner-email `{}` is not an e-mail address", raw.trim()),
        },
        None => None,
    };
    let org = store
        .create_organization(NewOrganization {
            name,
            plan,
            owner_subject: owner_email.as_deref().map(dev_subject),
            owner_email,
            now,
        })
        .await
        .context("cannot create the organization")?;
    Ok(CreatedOrg {
        organization_id: org.id.0,
        name: org.name,
        plan: org.plan,
    })
}

/// What `admin create-user` is asked.
#[derive(Debug, Clone)]
pub struct NewUser<'a> {
    /// The address.
    pub email: &'a str,
    /// An organization id, or the name of an organization: the user's own
    /// of that name when they have one, else a new one.
    pub org: Option<&'a str>,
    /// The role there (default: owner of a new organization, viewer of an
    /// existing one).
    pub role: Option<Role>,
    /// The web app's address.
    pub app_url: &'a str,
    /// Hours the link works.
    pub link_hours: u32,
}

/// The plans `admin create-user` is given.
#[derive(Debug, Clone, Copy)]
pub struct PlanChoice {
    /// `--plan`: a new organization's plan, or the one an existing
    /// organization must be on.
    pub plan: Option<Plan>,
    /// The plan of a new organization when `plan` names none
    /// (`--default-plan`).
    pub default_plan: Plan,
}

impl Default for PlanChoice {
    /// No `--plan`; new organizations on the free plan.
    fn default() -> Self {
        Self {
            plan: None,
            default_plan: Plan::Free,
        }
    }
}

/// What `admin create-user` prints.
#[derive(Debug, Serialize)]
pub struct CreatedUser {
    /// The user's id.
    pub user_id: Uuid,
    /// Their address.
    pub email: String,
    /// The organization they were added to, if any.
    pub organization_id: Option<Uuid>,
    /// Whether this run created that organization.
    pub organization_created: bool,
    /// Its plan.
    pub plan: Option<Plan>,
    /// Their role there.
    pub role: Option<&'static str>,
    /// Open it to set the password: it works once, until `expires_at`.
    pub set_password_url: String,
    /// When the link stops working (RFC 3339).
    pub expires_at: String,
}

/// The organization `create-user` puts the user in.
#[derive(Debug, Clone, Copy)]
struct Placement {
    /// The organization.
    org: OrgId,
    /// Its plan.
    plan: Plan,
    /// The role a new member gets.
    role: Role,
    /// Whether it was created for this user.
    created: bool,
}

/// [`create_user_on`] without `--plan`, new organizations on the free plan.
pub async fn create_user(
    store: &Arc<dyn Store>,
    new: NewUser<'_>,
    now: DateTime<Utc>,
) -> anyhow::Result<CreatedUser> {
    create_user_on(store, new, PlanChoice::default(), now).await
}

/// Creates (or finds) the user with `new.email`, puts them in an
/// organization when asked, and makes a one-time link to set their password.
///
/// Run again for the same address, it finds the organization of that name
/// the user already belongs to instead of creating another, and prints a new
/// link. A `--plan` that an existing organization is not on is refused
/// before anything is written.
pub async fn create_user_on(
    store: &Arc<dyn Store>,
    new: NewUser<'_>,
    plans: PlanChoice,
    now: DateTime<Utc>,
) -> anyhow::Result<CreatedUser> {
    let Ok(address) = EmailAddress::parse(new.email) else {
        bail!("--email {:?} is not an e-mail address", new.email.trim());
    };
    let placement = match new.org.map(str::trim) {
        None => None,
        Some(org) => Some(place(store, &address, org, new.role, plans, now).await?),
    };
    let user = store.user_by_email(address.as_str(), now).await?;
    let role = match placement {
        Some(p) => Some(add_or_keep(store, p.org, user.id, p.role, now).await?),
        None => None,
    };
    let token = new_token();
    let expires_at = now + chrono::Duration::hours(i64::from(new.link_hours));
    store
        .create_password_link(user.id, &token_hash(&token), now, expires_at)
        .await?;
    Ok(CreatedUser {
        user_id: user.id.0,
        email: user.email,
        organization_id: placement.map(|p| p.org.0),
        organization_created: placement.is_some_and(|p| p.created),
        plan: placement.map(|p| p.plan),
        role: role.map(Role::as_str),
        set_password_url: format!(
            "{}/set-password?token={token}",
            new.app_url.trim().trim_end_matches('/')
        ),
        expires_at: expires_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    })
}

/// The organization `--org` names for `address`: the one with that id; or
/// the user's own organization of that name (compared case-insensitively);
/// or a new one of that name, on `--plan` or the default plan.
async fn place(
    store: &Arc<dyn Store>,
    address: &EmailAddress,
    org: &str,
    role: Option<Role>,
    plans: PlanChoice,
    now: DateTime<Utc>,
) -> anyhow::Result<Placement> {
    let existing = match Uuid::parse_str(org) {
        Ok(id) => match store.organization(OrgId(id)).await? {
            Some(found) => (found.id, found.plan, Role::Viewer),
            None => bail!("organization {id} not found"),
        },
        Err(_) => {
            let name = checked_name(org, "--org")?;
            match own_organization(store, address, &name).await? {
                Some(found) => found,
                None => {
                    let plan = plans.plan.unwrap_or(plans.default_plan);
                    let created = create_org(store, &name, plan, None, now).await?;
                    return Ok(Placement {
                        org: OrgId(created.organization_id),
                        plan,
                        role: role.unwrap_or(Role::Owner),
                        created: true,
                    });
                }
            }
        }
    };
    let (org, plan, default_role) = existing;
    if let Some(asked) = plans.plan.filter(|asked| *asked != plan) {
        bail!(
            "organization {} is on the {plan} plan, not {asked}; change it with \
             `vidpulse admin set-plan --org {} --plan {asked}`, or leave out --plan",
            org.0,
            org.0
        );
    }
    Ok(Placement {
        org,
        plan,
        role: role.unwrap_or(default_role),
        created: false,
    })
}

/// The organization named `name` (case-insensitively) that the user with
/// `address` belongs to, with its plan and the role they hold there; the
/// first by name and id when several match.
async fn own_organization(
    store: &Arc<dyn Store>,
    address: &EmailAddress,
    name: &str,
) -> anyhow::Result<Option<(OrgId, Plan, Role)>> {
    let Some((user, _)) = store.password_of(address.as_str()).await? else {
        return Ok(None);
    };
    let key = name.to_lowercase();
    let Some(membership) = store
        .memberships(user.id)
        .await?
        .into_iter()
        .find(|m| m.name.to_lowercase() == key)
    else {
        return Ok(None);
    };
    let Some(org) = store.organization(membership.organization_id).await? else {
        return Ok(None);
    };
    Ok(Some((org.id, org.plan, membership.role)))
}

/// Adds `user` to `org` as `role`; a member already keeps their role. The
/// role they now hold there.
async fn add_or_keep(
    store: &Arc<dyn Store>,
    org: OrgId,
    user: UserId,
    role: Role,
    now: DateTime<Utc>,
) -> anyhow::Result<Role> {
    if store.add_member(org, user, role, now).await? {
        return Ok(role);
    }
    let held = store.membership_role(user, org).await?.unwrap_or(role);
    if held != role {
        tracing::warn!(org = %org.0, role = held.as_str(), "already a member: the role is left as it is");
    }
    Ok(held)
}

/// Changes an organization's plan and overrides.
pub async fn set_plan(
    store: &Arc<dyn Store>,
    org: Uuid,
    plan: Plan,
    video_quota: Option<u32>,
    creator_cap: Option<u32>,
) -> anyhow::Result<PlanSet> {
    let Some(o) = store
        .set_plan(
            OrgId(org),
            plan,
            video_quota.map(i64::from),
            creator_cap.map(i64::from),
        )
        .await?
    else {
        bail!("organization {org} not found");
    };
    let limits = o.limits();
    Ok(PlanSet {
        organization_id: o.id.0,
        plan: o.plan,
        video_quota: limits.video_quota,
        creator_cap: limits.creator_cap,
    })
}

/// Creates an API key with full access (`read` and `write`) for an organization.
pub async fn create_api_key(
    store: &Arc<dyn Store>,
    org: Uuid,
    name: Option<&str>,
    now: DateTime<Utc>,
) -> anyhow::Result<CreatedApiKey> {
    create_scoped_api_key(store, org, name, Scopes::FULL, now).await
}

/// Creates an API key that may do what `scopes` allow for an organization.
pub async fn create_scoped_api_key(
    store: &Arc<dyn Store>,
    org: Uuid,
    name: Option<&str>,
    scopes: Scopes,
    now: DateTime<Utc>,
) -> anyhow::Result<CreatedApiKey> {
    let name = name.map(|n| checked_name(n, "--name")).transpose()?;
    let secret = api_key::generate();
    let key = match store
        .create_api_key(NewApiKey {
            organization_id: OrgId(org),
            name,
            prefix: secret.prefix.clone(),
            key_hash: secret.hash.to_vec(),
            scopes,
            now,
        })
        .await
    {
        Ok(key) => key,
        Err(vidpulse_store::StoreError::NotFound) => bail!("organization {org} not found"),
        Err(e) => return Err(e.into()),
    };
    Ok(CreatedApiKey {
        api_key: secret.secret,
        key_id: key.id.0,
        organization_id: org,
        scopes: key.scopes,
    })
}

/// What `admin issue-token` prints.
#[derive(Debug, Serialize)]
pub struct IssuedToken {
    /// The JWT.
    pub token: String,
    /// Its subject.
    pub sub: String,
    /// Its e-mail claim.
    pub email: String,
    /// When it expires (RFC 3339).
    pub expires_at: String,
}

/// Longest lifetime `issue-token` signs: a year.
const MAX_TOKEN_TTL_SECS: u64 = 365 * 24 * 3600;

/// Signs a dashboard token for `email` with the development identity.
pub async fn issue_token(
    store: &Arc<dyn Store>,
    identity: IdentityConfig,
    email: &str,
    sub: Option<&str>,
    ttl_secs: u64,
    now: DateTime<Utc>,
) -> anyhow::Result<IssuedToken> {
    let Ok(address) = EmailAddress::parse(email) else {
        bail!("--email {:?} is not an e-mail address", email.trim());
    };
    let email = address.as_str();
    let sub = match sub.map(str::trim) {
        Some("") => bail!("--sub must not be empty"),
        Some(s) => s.to_owned(),
        None => dev_subject(email),
    };
    if !(1..=MAX_TOKEN_TTL_SECS).contains(&ttl_secs) {
        bail!("--ttl-secs must be between 1 and {MAX_TOKEN_TTL_SECS}");
    }
    let ttl = chrono::Duration::seconds(ttl_secs as i64);
    let identity = Identity::new(identity);
    let secret = identity.secret(store.as_ref()).await?;
    let token = identity
        .issue(secret, &sub, email, now, ttl)
        .context("signing the token")?;
    Ok(IssuedToken {
        token,
        sub,
        email: email.to_owned(),
        expires_at: (now + ttl).to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    })
}
