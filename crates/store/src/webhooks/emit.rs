//! Writing events to the outbox, inside the transaction of the change that
//! causes them.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};
use uuid::Uuid;
use vidpulse_domain::webhooks::EventType;

use crate::StoreError;
use crate::sql::{Dialect, Tx};

/// The endpoints of one organization subscribed to one event type: looked
/// up once, then used for every event of that type a write causes. An event
/// is kept when any endpoint subscribes; only enabled ones get a delivery
/// (a disabled endpoint's owner replays what it missed).
#[derive(Debug, Clone)]
pub(crate) struct Subscribers {
    organization_id: Uuid,
    event_type: EventType,
    /// Whether any endpoint subscribes, enabled or not: the event is then
    /// kept, so that a replay can send it later.
    any: bool,
    /// The enabled ones, each getting a delivery.
    endpoints: Vec<Uuid>,
}

impl Subscribers {
    /// The endpoints of `org` subscribed to `event_type`.
    pub(crate) async fn of<D: Dialect>(
        tx: &mut Tx<D>,
        org: Uuid,
        event_type: EventType,
    ) -> Result<Self, StoreError> {
        let rows: Vec<(Uuid, bool)> = D::query(
            "SELECT s.endpoint_id, e.enabled FROM webhook_subscriptions s
             JOIN webhook_endpoints e ON e.id = s.endpoint_id
             WHERE s.organization_id = $1 AND s.event_type = $2
             ORDER BY s.endpoint_id",
        )
        .bind(org)
        .bind(event_type.as_str())
        .fetch_all(&mut **tx)
        .await?;
        Ok(Self {
            organization_id: org,
            event_type,
            any: !rows.is_empty(),
            endpoints: rows
                .into_iter()
                .filter_map(|(id, enabled)| enabled.then_some(id))
                .collect(),
        })
    }

    /// Only `endpoint` (a test event), whatever it subscribes to.
    pub(crate) fn only(org: Uuid, event_type: EventType, endpoint: Uuid) -> Self {
        Self {
            organization_id: org,
            event_type,
            any: true,
            endpoints: vec![endpoint],
        }
    }

    /// Whether no endpoint subscribes (an event would not be kept).
    pub(crate) fn is_empty(&self) -> bool {
        !self.any
    }

    /// Writes an event of `data` at `at` and a pending delivery to each
    /// enabled endpoint; nothing when no endpoint subscribes. The event's
    /// id, if written.
    pub(crate) async fn emit<D: Dialect>(
        &self,
        tx: &mut Tx<D>,
        data: Value,
        at: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError> {
        if !self.any {
            return Ok(None);
        }
        let id = Uuid::now_v7();
        let body = json!({
            "type": self.event_type.as_str(),
            "timestamp": at.to_rfc3339_opts(SecondsFormat::Micros, true),
            "data": data,
        })
        .to_string();
        D::query(
            "INSERT INTO webhook_events (id, organization_id, event_type, body, created_at)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(self.organization_id)
        .bind(self.event_type.as_str())
        .bind(&body)
        .bind(at)
        .execute(&mut **tx)
        .await?;
        for endpoint in &self.endpoints {
            queue_delivery(tx, id, *endpoint, self.organization_id, at).await?;
        }
        Ok(Some(id))
    }
}

/// Queues a pending delivery of event `event` to `endpoint`, due at `at`.
pub(crate) async fn queue_delivery<D: Dialect>(
    tx: &mut Tx<D>,
    event: Uuid,
    endpoint: Uuid,
    org: Uuid,
    at: DateTime<Utc>,
) -> Result<Uuid, StoreError> {
    let id = Uuid::now_v7();
    D::query(
        "INSERT INTO webhook_deliveries
           (id, event_id, endpoint_id, organization_id, status, attempts, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, 'pending', 0, $5, $5)",
    )
    .bind(id)
    .bind(event)
    .bind(endpoint)
    .bind(org)
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(id)
}

/// One organization's tracking of a catalog video, as a video event shows it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct Tracker {
    pub organization_id: Uuid,
    pub video_id: Uuid,
    pub external_id: String,
    pub platform: String,
    pub url: String,
}

impl Tracker {
    /// The video fields every video event's `data` carries.
    pub(crate) fn data(&self) -> Value {
        json!({
            "video_id": self.video_id,
            "external_video_id": self.external_id,
            "platform": self.platform,
            "url": self.url,
        })
    }
}

/// Writes an event of `event_type` for every organization tracking catalog
/// video `catalog_id` at `at` with an endpoint (enabled or not) subscribed to it: `data`
/// gets each one's [`Tracker::data`] and adds its own fields. How many.
pub(crate) async fn emit_to_trackers<D: Dialect>(
    tx: &mut Tx<D>,
    catalog_id: i64,
    event_type: EventType,
    at: DateTime<Utc>,
    extra: &Value,
) -> Result<usize, StoreError> {
    let trackers: Vec<Tracker> = D::query(
        "SELECT tv.organization_id, tv.id AS video_id, pv.external_id, pv.platform,
                coalesce(tv.own_url, pv.url) AS url
         FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
         WHERE tv.platform_video_id = $1
           AND tv.tracking_started_at <= $2 AND tv.tracking_ends_at > $2
           AND EXISTS (
             SELECT 1 FROM webhook_subscriptions s
             JOIN webhook_endpoints e ON e.id = s.endpoint_id
             WHERE s.organization_id = tv.organization_id AND s.event_type = $3)
         ORDER BY tv.organization_id",
    )
    .bind(catalog_id)
    .bind(at)
    .bind(event_type.as_str())
    .fetch_all(&mut **tx)
    .await?;
    for tracker in &trackers {
        let mut data = tracker.data();
        if let (Value::Object(data), Value::Object(extra)) = (&mut data, extra) {
            data.extend(extra.clone());
        }
        Subscribers::of(tx, tracker.organization_id, event_type)
            .await?
            .emit(tx, data, at)
            .await?;
    }
    Ok(trackers.len())
}

/// Whether any endpoint anywhere subscribes to `event_type`: the refresh's
/// hot path asks once per batch before looking any closer.
pub(crate) async fn anyone_subscribes<D: Dialect>(
    tx: &mut Tx<D>,
    event_type: EventType,
) -> Result<bool, StoreError> {
    let found: i64 = D::query(
        "SELECT count(*) FROM (
           SELECT 1 AS one FROM webhook_subscriptions s
           WHERE s.event_type = $1 LIMIT 1) t",
    )
    .bind(event_type.as_str())
    .fetch_scalar(&mut **tx)
    .await?;
    Ok(found > 0)
}
