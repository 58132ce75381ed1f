//! How one SQL text serves both backends: the store's ground floor, which
//! knows no table and no feature.
//!
//! Every storage role is written once, as `impl<D: Dialect> …Store for
//! SqlStore<D>`, with SQL texts that use `$n` parameters (which SQLite binds
//! natively). [`Dialect`] is the small, explicit list of how SQLite and
//! PostgreSQL spell SQL and run it: how a write transaction begins, a few
//! expressions (days, casts, `greatest`), row locks and `SKIP LOCKED` claims,
//! and the sqlx plumbing that binds values and runs statements. A feature
//! whose statements differ in shape between the backends (the video record,
//! the rollup's scope, the analytics answer, the observations' housekeeping)
//! has its own small `…Dialect` trait beside it, which each backend
//! implements in its own module (`sqlite/`, `postgres/`); `backend.rs`
//! gathers them.
//!
//! A query is built with [`Dialect::query`] and bound with [`Query::bind`];
//! a value can be bound when both backends can encode it ([`Bind`]), and a row
//! type can be read when both can decode it ([`Record`]). This is what keeps the
//! generic code free of sqlx's per-database bounds: they are checked once, here.
//!
//! # Values are bound, never written into SQL text
//!
//! A value (anything a request, a user or a row supplies) always goes
//! through a bind: [`Query::bind`], [`Builder::push_bind`] and its kin. SQL
//! text is only ever made of fragments the code itself holds:
//!
//! - a `&'static str`: [`Dialect::query`] and [`Builder::push`] take one
//!   as it is (sqlx's [`SqlSafeStr`]);
//! - text assembled at run time with `format!` from such fragments
//!   (constants, the `Dialect`'s spellings, column and table names from
//!   the code's fixed lists, clauses written from those) and from numbers
//!   the code generated (parameter indexes like `$3`, a page's `LIMIT`,
//!   dates in a partition's name: a number cannot spell SQL). Such text
//!   must be marked [`sqlx::AssertSqlSafe`] to reach the database, so
//!   every place where it does is marked. Helpers that write a fragment
//!   take its parts as `&'static str` where they can
//!   ([`Dialect::day_of`], [`Dialect::row_lock_of`], [`Dialect::typed`]'s
//!   type).
//!
//! The unit test in `sql_guard.rs` holds the rule over every source file of
//! the store: it fails on a `format!` that interpolates something not on
//! its list of known fragments (or of a fragment's shape), and on an
//! `AssertSqlSafe` around anything but a `format!` or a known assembled
//! text.

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
pub(crate) type Conn<D> = <D as Database>::Connection;

/// A transaction of backend `D`.
pub(crate) type Tx<D> = sqlx::Transaction<'static, D>;

/// Rolls `tx` back now and answers `answer`: how a write transaction ends
/// early (a refusal, a row not found). A transaction merely dropped is rolled
/// back only when its connection goes back to the pool, in a task of its own;
/// until then its row locks stay held, and a claim with `SKIP LOCKED` passes
/// over rows that are free.
pub(crate) async fn rollback_with<D: Database, T>(
    tx: Tx<D>,
    answer: Result<T, StoreError>,
) -> Result<T, StoreError> {
    tx.rollback().await?;
    answer
}

/// How each backend spells SQL and runs it. Implemented by [`sqlx::Sqlite`]
/// and [`sqlx::Postgres`] themselves.
///
/// The provided items are the spelling of standard SQL on a database without
/// row locks; a backend overrides only where it differs (SQLite: the write
/// transaction, `max`/`min`; PostgreSQL: locks, casts).
pub(crate) trait Dialect: Database {
    /// Which backend this is.
    const BACKEND: crate::Backend;

    /// The statement that opens a write transaction: SQLite takes the write
    /// lock at once (`BEGIN IMMEDIATE`), so two writers queue rather than
    /// fail on a lock upgrade.
    const BEGIN_WRITE: &'static str = "BEGIN";

