//! The SQLite backend: the embedded default. WAL journal, one writer at a
//! time (`BEGIN IMMEDIATE` for every write transaction, so two writers queue
//! on the busy timeout instead of failing on a lock upgrade).

use std::str::FromStr;
use std::time::Duration;

use sqlx::Sqlite;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::sql::{Bind, Conn, Dialect, Query, Record, SqlStore};
use crate::{StoreConfig, StoreError};

mod analytics;
mod housekeeping;
mod record;
mod rollup;

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

impl Dialect for Sqlite {
    const BACKEND: crate::Backend = crate::Backend::Sqlite;
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";
    const GREATEST: &'static str = "max";
    const LEAST: &'static str = "min";

    crate::sql::same_text_items!();

    fn day_of(column: &'static str) -> String {
        format!("substr({column}, 1, 10)")
    }
}
