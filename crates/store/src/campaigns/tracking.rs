//! How long a campaign keeps its videos tracked: past the 30-day window
//! until 7 days after the campaign's last day.
//!
//! A tracked video keeps the end of the window it got when tracked
//! (`tracked_videos.window_ends_at`, migration 0031: its start plus the
//! schedule's window). Its `tracking_ends_at` is the later of that end and
//! the start of the 8th day after its campaign's `ends_on` (UTC), so the
//! campaign's last day and the 7 days after it are tracked in full; without
//! a campaign, or one without `ends_on`, it is the window's end. Whenever
//! a video's campaign or a campaign's dates change, the store recomputes it
//! here, in the write's transaction, and then:
//!
//! * settles the analytics: an organization sees a video's closes from its
//!   tracking start to its tracking end, so a moved end shows or hides
//!   closes (the rollup's shares before and after, over the moved videos);
//! * reschedules the shared catalog row: it is read until the latest
//!   tracking end of every organization tracking it (`refresh_until`); a
//!   video whose reads had stopped is due again at once when that end moves
//!   later, and a video whose end moved sooner is read no later than it.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;

use crate::StoreError;
use crate::backend::Db;
use crate::closes::CHUNK;
use crate::rollup::{self, Scope};
use crate::sql::{Builder, Conn, Dialect};

/// Days after a campaign's `ends_on` its videos stay tracked (the 7 days
/// after it, in full: the tracking ends at the start of the 8th).
pub(crate) const DAYS_AFTER_CAMPAIGN: i64 = 7;

/// When the tracking of a video whose own window ends at `window_end` ends,
/// in a campaign whose last day is `ends_on` (`None`: no campaign, or one
/// without an end).
pub(crate) fn tracking_end(window_end: DateTime<Utc>, ends_on: Option<NaiveDate>) -> DateTime<Utc> {
    let campaign_end = ends_on.map(|day| {
        (day + Duration::days(DAYS_AFTER_CAMPAIGN + 1))
            .and_time(chrono::NaiveTime::MIN)
            .and_utc()
    });
    campaign_end.map_or(window_end, |end| end.max(window_end))
}

/// The last day of `org`'s campaign `name` (its stored name), when it has one.
pub(crate) async fn campaign_ends_on<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    name: &str,
) -> Result<Option<NaiveDate>, StoreError> {
    let day: Option<Option<NaiveDate>> =
        D::query("SELECT ends_on FROM campaigns WHERE organization_id = $1 AND name = $2")
            .bind(org.0)
            .bind(name)
            .fetch_scalar_optional(&mut *conn)
            .await?;
    Ok(day.flatten())
}

/// Recomputes `tracking_ends_at` of the videos of `org` that carry campaign
/// `name` (after its dates changed, or videos joined or left it), and
/// settles the analytics their moved windows change. Call it inside the
/// write's transaction.
#[allow(dead_code)] // called by the campaigns' writes (`crud.rs`) as they land
pub(crate) async fn retime_campaign<D: Db>(
    conn: &mut Conn<D>,
    org: OrgId,
    name: &str,
) -> Result<(), StoreError> {
    let videos: Vec<Uuid> = D::query(
        "SELECT id FROM tracked_videos WHERE organization_id = $1 AND campaign = $2 ORDER BY id",
    )
    .bind(org.0)
    .bind(name)
    .fetch_all::<(Uuid,)>(&mut *conn)
    .await?
    .into_iter()
    .map(|(id,)| id)
    .collect();
    retime_videos::<D>(conn, org, &videos).await
}

/// A tracked video as retiming reads it.
type RetimeRow = (
    Uuid,
    i64,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<NaiveDate>,
);

