//! Alert rules, stored: the one implementation of [`AlertStore`] for both
//! backends.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::webhooks::EventType;

use super::{
    AlertCreator, AlertEvent, AlertRefusal, AlertRule, AlertRuleChanges, AlertSend, AlertStore,
    AlertVideo, DueAlertSend, MAX_RULES, NewAlertEvent, NewAlertRule, ViewsAt,
};
use crate::StoreError;
use crate::backend::Db;
use crate::sql::{Conn, Dialect, SqlStore, rollback_with};
use crate::webhooks::Subscribers;

/// A rule's row.
#[derive(sqlx::FromRow)]
struct RuleRow {
    id: Uuid,
    organization_id: Uuid,
    campaign_id: Option<Uuid>,
    campaign_name: Option<String>,
    name: String,
    kind: String,
    params: String,
    channels: String,
    enabled: bool,
    evaluated_at: Option<DateTime<Utc>>,
    last_fired_at: Option<DateTime<Utc>>,
    events: i64,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

/// JSON text as stored (written by the store, so always valid; `null` else).
fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

impl From<RuleRow> for AlertRule {
    fn from(r: RuleRow) -> Self {
        Self {
            id: r.id,
            organization_id: OrgId(r.organization_id),
            campaign_id: r.campaign_id,
            campaign_name: r.campaign_name,
            name: r.name,
            kind: r.kind,
            params: json(&r.params),
            channels: json(&r.channels),
            enabled: r.enabled,
            evaluated_at: r.evaluated_at,
            last_fired_at: r.last_fired_at,
            events: r.events,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// The columns of [`RuleRow`], from `alert_rules r`.
const SELECT_RULE: &str = "SELECT r.id, r.organization_id, r.campaign_id, c.name AS campaign_name,
       r.name, r.kind, r.params, r.channels, r.enabled, r.evaluated_at,
       (SELECT e.fired_at FROM alert_events e WHERE e.rule_id = r.id
        ORDER BY e.fired_at DESC LIMIT 1) AS last_fired_at,
       (SELECT count(*) FROM alert_events e WHERE e.rule_id = r.id) AS events,
       r.created_at, r.updated_at
FROM alert_rules r LEFT JOIN campaigns c ON c.id = r.campaign_id";

/// `org`'s rule `id` read on `conn`.
async fn read_rule<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    id: Uuid,
) -> Result<Option<AlertRule>, StoreError> {
    let row: Option<RuleRow> = D::query(AssertSqlSafe(format!(
        "{SELECT_RULE} WHERE r.organization_id = $1 AND r.id = $2"
    )))
    .bind(org.0)
    .bind(id)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(AlertRule::from))
}

/// Whether `org` has campaign `id`.
async fn has_campaign<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    id: Uuid,
) -> Result<bool, StoreError> {
    let found: Option<Uuid> =
        D::query("SELECT id FROM campaigns WHERE organization_id = $1 AND id = $2")
            .bind(org.0)
            .bind(id)
            .fetch_scalar_optional(conn)
            .await?;
    Ok(found.is_some())
}

/// The columns of [`AlertVideo`], from `tracked_videos tv` joined to
/// `platform_videos pv`: the platform's title, author and publication
/// first, the tracking's own address first, as in the video record.
const SELECT_VIDEO: &str = "SELECT tv.id AS video_id, pv.id AS catalog_id, pv.platform,
       coalesce(pv.title, tv.own_title) AS title,
       coalesce(pv.author_username, tv.own_author) AS author,
       coalesce(tv.own_url, pv.url) AS url,
       coalesce(pv.published_at, tv.own_published_at) AS published_at,
       tv.tracking_started_at, pv.gone_at
FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id";

/// A video's readings the organization sees: the platform's since its
/// tracking started (`$1` catalog id, `$2` tracking start) and its own
/// imports (`$3` organization), with views; `own` orders the platform's
/// reading of an instant before an import of the same instant, which the
/// video record shows.
const VISIBLE_READINGS: &str = "SELECT captured_at, views, 0 AS own FROM observations
       WHERE platform_video_id = $1 AND captured_at >= $2 AND views IS NOT NULL
     UNION ALL
     SELECT captured_at, views, 1 AS own FROM imported_observations
       WHERE organization_id = $3 AND platform_video_id = $1 AND views IS NOT NULL";

/// An event's row.
#[derive(sqlx::FromRow)]
struct EventRow {
    id: Uuid,
    rule_id: Uuid,
    subject: String,
    threshold_key: String,
    fired_at: DateTime<Utc>,
    message: String,
    details: String,
}

/// A send's row.
#[derive(sqlx::FromRow)]
struct SendRow {
    event_id: Uuid,
    channel: String,
    target: String,
    status: String,
    attempts: i64,
    last_error: Option<String>,
    sent_at: Option<DateTime<Utc>>,
}

/// A claimed send's row.
#[derive(sqlx::FromRow)]
struct DueRow {
    id: Uuid,
    lease_token: Uuid,
    channel: String,
    target: String,
    attempts: i64,
    message: String,
}

/// The e-mail subject of a firing's `message`: its first line (the
/// firing's title, [`NewAlertEvent::title`]). The details are the
/// caller's figures, kept as given, so the title is not stored beside them.
fn subject(message: &str) -> String {
    match message.lines().next().map(str::trim) {
        Some(line) if !line.is_empty() => line.to_owned(),
        _ => "vidpulse alert".to_owned(),
    }
}

#[async_trait]
impl<D: Db> AlertStore for SqlStore<D> {
    async fn create_alert_rule(
        &self,
        org: OrgId,
        new: NewAlertRule,
        now: DateTime<Utc>,
    ) -> Result<Result<AlertRule, AlertRefusal>, StoreError> {
        let mut tx = self.write_tx().await?;
        // Concurrent creations of one organization queue here, so the cap holds.
        crate::orgs::lock_org::<D>(&mut tx, org.0).await?;
        let count: i64 = D::query("SELECT count(*) FROM alert_rules WHERE organization_id = $1")
            .bind(org.0)
            .fetch_scalar(&mut *tx)
            .await?;
        if count >= MAX_RULES {
            return rollback_with(tx, Ok(Err(AlertRefusal::TooMany))).await;
        }
        if let Some(campaign) = new.campaign_id
            && !has_campaign::<D>(&mut tx, org, campaign).await?
        {
            return rollback_with(tx, Ok(Err(AlertRefusal::CampaignNotFound))).await;
        }
        let id = Uuid::now_v7();
        D::query(
            "INSERT INTO alert_rules (id, organization_id, campaign_id, name, kind, params,
                                      channels, enabled, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
        )
        .bind(id)
        .bind(org.0)
        .bind(new.campaign_id)
        .bind(new.name.as_str())
        .bind(new.kind.as_str())
        .bind(new.params.to_string())
        .bind(new.channels.to_string())
        .bind(new.enabled)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let rule = read_rule::<D>(&mut tx, org, id).await?;
        tx.commit().await?;
        Ok(rule.ok_or(AlertRefusal::NotFound))
    }

