//! Analytics on SQLite: the shared SQL of [`crate::analytics`].

use async_trait::async_trait;
use sqlx::AssertSqlSafe;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::AnalyticsQuery;

use super::SqliteStore;
use crate::StoreError;
use crate::analytics::{
    AggRow, AnalyticsRow, AnalyticsStore, Binds, SQLITE, bind_analytics, bind_rollup,
    increments_sql, rollup_sql, rollup_table, totals_sql,
};

#[async_trait]
impl AnalyticsStore for SqliteStore {
    async fn analytics_totals(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        let binds = Binds::of(org, query);
        let rows = match rollup_table(query) {
            Some(table) => {
                let sql = rollup_sql(&SQLITE, table, query.group_by, false);
                bind_rollup!(sqlx::query_as::<_, AggRow>(AssertSqlSafe(sql)), binds)
                    .fetch_all(&self.pool)
                    .await?
            }
            None => {
                let sql = totals_sql(&SQLITE, query.group_by);
                bind_analytics!(sqlx::query_as::<_, AggRow>(AssertSqlSafe(sql)), binds)
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        rows.into_iter().map(AnalyticsRow::try_from).collect()
    }

    async fn analytics_increments(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        let binds = Binds::of(org, query);
        let rows = match rollup_table(query) {
            Some(table) => {
                let sql = rollup_sql(&SQLITE, table, query.group_by, true);
                bind_rollup!(sqlx::query_as::<_, AggRow>(AssertSqlSafe(sql)), binds)
                    .fetch_all(&self.pool)
                    .await?
            }
            None => {
                let sql = increments_sql(&SQLITE, query.group_by);
                bind_analytics!(sqlx::query_as::<_, AggRow>(AssertSqlSafe(sql)), binds)
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        rows.into_iter().map(AnalyticsRow::try_from).collect()
    }
}
