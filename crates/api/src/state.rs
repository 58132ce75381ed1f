//! What every handler can reach.

use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::Duration;
use tokio::sync::Notify;
use vidpulse_domain::Clock;
use vidpulse_platforms::{ShortLinkResolver, Source};
use vidpulse_store::Store;

use crate::analytics_cache::AnalyticsCache;
use crate::auth::KeyCache;
use crate::charges::ChargeQueue;
use crate::dashboard::identity::{Identity, IdentityConfig};
use crate::files::{FileStore, LocalFiles};
use crate::mail::{MailConfig, Mailer};
use crate::rate_limit::{RateLimitConfig, RateLimits};
use crate::record_cache::RecordCache;
use crate::sign_in::{Passwords, ResetQueue, SignInThrottle};
use crate::thumbnails::{ThumbnailConfig, Thumbnails};
use crate::usage::UsageRecorder;

/// Settings of the HTTP layer.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Where a free-plan caller is sent to upgrade (`upgrade_url`).
    pub upgrade_url: String,
    /// The plan of organizations started in the web app
    /// (`VIDPULSE_DEFAULT_PLAN`).
    pub default_plan: vidpulse_domain::Plan,
    /// How long tracking lasts.
    pub tracking_window: Duration,
    /// Credits charged per newly tracked video.
    pub credits_per_video: i64,
    /// How long a verified API key is trusted without asking the database
    /// (a revoked key stops working within this time).
    pub key_cache_ttl: StdDuration,
    /// Rate limits per API key.
    pub rate_limits: RateLimitConfig,
    /// Videos per page of a trend search.
    pub trend_page_size: usize,
    /// Dashboard identity (JWT) settings.
    pub identity: IdentityConfig,
    /// How long an invitation stays valid.
    pub invite_ttl: Duration,
    /// Outgoing e-mail.
    pub mail: MailConfig,
    /// Where uploaded files are kept.
    pub files_dir: std::path::PathBuf,
    /// The service's own address, for URLs it hands out (logos).
    pub public_url: String,
    /// Most bytes of compressed video histories kept for single video
    /// reads (0 keeps none).
    pub record_cache_bytes: u64,
    /// How long one read of a video answers every manual refresh of it
    /// (and how long an organization waits between two of its own).
    pub refresh_cooldown: Duration,
    /// Whether webhook URLs may name loopback, private or link-local
    /// addresses (`VIDPULSE_WEBHOOK_ALLOW_PRIVATE`).
    pub webhook_allow_private: bool,
    /// How slow clients are cut off.
    pub connections: ConnectionLimits,
    /// How thumbnails are fetched and kept.
    pub thumbnails: ThumbnailConfig,
    /// The worker's daily read cap per organization, shown in usage
    /// (`None`: no cap).
    pub read_cap: Option<i64>,
}

/// Limits that keep slow or idle clients from holding the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Longest wait for a request's header, from the connection or the
    /// previous request on: then the connection is closed.
    pub header_timeout: StdDuration,
    /// Longest a connection stays open with no request in flight (an
    /// HTTP/2 connection between requests; an HTTP/1 one waits at most the
    /// header timeout when that is shorter): then it is closed.
    pub idle_timeout: StdDuration,
    /// Longest a request (its body included) may take: then it answers 408
    /// `REQUEST_TIMEOUT` and what it started is rolled back.
    pub request_timeout: StdDuration,
    /// Connections served at once; further ones wait to be accepted.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_timeout: StdDuration::from_secs(10),
            idle_timeout: StdDuration::from_secs(60),
            request_timeout: StdDuration::from_secs(60),
            max_connections: 4096,
        }
    }
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            upgrade_url: "https://vidpulse.example/upgrade".into(),
            default_plan: vidpulse_domain::Plan::Free,
            tracking_window: Duration::days(30),
            credits_per_video: 30,
            key_cache_ttl: StdDuration::from_secs(30),
            rate_limits: RateLimitConfig::default(),
            trend_page_size: 20,
            identity: IdentityConfig::default(),
            invite_ttl: Duration::days(7),
            mail: MailConfig::default(),
            files_dir: std::path::PathBuf::from("data/files"),
            public_url: "http://127.0.0.1:8080".into(),
            record_cache_bytes: 256 << 20,
            refresh_cooldown: Duration::minutes(5),
            webhook_allow_private: false,
            connections: ConnectionLimits::default(),
            thumbnails: ThumbnailConfig::default(),
            read_cap: None,
        }
    }
}

