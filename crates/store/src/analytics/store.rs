//! Analytics, stored: the one implementation of [`AnalyticsStore`] for both
//! backends, each answer one statement of [`super::statements`].

use async_trait::async_trait;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::AnalyticsQuery;

use super::statements::{AnalyticsDialect, Binds, DayIncrementRow, day_increments_sql, query_sql};
use super::{AnalyticsRow, AnalyticsStore, DayIncrement, DayIncrementQuery, SORT_METRICS};
use crate::StoreError;
use crate::sql::SqlStore;

/// The plan the database picks for an analytics query (benchmarks): SQLite's
/// `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN (ANALYZE, BUFFERS)`, one line each.
#[cfg(feature = "testing")]
pub async fn explain(
    url: &str,
    org: OrgId,
    query: &AnalyticsQuery,
    increments: bool,
) -> Result<Vec<String>, StoreError> {
    use crate::sql::Dialect;
    use sqlx::Connection;
    let b = Binds::of(org, query);
    match crate::Backend::of_url(url)? {
        crate::Backend::Sqlite => {
            let (statement, rollup) = query_sql::<sqlx::Sqlite>(query, increments);
            let mut conn = sqlx::SqliteConnection::connect(url).await?;
            let q = sqlx::Sqlite::query(sqlx::AssertSqlSafe(format!(
                "EXPLAIN QUERY PLAN {statement}"
            )));
            let rows: Vec<(i64, i64, i64, String)> = b.bind(q, rollup).fetch_all(&mut conn).await?;
            Ok(rows.into_iter().map(|(_, _, _, detail)| detail).collect())
        }
        crate::Backend::Postgres => {
            let (statement, rollup) = query_sql::<sqlx::Postgres>(query, increments);
            let mut conn = sqlx::PgConnection::connect(url).await?;
            let q = sqlx::Postgres::query(sqlx::AssertSqlSafe(format!(
                "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {statement}"
            )));
            let rows: Vec<(String,)> = b.bind(q, rollup).fetch_all(&mut conn).await?;
            Ok(rows.into_iter().map(|(line,)| line).collect())
        }
    }
}

#[async_trait]
impl<D: AnalyticsDialect> AnalyticsStore for SqlStore<D> {
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
            D::query(sqlx::AssertSqlSafe(day_increments_sql::<D>(sort_by)))
                .bind(org.0)
                .bind(query.day)
                .bind(query.limit)
                .bind(query.campaign.as_deref())
                .bind(query.platform.map(|p| p.id()))
                .fetch_all(&mut *self.read().await?)
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

    async fn analytics_revision(&self, org: OrgId) -> Result<i64, StoreError> {
        Ok(
            D::query("SELECT revision FROM analytics_revisions WHERE organization_id = $1")
                .bind(org.0)
                .fetch_scalar_optional::<i64>(&mut *self.read().await?)
                .await?
                .unwrap_or(0),
        )
    }
}

impl<D: AnalyticsDialect> SqlStore<D> {
    /// Totals or increments: one statement ([`query_sql`]), run by the
    /// backend ([`AnalyticsDialect::fetch_analytics`]).
    async fn analytics(
        &self,
        org: OrgId,
        query: &AnalyticsQuery,
        increments: bool,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        let binds = Binds::of(org, query);
        let (sql, rollup) = query_sql::<D>(query, increments);
        D::fetch_analytics(&sql, |q| binds.bind(q, rollup), &mut *self.read().await?).await
    }
}
