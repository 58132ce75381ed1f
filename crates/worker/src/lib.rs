//! Background loops of vidpulse: the refresh scheduler ([`refresh`]), creator
//! jobs and daily discovery ([`creators`]), webhook delivery ([`webhooks`]),
//! what alerts and recaps send through ([`notify`]) and the hourly observation upkeep ([`housekeeping`]). Each loop is
//! `run(ctx, shutdown)` around ticks (`tick`, `tick_jobs`, …) that tests call
//! directly to step through the work. The crate uses the store and the
//! platform sources, never the HTTP side.
#![warn(missing_docs)]

pub mod alerts;
pub mod creators;
pub mod housekeeping;
pub mod notify;
pub mod recaps;
pub mod refresh;
pub mod webhooks;

pub use creators::{CreatorConfig, CreatorContext};
pub use notify::NotifyContext;
pub use refresh::{RefreshConfig, RefreshContext};
pub use webhooks::{WebhookConfig, WebhookContext};

/// What one tick of a loop did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// Some work was done (this many items); tick again at once.
    Worked(usize),
    /// Nothing was due.
    Idle,
}
