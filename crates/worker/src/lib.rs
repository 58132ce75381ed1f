//! Background loops of vidpulse. Each loop is `run(ctx, shutdown)` around a
//! `tick(ctx)` that tests call directly to step through the work.
#![warn(missing_docs)]

pub mod creators;
pub mod housekeeping;
pub mod refresh;
pub mod webhooks;

pub use creators::{CreatorConfig, CreatorContext};
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
