//! Configuration: one clap struct, every field a flag and an environment
//! variable (the flag wins), turned into typed settings for each crate.
//! CONTRACT.md, "Configuration", is the table this implements.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use url::Url;
use uuid::Uuid;
use vidpulse_domain::Plan;
use vidpulse_domain::schedule::RefreshSchedule;
use vidpulse_platforms::SimulatedConfig;
use vidpulse_worker::CreatorConfig;

/// The default database: a SQLite file under `data/`, created on first start.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/vidpulse.db";

/// vidpulse: tracks how influencer videos and creators perform on TikTok,
/// Instagram and YouTube.
#[derive(Debug, Parser)]
#[command(name = "vidpulse", version, about, propagate_version = true)]
pub struct Cli {
    /// Settings every command shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Settings every command shares.
#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Database: `sqlite://PATH` (file and folder created on first start) or `postgres://...`.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL, global = true,
          hide_env_values = true)]
    pub database_url: String,
    /// Log line format.
    #[arg(long, env = "VIDPULSE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
}

/// Log line formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the public API, the dashboard API, health endpoints and the worker in one process.
    Serve(Box<ServeArgs>),
    /// Run the background worker alone.
    Worker(Box<WorkerArgs>),
    /// Apply database migrations and exit.
    Migrate,
    /// Administrative commands (print one JSON object on stdout).
    #[command(subcommand)]
    Admin(AdminCommand),
}

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
    /// Seconds a client has to send a request's header (from connecting, or
    /// from the previous request); then its connection is closed.
    #[arg(long, env = "VIDPULSE_HEADER_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_secs: u64,
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
    pub smtp_url: Option<Secret>,
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
            smtp_url: self.smtp_url.as_ref().map(|s| s.0.clone()),
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
    pub jwt_secret: Option<Secret>,
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
            secret: self.jwt_secret.as_ref().map(|s| s.0.clone()),
            issuer: self.jwt_issuer.clone(),
            audience: self.jwt_audience.clone(),
            jwks_url: self.jwt_jwks_url.clone(),
            ..Default::default()
        }
    }
}

/// Settings of the background work, shared by `serve` and `worker`.
#[derive(Debug, Args)]
pub struct RuntimeArgs {
    /// Where platform data comes from.
    #[arg(long, env = "VIDPULSE_UPSTREAM", value_enum, default_value_t = Upstream::Simulated)]
    pub upstream: Upstream,
    /// Refresh schedule: INTERVAL@AGE tiers; the last age is the tracking window.
    #[arg(
        long,
        env = "VIDPULSE_REFRESH_SCHEDULE",
        default_value = "15m@24h,1h@7d,6h@30d"
    )]
    pub refresh_schedule: String,
    /// Simulated upstream: share of calls that fail transiently (0 to 1).
    #[arg(long, env = "VIDPULSE_SIM_FAIL_RATE", default_value_t = 0.0)]
    pub sim_fail_rate: f64,
    /// Simulated upstream: share of videos reported removed or private (0 to 1).
    #[arg(long, env = "VIDPULSE_SIM_GONE_RATE", default_value_t = 0.0)]
    pub sim_gone_rate: f64,
    /// Simulated upstream: added latency per call, in milliseconds.
    #[arg(long, env = "VIDPULSE_SIM_LATENCY_MS", default_value_t = 0)]
    pub sim_latency_ms: u64,
    /// Seconds a creator-track job may run before the sweep closes it (`JOB_TIMEOUT`).
    #[arg(long, env = "VIDPULSE_JOB_TIMEOUT_SECS", default_value_t = 3600)]
    pub job_timeout_secs: u64,
    /// Seconds between two runs of the job timeout sweep.
    #[arg(long, env = "VIDPULSE_JOB_SWEEP_INTERVAL_SECS", default_value_t = 3600)]
    pub job_sweep_interval_secs: u64,
    /// Days of raw observations kept (0: all); daily closes, and so the
    /// analytics, are kept whatever this says.
    #[arg(long, env = "VIDPULSE_OBSERVATION_RETENTION_DAYS", default_value_t = 0)]
    pub observation_retention_days: u64,
    /// Seconds a worker's claim on a video or a creator job holds; a killed
    /// worker's claims are taken over once it runs out.
    #[arg(long, env = "VIDPULSE_WORKER_LEASE_SECS", default_value_t = 300)]
    pub worker_lease_secs: u64,
    /// Live settings of the platform adapters.
    #[command(flatten)]
    pub live: LiveArgs,
}

