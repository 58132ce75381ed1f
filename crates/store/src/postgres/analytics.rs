//! Analytics on PostgreSQL: the shared SQL of [`crate::analytics`].

use async_trait::async_trait;
use sqlx::AssertSqlSafe;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::AnalyticsQuery;

use super::PgStore;
use crate::StoreError;
use crate::analytics::{
    AggRow, AnalyticsRow, AnalyticsStore, Binds, DayIncrement, DayIncrementQuery, DayIncrementRow,
    POSTGRES, SORT_METRICS, bind_analytics, bind_rollup, day_increments_sql, query_sql,
};

impl PgStore {
    async fn analytics(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
        increments: bool,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        let binds = Binds::of(org, query);
        let (sql, rollup) = query_sql(&POSTGRES, query, increments);
        let q = sqlx::query_as::<_, AggRow>(AssertSqlSafe(sql));
        let q = if rollup {
            bind_rollup!(q, binds)
        } else {
            bind_analytics!(q, binds)
        };
        let rows = q.fetch_all(&self.pool).await?;
        rows.into_iter().map(AnalyticsRow::try_from).collect()
    }
}

#[async_trait]
impl AnalyticsStore for PgStore {
    async fn day_increments(
        &self,
        org: OrgId,
        query: &DayIncrementQuery,
    ) -> Result<Vec<DayIncrement>, StoreError> {
        let sort_by = SORT_METRICS
            .into_iter()
            .find(|m| *m == query.sort_by)
            .unwrap_or("views");
        let rows: Vec<DayIncrementRow> =
            sqlx::query_as(AssertSqlSafe(day_increments_sql(&POSTGRES, sort_by)))
                .bind(org.0)
                .bind(query.day)
                .bind(query.limit)
                .bind(query.campaign.clone())
                .bind(query.platform.map(|p| p.id()))
                .fetch_all(&self.pool)
                .await?;
        rows.into_iter().map(DayIncrement::try_from).collect()
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
