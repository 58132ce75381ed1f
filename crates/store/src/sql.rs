//! How one SQL text serves both backends.
//!
//! Every storage role is written once, as `impl<D: Dialect> …Store for
//! SqlStore<D>`, with SQL texts that use `$n` parameters (which SQLite binds
//! natively). [`Dialect`] is the small, explicit list of what truly differs
//! between SQLite and PostgreSQL: how a write transaction begins, the spelling
//! of a few expressions (days, casts, `greatest`), row locks and `SKIP LOCKED`
//! claims, and the few statements whose shape differs (JSON versus array
//! aggregation, partitions), which each backend implements in its own module
//! (`sqlite/`, `postgres/`).
//!
//! A query is built with [`Dialect::query`] and bound with [`Query::bind`];
//! a value can be bound when both backends can encode it ([`Bind`]), and a row
//! type can be read when both can decode it ([`Record`]). This is what keeps the
//! generic code free of sqlx's per-database bounds: they are checked once, here.

use std::future::Future;

use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{Database, Encode, FromRow, Pool, Postgres, SqlSafeStr, SqlStr, Sqlite, Type};

use crate::StoreError;

/// A value both backends can bind.
pub(crate) trait Bind<'t>:
    Encode<'t, Sqlite> + Type<Sqlite> + Encode<'t, Postgres> + Type<Postgres> + Send
{
}

impl<'t, T> Bind<'t> for T where
    T: Encode<'t, Sqlite> + Type<Sqlite> + Encode<'t, Postgres> + Type<Postgres> + Send
{
}

/// A row type both backends can read.
pub(crate) trait Record:
    for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin
{
}

impl<T> Record for T where
    T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin
{
}

/// A connection of backend `D` (a transaction or a pooled connection
/// dereferences to one).
pub(crate) type Conn<D> = <<D as Dialect>::Db as Database>::Connection;

/// A transaction of backend `D`.
pub(crate) type Tx<D> = sqlx::Transaction<'static, <D as Dialect>::Db>;

/// What differs between the two backends. Implemented by [`sqlx::Sqlite`] and
/// [`sqlx::Postgres`] themselves.
pub(crate) trait Dialect: Send + Sync + Sized + 'static {
    /// The sqlx database.
    type Db: Database;

    /// Which backend this is.
    const BACKEND: crate::Backend;

    /// The statement that opens a write transaction: SQLite takes the write
    /// lock at once (`BEGIN IMMEDIATE`), so two writers queue rather than
    /// fail on a lock upgrade.
    const BEGIN_WRITE: &'static str;

    /// `max(a, b)` of two scalars.
    const GREATEST: &'static str;

    /// `min(a, b)` of two scalars.
    const LEAST: &'static str;

    /// What follows a sum to make it a 64-bit integer.
    const SUM_CAST: &'static str;

    /// What follows `SELECT … FOR` a claim of queue rows: PostgreSQL skips
    /// rows another worker holds; SQLite has one writer and no row locks.
    const CLAIM_LOCK: &'static str;

    /// The UTC day of a timestamp column.
    fn day_of(column: &str) -> String;

    /// Parameter `param` cast to the SQL type `ty` where PostgreSQL cannot
    /// infer it (a parameter used only in `IS NULL` tests, or in a `CASE`).
    fn typed(param: &str, ty: &str) -> String;

    /// Adds `value` to `args`.
    fn add<'t, T: Bind<'t>>(
        args: &mut <Self::Db as Database>::Arguments,
        value: T,
    ) -> Result<(), sqlx::error::BoxDynError>;

    /// Runs `query`; the number of rows it changed.
    fn execute(
        query: Query<Self>,
        conn: &mut Conn<Self>,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Runs `query`; every row it answers.
    fn fetch_all<R: Record>(
        query: Query<Self>,
        conn: &mut Conn<Self>,
    ) -> impl Future<Output = Result<Vec<R>, StoreError>> + Send;

    /// Runs `query`; its first row, if any.
    fn fetch_optional<R: Record>(
        query: Query<Self>,
        conn: &mut Conn<Self>,
    ) -> impl Future<Output = Result<Option<R>, StoreError>> + Send;

    /// A query of `sql`, to bind and run.
    fn query(sql: impl SqlSafeStr) -> Query<Self> {
        Query {
            sql: sql.into_sql_str(),
            args: Default::default(),
            error: None,
        }
    }
}

/// A SQL text and its bound values, for backend `D`.
pub(crate) struct Query<D: Dialect> {
    sql: SqlStr,
    args: <D::Db as Database>::Arguments,
    /// The first value that failed to encode: reported when the query runs.
    error: Option<sqlx::error::BoxDynError>,
}

impl<D: Dialect> Query<D> {
    /// Binds the next parameter.
    pub(crate) fn bind<'t, T: Bind<'t>>(mut self, value: T) -> Self {
        if self.error.is_none() {
            if let Err(e) = D::add(&mut self.args, value) {
                self.error = Some(e);
            }
        }
        self
    }

