//! Nothing a single video read shows can change without moving its stamp.
//!
//! The API keeps single video answers under the record's stamp and trusts
//! them while it holds (ARCHITECTURE.md, "Request path"); triggers move the
//! stamp's revisions when a column the record shows changes (migration
//! 0011). Their column lists are written by hand, twice, so this suite reads
//! the database's own catalog (`pragma_table_info`, `information_schema`)
//! and, for every column of every table a record is read from, changes that
//! column on a tracked video behind the store's back (taking the value of
//! another video's row, so it stays valid) and asks:
//!
//! * a column the record shows (any column not listed below): the stamp
//!   moved;
//! * a column listed in [`NOT_SHOWN`]: the record is as it was.
//!
//! A column or table a later migration adds fails here until it is
//! classified: watched by the triggers, or listed with the reason the record
//! does not show it.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use sqlx::{Connection, PgConnection, SqliteConnection};
use uuid::Uuid;
use vidpulse_domain::{OrgId, Plan, Platform, VideoRef};
use vidpulse_store::{Backend, RecordStamp, Store, TrackOutcome, VideoLookup, VideoRecord};

use crate::{batch, org, store, t0, track, yt};

/// The tables a single video read reads, each with the column naming the
/// fixture's row of a video (one row per video in each).
const RECORD_TABLES: &[(&str, &str)] = &[
    ("tracked_videos", "id"),
    ("platform_videos", "id"),
    ("video_tags", "tracked_video_id"),
    // A tag's id is the id of the video the fixture attaches it to.
    ("tags", "id"),
    ("observations", "platform_video_id"),
    ("imported_observations", "platform_video_id"),
];

/// The columns of the lists below that only PostgreSQL's schema has.
const POSTGRES_ONLY: &[(&str, &str)] = &[("tracked_videos", "title")];

/// Columns the record does not show: changing one leaves the record as it was.
const NOT_SHOWN: &[(&str, &str)] = &[
    // When the tracking was last edited; the creator whose backfill or
    // discovery tracked the video.
    ("tracked_videos", "updated_at"),
    ("tracked_videos", "tracked_account_id"),
    // A copy of the catalog row's platform for the listing's filter (the
    // record shows the catalog's own), written once with the row.
    ("tracked_videos", "platform"),
    // A copy of the catalog row's publish time for the listing's filter
    // and sort (the record shows the catalog's own), kept by triggers.
    ("tracked_videos", "published_at"),
    // A copy of the catalog row's title for the listing's title search on
    // PostgreSQL (migration 0027; the record shows the catalog's own),
    // kept by triggers.
    ("tracked_videos", "title"),
    // When the organization last asked for a manual refresh (the cooldown's
    // clock; the reading it brought moves the catalog's counters).
    ("tracked_videos", "refresh_asked_at"),
    // The end of the window the video got when tracked, which a campaign
    // extends `tracking_ends_at` past (the record shows that one).
    ("tracked_videos", "window_ends_at"),
    // The catalog row's display name (the record shows the handle), its
    // latest counters and their time (the record's come from its own
    // in-window readings), and the refresh schedule behind it.
    ("platform_videos", "author_display_name"),
    ("platform_videos", "views"),
    ("platform_videos", "likes"),
    ("platform_videos", "comments"),
    ("platform_videos", "reposts"),
    ("platform_videos", "saves"),
    ("platform_videos", "stats_updated_at"),
    ("platform_videos", "tracking_started_at"),
    ("platform_videos", "refresh_until"),
    ("platform_videos", "lease_until"),
    ("platform_videos", "lease_token"),
    ("platform_videos", "last_error"),
    ("platform_videos", "created_at"),
    // A tag is found by id; its organization is the video's, its
    // lowercase name a uniqueness key, its creation time unshown.
    ("tags", "organization_id"),
    ("tags", "name_lower"),
    ("tags", "created_at"),
    // Which source read a reading.
    ("observations", "source"),
];

