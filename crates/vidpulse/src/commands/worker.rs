//! `vidpulse worker`: the background worker alone.

use std::sync::Arc;

use anyhow::Context;
use tokio_util::sync::CancellationToken;
use vidpulse_domain::SystemClock;
use vidpulse_store::StoreConfig;
use vidpulse_worker::{RefreshConfig, RefreshContext};

use crate::commands::serve::platform_sources;
use crate::config::RuntimeArgs;

/// Runs the command until SIGINT or SIGTERM; the tick in progress finishes.
pub async fn run(database_url: &str, args: &RuntimeArgs) -> anyhow::Result<()> {
    let settings = args.settings()?;
    let store = vidpulse_store::open(&StoreConfig::new(database_url))
        .await
        .context("cannot open the database")?;
    let (source, _) = platform_sources(&settings).await?;
    let ctx = RefreshContext {
        store: store.clone(),
        source,
        clock: Arc::new(SystemClock),
        config: RefreshConfig {
            schedule: settings.schedule.clone(),
            ..RefreshConfig::default()
        },
        wake: Arc::default(),
    };
    tracing::info!(backend = ?store.backend(), upstream = ?settings.upstream, "vidpulse worker started");
    let shutdown = CancellationToken::new();
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            crate::app::shutdown_signal().await;
            shutdown.cancel();
        }
    });
    vidpulse_worker::refresh::run(ctx, shutdown).await;
    store.close().await;
    Ok(())
}
