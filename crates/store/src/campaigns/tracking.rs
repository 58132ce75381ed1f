//! How long a campaign keeps its videos tracked: past the 30-day window
//! until 7 days after the campaign's last day.

use vidpulse_domain::OrgId;

use crate::StoreError;
use crate::backend::Db;
use crate::sql::Conn;

/// Recomputes `tracking_ends_at` of the videos of `org` that carry campaign
/// `name` (after its dates changed, or videos joined or left it), and
/// settles the analytics their moved windows change. Call it inside the
/// write's transaction.
pub(crate) async fn retime_campaign<D: Db>(
    conn: &mut Conn<D>,
    org: OrgId,
    name: &str,
) -> Result<(), StoreError> {
    let _ = (conn, org, name);
    Ok(())
}

/// Recomputes `tracking_ends_at` of these tracked videos of `org` (ids of
/// `tracked_videos`), after their campaign changed or was cleared, and
/// settles the analytics their moved windows change. Call it inside the
/// write's transaction.
pub(crate) async fn retime_videos<D: Db>(
    conn: &mut Conn<D>,
    org: OrgId,
    videos: &[uuid::Uuid],
) -> Result<(), StoreError> {
    let _ = (conn, org, videos);
    Ok(())
}
