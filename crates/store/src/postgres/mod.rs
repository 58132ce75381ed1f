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

use crate::rollup::Scope;
use crate::sql::{Bind, Conn, Dialect, Query, Record, SqlStore};
use crate::{Backend, Store, StoreConfig, StoreError};

mod analytics;
mod creators;
mod housekeeping;
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
            crate::rollup::rebuild::<Postgres>(&mut tx).await?;
        }
        tx.commit().await?;
        Ok(applied)
    }

    async fn rebuild_analytics(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        crate::rollup::rebuild::<Postgres>(&mut tx).await?;
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

impl Dialect for Postgres {
    const BACKEND: crate::Backend = crate::Backend::Postgres;
    const BEGIN_WRITE: &'static str = "BEGIN";
    const GREATEST: &'static str = "GREATEST";
    const LEAST: &'static str = "LEAST";
    const SUM_CAST: &'static str = "::BIGINT";
    const CLAIM_LOCK: &'static str = "FOR UPDATE SKIP LOCKED";
    const ROW_LOCK: &'static str = "FOR UPDATE";
    const ORG_LOCK: &'static str = "FOR NO KEY UPDATE";
    const SCOPE_TABLE: &'static str = "unnest($1::BIGINT[], $2::DATE[]) AS s(pv, from_day)";
    const SCOPE_PARAMS: usize = 2;

    fn day_of(column: &str) -> String {
        format!("(({column}) AT TIME ZONE 'UTC')::DATE")
    }

    fn typed(param: &str, ty: &str) -> String {
        format!("{param}::{ty}")
    }

    fn bind_scope(query: Query<Self>, scope: &Scope) -> Query<Self> {
        query
            .bind_native(|a| sqlx::Arguments::add(a, scope.ids()))
            .bind_native(|a| sqlx::Arguments::add(a, scope.days()))
    }

    async fn lock_scope(conn: &mut Conn<Self>, scope: &Scope) -> Result<(), StoreError> {
        sqlx::query("SELECT id FROM platform_videos WHERE id = ANY($1) ORDER BY id FOR UPDATE")
            .bind(scope.ids())
            .execute(conn)
            .await?;
        Ok(())
    }

    fn add<'t, T: Bind<'t>>(
        args: &mut sqlx::postgres::PgArguments,
        value: T,
    ) -> Result<(), sqlx::error::BoxDynError> {
        sqlx::Arguments::add(args, value)
    }

    async fn execute(query: Query<Self>, conn: &mut Conn<Self>) -> Result<u64, StoreError> {
        let (sql, args) = query.into_parts()?;
        Ok(sqlx::query_with(sql, args)
            .execute(conn)
            .await?
            .rows_affected())
    }

    async fn fetch_all<R: Record>(
        query: Query<Self>,
        conn: &mut Conn<Self>,
    ) -> Result<Vec<R>, StoreError> {
        let (sql, args) = query.into_parts()?;
        Ok(sqlx::query_as_with(sql, args).fetch_all(conn).await?)
    }

    async fn fetch_optional<R: Record>(
        query: Query<Self>,
        conn: &mut Conn<Self>,
    ) -> Result<Option<R>, StoreError> {
        let (sql, args) = query.into_parts()?;
        Ok(sqlx::query_as_with(sql, args).fetch_optional(conn).await?)
    }
}