/// Columns this suite leaves alone: identities (other rows refer to them,
/// so no write renumbers a row) and the stamp's own revisions.
const NOT_CHANGED: &[(&str, &str)] = &[
    ("tracked_videos", "id"),
    ("platform_videos", "id"),
    ("tags", "id"),
    ("tracked_videos", "revision"),
    ("platform_videos", "revision"),
];

/// Readings: shown, and watched by their writers rather than by triggers.
/// They are appended by `closes::insert_observations` and removed by the
/// retention, each of which moves the revisions itself (`records.rs`), and
/// no write changes one in place, so an UPDATE of them behind the store's
/// back is not watched. A new reading column is written on those same
/// paths: list it here.
const READINGS: &[(&str, &str)] = &[
    ("observations", "platform_video_id"),
    ("observations", "captured_at"),
    ("observations", "views"),
    ("observations", "likes"),
    ("observations", "comments"),
    ("observations", "reposts"),
    ("observations", "saves"),
    ("imported_observations", "organization_id"),
    ("imported_observations", "platform_video_id"),
    ("imported_observations", "captured_at"),
    ("imported_observations", "views"),
    ("imported_observations", "likes"),
    ("imported_observations", "comments"),
    ("imported_observations", "reposts"),
    ("imported_observations", "saves"),
];

/// Every other table: a single video read does not read them.
const OTHER_TABLES: &[&str] = &[
    "_sqlx_migrations",
    "account_tags",
    "alert_events",
    "alert_rules",
    "alert_sends",
    "analytics_campaign_days",
    "analytics_creator_days",
    "analytics_revisions",
    "api_keys",
    "campaign_counts",
    "campaigns",
    "creator_follower_days",
    "creator_jobs",
    "creator_profiles",
    "creators",
    "credit_ledger",
    "daily_closes",
    "idempotency_keys",
    "invitations",
    "latest_closes",
    "memberships",
    "organizations",
    "password_links",
    "recap_sends",
    "recap_subscriptions",
    "sessions",
    "share_links",
    "settings",
    "store_tasks",
    "tracked_accounts",
    "tracked_video_ends",
    "usage_daily",
    "usage_daily_keys",
    "users",
    "webhook_deliveries",
    "webhook_endpoints",
    "webhook_events",
    "webhook_subscriptions",
    "webhook_sweeps",
];

/// The instant the records are read at (inside both videos' windows).
fn now() -> DateTime<Utc> {
    t0() + Duration::days(1)
}

/// A connection to the test database, beside the store's pool.
enum Db {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

impl Db {
    async fn open(url: &str) -> Self {
        match Backend::of_url(url).unwrap() {
            Backend::Sqlite => Db::Sqlite(SqliteConnection::connect(url).await.unwrap()),
            Backend::Postgres => Db::Postgres(PgConnection::connect(url).await.unwrap()),
        }
    }

