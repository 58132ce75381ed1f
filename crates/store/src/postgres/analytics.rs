//! Analytics on PostgreSQL: the shared SQL of [`crate::analytics`].

use async_trait::async_trait;
use sqlx::AssertSqlSafe;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::AnalyticsQuery;

use super::PgStore;
use crate::StoreError;
use crate::analytics::{
    AggRow, AnalyticsRow, AnalyticsStore, Binds, DayIncrement, DayIncrementQuery, POSTGRES,
    bind_analytics, bind_rollup, query_sql,
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
        crate::analytics::day_increments(&self.pool, &POSTGRES, org, query).await
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
