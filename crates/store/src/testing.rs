//! Throwaway databases for tests: a temp-file SQLite or a new PostgreSQL
//! database per test. PostgreSQL must be reachable: a test that cannot reach
//! it fails, it never skips.

use std::sync::Arc;

use rand::Rng;

use crate::{Backend, Store, StoreConfig, StoreError};

/// The server tests create their databases on, from `VIDPULSE_TEST_POSTGRES_URL`.
pub fn postgres_admin_url() -> String {
    std::env::var("VIDPULSE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// A fresh, migrated database that lives as long as this value.
#[derive(Debug)]
pub struct TestDb {
    /// Its `DATABASE_URL`.
    pub url: String,
    /// The store on it.
    pub store: Arc<dyn Store>,
    _dir: Option<tempfile::TempDir>,
}

impl TestDb {
    /// Creates and migrates a new database on `backend`.
    pub async fn new(backend: Backend) -> Result<Self, StoreError> {
        let (url, dir) = Self::create(backend).await?;
        let store = crate::open(&StoreConfig::new(url.clone())).await?;
        Ok(Self {
            url,
            store,
            _dir: dir,
        })
    }

    /// Creates an empty database and returns its URL (and the folder that
    /// holds it, for SQLite), without migrating it.
    pub async fn create(
        backend: Backend,
    ) -> Result<(String, Option<tempfile::TempDir>), StoreError> {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir()
                    .map_err(|e| StoreError::Config(format!("temp dir: {e}")))?;
                let url = format!("sqlite://{}/test.db", dir.path().display());
                Ok((url, Some(dir)))
            }
            Backend::Postgres => {
                use sqlx::Connection;
                let admin = postgres_admin_url();
                let mut conn = sqlx::PgConnection::connect(&admin).await.map_err(|e| {
                    StoreError::Unavailable(format!(
                        "PostgreSQL tests need a server at {admin} (set VIDPULSE_TEST_POSTGRES_URL): {e}"
                    ))
                })?;
                let now = chrono::Utc::now().timestamp();
                drop_stale_databases(&mut conn, now).await;
                let name = format!("vp_test_{now}_{:08x}", rand::rng().random::<u32>());
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .execute(&mut conn)
                    .await?;
                let url = match admin.rfind('/') {
                    Some(i) => format!("{}/{name}", &admin[..i]),
                    None => return Err(StoreError::Config(format!("bad admin URL {admin}"))),
                };
                Ok((url, None))
            }
        }
    }
}

/// A PostgreSQL test database is dropped with its value, so that a suite
/// leaves (almost) none behind (each holds ~10 MB); one a run left is
/// dropped by a later run after two hours ([`drop_stale_databases`]).
impl Drop for TestDb {
    fn drop(&mut self) {
        if self._dir.is_some() {
            return; // SQLite: the temporary folder goes with `_dir`.
        }
        let Some((_, name)) = self.url.rsplit_once('/') else {
            return;
        };
        let drop_sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
        // Drop cannot await, and may run inside the test's runtime: the
        // statement runs on a thread of its own with a runtime of its own,
        // not waited for (the test goes on; the last ones of a run may be
        // cut short with the process, left to the two-hour sweep).
        std::thread::spawn(move || {
            use sqlx::Connection;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async {
                let mut conn = sqlx::PgConnection::connect(&postgres_admin_url())
                    .await
                    .ok()?;
                sqlx::query(sqlx::AssertSqlSafe(drop_sql))
                    .execute(&mut conn)
                    .await
                    .ok()
            })
        });
    }
}

/// Drops test databases left behind more than two hours ago (best effort).
async fn drop_stale_databases(conn: &mut sqlx::PgConnection, now: i64) {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE 'vp\\_test\\_%'")
            .fetch_all(&mut *conn)
            .await
            .unwrap_or_default();
    for name in names {
        let created: Option<i64> = name.split('_').nth(2).and_then(|t| t.parse().ok());
        if created.is_some_and(|t| now - t > 7200) {
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .execute(&mut *conn)
            .await;
        }
    }
}

