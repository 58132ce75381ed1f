//! Configuration: one clap tree, every setting a flag and most an
//! environment variable (the flag wins), turned into typed settings for each
//! crate. `docs/configuration.md` is its reference, and a test here checks
//! that page against these definitions.
//!
//! By concern: the HTTP side of `serve` ([`ServeArgs`], [`MailArgs`],
//! [`IdentityArgs`]), the background work `serve` and `worker` share
//! ([`RuntimeArgs`]), the live platform adapters ([`LiveArgs`]), the admin
//! commands ([`AdminCommand`]), secret values, and the `VIDPULSE_*`
//! variables this build knows.

use clap::{Args, Parser, Subcommand, ValueEnum};

mod admin;
mod live;
#[cfg(test)]
mod reference;
mod runtime;
mod secrets;
mod serve;
mod variables;

pub use admin::{AdminCommand, DefaultPlanArgs};
pub use live::{LiveArgs, TiktokAdapter, YoutubeAdapter};
pub use runtime::{RuntimeArgs, RuntimeSettings, Upstream};
pub use secrets::MIN_JWT_SECRET_BYTES;
pub use serve::{IdentityArgs, MailArgs, ServeArgs, WorkerArgs};
pub use variables::{known_variables, unknown_variables};

/// The default database: a SQLite file under `data/`, created on first start.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/vidpulse.db";

/// vidpulse: tracks how influencer videos and creators perform on TikTok,
/// Instagram and YouTube.
#[derive(Debug, Parser)]
#[command(
    name = "vidpulse",
    version,
    about,
    propagate_version = true,
    after_help = "Every setting, its variable and its default: docs/configuration.md."
)]
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
