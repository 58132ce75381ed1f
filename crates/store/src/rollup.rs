//! The analytics rollup: per organization, day and cell, the sums that make
//! totals and increments (docs/api.md, "The rules") add up
//! without reading every daily close. Migration `0003_analytics_rollup`
//! documents the columns.
//!
//! Each close an organization sees (inside its tracking window of the video)
//! has a *share*: the four sums of its migration comment, which depend on the
//! close, the close before it (`prev_*`), the tracking window, the campaign
//! and the author. A write that can move shares takes them for its scope
//! before ([`Shares`]), makes its change, and settles: the rollup tables move
//! by `after − before`, in the same transaction. On PostgreSQL the scope's
//! catalog rows are locked first, so two writers of one video queue, and each
//! transaction writes its cells in one statement in key order, so writers of
//! different videos cannot deadlock on shared cells. The same settling
//! recomputes the scope's latest visible closes (`latest_closes`, migration
//! 0024), which the videos' gains read their window's end from.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;

use chrono::NaiveDate;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, FromRow, Row, Type};
use uuid::Uuid;

use crate::StoreError;
use crate::sql::{Builder, Conn, Dialect, Query, Tx};

/// The metrics, in column order.
pub(crate) const METRICS: [&str; 5] = ["views", "likes", "comments", "reposts", "saves"];
/// The four sums kept per metric, in column order.
pub(crate) const PARTS: [&str; 4] = ["step", "open", "entry", "gain"];
/// Number of sum columns: every part of every metric.
pub(crate) const SUM_COLUMNS: usize = METRICS.len() * PARTS.len();

/// The sum columns, `step_views` to `gain_saves`.
pub(crate) fn sum_columns() -> Vec<String> {
    PARTS
        .iter()
        .flat_map(|p| METRICS.iter().map(move |m| format!("{p}_{m}")))
        .collect()
}

/// The catalog videos a write touches, each from a day on (`None`: all of its
/// closes), for every organization tracking them or just one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    /// Only this organization's tracking, when set.
    pub org: Option<Uuid>,
    /// Catalog video id → first day whose share can move.
    pub videos: BTreeMap<i64, Option<NaiveDate>>,
}

impl Scope {
    /// Every organization's shares of these videos' closes on or after their day.
    pub(crate) fn videos(videos: impl IntoIterator<Item = (i64, Option<NaiveDate>)>) -> Self {
        let mut scope = Self::default();
        for (id, from) in videos {
            scope.add(id, from);
        }
        scope
    }

    /// One organization's shares of every close of these videos.
    pub(crate) fn tracked_by(org: Uuid, videos: impl IntoIterator<Item = i64>) -> Self {
        let mut scope = Self::videos(videos.into_iter().map(|id| (id, None)));
        scope.org = Some(org);
        scope
    }

    /// Widens the scope to `video` from `from` on.
    pub(crate) fn add(&mut self, video: i64, from: Option<NaiveDate>) {
        self.videos
            .entry(video)
            .and_modify(|d| *d = d.zip(from).map(|(a, b)| a.min(b)))
            .or_insert(from);
    }

    /// Whether nothing is in scope.
    pub(crate) fn is_empty(&self) -> bool {
        self.videos.is_empty()
    }

    /// The catalog ids, ascending.
    pub(crate) fn ids(&self) -> Vec<i64> {
        self.videos.keys().copied().collect()
    }

    /// The first days, in the order of [`Scope::ids`].
    pub(crate) fn days(&self) -> Vec<Option<NaiveDate>> {
        self.videos.values().copied().collect()
    }

    /// `[[id, "YYYY-MM-DD" | null], ...]`, for SQLite's `json_each`.
    pub(crate) fn json(&self) -> String {
        let items: Vec<serde_json::Value> = self
            .videos
            .iter()
            .map(|(id, day)| serde_json::json!([id, day.map(|d| d.to_string())]))
            .collect();
        serde_json::Value::Array(items).to_string()
    }
}