    /// `max(a, b)` of two scalars.
    const GREATEST: &'static str = "GREATEST";

    /// `min(a, b)` of two scalars.
    const LEAST: &'static str = "LEAST";

    /// What follows a sum to make it a 64-bit integer.
    const SUM_CAST: &'static str = "";

    /// What follows `SELECT … FOR` a claim of queue rows: PostgreSQL skips
    /// rows another worker holds; SQLite has one writer and no row locks.
    const CLAIM_LOCK: &'static str = "";

    /// What follows a `SELECT` of rows the transaction goes on to write
    /// (PostgreSQL's row lock; SQLite's one writer needs none).
    const ROW_LOCK: &'static str = "";

    /// What follows a `SELECT` that joins tables when the transaction goes
    /// on to write only the row of the one named `alias`: PostgreSQL's
    /// `FOR UPDATE OF alias` (the joined rows stay unlocked); SQLite's one
    /// writer needs none.
    fn row_lock_of(alias: &'static str) -> String {
        match Self::ROW_LOCK {
            "" => String::new(),
            lock => format!("{lock} OF {alias}"),
        }
    }

    /// What follows a `SELECT` of the organization row that must keep a
    /// check true until commit (a quota): PostgreSQL's `FOR NO KEY UPDATE`,
    /// which, unlike `FOR UPDATE`, does not wait on inserts that reference
    /// the organization.
    const ORG_LOCK: &'static str = "";

