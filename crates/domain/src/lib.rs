//! Pure types and rules of vidpulse, with no IO: platforms and their URLs,
//! counters and readings (and what a read of a video says besides them,
//! [`metrics::VideoMeta`], and came to, [`metrics::RefreshOutcome`]), the
//! analytics rules, plans and quotas, the refresh schedule, PATCH
//! validation, API key secrets, the names users type, webhook rules (events,
//! milestones, retries, which URLs a delivery may go to), which IP
//! addresses are global, and the `Idempotency-Key` of a retried request.
//! Everything above this crate trusts these types.
#![warn(missing_docs)]

pub mod analytics;
pub mod anchor;
pub mod api_key;
pub mod clock;
pub mod idempotency;
pub mod identity;
pub mod ids;
pub mod ip_scope;
pub mod metrics;
pub mod names;
pub mod patch;
pub mod plan;
pub mod platform;
pub mod schedule;
pub mod video_url;
pub mod webhooks;

pub use anchor::Anchor;
pub use clock::{Clock, ManualClock, SystemClock};
pub use ids::{ApiKeyId, CampaignId, OrgId, UserId, VideoId};
pub use metrics::{Counters, Observation, ObservationSource, RefreshOutcome, VideoMeta};
pub use plan::Plan;
pub use platform::Platform;
pub use video_url::{ParsedUrl, ShortLink, VideoRef, parse_video_url};