/// How a backend hands a [`Scope`] to a statement and locks it: the
/// rollup's backend differences. Implemented in `sqlite/rollup.rs` and
/// `postgres/rollup.rs`.
pub(crate) trait ScopeDialect: Dialect {
    /// The table `s (pv, from_day)` of a [`Scope`]'s rows, read from the
    /// first [`ScopeDialect::SCOPE_PARAMS`] parameters
    /// ([`ScopeDialect::bind_scope`]).
    const SCOPE_TABLE: &'static str;

    /// How many parameters [`ScopeDialect::SCOPE_TABLE`] takes.
    const SCOPE_PARAMS: usize;

    /// Binds `scope` to the parameters of [`ScopeDialect::SCOPE_TABLE`].
    fn bind_scope(query: Query<Self>, scope: &Scope) -> Query<Self>;

    /// Locks the catalog rows of `scope` in id order, where the backend has
    /// row locks: writers of one video then queue for each other.
    /// The default, for a database with one writer at a time, locks nothing.
    fn lock_scope(
        conn: &mut Conn<Self>,
        scope: &Scope,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let _ = (conn, scope);
        async { Ok(()) }
    }
}

/// A rollup cell before it is split over the two tables.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cell {
    pub org: Uuid,
    pub day: NaiveDate,
    pub platform: String,
    pub author: String,
    pub campaign: String,
}

/// The number of closes and the sum columns of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sums {
    pub closes: i64,
    pub values: [i64; SUM_COLUMNS],
}

impl Default for Sums {
    fn default() -> Self {
        Self {
            closes: 0,
            values: [0; SUM_COLUMNS],
        }
    }
}

impl Sums {
    fn add(&mut self, other: &Sums, sign: i64) {
        self.closes += sign * other.closes;
        for (a, b) in self.values.iter_mut().zip(other.values) {
            *a += sign * b;
        }
    }

    fn is_zero(&self) -> bool {
        self.closes == 0 && self.values.iter().all(|v| *v == 0)
    }
}

/// Shares per cell, as read by [`shares_sql`].
pub(crate) type Shares = BTreeMap<Cell, Sums>;

/// One row of [`shares_sql`]: a cell and its sums.
pub(crate) struct ShareRow(Cell, Sums);

impl<'r, R: Row> FromRow<'r, R> for ShareRow
where
    usize: ColumnIndex<R>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
    Uuid: Decode<'r, R::Database> + Type<R::Database>,
    NaiveDate: Decode<'r, R::Database> + Type<R::Database>,
    String: Decode<'r, R::Database> + Type<R::Database>,
{
    fn from_row(r: &'r R) -> Result<Self, sqlx::Error> {
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
        Ok(Self(cell, sums))
    }
}

/// The key of a row of one rollup table: organization, day, platform and
/// the author (creator table) or campaign (campaign table).
pub(crate) type TableKey = (Uuid, NaiveDate, String, String);

/// What to add to each rollup table, in key order.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub creators: BTreeMap<TableKey, Sums>,
    pub campaigns: BTreeMap<TableKey, Sums>,
}

/// `after − before`, split over the two tables, without cells that do not move.
pub(crate) fn changes(before: &Shares, after: &Shares) -> Changes {
    let mut out = Changes::default();
    for (shares, sign) in [(after, 1), (before, -1)] {
        for (cell, sums) in shares {
            let base = (cell.org, cell.day, cell.platform.clone());
            out.creators
                .entry((base.0, base.1, base.2.clone(), cell.author.clone()))
                .or_default()
                .add(sums, sign);
            out.campaigns
                .entry((base.0, base.1, base.2, cell.campaign.clone()))
                .or_default()
                .add(sums, sign);
        }
    }
    out.creators.retain(|_, s| !s.is_zero());
    out.campaigns.retain(|_, s| !s.is_zero());
    out
}

