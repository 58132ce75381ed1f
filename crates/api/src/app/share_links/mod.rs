//! The share link use cases (docs/api.md, "Share links"): a campaign's
//! read-only, revocable links for clients, made (the token shown once,
//! only its SHA-256 kept), listed (revoked ones too, with `revoked_at`, so
//! the team sees the history) and revoked. `/v1/campaigns/{id}/share-links`
//! and `/dashboard/campaigns/{id}/share-links` call them alike; each face
//! checks the caller's role and plan first. What a link opens is in
//! [`shared`].

pub mod shared;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::{CampaignId, OrgId, UserId};
use vidpulse_store::{NewShareLink, ShareLink};

use crate::app::campaigns::campaign_not_found;
use crate::app::rfc3339;
use crate::error::ApiError;
use crate::input::{Fault, Refusals, not_an_object};
use crate::state::AppState;

/// Longest `label`, in characters (after trimming).
pub const LABEL_MAX_CHARS: usize = 200;
/// What every token starts with, so a leaked one is recognised.
pub const TOKEN_PREFIX: &str = "vpshare_";

/// A share link as the team sees it (never its token, except in the
/// creation's answer).
#[derive(Debug, Serialize, ToSchema)]
pub struct ShareLinkView {
    /// Its id.
    pub id: Uuid,
    /// The campaign it shows.
    pub campaign_id: Uuid,
    /// A name for the team.
    pub label: Option<String>,
    /// Whether the page shows spend, budget, CPM and CPE.
    pub show_spend: bool,
    /// When it stops opening (`null`: never).
    pub expires_at: Option<String>,
    /// When it was made.
    pub created_at: String,
    /// When its page was last opened.
    pub last_viewed_at: Option<String>,
    /// How many times its page was opened.
    pub views: i64,
    /// When it was revoked (`null`: not revoked).
    pub revoked_at: Option<String>,
    /// Whether it opens now: neither revoked nor expired.
    pub active: bool,
    /// Only when just made: the page's address (`{public URL}/share/{token}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Only when just made: the token, shown this once (`vpshare_…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl ShareLinkView {
    /// The view of `link` at `now`, without its token.
    fn of(link: ShareLink, now: DateTime<Utc>) -> Self {
        Self {
            id: link.id,
            campaign_id: link.campaign_id.0,
            active: link.is_active(now),
            label: link.label,
            show_spend: link.show_spend,
            expires_at: link.expires_at.map(rfc3339),
            created_at: rfc3339(link.created_at),
            last_viewed_at: link.last_viewed_at.map(rfc3339),
            views: link.views,
            revoked_at: link.revoked_at.map(rfc3339),
            url: None,
            token: None,
        }
    }
}

/// Body of a creation; every field is optional (`{}` makes a link that
/// never expires and hides the money).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateShareLink {
    /// A name for the team, at most 200 characters; `""` or `null`: none.
    #[serde(default)]
    #[schema(max_length = 200)]
    label: Option<String>,
    /// When the link stops opening: RFC 3339 with an offset, in the future; `null`: never.
    #[serde(default)]
    expires_at: Option<String>,
    /// Whether the page shows spend, budget, budget left, CPM and CPE (default `false`).
    #[serde(default)]
    show_spend: Option<bool>,
}

impl Refusals for CreateShareLink {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let field = fault.field();
        let message = match field {
            "" => return not_an_object(),
            "label" => "`label` must be a string or null".to_owned(),
            "expires_at" => {
                "`expires_at` must be an RFC 3339 time such as 2026-12-31T23:59:59Z, or null"
                    .to_owned()
            }
            "show_spend" => "`show_spend` must be true or false".to_owned(),
            unknown => {
                format!("unknown field `{unknown}`; known: label, expires_at, show_spend")
            }
        };
        ApiError::validation(field, message)
    }
}

/// A new token: the prefix and 32 random bytes in base64url, unpadded.
pub fn new_token() -> String {
    format!(
        "{TOKEN_PREFIX}{}",
        URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>())
    )
}

/// The SHA-256 of `token`, lowercase hex: what the store keeps and finds.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The label, checked: trimmed, empty is none, at most [`LABEL_MAX_CHARS`].
fn checked_label(raw: Option<&str>) -> Result<Option<String>, ApiError> {
    let label = raw.map(str::trim).filter(|l| !l.is_empty());
    if label.is_some_and(|l| l.chars().count() > LABEL_MAX_CHARS) {
        return Err(ApiError::validation(
            "label",
            format!("`label` must be at most {LABEL_MAX_CHARS} characters"),
        ));
    }
    Ok(label.map(str::to_owned))
}

/// The expiry, checked: an RFC 3339 time after `now`.
fn checked_expiry(
    raw: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, ApiError> {
    let Some(raw) = raw.map(str::trim) else {
        return Ok(None);
    };
    let at = DateTime::parse_from_rfc3339(raw)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            ApiError::validation(
                "expires_at",
                format!("`expires_at` must be an RFC 3339 time such as 2026-12-31T23:59:59Z; got `{raw}`"),
            )
        })?;
    if at <= now {
        return Err(ApiError::validation(
            "expires_at",
            "`expires_at` must be in the future",
        ));
    }
    Ok(Some(at))
}

