//! The SQLite backend: the embedded default. WAL journal, one writer at a
//! time (`BEGIN IMMEDIATE` for every write transaction, so two writers queue
//! on the busy timeout instead of failing on a lock upgrade).

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool};

use crate::rollup::Scope;
use crate::sql::{Bind, Conn, Dialect, Query, Record, SqlStore};
use crate::{Backend, Store, StoreConfig, StoreError};

mod analytics;
mod creators;
mod housekeeping;
mod users;
mod videos;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// How much of the database file each connection reads through a memory
/// map rather than `read` calls into its own page cache (SQLite clamps it to
/// its build's limit, 2 GiB). Pages stay in the kernel's page cache, shared
/// by every connection: a read of a page another connection read costs no
/// system call and no copy. (Counted in the process's resident set as file
/// pages, not its own memory.)
const MMAP_BYTES: u64 = 1 << 31;

/// A store on a SQLite file.
pub(crate) type SqliteStore = SqlStore<Sqlite>;

impl SqliteStore {
    /// Opens the file `config.url` names (creating it and its folder when missing).
    pub(crate) async fn connect(config: &StoreConfig) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(&config.url)
            .map_err(|e| StoreError::Config(format!("invalid SQLite URL `{}`: {e}", config.url)))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true)
            .pragma("mmap_size", MMAP_BYTES.to_string());
        let file = options.get_filename().to_path_buf();
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                StoreError::Config(format!(
                    "cannot create database folder {}: {e}",
                    dir.display()
                ))
            })?;
        }
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(10))
            .connect_lazy_with(options.clone());
        let pool = SqlitePoolOptions::new()
            .max_connections(config.max_connections.max(1))
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await
            .map_err(|e| match e {
                sqlx::Error::Database(_) | sqlx::Error::Io(_) => StoreError::Config(format!(
                    "cannot open SQLite database {}: {e}",
                    file.display()
                )),
                other => other.into(),
            })?;
        Ok(Self { pool, writer })
    }
}

#[async_trait]
impl Store for SqliteStore {
    fn backend(&self) -> Backend {
        Backend::Sqlite
    }

    async fn migrate(&self) -> Result<usize, StoreError> {
        let before = applied_migrations(&self.pool).await;
        MIGRATOR.run(&self.pool).await?;
        let applied = applied_migrations(&self.pool).await.saturating_sub(before);
        let mut tx = self.write_tx().await?;
        let pending: Option<String> = sqlx::query_scalar(
            "DELETE FROM store_tasks WHERE name = 'rebuild_analytics' RETURNING name",
        )
        .fetch_optional(&mut *tx)
        .await?;
        if pending.is_some() {
            crate::rollup::rebuild::<Sqlite>(&mut tx).await?;
        }
        tx.commit().await?;
        Ok(applied)
    }

    async fn rebuild_analytics(&self) -> Result<(), StoreError> {
        let mut tx = self.write_tx().await?;
        crate::rollup::rebuild::<Sqlite>(&mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn close(&self) {
        self.writer.close().await;
        self.pool.close().await;
    }
}

async fn applied_migrations(pool: &SqlitePool) -> usize {
    sqlx::query_scalar::<_, i64>("SELECT count(*) FROM _sqlx_migrations WHERE success")
        .fetch_one(pool)
        .await
        .map(|n| n.max(0) as usize)
        .unwrap_or(0)
}

impl Dialect for Sqlite {
    const BACKEND: crate::Backend = crate::Backend::Sqlite;
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";
    const GREATEST: &'static str = "max";
    const LEAST: &'static str = "min";
    const SUM_CAST: &'static str = "";
    const CLAIM_LOCK: &'static str = "";
    const ROW_LOCK: &'static str = "";
    const ORG_LOCK: &'static str = "";
    const SCOPE_TABLE: &'static str =
        "(SELECT json_extract(value, '$[0]') AS pv, json_extract(value, '$[1]') AS from_day
          FROM json_each($1)) s";
    const SCOPE_PARAMS: usize = 1;

    fn day_of(column: &str) -> String {
        format!("substr({column}, 1, 10)")
    }

    fn typed(param: &str, _: &str) -> String {
        param.to_owned()
    }

    fn bind_scope(query: Query<Self>, scope: &Scope) -> Query<Self> {
        query.bind(scope.json())
    }

    /// One writer at a time: nothing to lock.
    async fn lock_scope(_: &mut Conn<Self>, _: &Scope) -> Result<(), StoreError> {
        Ok(())
    }

    fn add<'t, T: Bind<'t>>(
        args: &mut sqlx::sqlite::SqliteArguments,
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
