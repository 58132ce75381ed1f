//! The hourly upkeep of the observations (docs/operations.md, "Retention and housekeeping"): monthly
//! partitions kept ahead on PostgreSQL, and the retention applied when one
//! is set; webhook events are kept 30 days once delivered, idempotency keys
//! a day. Several workers may run it at once; each pass is idempotent.

use std::time::Duration as StdDuration;

use tokio_util::sync::CancellationToken;

use crate::RefreshContext;

/// Time between two passes.
pub const INTERVAL: StdDuration = StdDuration::from_secs(3600);

/// One pass; failures are logged, never fatal.
pub async fn tick(ctx: &RefreshContext) {
    let now = ctx.clock.now();
    match ctx
        .store
        .housekeep_observations(now, ctx.config.observation_retention)
        .await
    {
        Ok(done) if done != vidpulse_store::Housekeeping::default() => tracing::info!(
            partitions_created = done.partitions_created,
            partitions_dropped = done.partitions_dropped,
            rows_deleted = done.rows_deleted,
            "observation housekeeping"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "observation housekeeping failed; retried in an hour"),
    }
    let before = now - vidpulse_domain::webhooks::event_retention();
    match ctx.store.prune_webhook_events(before).await {
        Ok(0) => {}
        Ok(events) => tracing::info!(events, "webhook events past their retention deleted"),
        Err(e) => tracing::warn!(error = %e, "webhook event pruning failed; retried in an hour"),
    }
    let before = now - vidpulse_domain::idempotency::retention();
    match ctx.store.prune_idempotency_keys(before).await {
        Ok(0) => {}
        Ok(keys) => tracing::info!(keys, "idempotency keys past their retention deleted"),
        Err(e) => tracing::warn!(error = %e, "idempotency key pruning failed; retried in an hour"),
    }
}

/// Runs a pass at start and every [`INTERVAL`] until `shutdown`.
pub async fn run(ctx: RefreshContext, shutdown: CancellationToken) {
    while !shutdown.is_cancelled() {
        tick(&ctx).await;
        tokio::select! {
            _ = tokio::time::sleep(INTERVAL) => {}
            _ = shutdown.cancelled() => {}
        }
    }
}
