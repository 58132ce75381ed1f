//! The HTTP interfaces of vidpulse: the public API under `/v1` (API keys) and
//! the dashboard API (JWT, root paths), with health endpoints and the OpenAPI
//! document generated from the handlers.
//!
//! Handlers parse and validate, call the domain and the store, and shape the
//! envelope; nothing else.
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
pub mod input;
pub mod mail;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod rate_limit;
pub mod record_cache;
mod router;
pub mod sign_in;
pub mod state;
pub mod thumbnails;
pub mod usage;
pub mod v1;

pub use error::{ApiError, ErrorCode, ErrorForm};
pub use router::{openapi_document, router};
pub use state::{ApiConfig, AppState, ConnectionLimits};
pub use usage::UsageRecorder;
