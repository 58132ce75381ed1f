//! The observations' housekeeping: each backend's pass
//! ([`HousekeepingDialect`], in `sqlite/housekeeping.rs` and
//! `postgres/housekeeping.rs`) and what the passes share (the deletes of a
//! retention).

use std::future::Future;

use chrono::{DateTime, Utc};

use super::Housekeeping;
use crate::StoreError;
use crate::sql::{Dialect, SqlStore, Tx};

/// How a backend keeps the observations' storage: PostgreSQL's monthly
/// partitions and the retention; SQLite's retention by deletes, a day at a
/// time.
pub(crate) trait HousekeepingDialect: Dialect {
    /// One pass ([`crate::OpsStore::housekeep_observations`]).
    fn housekeep_observations(
        store: &SqlStore<Self>,
        now: DateTime<Utc>,
        retention: Option<chrono::Duration>,
    ) -> impl Future<Output = Result<Housekeeping, StoreError>> + Send;
}

/// Deletes every reading (the platform's and imported) captured before
/// `until`, in `tx`, moving the revision of each video whose history shrinks
/// (its kept answers are stale); returns how many were deleted. Shared by
/// both backends' housekeeping.
pub(crate) async fn delete_readings_before<D: Dialect>(
    tx: &mut Tx<D>,
    until: DateTime<Utc>,
) -> Result<u64, StoreError> {
    D::query(
        "UPDATE platform_videos SET revision = revision + 1
         WHERE id IN (SELECT platform_video_id FROM observations WHERE captured_at < $1
                      UNION SELECT platform_video_id FROM imported_observations WHERE captured_at < $1)",
    )
    .bind(until)
    .execute(&mut **tx)
    .await?;
    let platform = D::query("DELETE FROM observations WHERE captured_at < $1")
        .bind(until)
        .execute(&mut **tx)
        .await?;
    let imported = D::query("DELETE FROM imported_observations WHERE captured_at < $1")
        .bind(until)
        .execute(&mut **tx)
        .await?;
    Ok(platform + imported)
}
