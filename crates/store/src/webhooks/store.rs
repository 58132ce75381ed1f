//! [`WebhookStore`] for both backends.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::webhooks::EventType;

use super::emit::{Subscribers, queue_delivery};
use super::*;
use crate::sql::{Conn, Dialect, SqlStore, Tx, rollback_with};

/// An endpoint row.
#[derive(sqlx::FromRow)]
struct EndpointRow {
    id: Uuid,
    url: String,
    description: Option<String>,
    enabled: bool,
    disabled_reason: Option<String>,
    failing_since: Option<DateTime<Utc>>,
    previous_secret_expires_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

const ENDPOINT_COLUMNS: &str = "id, url, description, enabled, disabled_reason, failing_since,
       previous_secret_expires_at, created_at, updated_at";

/// A delivery row, with its event's type.
#[derive(sqlx::FromRow)]
struct DeliveryRow {
    id: Uuid,
    event_id: Uuid,
    event_type: String,
    status: String,
    attempts: i64,
    next_attempt_at: Option<DateTime<Utc>>,
    last_attempt_at: Option<DateTime<Utc>>,
    last_status_code: Option<i64>,
    last_error: Option<String>,
    last_latency_ms: Option<i64>,
    delivered_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

const DELIVERY_COLUMNS: &str = "d.id, d.event_id, ev.event_type, d.status, d.attempts,
       d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.last_error,
       d.last_latency_ms, d.delivered_at, d.created_at";

impl TryFrom<DeliveryRow> for Delivery {
    type Error = StoreError;
    fn try_from(r: DeliveryRow) -> Result<Self, StoreError> {
        Ok(Delivery {
            id: r.id,
            event_id: r.event_id,
            event_type: r.event_type,
            status: DeliveryStatus::parse(&r.status)?,
            attempts: r.attempts,
            next_attempt_at: r.next_attempt_at,
            last_attempt_at: r.last_attempt_at,
            last_status_code: r.last_status_code,
            last_error: r.last_error,
            last_latency_ms: r.last_latency_ms,
            delivered_at: r.delivered_at,
            created_at: r.created_at,
        })
    }
}

/// A claimed delivery's row.
#[derive(sqlx::FromRow)]
struct DueRow {
    id: Uuid,
    lease_token: Uuid,
    event_id: Uuid,
    body: String,
    endpoint_id: Uuid,
    url: String,
    secret: String,
    previous_secret: Option<String>,
    previous_secret_expires_at: Option<DateTime<Utc>>,
    attempts: i64,
}

/// The organization's endpoint `id`, whole.
async fn load<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    id: Uuid,
) -> Result<Option<WebhookEndpoint>, StoreError> {
    let Some(row) = D::query(AssertSqlSafe(format!(
        "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 AND id = $2"
    )))
    .bind(org.0)
    .bind(id)
    .fetch_optional::<EndpointRow>(conn)
    .await?
    else {
        return Ok(None);
    };
    Ok(Some(with_events::<D>(conn, row).await?))
}

/// The endpoint of `row`, with the events it subscribes to.
async fn with_events<D: Dialect>(
    conn: &mut Conn<D>,
    row: EndpointRow,
) -> Result<WebhookEndpoint, StoreError> {
    let names: Vec<String> = D::query(
        "SELECT event_type FROM webhook_subscriptions WHERE endpoint_id = $1 ORDER BY event_type",
    )
    .bind(row.id)
    .fetch_column(conn)
    .await?;
    let mut events = names
        .iter()
        .map(|n| n.parse::<EventType>().map_err(StoreError::Corrupt))
        .collect::<Result<Vec<_>, _>>()?;
    events.sort();
    Ok(WebhookEndpoint {
        id: row.id,
        url: row.url,
        description: row.description,
        events,
        enabled: row.enabled,
        disabled_reason: row.disabled_reason,
        failing_since: row.failing_since,
        previous_secret_expires_at: row.previous_secret_expires_at,
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}

/// Replaces the endpoint's subscriptions with `events`.
async fn subscribe<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    endpoint: Uuid,
    events: &[EventType],
) -> Result<(), StoreError> {
    D::query("DELETE FROM webhook_subscriptions WHERE endpoint_id = $1")
        .bind(endpoint)
        .execute(&mut **tx)
        .await?;
    let mut events = events.to_vec();
    events.sort();
    events.dedup();
    for event in events {
        D::query(
            "INSERT INTO webhook_subscriptions (organization_id, event_type, endpoint_id)
             VALUES ($1, $2, $3)",
        )
        .bind(org.0)
        .bind(event.as_str())
        .bind(endpoint)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// Whether the organization has endpoint `id` (locked until commit).
async fn owns<D: Dialect>(tx: &mut Tx<D>, org: OrgId, id: Uuid) -> Result<bool, StoreError> {
    let found: Option<Uuid> = D::query(AssertSqlSafe(format!(
        "SELECT id FROM webhook_endpoints WHERE organization_id = $1 AND id = $2 {}",
        D::ROW_LOCK
    )))
    .bind(org.0)
    .bind(id)
    .fetch_scalar_optional(&mut **tx)
    .await?;
    Ok(found.is_some())
}

/// The delivery `id` of the organization, with its event's type.
async fn delivery<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    id: Uuid,
) -> Result<Option<Delivery>, StoreError> {
    D::query(AssertSqlSafe(format!(
        "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries d
         JOIN webhook_events ev ON ev.id = d.event_id
         WHERE d.organization_id = $1 AND d.id = $2"
    )))
    .bind(org.0)
    .bind(id)
    .fetch_optional::<DeliveryRow>(conn)
    .await?
    .map(Delivery::try_from)
    .transpose()
}

#[async_trait]
impl<D: Dialect> WebhookStore for SqlStore<D> {
    async fn create_endpoint(
        &self,
        org: OrgId,
        endpoint: &NewEndpoint,
        now: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let mut tx = self.write_tx().await?;
        // Concurrent creations of one organization queue here, so the cap holds.
        crate::orgs::lock_org::<D>(&mut tx, org.0).await?;
        let count: i64 =
            D::query("SELECT count(*) FROM webhook_endpoints WHERE organization_id = $1")
                .bind(org.0)
                .fetch_scalar(&mut *tx)
                .await?;
        if count >= MAX_ENDPOINTS {
            return rollback_with(tx, Ok(None)).await;
        }
        let id = Uuid::now_v7();
        D::query(
            "INSERT INTO webhook_endpoints
               (id, organization_id, url, description, secret, enabled, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, TRUE, $6, $6)",
        )
        .bind(id)
        .bind(org.0)
        .bind(&endpoint.url)
        .bind(&endpoint.description)
        .bind(&endpoint.secret)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        subscribe(&mut tx, org, id, &endpoint.events).await?;
        let created = load::<D>(&mut tx, org, id).await?;
        tx.commit().await?;
        Ok(created)
    }

    async fn endpoints(&self, org: OrgId) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let mut conn = self.read().await?;
        let rows: Vec<EndpointRow> = D::query(AssertSqlSafe(format!(
            "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = $1
             ORDER BY created_at, id"
        )))
        .bind(org.0)
        .fetch_all(&mut conn)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            out.push(with_events::<D>(&mut conn, row).await?);
        }
        Ok(out)
    }

    async fn endpoint(&self, org: OrgId, id: Uuid) -> Result<Option<WebhookEndpoint>, StoreError> {
        load::<D>(&mut *self.read().await?, org, id).await
    }

    async fn update_endpoint(
        &self,
        org: OrgId,
        id: Uuid,
        change: &EndpointChange,
        now: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let mut tx = self.write_tx().await?;
        if !owns(&mut tx, org, id).await? {
            return rollback_with(tx, Ok(None)).await;
        }
        D::query(AssertSqlSafe(format!(
            "UPDATE webhook_endpoints SET
               url = coalesce($2, url),
               description = CASE WHEN $3 THEN {description} ELSE description END,
               enabled = coalesce($5, enabled),
               disabled_reason = CASE WHEN $5 IS NULL THEN disabled_reason ELSE NULL END,
               failing_since = CASE WHEN $5 THEN NULL ELSE failing_since END,
               updated_at = $6
             WHERE id = $1",
            description = D::typed("$4", "text"),
        )))
        .bind(id)
        .bind(&change.url)
        .bind(change.description.is_some())
        .bind(change.description.clone().flatten())
        .bind(change.enabled)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        if let Some(events) = &change.events {
            subscribe(&mut tx, org, id, events).await?;
        }
        let endpoint = load::<D>(&mut tx, org, id).await?;
        tx.commit().await?;
        Ok(endpoint)
    }

    async fn delete_endpoint(&self, org: OrgId, id: Uuid) -> Result<bool, StoreError> {
        let mut tx = self.write_tx().await?;
        if !owns(&mut tx, org, id).await? {
            return rollback_with(tx, Ok(false)).await;
        }
        for statement in [
            "DELETE FROM webhook_deliveries WHERE endpoint_id = $1",
            "DELETE FROM webhook_subscriptions WHERE endpoint_id = $1",
            "DELETE FROM webhook_endpoints WHERE id = $1",
        ] {
            D::query(statement).bind(id).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn rotate_secret(
        &self,
        org: OrgId,
        id: Uuid,
        secret: &str,
        overlap: Duration,
        now: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let mut tx = self.write_tx().await?;
        if !owns(&mut tx, org, id).await? {
            return rollback_with(tx, Ok(None)).await;
        }
        D::query(
            "UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $3,
               secret = $2, updated_at = $4
             WHERE id = $1",
        )
        .bind(id)
        .bind(secret)
        .bind(now + overlap)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let endpoint = load::<D>(&mut tx, org, id).await?;
        tx.commit().await?;
        Ok(endpoint)
    }

    async fn send_test_event(
        &self,
        org: OrgId,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError> {
        let mut tx = self.write_tx().await?;
        if !owns(&mut tx, org, id).await? {
            return rollback_with(tx, Ok(None)).await;
        }
        let event = Subscribers::only(org.0, EventType::WebhookTest, id)
            .emit(
                &mut tx,
                json!({ "endpoint_id": id, "message": "A test event from vidpulse" }),
                now,
            )
            .await?;
        tx.commit().await?;
        Ok(event)
    }

    async fn deliveries(
        &self,
        org: OrgId,
        endpoint: Uuid,
        status: Option<DeliveryStatus>,
        limit: i64,
        offset: i64,
    ) -> Result<Option<(Vec<Delivery>, i64)>, StoreError> {
        let mut conn = self.read().await?;
        if load::<D>(&mut conn, org, endpoint).await?.is_none() {
            return Ok(None);
        }
        let status = status.map(DeliveryStatus::as_str);
        let total: i64 = D::query(
            "SELECT count(*) FROM webhook_deliveries
             WHERE endpoint_id = $1 AND ($2 IS NULL OR status = $2)",
        )
        .bind(endpoint)
        .bind(status)
        .fetch_scalar(&mut *conn)
        .await?;
        let rows: Vec<DeliveryRow> = D::query(AssertSqlSafe(format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries d
             JOIN webhook_events ev ON ev.id = d.event_id
             WHERE d.endpoint_id = $1 AND ($2 IS NULL OR d.status = $2)
             ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4"
        )))
        .bind(endpoint)
        .bind(status)
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *conn)
        .await?;
        let items = rows
            .into_iter()
            .map(Delivery::try_from)
            .collect::<Result<_, _>>()?;
        Ok(Some((items, total)))
    }

    async fn replay_delivery(
        &self,
        org: OrgId,
        endpoint: Uuid,
        delivery_id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<Delivery>, StoreError> {
        let mut tx = self.write_tx().await?;
        if !owns(&mut tx, org, endpoint).await? {
            return rollback_with(tx, Ok(None)).await;
        }
        let event: Option<Uuid> = D::query(
            "SELECT event_id FROM webhook_deliveries
             WHERE id = $1 AND endpoint_id = $2 AND organization_id = $3",
        )
        .bind(delivery_id)
        .bind(endpoint)
        .bind(org.0)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        let Some(event) = event else {
            return rollback_with(tx, Ok(None)).await;
        };
        let id = queue_delivery(&mut tx, event, endpoint, org.0, now).await?;
        let queued = delivery::<D>(&mut tx, org, id).await?;
        tx.commit().await?;
        Ok(queued)
    }

    async fn replay_since(
        &self,
        org: OrgId,
        endpoint: Uuid,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, StoreError> {
        let mut tx = self.write_tx().await?;
        if !owns(&mut tx, org, endpoint).await? {
            return rollback_with(tx, Ok(None)).await;
        }
        let events: Vec<Uuid> = D::query(
            "SELECT ev.id FROM webhook_events ev
             WHERE ev.organization_id = $1 AND ev.created_at >= $2
               AND ev.event_type IN (
                 SELECT event_type FROM webhook_subscriptions WHERE endpoint_id = $3)
             ORDER BY ev.created_at, ev.id",
        )
        .bind(org.0)
        .bind(since)
        .bind(endpoint)
        .fetch_column(&mut *tx)
        .await?;
        for event in &events {
            queue_delivery(&mut tx, *event, endpoint, org.0, now).await?;
        }
        tx.commit().await?;
        Ok(Some(events.len() as u64))
    }

    async fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        let mut tx = self.write_tx().await?;
        let token = Uuid::new_v4();
        D::query(AssertSqlSafe(format!(
            "UPDATE webhook_deliveries SET lease_until = $2, lease_token = $3
             WHERE id IN (
               SELECT id FROM webhook_deliveries
               WHERE status = 'pending' AND next_attempt_at <= $1
                 AND (lease_until IS NULL OR lease_until < $1)
                 AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled)
               ORDER BY next_attempt_at, id LIMIT $4
               {})",
            D::CLAIM_LOCK
        )))
        .bind(now)
        .bind(now + lease)
        .bind(token)
        .bind(limit)
        .execute(&mut *tx)
        .await?;
        let rows: Vec<DueRow> = D::query(
            "SELECT d.id, d.lease_token, d.event_id, ev.body, d.endpoint_id, e.url, e.secret,
                    e.previous_secret, e.previous_secret_expires_at, d.attempts
             FROM webhook_deliveries d
             JOIN webhook_events ev ON ev.id = d.event_id
             JOIN webhook_endpoints e ON e.id = d.endpoint_id
             WHERE d.lease_token = $1
             ORDER BY d.next_attempt_at, d.id",
        )
        .bind(token)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let mut secrets = vec![r.secret];
                if let (Some(previous), Some(until)) =
                    (r.previous_secret, r.previous_secret_expires_at)
                    && until > now
                {
                    secrets.push(previous);
                }
                DueDelivery {
                    id: r.id,
                    lease_token: r.lease_token,
                    event_id: r.event_id,
                    body: r.body,
                    endpoint_id: r.endpoint_id,
                    url: r.url,
                    secrets,
                    attempts: r.attempts,
                }
            })
            .collect())
    }

    async fn finish_delivery(
        &self,
        due: &DueDelivery,
        attempt: &Attempt,
        disable_after: Duration,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write_tx().await?;
        let delivered = attempt.error.is_none();
        let status = match (delivered, attempt.retry_at) {
            (true, _) => DeliveryStatus::Delivered,
            (false, Some(_)) => DeliveryStatus::Pending,
            (false, None) => DeliveryStatus::Failed,
        };
        let held = D::query(
            "UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = $3,
               last_status_code = $4, last_error = $5, last_latency_ms = $6, status = $7,
               next_attempt_at = $8, delivered_at = $9, lease_until = NULL, lease_token = NULL
             WHERE id = $1 AND lease_token = $2",
        )
        .bind(due.id)
        .bind(due.lease_token)
        .bind(attempt.at)
        .bind(attempt.status_code)
        .bind(&attempt.error)
        .bind(attempt.latency_ms)
        .bind(status.as_str())
        .bind(if delivered { None } else { attempt.retry_at })
        .bind(delivered.then_some(attempt.at))
        .execute(&mut *tx)
        .await?
            == 1;
        if held {
            if delivered {
                D::query("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1")
                    .bind(due.endpoint_id)
                    .execute(&mut *tx)
                    .await?;
            } else {
                D::query(
                    "UPDATE webhook_endpoints SET
                       failing_since = coalesce(failing_since, $2),
                       enabled = CASE WHEN coalesce(failing_since, $2) <= $3 THEN FALSE ELSE enabled END,
                       disabled_reason = CASE WHEN coalesce(failing_since, $2) <= $3
                         THEN $4 ELSE disabled_reason END
                     WHERE id = $1",
                )
                .bind(due.endpoint_id)
                .bind(attempt.at)
                .bind(attempt.at - disable_after)
                .bind(format!(
                    "every delivery failed for {} days",
                    disable_after.num_days()
                ))
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(held)
    }

    async fn sweep_completed_tracking(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        const CURSOR: &str = "tracking_completed";
        let mut tx = self.write_tx().await?;
        // One sweeper at a time: the cursor row is locked until commit.
        let swept: Option<DateTime<Utc>> = D::query(AssertSqlSafe(format!(
            "SELECT swept_until FROM webhook_sweeps WHERE name = $1 {}",
            D::ROW_LOCK
        )))
        .bind(CURSOR)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        let Some(from) = swept else {
            // The first sweep starts the cursor: windows that ended before
            // the service could send anything are not announced.
            D::query(
                "INSERT INTO webhook_sweeps (name, swept_until) VALUES ($1, $2)
                 ON CONFLICT (name) DO NOTHING",
            )
            .bind(CURSOR)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            return Ok(0);
        };
        if from >= now {
            return rollback_with(tx, Ok(0)).await;
        }
        let ended: Vec<EndedTracking> = D::query(
            "SELECT tv.organization_id, tv.id AS video_id, pv.external_id, pv.platform,
                coalesce(tv.own_url, pv.url) AS url,
                    tv.tracking_ends_at
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id IN (
                 SELECT s.organization_id FROM webhook_subscriptions s WHERE s.event_type = $3)
               AND tv.tracking_ends_at > $1 AND tv.tracking_ends_at <= $2
             ORDER BY tv.tracking_ends_at, tv.id",
        )
        .bind(from)
        .bind(now)
        .bind(EventType::VideoTrackingCompleted.as_str())
        .fetch_all(&mut *tx)
        .await?;
        for video in &ended {
            let mut data = video.tracker.data();
            data["tracking_ended_at"] = json!(
                video
                    .tracking_ends_at
                    .to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
            );
            Subscribers::of(
                &mut tx,
                video.tracker.organization_id,
                EventType::VideoTrackingCompleted,
            )
            .await?
            .emit(&mut tx, data, video.tracking_ends_at)
            .await?;
        }
        D::query("UPDATE webhook_sweeps SET swept_until = $2 WHERE name = $1")
            .bind(CURSOR)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ended.len() as u64)
    }

    async fn prune_webhook_events(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        const OLD: &str = "SELECT ev.id FROM webhook_events ev
             WHERE ev.created_at < $1 AND NOT EXISTS (
               SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status = 'pending')";
        let mut tx = self.write_tx().await?;
        D::query(AssertSqlSafe(format!(
            "DELETE FROM webhook_deliveries WHERE event_id IN ({OLD})"
        )))
        .bind(before)
        .execute(&mut *tx)
        .await?;
        let pruned = D::query(AssertSqlSafe(format!(
            "DELETE FROM webhook_events WHERE id IN ({OLD})"
        )))
        .bind(before)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(pruned)
    }

    async fn webhook_queue(&self) -> Result<WebhookQueue, StoreError> {
        let (pending, oldest_pending_at): (i64, Option<DateTime<Utc>>) = D::query(
            "SELECT count(*), min(d.created_at) FROM webhook_deliveries d
             JOIN webhook_endpoints e ON e.id = d.endpoint_id
             WHERE d.status = 'pending' AND e.enabled",
        )
        .fetch_one(&mut *self.read().await?)
        .await?;
        Ok(WebhookQueue {
            pending,
            oldest_pending_at,
        })
    }
}

/// A tracking whose window ended.
#[derive(sqlx::FromRow)]
struct EndedTracking {
    #[sqlx(flatten)]
    tracker: super::emit::Tracker,
    tracking_ends_at: DateTime<Utc>,
}
