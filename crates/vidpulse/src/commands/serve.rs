//! `vidpulse serve`: the HTTP server, with the worker unless `--no-worker`.

use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use vidpulse_api::ApiConfig;
use vidpulse_domain::SystemClock;
use vidpulse_platforms::{ShortLinkResolver, SimulatedSource, Source};
use vidpulse_store::StoreConfig;

use crate::app::{Services, run_server, shutdown_signal};
use crate::config::{RuntimeSettings, ServeArgs, Upstream};
use crate::live::live_sources;

/// Builds the platform source and short-link resolver the settings ask for;
/// in live mode, logs each platform operation that is unavailable and why.
pub async fn platform_sources(
    settings: &RuntimeSettings,
) -> anyhow::Result<(Arc<dyn Source>, ShortLinkResolver)> {
    match settings.upstream {
        Upstream::Simulated => {
            let source = SimulatedSource::new(settings.simulated.clone(), Arc::new(SystemClock));
            Ok((Arc::new(source), ShortLinkResolver::offline()))
        }
        Upstream::Live => {
            let (source, resolver) = live_sources(&settings.live).await?;
            for line in source.unavailable() {
                tracing::warn!("unavailable: {line}");
            }
            Ok((Arc::new(source), resolver))
        }
    }
}

/// Runs the command until SIGINT or SIGTERM.
pub async fn run(database_url: &str, args: &ServeArgs) -> anyhow::Result<()> {
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
        upgrade_url: args.upgrade_url.clone(),
        default_plan: args.plans.default_plan,
        identity: args.identity.config(),
        invite_ttl: chrono::Duration::seconds(args.mail.invite_ttl_secs as i64),
        mail,
        files_dir: args.files_dir.clone(),
        public_url: args.public_url.clone(),
        record_cache_bytes: args.record_cache_mb.saturating_mul(1 << 20),
        refresh_cooldown: chrono::Duration::seconds(args.refresh_cooldown_secs as i64),
        connections: vidpulse_api::ConnectionLimits {
            header_timeout: std::time::Duration::from_secs(args.header_timeout_secs),
            idle_timeout: std::time::Duration::from_secs(args.idle_timeout_secs),
            request_timeout: std::time::Duration::from_secs(args.request_timeout_secs),
            max_connections: usize::try_from(args.max_connections).unwrap_or(usize::MAX),
        },
        rate_limits: vidpulse_api::rate_limit::RateLimitConfig {
            redis_url: args.redis_url.clone(),
            requests_per_minute: args.rate_limit_requests_per_minute,
            ..Default::default()
        },
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
    services
        .state
        .limits
        .check()
        .await
        .map_err(|e| anyhow::anyhow!("VIDPULSE_REDIS_URL: {e}"))?;
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    tracing::info!(
        address = %args.listen,
        backend = ?store.backend(),
        upstream = ?settings.upstream,
        worker = !args.no_worker,
        shared_rate_limits = services.state.limits.shared(),
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
