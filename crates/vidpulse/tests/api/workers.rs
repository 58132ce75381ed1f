//! Several workers on one PostgreSQL database: each due read happens once,
//! and a killed worker's claims are picked up again.

use std::sync::Arc;

use chrono::Duration;
use vidpulse_domain::{Clock, Plan};
use vidpulse_store::Backend;
use vidpulse_worker::{RefreshContext, Tick};

use crate::helpers::{TestApp, youtube};

async fn drain(ctx: RefreshContext) -> usize {
    let mut n = 0;
    while let Tick::Worked(k) = vidpulse_worker::refresh::tick(&ctx).await.unwrap() {
        n += k;
    }
    n
}

async fn observation_counts(app: &TestApp) -> Vec<i64> {
    let pool = sqlx::PgPool::connect(&app.db.url).await.unwrap();
    sqlx::query_scalar(
        "SELECT count(o.captured_at) FROM platform_videos pv
         LEFT JOIN observations o ON o.platform_video_id = pv.id GROUP BY pv.id",
    )
    .fetch_all(&pool)
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_read_each_due_video_exactly_once() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let (_, key) = app.org_with_key(Plan::Business).await;
    for chunk in (0..300).collect::<Vec<_>>().chunks(50) {
        let urls: Vec<String> = chunk.iter().map(|i| youtube(*i)).collect();
        let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
        app.track(&key, &refs).await;
    }
    // Two independent workers (separate pools, small batches) race for the queue.
    let mut contexts = Vec::new();
    for _ in 0..2 {
        let mut ctx = app.services.refresh.clone();
        ctx.store = vidpulse_store::open(&vidpulse_store::StoreConfig::new(app.db.url.clone()))
            .await
            .unwrap();
        ctx.config.claim_batch = 7;
        contexts.push(ctx);
    }
    let workers: Vec<_> = contexts
        .into_iter()
        .map(|ctx| tokio::spawn(drain(ctx)))
        .collect();
    let mut read = Vec::new();
    for w in workers {
        read.push(w.await.unwrap());
    }
    assert_eq!(read.iter().sum::<usize>(), 300, "{read:?}");
    assert!(
        read.iter().all(|n| *n > 0),
        "both workers took part: {read:?}"
    );
    let counts = observation_counts(&app).await;
    assert_eq!(counts.len(), 300);
    assert!(
        counts.iter().all(|c| *c == 1),
        "each video read exactly once"
    );
}

#[tokio::test]
async fn a_killed_workers_claims_are_picked_up_after_the_lease() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    app.track(&key, &[&youtube(1), &youtube(2)]).await;
    let ctx = app.services.refresh.clone();

    // A worker claims and dies before saving anything.
    let claimed = app
        .store
        .claim_due_videos(app.clock.now(), 10, ctx.config.lease)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2);
    assert_eq!(
        drain(ctx.clone()).await,
        0,
        "claims hold while the lease lasts"
    );

    app.advance(ctx.config.lease + Duration::seconds(1));
    assert_eq!(drain(ctx).await, 2);
    assert!(observation_counts(&app).await.iter().all(|c| *c == 1));
    let _: Arc<dyn vidpulse_store::Store> = app.store.clone();
}