    async fn run(&mut self, sql: &str) {
        let q = sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()));
        let done = match self {
            Db::Sqlite(c) => q.execute(c).await.map(drop),
            Db::Postgres(c) => q.execute(c).await.map(drop),
        };
        done.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// The one text column of `sql`'s rows.
    async fn texts(&mut self, sql: &str) -> Vec<String> {
        let safe = sqlx::AssertSqlSafe(sql.to_owned());
        match self {
            Db::Sqlite(c) => sqlx::query_scalar(safe).fetch_all(c).await,
            Db::Postgres(c) => sqlx::query_scalar(safe).fetch_all(c).await,
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// The one integer of `sql`'s one row.
    async fn int(&mut self, sql: &str) -> i64 {
        let safe = sqlx::AssertSqlSafe(sql.to_owned());
        match self {
            Db::Sqlite(c) => sqlx::query_scalar(safe).fetch_one(c).await,
            Db::Postgres(c) => sqlx::query_scalar(safe).fetch_one(c).await,
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// `id` as an SQL literal.
    fn uuid(&self, id: Uuid) -> String {
        match self {
            Db::Sqlite(_) => format!("X'{}'", id.simple()),
            Db::Postgres(_) => format!("'{id}'"),
        }
    }

    /// The comparison true when two values differ, NULLs included.
    fn differ(&self) -> &'static str {
        match self {
            Db::Sqlite(_) => "IS NOT",
            Db::Postgres(_) => "IS DISTINCT FROM",
        }
    }

    /// The tables of the schema (not PostgreSQL's partitions of them).
    async fn tables(&mut self) -> Vec<String> {
        let sql = match self {
            // Ordinary tables only: the titles' trigram index (a virtual
            // table and its shadow tables, migration 0020) is an index, as
            // is their bigram index (a table kept by triggers here, a GIN
            // index on PostgreSQL, migration 0026).
            Db::Sqlite(_) => {
                "SELECT name FROM pragma_table_list
                 WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'
                   AND name <> 'title_bigrams'"
            }
            Db::Postgres(_) => {
                "SELECT c.relname::text FROM pg_class c
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
                   AND NOT c.relispartition"
            }
        };
        self.texts(sql).await
    }

    /// The columns of `table`.
    async fn columns(&mut self, table: &str) -> Vec<String> {
        let sql = match self {
            Db::Sqlite(_) => format!("SELECT name FROM pragma_table_info('{table}')"),
            Db::Postgres(_) => format!(
                "SELECT column_name::text FROM information_schema.columns
                 WHERE table_schema = current_schema() AND table_name = '{table}'"
            ),
        };
        self.texts(&sql).await
    }
}

/// Two tracked videos, each in its own organization, whose rows differ in
/// every column: `a`, the one changed and read, and `b`, whose values it
/// takes.
struct Pair {
    org: OrgId,
    a: Uuid,
    b: Uuid,
    catalog_a: i64,
    catalog_b: i64,
    lookups: [VideoLookup; 2],
}

impl Pair {
    /// The SQL literal naming `a`'s (or `b`'s) row in `table`.
    fn row(&self, db: &Db, table: &str, of_a: bool) -> String {
        let (video, catalog) = match of_a {
            true => (self.a, self.catalog_a),
            false => (self.b, self.catalog_b),
        };
        match table {
            "platform_videos" | "observations" | "imported_observations" => catalog.to_string(),
            _ => db.uuid(video),
        }
    }
}

/// Tracks a YouTube video and a TikTok video (the `n`-th pair) and fills
/// every column of their rows, each video's differently.
async fn pair(store: &Arc<dyn Store>, db: &mut Db, n: u32) -> Pair {
    let (org_a, org_b) = (
        org(store, Plan::Business).await,
        org(store, Plan::Business).await,
    );
    let video = yt(n);
    let a = track(store, org_a, t0(), vec![video.clone()]).await[0]
        .video_id
        .0;
    let id = format!("7{n:018}");
    let tiktok = VideoRef {
        platform: Platform::TikTok,
        canonical_url: format!("https://www.tiktok.com/@b/video/{id}"),
        external_id: id,
    };
    let mut b_batch = batch(org_b, t0() + Duration::hours(1), vec![tiktok]);
    b_batch.window = Duration::days(20);
    let TrackOutcome::Tracked(b) = store.track_videos(b_batch).await.unwrap() else {
        panic!("the second video is tracked");
    };
    let b = b[0].video_id.0;
    let (ua, ub) = (db.uuid(a), db.uuid(b));
    let catalog = "SELECT platform_video_id FROM tracked_videos WHERE id = ";
    let catalog_a = db.int(&format!("{catalog}{ua}")).await;
    let catalog_b = db.int(&format!("{catalog}{ub}")).await;
    let tv_b = format!("FROM tracked_videos WHERE id = {ub}");
    let statements = [
        // The second video came with a tracked creator (ids borrowed from it).
        format!(
            "INSERT INTO creators (id, platform, channel_id, username, username_key,
                                   last_fetched_at, created_at)
             SELECT id, 'tiktok', 'channel-{n}', 'b', 'b', created_at, created_at {tv_b}"
        ),
        format!(
            "INSERT INTO tracked_accounts (id, organization_id, creator_id, is_active,
               initial_videos_count, discovered_since, created_at, updated_at)
             SELECT id, organization_id, id, true, 0, created_at, created_at, created_at {tv_b}"
        ),
        format!(
            "UPDATE tracked_videos SET notes = 'a', budget = 100, campaign = 'spring', ecpm = 1.5
             WHERE id = {ua}"
        ),
        format!(
            "UPDATE tracked_videos SET notes = 'b', budget = 200, campaign = 'fall', ecpm = 2.5,
               video_status = 'paused', workflow_status = 'running',
               updated_at = tracking_ends_at, tracked_account_id = id,
               refresh_asked_at = tracking_ends_at, own_url = 'https://b.example/own',
               own_author = 'own_b', own_title = 'Own b', own_published_at = tracking_ends_at
             WHERE id = {ub}"
        ),
        format!(
            "UPDATE platform_videos SET title = 'b', thumbnail_url = 'https://b.example/b.jpg',
               author_username = 'b', author_display_name = 'B', published_at = created_at,
               views = 1, likes = 2, comments = 3, reposts = 4, saves = 5,
               stats_updated_at = created_at, next_refresh_at = refresh_until,
               lease_until = refresh_until, lease_token = (SELECT id {tv_b}),
               failures = 5, last_error = 'b', gone_at = created_at
             WHERE id = {catalog_b}"
        ),
        // One tag each (its id the video's).
        format!(
            "INSERT INTO tags (id, organization_id, name, name_lower, created_at)
             SELECT id, organization_id, 'Launch', 'launch', created_at
             FROM tracked_videos WHERE id = {ua}"
        ),
        format!(
            "INSERT INTO tags (id, organization_id, name, name_lower, created_at)
             SELECT id, organization_id, 'Teaser', 'teaser', created_at {tv_b}"
        ),
        format!(
            "INSERT INTO video_tags (tracked_video_id, tag_id) VALUES ({ua}, {ua}), ({ub}, {ub})"
        ),
        // A platform reading at each tracking start, an import at each end.
        format!(
            "INSERT INTO observations
               (platform_video_id, captured_at, views, likes, comments, reposts, saves, source)
             SELECT platform_video_id, tracking_started_at, 10, 20, 30, 40, 50, 'simulated'
             FROM tracked_videos WHERE id = {ua}"
        ),
        format!(
            "INSERT INTO observations
               (platform_video_id, captured_at, views, likes, comments, reposts, saves, source)
             SELECT platform_video_id, tracking_started_at, 11, 21, 31, 41, 51, 'tiktok_research'
             {tv_b}"
        ),
        format!(
            "INSERT INTO imported_observations (organization_id, platform_video_id, captured_at,
               views, likes, comments, reposts, saves)
             SELECT organization_id, platform_video_id, tracking_ends_at, 12, 22, 32, 42, 52
             FROM tracked_videos WHERE id = {ua}"
        ),
        format!(
            "INSERT INTO imported_observations (organization_id, platform_video_id, captured_at,
               views, likes, comments, reposts, saves)
             SELECT organization_id, platform_video_id, tracking_ends_at, 13, 23, 33, 43, 53
             {tv_b}"
        ),
    ];
    for sql in &statements {
        db.run(sql).await;
    }
    Pair {
        org: org_a,
        a,
        b,
        catalog_a,
        catalog_b,
        lookups: [
            VideoLookup::Id(vidpulse_domain::VideoId(a)),
            VideoLookup::ExternalId(video.external_id),
        ],
    }
}

