//! Observation partitions on PostgreSQL (migration 0007): a partition per
//! month kept three months ahead, and, with a retention, months wholly
//! before it dropped and the rest of what is too old deleted.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use sqlx::Postgres;

use super::PgStore;
use crate::StoreError;
use crate::ops::{Housekeeping, HousekeepingDialect, delete_readings_before};

impl HousekeepingDialect for Postgres {
    async fn housekeep_observations(
        store: &PgStore,
        now: DateTime<Utc>,
        retention: Option<Duration>,
    ) -> Result<Housekeeping, StoreError> {
        observations(store, now, retention).await
    }
}

/// Months ahead of the current one that always have their partition.
const MONTHS_AHEAD: u32 = 3;

fn first_of_month(d: NaiveDate) -> NaiveDate {
    d.with_day(1).unwrap_or(d)
}

fn next_month(d: NaiveDate) -> NaiveDate {
    d.checked_add_months(chrono::Months::new(1)).unwrap_or(d)
}

fn partition_name(month: NaiveDate) -> String {
    format!("observations_p{:04}_{:02}", month.year(), month.month())
}

/// The month a partition holds, from its name.
fn partition_month(name: &str) -> Option<NaiveDate> {
    let rest = name.strip_prefix("observations_p")?;
    let (y, m) = rest.split_once('_')?;
    NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, 1)
}

fn utc_midnight(d: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0).unwrap_or_default())
}

/// Creates the partitions of this month and the next three when missing;
/// applies the retention.
async fn observations(
    store: &PgStore,
    now: DateTime<Utc>,
    retention: Option<Duration>,
) -> Result<Housekeeping, StoreError> {
    let pool = &store.pool;
    let mut done = Housekeeping::default();
    let mut month = first_of_month(now.date_naive());
    for _ in 0..=MONTHS_AHEAD {
        let partition = partition_name(month);
        let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
            .bind(&partition)
            .fetch_one(pool)
            .await?;
        if !exists {
            // Names and bounds are made here from dates, never from input.
            let ddl = format!(
                "CREATE TABLE IF NOT EXISTS {partition} PARTITION OF observations
                 FOR VALUES FROM ('{}') TO ('{}')",
                utc_midnight(month).to_rfc3339(),
                utc_midnight(next_month(month)).to_rfc3339()
            );
            match sqlx::query(sqlx::AssertSqlSafe(ddl)).execute(pool).await {
                Ok(_) => done.partitions_created += 1,
                // Rows of that month already sit in the default partition
                // (imported ahead of time): they stay there.
                Err(e) => {
                    tracing::warn!(partition = %partition, error = %e, "observation partition not created")
                }
            }
        }
        month = next_month(month);
    }
    let Some(retention) = retention else {
        return Ok(done);
    };
    let cutoff = now - retention;
    let partitions: Vec<String> = sqlx::query_scalar(
        "SELECT c.relname::TEXT FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'observations'::regclass ORDER BY 1",
    )
    .fetch_all(pool)
    .await?;
    for partition in partitions {
        if let Some(month) = partition_month(&partition)
            && utc_midnight(next_month(month)) <= cutoff
        {
            // The videos whose readings go move their revision in
            // the same transaction (a reader never keeps the old readings
            // under the new revision).
            let mut tx = pool.begin().await?;
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "UPDATE platform_videos SET revision = revision + 1
                 WHERE id IN (SELECT DISTINCT platform_video_id FROM {partition})"
            )))
            .execute(&mut *tx)
            .await?;
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP TABLE IF EXISTS {partition}"
            )))
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            done.partitions_dropped += 1;
        }
    }
    let mut tx = pool.begin().await?;
    done.rows_deleted = delete_readings_before(&mut tx, cutoff).await?;
    tx.commit().await?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_names_round_trip() {
        let m = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        assert_eq!(partition_name(m), "observations_p2026_11");
        assert_eq!(partition_month("observations_p2026_11"), Some(m));
        assert_eq!(partition_month("observations_default"), None);
        assert_eq!(
            next_month(NaiveDate::from_ymd_opt(2026, 12, 1).unwrap()),
            NaiveDate::from_ymd_opt(2027, 1, 1).unwrap()
        );
    }
}
