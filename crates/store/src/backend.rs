//! What a store's database must be: the ground floor's [`Dialect`] and the
//! `…Dialect` trait of each feature whose statements differ between the
//! backends, together [`Db`], which `sqlx::Sqlite` and `sqlx::Postgres` are
//! (`sqlite/`, `postgres/`); and [`Store`] for a [`SqlStore`] on one.

use async_trait::async_trait;

use crate::analytics::AnalyticsDialect;
use crate::ops::HousekeepingDialect;
use crate::rollup::{self, ScopeDialect};
use crate::sql::{Dialect, SqlStore};
use crate::videos::RecordDialect;
use crate::{Backend, Store, StoreError};

/// A backend every role runs on: SQL spelling and plumbing, and each
/// feature's own differences (the video record, the rollup's scope, the
/// analytics answer, the observations' housekeeping).
pub(crate) trait Db:
    Dialect + RecordDialect + ScopeDialect + AnalyticsDialect + HousekeepingDialect
{
}

impl<D> Db for D where
    D: Dialect + RecordDialect + ScopeDialect + AnalyticsDialect + HousekeepingDialect
{
}

#[async_trait]
impl<D: Db> Store for SqlStore<D> {
    fn backend(&self) -> Backend {
        D::BACKEND
    }

    async fn migrate(&self) -> Result<usize, StoreError> {
        let applied = || async {
            D::query("SELECT count(*) FROM _sqlx_migrations WHERE success")
                .fetch_scalar::<i64>(&mut *self.read().await?)
                .await
                .map(|n| n.max(0) as usize)
        };
        let before = applied().await.unwrap_or(0);
        D::run_migrations(&self.pool).await?;
        Ok(applied().await.unwrap_or(0).saturating_sub(before))
    }

    async fn run_queued_tasks(&self) -> Result<(), StoreError> {
        let mut tx = self.write_tx().await?;
        crate::campaigns::adopt_if_queued::<D>(&mut tx).await?;
        rollup::rebuild_if_queued::<D>(&mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn rebuild_analytics(&self) -> Result<(), StoreError> {
        let mut tx = self.write_tx().await?;
        rollup::rebuild::<D>(&mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        D::query("SELECT 1")
            .execute(&mut *self.read().await?)
            .await?;
        Ok(())
    }

    async fn close(&self) {
        self.writer.close().await;
        self.pool.close().await;
    }
}
