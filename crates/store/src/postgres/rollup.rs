//! The analytics rollup on PostgreSQL: [`crate::rollup`] with `unnest` for
//! the scope. Taking shares locks the scope's catalog rows first (in id
//! order), so writers of one video queue for each other.

use sqlx::{AssertSqlSafe, Postgres, Transaction};

use crate::StoreError;
use crate::analytics::POSTGRES;
use crate::rollup::{self, Scope, Shares, changes, shares_sql};

/// The rows `(pv, from_day)` of a [`Scope`], as the table `s`.
pub(crate) const SCOPE: &str = "unnest($1::BIGINT[], $2::DATE[]) AS s(pv, from_day)";

/// The shares of the closes in `scope`, per cell.
pub(crate) async fn shares(
    tx: &mut Transaction<'static, Postgres>,
    scope: &Scope,
) -> Result<Shares, StoreError> {
    if scope.is_empty() {
        return Ok(Shares::new());
    }
    sqlx::query("SELECT id FROM platform_videos WHERE id = ANY($1) ORDER BY id FOR UPDATE")
        .bind(scope.ids())
        .execute(&mut **tx)
        .await?;
    let sql = shares_sql(&POSTGRES, SCOPE, "$3::UUID");
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(scope.ids())
        .bind(scope.days())
        .bind(scope.org)
        .fetch_all(&mut **tx)
        .await?;
    rollup::shares_of(rows)
}

/// Moves the rollup by the shares of `scope` now minus `before`.
pub(crate) async fn settle(
    tx: &mut Transaction<'static, Postgres>,
    scope: &Scope,
    before: Shares,
) -> Result<(), StoreError> {
    let after = shares(tx, scope).await?;
    rollup::apply::<Postgres>(tx, &POSTGRES, &changes(&before, &after)).await
}

/// Recomputes the links of every close and both rollup tables.
pub(crate) async fn rebuild(tx: &mut Transaction<'static, Postgres>) -> Result<(), StoreError> {
    rollup::rebuild::<Postgres>(tx, &POSTGRES, "CAST(NULL AS UUID)", "CAST(NULL AS DATE)").await
}