/// The two rollup tables and their key column.
pub(crate) const TABLES: [(&str, &str); 2] = [
    ("analytics_creator_days", "author_username"),
    ("analytics_campaign_days", "campaign"),
];

impl Changes {
    /// The changes of `table` (one of [`TABLES`]).
    pub(crate) fn of(&self, table: &str) -> &BTreeMap<TableKey, Sums> {
        if table == TABLES[0].0 {
            &self.creators
        } else {
            &self.campaigns
        }
    }
}

/// Cells per upsert statement: 26 binds each stays under SQLite's 32,766.
pub(crate) const UPSERT_CHUNK: usize = 500;

/// `INSERT .. ON CONFLICT DO UPDATE` adding `rows` to `table`, keyed by `key`.
pub(crate) fn upsert<'a, D: Dialect>(
    table: &'static str,
    key: &'static str,
    rows: impl IntoIterator<Item = (&'a TableKey, &'a Sums)>,
) -> Builder<D> {
    let sums = sum_columns();
    let mut q = Builder::new(AssertSqlSafe(format!(
        "INSERT INTO {table} (organization_id, day, platform, {key}, closes, {}) ",
        sums.join(", ")
    )));
    q.push_values(rows, |b, ((org, day, platform, k), s)| {
        b.bind(*org)
            .bind(*day)
            .bind(platform.as_str())
            .bind(k.as_str())
            .bind(s.closes);
        for v in s.values {
            b.bind(v);
        }
    });
    let set: Vec<String> = std::iter::once("closes".to_owned())
        .chain(sums)
        .map(|c| format!("{c} = {table}.{c} + excluded.{c}"))
        .collect();
    q.push(AssertSqlSafe(format!(
        " ON CONFLICT (organization_id, day, platform, {key}) DO UPDATE SET {}",
        set.join(", ")
    )));
    q
}

/// Deletes the row of `table` at one key once no close is left in it.
pub(crate) fn delete_empty_sql(table: &'static str, key: &'static str) -> String {
    format!(
        "DELETE FROM {table} WHERE organization_id = $1 AND day = $2 AND platform = $3
           AND {key} = $4 AND closes = 0"
    )
}

/// The shares of the closes of the videos `source` yields (rows `pv`,
/// `from_day`), for the organization the SQL expression `org_param` holds,
/// or every one when it is NULL,
/// summed per cell. Columns: `organization_id, day, platform,
/// author_username, campaign, closes`, then [`sum_columns`].
pub(crate) fn shares_sql<D: Dialect>(source: &str, org_param: &str) -> String {
    let start = D::day_of("tv.tracking_started_at");
    let end = D::day_of("tv.tracking_ends_at");
    let first = format!("(dc.prev_day IS NULL OR dc.prev_day < {start})");
    let mut sums = Vec::new();
    for part in PARTS {
        for m in METRICS {
            let last = format!("coalesce(dc.last_{m}, 0)");
            let opened = format!("{last} - coalesce(dc.first_{m}, 0)");
            let step = format!("{last} - coalesce(dc.prev_{m}, 0)");
            let expr = match part {
                "step" => format!("CASE WHEN {first} THEN 0 ELSE {step} END"),
                "open" => format!("CASE WHEN {first} THEN {opened} ELSE 0 END"),
                "entry" => format!("CASE WHEN {first} THEN {last} ELSE 0 END"),
                _ => format!(
                    "{}(0, CASE WHEN {first} THEN {opened} ELSE {step} END)",
                    D::GREATEST
                ),
            };
            sums.push(format!(
                "coalesce(sum({expr}), 0){} AS {part}_{m}",
                D::SUM_CAST
            ));
        }
    }
    format!(
        "SELECT tv.organization_id AS organization_id, dc.day AS day, pv.platform AS platform,
                coalesce(pv.author_username, tv.own_author, '') AS author_username,
                coalesce(tv.campaign, '') AS campaign,
                count(*) AS closes, {sums}
         FROM {source}
         JOIN daily_closes dc ON dc.platform_video_id = s.pv
                             AND (s.from_day IS NULL OR dc.day >= s.from_day)
         JOIN tracked_videos tv ON tv.platform_video_id = dc.platform_video_id
                               AND tv.organization_id = dc.organization_id
         JOIN platform_videos pv ON pv.id = dc.platform_video_id
         WHERE ({org_param} IS NULL OR tv.organization_id = {org_param})
           AND dc.day >= {start} AND dc.day <= {end}
         GROUP BY tv.organization_id, dc.day, pv.platform, coalesce(pv.author_username, tv.own_author, ''),
                  coalesce(tv.campaign, '')",
        sums = sums.join(", "),
    )
}

