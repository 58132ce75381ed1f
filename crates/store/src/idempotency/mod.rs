//! Idempotency keys (migration 0036): a public-API `POST` carrying an
//! `Idempotency-Key` claims the key for its organization before it runs and
//! keeps its answer when it ends, so a retry gets that answer instead of
//! doing the work again. The rules (which answers are kept, for how long,
//! what makes two requests the same) are `vidpulse_domain::idempotency`'s;
//! this role only keeps the rows, one per organization and key.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;

use crate::StoreError;

mod store;

/// An answer kept for retries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptAnswer {
    /// HTTP status.
    pub status: u16,
    /// The headers a retry gets again (name, value), in order.
    pub headers: Vec<(String, String)>,
    /// The body, byte for byte.
    pub body: Vec<u8>,
}

/// What claiming a key found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyClaim {
    /// The key is the caller's to run the request under `token`: it was new,
    /// its answer had aged past the retention, or the lease of the request
    /// that claimed it ran out (that request's node died). Keep the answer
    /// with [`IdempotencyStore::keep_idempotent_answer`] or give the key up
    /// with [`IdempotencyStore::release_idempotency_key`].
    Claimed {
        /// Proves the claim.
        token: Uuid,
    },
    /// The same request ran already: its answer.
    Answered(KeptAnswer),
    /// The same request is running under a lease that holds: ask again
    /// in a moment.
    InFlight,
    /// The key was used with another request (another fingerprint) within
    /// the retention.
    Reused,
}

/// The organizations' idempotency keys.
#[async_trait]
pub trait IdempotencyStore {
    /// Claims organization `org`'s `key` for a request of `fingerprint` at
    /// `now`, for `lease`; a row created at or before `now - retention` is
    /// as good as absent. One transaction: of requests claiming one key at
    /// once, exactly one gets [`KeyClaim::Claimed`].
    async fn claim_idempotency_key(
        &self,
        org: OrgId,
        key: &str,
        fingerprint: &str,
        now: DateTime<Utc>,
        lease: Duration,
        retention: Duration,
    ) -> Result<KeyClaim, StoreError>;

    /// Keeps the answer of the request that claimed `key` under `token`;
    /// `false` when that claim was lost (its lease ran out and another
    /// request took the key over): nothing is written then.
    async fn keep_idempotent_answer(
        &self,
        org: OrgId,
        key: &str,
        token: Uuid,
        answer: &KeptAnswer,
    ) -> Result<bool, StoreError>;

    /// Gives up the claim on `key` under `token` without an answer (the
    /// request failed in a way a retry should try again): the key is free.
    async fn release_idempotency_key(
        &self,
        org: OrgId,
        key: &str,
        token: Uuid,
    ) -> Result<(), StoreError>;

    /// Deletes every key created before `before` (housekeeping); how many.
    async fn prune_idempotency_keys(&self, before: DateTime<Utc>) -> Result<u64, StoreError>;
}
