//! The observations' housekeeping: what both backends' passes share (the
//! deletes of a retention). The passes themselves are each backend's own
//! (`sqlite/housekeeping.rs`, `postgres/housekeeping.rs`).

use chrono::{DateTime, Utc};

use crate::StoreError;
use crate::sql::{Dialect, Tx};

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
