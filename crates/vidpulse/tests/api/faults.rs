//! Faults, with the real binary on PostgreSQL: a worker (mid-read and
//! mid-delivery), a server and an import killed with SIGKILL in the middle
//! of their work, and the database going away for a while. After each,
//! every invariant holds: every webhook event has its cause (and, with an
//! endpoint, every cause its event), each delivered at least once; no observation
//! lost or written twice, daily closes equal a recomputation from the
//! observations, the analytics rollup equals a rebuild, each tracked video
//! charged exactly once, every creator job in a terminal state, the quota's
//! day counts equal to a recount.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use vidpulse_store::Backend;
use vidpulse_store::testing::{TestDb, quota_counts, rollup_dump};

use crate::processes::{admin, client, eventually, free_port, start_with, wait_ready};
use crate::receiver::Receiver;

/// Checks every invariant of the database at `url`.
async fn assert_invariants(url: &str) {
    let pool = PgPool::connect(url).await.unwrap();
    let count = |sql: String| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql))
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    // Readings: at most one per video and instant (the key). Each
    // organization sees the platform's readings from its tracking start on
    // and its own imports; each (organization, video, UTC day) of those has
    // its close, no more, no less, equal to its first and last reading.
    const SEEN: &str = "WITH seen AS (
           SELECT tv.organization_id AS org, o.platform_video_id AS pv, o.captured_at AS at,
                  o.views, o.likes, o.comments
           FROM observations o
           JOIN tracked_videos tv ON tv.platform_video_id = o.platform_video_id
                                 AND o.captured_at >= tv.tracking_started_at
           UNION ALL
           SELECT organization_id, platform_video_id, captured_at, views, likes, comments
           FROM imported_observations)";
    let days = count(format!(
        "{SEEN} SELECT count(*) FROM (SELECT DISTINCT org, pv,
             (at AT TIME ZONE 'UTC')::date FROM seen) t"
    ))
    .await;
    assert_eq!(
        days,
        count("SELECT count(*) FROM daily_closes".into()).await
    );
    let wrong_closes = count(format!(
            "{SEEN} SELECT count(*) FROM daily_closes d
         JOIN LATERAL (
           SELECT min(at) AS first_at, max(at) AS last_at
           FROM seen s
           WHERE s.org = d.organization_id AND s.pv = d.platform_video_id
             AND (s.at AT TIME ZONE 'UTC')::date = d.day) r ON TRUE
         JOIN seen f ON f.org = d.organization_id AND f.pv = d.platform_video_id AND f.at = r.first_at
         JOIN seen l ON l.org = d.organization_id AND l.pv = d.platform_video_id AND l.at = r.last_at
         WHERE d.first_at <> r.first_at OR d.last_at <> r.last_at
            OR d.first_views IS DISTINCT FROM f.views OR d.last_views IS DISTINCT FROM l.views
            OR d.last_likes IS DISTINCT FROM l.likes OR d.last_comments IS DISTINCT FROM l.comments"
    ))
    .await;
    assert_eq!(wrong_closes, 0, "daily closes differ from the observations");
    // Credits: every tracked video charged once, nothing else charged.
    let charged_twice = count(
        "SELECT count(*) FROM (SELECT subject FROM credit_ledger WHERE amount > 0
                               GROUP BY subject HAVING count(*) > 1) t"
            .into(),
    )
    .await;
    assert_eq!(charged_twice, 0, "a video was charged twice");
    let uncharged = count(
        "SELECT count(*) FROM tracked_videos tv WHERE NOT EXISTS (
           SELECT 1 FROM credit_ledger c WHERE c.subject = CAST(tv.id AS TEXT))"
            .into(),
    )
    .await;
    let imported = count("SELECT count(*) FROM tracked_videos tv WHERE tv.tracking_started_at < now() - interval '1 day'".into()).await;
    assert_eq!(uncharged, imported, "only imported videos go uncharged");
    let orphan_charges = count(
        "SELECT count(*) FROM credit_ledger c WHERE c.amount > 0 AND NOT EXISTS (
           SELECT 1 FROM tracked_videos tv WHERE CAST(tv.id AS TEXT) = c.subject)"
            .into(),
    )
    .await;
    assert_eq!(orphan_charges, 0, "a charge for a video not tracked");
    // Jobs end.
    let open_jobs = count(
        "SELECT count(*) FROM creator_jobs WHERE status NOT IN ('succeeded', 'error')".into(),
    )
    .await;
    assert_eq!(open_jobs, 0, "a creator job did not end");
    // Webhooks: no event without its cause, and with an endpoint
    // subscribed from the start, no cause without its event.
    let orphan_events = count(
        "SELECT count(*) FROM webhook_events ev
         WHERE ev.event_type = 'video.tracked' AND NOT EXISTS (
           SELECT 1 FROM tracked_videos tv
           WHERE CAST(tv.id AS TEXT) = CAST(ev.body AS json)->'data'->>'video_id')"
            .into(),
    )
    .await;
    assert_eq!(orphan_events, 0, "a video.tracked event without its video");
    if count("SELECT count(*) FROM webhook_endpoints".into()).await > 0 {
        let told = count(
            "SELECT count(DISTINCT CAST(body AS json)->'data'->>'video_id') FROM webhook_events
             WHERE event_type = 'video.tracked'"
                .into(),
        )
        .await;
        let events =
            count("SELECT count(*) FROM webhook_events WHERE event_type = 'video.tracked'".into())
                .await;
        let videos = count("SELECT count(*) FROM tracked_videos".into()).await;
        assert_eq!(
            (told, events),
            (videos, videos),
            "each tracked video told once"
        );
        let succeeded =
            count("SELECT count(*) FROM creator_jobs WHERE status = 'succeeded'".into()).await;
        let told = count(
            "SELECT count(*) FROM webhook_events WHERE event_type = 'creator.job.succeeded'".into(),
        )
        .await;
        assert_eq!(told, succeeded, "each succeeded job told once");
    }
    // The quota's day counts equal a recount of the tracked videos.
    let (kept, recount) = quota_counts(url).await.unwrap();
    assert_eq!(
        kept, recount,
        "the quota's day counts differ from a recount"
    );
    pool.close().await;
    // The rollup the writes kept equals one rebuilt from the closes.
    let kept = rollup_dump(url).await.unwrap();
    let store = vidpulse_store::open(&vidpulse_store::StoreConfig::new(url))
        .await
        .unwrap();
    store.rebuild_analytics().await.unwrap();
    store.close().await;
    assert_eq!(kept, rollup_dump(url).await.unwrap(), "rollup drifted");
}

