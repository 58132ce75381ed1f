//! Webhooks (docs/api.md, "Webhooks"): an organization's endpoints, the
//! events written to an outbox in the transaction of the change that causes
//! them, and the delivery queue the workers claim under a lease.
//!
//! An event is written only when an endpoint of its organization subscribes
//! to it, together with one pending delivery per such endpoint that is
//! enabled (a disabled endpoint's owner replays what it missed):
//! a rolled-back write leaves no event, a committed one leaves its
//! deliveries, which survive any process being killed.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::webhooks::EventType;

use crate::StoreError;

mod emit;
mod store;

pub(crate) use emit::{Subscribers, anyone_subscribes, emit_to_trackers};

/// Most endpoints one organization may have.
pub const MAX_ENDPOINTS: i64 = 20;

/// An organization's webhook endpoint, as its owner sees it (never its
/// secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    /// Its id.
    pub id: Uuid,
    /// Where deliveries are posted.
    pub url: String,
    /// The owner's note.
    pub description: Option<String>,
    /// The events it subscribes to, by name.
    pub events: Vec<EventType>,
    /// Whether deliveries are made (an endpoint failing for days is
    /// disabled; its owner enables it again).
    pub enabled: bool,
    /// Why it was disabled, when the service disabled it.
    pub disabled_reason: Option<String>,
    /// Since when every delivery to it failed, while they do.
    pub failing_since: Option<DateTime<Utc>>,
    /// Until when the secret before the last rotation still signs.
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it was last changed.
    pub updated_at: DateTime<Utc>,
}

/// An endpoint to create.
#[derive(Debug, Clone)]
pub struct NewEndpoint {
    /// Where deliveries go.
    pub url: String,
    /// The owner's note.
    pub description: Option<String>,
    /// The events it subscribes to (at least one).
    pub events: Vec<EventType>,
    /// Its signing secret (`whsec_…`).
    pub secret: String,
}

/// A change to an endpoint; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct EndpointChange {
    /// A new URL.
    pub url: Option<String>,
    /// A new note (`Some(None)` clears it).
    pub description: Option<Option<String>>,
    /// New events.
    pub events: Option<Vec<EventType>>,
    /// Enable (clearing the failure streak) or disable it.
    pub enabled: Option<bool>,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Waiting for its next attempt.
    Pending,
    /// The endpoint answered 2xx.
    Delivered,
    /// Every attempt failed; replay sends it again.
    Failed,
}

impl DeliveryStatus {
    /// The name the API shows.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Result<Self, StoreError> {
        match s {
            "pending" => Ok(DeliveryStatus::Pending),
            "delivered" => Ok(DeliveryStatus::Delivered),
            "failed" => Ok(DeliveryStatus::Failed),
            other => Err(StoreError::Corrupt(format!("delivery status {other}"))),
        }
    }
}

/// One delivery of an event to an endpoint: the delivery log's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Its id.
    pub id: Uuid,
    /// The event (the `webhook-id` every attempt carries).
    pub event_id: Uuid,
    /// The event's type name.
    pub event_type: String,
    /// Where it stands.
    pub status: DeliveryStatus,
    /// Attempts made.
    pub attempts: i64,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When the last attempt was made.
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The HTTP status the endpoint last answered.
    pub last_status_code: Option<i64>,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// How long the last attempt took, in milliseconds.
    pub last_latency_ms: Option<i64>,
    /// When the endpoint took it.
    pub delivered_at: Option<DateTime<Utc>>,
    /// When it was queued.
    pub created_at: DateTime<Utc>,
}

/// A delivery claimed by a worker: what to send, and where.
#[derive(Debug, Clone)]
pub struct DueDelivery {
    /// The delivery.
    pub id: Uuid,
    /// The claim's token, to present when finishing.
    pub lease_token: Uuid,
    /// The event: `webhook-id`.
    pub event_id: Uuid,
    /// The body, exactly as signed and sent.
    pub body: String,
    /// The endpoint.
    pub endpoint_id: Uuid,
    /// Its URL.
    pub url: String,
    /// The secrets that sign: the current one, and the one before a
    /// rotation while it is still valid.
    pub secrets: Vec<String>,
    /// Attempts made before this one.
    pub attempts: i64,
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// When it was made.
    pub at: DateTime<Utc>,
    /// The HTTP status answered, if any.
    pub status_code: Option<i64>,
    /// Why it failed (`None`: delivered).
    pub error: Option<String>,
    /// How long it took.
    pub latency_ms: i64,
    /// When to try again after a failure (`None`: no more attempts).
    pub retry_at: Option<DateTime<Utc>>,
}

