//! Wiring: the services a process runs, built from typed settings, and the
//! server loop with graceful shutdown. The binary and the integration tests
//! both start the server through here.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use vidpulse_api::{ApiConfig, AppState};
use vidpulse_domain::Clock;
use vidpulse_notify::ChatClient;
use vidpulse_platforms::{ShortLinkResolver, Source};
use vidpulse_store::Store;
use vidpulse_worker::{
    CreatorConfig, CreatorContext, NotifyContext, RefreshConfig, RefreshContext, WebhookConfig,
    WebhookContext,
};

/// How often request counters are written to the database.
pub const USAGE_FLUSH_INTERVAL: Duration = Duration::from_secs(5);

/// Everything a process runs on.
#[derive(Debug, Clone)]
pub struct Services {
    /// The HTTP state.
    pub state: AppState,
    /// The refresh worker's context.
    pub refresh: RefreshContext,
    /// The creator loops' context (jobs, sweep, discovery).
    pub creators: CreatorContext,
    /// The webhook delivery loop's context.
    pub webhooks: WebhookContext,
    /// The context of the loops that tell people (alerts, recaps).
    pub notify: NotifyContext,
}

/// The settings of the background loops.
#[derive(Debug, Clone, Default)]
pub struct WorkerSettings {
    /// The refresh loop.
    pub refresh: RefreshConfig,
    /// The creator loops.
    pub creators: CreatorConfig,
    /// Webhook delivery.
    pub webhooks: WebhookConfig,
}

impl Services {
    /// Wires the services over a store, a clock and a platform source
    /// (failing only when the webhook client's TLS cannot be set up).
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        source: Arc<dyn Source>,
        resolver: ShortLinkResolver,
        mut api: ApiConfig,
        worker: WorkerSettings,
    ) -> anyhow::Result<Self> {
        let WorkerSettings {
            refresh,
            mut creators,
            webhooks,
        } = worker;
        let wake = Arc::new(Notify::new());
        api.tracking_window = refresh.schedule.window;
        api.read_cap = refresh.read_cap;
        api.webhook_allow_private = webhooks.allow_private;
        let chat = ChatClient::new(webhooks.allow_private, webhooks.timeout)?;
        let webhooks = WebhookContext::new(store.clone(), clock.clone(), webhooks)?;
        let state = AppState::new(
            store.clone(),
            clock.clone(),
            source.clone(),
            resolver,
            api,
            wake.clone(),
        );
        let notify = NotifyContext {
            store: store.clone(),
            clock: clock.clone(),
            mailer: state.mailer.clone(),
            chat,
            dashboard_url: state
                .config
                .mail
                .dashboard_url
                .trim_end_matches('/')
                .to_owned(),
        };
        creators.tracking_window = refresh.schedule.window;
        creators.credits_per_video = state.config.credits_per_video;
        let creators = CreatorContext {
            store: store.clone(),
            source: source.clone(),
            clock: clock.clone(),
            config: creators,
            wake: state.jobs_wake.clone(),
            refresh_wake: wake.clone(),
        };
        let refresh = RefreshContext {
            store,
            source,
            clock,
            config: refresh,
            wake,
        };
        Ok(Self {
            state,
            refresh,
            creators,
            webhooks,
            notify,
        })
    }
}

/// Serves HTTP on `listener` until `shutdown`, with the worker alongside when
/// `run_worker`, and the queue of password links ("forgot password"). On
/// shutdown the server stops accepting, lets in-flight requests finish, the
/// worker finishes its tick without claiming more, pending usage counts are
/// written and the links already asked for are sent.
pub async fn run_server(
    listener: TcpListener,
    services: Services,
    run_worker: bool,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let flusher = tokio::spawn(
        services
            .state
            .usage
            .clone()
            .run(USAGE_FLUSH_INTERVAL, shutdown.clone()),
    );
    let resets = tokio::spawn(vidpulse_api::sign_in::reset_queue::run(
        services.state.clone(),
        shutdown.clone(),
    ));
    let worker =
        run_worker.then(|| tokio::spawn(run_worker_loops(services.clone(), shutdown.clone())));
    let limits = services.state.config.connections;
    let router = vidpulse_api::router(services.state.clone());
    let served = crate::server::serve_http(listener, router, limits, shutdown.clone()).await;
    // However the server stopped, stop the rest too.
    shutdown.cancel();
    if let Some(worker) = worker {
        worker.await?;
    }
    flusher.await?;
    resets.await?;
    served?;
    Ok(())
}

/// Runs every background loop (refresh, creator jobs and discovery,
/// webhook deliveries) until `shutdown`, and waits for each to finish its
/// work in progress.
pub async fn run_worker_loops(services: Services, shutdown: CancellationToken) {
    tokio::join!(
        vidpulse_worker::housekeeping::run(services.refresh.clone(), shutdown.clone()),
        vidpulse_worker::refresh::run(services.refresh, shutdown.clone()),
        vidpulse_worker::creators::run(services.creators, shutdown.clone()),
        vidpulse_worker::recaps::run(services.notify.clone(), shutdown.clone()),
        vidpulse_worker::webhooks::run(services.webhooks, shutdown.clone()),
        vidpulse_worker::alerts::run(services.notify.clone(), shutdown),
    );
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = terminate => {}
    }
    tracing::info!("shutdown signal received");
}