/// A business organization with an API key: (organization id, key).
fn organization(db: &str) -> (String, String) {
    admin(db, &["migrate"]);
    let org = admin(
        db,
        &[
            "admin",
            "create-org",
            "--name",
            "Faults",
            "--plan",
            "business",
        ],
    );
    let org = org["organization_id"].as_str().unwrap().to_owned();
    let key = admin(db, &["admin", "create-api-key", "--org", &org]);
    (org, key["api_key"].as_str().unwrap().to_owned())
}

async fn track(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    urls: &[String],
) -> reqwest::Result<reqwest::Response> {
    client
        .post(format!("{base}/v1/videos/track"))
        .bearer_auth(key)
        .json(&json!({ "urls": urls }))
        .send()
        .await
}

fn urls(prefix: &str, from: usize, n: usize) -> Vec<String> {
    (from..from + n)
        .map(|i| format!("https://www.youtube.com/watch?v={prefix}{i:06}"))
        .collect()
}

async fn scalar(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

#[tokio::test]
async fn a_worker_killed_mid_work_loses_nothing_and_repeats_nothing() {
    let (db, _dir) = TestDb::create(Backend::Postgres).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let (_, key) = organization(&db);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let listen = format!("127.0.0.1:{port}");
    let _api = start_with(
        &db,
        &["serve", "--no-worker", "--listen", &listen],
        work.path(),
        &[("VIDPULSE_WEBHOOK_ALLOW_PRIVATE", "true")],
    );
    let slow = [
        ("VIDPULSE_SIM_LATENCY_MS", "400"),
        ("VIDPULSE_WORKER_LEASE_SECS", "10"),
        ("VIDPULSE_WEBHOOK_ALLOW_PRIVATE", "true"),
    ];
    let mut worker = start_with(&db, &["worker"], work.path(), &slow);
    let client = client();
    wait_ready(&client, &base).await;
    // A receiver that answers slowly, so deliveries are in flight when the
    // worker is killed.
    let receiver = Receiver::start().await;
    receiver.delay(150);
    let hook = client
        .post(format!("{base}/v1/webhooks"))
        .bearer_auth(&key)
        .json(&json!({ "url": receiver.url, "events": ["video.tracked", "creator.job.succeeded"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(hook.status().as_u16(), 201);
    for batch in 0..3 {
        let r = track(&client, &base, &key, &urls("kill9", batch * 40, 40))
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
    }
    for name in ["ana_builds", "mira_moves", "theo.cooks"] {
        let r = client
            .post(format!("{base}/v1/bloggers/track"))
            .bearer_auth(&key)
            .json(&json!({"platform": "tiktok", "username": name, "initial_videos_count": 5}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 202);
    }
    let pool = PgPool::connect(&db).await.unwrap();
    eventually(
        Duration::from_secs(60),
        "the worker to start reading and delivering",
        || {
            let pool = pool.clone();
            let receiver = receiver.clone();
            async move {
                scalar(&pool, "SELECT count(*) FROM observations").await > 0
                    && !receiver.received().is_empty()
            }
        },
    )
    .await;
    worker.kill9();
    let delivered_before = receiver.received().len();
    let read_before = scalar(&pool, "SELECT count(*) FROM observations").await;
    let _worker = start_with(&db, &["worker"], work.path(), &slow);
    eventually(Duration::from_secs(120), "every video read, every job ended, every event delivered", || {
        let pool = pool.clone();
        async move {
            scalar(&pool, "SELECT count(*) FROM platform_videos WHERE stats_updated_at IS NULL").await == 0
                && scalar(&pool, "SELECT count(*) FROM creator_jobs WHERE status IN ('queued', 'processing')").await == 0
                && scalar(&pool, "SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered'").await == 0
        }
    })
    .await;
    // Every event reached the receiver at least once, the kill included.
    let events: Vec<String> = sqlx::query_scalar("SELECT CAST(id AS TEXT) FROM webhook_events")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(events.len(), 120 + 3 * 5 + 3);
    let received: std::collections::HashSet<String> =
        receiver.received().into_iter().map(|r| r.id).collect();
    assert!(
        events.iter().all(|e| received.contains(e)),
        "an event was never delivered"
    );
    assert!(
        delivered_before < events.len(),
        "the kill came after every delivery"
    );
    let videos = scalar(&pool, "SELECT count(*) FROM platform_videos").await;
    assert_eq!(videos, 120 + 3 * 5);
    assert!(
        read_before < videos,
        "the kill came after the work was done"
    );
    // One first read per video: none lost, none repeated.
    assert_eq!(
        scalar(&pool, "SELECT count(*) FROM observations").await,
        videos
    );
    assert_eq!(
        scalar(
            &pool,
            "SELECT count(*) FROM creator_jobs WHERE status = 'succeeded'"
        )
        .await,
        3
    );
    pool.close().await;
    assert_invariants(&db).await;
}

#[tokio::test]
async fn a_server_killed_mid_request_applies_each_request_whole_or_not_at_all() {
    let (db, _dir) = TestDb::create(Backend::Postgres).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let (_, key) = organization(&db);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let listen = format!("127.0.0.1:{port}");
    let mut server = start_with(
        &db,
        &["serve", "--no-worker", "--listen", &listen],
        work.path(),
        &[("VIDPULSE_WEBHOOK_ALLOW_PRIVATE", "true")],
    );
    let client = client();
    wait_ready(&client, &base).await;
    // Every tracked video is told, in the transaction that tracks it.
    let hook = client
        .post(format!("{base}/v1/webhooks"))
        .bearer_auth(&key)
        .json(&json!({ "url": "http://127.0.0.1:9/hooks", "events": ["video.tracked"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(hook.status().as_u16(), 201);
    let requests: Vec<_> = (0..8)
        .map(|i| {
            let client = client.clone();
            let base = base.clone();
            let key = key.clone();
            tokio::spawn(
                async move { track(&client, &base, &key, &urls("klsrv", i * 25, 25)).await },
            )
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(60)).await;
    server.kill9();
    let mut answered = 0;
    for r in requests {
        if let Ok(Ok(r)) = r.await
            && r.status().is_success()
        {
            answered += 1;
        }
    }
    let pool = PgPool::connect(&db).await.unwrap();
    // Each request's videos are all tracked and charged, or none are.
    let partial = scalar(
        &pool,
        "SELECT count(*) FROM (SELECT request_id FROM credit_ledger
                               GROUP BY request_id HAVING count(*) <> 25) t",
    )
    .await;
    assert_eq!(partial, 0, "a request was applied in part");
    let applied = scalar(
        &pool,
        "SELECT count(DISTINCT request_id) FROM credit_ledger",
    )
    .await;
    assert!(
        applied >= answered,
        "{applied} applied, {answered} answered"
    );
    // Back up: the same requests again complete the work, charging only
    // what was not tracked yet (16 multi-video requests: inside the limit
    // of 20 a minute, which Redis remembers across the restart).
    let _server = start_with(
        &db,
        &["serve", "--no-worker", "--listen", &listen],
        work.path(),
        &[],
    );
    wait_ready(&client, &base).await;
    for i in 0..8 {
        let r = track(&client, &base, &key, &urls("klsrv", i * 25, 25))
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
    }
    assert_eq!(
        scalar(&pool, "SELECT count(*) FROM tracked_videos").await,
        200
    );
    assert_eq!(
        scalar(&pool, "SELECT count(*) FROM credit_ledger WHERE amount > 0").await,
        200
    );
    pool.close().await;
    assert_invariants(&db).await;
}

#[tokio::test]
async fn an_import_killed_mid_file_writes_nothing_and_runs_again_whole() {
    let (db, _dir) = TestDb::create(Backend::Postgres).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let (org, _) = organization(&db);
    let file = work.path().join("import.csv");
    let mut csv = String::from(
        "platform,external_video_id,captured_at,views,likes,comments,reposts,saves,channel_username\n",
    );
    for v in 0..3000 {
        for s in 0..6 {
            let views = 100 * (v % 13 + 1) * (s + 1);
            csv.push_str(&format!(
                "youtube,imp{v:08},2026-10-0{}T{:02}:00:00Z,{views},{},{},,,creator{}\n",
                1 + s / 2,
                6 + 12 * (s % 2),
                views / 10,
                views / 100,
                v % 50
            ));
        }
    }
    std::fs::write(&file, csv).unwrap();
    let file = file.to_str().unwrap();
    let mut import = start_with(
        &db,
        &["admin", "import-stats", "--org", &org, "--file", file],
        work.path(),
        &[],
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    import.kill9();
    let pool = PgPool::connect(&db).await.unwrap();
    let after_kill = scalar(&pool, "SELECT count(*) FROM imported_observations").await;
    assert!(
        after_kill == 0 || after_kill == 18_000,
        "a killed import left {after_kill} observations"
    );
    let done = admin(
        &db,
        &["admin", "import-stats", "--org", &org, "--file", file],
    );
    assert_eq!(
        done["snapshots_imported"].as_i64().unwrap() + done["snapshots_skipped"].as_i64().unwrap(),
        18_000
    );
    assert_eq!(
        scalar(&pool, "SELECT count(*) FROM imported_observations").await,
        18_000
    );
    assert_eq!(
        scalar(&pool, "SELECT count(*) FROM tracked_videos").await,
        3000
    );
    pool.close().await;
    assert_invariants(&db).await;
}

/// A TCP proxy to the local PostgreSQL that can be cut: while down it
/// refuses connections and has dropped the ones it carried.
struct DbProxy {
    port: u16,
    cut: Arc<Mutex<Option<CancellationToken>>>,
}

impl DbProxy {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let cut = Arc::new(Mutex::new(Some(CancellationToken::new())));
        let state = cut.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let token = state.lock().unwrap().clone();
                let Some(token) = token else {
                    drop(inbound);
                    continue;
                };
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect("127.0.0.1:5432").await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = token.cancelled() => {}
                    }
                });
            }
        });
        Self { port, cut }
    }

    /// `url` with its port replaced by the proxy's.
    fn url(&self, url: &str) -> String {
        url.replace("127.0.0.1:5432", &format!("127.0.0.1:{}", self.port))
    }

    fn down(&self) {
        if let Some(token) = self.cut.lock().unwrap().take() {
            token.cancel();
        }
    }

    fn up(&self) {
        *self.cut.lock().unwrap() = Some(CancellationToken::new());
    }
}

#[tokio::test]
async fn the_database_going_away_answers_503_and_everything_resumes() {
    let (db, _dir) = TestDb::create(Backend::Postgres).await.unwrap();
    assert!(db.contains("127.0.0.1:5432"), "{db}");
    let work = tempfile::tempdir().unwrap();
    let (_, key) = organization(&db);
    let proxy = DbProxy::start().await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let listen = format!("127.0.0.1:{port}");
    let _server = start_with(
        &proxy.url(&db),
        &["serve", "--listen", &listen],
        work.path(),
        &[],
    );
    let client = client();
    wait_ready(&client, &base).await;
    let r = track(&client, &base, &key, &urls("outag", 0, 2))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);

    proxy.down();
    let r = client.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 503);
    let r = track(&client, &base, &key, &urls("outag", 2, 3))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 503);
    assert!(r.headers().contains_key("retry-after"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "SERVICE_UNAVAILABLE", "{body}");
    let r = client
        .get(format!("{base}/v1/videos/stats"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 503);
    // The process is still there and serves health.
    let r = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);

    proxy.up();
    wait_ready(&client, &base).await;
    let r = track(&client, &base, &key, &urls("outag", 5, 1))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    // The request refused during the outage wrote nothing; the worker,
    // backed off meanwhile, reads what was tracked.
    let pool = PgPool::connect(&db).await.unwrap();
    assert_eq!(
        scalar(&pool, "SELECT count(*) FROM tracked_videos").await,
        3
    );
    eventually(Duration::from_secs(60), "the worker to resume", || {
        let pool = pool.clone();
        async move {
            scalar(
                &pool,
                "SELECT count(*) FROM platform_videos WHERE stats_updated_at IS NULL",
            )
            .await
                == 0
        }
    })
    .await;
    pool.close().await;
    assert_invariants(&db).await;
}
