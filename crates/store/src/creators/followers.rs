//! Follower history: one count per catalog creator per UTC day (the last
//! read that day), written with every profile read that has a count, and
//! what is read from it: the gain over the last days, and the days of a
//! window.

use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::OrgId;

use crate::StoreError;
use crate::sql::{Builder, Dialect, SqlStore, Tx};

/// A creator's follower count on one UTC day: the last read that day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowerDay {
    /// The day.
    pub day: NaiveDate,
    /// Followers as last read that day.
    pub follower_count: i64,
}

/// How many followers a creator gained over the last 7 and 30 days; `None`
/// when no count was ever recorded.
///
/// The gain over N days is the latest recorded count minus the count of the
/// last recorded day on or before `today - N`; when no record is that old,
/// minus the earliest recorded count (a creator first read 3 days ago has
/// gained over those 3 days).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FollowerGains {
    /// Over the last 7 days.
    pub gain_7d: Option<i64>,
    /// Over the last 30 days.
    pub gain_30d: Option<i64>,
}

/// Records `count` as the creator's followers on the UTC day of `read_at`;
/// a read of the same day replaces it unless it is older.
pub(crate) async fn record_followers<D: Dialect>(
    tx: &mut Tx<D>,
    creator_id: Uuid,
    count: i64,
    read_at: DateTime<Utc>,
) -> Result<(), StoreError> {
    D::query(
        "INSERT INTO creator_follower_days (creator_id, day, follower_count, read_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (creator_id, day) DO UPDATE SET
           follower_count = excluded.follower_count, read_at = excluded.read_at
         WHERE excluded.read_at >= creator_follower_days.read_at",
    )
    .bind(creator_id)
    .bind(read_at.date_naive())
    .bind(count)
    .bind(read_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The counts the gains of one creator are computed from.
#[derive(sqlx::FromRow)]
struct GainRow {
    creator_id: Uuid,
    latest: Option<i64>,
    earliest: Option<i64>,
    base_7d: Option<i64>,
    base_30d: Option<i64>,
}

impl GainRow {
    fn gains(&self) -> FollowerGains {
        let gain = |base: Option<i64>| Some(self.latest? - base.or(self.earliest)?);
        FollowerGains {
            gain_7d: gain(self.base_7d),
            gain_30d: gain(self.base_30d),
        }
    }
}

/// [`crate::CreatorStore::follower_gains`].
pub(crate) async fn follower_gains<D: Dialect>(
    store: &SqlStore<D>,
    creators: &[Uuid],
    today: NaiveDate,
) -> Result<HashMap<Uuid, FollowerGains>, StoreError> {
    if creators.is_empty() {
        return Ok(HashMap::new());
    }
    // Each count is one seek on the primary key (creator_id, day).
    const LATEST: &str = "(SELECT f.follower_count FROM creator_follower_days f
                            WHERE f.creator_id = c.id ORDER BY f.day DESC LIMIT 1)";
    const EARLIEST: &str = "(SELECT f.follower_count FROM creator_follower_days f
                              WHERE f.creator_id = c.id ORDER BY f.day ASC LIMIT 1)";
    const ON_OR_BEFORE: &str = "(SELECT f.follower_count FROM creator_follower_days f
                                  WHERE f.creator_id = c.id AND f.day <= ";
    const LAST_FIRST: &str = " ORDER BY f.day DESC LIMIT 1)";
    let mut q = Builder::<D>::new(AssertSqlSafe(format!(
        "SELECT c.id AS creator_id, {LATEST} AS latest, {EARLIEST} AS earliest, {ON_OR_BEFORE}"
    )));
    q.push_bind(today - Duration::days(7))
        .push(LAST_FIRST)
        .push(" AS base_7d, ")
        .push(ON_OR_BEFORE)
        .push_bind(today - Duration::days(30))
        .push(LAST_FIRST)
        .push(" AS base_30d FROM creators c WHERE c.id IN (")
        .push_list(creators.iter().copied())
        .push(")");
    let rows: Vec<GainRow> = q.build().fetch_all(&mut *store.read().await?).await?;
    Ok(rows.iter().map(|r| (r.creator_id, r.gains())).collect())
}

/// [`crate::CreatorStore::follower_history`].
pub(crate) async fn follower_history<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    tracked_account_id: Uuid,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Option<Vec<FollowerDay>>, StoreError> {
    let mut conn = store.read().await?;
    let creator: Option<Uuid> =
        D::query("SELECT creator_id FROM tracked_accounts WHERE id = $1 AND organization_id = $2")
            .bind(tracked_account_id)
            .bind(org.0)
            .fetch_scalar_optional(&mut *conn)
            .await?;
    let Some(creator) = creator else {
        return Ok(None);
    };
    let rows: Vec<(NaiveDate, i64)> = D::query(
        "SELECT day, follower_count FROM creator_follower_days
         WHERE creator_id = $1 AND day >= $2 AND day <= $3 ORDER BY day",
    )
    .bind(creator)
    .bind(from)
    .bind(to)
    .fetch_all(&mut *conn)
    .await?;
    Ok(Some(
        rows.into_iter()
            .map(|(day, follower_count)| FollowerDay {
                day,
                follower_count,
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        latest: Option<i64>,
        earliest: Option<i64>,
        b7: Option<i64>,
        b30: Option<i64>,
    ) -> GainRow {
        GainRow {
            creator_id: Uuid::nil(),
            latest,
            earliest,
            base_7d: b7,
            base_30d: b30,
        }
    }

    #[test]
    fn gains_fall_back_to_the_earliest_count_and_are_null_without_any() {
        let g = row(Some(150), Some(100), Some(120), None).gains();
        assert_eq!((g.gain_7d, g.gain_30d), (Some(30), Some(50)));
        assert_eq!(
            row(None, None, None, None).gains(),
            FollowerGains::default()
        );
        // A count that fell.
        assert_eq!(
            row(Some(90), Some(100), None, None).gains().gain_7d,
            Some(-10)
        );
    }
}
