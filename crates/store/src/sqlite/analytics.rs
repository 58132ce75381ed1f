//! Analytics on SQLite: the shared SQL of [`crate::analytics`], with the
//! result built as one JSON array in the database. sqlx hands SQLite rows
//! from its worker thread one message each (about 3 µs a row); a per-creator
//! daily answer is 60,000 rows at 100,000 videos, so one value instead of
//! 60,000 is the difference between 230 ms and a few tens (BENCHMARKS.md).

use async_trait::async_trait;
use chrono::NaiveDate;
use sqlx::AssertSqlSafe;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::AnalyticsQuery;

use super::SqliteStore;
use crate::StoreError;
use crate::analytics::{
    AggRow, AnalyticsRow, AnalyticsStore, Binds, DayIncrement, DayIncrementQuery, SQLITE,
    bind_analytics, bind_rollup, query_sql,
};

/// One row of the JSON result, in the column order of [`AggRow`].
type JsonRow = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    i64,
    i64,
    i64,
    i64,
    i64,
);

impl SqliteStore {
    async fn analytics(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
        increments: bool,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        let binds = Binds::of(org, query);
        let (sql, rollup) = query_sql(&SQLITE, query, increments);
        let sql = format!(
            "SELECT json_group_array(json_array(day, platform, author, campaign,
                                                views, likes, comments, reposts, saves))
             FROM ({sql})"
        );
        let q = sqlx::query_scalar::<_, String>(AssertSqlSafe(sql));
        let q = if rollup {
            bind_rollup!(q, binds)
        } else {
            bind_analytics!(q, binds)
        };
        let json = q.fetch_one(&self.pool).await?;
        let rows: Vec<JsonRow> = serde_json::from_str(&json)
            .map_err(|e| StoreError::Corrupt(format!("analytics result: {e}")))?;
        let mut out = rows
            .into_iter()
            .map(
                |(day, platform, author, campaign, views, likes, comments, reposts, saves)| {
                    let day = day
                        .map(|d| NaiveDate::parse_from_str(&d, "%Y-%m-%d"))
                        .transpose()
                        .map_err(|e| StoreError::Corrupt(format!("analytics day: {e}")))?;
                    AnalyticsRow::try_from(AggRow {
                        day,
                        platform,
                        author,
                        campaign,
                        views,
                        likes,
                        comments,
                        reposts,
                        saves,
                    })
                },
            )
            .collect::<Result<Vec<_>, StoreError>>()?;
        // An aggregate's input order is not guaranteed: days ascend by sort.
        out.sort_by_key(|r| r.day);
        Ok(out)
    }
}

#[async_trait]
impl AnalyticsStore for SqliteStore {
    async fn day_increments(
        &self,
        org: OrgId,
        query: &DayIncrementQuery,
    ) -> Result<Vec<DayIncrement>, StoreError> {
        crate::analytics::day_increments(&self.pool, &SQLITE, org, query).await
    }

    async fn analytics_totals(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        self.analytics(org, query, false).await
    }

    async fn analytics_increments(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        self.analytics(org, query, true).await
    }
}
