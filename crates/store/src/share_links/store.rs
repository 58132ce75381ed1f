//! Share links, stored: the one implementation of [`ShareLinkStore`] for
//! both backends.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::{CampaignId, OrgId, UserId};

use super::{NewShareLink, ShareLink, ShareLinkStore};
use crate::StoreError;
use crate::backend::Db;
use crate::sql::SqlStore;

/// A `share_links` row.
#[derive(sqlx::FromRow)]
struct LinkRow {
    id: Uuid,
    organization_id: Uuid,
    campaign_id: Uuid,
    label: Option<String>,
    show_spend: bool,
    expires_at: Option<DateTime<Utc>>,
    revoked_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    created_by: Option<Uuid>,
    last_viewed_at: Option<DateTime<Utc>>,
    views: i64,
}

impl From<LinkRow> for ShareLink {
    fn from(r: LinkRow) -> Self {
        Self {
            id: r.id,
            organization_id: OrgId(r.organization_id),
            campaign_id: CampaignId(r.campaign_id),
            label: r.label,
            show_spend: r.show_spend,
            expires_at: r.expires_at,
            revoked_at: r.revoked_at,
            created_at: r.created_at,
            created_by: r.created_by.map(UserId),
            last_viewed_at: r.last_viewed_at,
            views: r.views,
        }
    }
}

/// The columns of [`LinkRow`].
const COLUMNS: &str = "id, organization_id, campaign_id, label, show_spend, expires_at, \
                       revoked_at, created_at, created_by, last_viewed_at, views";

/// A link that opens at `$2`: neither revoked nor expired.
const OPENS: &str = "revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)";

#[async_trait]
impl<D: Db> ShareLinkStore for SqlStore<D> {
    async fn create_share_link(
        &self,
        org: OrgId,
        new: NewShareLink,
        now: DateTime<Utc>,
    ) -> Result<Option<ShareLink>, StoreError> {
        let mut conn = self.write().await?;
        // Inserted only when the campaign is the organization's.
        let row: Option<LinkRow> = D::query(AssertSqlSafe(format!(
            "INSERT INTO share_links (id, organization_id, campaign_id, token_hash, label,
                                      show_spend, expires_at, created_at, created_by)
             SELECT $1, c.organization_id, c.id, $4, $5, $6, $7, $8, $9
             FROM campaigns c WHERE c.organization_id = $2 AND c.id = $3
             RETURNING {COLUMNS}"
        )))
        .bind(Uuid::now_v7())
        .bind(org.0)
        .bind(new.campaign_id.0)
        .bind(new.token_hash.as_str())
        .bind(new.label.as_deref())
        .bind(new.show_spend)
        .bind(new.expires_at)
        .bind(now)
        .bind(new.created_by.map(|u| u.0))
        .fetch_optional(&mut *conn)
        .await?;
        Ok(row.map(ShareLink::from))
    }

    async fn share_links(
        &self,
        org: OrgId,
        campaign: CampaignId,
    ) -> Result<Vec<ShareLink>, StoreError> {
        let rows: Vec<LinkRow> = D::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM share_links
             WHERE organization_id = $1 AND campaign_id = $2
             ORDER BY created_at DESC, id DESC"
        )))
        .bind(org.0)
        .bind(campaign.0)
        .fetch_all(&mut *self.read().await?)
        .await?;
        Ok(rows.into_iter().map(ShareLink::from).collect())
    }

    async fn revoke_share_link(
        &self,
        org: OrgId,
        campaign: CampaignId,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<ShareLink>, StoreError> {
        let row: Option<LinkRow> = D::query(AssertSqlSafe(format!(
            "UPDATE share_links SET revoked_at = coalesce(revoked_at, $4)
             WHERE organization_id = $1 AND campaign_id = $2 AND id = $3
             RETURNING {COLUMNS}"
        )))
        .bind(org.0)
        .bind(campaign.0)
        .bind(id)
        .bind(now)
        .fetch_optional(&mut *self.write().await?)
        .await?;
        Ok(row.map(ShareLink::from))
    }

    async fn open_share_link(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
        count_view: bool,
    ) -> Result<Option<ShareLink>, StoreError> {
        let row: Option<LinkRow> = if count_view {
            D::query(AssertSqlSafe(format!(
                "UPDATE share_links SET views = views + 1, last_viewed_at = $2
                 WHERE token_hash = $1 AND {OPENS}
                 RETURNING {COLUMNS}"
            )))
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&mut *self.write().await?)
            .await?
        } else {
            D::query(AssertSqlSafe(format!(
                "SELECT {COLUMNS} FROM share_links WHERE token_hash = $1 AND {OPENS}"
            )))
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&mut *self.read().await?)
            .await?
        };
        Ok(row.map(ShareLink::from))
    }
}
