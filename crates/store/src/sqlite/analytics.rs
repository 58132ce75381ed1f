//! Analytics on SQLite: the answer read as one JSON value.

use sqlx::{AssertSqlSafe, Sqlite};

use crate::StoreError;
use crate::analytics::{AggRow, AnalyticsDialect, AnalyticsRow};
use crate::sql::{Conn, Dialect, Query};

impl AnalyticsDialect for Sqlite {
    /// The result comes back as one JSON array built in the database: sqlx
    /// hands SQLite rows from its worker thread one message each (about 3 µs
    /// a row); a per-creator daily answer is 60,000 rows at 100,000 videos,
    /// so one value instead of 60,000 is the difference between 230 ms and a
    /// few tens (BENCHMARKS.md).
    async fn fetch_analytics(
        statement: &str,
        bind: impl FnOnce(Query<Self>) -> Query<Self> + Send,
        conn: &mut Conn<Self>,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        let sql = format!(
            "SELECT json_group_array(json_array(day, platform, author, campaign,
                                                views, likes, comments, reposts, saves))
             FROM ({statement})"
        );
        let json: String = bind(Self::query(AssertSqlSafe(sql)))
            .fetch_scalar(conn)
            .await?;
        let rows: Vec<AggRow> = serde_json::from_str(&json)
            .map_err(|e| StoreError::Corrupt(format!("analytics result: {e}")))?;
        let mut out = rows
            .into_iter()
            .map(AnalyticsRow::try_from)
            .collect::<Result<Vec<_>, StoreError>>()?;
        // An aggregate's input order is not guaranteed: days ascend by sort.
        out.sort_by_key(|r| r.day);
        Ok(out)
    }
}
