//! Logging: `RUST_LOG` filter (default `info`), text or JSON lines on stderr.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber with `RUST_LOG`, default `info`; a second
/// call does nothing.
pub fn init(format: LogFormat) {
    init_with_default(format, "info");
}

/// Installs the global subscriber with `RUST_LOG`, default `default`.
pub fn init_with_default(format: LogFormat, default: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init(),
    };
}