/// Rebuilds `table` from every close (after the migration, and in tests to
/// check the maintained rollup): `all_shares` is [`shares_sql`] over all.
pub(crate) fn rebuild_sql(table: &'static str, key: &'static str, all_shares: &str) -> String {
    let sums = sum_columns();
    let summed: Vec<String> = sums.iter().map(|c| format!("sum({c})")).collect();
    format!(
        "INSERT INTO {table} (organization_id, day, platform, {key}, closes, {cols})
         SELECT organization_id, day, platform, {key}, sum(closes), {summed}
         FROM ({all_shares}) s
         GROUP BY organization_id, day, platform, {key}",
        cols = sums.join(", "),
        summed = summed.join(", "),
    )
}

/// Sets the `prev_*` columns of every close from the organization's close
/// of the video before it (a rebuild; writes relink what they touch with
/// [`relink_sql`]).
pub(crate) fn relink_all_sql() -> String {
    let prev: Vec<String> = METRICS.iter().map(|m| format!("prev_{m}")).collect();
    let last: Vec<String> = METRICS.iter().map(|m| format!("p.last_{m}")).collect();
    format!(
        "UPDATE daily_closes SET (prev_day, {prev}) = (
           SELECT p.day, {last} FROM daily_closes p
           WHERE p.platform_video_id = daily_closes.platform_video_id
             AND p.organization_id = daily_closes.organization_id AND p.day < daily_closes.day
           ORDER BY p.day DESC LIMIT 1)",
        prev = prev.join(", "),
        last = last.join(", "),
    )
}

/// Relinks the closes of the videos `source` yields (rows `pv`,
/// `from_day`, as for [`shares_sql`]) from their day on, after closes were
/// written there.
pub(crate) fn relink_sql(source: &str) -> String {
    format!(
        "{} FROM {source}
         WHERE daily_closes.platform_video_id = s.pv AND daily_closes.day >= s.from_day",
        relink_all_sql()
    )
}

/// The shares of the closes in `scope`, per cell. On PostgreSQL the scope's
/// catalog rows are locked first (in id order), so writers of one video queue.
pub(crate) async fn shares<D: ScopeDialect>(
    tx: &mut Tx<D>,
    scope: &Scope,
) -> Result<Shares, StoreError> {
    shares_on::<D>(tx, scope).await
}

/// [`shares`] on the connection of a transaction the caller holds.
pub(crate) async fn shares_on<D: ScopeDialect>(
    tx: &mut Conn<D>,
    scope: &Scope,
) -> Result<Shares, StoreError> {
    if scope.is_empty() {
        return Ok(Shares::new());
    }
    D::lock_scope(&mut *tx, scope).await?;
    let org_param = D::typed(&format!("${}", D::SCOPE_PARAMS + 1), "UUID");
    let sql = shares_sql::<D>(D::SCOPE_TABLE, &org_param);
    let rows: Vec<ShareRow> = D::bind_scope(D::query(AssertSqlSafe(sql)), scope)
        .bind(scope.org)
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().map(|ShareRow(c, s)| (c, s)).collect())
}

/// Moves the rollup by the shares of `scope` now minus `before`.
pub(crate) async fn settle<D: ScopeDialect>(
    tx: &mut Tx<D>,
    scope: &Scope,
    before: Shares,
) -> Result<(), StoreError> {
    settle_on::<D>(tx, scope, before).await
}

