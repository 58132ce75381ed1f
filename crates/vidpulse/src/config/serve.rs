//! The settings of `serve` (HTTP server, e-mail, dashboard identity) and of
//! `worker` (its metrics address); both also take [`RuntimeArgs`].

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use secrecy::SecretString;
use url::Url;

use super::runtime::RuntimeArgs;
use super::secrets::{exposed, parse_jwt_secret, parse_secret};

/// Settings of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address of the HTTP server.
    #[arg(long, env = "VIDPULSE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Run the API only; background work is left to `vidpulse worker` processes.
    #[arg(long, env = "VIDPULSE_NO_WORKER", default_value_t = false)]
    pub no_worker: bool,
    /// Where a free-plan caller is sent to upgrade (`upgrade_url` of 402 answers).
    #[arg(
        long,
        env = "VIDPULSE_UPGRADE_URL",
        default_value = "https://vidpulse.example/upgrade"
    )]
    pub upgrade_url: String,
    /// The plan of organizations started in the web app.
    #[command(flatten)]
    pub plans: super::admin::DefaultPlanArgs,
    /// Dashboard identity (JWT) settings.
    #[command(flatten)]
    pub identity: IdentityArgs,
    /// E-mail and invitation settings.
    #[command(flatten)]
    pub mail: MailArgs,
    /// Where uploaded files (logos) are kept.
    #[arg(long, env = "VIDPULSE_FILES_DIR", default_value = "data/files")]
    pub files_dir: PathBuf,
    /// Share the per-key rate limits of every API node through this Redis
    /// (`redis://host:6379/0`); kept in the process when unset.
    #[arg(long, env = "VIDPULSE_REDIS_URL", hide_env_values = true)]
    pub redis_url: Option<String>,
    /// Requests each API key may make to the public API (`/v1`) per minute,
    /// on each API node or, with Redis, across all of them (1 to 60,000,000).
    #[arg(long, env = "VIDPULSE_RATE_LIMIT_REQUESTS_PER_MINUTE", default_value_t = 600,
          value_parser = clap::value_parser!(u32).range(1..=60_000_000))]
    pub rate_limit_requests_per_minute: u32,
    /// The service's own address, for the URLs it hands out (logos).
    #[arg(
        long,
        env = "VIDPULSE_PUBLIC_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub public_url: String,
    /// Megabytes of compressed single video answers each API node keeps to
    /// answer those reads again without reading the record (0 keeps none;
    /// the database still decides whether a kept answer is current).
    #[arg(long, env = "VIDPULSE_RECORD_CACHE_MB", default_value_t = 256)]
    pub record_cache_mb: u64,
    /// Seconds after a read of a video during which a manual refresh
    /// (`POST …/refresh`) is answered from that read instead of reading again;
    /// an organization that asked within them is told to wait.
    #[arg(long, env = "VIDPULSE_REFRESH_COOLDOWN_SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub refresh_cooldown_secs: u64,
    /// Seconds a client has to send a request's header (from connecting, or
    /// from the previous request); then its connection is closed.
    #[arg(long, env = "VIDPULSE_HEADER_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_secs: u64,
    /// Seconds a connection may stay open with no request in flight (HTTP/2
    /// between requests; HTTP/1 waits at most the header timeout); then it
    /// is closed.
    #[arg(long, env = "VIDPULSE_IDLE_TIMEOUT_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub idle_timeout_secs: u64,
    /// Seconds a request, its body included, may take; then it answers 408
    /// `REQUEST_TIMEOUT` and what it started is rolled back.
    #[arg(long, env = "VIDPULSE_REQUEST_TIMEOUT_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_secs: u64,
    /// Connections served at once; further ones wait to be accepted. Keep it
    /// below the process's file-descriptor limit (`ulimit -n`).
    #[arg(long, env = "VIDPULSE_MAX_CONNECTIONS", default_value_t = 4096,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: u64,
    /// Runtime settings shared with `worker`.
    #[command(flatten)]
    pub runtime: RuntimeArgs,
}

