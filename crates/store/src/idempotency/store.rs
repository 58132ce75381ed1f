//! Idempotency keys, stored: the one implementation of [`IdempotencyStore`]
//! for both backends.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::OrgId;

use super::{IdempotencyStore, KeptAnswer, KeyClaim};
use crate::StoreError;
use crate::error::corrupt;
use crate::sql::{Dialect, SqlStore, rollback_with};

/// An `idempotency_keys` row, as a claim reads it.
#[derive(sqlx::FromRow)]
struct KeyRow {
    fingerprint: String,
    created_at: DateTime<Utc>,
    lease_until: Option<DateTime<Utc>>,
    status: Option<i64>,
    headers: Option<String>,
    body: Option<Vec<u8>>,
}

impl KeyRow {
    /// The kept answer, once the request that claimed the key ended.
    fn answer(self) -> Result<Option<KeptAnswer>, StoreError> {
        let Some(status) = self.status else {
            return Ok(None);
        };
        let status = u16::try_from(status).map_err(|_| corrupt("an idempotent answer's status"))?;
        let headers: Vec<(String, String)> =
            serde_json::from_str(self.headers.as_deref().unwrap_or("[]"))
                .map_err(|e| corrupt(format!("an idempotent answer's headers: {e}")))?;
        Ok(Some(KeptAnswer {
            status,
            headers,
            body: self.body.unwrap_or_default(),
        }))
    }
}

#[async_trait]
impl<D: Dialect> IdempotencyStore for SqlStore<D> {
    async fn claim_idempotency_key(
        &self,
        org: OrgId,
        key: &str,
        fingerprint: &str,
        now: DateTime<Utc>,
        lease: Duration,
        retention: Duration,
    ) -> Result<KeyClaim, StoreError> {
        let token = Uuid::new_v4();
        let mut tx = self.write_tx().await?;
        // The unique key decides a race: one insert wins, the others find
        // its row (on PostgreSQL once its transaction has committed).
        let inserted = D::query(
            "INSERT INTO idempotency_keys
               (organization_id, idempotency_key, fingerprint, created_at, lease_token, lease_until)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (organization_id, idempotency_key) DO NOTHING",
        )
        .bind(org.0)
        .bind(key)
        .bind(fingerprint)
        .bind(now)
        .bind(token)
        .bind(now + lease)
        .execute(&mut *tx)
        .await?;
        if inserted == 1 {
            tx.commit().await?;
            return Ok(KeyClaim::Claimed { token });
        }
        let row: Option<KeyRow> = D::query(AssertSqlSafe(format!(
            "SELECT fingerprint, created_at, lease_until, status, headers, body
             FROM idempotency_keys
             WHERE organization_id = $1 AND idempotency_key = $2 {row_lock}",
            row_lock = D::ROW_LOCK
        )))
        .bind(org.0)
        .bind(key)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            // Released between the insert and the read: a moment later the
            // key is free.
            return rollback_with(tx, Ok(KeyClaim::InFlight)).await;
        };
        let claim = if row.created_at <= now - retention {
            // Aged past the retention: the key is new again.
            D::query(
                "UPDATE idempotency_keys
                 SET fingerprint = $3, created_at = $4, lease_token = $5, lease_until = $6,
                     status = NULL, headers = NULL, body = NULL
                 WHERE organization_id = $1 AND idempotency_key = $2",
            )
            .bind(org.0)
            .bind(key)
            .bind(fingerprint)
            .bind(now)
            .bind(token)
            .bind(now + lease)
            .execute(&mut *tx)
            .await?;
            KeyClaim::Claimed { token }
        } else if row.fingerprint != fingerprint {
            KeyClaim::Reused
        } else if row.status.is_none() && row.lease_until.is_some_and(|until| until > now) {
            KeyClaim::InFlight
        } else if row.status.is_none() {
            // The request that claimed it died with its node: take it over.
            D::query(
                "UPDATE idempotency_keys SET lease_token = $3, lease_until = $4
                 WHERE organization_id = $1 AND idempotency_key = $2",
            )
            .bind(org.0)
            .bind(key)
            .bind(token)
            .bind(now + lease)
            .execute(&mut *tx)
            .await?;
            KeyClaim::Claimed { token }
        } else {
            match row.answer()? {
                Some(answer) => KeyClaim::Answered(answer),
                None => KeyClaim::InFlight,
            }
        };
        tx.commit().await?;
        Ok(claim)
    }

    async fn keep_idempotent_answer(
        &self,
        org: OrgId,
        key: &str,
        token: Uuid,
        answer: &KeptAnswer,
    ) -> Result<bool, StoreError> {
        let headers = serde_json::to_string(&answer.headers)
            .map_err(|e| corrupt(format!("an idempotent answer's headers: {e}")))?;
        let mut tx = self.write_tx().await?;
        let kept = D::query(
            "UPDATE idempotency_keys
             SET status = $4, headers = $5, body = $6, lease_token = NULL, lease_until = NULL
             WHERE organization_id = $1 AND idempotency_key = $2 AND lease_token = $3",
        )
        .bind(org.0)
        .bind(key)
        .bind(token)
        .bind(i64::from(answer.status))
        .bind(headers)
        .bind(answer.body.as_slice())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(kept == 1)
    }

    async fn release_idempotency_key(
        &self,
        org: OrgId,
        key: &str,
        token: Uuid,
    ) -> Result<(), StoreError> {
        let mut tx = self.write_tx().await?;
        D::query(
            "DELETE FROM idempotency_keys
             WHERE organization_id = $1 AND idempotency_key = $2 AND lease_token = $3
               AND status IS NULL",
        )
        .bind(org.0)
        .bind(key)
        .bind(token)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn prune_idempotency_keys(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut tx = self.write_tx().await?;
        let deleted = D::query("DELETE FROM idempotency_keys WHERE created_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(deleted)
    }
}