/// The link's page: `{public URL}/share/{token}`.
fn link_url(app: &AppState, token: &str) -> String {
    format!(
        "{}/share/{token}",
        app.config.public_url.trim_end_matches('/')
    )
}

/// The answer for a link the campaign does not have.
fn link_not_found() -> ApiError {
    ApiError::not_found("No such share link")
}

/// The campaign and link ids of a link's path (an unparsable one is not found).
pub(crate) fn link_ids(campaign: &str, link: &str) -> Result<(CampaignId, Uuid), ApiError> {
    let campaign = Uuid::parse_str(campaign)
        .map(CampaignId)
        .map_err(|_| campaign_not_found())?;
    let link = Uuid::parse_str(link).map_err(|_| link_not_found())?;
    Ok((campaign, link))
}

/// Makes a link to `org`'s campaign `campaign` from `body`, by `by` (a
/// member; `None`: an API key). The answer carries the token and URL.
pub(crate) async fn create_share_link(
    app: &AppState,
    org: OrgId,
    campaign: CampaignId,
    body: CreateShareLink,
    by: Option<UserId>,
) -> Result<ShareLinkView, ApiError> {
    let now = app.clock.now();
    let label = checked_label(body.label.as_deref())?;
    let expires_at = checked_expiry(body.expires_at.as_deref(), now)?;
    let token = new_token();
    let new = NewShareLink {
        campaign_id: campaign,
        token_hash: token_hash(&token),
        label,
        show_spend: body.show_spend.unwrap_or(false),
        expires_at,
        created_by: by,
    };
    let link = app
        .store
        .create_share_link(org, new, now)
        .await?
        .ok_or_else(campaign_not_found)?;
    let mut view = ShareLinkView::of(link, now);
    view.url = Some(link_url(app, &token));
    view.token = Some(token);
    Ok(view)
}

/// Every link of `org`'s campaign `campaign`, newest first, revoked ones included.
pub(crate) async fn list_share_links(
    app: &AppState,
    org: OrgId,
    campaign: CampaignId,
) -> Result<Vec<ShareLinkView>, ApiError> {
    app.store
        .campaign(org, campaign)
        .await?
        .ok_or_else(campaign_not_found)?;
    let now = app.clock.now();
    let links = app.store.share_links(org, campaign).await?;
    Ok(links
        .into_iter()
        .map(|l| ShareLinkView::of(l, now))
        .collect())
}

/// `data` of a revocation.
#[derive(Debug, Serialize, ToSchema)]
pub struct Revoked {
    /// The link revoked.
    pub id: Uuid,
    /// Always `true`.
    pub revoked: bool,
    /// When it was revoked (the first time, for a link revoked already).
    pub revoked_at: String,
}

/// Revokes link `id` of `org`'s campaign `campaign`: its page and data
/// answer 404 from now on. Revoking a revoked link changes nothing.
pub(crate) async fn revoke_share_link(
    app: &AppState,
    org: OrgId,
    campaign: CampaignId,
    id: Uuid,
) -> Result<Revoked, ApiError> {
    let now = app.clock.now();
    let link = app
        .store
        .revoke_share_link(org, campaign, id, now)
        .await?
        .ok_or_else(link_not_found)?;
    Ok(Revoked {
        id: link.id,
        revoked: true,
        revoked_at: rfc3339(link.revoked_at.unwrap_or(now)),
    })
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn tokens_are_prefixed_random_and_hashed_in_hex() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert!(a.starts_with(TOKEN_PREFIX));
        // 32 bytes in unpadded base64url: 43 characters.
        assert_eq!(a.len(), TOKEN_PREFIX.len() + 43);
        assert!(!a.contains(['=', '+', '/']));
        let hash = token_hash(&a);
        assert_eq!(hash.len(), 64);
        assert_eq!(hash, token_hash(&a));
        assert_ne!(hash, token_hash(&b));
    }

    #[test]
    fn labels_and_expiries_are_checked() {
        assert_eq!(checked_label(Some("  ")).unwrap(), None);
        assert_eq!(
            checked_label(Some(" Acme ")).unwrap().as_deref(),
            Some("Acme")
        );
        assert!(checked_label(Some(&"x".repeat(201))).is_err());
        assert!(checked_label(Some(&"ü".repeat(200))).is_ok());
        let now = Utc.with_ymd_and_hms(2026, 11, 27, 12, 0, 0).unwrap();
        assert_eq!(checked_expiry(None, now).unwrap(), None);
        assert!(checked_expiry(Some("2026-11-28T00:00:00+01:00"), now).is_ok());
        for bad in [
            "2026-11-27T12:00:00Z",
            "2026-01-01T00:00:00Z",
            "tomorrow",
            "2026-12-01",
        ] {
            let e = checked_expiry(Some(bad), now).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("expires_at"), "{bad}");
        }
    }
}