/// Settings of `worker`.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// Serve `GET /metrics` (Prometheus) on this address; none when unset.
    #[arg(long, env = "VIDPULSE_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// E-mail settings (alerts and recaps are sent by the worker).
    #[command(flatten)]
    pub mail: MailArgs,
    /// Runtime settings shared with `serve`.
    #[command(flatten)]
    pub runtime: RuntimeArgs,
}

/// E-mail and invitation settings of `serve`.
#[derive(Debug, Clone, Args)]
pub struct MailArgs {
    /// SMTP server for e-mail, `smtp://user:pass@host:port` or `smtps://…`
    /// (default: write `.eml` files to the outbox folder).
    #[arg(long, env = "VIDPULSE_SMTP_URL", hide_env_values = true, value_parser = parse_secret)]
    pub smtp_url: Option<SecretString>,
    /// Sender of e-mails.
    #[arg(
        long,
        env = "VIDPULSE_MAIL_FROM",
        default_value = "vidpulse <no-reply@vidpulse.localhost>"
    )]
    pub mail_from: String,
    /// Where e-mails are written without SMTP.
    #[arg(long, env = "VIDPULSE_OUTBOX_DIR", default_value = "data/outbox")]
    pub outbox_dir: PathBuf,
    /// The dashboard's address, for links in e-mails.
    #[arg(
        long,
        env = "VIDPULSE_DASHBOARD_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub dashboard_url: String,
    /// Seconds an invitation stays valid.
    #[arg(long, env = "VIDPULSE_INVITE_TTL_SECS", default_value_t = 604_800,
          value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub invite_ttl_secs: u64,
}

impl MailArgs {
    /// The API's mail settings.
    pub fn config(&self) -> vidpulse_api::mail::MailConfig {
        vidpulse_api::mail::MailConfig {
            smtp_url: exposed(self.smtp_url.as_ref()),
            from: self.mail_from.clone(),
            outbox: self.outbox_dir.clone(),
            dashboard_url: self.dashboard_url.clone(),
        }
    }
}

/// Dashboard identity settings, shared by `serve` and `admin issue-token`.
#[derive(Debug, Clone, Args)]
pub struct IdentityArgs {
    /// HS256 secret of dashboard tokens (default: one generated once and kept in the database).
    #[arg(long, env = "VIDPULSE_JWT_SECRET", hide_env_values = true, value_parser = parse_jwt_secret)]
    pub jwt_secret: Option<SecretString>,
    /// Required `iss` claim of dashboard tokens, when set.
    #[arg(long, env = "VIDPULSE_JWT_ISSUER")]
    pub jwt_issuer: Option<String>,
    /// Required `aud` claim of dashboard tokens, when set.
    #[arg(long, env = "VIDPULSE_JWT_AUDIENCE")]
    pub jwt_audience: Option<String>,
    /// Verify dashboard tokens (RS256/ES256) against this JWKS instead of HS256.
    #[arg(long, env = "VIDPULSE_JWT_JWKS_URL", value_parser = parse_jwks_url)]
    pub jwt_jwks_url: Option<String>,
}

fn parse_jwks_url(s: &str) -> Result<String, String> {
    let url = Url::parse(s.trim()).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(url.scheme(), "https" | "http") {
        return Err("must be an http(s) URL".into());
    }
    Ok(url.to_string())
}

impl IdentityArgs {
    /// The API's identity settings.
    pub fn config(&self) -> vidpulse_api::dashboard::identity::IdentityConfig {
        vidpulse_api::dashboard::identity::IdentityConfig {
            secret: exposed(self.jwt_secret.as_ref()),
            issuer: self.jwt_issuer.clone(),
            audience: self.jwt_audience.clone(),
            jwks_url: self.jwt_jwks_url.clone(),
            ..Default::default()
        }
    }
}
