//! Organizations and API keys on SQLite.

use async_trait::async_trait;
use vidpulse_domain::{ApiKeyId, OrgId, Plan, UserId};

use super::SqliteStore;
use crate::StoreError;
use crate::orgs::{ApiKeyOwner, ApiKeyRecord, NewApiKey, NewOrganization, OrgStore, Organization};
use crate::rows::{ApiKeyOwnerRow, ApiKeyRow, OrgRow};

const ORG_COLUMNS: &str = "id, name, plan, video_quota, creator_cap, created_at";

#[async_trait]
impl OrgStore for SqliteStore {
    async fn create_organization(&self, new: NewOrganization) -> Result<Organization, StoreError> {
        let id = OrgId::new();
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO organizations (id, name, plan, created_at) VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(id.0)
        .bind(&new.name)
        .bind(new.plan.as_str())
        .bind(new.now)
        .execute(&mut *tx)
        .await?;
        if let Some(email) = &new.owner_email {
            let user_id: uuid::Uuid = sqlx::query_scalar(
                "INSERT INTO users (id, subject, email, email_lower, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (email_lower) DO UPDATE SET email_lower = excluded.email_lower
                 RETURNING id",
            )
            .bind(UserId::new().0)
            .bind(&new.owner_subject)
            .bind(email)
            .bind(vidpulse_domain::identity::email_key(email))
            .bind(new.now)
            .fetch_one(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO memberships (organization_id, user_id, role, created_at)
                 VALUES (?1, ?2, 'owner', ?3)",
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
        let sql = format!("SELECT {ORG_COLUMNS} FROM organizations WHERE id = ?1");
        sqlx::query_as::<_, OrgRow>(sqlx::AssertSqlSafe(sql))
            .bind(id.0)
            .fetch_optional(&self.pool)
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
            "UPDATE organizations SET plan = ?2, video_quota = ?3, creator_cap = ?4
             WHERE id = ?1 RETURNING {ORG_COLUMNS}"
        );
        sqlx::query_as::<_, OrgRow>(sqlx::AssertSqlSafe(sql))
            .bind(id.0)
            .bind(plan.as_str())
            .bind(video_quota)
            .bind(creator_cap)
            .fetch_optional(&self.pool)
            .await?
            .map(Organization::try_from)
            .transpose()
    }

    async fn create_api_key(&self, new: NewApiKey) -> Result<ApiKeyRecord, StoreError> {
        let row = sqlx::query_as::<_, ApiKeyRow>(
            "INSERT INTO api_keys (id, organization_id, name, prefix, key_hash, created_at)
             SELECT ?1, id, ?3, ?4, ?5, ?6 FROM organizations WHERE id = ?2
             RETURNING id, organization_id, name, prefix, key_hash, created_at, last_used_at, revoked_at",
        )
        .bind(ApiKeyId::new().0)
        .bind(new.organization_id.0)
        .bind(&new.name)
        .bind(&new.prefix)
        .bind(&new.key_hash)
        .bind(new.now)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound)?;
        Ok(row.into())
    }

    async fn api_keys_by_prefix(&self, prefix: &str) -> Result<Vec<ApiKeyOwner>, StoreError> {
        sqlx::query_as::<_, ApiKeyOwnerRow>(
            "SELECT k.id, k.organization_id, k.name, k.prefix, k.key_hash, k.created_at,
                    k.last_used_at, k.revoked_at,
                    o.name AS org_name, o.plan AS org_plan, o.video_quota AS org_video_quota,
                    o.creator_cap AS org_creator_cap, o.created_at AS org_created_at
             FROM api_keys k JOIN organizations o ON o.id = k.organization_id
             WHERE k.prefix = ?1 AND k.revoked_at IS NULL",
        )
        .bind(prefix)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(ApiKeyOwner::try_from)
        .collect()
    }
}
