//! `vidpulse worker`: the background worker alone.

use std::sync::Arc;

use anyhow::Context;
use tokio_util::sync::CancellationToken;
use vidpulse_api::ApiConfig;
use vidpulse_domain::SystemClock;
use vidpulse_store::StoreConfig;

use crate::app::{Services, run_worker_loops};

use crate::commands::serve::platform_sources;
use crate::config::WorkerArgs;

/// Runs the command until SIGINT or SIGTERM: refresh, creator jobs and
/// discovery, webhook deliveries; the work in progress finishes.
pub async fn run(database_url: &str, args: &WorkerArgs) -> anyhow::Result<()> {
    let settings = args.runtime.settings()?;
    let store = vidpulse_store::open(&StoreConfig::new(database_url))
        .await
        .context("cannot open the database")?;
    let (source, resolver) = platform_sources(&settings).await?;
    let mail = args.mail.config();
    vidpulse_api::mail::Mailer::new(&mail)
        .check()
        .map_err(anyhow::Error::msg)?;
    let api = ApiConfig {
        mail,
        ..ApiConfig::default()
    };
    let services = Services::new(
        store.clone(),
        Arc::new(SystemClock),
        source,
        resolver,
        api,
        settings.worker(),
    )?;
    tracing::info!(backend = ?store.backend(), upstream = ?settings.upstream, "vidpulse worker started");
    let shutdown = CancellationToken::new();
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            crate::app::shutdown_signal().await;
            shutdown.cancel();
        }
    });
    if let Some(address) = args.metrics_listen {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address} for metrics"))?;
        vidpulse_api::metrics::install();
        let app = axum::Router::new()
            .route(
                "/metrics",
                axum::routing::get(vidpulse_api::metrics::metrics),
            )
            .with_state(services.state.clone());
        let stop = shutdown.clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await;
            if let Err(e) = served {
                tracing::error!(error = %e, "metrics server stopped");
            }
        });
        tracing::info!(%address, "worker metrics at /metrics");
    }
    run_worker_loops(services, shutdown).await;
    store.close().await;
    Ok(())
}