/// [`settle`] on the connection of a transaction the caller holds.
pub(crate) async fn settle_on<D: ScopeDialect>(
    tx: &mut Conn<D>,
    scope: &Scope,
    before: Shares,
) -> Result<(), StoreError> {
    let after = shares_on::<D>(tx, scope).await?;
    apply::<D>(tx, &changes(&before, &after)).await?;
    let seen = settle_latest::<D>(tx, scope).await?;
    // Every organization whose closes were in scope, moved or not (two
    // videos' changes may cancel out in a cell, not in a video's gains),
    // and every one that sees a close of a video in scope: a write that
    // settles may change the catalog fields (title, link, creator) its
    // leaderboards show, even where its tracking has ended.
    let orgs: BTreeSet<Uuid> = before
        .keys()
        .chain(after.keys())
        .map(|c| c.org)
        .chain(seen)
        .collect();
    bump_revisions::<D>(tx, &orgs).await
}

/// Recomputes the latest visible close (migration 0024) of every tracked
/// video in `scope`, from its closes and tracking window as they are now;
/// returns the organizations that see one.
async fn settle_latest<D: ScopeDialect>(
    tx: &mut Conn<D>,
    scope: &Scope,
) -> Result<Vec<Uuid>, StoreError> {
    if scope.is_empty() {
        return Ok(Vec::new());
    }
    let org_param = D::typed(&format!("${}", D::SCOPE_PARAMS + 1), "UUID");
    let forget = format!(
        "DELETE FROM latest_closes
         WHERE platform_video_id IN (SELECT s.pv FROM {source})
           AND ({org_param} IS NULL OR organization_id = {org_param})",
        source = D::SCOPE_TABLE,
    );
    D::bind_scope(D::query(AssertSqlSafe(forget)), scope)
        .bind(scope.org)
        .execute(&mut *tx)
        .await?;
    let keep = format!(
        "{} RETURNING organization_id",
        latest_sql::<D>(D::SCOPE_TABLE, &org_param)
    );
    let seen: Vec<(Uuid,)> = D::bind_scope(D::query(AssertSqlSafe(keep)), scope)
        .bind(scope.org)
        .fetch_all(&mut *tx)
        .await?;
    Ok(seen.into_iter().map(|(org,)| org).collect())
}

/// Inserts the latest visible close of the tracked videos of the catalog
/// videos `source` yields (rows `pv`, as for [`shares_sql`]), of the
/// organization `org_param` (an SQL expression; NULL: every organization).
pub(crate) fn latest_sql<D: Dialect>(source: &str, org_param: &str) -> String {
    let last: Vec<String> = METRICS.iter().map(|m| format!("c.last_{m}")).collect();
    let columns: Vec<String> = METRICS.iter().map(|m| format!("last_{m}")).collect();
    format!(
        "INSERT INTO latest_closes (organization_id, platform_video_id, day, {columns})
         SELECT c.organization_id, c.platform_video_id, c.day, {last}
         FROM {source}
         JOIN tracked_videos tv ON tv.platform_video_id = s.pv
         JOIN daily_closes c ON c.platform_video_id = tv.platform_video_id
                            AND c.organization_id = tv.organization_id
                            AND c.day = (SELECT m.day FROM daily_closes m
                                         WHERE m.platform_video_id = tv.platform_video_id
                                           AND m.organization_id = tv.organization_id
                                           AND m.day >= {start} AND m.day <= {end}
                                         ORDER BY m.day DESC LIMIT 1)
         WHERE ({org_param} IS NULL OR tv.organization_id = {org_param})",
        columns = columns.join(", "),
        last = last.join(", "),
        start = D::day_of("tv.tracking_started_at"),
        end = D::day_of("tv.tracking_ends_at"),
    )
}

