//! The HTTP interfaces of vidpulse: the public API under `/v1` (API keys,
//! [`v1`]) and the dashboard API (a JWT or the web app's session, root paths,
//! [`dashboard`]), signing in ([`sign_in`]), health endpoints and the OpenAPI
//! document generated from the handlers; the router also serves the web app
//! (`vidpulse-web`) and the MCP server for AI assistants ([`mcp`], `/mcp`,
//! API keys, over the same use cases as `/v1`).
//!
//! The two faces are thin: a handler authenticates, reads the request into
//! checked values, calls a use case of the application layer ([`app`]),
//! which applies the domain's rules and calls the store, and wraps the answer
//! in its face's envelope. The crate uses the store and the platform sources,
//! never the worker.
#![warn(missing_docs)]

pub mod analytics_cache;
pub mod app;
pub mod auth;
pub mod charges;
pub mod dashboard;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod files;
mod health;
pub mod idempotency;
pub mod input;
pub use vidpulse_notify::mail;
pub mod mcp;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod rate_limit;
pub mod record_cache;
mod router;
pub mod shared;
pub mod sign_in;
pub mod state;
pub mod thumbnails;
pub mod usage;
pub mod v1;

pub use error::{ApiError, ErrorCode, ErrorForm};
pub use router::{openapi_document, router};
pub use state::{ApiConfig, AppState, ConnectionLimits};
pub use usage::UsageRecorder;