/// Recomputes `tracking_ends_at` of these tracked videos of `org` (ids of
/// `tracked_videos`), after their campaign changed or was cleared, and
/// settles the analytics their moved windows change. Call it inside the
/// write's transaction.
pub(crate) async fn retime_videos<D: Db>(
    conn: &mut Conn<D>,
    org: OrgId,
    videos: &[Uuid],
) -> Result<(), StoreError> {
    // Each video's end now, its window's end and its campaign's last day.
    let mut moved: Vec<(Uuid, i64, DateTime<Utc>, DateTime<Utc>)> = Vec::new();
    for chunk in videos.chunks(CHUNK) {
        let mut q = Builder::<D>::new(
            "SELECT tv.id, tv.platform_video_id, tv.tracking_ends_at, tv.window_ends_at, c.ends_on
             FROM tracked_videos tv
             LEFT JOIN campaigns c ON c.organization_id = tv.organization_id AND c.name = tv.campaign
             WHERE tv.organization_id = ",
        );
        q.push_bind(org.0)
            .push(" AND tv.id IN (")
            .push_list(chunk.iter().copied())
            .push(")");
        let rows: Vec<RetimeRow> = q.build().fetch_all(&mut *conn).await?;
        for (id, catalog_id, ends, window_end, ends_on) in rows {
            let window_end = window_end.unwrap_or(ends);
            let new_end = tracking_end(window_end, ends_on);
            if new_end != ends {
                moved.push((id, catalog_id, new_end, window_end));
            }
        }
    }
    if moved.is_empty() {
        return Ok(());
    }
    // The closes the organization sees of these videos move with their ends.
    let scope = Scope::tracked_by(org.0, moved.iter().map(|m| m.1));
    let before = rollup::shares_on::<D>(&mut *conn, &scope).await?;
    for (id, _, new_end, window_end) in &moved {
        D::query(
            "UPDATE tracked_videos SET tracking_ends_at = $2, window_ends_at = $3 WHERE id = $1",
        )
        .bind(*id)
        .bind(*new_end)
        .bind(*window_end)
        .execute(&mut *conn)
        .await?;
    }
    for catalog_id in scope.ids() {
        D::query(RESCHEDULE)
            .bind(catalog_id)
            .execute(&mut *conn)
            .await?;
    }
    rollup::settle_on::<D>(&mut *conn, &scope, before).await?;
    Ok(())
}

/// Catalog video `$1` is read until the latest tracking end of those who
/// track it: reads that had stopped start again at once (due since they
/// stopped) when that end moved later, and the next read comes no later
/// than an end that moved sooner. A gone video stays unread.
const RESCHEDULE: &str = "UPDATE platform_videos SET
       next_refresh_at = CASE
         WHEN gone_at IS NOT NULL THEN NULL
         WHEN next_refresh_at IS NULL THEN CASE
           WHEN (SELECT max(tv.tracking_ends_at) FROM tracked_videos tv
                  WHERE tv.platform_video_id = $1) > refresh_until THEN refresh_until END
         WHEN next_refresh_at > (SELECT max(tv.tracking_ends_at) FROM tracked_videos tv
                                  WHERE tv.platform_video_id = $1)
           THEN (SELECT max(tv.tracking_ends_at) FROM tracked_videos tv
                  WHERE tv.platform_video_id = $1)
         ELSE next_refresh_at END,
       refresh_until = coalesce(
         (SELECT max(tv.tracking_ends_at) FROM tracked_videos tv WHERE tv.platform_video_id = $1),
         refresh_until)
     WHERE id = $1";

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_campaign_extends_to_the_seventh_day_after_it_only() {
        let window_end = Utc.with_ymd_and_hms(2026, 12, 1, 10, 30, 0).unwrap();
        assert_eq!(tracking_end(window_end, None), window_end);
        let ends_on = NaiveDate::from_ymd_opt(2026, 12, 20).unwrap();
        assert_eq!(
            tracking_end(window_end, Some(ends_on)),
            Utc.with_ymd_and_hms(2026, 12, 28, 0, 0, 0).unwrap()
        );
        // A campaign ending before the window keeps the window.
        let early = NaiveDate::from_ymd_opt(2026, 11, 10).unwrap();
        assert_eq!(tracking_end(window_end, Some(early)), window_end);
    }
}
