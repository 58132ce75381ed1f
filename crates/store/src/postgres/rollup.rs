//! The rollup's scope on PostgreSQL: handed over as two arrays read with
//! `unnest`, its catalog rows locked in id order.

use sqlx::Postgres;

use crate::StoreError;
use crate::rollup::{Scope, ScopeDialect};
use crate::sql::{Conn, Query};

impl ScopeDialect for Postgres {
    const SCOPE_TABLE: &'static str = "unnest($1::BIGINT[], $2::DATE[]) AS s(pv, from_day)";
    const SCOPE_PARAMS: usize = 2;

    fn bind_scope(query: Query<Self>, scope: &Scope) -> Query<Self> {
        query
            .bind_native(|a| sqlx::Arguments::add(a, scope.ids()))
            .bind_native(|a| sqlx::Arguments::add(a, scope.days()))
    }

    async fn lock_scope(conn: &mut Conn<Self>, scope: &Scope) -> Result<(), StoreError> {
        sqlx::query("SELECT id FROM platform_videos WHERE id = ANY($1) ORDER BY id FOR UPDATE")
            .bind(scope.ids())
            .execute(conn)
            .await?;
        Ok(())
    }
}
