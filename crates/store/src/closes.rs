//! Observations and the daily closes they move, written in batches: one
//! statement per thousand readings rather than several per reading (with
//! SQLite every statement is a hop to sqlx's worker thread, which is most of
//! an import's time).
//!
//! What an organization sees of a video (docs/api.md, "What an organization
//! sees"): the platform's readings (`observations`, shared) from its own
//! tracking start on, plus the readings it imported itself
//! (`imported_observations`). Daily closes are kept per organization over
//! exactly those readings, so one organization's import or earlier tracking
//! never moves another's numbers.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::AssertSqlSafe;
use vidpulse_domain::{Counters, ObservationSource};

use uuid::Uuid;

use crate::StoreError;
use crate::sql::{Builder, Conn, Dialect};

/// Readings per multi-row statement: 14 binds each stays under SQLite's 32,766.
pub(crate) const CHUNK: usize = 1000;

/// One reading of a catalog video.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reading {
    pub video_id: i64,
    pub at: DateTime<Utc>,
    pub counters: Counters,
}

/// The `observations` columns `RETURNING` gives back for an inserted reading.
pub(crate) type ReadingRow = (
    i64,
    DateTime<Utc>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

impl From<ReadingRow> for Reading {
    fn from((video_id, at, views, likes, comments, reposts, saves): ReadingRow) -> Self {
        Self {
            video_id,
            at,
            counters: Counters {
                views,
                likes,
                comments,
                reposts,
                saves,
            },
        }
    }
}

/// The first and last of a batch's readings of one video on one UTC day, as
/// one organization sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DayReadings {
    pub org: Uuid,
    pub video_id: i64,
    pub day: NaiveDate,
    pub first: Reading,
    pub last: Reading,
}

/// Groups each organization's readings by video and day, so each close is
/// written once per batch.
pub(crate) fn by_day(readings: &[(Uuid, Reading)]) -> Vec<DayReadings> {
    let mut out: BTreeMap<(i64, Uuid, NaiveDate), DayReadings> = BTreeMap::new();
    for (org, r) in readings {
        let day = r.at.date_naive();
        out.entry((r.video_id, *org, day))
            .and_modify(|c| {
                if r.at < c.first.at {
                    c.first = *r;
                }
                if r.at > c.last.at {
                    c.last = *r;
                }
            })
            .or_insert(DayReadings {
                org: *org,
                video_id: r.video_id,
                day,
                first: *r,
                last: *r,
            });
    }
    out.into_values().collect()
}

/// The first day each video got a reading, for relinking its closes.
pub(crate) fn first_days(days: &[DayReadings]) -> BTreeMap<i64, NaiveDate> {
    let mut out = BTreeMap::new();
    for d in days {
        out.entry(d.video_id)
            .and_modify(|x: &mut NaiveDate| *x = (*x).min(d.day))
            .or_insert(d.day);
    }
    out
}

/// `INSERT INTO daily_closes (..)`: the head of the close upsert.
pub(crate) const CLOSE_INSERT: &str =
    "INSERT INTO daily_closes (platform_video_id, organization_id, day,
   first_at, first_views, first_likes, first_comments, first_reposts, first_saves,
   last_at, last_views, last_likes, last_comments, last_reposts, last_saves) ";

/// The tail of the close upsert: an earlier first reading or a later last one wins.
pub(crate) fn close_conflict<D: Dialect>() -> String {
    let mut set = Vec::new();
    for m in vidpulse_domain::metrics::METRIC_NAMES {
        set.push(format!(
            "first_{m} = CASE WHEN excluded.first_at < daily_closes.first_at
                 THEN excluded.first_{m} ELSE daily_closes.first_{m} END"
        ));
        set.push(format!(
            "last_{m} = CASE WHEN excluded.last_at > daily_closes.last_at
                 THEN excluded.last_{m} ELSE daily_closes.last_{m} END"
        ));
    }
    set.push(format!(
        "first_at = {}(daily_closes.first_at, excluded.first_at)",
        D::LEAST
    ));
    set.push(format!(
        "last_at = {}(daily_closes.last_at, excluded.last_at)",
        D::GREATEST
    ));
    format!(
        " ON CONFLICT (platform_video_id, organization_id, day) DO UPDATE SET {}",
        set.join(", ")
    )
}

