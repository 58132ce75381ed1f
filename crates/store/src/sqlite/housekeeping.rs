//! Observation retention on SQLite: old rows (the platform's readings and
//! imports) deleted by time, a day per
//! write transaction so writers are never held up long.

use chrono::{DateTime, Duration, Utc};

use super::SqliteStore;
use crate::StoreError;
use crate::ops::Housekeeping;

/// Moves the revision of every catalog video with observations captured
/// before `?1`, in the transaction that deletes them.
const STALE_HISTORIES: &str = "UPDATE platform_videos SET revision = revision + 1
     WHERE id IN (SELECT platform_video_id FROM observations WHERE captured_at < ?1
                  UNION SELECT platform_video_id FROM imported_observations WHERE captured_at < ?1)";

/// Deletes observations captured before `now - retention`, each day's
/// rows in a write transaction of their own (queued with the others).
pub(super) async fn observations(
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
        sqlx::query(STALE_HISTORIES)
            .bind(until)
            .execute(&mut *tx)
            .await?;
        done.rows_deleted += sqlx::query("DELETE FROM observations WHERE captured_at < ?1")
            .bind(until)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        done.rows_deleted +=
            sqlx::query("DELETE FROM imported_observations WHERE captured_at < ?1")
                .bind(until)
                .execute(&mut *tx)
                .await?
                .rows_affected();
        tx.commit().await?;
    }
    Ok(done)
}
