//! The credit ledger on PostgreSQL.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::PgStore;
use crate::StoreError;
use crate::credits::{CappedCharge, Charge, CreditStore};

const INSERT: &str = "INSERT INTO credit_ledger
    (organization_id, api_key_id, request_id, amount, reason, subject, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";

#[async_trait]
impl CreditStore for PgStore {
    async fn charge(&self, c: &Charge) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(INSERT)
            .bind(c.organization_id.0)
            .bind(c.api_key_id.map(|k| k.0))
            .bind(&c.request_id)
            .bind(c.amount)
            .bind(c.reason)
            .bind(&c.subject)
            .bind(c.at)
            .fetch_one(&self.pool)
            .await?)
    }

    async fn charge_within_cap(
        &self,
        c: &Charge,
        since: DateTime<Utc>,
        cap: i64,
    ) -> Result<CappedCharge, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Concurrent charges of one organization queue on its row.
        sqlx::query("SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE")
            .bind(c.organization_id.0)
            .execute(&mut *tx)
            .await?;
        let used: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM credit_ledger
             WHERE organization_id = $1 AND reason = $2 AND created_at >= $3",
        )
        .bind(c.organization_id.0)
        .bind(c.reason)
        .bind(since)
        .fetch_one(&mut *tx)
        .await?;
        if used >= cap {
            return Ok(CappedCharge::CapReached(used));
        }
        let id: i64 = sqlx::query_scalar(INSERT)
            .bind(c.organization_id.0)
            .bind(c.api_key_id.map(|k| k.0))
            .bind(&c.request_id)
            .bind(c.amount)
            .bind(c.reason)
            .bind(&c.subject)
            .bind(c.at)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(CappedCharge::Charged(id))
    }

    async fn refund(&self, ledger_id: i64) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM credit_ledger WHERE id = $1")
            .bind(ledger_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