/// Shared state of the HTTP server: one pointer, so cloning it (every
/// extractor of every request does) is one counter increment.
#[derive(Debug, Clone)]
pub struct AppState(Arc<SharedState>);

impl std::ops::Deref for AppState {
    type Target = SharedState;

    fn deref(&self) -> &SharedState {
        &self.0
    }
}

/// What every handler can reach, through [`AppState`].
#[derive(Debug)]
pub struct SharedState {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Short-link resolution.
    pub resolver: ShortLinkResolver,
    /// The platform source (trend search).
    pub source: Arc<dyn Source>,
    /// Settings.
    pub config: Arc<ApiConfig>,
    /// Per-key rate limits.
    pub limits: Arc<RateLimits>,
    /// Request counters, flushed in batches.
    pub usage: UsageRecorder,
    /// Recently verified API keys.
    pub keys: KeyCache,
    /// Wakes the refresh worker when videos are tracked.
    pub refresh_wake: Arc<Notify>,
    /// Wakes the creator job runner when a job is queued.
    pub jobs_wake: Arc<Notify>,
    /// Verifies dashboard tokens.
    pub identity: Arc<Identity>,
    /// Sends e-mail.
    pub mailer: Arc<Mailer>,
    /// Uploaded files.
    pub files: Arc<dyn FileStore>,
    /// Video records recently shown.
    pub records: RecordCache,
    /// Analytics answers recently computed from the rollup.
    pub analytics: AnalyticsCache,
    /// Credit charges of reads, written together.
    pub charges: ChargeQueue,
    /// Hashes and verifies web-app passwords.
    pub passwords: Passwords,
    /// Per-address budgets of sign-in attempts and password links.
    pub sign_ins: SignInThrottle,
    /// Addresses waiting for a password link ("forgot password").
    pub resets: ResetQueue,
    /// Thumbnails fetched from the platforms' image CDNs.
    pub thumbnails: Thumbnails,
    /// Per-token budgets of the pages share links open.
    pub share_throttle: crate::shared::ShareThrottle,
    /// Alert rules tested within the cooldown (`POST …/alerts/{id}/test`).
    pub alert_tests: moka::sync::Cache<uuid::Uuid, ()>,
}

impl AppState {
    /// State over `store`, reading time from `clock`.
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        source: Arc<dyn Source>,
        resolver: ShortLinkResolver,
        config: ApiConfig,
        refresh_wake: Arc<Notify>,
    ) -> Self {
        Self(Arc::new(SharedState {
            usage: UsageRecorder::new(store.clone()),
            keys: KeyCache::new(config.key_cache_ttl),
            identity: Arc::new(Identity::new(config.identity.clone())),
            mailer: Arc::new(Mailer::new(&config.mail)),
            files: Arc::new(LocalFiles::new(config.files_dir.clone())),
            limits: Arc::new(RateLimits::new(&config.rate_limits)),
            records: RecordCache::new(config.record_cache_bytes),
            thumbnails: Thumbnails::new(config.thumbnails.clone()),
            analytics: AnalyticsCache::default(),
            charges: ChargeQueue::new(store.clone()),
            config: Arc::new(config),
            store,
            clock,
            source,
            resolver,
            refresh_wake,
            jobs_wake: Arc::new(Notify::new()),
            passwords: Passwords::default(),
            sign_ins: SignInThrottle::default(),
            resets: ResetQueue::default(),
            share_throttle: Default::default(),
            alert_tests: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(std::time::Duration::from_secs(
                    crate::app::alerts::TEST_COOLDOWN_SECS,
                ))
                .build(),
        }))
    }
}