/// Settings of the live platform adapters (`--upstream live`).
#[derive(Debug, Clone, Args)]
pub struct LiveArgs {
    /// Adapter for YouTube videos: the Data API (needs a key) or yt-dlp.
    #[arg(long, env = "VIDPULSE_YOUTUBE_ADAPTER", value_enum, default_value_t = YoutubeAdapter::Api)]
    pub youtube_adapter: YoutubeAdapter,
    /// Key of the YouTube Data API v3.
    #[arg(long, env = "VIDPULSE_YOUTUBE_API_KEY", hide_env_values = true, value_parser = parse_secret)]
    pub youtube_api_key: Option<Secret>,
    /// Base address of the YouTube Data API.
    #[arg(long, env = "VIDPULSE_YOUTUBE_API_BASE", default_value = "https://www.googleapis.com/youtube/v3", value_parser = parse_base_url)]
    pub youtube_api_base: Url,
    /// YouTube quota units per day (resets at midnight Pacific time).
    #[arg(long, env = "VIDPULSE_YOUTUBE_DAILY_QUOTA", default_value_t = 10_000)]
    pub youtube_daily_quota: u64,
    /// Adapter for TikTok videos and creators: yt-dlp (no credentials) or the Research API.
    #[arg(long, env = "VIDPULSE_TIKTOK_ADAPTER", value_enum, default_value_t = TiktokAdapter::Ytdlp)]
    pub tiktok_adapter: TiktokAdapter,
    /// Client key of the TikTok Research API (also enables TikTok trend search).
    #[arg(long, env = "VIDPULSE_TIKTOK_CLIENT_KEY", hide_env_values = true, value_parser = parse_secret)]
    pub tiktok_client_key: Option<Secret>,
    /// Client secret of the TikTok Research API.
    #[arg(long, env = "VIDPULSE_TIKTOK_CLIENT_SECRET", hide_env_values = true, value_parser = parse_secret)]
    pub tiktok_client_secret: Option<Secret>,
    /// Base address of the TikTok APIs.
    #[arg(long, env = "VIDPULSE_TIKTOK_API_BASE", default_value = "https://open.tiktokapis.com", value_parser = parse_base_url)]
    pub tiktok_api_base: Url,
    /// Research API requests per day (resets at midnight UTC).
    #[arg(long, env = "VIDPULSE_TIKTOK_DAILY_REQUESTS", default_value_t = 1000)]
    pub tiktok_daily_requests: u64,
    /// Access token of the Instagram Graph API (business discovery, for creators).
    #[arg(long, env = "VIDPULSE_INSTAGRAM_ACCESS_TOKEN", hide_env_values = true, value_parser = parse_secret)]
    pub instagram_access_token: Option<Secret>,
    /// The Instagram Business account id the Graph API calls are made as.
    #[arg(long, env = "VIDPULSE_INSTAGRAM_USER_ID")]
    pub instagram_user_id: Option<String>,
    /// Base address of the Instagram Graph API.
    #[arg(long, env = "VIDPULSE_INSTAGRAM_GRAPH_BASE", default_value = "https://graph.facebook.com/v25.0", value_parser = parse_base_url)]
    pub instagram_graph_base: Url,
    /// Path of the yt-dlp executable.
    #[arg(long, env = "VIDPULSE_YTDLP_PATH", default_value = "yt-dlp")]
    pub ytdlp_path: PathBuf,
    /// yt-dlp processes running at once.
    #[arg(long, env = "VIDPULSE_YTDLP_CONCURRENCY", default_value_t = 4)]
    pub ytdlp_concurrency: usize,
    /// Longest a yt-dlp call may take, in seconds.
    #[arg(long, env = "VIDPULSE_YTDLP_TIMEOUT_SECS", default_value_t = 60)]
    pub ytdlp_timeout_secs: u64,
    /// A cookies file for yt-dlp (Instagram often needs one).
    #[arg(long, env = "VIDPULSE_YTDLP_COOKIES")]
    pub ytdlp_cookies: Option<PathBuf>,
}