/// The deliveries waiting, for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebhookQueue {
    /// Deliveries pending to enabled endpoints (a disabled endpoint's wait
    /// for its owner, not for the workers).
    pub pending: i64,
    /// When the oldest of them was queued.
    pub oldest_pending_at: Option<DateTime<Utc>>,
}

/// Webhook endpoints, events and deliveries.
#[async_trait]
pub trait WebhookStore {
    /// Creates an endpoint; `None` when the organization has
    /// [`MAX_ENDPOINTS`] already.
    async fn create_endpoint(
        &self,
        org: OrgId,
        endpoint: &NewEndpoint,
        now: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// The organization's endpoints, oldest first.
    async fn endpoints(&self, org: OrgId) -> Result<Vec<WebhookEndpoint>, StoreError>;

    /// One of the organization's endpoints.
    async fn endpoint(&self, org: OrgId, id: Uuid) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// Changes one of the organization's endpoints.
    async fn update_endpoint(
        &self,
        org: OrgId,
        id: Uuid,
        change: &EndpointChange,
        now: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// Deletes one of the organization's endpoints and its deliveries;
    /// whether it existed.
    async fn delete_endpoint(&self, org: OrgId, id: Uuid) -> Result<bool, StoreError>;

    /// Replaces an endpoint's secret with `secret`; the one it replaces
    /// still signs for `overlap`.
    async fn rotate_secret(
        &self,
        org: OrgId,
        id: Uuid,
        secret: &str,
        overlap: Duration,
        now: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// Queues a `webhook.test` event to one endpoint (enabled or not); its
    /// event id, `None` when there is no such endpoint.
    async fn send_test_event(
        &self,
        org: OrgId,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError>;

    /// An endpoint's deliveries, newest first, and how many there are;
    /// `None` when there is no such endpoint.
    async fn deliveries(
        &self,
        org: OrgId,
        endpoint: Uuid,
        status: Option<DeliveryStatus>,
        limit: i64,
        offset: i64,
    ) -> Result<Option<(Vec<Delivery>, i64)>, StoreError>;

    /// Queues one delivery's event to its endpoint again (a new delivery,
    /// the same event id); `None` when there is no such delivery.
    async fn replay_delivery(
        &self,
        org: OrgId,
        endpoint: Uuid,
        delivery: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<Delivery>, StoreError>;

    /// Queues to an endpoint again every event of the organization since
    /// `since` of a type it subscribes to (now), oldest first; how many,
    /// `None` when there is no such endpoint.
    async fn replay_since(
        &self,
        org: OrgId,
        endpoint: Uuid,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, StoreError>;

    /// Claims up to `limit` deliveries due at `now` (of enabled endpoints)
    /// for `lease`. Safe from many workers at once.
    async fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueDelivery>, StoreError>;

    /// Records an attempt of a claimed delivery: delivered, retried at
    /// `retry_at`, or failed for good; the endpoint's failure streak moves,
    /// and an endpoint failing every delivery for `disable_after` is
    /// disabled. Whether the claim still held.
    async fn finish_delivery(
        &self,
        delivery: &DueDelivery,
        attempt: &Attempt,
        disable_after: Duration,
    ) -> Result<bool, StoreError>;

    /// Writes `video.tracking_completed` for every tracking window that
    /// ended since the last sweep, up to `now`; how many events.
    async fn sweep_completed_tracking(&self, now: DateTime<Utc>) -> Result<u64, StoreError>;

    /// Deletes the events created before `before` with no delivery
    /// pending, and their deliveries; how many events.
    async fn prune_webhook_events(&self, before: DateTime<Utc>) -> Result<u64, StoreError>;

    /// The deliveries waiting for the workers.
    async fn webhook_queue(&self) -> Result<WebhookQueue, StoreError>;
}
