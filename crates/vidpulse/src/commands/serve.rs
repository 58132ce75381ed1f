//! `vidpulse serve`: the HTTP server, with the worker unless `--no-worker`.

use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use vidpulse_api::ApiConfig;
use vidpulse_domain::SystemClock;
use vidpulse_platforms::{ShortLinkResolver, SimulatedSource, Source};
use vidpulse_store::StoreConfig;
use vidpulse_worker::RefreshConfig;

use crate::app::{Services, run_server, shutdown_signal};
use crate::config::{RuntimeSettings, ServeArgs};

/// Builds the platform source and short-link resolver the settings ask for.
pub fn platform_sources(settings: &RuntimeSettings) -> (Arc<dyn Source>, ShortLinkResolver) {
    let source = Arc::new(SimulatedSource::new(
        settings.simulated.clone(),
        Arc::new(SystemClock),
    ));
    (source, ShortLinkResolver::offline())
}

/// Runs the command until SIGINT or SIGTERM.
pub async fn run(database_url: &str, args: &ServeArgs) -> anyhow::Result<()> {
    let settings = args.runtime.settings()?;
    let store = vidpulse_store::open(&StoreConfig::new(database_url))
        .await
        .context("cannot open the database")?;
    let (source, resolver) = platform_sources(&settings);
    let api = ApiConfig {
        upgrade_url: args.upgrade_url.clone(),
        ..ApiConfig::default()
    };
    let refresh = RefreshConfig {
        schedule: settings.schedule.clone(),
        ..RefreshConfig::default()
    };
    let services = Services::new(
        store.clone(),
        Arc::new(SystemClock),
        source,
        resolver,
        api,
        refresh,
    );
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    tracing::info!(
        address = %args.listen,
        backend = ?store.backend(),
        upstream = ?settings.upstream,
        worker = !args.no_worker,
        "vidpulse is serving"
    );
    let shutdown = CancellationToken::new();
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            shutdown_signal().await;
            shutdown.cancel();
        }
    });
    let result = run_server(listener, services, !args.no_worker, shutdown).await;
    store.close().await;
    tracing::info!("stopped");
    result
}