/// Every row of both analytics rollup tables and of the latest closes as
/// text, sorted: to compare what the writes maintained with a rebuild.
pub async fn rollup_dump(url: &str) -> Result<Vec<String>, StoreError> {
    use sqlx::Connection;
    let columns = std::iter::once("closes".to_owned())
        .chain(crate::rollup::sum_columns())
        .map(|c| format!("CAST({c} AS TEXT)"))
        .collect::<Vec<_>>()
        .join(" || ',' || ");
    let mut out = Vec::new();
    for (table, key) in crate::rollup::TABLES {
        let sql = format!(
            "SELECT '{table}:' || CAST(day AS TEXT) || ':' || platform || ':' || {key} || ':' || {columns}
             FROM {table}"
        );
        let rows: Vec<String> = match Backend::of_url(url)? {
            Backend::Sqlite => {
                let mut conn = sqlx::SqliteConnection::connect(url).await?;
                sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                    .fetch_all(&mut conn)
                    .await?
            }
            Backend::Postgres => {
                let mut conn = sqlx::PgConnection::connect(url).await?;
                sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                    .fetch_all(&mut conn)
                    .await?
            }
        };
        out.extend(rows);
    }
    let latest: Vec<String> = crate::rollup::METRICS
        .iter()
        .map(|m| format!("coalesce(CAST(last_{m} AS TEXT), '-')"))
        .collect();
    out.extend(
        text_rows(
            url,
            &format!(
                "SELECT 'latest:' || CAST(platform_video_id AS TEXT) || ':' || CAST(day AS TEXT)
                        || ':' || {} FROM latest_closes",
                latest.join(" || ',' || ")
            ),
        )
        .await?,
    );
    out.sort();
    Ok(out)
}

/// Puts the database back in the state the rollup migration leaves an
/// existing one in: closes unlinked, rollup empty, its rebuild queued for the
/// next `run_queued_tasks` (which follows `migrate` in `open`).
pub async fn forget_rollup(url: &str) -> Result<(), StoreError> {
    use sqlx::Connection;
    let prev: Vec<String> = crate::rollup::METRICS
        .iter()
        .map(|m| format!("prev_{m} = NULL"))
        .collect();
    let statements = [
        format!(
            "UPDATE daily_closes SET prev_day = NULL, {}",
            prev.join(", ")
        ),
        "DELETE FROM analytics_creator_days".to_owned(),
        "DELETE FROM analytics_campaign_days".to_owned(),
        "DELETE FROM latest_closes".to_owned(),
        "INSERT INTO store_tasks (name) VALUES ('rebuild_analytics')".to_owned(),
    ];
    match Backend::of_url(url)? {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(url).await?;
            for sql in statements {
                sqlx::query(sqlx::AssertSqlSafe(sql))
                    .execute(&mut conn)
                    .await?;
            }
        }
        Backend::Postgres => {
            let mut conn = sqlx::PgConnection::connect(url).await?;
            for sql in statements {
                sqlx::query(sqlx::AssertSqlSafe(sql))
                    .execute(&mut conn)
                    .await?;
            }
        }
    }
    Ok(())
}

/// Puts the database back in the state before readings were kept per
/// organization (migration 0013): imports in the shared `observations`,
/// one daily close per video and day built from all of them, and the
/// migration not yet applied, so that the next `migrate` runs it.
pub async fn forget_readings_per_organization(url: &str) -> Result<(), StoreError> {
    let backend = Backend::of_url(url)?;
    let (day_of, types) = match backend {
        Backend::Sqlite => ("substr(captured_at, 1, 10)", ("INTEGER", "TEXT", "TEXT")),
        Backend::Postgres => (
            "(captured_at AT TIME ZONE 'UTC')::DATE",
            ("BIGINT", "TIMESTAMPTZ", "DATE"),
        ),
    };
    let (int, ts, date) = types;
    let counters = |p: &str| {
        crate::rollup::METRICS
            .iter()
            .map(|m| format!("{p}_{m} {int}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let create = format!(
        "CREATE TABLE daily_closes (platform_video_id {int} NOT NULL, day {date} NOT NULL,
           first_at {ts} NOT NULL, {first}, last_at {ts} NOT NULL, {last},
           prev_day {date}, {prev}, PRIMARY KEY (platform_video_id, day))",
        first = counters("first"),
        last = counters("last"),
        prev = counters("prev"),
    );
    let fill = format!(
        "INSERT INTO daily_closes (platform_video_id, day,
           first_at, first_views, first_likes, first_comments, first_reposts, first_saves,
           last_at, last_views, last_likes, last_comments, last_reposts, last_saves)
         WITH ranked AS (
           SELECT o.*, {day_of} AS day,
                  row_number() OVER (PARTITION BY platform_video_id, {day_of} ORDER BY captured_at) AS rf,
                  row_number() OVER (PARTITION BY platform_video_id, {day_of} ORDER BY captured_at DESC) AS rl
           FROM observations o)
         SELECT f.platform_video_id, f.day,
                f.captured_at, f.views, f.likes, f.comments, f.reposts, f.saves,
                l.captured_at, l.views, l.likes, l.comments, l.reposts, l.saves
         FROM ranked f JOIN ranked l ON l.platform_video_id = f.platform_video_id
                                    AND l.day = f.day AND l.rl = 1
         WHERE f.rf = 1"
    );
    execute(
        url,
        &[
            "INSERT INTO observations
               (platform_video_id, captured_at, views, likes, comments, reposts, saves, source)
             SELECT platform_video_id, captured_at, views, likes, comments, reposts, saves, 'import'
             FROM imported_observations WHERE true
             ON CONFLICT DO NOTHING",
            "DROP TABLE imported_observations",
            "DROP TABLE daily_closes",
            &create,
            &fill,
            "DELETE FROM _sqlx_migrations WHERE version = 13",
        ],
    )
    .await
}

