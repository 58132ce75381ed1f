//! `vidpulse admin ...`: organizations, plans, API keys and dashboard tokens.

use std::sync::Arc;

use anyhow::{Context, bail};
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;
use vidpulse_api::dashboard::identity::{Identity, IdentityConfig};
use vidpulse_domain::identity::dev_subject;
use vidpulse_domain::names::EmailAddress;
use vidpulse_domain::{OrgId, Plan, api_key};
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

/// Creates an API key for an organization.
pub async fn create_api_key(
    store: &Arc<dyn Store>,
    org: Uuid,
    name: Option<&str>,
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
