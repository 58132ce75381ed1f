//! The SQLite backend: the embedded default. WAL journal, one writer at a
//! time (`BEGIN IMMEDIATE` for every write transaction, so two writers queue
//! on the busy timeout instead of failing on a lock upgrade).

use std::str::FromStr;
use std::time::Duration;

use sqlx::Sqlite;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::AnalyticsRow;
use crate::analytics::AggRow;
use crate::rollup::Scope;
use crate::sql::{Bind, Conn, Dialect, Query, Record, SqlStore};
use crate::{StoreConfig, StoreError};
use sqlx::AssertSqlSafe;

mod housekeeping;
mod record;

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
    const SCOPE_TABLE: &'static str =
        "(SELECT json_extract(value, '$[0]') AS pv, json_extract(value, '$[1]') AS from_day
          FROM json_each($1)) s";
    const SCOPE_PARAMS: usize = 1;
    type RecordRow = record::VideoJsonRow;

    crate::sql::same_text_items!();

    fn day_of(column: &str) -> String {
        format!("substr({column}, 1, 10)")
    }

    /// The result comes back as one JSON array built in the database: sqlx
    /// hands SQLite rows from its worker thread one message each (about 3 µs
    /// a row); a per-creator daily answer is 60,000 rows at 100,000 videos,
    /// so one value instead of 60,000 is the difference between 230 ms and a
    /// few tens (BENCHMARKS.md).
    async fn fetch_analytics(
        sql: &str,
        bind: impl FnOnce(Query<Self>) -> Query<Self> + Send,
        conn: &mut Conn<Self>,
    ) -> Result<Vec<AnalyticsRow>, StoreError> {
        let sql = format!(
            "SELECT json_group_array(json_array(day, platform, author, campaign,
                                                views, likes, comments, reposts, saves))
             FROM ({sql})"
        );
        let json: String = bind(Self::query(AssertSqlSafe(sql)))
            .fetch_scalar(conn)
            .await?;
        let rows: Vec<AggRow> = serde_json::from_str(&json)
            .map_err(|e| StoreError::Corrupt(format!("analytics result: {e}")))?;
        let mut out = rows
            .into_iter()
            .map(AnalyticsRow::try_from)
            .collect::<Result<Vec<_>, StoreError>>()?;
        // An aggregate's input order is not guaranteed: days ascend by sort.
        out.sort_by_key(|r| r.day);
        Ok(out)
    }

    fn bind_scope(query: Query<Self>, scope: &Scope) -> Query<Self> {
        query.bind(scope.json())
    }
}
