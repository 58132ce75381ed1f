//! The vidpulse binary's library half: configuration, wiring and commands,
//! so integration tests start the same server the binary does.
#![warn(missing_docs)]

pub mod app;
pub mod commands;
pub mod config;
pub mod live;
pub mod server;
pub mod telemetry;
