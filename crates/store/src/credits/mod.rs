//! The credit ledger: every charge, written in the same transaction as the
//! work it pays for, or reserved before an upstream call and refunded if the
//! call fails (so a failed request charges nothing).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use vidpulse_domain::{ApiKeyId, OrgId};

use crate::StoreError;

mod store;

pub(crate) use store::insert_charge;

/// One charge to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    /// The organization charged.
    pub organization_id: OrgId,
    /// The key that made the request.
    pub api_key_id: Option<ApiKeyId>,
    /// The request.
    pub request_id: String,
    /// Credits.
    pub amount: i64,
    /// What for (`trend_search`, `analytics`, `video_track`, ...).
    pub reason: &'static str,
    /// The thing paid for, when there is one.
    pub subject: Option<String>,
    /// When.
    pub at: DateTime<Utc>,
}

/// The answer of [`CreditStore::charge_within_cap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CappedCharge {
    /// Written; the ledger row's id (to refund it if the work fails).
    Charged(i64),
    /// Not written: this many charges of the same reason exist already.
    CapReached(i64),
}

/// The credit ledger.
#[async_trait]
pub trait CreditStore {
    /// Writes a charge.
    async fn charge(&self, charge: &Charge) -> Result<i64, StoreError>;

    /// Writes `charges` in one transaction: every one, or none (a charge of
    /// an organization that no longer exists fails them all).
    async fn charge_all(&self, charges: &[Charge]) -> Result<(), StoreError>;

    /// Writes a charge unless the organization already has `cap` charges of
    /// the same reason since `since`; atomic against concurrent calls.
    async fn charge_within_cap(
        &self,
        charge: &Charge,
        since: DateTime<Utc>,
        cap: i64,
    ) -> Result<CappedCharge, StoreError>;

    /// Removes a charge whose work failed.
    async fn refund(&self, ledger_id: i64) -> Result<(), StoreError>;
}
