//! The analytics rollup on SQLite: [`crate::rollup`] with `json_each` for
//! the scope. One writer at a time, so nothing needs locking.

use sqlx::{AssertSqlSafe, Row, Sqlite, Transaction};

use crate::StoreError;
use crate::analytics::SQLITE;
use crate::rollup::{
    Cell, Changes, Scope, Shares, Sums, TABLES, UPSERT_CHUNK, changes, delete_empty_sql,
    rebuild_sql, relink_all_sql, shares_sql, upsert,
};

/// The rows `(pv, from_day)` of a [`Scope`], as the table `s`.
pub(crate) const SCOPE: &str =
    "(SELECT json_extract(value, '$[0]') AS pv, json_extract(value, '$[1]') AS from_day
                       FROM json_each(?1)) s";

/// The shares of the closes in `scope`, per cell.
pub(crate) async fn shares(
    tx: &mut Transaction<'static, Sqlite>,
    scope: &Scope,
) -> Result<Shares, StoreError> {
    let mut out = Shares::new();
    if scope.is_empty() {
        return Ok(out);
    }
    let sql = shares_sql(&SQLITE, SCOPE, "?2");
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(scope.json())
        .bind(scope.org)
        .fetch_all(&mut **tx)
        .await?;
    for r in rows {
        let mut sums = Sums {
            closes: r.try_get(5)?,
            ..Sums::default()
        };
        for (i, v) in sums.values.iter_mut().enumerate() {
            *v = r.try_get(6 + i)?;
        }
        let cell = Cell {
            org: r.try_get(0)?,
            day: r.try_get(1)?,
            platform: r.try_get(2)?,
            author: r.try_get(3)?,
            campaign: r.try_get(4)?,
        };
        out.insert(cell, sums);
    }
    Ok(out)
}

/// Moves the rollup by the shares of `scope` now minus `before`.
pub(crate) async fn settle(
    tx: &mut Transaction<'static, Sqlite>,
    scope: &Scope,
    before: Shares,
) -> Result<(), StoreError> {
    let after = shares(tx, scope).await?;
    apply(tx, &changes(&before, &after)).await
}

async fn apply(tx: &mut Transaction<'static, Sqlite>, changes: &Changes) -> Result<(), StoreError> {
    for (table, key) in TABLES {
        let rows: Vec<_> = changes.of(table).iter().collect();
        for chunk in rows.chunks(UPSERT_CHUNK) {
            upsert::<Sqlite>(table, key, chunk.iter().copied())
                .build()
                .execute(&mut **tx)
                .await?;
        }
        let delete = delete_empty_sql(&SQLITE, table, key);
        for ((org, day, platform, k), _) in rows.iter().filter(|(_, s)| s.closes < 0) {
            sqlx::query(AssertSqlSafe(delete.as_str()))
                .bind(org)
                .bind(day)
                .bind(platform)
                .bind(k)
                .execute(&mut **tx)
                .await?;
        }
    }
    Ok(())
}

/// Recomputes the links of every close and both rollup tables.
pub(crate) async fn rebuild(tx: &mut Transaction<'static, Sqlite>) -> Result<(), StoreError> {
    sqlx::query(AssertSqlSafe(relink_all_sql()))
        .execute(&mut **tx)
        .await?;
    let all = shares_sql(
        &SQLITE,
        "(SELECT DISTINCT platform_video_id AS pv, NULL AS from_day FROM tracked_videos) s",
        "NULL",
    );
    for (table, key) in TABLES {
        sqlx::query(AssertSqlSafe(format!("DELETE FROM {table}")))
            .execute(&mut **tx)
            .await?;
        sqlx::query(AssertSqlSafe(rebuild_sql(table, key, &all)))
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