    async fn alert_rules(&self, org: OrgId) -> Result<Vec<AlertRule>, StoreError> {
        let rows: Vec<RuleRow> = D::query(AssertSqlSafe(format!(
            "{SELECT_RULE} WHERE r.organization_id = $1 ORDER BY r.created_at, r.id"
        )))
        .bind(org.0)
        .fetch_all(&mut *self.read().await?)
        .await?;
        Ok(rows.into_iter().map(AlertRule::from).collect())
    }

    async fn alert_rule(&self, org: OrgId, id: Uuid) -> Result<Option<AlertRule>, StoreError> {
        read_rule::<D>(&mut *self.read().await?, org, id).await
    }

    async fn update_alert_rule(
        &self,
        org: OrgId,
        id: Uuid,
        changes: AlertRuleChanges,
        now: DateTime<Utc>,
    ) -> Result<Result<AlertRule, AlertRefusal>, StoreError> {
        let mut tx = self.write_tx().await?;
        let Some(current) = read_rule::<D>(&mut tx, org, id).await? else {
            return rollback_with(tx, Ok(Err(AlertRefusal::NotFound))).await;
        };
        if let Some(Some(campaign)) = changes.campaign_id
            && !has_campaign::<D>(&mut tx, org, campaign).await?
        {
            return rollback_with(tx, Ok(Err(AlertRefusal::CampaignNotFound))).await;
        }
        D::query(
            "UPDATE alert_rules SET name = $3, campaign_id = $4, params = $5, channels = $6,
                                    enabled = $7, updated_at = $8
             WHERE organization_id = $1 AND id = $2",
        )
        .bind(org.0)
        .bind(id)
        .bind(changes.name.unwrap_or(current.name))
        .bind(changes.campaign_id.unwrap_or(current.campaign_id))
        .bind(changes.params.unwrap_or(current.params).to_string())
        .bind(changes.channels.unwrap_or(current.channels).to_string())
        .bind(changes.enabled.unwrap_or(current.enabled))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let rule = read_rule::<D>(&mut tx, org, id).await?;
        tx.commit().await?;
        Ok(rule.ok_or(AlertRefusal::NotFound))
    }

