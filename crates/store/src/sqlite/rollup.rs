//! The rollup's scope on SQLite: handed over as one JSON parameter, read
//! with `json_each`; nothing to lock (one writer at a time).

use sqlx::Sqlite;

use crate::rollup::{Scope, ScopeDialect};
use crate::sql::Query;

impl ScopeDialect for Sqlite {
    const SCOPE_TABLE: &'static str =
        "(SELECT json_extract(value, '$[0]') AS pv, json_extract(value, '$[1]') AS from_day
          FROM json_each($1)) s";
    const SCOPE_PARAMS: usize = 1;

    fn bind_scope(query: Query<Self>, scope: &Scope) -> Query<Self> {
        query.bind(scope.json())
    }
}
