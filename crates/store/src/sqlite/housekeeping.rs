//! Observation retention on SQLite: old rows (the platform's readings and
//! imports) deleted by time, a day per
//! write transaction so writers are never held up long.

use chrono::{DateTime, Duration, Utc};
use sqlx::Sqlite;

use super::SqliteStore;
use crate::StoreError;
use crate::ops::{Housekeeping, HousekeepingDialect, delete_readings_before};

impl HousekeepingDialect for Sqlite {
    async fn housekeep_observations(
        store: &SqliteStore,
        now: DateTime<Utc>,
        retention: Option<Duration>,
    ) -> Result<Housekeeping, StoreError> {
        observations(store, now, retention).await
    }
}

/// Deletes observations captured before `now - retention`, each day's
/// rows in a write transaction of their own (queued with the others).
async fn observations(
    store: &SqliteStore,
    now: DateTime<Utc>,
    retention: Option<Duration>,
) -> Result<Housekeeping, StoreError> {
    let mut done = Housekeeping::default();
    let Some(retention) = retention else {
        return Ok(done);
    };
    let cutoff = now - retention;
    loop {
        let oldest: Option<DateTime<Utc>> = sqlx::query_scalar(
            "SELECT min(at) FROM (SELECT min(captured_at) AS at FROM observations
                 UNION ALL SELECT min(captured_at) FROM imported_observations)",
        )
        .fetch_one(&store.pool)
        .await?;
        let Some(oldest) = oldest.filter(|o| *o < cutoff) else {
            break;
        };
        let until = (oldest + Duration::days(1)).min(cutoff);
        let mut tx = store.write_tx().await?;
        done.rows_deleted += delete_readings_before(&mut tx, until).await?;
        tx.commit().await?;
    }
    Ok(done)
}