/// Moves the analytics revision (migration 0021) of each of `orgs`, in
/// ascending order, after the rollup cells: the answers API nodes kept
/// for them are no longer current.
async fn bump_revisions<D: Dialect>(
    conn: &mut Conn<D>,
    orgs: &BTreeSet<Uuid>,
) -> Result<(), StoreError> {
    if orgs.is_empty() {
        return Ok(());
    }
    let mut bump =
        Builder::<D>::new("INSERT INTO analytics_revisions (organization_id, revision) ");
    bump.push_values(orgs, |b, org| {
        b.bind(*org).bind(1_i64);
    });
    bump.push(
        " ON CONFLICT (organization_id)
          DO UPDATE SET revision = analytics_revisions.revision + 1",
    );
    bump.build().execute(conn).await?;
    Ok(())
}

/// Moves both rollup tables by `changes`: one sorted upsert per table and
/// chunk, then the rows left without a close are deleted.
pub(crate) async fn apply<D: Dialect>(
    conn: &mut Conn<D>,
    changes: &Changes,
) -> Result<(), StoreError> {
    for (table, key) in TABLES {
        let rows: Vec<_> = changes.of(table).iter().collect();
        for chunk in rows.chunks(UPSERT_CHUNK) {
            upsert::<D>(table, key, chunk.iter().copied())
                .build()
                .execute(&mut *conn)
                .await?;
        }
        let delete = delete_empty_sql(table, key);
        for ((org, day, platform, k), _) in rows.iter().filter(|(_, s)| s.closes < 0) {
            D::query(AssertSqlSafe(delete.as_str()))
                .bind(*org)
                .bind(*day)
                .bind(platform.as_str())
                .bind(k.as_str())
                .execute(&mut *conn)
                .await?;
        }
    }
    Ok(())
}

/// Rebuilds the rollup when a migration queued it (the `store_tasks` row
/// `rebuild_analytics`, migrations 0003 and 0013), taking the row: the
/// rebuild runs once.
pub(crate) async fn rebuild_if_queued<D: Dialect>(conn: &mut Conn<D>) -> Result<(), StoreError> {
    let pending: Option<String> =
        D::query("DELETE FROM store_tasks WHERE name = 'rebuild_analytics' RETURNING name")
            .fetch_scalar_optional(&mut *conn)
            .await?;
    if pending.is_some() {
        rebuild::<D>(conn).await?;
    }
    Ok(())
}

/// Recomputes the links of every close and both rollup tables.
pub(crate) async fn rebuild<D: Dialect>(conn: &mut Conn<D>) -> Result<(), StoreError> {
    D::query(AssertSqlSafe(relink_all_sql()))
        .execute(&mut *conn)
        .await?;
    let all = shares_sql::<D>(
        &format!(
            "(SELECT DISTINCT platform_video_id AS pv, {} AS from_day FROM tracked_videos) s",
            D::typed("NULL", "DATE")
        ),
        &D::typed("NULL", "UUID"),
    );
    for (table, key) in TABLES {
        D::query(AssertSqlSafe(format!("DELETE FROM {table}")))
            .execute(&mut *conn)
            .await?;
        D::query(AssertSqlSafe(rebuild_sql(table, key, &all)))
            .execute(&mut *conn)
            .await?;
    }
    D::query("DELETE FROM latest_closes WHERE true")
        .execute(&mut *conn)
        .await?;
    let every_video = "(SELECT DISTINCT platform_video_id AS pv FROM tracked_videos) s";
    D::query(AssertSqlSafe(latest_sql::<D>(
        every_video,
        &D::typed("NULL", "UUID"),
    )))
    .execute(&mut *conn)
    .await?;
    // Every organization's analytics may have moved.
    D::query(
        "INSERT INTO analytics_revisions (organization_id, revision)
         SELECT id, 1 FROM organizations WHERE true
         ON CONFLICT (organization_id) DO UPDATE SET revision = analytics_revisions.revision + 1",
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}