/// Adapters for YouTube videos.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum YoutubeAdapter {
    /// The YouTube Data API v3.
    Api,
    /// yt-dlp.
    Ytdlp,
}

/// Adapters for TikTok.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TiktokAdapter {
    /// yt-dlp.
    Ytdlp,
    /// The TikTok Research API.
    Research,
}

/// A secret setting: never printed.
#[derive(Clone)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

fn parse_secret(s: &str) -> Result<Secret, String> {
    let s = s.trim();
    if s.is_empty() {
        Err("must not be empty".into())
    } else {
        Ok(Secret(s.to_owned()))
    }
}

/// The shortest HS256 secret accepted: as many bytes as the hash's output.
pub const MIN_JWT_SECRET_BYTES: usize = 32;

/// Parses the development identity's HS256 secret: at least
/// [`MIN_JWT_SECRET_BYTES`] bytes, so it cannot be guessed.
fn parse_jwt_secret(s: &str) -> Result<Secret, String> {
    let secret = parse_secret(s)?;
    if secret.0.len() < MIN_JWT_SECRET_BYTES {
        return Err(format!(
            "must be at least {MIN_JWT_SECRET_BYTES} bytes (it is {}); \
             `openssl rand -base64 48` makes one",
            secret.0.len()
        ));
    }
    Ok(secret)
}

/// Parses a base address and gives it a trailing slash, so paths join below it.
fn parse_base_url(s: &str) -> Result<Url, String> {
    let mut url = Url::parse(s).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("must be an http or https URL".into());
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// Platform data sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Upstream {
    /// Built in, offline, deterministic.
    Simulated,
    /// The real platform adapters.
    Live,
}

/// Administrative commands.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create an organization.
    CreateOrg {
        /// Its name.
        #[arg(long)]
        name: String,
        /// Its plan.
        #[arg(long, value_parser = parse_plan, default_value = "free")]
        plan: Plan,
        /// This user (created when unknown) becomes its owner.
        #[arg(long)]
        owner_email: Option<String>,
    },
    /// Change an organization's plan, optionally overriding its quota and cap.
    SetPlan {
        /// The organization's id.
        #[arg(long = "org", value_name = "ORG_ID")]
        org: Uuid,
        /// The new plan.
        #[arg(long, value_parser = parse_plan)]
        plan: Plan,
        /// Tracked-video quota for this organization (default: the plan's).
        #[arg(long)]
        video_quota: Option<u32>,
        /// Tracked-creator cap for this organization (default: the plan's).
        #[arg(long)]
        creator_cap: Option<u32>,
    },
    /// Import historical statistics from a CSV file (all rows or none; idempotent).
    ImportStats {
        /// The organization's id.
        #[arg(long = "org", value_name = "ORG_ID")]
        org: Uuid,
        /// The CSV file: a header row, then `platform`, `external_video_id`,
        /// `captured_at` (RFC 3339), `views`, `likes`, `comments`, `reposts`,
        /// `saves`, and optionally `url`, `channel_username`, `title`,
        /// `published_at`, in any order (README, "Importing history").
        #[arg(long, value_name = "FILE.csv")]
        file: PathBuf,
    },
    /// Sign a dashboard token with the built-in development identity (HS256).
    IssueToken {
        /// The user's e-mail address.
        #[arg(long)]
        email: String,
        /// The subject (default: a stable id derived from the e-mail).
        #[arg(long)]
        sub: Option<String>,
        /// Lifetime in seconds (1 to 31,536,000).
        #[arg(long, default_value_t = 86_400)]
        ttl_secs: u64,
        /// Identity settings (secret, issuer, audience), as `serve` has them.
        #[command(flatten)]
        identity: IdentityArgs,
    },
    /// Create an API key; the key is shown once and stored only as a hash.
    CreateApiKey {
        /// The organization's id.
        #[arg(long = "org", value_name = "ORG_ID")]
        org: Uuid,
        /// A label for the key.
        #[arg(long)]
        name: Option<String>,
    },
}

