//! `vidpulse worker`: the background worker alone.

use std::sync::Arc;

use anyhow::Context;
use tokio_util::sync::CancellationToken;
use vidpulse_api::ApiConfig;
use vidpulse_domain::SystemClock;
use vidpulse_store::StoreConfig;
use vidpulse_worker::RefreshConfig;

use crate::app::{Services, run_worker_loops};

use crate::commands::serve::platform_sources;
use crate::config::RuntimeArgs;

/// Runs the command until SIGINT or SIGTERM: refresh, creator jobs and
/// discovery; the work in progress finishes.
pub async fn run(database_url: &str, args: &RuntimeArgs) -> anyhow::Result<()> {
    let settings = args.settings()?;
    let store = vidpulse_store::open(&StoreConfig::new(database_url))
        .await
        .context("cannot open the database")?;
    let (source, resolver) = platform_sources(&settings).await?;
    let services = Services::new(
        store.clone(),
        Arc::new(SystemClock),
        source,
        resolver,
        ApiConfig::default(),
        RefreshConfig {
            schedule: settings.schedule.clone(),
            lease: settings.lease,
            observation_retention: settings.observation_retention,
            ..RefreshConfig::default()
        },
        settings.creators.clone(),
    );
    tracing::info!(backend = ?store.backend(), upstream = ?settings.upstream, "vidpulse worker started");
    let shutdown = CancellationToken::new();
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            crate::app::shutdown_signal().await;
            shutdown.cancel();
        }
    });
    run_worker_loops(services.refresh, services.creators, shutdown).await;
    store.close().await;
    Ok(())
}