/// What a read by `lookup` answers (the record but its stamp), and the stamp.
async fn read(
    store: &Arc<dyn Store>,
    org: OrgId,
    lookup: &VideoLookup,
) -> (Option<VideoRecord>, Option<RecordStamp>) {
    let record = store.video(org, lookup, now()).await.unwrap();
    let shown = record.map(|r| VideoRecord {
        stamp: RecordStamp {
            video_id: r.video_id,
            revision: 0,
            catalog_revision: 0,
        },
        ..r
    });
    (shown, store.record_stamp(org, lookup).await.unwrap())
}

fn listed(list: &[(&str, &str)], table: &str, column: &str) -> bool {
    list.contains(&(table, column))
}

#[rstest]
#[tokio::test]
async fn every_column_a_record_shows_moves_its_stamp(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (test_db, store) = store(backend).await;
    let mut db = Db::open(&test_db.url).await;
    let mut problems = Vec::new();

    // Every table is read by the record, or listed as not.
    let tables = db.tables().await;
    for table in &tables {
        let known =
            RECORD_TABLES.iter().any(|(t, _)| t == table) || OTHER_TABLES.contains(&&**table);
        if !known {
            problems.push(format!(
                "table {table}: unclassified; add it to RECORD_TABLES if a single video read \
                 reads it, else to OTHER_TABLES"
            ));
        }
    }
    for table in OTHER_TABLES {
        if !tables.iter().any(|t| t == table) {
            problems.push(format!(
                "table {table}: no such table; remove it from OTHER_TABLES"
            ));
        }
    }

    let mut n = 0;
    for (table, _) in RECORD_TABLES {
        let columns = db.columns(table).await;
        assert!(!columns.is_empty(), "no table {table}");
        for list in [NOT_SHOWN, NOT_CHANGED, READINGS] {
            for (_, column) in list.iter().filter(|(t, _)| t == table) {
                let absent_here =
                    backend == Backend::Sqlite && POSTGRES_ONLY.contains(&(table, column));
                if !columns.iter().any(|c| c == column) && !absent_here {
                    problems.push(format!("{table}.{column}: no such column; unlist it"));
                }
            }
        }
        for column in &columns {
            if listed(NOT_CHANGED, table, column) || listed(READINGS, table, column) {
                continue;
            }
            n += 1;
            if let Some(problem) = change(&store, &mut db, n, table, column).await {
                problems.push(problem);
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Changes `table.column` on a fresh pair's first video and checks the
/// reads by id and by external id; a problem found, if any.
async fn change(
    store: &Arc<dyn Store>,
    db: &mut Db,
    n: u32,
    table: &str,
    column: &str,
) -> Option<String> {
    let pair = pair(store, db, n).await;
    let key = RECORD_TABLES.iter().find(|(t, _)| *t == table)?.1;
    let (a, b) = (pair.row(db, table, true), pair.row(db, table, false));
    let differ = db.differ();
    let varied = db
        .int(&format!(
            "SELECT count(*) FROM {table} x, {table} y
             WHERE x.{key} = {a} AND y.{key} = {b} AND x.{column} {differ} y.{column}"
        ))
        .await;
    if varied != 1 {
        return Some(format!(
            "{table}.{column}: the fixture gives both videos the same value (a new column?); \
             give the second another in `pair`, then classify the column"
        ));
    }
    let mut before = Vec::new();
    for lookup in &pair.lookups {
        before.push(read(store, pair.org, lookup).await);
    }
    db.run(&format!(
        "UPDATE {table} SET {column} = (SELECT x.{column} FROM {table} x WHERE x.{key} = {b})
         WHERE {key} = {a}"
    ))
    .await;
    let not_shown = listed(NOT_SHOWN, table, column);
    for (lookup, (record, stamp)) in pair.lookups.iter().zip(before) {
        let (record_now, stamp_now) = read(store, pair.org, lookup).await;
        let (same_record, same_stamp) = (record_now == record, stamp_now == stamp);
        if not_shown && !same_record {
            return Some(format!(
                "{table}.{column}: listed in NOT_SHOWN, but changing it changed the record \
                 read by {lookup:?}; unlist it and have the triggers of migration 0011 watch it"
            ));
        }
        if !not_shown && same_stamp {
            let effect = match same_record {
                true => "left the record as it was",
                false => "changed the record",
            };
            return Some(format!(
                "{table}.{column}: changing it {effect} (read by {lookup:?}) but not its stamp; \
                 if the record shows it, a trigger must watch it (migration 0011), \
                 else list it in NOT_SHOWN"
            ));
        }
    }
    None
}
