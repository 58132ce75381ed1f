//! The PostgreSQL backend: for scale-out. Row claims use
//! `FOR UPDATE SKIP LOCKED`, so any number of workers can share the queue;
//! write transactions lock the organization row where a check (quota) must
//! hold until commit, `FOR NO KEY UPDATE`: a plain `FOR UPDATE` would wait on
//! the key-share locks that inserts referencing the organization take, and
//! two such transactions would deadlock.

use std::str::FromStr;
use std::time::Duration;

use sqlx::Postgres;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::analytics::AnalyticsDialect;
use crate::sql::{Bind, Conn, Dialect, Query, Record, SqlStore};
use crate::{StoreConfig, StoreError};

mod housekeeping;
mod record;
mod rollup;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// A store on a PostgreSQL database.
pub(crate) type PgStore = SqlStore<Postgres>;

impl PgStore {
    /// Connects to the database `config.url` names.
    pub(crate) async fn connect(config: &StoreConfig) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(&config.url)
            .map_err(|e| StoreError::Config(format!("invalid PostgreSQL URL: {e}")))?
            // Dates and JSON timestamps are computed in UTC whatever the server's default.
            // No JIT: a statement that runs a subquery per video (the videos'
            // leaderboard, a listing sorted by gains) is estimated costly
            // enough to compile, and compiling took 180 ms of its 600
            // (BENCHMARKS.md); our statements are short, compiled code never pays.
            .options([("timezone", "UTC"), ("jit", "off")]);
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

impl Dialect for Postgres {
    const BACKEND: crate::Backend = crate::Backend::Postgres;
    const SUM_CAST: &'static str = "::BIGINT";
    const CLAIM_LOCK: &'static str = "FOR UPDATE SKIP LOCKED";
    const ROW_LOCK: &'static str = "FOR UPDATE";
    const ORG_LOCK: &'static str = "FOR NO KEY UPDATE";

    crate::sql::same_text_items!();

    fn day_of(column: &'static str) -> String {
        format!("(({column}) AT TIME ZONE 'UTC')::DATE")
    }

    fn typed(param: &str, ty: &'static str) -> String {
        format!("{param}::{ty}")
    }
}

/// Analytics rows are read as they come (binary protocol, no text to parse).
impl AnalyticsDialect for Postgres {}