fn parse_plan(s: &str) -> Result<Plan, String> {
    s.parse::<Plan>().map_err(|e| e.to_string())
}

/// The settings of the runtime, typed and validated.
#[derive(Debug, Clone)]
pub struct RuntimeSettings {
    /// Where platform data comes from.
    pub upstream: Upstream,
    /// Refresh schedule.
    pub schedule: RefreshSchedule,
    /// Faults of the simulated source.
    pub simulated: SimulatedConfig,
    /// Settings of the live adapters (validated when `upstream` is live).
    pub live: LiveArgs,
    /// Settings of the creator loops.
    pub creators: CreatorConfig,
    /// How long a worker's claim holds.
    pub lease: chrono::Duration,
    /// How long raw observations are kept (`None`: forever).
    pub observation_retention: Option<chrono::Duration>,
}

impl RuntimeArgs {
    /// Validates and types the settings; the error names the setting.
    pub fn settings(&self) -> anyhow::Result<RuntimeSettings> {
        let schedule = RefreshSchedule::parse(&self.refresh_schedule)
            .map_err(|e| anyhow::anyhow!("VIDPULSE_REFRESH_SCHEDULE: {e}"))?;
        for (name, rate) in [
            ("VIDPULSE_SIM_FAIL_RATE", self.sim_fail_rate),
            ("VIDPULSE_SIM_GONE_RATE", self.sim_gone_rate),
        ] {
            if !(0.0..=1.0).contains(&rate) {
                anyhow::bail!("{name} must be between 0 and 1; got {rate}");
            }
        }
        if self.upstream == Upstream::Live {
            self.live.validate()?;
        }
        for (name, secs) in [
            ("VIDPULSE_JOB_TIMEOUT_SECS", self.job_timeout_secs),
            (
                "VIDPULSE_JOB_SWEEP_INTERVAL_SECS",
                self.job_sweep_interval_secs,
            ),
        ] {
            if !(1..=30 * 86_400).contains(&secs) {
                anyhow::bail!("{name} must be between 1 and 2592000 seconds; got {secs}");
            }
        }
        if !(10..=3600).contains(&self.worker_lease_secs) {
            anyhow::bail!(
                "VIDPULSE_WORKER_LEASE_SECS must be between 10 and 3600 seconds; got {}",
                self.worker_lease_secs
            );
        }
        let lease = chrono::Duration::seconds(self.worker_lease_secs as i64);
        if self.observation_retention_days != 0
            && !(31..=36_500).contains(&self.observation_retention_days)
        {
            anyhow::bail!(
                "VIDPULSE_OBSERVATION_RETENTION_DAYS must be 0 (keep all) or between 31 and 36500; got {}",
                self.observation_retention_days
            );
        }
        let observation_retention = (self.observation_retention_days > 0)
            .then(|| chrono::Duration::days(self.observation_retention_days as i64));
        Ok(RuntimeSettings {
            upstream: self.upstream,
            schedule,
            simulated: SimulatedConfig {
                fail_rate: self.sim_fail_rate,
                gone_rate: self.sim_gone_rate,
                latency: Duration::from_millis(self.sim_latency_ms),
                ..SimulatedConfig::default()
            },
            live: self.live.clone(),
            creators: CreatorConfig {
                job_timeout: chrono::Duration::seconds(self.job_timeout_secs as i64),
                sweep_interval: Duration::from_secs(self.job_sweep_interval_secs),
                lease,
                ..CreatorConfig::default()
            },
            lease,
            observation_retention,
        })
    }
}

