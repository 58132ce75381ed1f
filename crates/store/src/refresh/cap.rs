//! The operator's daily read cap per organization
//! (`VIDPULSE_MAX_READS_PER_ORG_PER_DAY`, off by default).
//!
//! Readings are shared: one read of a video serves every organization
//! tracking it. So a read counts for each organization whose tracking of
//! the video is open when it is made (started, not yet ended), whoever else
//! tracks it, in `usage_daily.scheduled_reads` of the UTC day. A claimed
//! video is read unless every organization it counts for has reached the
//! cap that day: then it is skipped, which counts in their
//! `usage_daily.reads_skipped`, and read again from the next UTC day on.
//! An organization under the cap thus keeps a video it shares read, and
//! that read counts for the capped ones too. Manual refreshes (asked and
//! paid for) are neither counted nor capped.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, NaiveTime, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;

use super::DueVideo;
use crate::StoreError;
use crate::closes::CHUNK;
use crate::sql::{Builder, Dialect, SqlStore};

/// [`crate::RefreshStore::cap_reads`].
pub(crate) async fn cap_reads<D: Dialect>(
    store: &SqlStore<D>,
    due: Vec<DueVideo>,
    now: DateTime<Utc>,
    cap: i64,
) -> Result<Vec<DueVideo>, StoreError> {
    if due.is_empty() {
        return Ok(due);
    }
    let day = now.date_naive();
    let mut tx = store.write_tx().await?;
    // The organizations each video's read counts for.
    let mut trackers: BTreeMap<i64, Vec<Uuid>> = BTreeMap::new();
    let ids: Vec<i64> = due.iter().map(|v| v.id).collect();
    for chunk in ids.chunks(CHUNK) {
        let mut q = Builder::<D>::new(
            "SELECT platform_video_id, organization_id FROM tracked_videos
             WHERE tracking_started_at <= ",
        );
        q.push_bind(now)
            .push(" AND tracking_ends_at > ")
            .push_bind(now)
            .push(" AND platform_video_id IN (")
            .push_list(chunk.iter().copied())
            .push(")");
        let rows: Vec<(i64, Uuid)> = q.build().fetch_all(&mut *tx).await?;
        for (video, org) in rows {
            trackers.entry(video).or_default().push(org);
        }
    }
    let orgs: BTreeSet<Uuid> = trackers.values().flatten().copied().collect();
    // Today's counts of those organizations, their rows made and locked in
    // id order (two workers' batches queue for them on PostgreSQL).
    let mut counts: BTreeMap<Uuid, (i64, i64, i64)> = BTreeMap::new();
    let orgs: Vec<Uuid> = orgs.into_iter().collect();
    for chunk in orgs.chunks(CHUNK) {
        let mut make = Builder::<D>::new("INSERT INTO usage_daily (organization_id, day) ");
        make.push_values(chunk, |b, org| {
            b.bind(*org).bind(day);
        });
        make.push(" ON CONFLICT (organization_id, day) DO NOTHING");
        make.build().execute(&mut *tx).await?;
        let mut read = Builder::<D>::new(
            "SELECT organization_id, scheduled_reads FROM usage_daily WHERE day = ",
        );
        read.push_bind(day)
            .push(" AND organization_id IN (")
            .push_list(chunk.iter().copied())
            .push(AssertSqlSafe(format!(
                ") ORDER BY organization_id {}",
                D::ROW_LOCK
            )));
        let rows: Vec<(Uuid, i64)> = read.build().fetch_all(&mut *tx).await?;
        for (org, reads) in rows {
            // (reads so far, reads added, reads skipped)
            counts.insert(org, (reads, 0, 0));
        }
    }
    // In claim order: read while someone it counts for is under the cap.
    let mut read = Vec::with_capacity(due.len());
    let mut skipped = Vec::new();
    for video in due {
        let orgs = trackers.get(&video.id).map(Vec::as_slice).unwrap_or(&[]);
        let capped = !orgs.is_empty()
            && orgs
                .iter()
                .all(|org| counts.get(org).is_none_or(|(n, _, _)| *n >= cap));
        for org in orgs {
            if let Some((n, added, skips)) = counts.get_mut(org) {
                if capped {
                    *skips += 1;
                } else {
                    *n += 1;
                    *added += 1;
                }
            }
        }
        if capped {
            skipped.push(video);
        } else {
            read.push(video);
        }
    }
    for (org, (_, added, skips)) in &counts {
        if *added == 0 && *skips == 0 {
            continue;
        }
        D::query(
            "UPDATE usage_daily SET scheduled_reads = scheduled_reads + $3,
               reads_skipped = reads_skipped + $4
             WHERE organization_id = $1 AND day = $2",
        )
        .bind(*org)
        .bind(day)
        .bind(*added)
        .bind(*skips)
        .execute(&mut *tx)
        .await?;
    }
    // Skipped: free again, and due from the next UTC day on (not at all
    // when every tracking of the video ends before it).
    let tomorrow = (day + Duration::days(1)).and_time(NaiveTime::MIN).and_utc();
    for video in &skipped {
        D::query(
            "UPDATE platform_videos SET lease_until = NULL, lease_token = NULL,
               next_refresh_at = CASE WHEN gone_at IS NULL AND $3 < refresh_until THEN $3 END
             WHERE id = $1 AND lease_token = $2",
        )
        .bind(video.id)
        .bind(video.lease_token)
        .bind(tomorrow)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(read)
}
