//! Platform sources: where video statistics come from.
//!
//! One [`Source`] trait in front of every upstream. The [`simulated`] source is
//! deterministic and offline (the default, for demos and tests); live adapters
//! speak the platforms' real APIs through [`http::Upstream`], which owns
//! retries, rate limits, the circuit breaker and quotas. [`short_link`]
//! resolves the platforms' short links without ever reaching a host that is
//! not the platform's own, and [`PublicOnly`] is the resolver of the requests
//! the service makes for its clients (webhook deliveries, thumbnails): it
//! keeps addresses that are not global out.
#![warn(missing_docs)]

mod discovery;
pub mod http;
pub mod instagram_graph;
pub mod live;
mod public_only;
pub mod short_link;
pub mod simulated;
mod source;
pub mod tiktok_research;
pub mod youtube;
pub mod ytdlp;

pub use discovery::discover_channel;
pub use public_only::PublicOnly;
pub use short_link::{ResolveError, ShortLinkConfig, ShortLinkResolver};
pub use simulated::{SimulatedConfig, SimulatedSource};
pub use source::{
    Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery, TrendVideo,
    VideoMeta, VideoSnapshot,
};