    /// The UTC day of a timestamp column.
    fn day_of(column: &'static str) -> String;

    /// Parameter `param` cast to the SQL type `ty` where PostgreSQL cannot
    /// infer it (a parameter used only in `IS NULL` tests, or in a `CASE`).
    /// The default leaves the parameter as it is.
    fn typed(param: &str, ty: &'static str) -> String {
        let _ = ty;
        param.to_owned()
    }

    /// Applies the backend's embedded migrations that `pool`'s database lacks.
    fn run_migrations(pool: &Pool<Self>) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Adds `value` to `args`.
    fn add<'t, T: Bind<'t>>(
        args: &mut <Self as Database>::Arguments,
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

    /// Runs `query`; every row it answers, as a row type only this backend
    /// reads (one whose columns differ between the backends).
    fn fetch_all_native<R>(
        query: Query<Self>,
        conn: &mut Conn<Self>,
    ) -> impl Future<Output = Result<Vec<R>, StoreError>> + Send
    where
        R: for<'r> FromRow<'r, <Self as Database>::Row> + Send + Unpin;

    /// A query of `sql`, to bind and run.
    fn query(sql: impl SqlSafeStr) -> Query<Self> {
        Query {
            sql: sql.into_sql_str(),
            args: Default::default(),
            error: None,
            persistent: true,
        }
    }
}

/// The items of [`Dialect`] whose text is the same for both backends though
/// each resolves to its own types: the ways to run a [`Query`] (each
/// through the backend's sqlx executor), binding, and migrations (the
/// module's `MIGRATOR`). Expanded inside each `impl Dialect`.
macro_rules! same_text_items {
    () => {
        async fn run_migrations(pool: &sqlx::Pool<Self>) -> Result<(), StoreError> {
            Ok(MIGRATOR.run(pool).await?)
        }

        async fn execute(query: Query<Self>, conn: &mut Conn<Self>) -> Result<u64, StoreError> {
            let (sql, args, persistent) = query.into_statement()?;
            Ok(sqlx::query_with(sql, args)
                .persistent(persistent)
                .execute(conn)
                .await?
                .rows_affected())
        }

        async fn fetch_all<R: Record>(
            query: Query<Self>,
            conn: &mut Conn<Self>,
        ) -> Result<Vec<R>, StoreError> {
            let (sql, args, persistent) = query.into_statement()?;
            Ok(sqlx::query_as_with(sql, args)
                .persistent(persistent)
                .fetch_all(conn)
                .await?)
        }

        async fn fetch_optional<R: Record>(
            query: Query<Self>,
            conn: &mut Conn<Self>,
        ) -> Result<Option<R>, StoreError> {
            let (sql, args, persistent) = query.into_statement()?;
            Ok(sqlx::query_as_with(sql, args)
                .persistent(persistent)
                .fetch_optional(conn)
                .await?)
        }

        async fn fetch_all_native<R>(
            query: Query<Self>,
            conn: &mut Conn<Self>,
        ) -> Result<Vec<R>, StoreError>
        where
            R: for<'r> sqlx::FromRow<'r, <Self as sqlx::Database>::Row> + Send + Unpin,
        {
            let (sql, args, persistent) = query.into_statement()?;
            Ok(sqlx::query_as_with(sql, args)
                .persistent(persistent)
                .fetch_all(conn)
                .await?)
        }

        fn add<'t, T: Bind<'t>>(
            args: &mut <Self as sqlx::Database>::Arguments,
            value: T,
        ) -> Result<(), sqlx::error::BoxDynError> {
            sqlx::Arguments::add(args, value)
        }
    };
}
pub(crate) use same_text_items;

/// A SQL text and its bound values, for backend `D`.
pub(crate) struct Query<D: Dialect> {
    sql: SqlStr,
    args: <D as Database>::Arguments,
    /// Whether the database keeps the statement's plan across runs (a
    /// prepared statement; see [`Builder::plan_each_run`]).
    persistent: bool,
    /// The first value that failed to encode: reported when the query runs.
    error: Option<sqlx::error::BoxDynError>,
}

impl<D: Dialect> Query<D> {
    /// Binds the next parameter.
    pub(crate) fn bind<'t, T: Bind<'t>>(mut self, value: T) -> Self {
        if self.error.is_none()
            && let Err(e) = D::add(&mut self.args, value)
        {
            self.error = Some(e);
        }
        self
    }

    /// Binds the next parameter with the backend's own encoder (a value only
    /// one backend can encode, such as PostgreSQL's arrays).
    pub(crate) fn bind_native(
        mut self,
        add: impl FnOnce(&mut <D as Database>::Arguments) -> Result<(), sqlx::error::BoxDynError>,
    ) -> Self {
        if self.error.is_none()
            && let Err(e) = add(&mut self.args)
        {
            self.error = Some(e);
        }
        self
    }

    /// The text, the arguments and whether the database keeps the plan, or
    /// the error of a value that did not encode.
    pub(crate) fn into_statement(
        self,
    ) -> Result<(SqlStr, <D as Database>::Arguments, bool), StoreError> {
        match self.error {
            Some(e) => Err(StoreError::Other(sqlx::Error::Encode(e))),
            None => Ok((self.sql, self.args, self.persistent)),
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

/// A SQL text built piece by piece, for statements whose length depends on
/// the data (multi-row inserts, `IN` lists): each [`Builder::push_bind`]
/// writes the next `$n` and binds its value.
pub(crate) struct Builder<D: Dialect> {
    sql: String,
    args: <D as Database>::Arguments,
    binds: usize,
    error: Option<sqlx::error::BoxDynError>,
    persistent: bool,
}

impl<D: Dialect> Builder<D> {
    /// A statement starting with `sql`.
    pub(crate) fn new(sql: impl SqlSafeStr) -> Self {
        Self {
            sql: sql.into_sql_str().as_str().to_owned(),
            args: Default::default(),
            binds: 0,
            error: None,
            persistent: true,
        }
    }

    /// Has PostgreSQL plan the statement for each run's values instead of
    /// keeping one plan for any (sqlx's non-persistent statement): for a
    /// statement whose best plan depends on a bound value. Its generic plan
    /// of a title search cannot see that a `LIKE` pattern is rare, and read
    /// every title (146 ms for a search its index answers in 0.3). SQLite
    /// keeps the statement: its build (with STAT4) already plans a kept
    /// statement anew when a bound value could change the plan.
    pub(crate) fn plan_each_run(&mut self) -> &mut Self {
        if D::BACKEND == crate::Backend::Postgres {
            self.persistent = false;
        }
        self
    }

    /// Appends SQL text: a `&'static str`, or text the code assembled,
    /// marked [`sqlx::AssertSqlSafe`] (see the module's rule).
    pub(crate) fn push(&mut self, sql: impl SqlSafeStr) -> &mut Self {
        self.sql.push_str(sql.into_sql_str().as_str());
        self
    }

    /// Appends the next parameter and binds `value` to it.
    pub(crate) fn push_bind<'t, T: Bind<'t>>(&mut self, value: T) -> &mut Self {
        self.binds += 1;
        self.sql.push('$');
        self.sql.push_str(&self.binds.to_string());
        if self.error.is_none()
            && let Err(e) = D::add(&mut self.args, value)
        {
            self.error = Some(e);
        }
        self
    }

    /// Appends `v1, v2, …` as parameters (the inside of an `IN (…)`).
    pub(crate) fn push_list<'t, T: Bind<'t>>(
        &mut self,
        values: impl IntoIterator<Item = T>,
    ) -> &mut Self {
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.sql.push_str(", ");
            }
            self.push_bind(v);
        }
        self
    }

    /// Appends `VALUES (…), (…)`: one tuple per item, whose values `row` binds.
    pub(crate) fn push_values<I: IntoIterator>(
        &mut self,
        items: I,
        mut row: impl FnMut(&mut Tuple<'_, D>, I::Item),
    ) -> &mut Self {
        self.sql.push_str("VALUES ");
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.sql.push_str(", ");
            }
            self.sql.push('(');
            row(
                &mut Tuple {
                    builder: self,
                    first: true,
                },
                item,
            );
            self.sql.push(')');
        }
        self
    }

    /// The finished query.
    pub(crate) fn build(self) -> Query<D> {
        Query {
            sql: sqlx::AssertSqlSafe(self.sql).into_sql_str(),
            args: self.args,
            error: self.error,
            persistent: self.persistent,
        }
    }
}

/// One tuple of [`Builder::push_values`].
pub(crate) struct Tuple<'b, D: Dialect> {
    builder: &'b mut Builder<D>,
    first: bool,
}

impl<D: Dialect> Tuple<'_, D> {
    /// Appends the tuple's next value.
    pub(crate) fn bind<'t, T: Bind<'t>>(&mut self, value: T) -> &mut Self {
        if !self.first {
            self.builder.sql.push_str(", ");
        }
        self.first = false;
        self.builder.push_bind(value);
        self
    }
}