/// Whose readings a write stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The platform's, read by this source: shared by every organization
    /// tracking the video, each from its own tracking start on.
    Platform(ObservationSource),
    /// One organization's import: seen by that organization only.
    Import(Uuid),
}

/// Appends readings (an instant already recorded for a video, by the same
/// owner, is skipped: imports are idempotent per organization), moves the
/// daily closes of every organization that sees the new ones, and the
/// revision of each catalog video that got one. Returns how many were new
/// and, per video, the first day whose closes moved: the caller relinks
/// from there ([`crate::rollup::relink_sql`]).
pub(crate) async fn insert_observations<D: Dialect>(
    conn: &mut Conn<D>,
    readings: &[Reading],
    owner: Owner,
) -> Result<(usize, BTreeMap<i64, NaiveDate>), StoreError> {
    let mut inserted: Vec<Reading> = Vec::with_capacity(readings.len());
    for chunk in readings.chunks(CHUNK) {
        let mut q = match owner {
            Owner::Platform(_) => Builder::<D>::new(
                "INSERT INTO observations
                   (platform_video_id, captured_at, views, likes, comments, reposts, saves, source) ",
            ),
            Owner::Import(_) => Builder::<D>::new(
                "INSERT INTO imported_observations
                   (platform_video_id, captured_at, views, likes, comments, reposts, saves, organization_id) ",
            ),
        };
        q.push_values(chunk, |b, r| {
            let c = r.counters;
            b.bind(r.video_id)
                .bind(r.at)
                .bind(c.views)
                .bind(c.likes)
                .bind(c.comments)
                .bind(c.reposts)
                .bind(c.saves);
            match owner {
                Owner::Platform(source) => b.bind(source.as_str()),
                Owner::Import(org) => b.bind(org),
            };
        });
        q.push(
            " ON CONFLICT DO NOTHING
              RETURNING platform_video_id, captured_at, views, likes, comments, reposts, saves",
        );
        let rows: Vec<ReadingRow> = q.build().fetch_all(&mut *conn).await?;
        inserted.extend(rows.into_iter().map(Reading::from));
    }
    let seen = match owner {
        Owner::Import(org) => inserted.iter().map(|r| (org, *r)).collect(),
        Owner::Platform(_) => seen_by_trackers::<D>(conn, &inserted).await?,
    };
    let days = add_to_closes::<D>(conn, &seen).await?;
    // Every video whose history grew: its rendered history is stale, for
    // every organization (the platform's readings) or the importer alone.
    let videos: Vec<i64> = {
        let mut v: Vec<i64> = inserted.iter().map(|r| r.video_id).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for chunk in videos.chunks(CHUNK) {
        let mut q = match owner {
            Owner::Platform(_) => Builder::<D>::new(
                "UPDATE platform_videos SET revision = revision + 1 WHERE id IN (",
            ),
            Owner::Import(org) => {
                let mut q = Builder::<D>::new(
                    "UPDATE tracked_videos SET revision = revision + 1 WHERE organization_id = ",
                );
                q.push_bind(org).push(" AND platform_video_id IN (");
                q
            }
        };
        q.push_list(chunk.iter().copied()).push(")");
        q.build().execute(&mut *conn).await?;
    }
    Ok((inserted.len(), days))
}

/// The platform readings each organization tracking their videos sees:
/// those taken at or after its tracking start.
async fn seen_by_trackers<D: Dialect>(
    conn: &mut Conn<D>,
    readings: &[Reading],
) -> Result<Vec<(Uuid, Reading)>, StoreError> {
    let mut videos: Vec<i64> = readings.iter().map(|r| r.video_id).collect();
    videos.sort_unstable();
    videos.dedup();
    let mut trackers: BTreeMap<i64, Vec<(Uuid, DateTime<Utc>)>> = BTreeMap::new();
    for chunk in videos.chunks(CHUNK) {
        let mut q = Builder::<D>::new(
            "SELECT organization_id, platform_video_id, tracking_started_at
             FROM tracked_videos WHERE platform_video_id IN (",
        );
        q.push_list(chunk.iter().copied()).push(")");
        let rows: Vec<(Uuid, i64, DateTime<Utc>)> = q.build().fetch_all(&mut *conn).await?;
        for (org, video, start) in rows {
            trackers.entry(video).or_default().push((org, start));
        }
    }
    Ok(readings
        .iter()
        .flat_map(|r| {
            trackers
                .get(&r.video_id)
                .into_iter()
                .flatten()
                .filter(move |(_, start)| *start <= r.at)
                .map(move |(org, _)| (*org, *r))
        })
        .collect())
}

/// Shows `org` the platform's readings of `videos` taken from `from` on,
/// before `until` when given (its tracking start moved back from there to
/// `from`, or new trackings start at `from`): they join its closes.
/// Returns, per video, the first day whose closes moved.
pub(crate) async fn reveal_platform_readings<D: Dialect>(
    conn: &mut Conn<D>,
    org: Uuid,
    videos: &[i64],
    from: DateTime<Utc>,
    until: Option<DateTime<Utc>>,
) -> Result<BTreeMap<i64, NaiveDate>, StoreError> {
    let mut seen: Vec<(Uuid, Reading)> = Vec::new();
    for chunk in videos.chunks(CHUNK) {
        let mut q = Builder::<D>::new(
            "SELECT platform_video_id, captured_at, views, likes, comments, reposts, saves
             FROM observations WHERE captured_at >= ",
        );
        q.push_bind(from);
        if let Some(until) = until {
            q.push(" AND captured_at < ").push_bind(until);
        }
        q.push(" AND platform_video_id IN (");
        q.push_list(chunk.iter().copied()).push(")");
        let rows: Vec<ReadingRow> = q.build().fetch_all(&mut *conn).await?;
        seen.extend(rows.into_iter().map(|r| (org, Reading::from(r))));
    }
    add_to_closes::<D>(conn, &seen).await
}

/// Moves the daily closes of each organization by the readings it sees.
/// Returns, per video, the first day whose closes moved.
async fn add_to_closes<D: Dialect>(
    conn: &mut Conn<D>,
    seen: &[(Uuid, Reading)],
) -> Result<BTreeMap<i64, NaiveDate>, StoreError> {
    let days = by_day(seen);
    for chunk in days.chunks(CHUNK) {
        let mut q = Builder::<D>::new(CLOSE_INSERT);
        q.push_values(chunk, |b, d| {
            let (f, l) = (d.first.counters, d.last.counters);
            b.bind(d.video_id)
                .bind(d.org)
                .bind(d.day)
                .bind(d.first.at)
                .bind(f.views)
                .bind(f.likes)
                .bind(f.comments)
                .bind(f.reposts)
                .bind(f.saves)
                .bind(d.last.at)
                .bind(l.views)
                .bind(l.likes)
                .bind(l.comments)
                .bind(l.reposts)
                .bind(l.saves);
        });
        q.push(AssertSqlSafe(close_conflict::<D>()));
        q.build().execute(&mut *conn).await?;
    }
    Ok(first_days(&days))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn r(video_id: i64, day: u32, hour: u32, views: i64) -> Reading {
        Reading {
            video_id,
            at: Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap(),
            counters: Counters {
                views: Some(views),
                ..Counters::default()
            },
        }
    }

    #[test]
    fn readings_group_into_one_close_per_video_and_day() {
        let org = Uuid::nil();
        let days = by_day(&[
            (org, r(1, 2, 18, 30)),
            (org, r(1, 2, 6, 10)),
            (org, r(2, 2, 9, 5)),
            (org, r(1, 3, 1, 40)),
        ]);
        assert_eq!(days.len(), 3);
        assert_eq!(
            (days[0].first.counters.views, days[0].last.counters.views),
            (Some(10), Some(30))
        );
        assert_eq!(days[1].day, NaiveDate::from_ymd_opt(2026, 11, 3).unwrap());
        assert_eq!(days[2].video_id, 2);
        let first = first_days(&days);
        assert_eq!(first[&1], NaiveDate::from_ymd_opt(2026, 11, 2).unwrap());
    }
}
