//! Share links: read-only, revocable links to one campaign's report for
//! people without an account (migration 0032). A link is found by the
//! SHA-256 of its token (the token itself is never stored); it opens while
//! it is neither revoked nor expired, and every page opened counts a view.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::{CampaignId, OrgId, UserId};

use crate::StoreError;

mod store;

/// A share link as its organization sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareLink {
    /// Its id.
    pub id: Uuid,
    /// The organization that made it.
    pub organization_id: OrgId,
    /// The campaign it shows.
    pub campaign_id: CampaignId,
    /// A name for the team ("Client X, weekly call").
    pub label: Option<String>,
    /// Whether the page shows spend, budget and the ratios of money.
    pub show_spend: bool,
    /// When it stops opening (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked.
    pub revoked_at: Option<DateTime<Utc>>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// The member who made it (`None`: an API key, or a member since removed).
    pub created_by: Option<UserId>,
    /// When its page was last opened.
    pub last_viewed_at: Option<DateTime<Utc>>,
    /// How many times its page was opened.
    pub views: i64,
}

impl ShareLink {
    /// Whether the link opens at `now`: not revoked, not expired.
    pub fn is_active(&self, now: DateTime<Utc>) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|at| at > now)
    }
}

/// What making a link needs (checked by the caller).
#[derive(Debug, Clone, PartialEq)]
pub struct NewShareLink {
    /// The campaign shown (must be the organization's).
    pub campaign_id: CampaignId,
    /// SHA-256 of the token, lowercase hex.
    pub token_hash: String,
    /// The label.
    pub label: Option<String>,
    /// Whether spend is shown.
    pub show_spend: bool,
    /// When it stops opening.
    pub expires_at: Option<DateTime<Utc>>,
    /// The member making it.
    pub created_by: Option<UserId>,
}

/// The share links of organizations' campaigns.
#[async_trait]
pub trait ShareLinkStore {
    /// Makes a link to the organization's campaign; `None` when the
    /// organization has no such campaign.
    async fn create_share_link(
        &self,
        org: OrgId,
        new: NewShareLink,
        now: DateTime<Utc>,
    ) -> Result<Option<ShareLink>, StoreError>;

    /// Every link of the organization's campaign, revoked ones included,
    /// newest first.
    async fn share_links(
        &self,
        org: OrgId,
        campaign: CampaignId,
    ) -> Result<Vec<ShareLink>, StoreError>;

    /// Revokes link `id` of the organization's campaign at `now` (a link
    /// revoked already keeps its first `revoked_at`); `None` when there is
    /// no such link.
    async fn revoke_share_link(
        &self,
        org: OrgId,
        campaign: CampaignId,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<ShareLink>, StoreError>;

    /// The link whose token hashes to `token_hash` when it opens at `now`
    /// (neither revoked nor expired); with `count_view`, its page was
    /// opened: `views + 1` and `last_viewed_at = now`, in the same statement.
    async fn open_share_link(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
        count_view: bool,
    ) -> Result<Option<ShareLink>, StoreError>;
}