/// A store on backend `D`: every role is implemented once for it.
#[derive(Debug)]
pub(crate) struct SqlStore<D: Dialect> {
    /// Connections for reads (and PostgreSQL's writes).
    pub(crate) pool: Pool<D>,
    /// The connections write transactions take: on SQLite one connection
    /// that writers queue for, first come first served (a loser of the race
    /// for SQLite's own lock would sleep in its busy handler, up to 100 ms a
    /// turn, however soon the lock frees); on PostgreSQL the pool itself.
    pub(crate) writer: Pool<D>,
}

impl<D: Dialect> SqlStore<D> {
    /// Starts a write transaction ([`Dialect::BEGIN_WRITE`]).
    pub(crate) async fn write_tx(&self) -> Result<Tx<D>, StoreError> {
        Ok(self.writer.begin_with(D::BEGIN_WRITE).await?)
    }

    /// A connection for reads.
    pub(crate) async fn read(&self) -> Result<sqlx::pool::PoolConnection<D>, StoreError> {
        Ok(self.pool.acquire().await?)
    }

    /// The connection for a write of one statement, outside a transaction.
    /// On SQLite it is the one writer: writes queue for it in the pool, in
    /// order, where a write on a read connection would wait for SQLite's
    /// lock in its busy handler's sleeps (up to 100 ms each).
    pub(crate) async fn write(&self) -> Result<sqlx::pool::PoolConnection<D>, StoreError> {
        Ok(self.writer.acquire().await?)
    }
}
