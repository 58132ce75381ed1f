//! Organizations and API keys, stored: the one implementation of
//! [`OrgStore`] for both backends, and the organization lock other roles'
//! checks hold.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::AssertSqlSafe;
use vidpulse_domain::{ApiKeyId, OrgId, Plan, UserId};

use super::rows::{API_KEY_COLUMNS, ApiKeyOwnerRow, ApiKeyRow, OrgRow};
use super::{
    ApiKeyOwner, ApiKeyRecord, NewApiKey, NewOrganization, OrgStore, Organization, PlanUse,
};
use crate::StoreError;
use crate::creators::creators_in_use;
use crate::sql::{Conn, Dialect, SqlStore, rollback_with};
use crate::videos::videos_in_use;

const ORG_COLUMNS: &str = "id, name, plan, video_quota, creator_cap, created_at";

#[async_trait]
impl<D: Dialect> OrgStore for SqlStore<D> {
    async fn create_organization(&self, new: NewOrganization) -> Result<Organization, StoreError> {
        let id = OrgId::new();
        let mut tx = self.write_tx().await?;
        D::query("INSERT INTO organizations (id, name, plan, created_at) VALUES ($1, $2, $3, $4)")
            .bind(id.0)
            .bind(&new.name)
            .bind(new.plan.as_str())
            .bind(new.now)
            .execute(&mut *tx)
            .await?;
        if let Some(email) = &new.owner_email {
            let user_id: uuid::Uuid = D::query(
                "INSERT INTO users (id, subject, email, email_lower, created_at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (email_lower) DO UPDATE SET email_lower = excluded.email_lower
                 RETURNING id",
            )
            .bind(UserId::new().0)
            .bind(&new.owner_subject)
            .bind(email)
            .bind(vidpulse_domain::identity::email_key(email))
            .bind(new.now)
            .fetch_scalar(&mut *tx)
            .await?;
            D::query(
                "INSERT INTO memberships (organization_id, user_id, role, created_at)
                 VALUES ($1, $2, 'owner', $3)",
            )
            .bind(id.0)
            .bind(user_id)
            .bind(new.now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Organization {
            id,
            name: new.name,
            plan: new.plan,
            video_quota_override: None,
            creator_cap_override: None,
            created_at: new.now,
        })
    }

    async fn organization(&self, id: OrgId) -> Result<Option<Organization>, StoreError> {
        let sql = format!("SELECT {ORG_COLUMNS} FROM organizations WHERE id = $1");
        D::query(AssertSqlSafe(sql))
            .bind(id.0)
            .fetch_optional::<OrgRow>(&mut *self.read().await?)
            .await?
            .map(Organization::try_from)
            .transpose()
    }

    async fn set_plan(
        &self,
        id: OrgId,
        plan: Plan,
        video_quota: Option<i64>,
        creator_cap: Option<i64>,
    ) -> Result<Option<Organization>, StoreError> {
        let sql = format!(
            "UPDATE organizations SET plan = $2, video_quota = $3, creator_cap = $4
             WHERE id = $1 RETURNING {ORG_COLUMNS}"
        );
        D::query(AssertSqlSafe(sql))
            .bind(id.0)
            .bind(plan.as_str())
            .bind(video_quota)
            .bind(creator_cap)
            .fetch_optional::<OrgRow>(&mut *self.write().await?)
            .await?
            .map(Organization::try_from)
            .transpose()
    }

    async fn plan_use(
        &self,
        id: OrgId,
        now: DateTime<Utc>,
        month_start: DateTime<Utc>,
    ) -> Result<Option<(Organization, PlanUse)>, StoreError> {
        // A read-only transaction: the three counts are of one moment.
        let mut tx = self.pool.begin().await?;
        let sql = format!("SELECT {ORG_COLUMNS} FROM organizations WHERE id = $1");
        let Some(row) = D::query(AssertSqlSafe(sql))
            .bind(id.0)
            .fetch_optional::<OrgRow>(&mut *tx)
            .await?
        else {
            return rollback_with(tx, Ok(None)).await;
        };
        let organization = Organization::try_from(row)?;
        let tracked_videos = videos_in_use(&mut tx, id, now).await?;
        let creators = creators_in_use(&mut tx, id).await?;
        // As `charge_within_cap` counts the month's searches (v1 trends).
        let trend_searches: i64 = D::query(
            "SELECT count(*) FROM credit_ledger
             WHERE organization_id = $1 AND reason = 'trend_search' AND created_at >= $2",
        )
        .bind(id.0)
        .bind(month_start)
        .fetch_scalar(&mut *tx)
        .await?;
        tx.rollback().await?;
        Ok(Some((
            organization,
            PlanUse {
                tracked_videos,
                creators,
                trend_searches,
            },
        )))
    }

    async fn create_api_key(&self, new: NewApiKey) -> Result<ApiKeyRecord, StoreError> {
        let sql = format!(
            "INSERT INTO api_keys (id, organization_id, name, prefix, key_hash, scopes, created_at)
             SELECT $1, id, $3, $4, $5, $6, $7 FROM organizations WHERE id = $2
             RETURNING {API_KEY_COLUMNS}"
        );
        D::query(AssertSqlSafe(sql))
            .bind(ApiKeyId::new().0)
            .bind(new.organization_id.0)
            .bind(&new.name)
            .bind(&new.prefix)
            .bind(&new.key_hash)
            .bind(new.scopes.to_string())
            .bind(new.now)
            .fetch_one::<ApiKeyRow>(&mut *self.read().await?)
            .await?
            .try_into()
    }

    async fn api_keys_by_prefix(&self, prefix: &str) -> Result<Vec<ApiKeyOwner>, StoreError> {
        D::query(
            "SELECT k.id, k.organization_id, k.name, k.prefix, k.key_hash, k.scopes,
                    k.created_at, k.last_used_at, k.revoked_at,
                    o.name AS org_name, o.plan AS org_plan, o.video_quota AS org_video_quota,
                    o.creator_cap AS org_creator_cap, o.created_at AS org_created_at
             FROM api_keys k JOIN organizations o ON o.id = k.organization_id
             WHERE k.prefix = $1 AND k.revoked_at IS NULL",
        )
        .bind(prefix)
        .fetch_all::<ApiKeyOwnerRow>(&mut *self.read().await?)
        .await?
        .into_iter()
        .map(ApiKeyOwner::try_from)
        .collect()
    }
}

/// Locks organization `org`'s row until commit where the backend has row
/// locks ([`Dialect::ORG_LOCK`]), so a check made under it (a quota, a cap)
/// holds when the transaction commits. SQLite's one writer needs nothing.
pub(crate) async fn lock_org<D: Dialect>(
    conn: &mut Conn<D>,
    org: uuid::Uuid,
) -> Result<(), StoreError> {
    if !D::ORG_LOCK.is_empty() {
        D::query(sqlx::AssertSqlSafe(format!(
            "SELECT id FROM organizations WHERE id = $1 {}",
            D::ORG_LOCK
        )))
        .bind(org)
        .execute(conn)
        .await?;
    }
    Ok(())
}