/// Runs `sql` on the database at `url` and returns its rows' one text column.
async fn text_rows(url: &str, sql: &str) -> Result<Vec<String>, StoreError> {
    use sqlx::Connection;
    let sql = sqlx::AssertSqlSafe(sql.to_owned());
    Ok(match Backend::of_url(url)? {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(url).await?;
            sqlx::query_scalar(sql).fetch_all(&mut conn).await?
        }
        Backend::Postgres => {
            let mut conn = sqlx::PgConnection::connect(url).await?;
            sqlx::query_scalar(sql).fetch_all(&mut conn).await?
        }
    })
}

/// Runs each of `statements` on the database at `url`, in order, behind
/// the store's back (as an operator, or a future write path, would).
pub async fn execute(url: &str, statements: &[&str]) -> Result<(), StoreError> {
    use sqlx::Connection;
    match Backend::of_url(url)? {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(url).await?;
            for sql in statements {
                sqlx::raw_sql(sqlx::AssertSqlSafe(*sql))
                    .execute(&mut conn)
                    .await?;
            }
        }
        Backend::Postgres => {
            let mut conn = sqlx::PgConnection::connect(url).await?;
            for sql in statements {
                sqlx::raw_sql(sqlx::AssertSqlSafe(*sql))
                    .execute(&mut conn)
                    .await?;
            }
        }
    }
    Ok(())
}

/// The counts triggers keep on `tracked_videos` (the quota's day counts,
/// `organization:day:videos`; each campaign's videos,
/// `campaign:organization:name:videos`; zeros left out) and a recount of
/// `tracked_videos`, each as sorted lines: the two must be equal.
pub async fn quota_counts(url: &str) -> Result<(Vec<String>, Vec<String>), StoreError> {
    let (org, day) = match Backend::of_url(url)? {
        Backend::Sqlite => ("hex(organization_id)", "substr(tracking_ends_at, 1, 10)"),
        Backend::Postgres => (
            "CAST(organization_id AS TEXT)",
            "CAST((tracking_ends_at AT TIME ZONE 'UTC')::date AS TEXT)",
        ),
    };
    let mut kept = text_rows(
        url,
        &format!(
            "SELECT {org} || ':' || CAST(end_day AS TEXT) || ':' || CAST(videos AS TEXT)
             FROM tracked_video_ends WHERE videos <> 0"
        ),
    )
    .await?;
    let mut recount = text_rows(
        url,
        &format!(
            "SELECT {org} || ':' || {day} || ':' || CAST(count(*) AS TEXT)
             FROM tracked_videos GROUP BY {org}, {day}"
        ),
    )
    .await?;
    kept.extend(
        text_rows(
            url,
            &format!(
                "SELECT 'campaign:' || {org} || ':' || campaign || ':' || CAST(videos AS TEXT)
                 FROM campaign_counts WHERE videos <> 0"
            ),
        )
        .await?,
    );
    recount.extend(
        text_rows(
            url,
            &format!(
                "SELECT 'campaign:' || {org} || ':' || campaign || ':' || CAST(count(*) AS TEXT)
                 FROM tracked_videos WHERE campaign IS NOT NULL GROUP BY {org}, campaign"
            ),
        )
        .await?,
    );
    kept.sort();
    recount.sort();
    Ok((kept, recount))
}

/// Deletes tracked videos at `url` behind the store's back (`where_sql` on
/// `tracked_videos`), as an operator's cleanup would.
pub async fn delete_tracked_videos(url: &str, where_sql: &str) -> Result<(), StoreError> {
    execute(
        url,
        &[
            &format!(
                "DELETE FROM video_tags WHERE tracked_video_id IN
                 (SELECT id FROM tracked_videos WHERE {where_sql})"
            ),
            &format!("DELETE FROM tracked_videos WHERE {where_sql}"),
        ],
    )
    .await
}

/// Puts the database back in the state before the quota-counts migration
/// (0009), so that the next `migrate` runs it again on the videos already
/// tracked.
pub async fn forget_quota_counts(url: &str) -> Result<(), StoreError> {
    let drop: &[&str] = match Backend::of_url(url)? {
        Backend::Sqlite => &[
            "DROP TRIGGER tracked_video_ends_add",
            "DROP TRIGGER tracked_video_ends_remove",
            "DROP TRIGGER tracked_video_ends_move",
            "DROP TABLE tracked_video_ends",
        ],
        Backend::Postgres => &[
            "DROP FUNCTION tracked_video_ends_add, tracked_video_ends_remove,
                           tracked_video_ends_move CASCADE",
            "DROP TABLE tracked_video_ends",
        ],
    };
    execute(url, drop).await?;
    execute(url, &["DELETE FROM _sqlx_migrations WHERE version = 9"]).await
}