    async fn delete_alert_rule(&self, org: OrgId, id: Uuid) -> Result<bool, StoreError> {
        let mut tx = self.write_tx().await?;
        let done = D::query("DELETE FROM alert_rules WHERE organization_id = $1 AND id = $2")
            .bind(org.0)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done > 0)
    }

    async fn alert_events(
        &self,
        org: OrgId,
        rule: Uuid,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<AlertEvent>, i64), StoreError> {
        let mut conn = self.read().await?;
        let rows: Vec<EventRow> = D::query(
            "SELECT id, rule_id, subject, threshold_key, fired_at, message, details
             FROM alert_events WHERE organization_id = $1 AND rule_id = $2
             ORDER BY fired_at DESC, id DESC LIMIT $3 OFFSET $4",
        )
        .bind(org.0)
        .bind(rule)
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *conn)
        .await?;
        let total: i64 = D::query(
            "SELECT count(*) FROM alert_events WHERE organization_id = $1 AND rule_id = $2",
        )
        .bind(org.0)
        .bind(rule)
        .fetch_scalar(&mut *conn)
        .await?;
        let sends: Vec<SendRow> = D::query(
            "SELECT s.event_id, s.channel, s.target, s.status, s.attempts, s.last_error, s.sent_at
             FROM alert_sends s JOIN alert_events e ON e.id = s.event_id
             WHERE e.organization_id = $1 AND e.rule_id = $2
             ORDER BY s.channel, s.target",
        )
        .bind(org.0)
        .bind(rule)
        .fetch_all(&mut *conn)
        .await?;
        let events = rows
            .into_iter()
            .map(|r| AlertEvent {
                sends: sends
                    .iter()
                    .filter(|s| s.event_id == r.id)
                    .map(|s| AlertSend {
                        channel: s.channel.clone(),
                        target: s.target.clone(),
                        status: s.status.clone(),
                        attempts: s.attempts,
                        last_error: s.last_error.clone(),
                        sent_at: s.sent_at,
                    })
                    .collect(),
                id: r.id,
                rule_id: r.rule_id,
                subject: r.subject,
                threshold_key: r.threshold_key,
                fired_at: r.fired_at,
                message: r.message,
                details: json(&r.details),
            })
            .collect();
        Ok((events, total))
    }

    async fn enabled_alert_rules(&self) -> Result<Vec<AlertRule>, StoreError> {
        let rows: Vec<RuleRow> = D::query(AssertSqlSafe(format!(
            "{SELECT_RULE} WHERE r.enabled ORDER BY r.created_at, r.id"
        )))
        .fetch_all(&mut *self.read().await?)
        .await?;
        Ok(rows.into_iter().map(AlertRule::from).collect())
    }

    async fn alert_rule_evaluated(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut tx = self.write_tx().await?;
        D::query("UPDATE alert_rules SET evaluated_at = $2 WHERE id = $1")
            .bind(id)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn alert_videos(
        &self,
        org: OrgId,
        campaign: Option<Uuid>,
        since: DateTime<Utc>,
    ) -> Result<Vec<AlertVideo>, StoreError> {
        let rows: Vec<AlertVideo> = D::query(AssertSqlSafe(format!(
            "{SELECT_VIDEO}
             WHERE tv.organization_id = $1
               AND ({campaign} IS NULL OR tv.campaign =
                    (SELECT c.name FROM campaigns c WHERE c.organization_id = $1 AND c.id = $2))
               AND (pv.gone_at > $3 OR EXISTS (
                    SELECT 1 FROM daily_closes dc
                    WHERE dc.platform_video_id = pv.id AND dc.organization_id = $1
                      AND dc.last_at > $3))
             ORDER BY tv.id",
            campaign = D::typed("$2", "uuid"),
        )))
        .bind(org.0)
        .bind(campaign)
        .bind(since)
        .fetch_all(&mut *self.read().await?)
        .await?;
        Ok(rows)
    }

    async fn alert_creator_videos(
        &self,
        org: OrgId,
        platform: &str,
        author: &str,
    ) -> Result<Vec<AlertVideo>, StoreError> {
        let rows: Vec<AlertVideo> = D::query(AssertSqlSafe(format!(
            "{SELECT_VIDEO}
             WHERE tv.organization_id = $1 AND pv.platform = $2
               AND lower(coalesce(pv.author_username, tv.own_author)) = lower($3)
             ORDER BY tv.id"
        )))
        .bind(org.0)
        .bind(platform)
        .bind(author)
        .fetch_all(&mut *self.read().await?)
        .await?;
        Ok(rows)
    }

    async fn alert_views_before(
        &self,
        org: OrgId,
        video: &AlertVideo,
        at: DateTime<Utc>,
    ) -> Result<Option<ViewsAt>, StoreError> {
        let row: Option<ViewsAt> = D::query(AssertSqlSafe(format!(
            "SELECT captured_at, views FROM ({VISIBLE_READINGS}) r
             WHERE captured_at <= $4 ORDER BY captured_at DESC, own LIMIT 1"
        )))
        .bind(video.catalog_id)
        .bind(video.tracking_started_at)
        .bind(org.0)
        .bind(at)
        .fetch_optional(&mut *self.read().await?)
        .await?;
        Ok(row)
    }

    async fn alert_first_views(
        &self,
        org: OrgId,
        video: &AlertVideo,
    ) -> Result<Option<ViewsAt>, StoreError> {
        let row: Option<ViewsAt> = D::query(AssertSqlSafe(format!(
            "SELECT captured_at, views FROM ({VISIBLE_READINGS}) r
             ORDER BY captured_at, own LIMIT 1"
        )))
        .bind(video.catalog_id)
        .bind(video.tracking_started_at)
        .bind(org.0)
        .fetch_optional(&mut *self.read().await?)
        .await?;
        Ok(row)
    }

    async fn alert_creators(
        &self,
        org: OrgId,
        campaign: Option<Uuid>,
        since: DateTime<Utc>,
    ) -> Result<Vec<AlertCreator>, StoreError> {
        let rows: Vec<AlertCreator> = D::query(AssertSqlSafe(format!(
            "SELECT cr.id AS creator_id, cr.platform, cr.username,
                    coalesce(
                      (SELECT f.follower_count FROM creator_follower_days f
                       WHERE f.creator_id = cr.id AND f.read_at <= $3
                       ORDER BY f.day DESC LIMIT 1),
                      (SELECT f.follower_count FROM creator_follower_days f
                       WHERE f.creator_id = cr.id ORDER BY f.day LIMIT 1)) AS base_followers,
                    l.follower_count AS latest_followers, l.read_at AS latest_at
             FROM tracked_accounts ta
             JOIN creators cr ON cr.id = ta.creator_id
             JOIN creator_follower_days l ON l.creator_id = cr.id
              AND l.day = (SELECT max(m.day) FROM creator_follower_days m
                           WHERE m.creator_id = cr.id)
             WHERE ta.organization_id = $1 AND l.read_at > $3
               AND ({campaign} IS NULL OR ta.campaign =
                    (SELECT c.name FROM campaigns c WHERE c.organization_id = $1 AND c.id = $2))
             ORDER BY cr.id",
            campaign = D::typed("$2", "uuid"),
        )))
        .bind(org.0)
        .bind(campaign)
        .bind(since)
        .fetch_all(&mut *self.read().await?)
        .await?;
        Ok(rows)
    }

    async fn fire_alert(
        &self,
        event: NewAlertEvent,
        now: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError> {
        let mut tx = self.write_tx().await?;
        // The firing first: a rule fires once per subject and threshold,
        // and only the writer of the row sends.
        let id: Option<Uuid> = D::query(
            "INSERT INTO alert_events (id, rule_id, organization_id, subject, threshold_key,
                                       fired_at, message, details)
             SELECT $1, r.id, r.organization_id, $4, $5, $6, $7, $8
             FROM alert_rules r WHERE r.id = $2 AND r.organization_id = $3
             ON CONFLICT (rule_id, subject, threshold_key) DO NOTHING
             RETURNING id",
        )
        .bind(Uuid::now_v7())
        .bind(event.rule_id)
        .bind(event.organization_id.0)
        .bind(event.subject.as_str())
        .bind(event.threshold_key.as_str())
        .bind(now)
        .bind(event.message.as_str())
        .bind(event.details.to_string())
        .fetch_scalar_optional(&mut *tx)
        .await?;
        let Some(id) = id else {
            return rollback_with(tx, Ok(None)).await;
        };
        for (channel, target) in &event.sends {
            D::query(
                "INSERT INTO alert_sends (id, event_id, organization_id, channel, target, status,
                                          attempts, next_attempt_at, created_at)
                 VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)
                 ON CONFLICT (event_id, channel, target) DO NOTHING",
            )
            .bind(Uuid::now_v7())
            .bind(id)
            .bind(event.organization_id.0)
            .bind(channel.as_str())
            .bind(target.as_str())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        if let Some(data) = event.webhook {
            Subscribers::of(&mut tx, event.organization_id.0, EventType::AlertTriggered)
                .await?
                .emit(&mut tx, data, now)
                .await?;
            D::query(
                "INSERT INTO alert_sends (id, event_id, organization_id, channel, target, status,
                                          attempts, sent_at, created_at)
                 VALUES ($1, $2, $3, 'webhooks', '', 'sent', 1, $4, $4)",
            )
            .bind(Uuid::now_v7())
            .bind(id)
            .bind(event.organization_id.0)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Some(id))
    }

    async fn claim_alert_sends(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueAlertSend>, StoreError> {
        let mut tx = self.write_tx().await?;
        let token = Uuid::new_v4();
        D::query(AssertSqlSafe(format!(
            "UPDATE alert_sends SET lease_until = $2, lease_token = $3
             WHERE id IN (
               SELECT id FROM alert_sends
               WHERE status = 'pending' AND next_attempt_at <= $1
                 AND (lease_until IS NULL OR lease_until < $1)
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
            "SELECT s.id, s.lease_token, s.channel, s.target, s.attempts, e.message
             FROM alert_sends s JOIN alert_events e ON e.id = s.event_id
             WHERE s.lease_token = $1 ORDER BY s.next_attempt_at, s.id",
        )
        .bind(token)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(rows
            .into_iter()
            .map(|r| DueAlertSend {
                id: r.id,
                lease_token: r.lease_token,
                channel: r.channel,
                target: r.target,
                attempts: r.attempts,
                title: subject(&r.message),
                message: r.message,
            })
            .collect())
    }

    async fn finish_alert_send(
        &self,
        due: &DueAlertSend,
        outcome: Result<(), (String, Option<DateTime<Utc>>)>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (status, error, next, sent_at) = match outcome {
            Ok(()) => ("sent", None, None, Some(now)),
            Err((error, Some(next))) => ("pending", Some(error), Some(next), None),
            Err((error, None)) => ("failed", Some(error), None, None),
        };
        let mut tx = self.write_tx().await?;
        D::query(AssertSqlSafe(format!(
            "UPDATE alert_sends SET status = $3, attempts = attempts + 1,
               last_error = coalesce({error}, last_error), next_attempt_at = $5, sent_at = $6,
               lease_until = NULL, lease_token = NULL
             WHERE id = $1 AND lease_token = $2",
            error = D::typed("$4", "text"),
        )))
        .bind(due.id)
        .bind(due.lease_token)
        .bind(status)
        .bind(error)
        .bind(next)
        .bind(sent_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}