impl LiveArgs {
    /// Checks that the chosen adapters have their settings; the error names the missing one.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.youtube_adapter == YoutubeAdapter::Api && self.youtube_api_key.is_none() {
            anyhow::bail!(
                "VIDPULSE_YOUTUBE_API_KEY is required for live YouTube through the Data API (or set VIDPULSE_YOUTUBE_ADAPTER=ytdlp)"
            );
        }
        if self.tiktok_adapter == TiktokAdapter::Research {
            if self.tiktok_client_key.is_none() {
                anyhow::bail!(
                    "VIDPULSE_TIKTOK_CLIENT_KEY is required with VIDPULSE_TIKTOK_ADAPTER=research"
                );
            }
            if self.tiktok_client_secret.is_none() {
                anyhow::bail!(
                    "VIDPULSE_TIKTOK_CLIENT_SECRET is required with VIDPULSE_TIKTOK_ADAPTER=research"
                );
            }
        }
        if self.tiktok_client_key.is_some() != self.tiktok_client_secret.is_some() {
            anyhow::bail!(
                "VIDPULSE_TIKTOK_CLIENT_KEY and VIDPULSE_TIKTOK_CLIENT_SECRET must be set together"
            );
        }
        if self.instagram_access_token.is_some() != self.instagram_user_id.is_some() {
            anyhow::bail!(
                "VIDPULSE_INSTAGRAM_ACCESS_TOKEN and VIDPULSE_INSTAGRAM_USER_ID must be set together"
            );
        }
        if self.ytdlp_concurrency == 0 {
            anyhow::bail!("VIDPULSE_YTDLP_CONCURRENCY must be at least 1");
        }
        if self.ytdlp_timeout_secs == 0 {
            anyhow::bail!("VIDPULSE_YTDLP_TIMEOUT_SECS must be at least 1");
        }
        Ok(())
    }
}

/// Variables read outside the command line: the test suite's PostgreSQL.
const OTHER_VARIABLES: &[&str] = &["VIDPULSE_TEST_POSTGRES_URL"];

/// Every `VIDPULSE_*` variable this build reads: those of every flag of
/// every command (read from the command-line definitions, so the list
/// cannot drift from them), and the few read outside the command line (`OTHER_VARIABLES`).
pub fn known_variables() -> Vec<String> {
    fn walk(cmd: &clap::Command, out: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            if let Some(env) = arg.get_env().and_then(|e| e.to_str()) {
                out.push(env.to_owned());
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, out);
        }
    }
    let mut out: Vec<String> = OTHER_VARIABLES.iter().map(|v| (*v).to_owned()).collect();
    walk(&<Cli as clap::CommandFactory>::command(), &mut out);
    out.sort();
    out.dedup();
    out
}

/// Names of `VIDPULSE_*` variables in the environment that this build does not read
/// (a typo, usually).
pub fn unknown_variables() -> Vec<String> {
    let known = known_variables();
    std::env::vars()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("VIDPULSE_") && !known.contains(k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_variable_is_known_and_nothing_else() {
        let known = known_variables();
        for documented in [
            "VIDPULSE_PUBLIC_URL",
            "VIDPULSE_FILES_DIR",
            "VIDPULSE_OUTBOX_DIR",
            "VIDPULSE_MAIL_FROM",
            "VIDPULSE_DASHBOARD_URL",
            "VIDPULSE_JWT_ISSUER",
            "VIDPULSE_JWT_AUDIENCE",
            "VIDPULSE_JWT_SECRET",
            "VIDPULSE_REDIS_URL",
            "VIDPULSE_TEST_POSTGRES_URL",
            "DATABASE_URL",
        ] {
            assert!(known.iter().any(|k| k == documented), "{documented}");
        }
        assert!(!known.iter().any(|k| k == "VIDPULSE_LISTEN_ADDR"));
    }

    #[test]
    fn jwt_secrets_are_long_enough() {
        assert!(parse_jwt_secret("x").is_err());
        assert!(parse_jwt_secret(&"x".repeat(31)).is_err());
        assert!(parse_jwt_secret(&"x".repeat(32)).is_ok());
    }
}
