//! The analytics rollup on PostgreSQL: [`crate::rollup`] with `unnest` for
//! the scope. Taking shares locks the scope's catalog rows first (in id
//! order), so writers of one video queue for each other.

use sqlx::{AssertSqlSafe, Postgres, Row, Transaction};

use crate::StoreError;
use crate::analytics::POSTGRES;
use crate::rollup::{
    Cell, Changes, Scope, Shares, Sums, TABLES, UPSERT_CHUNK, changes, delete_empty_sql,
    rebuild_sql, relink_all_sql, shares_sql, upsert,
};

/// The rows `(pv, from_day)` of a [`Scope`], as the table `s`.
pub(crate) const SCOPE: &str = "unnest($1::BIGINT[], $2::DATE[]) AS s(pv, from_day)";

/// The shares of the closes in `scope`, per cell.
pub(crate) async fn shares(
    tx: &mut Transaction<'static, Postgres>,
    scope: &Scope,
) -> Result<Shares, StoreError> {
    let mut out = Shares::new();
    if scope.is_empty() {
        return Ok(out);
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
    tx: &mut Transaction<'static, Postgres>,
    scope: &Scope,
    before: Shares,
) -> Result<(), StoreError> {
    let after = shares(tx, scope).await?;
    apply(tx, &changes(&before, &after)).await
}

async fn apply(
    tx: &mut Transaction<'static, Postgres>,
    changes: &Changes,
) -> Result<(), StoreError> {
    for (table, key) in TABLES {
        let rows: Vec<_> = changes.of(table).iter().collect();
        for chunk in rows.chunks(UPSERT_CHUNK) {
            upsert::<Postgres>(table, key, chunk.iter().copied())
                .build()
                .execute(&mut **tx)
                .await?;
        }
        let delete = delete_empty_sql(&POSTGRES, table, key);
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
pub(crate) async fn rebuild(tx: &mut Transaction<'static, Postgres>) -> Result<(), StoreError> {
    sqlx::query(AssertSqlSafe(relink_all_sql()))
        .execute(&mut **tx)
        .await?;
    let all = shares_sql(
        &POSTGRES,
        "(SELECT DISTINCT platform_video_id AS pv, CAST(NULL AS DATE) AS from_day FROM tracked_videos) s",
        "CAST(NULL AS UUID)",
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
