//! Observation housekeeping: monthly partitions ahead on PostgreSQL, and the
//! retention, which deletes raw observations (whole months where it can)
//! and keeps the daily closes.

use chrono::{Duration, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::{Counters, Plan, Platform};
use vidpulse_store::{Backend, Housekeeping, ImportRow};

use crate::{org, store};

fn row(id: &str, at: chrono::DateTime<Utc>, views: i64) -> ImportRow {
    ImportRow {
        platform: Platform::YouTube,
        external_id: id.into(),
        captured_at: at,
        counters: Counters {
            views: Some(views),
            likes: Some(views / 10),
            comments: Some(1),
            reposts: None,
            saves: None,
        },
        url: None,
        channel_username: Some("ana".into()),
        title: None,
        published_at: None,
    }
}

async fn count(db: &vidpulse_store::testing::TestDb, table: &str) -> i64 {
    use sqlx::Connection;
    let sql = format!("SELECT count(*) FROM {table}");
    match db.store.backend() {
        Backend::Sqlite => {
            let mut c = sqlx::SqliteConnection::connect(&db.url).await.unwrap();
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .fetch_one(&mut c)
                .await
                .unwrap()
        }
        Backend::Postgres => {
            let mut c = sqlx::PgConnection::connect(&db.url).await.unwrap();
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .fetch_one(&mut c)
                .await
                .unwrap()
        }
    }
}

#[rstest]
#[tokio::test]
async fn retention_deletes_old_observations_and_keeps_the_closes(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let org = org(&store, Plan::Business).await;
    let at = |m: u32, d: u32| Utc.with_ymd_and_hms(2026, m, d, 12, 0, 0).unwrap();
    let rows = vec![
        row("yt000000001", at(6, 15), 100),
        row("yt000000001", at(9, 10), 200),
        row("yt000000001", at(11, 20), 300),
        row("yt000000001", at(11, 21), 400),
    ];
    let now = at(11, 23);
    store
        .import_observations(org, &rows, Duration::days(365), now)
        .await
        .unwrap();
    let closes = count(&db, "daily_closes").await;
    assert_eq!(closes, 4);

    // No retention: nothing deleted (PostgreSQL: the partitions ahead exist).
    let done = store.housekeep_observations(now, None).await.unwrap();
    assert_eq!(done.rows_deleted, 0);
    assert_eq!(count(&db, "imported_observations").await, 4);

    // 60 days: June and September go; the closes stay.
    let done = store
        .housekeep_observations(now, Some(Duration::days(60)))
        .await
        .unwrap();
    assert_eq!(done.rows_deleted + done.partitions_dropped, 2, "{done:?}");
    assert_eq!(count(&db, "imported_observations").await, 2);
    assert_eq!(count(&db, "daily_closes").await, closes);
    // Again: nothing more to do.
    let again = store
        .housekeep_observations(now, Some(Duration::days(60)))
        .await
        .unwrap();
    assert_eq!(again, Housekeeping::default());
}

#[rstest]
#[tokio::test]
async fn postgres_keeps_monthly_partitions_ahead_and_drops_whole_old_months(
    #[values(Backend::Postgres)] backend: Backend,
) {
    let (db, store) = store(backend).await;
    let org = org(&store, Plan::Business).await;
    let partitions = || {
        count(
            &db,
            "pg_inherits WHERE inhparent = 'observations'::regclass",
        )
    };
    // The migration made this month and the next three, and the default.
    let made = partitions().await;
    assert!(made >= 5, "{made}");
    let now = Utc::now();
    store
        .import_observations(
            org,
            &[row("yt000000002", now - Duration::hours(1), 5)],
            Duration::days(30),
            now,
        )
        .await
        .unwrap();
    // Six months on, with a 31-day retention: four months are created ahead,
    // the months wholly past the retention are dropped with their rows.
    let later = now + Duration::days(183);
    let done = store
        .housekeep_observations(later, Some(Duration::days(31)))
        .await
        .unwrap();
    assert!(done.partitions_created >= 2, "{done:?}");
    assert!(done.partitions_dropped >= 4, "{done:?}");
    assert_eq!(count(&db, "observations").await, 0);
    assert_eq!(count(&db, "imported_observations").await, 0);
    assert_eq!(count(&db, "daily_closes").await, 1);
}
