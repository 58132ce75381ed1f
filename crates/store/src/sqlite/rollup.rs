//! The analytics rollup on SQLite: [`crate::rollup`] with `json_each` for
//! the scope. One writer at a time, so nothing needs locking.

use sqlx::{AssertSqlSafe, Sqlite, Transaction};

use crate::StoreError;
use crate::analytics::SQLITE;
use crate::rollup::{self, Scope, Shares, changes, shares_sql};

/// The rows `(pv, from_day)` of a [`Scope`], as the table `s`.
pub(crate) const SCOPE: &str =
    "(SELECT json_extract(value, '$[0]') AS pv, json_extract(value, '$[1]') AS from_day
                       FROM json_each(?1)) s";

/// The shares of the closes in `scope`, per cell.
pub(crate) async fn shares(
    tx: &mut Transaction<'static, Sqlite>,
    scope: &Scope,
) -> Result<Shares, StoreError> {
    if scope.is_empty() {
        return Ok(Shares::new());
    }
    let sql = shares_sql(&SQLITE, SCOPE, "?2");
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(scope.json())
        .bind(scope.org)
        .fetch_all(&mut **tx)
        .await?;
    rollup::shares_of(rows)
}

/// Moves the rollup by the shares of `scope` now minus `before`.
pub(crate) async fn settle(
    tx: &mut Transaction<'static, Sqlite>,
    scope: &Scope,
    before: Shares,
) -> Result<(), StoreError> {
    let after = shares(tx, scope).await?;
    rollup::apply::<Sqlite>(tx, &SQLITE, &changes(&before, &after)).await
}

/// Recomputes the links of every close and both rollup tables.
pub(crate) async fn rebuild(tx: &mut Transaction<'static, Sqlite>) -> Result<(), StoreError> {
    rollup::rebuild::<Sqlite>(tx, &SQLITE, "NULL", "NULL").await
}
