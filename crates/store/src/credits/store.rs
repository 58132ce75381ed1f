//! The credit ledger, stored: the one implementation of [`CreditStore`] for
//! both backends, and the charge other roles write inside their own
//! transactions.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{CappedCharge, Charge, CreditStore};
use crate::StoreError;
use crate::sql::{Builder, Dialect, SqlStore, Tx, rollback_with};

const INSERT: &str = "INSERT INTO credit_ledger
    (organization_id, api_key_id, request_id, amount, reason, subject, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";

/// Ledger rows per multi-row insert: 7 binds each stays under SQLite's 32,766.
const CHARGES_PER_INSERT: usize = 1000;

/// Writes charge `c` inside the caller's transaction; the ledger row's id.
pub(crate) async fn insert_charge<D: Dialect>(
    tx: &mut Tx<D>,
    c: &Charge,
) -> Result<i64, StoreError> {
    D::query(INSERT)
        .bind(c.organization_id.0)
        .bind(c.api_key_id.map(|k| k.0))
        .bind(&c.request_id)
        .bind(c.amount)
        .bind(c.reason)
        .bind(&c.subject)
        .bind(c.at)
        .fetch_scalar(&mut **tx)
        .await
}

#[async_trait]
impl<D: Dialect> CreditStore for SqlStore<D> {
    async fn charge(&self, c: &Charge) -> Result<i64, StoreError> {
        Ok(D::query(INSERT)
            .bind(c.organization_id.0)
            .bind(c.api_key_id.map(|k| k.0))
            .bind(&c.request_id)
            .bind(c.amount)
            .bind(c.reason)
            .bind(&c.subject)
            .bind(c.at)
            .fetch_scalar(&mut *self.write().await?)
            .await?)
    }

    async fn charge_all(&self, charges: &[Charge]) -> Result<(), StoreError> {
        if charges.is_empty() {
            return Ok(());
        }
        let mut tx = self.write_tx().await?;
        for chunk in charges.chunks(CHARGES_PER_INSERT) {
            let mut insert = Builder::<D>::new(
                "INSERT INTO credit_ledger
                 (organization_id, api_key_id, request_id, amount, reason, subject, created_at) ",
            );
            insert.push_values(chunk, |b, c| {
                b.bind(c.organization_id.0)
                    .bind(c.api_key_id.map(|k| k.0))
                    .bind(c.request_id.as_str())
                    .bind(c.amount)
                    .bind(c.reason)
                    .bind(c.subject.as_deref())
                    .bind(c.at);
            });
            insert.build().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn charge_within_cap(
        &self,
        c: &Charge,
        since: DateTime<Utc>,
        cap: i64,
    ) -> Result<CappedCharge, StoreError> {
        let mut tx = self.write_tx().await?;
        // Concurrent charges of one organization queue on its row.
        crate::orgs::lock_org::<D>(&mut tx, c.organization_id.0).await?;
        let used: i64 = D::query(
            "SELECT count(*) FROM credit_ledger
             WHERE organization_id = $1 AND reason = $2 AND created_at >= $3",
        )
        .bind(c.organization_id.0)
        .bind(c.reason)
        .bind(since)
        .fetch_scalar(&mut *tx)
        .await?;
        if used >= cap {
            return rollback_with(tx, Ok(CappedCharge::CapReached(used))).await;
        }
        let id = insert_charge(&mut tx, c).await?;
        tx.commit().await?;
        Ok(CappedCharge::Charged(id))
    }

    async fn refund(&self, ledger_id: i64) -> Result<(), StoreError> {
        D::query("DELETE FROM credit_ledger WHERE id = $1")
            .bind(ledger_id)
            .execute(&mut *self.write().await?)
            .await?;
        Ok(())
    }
}
