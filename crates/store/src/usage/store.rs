//! Usage counters, stored: the one implementation of [`UsageStore`] for both
//! backends.

use async_trait::async_trait;
use chrono::NaiveDate;
use sqlx::AssertSqlSafe;
use vidpulse_domain::OrgId;

use super::{UsageDay, UsageDelta, UsageStore};
use crate::StoreError;
use crate::sql::{Dialect, SqlStore};

#[async_trait]
impl<D: Dialect> UsageStore for SqlStore<D> {
    async fn add_usage(&self, deltas: &[UsageDelta]) -> Result<(), StoreError> {
        if deltas.is_empty() {
            return Ok(());
        }
        let mut tx = self.write_tx().await?;
        for d in deltas {
            D::query(
                "INSERT INTO usage_daily (organization_id, day, total_requests, successful_requests,
                   error_requests, response_ms_total)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (organization_id, day) DO UPDATE SET
                   total_requests = usage_daily.total_requests + excluded.total_requests,
                   successful_requests = usage_daily.successful_requests + excluded.successful_requests,
                   error_requests = usage_daily.error_requests + excluded.error_requests,
                   response_ms_total = usage_daily.response_ms_total + excluded.response_ms_total",
            )
            .bind(d.organization_id.0)
            .bind(d.day)
            .bind(d.requests)
            .bind(d.successes)
            .bind(d.errors)
            .bind(d.response_ms_total)
            .execute(&mut *tx)
            .await?;
            D::query(
                "INSERT INTO usage_daily_keys (organization_id, day, api_key_id) VALUES ($1, $2, $3)
                 ON CONFLICT DO NOTHING",
            )
            .bind(d.organization_id.0)
            .bind(d.day)
            .bind(d.api_key_id.0)
            .execute(&mut *tx)
            .await?;
            D::query(
                "UPDATE api_keys SET last_used_at = $2
                 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)",
            )
            .bind(d.api_key_id.0)
            .bind(d.last_used_at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn usage_history(
        &self,
        org: OrgId,
        since: NaiveDate,
    ) -> Result<Vec<UsageDay>, StoreError> {
        let rows: Vec<UsageRow> = D::query(AssertSqlSafe(format!(
            "WITH credits AS (
               SELECT {day} AS day, CAST(sum(amount) AS BIGINT) AS credits
               FROM credit_ledger WHERE organization_id = $1 AND created_at >= $3
               GROUP BY 1),
             keys AS (
               SELECT day, count(*) AS n FROM usage_daily_keys
               WHERE organization_id = $1 AND day >= $2 GROUP BY day),
             days AS (
               SELECT day FROM usage_daily WHERE organization_id = $1 AND day >= $2
               UNION SELECT day FROM credits)
             SELECT d.day, coalesce(u.total_requests, 0), coalesce(u.successful_requests, 0),
                    coalesce(u.error_requests, 0), coalesce(u.response_ms_total, 0),
                    coalesce(c.credits, 0), coalesce(k.n, 0), coalesce(u.reads_skipped, 0)
             FROM days d
             LEFT JOIN usage_daily u ON u.organization_id = $1 AND u.day = d.day
             LEFT JOIN credits c ON c.day = d.day
             LEFT JOIN keys k ON k.day = d.day
             ORDER BY d.day DESC",
            day = D::day_of("created_at")
        )))
        .bind(org.0)
        .bind(since)
        .bind(since.and_time(chrono::NaiveTime::MIN).and_utc())
        .fetch_all(&mut *self.read().await?)
        .await?;
        Ok(rows.into_iter().map(usage_day).collect())
    }
}

/// A usage row: day, requests, successes, errors, response ms total,
/// credits, keys, reads skipped.
type UsageRow = (NaiveDate, i64, i64, i64, i64, i64, i64, i64);

/// The report's day of a usage row.
fn usage_day((day, total, ok, errors, ms, credits, keys, skipped): UsageRow) -> UsageDay {
    UsageDay {
        day,
        total_requests: total,
        successful_requests: ok,
        error_requests: errors,
        credits_used: credits,
        avg_response_time_ms: if total > 0 {
            ms as f64 / total as f64
        } else {
            0.0
        },
        unique_api_keys: keys,
        reads_skipped: skipped,
    }
}
