//! The PostgreSQL backend: for scale-out. Row claims use
//! `FOR UPDATE SKIP LOCKED`, so any number of workers can share the queue;
//! write transactions lock the organization row where a check (quota) must
//! hold until commit, `FOR NO KEY UPDATE`: a plain `FOR UPDATE` would wait on
//! the key-share locks that inserts referencing the organization take, and
//! two such transactions would deadlock.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgPool, Postgres};

use crate::sql::SqlStore;
use crate::{Backend, Store, StoreConfig, StoreError};

mod analytics;
mod creators;
mod credits;
mod housekeeping;
mod import;
mod refresh;
mod rollup;
mod usage;
mod users;
mod videos;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// A store on a PostgreSQL database.
pub(crate) type PgStore = SqlStore<Postgres>;

impl PgStore {
    /// Connects to the database `config.url` names.
    pub(crate) async fn connect(config: &StoreConfig) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(&config.url)
            .map_err(|e| StoreError::Config(format!("invalid PostgreSQL URL: {e}")))?
            // Dates and JSON timestamps are computed in UTC whatever the server's default.
            .options([("timezone", "UTC")]);
        let pool = PgPoolOptions::new()
            .max_connections(config.max_connections.max(1))
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await
            .map_err(|e| match e {
                sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::PoolTimedOut => {
                    StoreError::Unavailable(format!("cannot reach PostgreSQL: {e}"))
                }
                other => other.into(),
            })?;
        Ok(Self {
            writer: pool.clone(),
            pool,
        })
    }
}

#[async_trait]
impl Store for PgStore {
    fn backend(&self) -> Backend {
        Backend::Postgres
    }

    async fn migrate(&self) -> Result<usize, StoreError> {
        let before = applied_migrations(&self.pool).await;
        MIGRATOR.run(&self.pool).await?;
        let applied = applied_migrations(&self.pool).await.saturating_sub(before);
        let mut tx = self.pool.begin().await?;
        let pending: Option<String> = sqlx::query_scalar(
            "DELETE FROM store_tasks WHERE name = 'rebuild_analytics' RETURNING name",
        )
        .fetch_optional(&mut *tx)
        .await?;
        if pending.is_some() {
            rollup::rebuild(&mut tx).await?;
        }
        tx.commit().await?;
        Ok(applied)
    }

    async fn rebuild_analytics(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        rollup::rebuild(&mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}

async fn applied_migrations(pool: &PgPool) -> usize {
    sqlx::query_scalar::<_, i64>("SELECT count(*) FROM _sqlx_migrations WHERE success")
        .fetch_one(pool)
        .await
        .map(|n| n.max(0) as usize)
        .unwrap_or(0)
}
