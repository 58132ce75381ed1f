//! Persistence of vidpulse behind one interface, [`Store`]: a trait per role
//! (organizations, videos, the refresh queue, creators, analytics, users,
//! sessions, webhooks, …), each written once for SQLite and PostgreSQL, as
//! `impl<D: Dialect> …Store for SqlStore<D>`. `sql.rs` holds `SqlStore` and
//! the `Dialect`, the short list of what the two databases spell differently;
//! `sqlite/` and `postgres/` keep only what truly differs (connection
//! options, their `Dialect`, the shape of a video record's row, observation
//! housekeeping), and each has its own migrations (`migrations/sqlite/`,
//! `migrations/postgres/`). Both pass the one contract suite in
//! `tests/contract/`.
//!
//! Every method is one use case and owns its transaction: a method either
//! does all of its writes or none.
//!
//! # Layout
//!
//! One rule for every storage role (each `…Store` trait that [`Store`] is
//! made of): the role is a folder named after it, and
//!
//! - `<role>/mod.rs` is its contract: the public types and the
//!   `#[async_trait] pub trait …Store`, with no SQL;
//! - `<role>/store.rs` is `impl …Store for SqlStore<D>`: the role written
//!   once for both backends, with its statements;
//! - any other file in the folder is one named concern of the role: its
//!   row types (`rows.rs`), a step other roles share (`videos/track.rs`,
//!   `credits`' charge), a part of a big role (`bloggers/tags.rs`).
//!
//! Beside the roles: `sql.rs` and `error.rs` are the ground floor (how a
//! statement is written, bound and run on either backend; the error type),
//! which knows no role and no feature. `closes.rs` (readings and their daily
//! closes) and `rollup.rs` (the analytics rollup) are machinery several
//! roles write through.
//!
//! A feature whose statements differ in shape between the backends keeps
//! that difference in a small `…Dialect` trait beside it: `RecordDialect`
//! (`videos/record.rs`), `ScopeDialect` (`rollup.rs`), `AnalyticsDialect`
//! (`analytics/statements.rs`), `HousekeepingDialect`
//! (`ops/housekeeping.rs`). `sqlite/` and `postgres/` are the two backends:
//! how each connects, its `Dialect`, and its implementation of each
//! feature's trait in a file named after the feature. `backend.rs` gathers
//! them into the one bound `Db` and implements [`Store`] on it.
#![warn(missing_docs)]

use std::sync::Arc;

use async_trait::async_trait;

pub mod alerts;
pub mod analytics;
mod backend;
pub mod bloggers;
pub mod campaigns;
mod closes;
pub mod creators;
pub mod credits;
mod error;
pub mod idempotency;
pub mod import;
pub mod invites;
pub mod ops;
pub mod orgs;
mod postgres;
pub mod recaps;
pub mod refresh;
mod rollup;
pub mod sessions;
pub mod share_links;
mod sql;
#[cfg(test)]
mod sql_guard;
mod sqlite;
#[cfg(feature = "testing")]
pub mod testing;
pub mod thumbnails;
pub mod usage;
pub mod users;
pub mod videos;
pub mod webhooks;

