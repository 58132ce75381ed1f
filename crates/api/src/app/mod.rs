//! The application layer: every use case once, called by both faces of the
//! API, the public `/v1` ([`crate::v1`]) and the dashboard
//! ([`crate::dashboard`]).
//!
//! A face authenticates, parses the request into checked values, calls a use
//! case here and wraps the answer in its envelope with its OpenAPI
//! description; a use case knows nothing of which face called it. The view
//! types both faces answer with live here too, so the two OpenAPI documents
//! describe the same schema.

use chrono::{DateTime, SecondsFormat, Utc};

pub mod account;
pub mod alerts;
pub mod analytics;
pub mod bloggers;
pub mod campaigns;
pub mod compare;
pub mod recaps;
pub mod share_links;
pub mod top;
pub mod videos;
pub mod webhooks;

/// RFC 3339 in UTC with a `Z` and microseconds (docs/api.md, "Conventions").
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}