    /// The text and the arguments, or the error of a value that did not encode.
    fn into_parts(self) -> Result<(SqlStr, <D::Db as Database>::Arguments), StoreError> {
        match self.error {
            Some(e) => Err(StoreError::Other(sqlx::Error::Encode(e))),
            None => Ok((self.sql, self.args)),
        }
    }

    /// Runs the query; the number of rows it changed.
    pub(crate) async fn execute(self, conn: &mut Conn<D>) -> Result<u64, StoreError> {
        D::execute(self, conn).await
    }

    /// Runs the query; every row.
    pub(crate) async fn fetch_all<R: Record>(
        self,
        conn: &mut Conn<D>,
    ) -> Result<Vec<R>, StoreError> {
        D::fetch_all(self, conn).await
    }

    /// Runs the query; the first row, if any.
    pub(crate) async fn fetch_optional<R: Record>(
        self,
        conn: &mut Conn<D>,
    ) -> Result<Option<R>, StoreError> {
        D::fetch_optional(self, conn).await
    }

    /// Runs the query; its first row, [`StoreError::NotFound`] when none.
    pub(crate) async fn fetch_one<R: Record>(self, conn: &mut Conn<D>) -> Result<R, StoreError> {
        D::fetch_optional(self, conn)
            .await?
            .ok_or(StoreError::NotFound)
    }

    /// Runs the query; the first column of every row.
    pub(crate) async fn fetch_column<T>(self, conn: &mut Conn<D>) -> Result<Vec<T>, StoreError>
    where
        (T,): Record,
    {
        let rows: Vec<(T,)> = D::fetch_all(self, conn).await?;
        Ok(rows.into_iter().map(|(v,)| v).collect())
    }

    /// Runs the query; the first column of its first row, if any.
    pub(crate) async fn fetch_scalar_optional<T>(
        self,
        conn: &mut Conn<D>,
    ) -> Result<Option<T>, StoreError>
    where
        (T,): Record,
    {
        let row: Option<(T,)> = D::fetch_optional(self, conn).await?;
        Ok(row.map(|(v,)| v))
    }

    /// Runs the query; the first column of its first row,
    /// [`StoreError::NotFound`] when none.
    pub(crate) async fn fetch_scalar<T>(self, conn: &mut Conn<D>) -> Result<T, StoreError>
    where
        (T,): Record,
    {
        self.fetch_scalar_optional(conn)
            .await?
            .ok_or(StoreError::NotFound)
    }
}

/// A store on backend `D`: every role is implemented once for it.
#[derive(Debug)]
pub(crate) struct SqlStore<D: Dialect> {
    /// Connections for reads (and PostgreSQL's writes).
    pub(crate) pool: Pool<D::Db>,
    /// The connections write transactions take: on SQLite one connection
    /// that writers queue for, first come first served (a loser of the race
    /// for SQLite's own lock would sleep in its busy handler, up to 100 ms a
    /// turn, however soon the lock frees); on PostgreSQL the pool itself.
    pub(crate) writer: Pool<D::Db>,
}

impl<D: Dialect> SqlStore<D> {
    /// Starts a write transaction ([`Dialect::BEGIN_WRITE`]).
    pub(crate) async fn write_tx(&self) -> Result<Tx<D>, StoreError> {
        Ok(self.writer.begin_with(D::BEGIN_WRITE).await?)
    }

    /// A connection for reads.
    pub(crate) async fn read(&self) -> Result<sqlx::pool::PoolConnection<D::Db>, StoreError> {
        Ok(self.pool.acquire().await?)
    }
}

impl Dialect for Sqlite {
    type Db = Sqlite;
    const BACKEND: crate::Backend = crate::Backend::Sqlite;
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";
    const GREATEST: &'static str = "max";
    const LEAST: &'static str = "min";
    const SUM_CAST: &'static str = "";
    const CLAIM_LOCK: &'static str = "";

    fn day_of(column: &str) -> String {
        format!("substr({column}, 1, 10)")
    }

    fn typed(param: &str, _: &str) -> String {
        param.to_owned()
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

impl Dialect for Postgres {
    type Db = Postgres;
    const BACKEND: crate::Backend = crate::Backend::Postgres;
    const BEGIN_WRITE: &'static str = "BEGIN";
    const GREATEST: &'static str = "GREATEST";
    const LEAST: &'static str = "LEAST";
    const SUM_CAST: &'static str = "::BIGINT";
    const CLAIM_LOCK: &'static str = "FOR UPDATE SKIP LOCKED";

    fn day_of(column: &str) -> String {
        format!("(({column}) AT TIME ZONE 'UTC')::DATE")
    }

    fn typed(param: &str, ty: &str) -> String {
        format!("{param}::{ty}")
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