pub use alerts::AlertStore;
pub use analytics::{AnalyticsRow, AnalyticsStore, DayIncrement, DayIncrementQuery};
pub use bloggers::{
    BloggerChanges, BloggerStore, BloggerSummary, CreatorGroup, GroupInto, Grouped, KnownCreator,
    ProfileRef, SetTags, Tag,
};
pub use campaigns::{
    CampaignChanges, CampaignListQuery, CampaignRecord, CampaignRefusal, CampaignStore,
    CampaignVideoFigures, NewCampaign,
};
pub use creators::{
    AccountChange, AccountQuery, AccountSetup, ClaimedJob, CreatorJob, CreatorProfile,
    CreatorStore, CreatorTotals, CreatorVideos, DiscoveryAsk, DiscoveryOutcome, DiscoveryResult,
    DueDiscovery, FollowerDay, FollowerGains, JOB_TIMEOUT, JobFinished, JobStatus, JobSuccess,
    ManualDiscovery, NewCreatorJob, SetupCreator, StartJob, TrackedAccount,
};
pub use credits::{CappedCharge, Charge, CreditStore};
pub use error::StoreError;
pub use idempotency::{IdempotencyStore, KeptAnswer, KeyClaim};
pub use import::{ImportOutcome, ImportRow, ImportStore};
pub use invites::{
    AcceptOutcome, DeclineOutcome, Invitation, InvitationDetails, InvitationPassword, InviteResult,
    InviteStatus, InviteStore, NewInvite, PendingOutcome,
};
pub use ops::{Housekeeping, OpsStore, QueueStats};
pub use orgs::{
    ApiKeyOwner, ApiKeyRecord, NewApiKey, NewOrganization, OrgStore, Organization, PlanUse,
};
pub use recaps::{
    ChatTarget, DueRecap, Frequency, NewRecap, RecapChange, RecapOutcome, RecapRefusal, RecapStore,
    RecapSubscription, RecapTarget,
};
pub use refresh::{DueVideo, ManualRead, RefreshAsk, RefreshStore, RefreshWrite};
pub use sessions::{NewSession, Session, SessionStore};
pub use share_links::{NewShareLink, ShareLink, ShareLinkStore};
pub use thumbnails::{ThumbnailSource, ThumbnailStore};
pub use usage::{UsageDay, UsageDelta, UsageStore};
pub use users::{Member, MemberChange, Membership, OrgSettings, User, UserStore};
pub use videos::{
    ListQuery, Page, PatchOutcome, QuotaPolicy, RecordStamp, SortKey, SortOrder, StatusFilter,
    TagsResult, TopVideo, TopVideosQuery, TrackBatch, TrackOutcome, TrackedVideo, Untracked,
    VideoLookup, VideoRecord, VideoState, VideoStore,
};
pub use vidpulse_domain::{RefreshOutcome, VideoMeta};
pub use webhooks::{
    Attempt, Delivery, DeliveryStatus, DueDelivery, EndpointChange, NewEndpoint, WebhookEndpoint,
    WebhookQueue, WebhookStore,
};

/// Which database a store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// SQLite: the embedded default.
    Sqlite,
    /// PostgreSQL: for scale-out.
    Postgres,
}

impl Backend {
    /// The backend a `DATABASE_URL` names, from its scheme.
    pub fn of_url(url: &str) -> Result<Self, StoreError> {
        if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres)
        } else {
            Err(StoreError::Config(
                "DATABASE_URL must start with sqlite:// or postgres://".into(),
            ))
        }
    }
}

/// How to open a store.
#[derive(Debug, Clone)]
pub struct StoreConfig {
    /// `sqlite://PATH` or `postgres://...`.
    pub url: String,
    /// Largest number of pooled connections.
    pub max_connections: u32,
}

impl StoreConfig {
    /// Settings for `url` with the default pool size.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_connections: 16,
        }
    }
}

/// Everything vidpulse persists.
#[async_trait]
pub trait Store:
    OrgStore
    + VideoStore
    + RefreshStore
    + UsageStore
    + CreditStore
    + CreatorStore
    + AnalyticsStore
    + ImportStore
    + UserStore
    + InviteStore
    + BloggerStore
    + OpsStore
    + SessionStore
    + WebhookStore
    + ThumbnailStore
    + CampaignStore
    + RecapStore
    + ShareLinkStore
    + AlertStore
    + IdempotencyStore
    + Send
    + Sync
    + std::fmt::Debug
{
    /// Which database this is.
    fn backend(&self) -> Backend;

    /// Applies pending migrations; returns how many were applied. A
    /// migration may queue a task on the data it reshaped, which
    /// [`Store::run_queued_tasks`] runs: call it next ([`open`] does).
    async fn migrate(&self) -> Result<usize, StoreError>;

    /// Runs the tasks that migrations queued (`store_tasks`: the analytics
    /// rollup's rebuild, after the migrations that add or reshape it), each
    /// once.
    async fn run_queued_tasks(&self) -> Result<(), StoreError>;

    /// Recomputes the analytics rollup from the daily closes (the migration
    /// that adds it does this once; writes keep it current after that).
    async fn rebuild_analytics(&self) -> Result<(), StoreError>;

    /// Checks that the database answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Closes the pool, waiting for connections in use to be returned.
    async fn close(&self);
}

/// Connects to the database `config.url` names (creating a SQLite file and its
/// folder when missing). Does not migrate.
pub async fn connect(config: &StoreConfig) -> Result<Arc<dyn Store>, StoreError> {
    match Backend::of_url(&config.url)? {
        Backend::Sqlite => Ok(Arc::new(sqlite::SqliteStore::connect(config).await?)),
        Backend::Postgres => Ok(Arc::new(postgres::PgStore::connect(config).await?)),
    }
}

/// Connects, applies pending migrations and runs the tasks they queued.
pub async fn open(config: &StoreConfig) -> Result<Arc<dyn Store>, StoreError> {
    let store = connect(config).await?;
    store.migrate().await?;
    store.run_queued_tasks().await?;
    Ok(store)
}
