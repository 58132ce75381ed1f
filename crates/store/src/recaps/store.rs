//! Recaps, stored: the one implementation of [`RecapStore`] for both
//! backends.

use async_trait::async_trait;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::analytics::DateRange;
use vidpulse_domain::{CampaignId, OrgId, UserId};

use super::{
    ChatTarget, DueRecap, Frequency, NewRecap, RecapChange, RecapOutcome, RecapRefusal, RecapStore,
    RecapSubscription, RecapTarget,
};
use crate::StoreError;
use crate::backend::Db;
use crate::error::corrupt;
use crate::sql::{Conn, Dialect, SqlStore, rollback_with};

/// The scope key of an organization-wide recap.
const ORGANIZATION_SCOPE: &str = "organization";

/// The unique scope key of `campaign` (`organization` when `None`).
fn scope_key(campaign: Option<CampaignId>) -> String {
    campaign.map_or_else(|| ORGANIZATION_SCOPE.to_owned(), |c| c.0.to_string())
}

/// A subscription row with its last send.
#[derive(sqlx::FromRow)]
struct RecapRow {
    id: Uuid,
    user_id: Option<Uuid>,
    chat_kind: Option<String>,
    chat_url: Option<String>,
    campaign_id: Option<Uuid>,
    frequency: String,
    created_by: Option<Uuid>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    last_period: Option<NaiveDate>,
    last_sent_at: Option<DateTime<Utc>>,
}

/// `s` as a frequency, or the store is corrupt.
fn frequency(s: &str) -> Result<Frequency, StoreError> {
    Frequency::parse(s).ok_or_else(|| corrupt(format!("recap frequency {s}")))
}

impl TryFrom<RecapRow> for RecapSubscription {
    type Error = StoreError;
    fn try_from(r: RecapRow) -> Result<Self, StoreError> {
        let target = match (r.user_id, r.chat_kind, r.chat_url) {
            (Some(user), _, _) => RecapTarget::Email(UserId(user)),
            (None, Some(kind), Some(url)) => RecapTarget::Chat(ChatTarget { kind, url }),
            _ => return Err(corrupt(format!("recap {} has no target", r.id))),
        };
        Ok(Self {
            id: r.id,
            target,
            campaign_id: r.campaign_id.map(CampaignId),
            frequency: frequency(&r.frequency)?,
            created_by: r.created_by.map(UserId),
            created_at: r.created_at,
            updated_at: r.updated_at,
            last_sent: r.last_period.zip(r.last_sent_at),
        })
    }
}

/// The columns of [`RecapRow`] from `recap_subscriptions s`.
const SELECT_RECAP: &str = "SELECT s.id, s.user_id, s.chat_kind, s.chat_url, s.campaign_id,
       s.frequency, s.created_by, s.created_at, s.updated_at,
       (SELECT r.period_start FROM recap_sends r WHERE r.subscription_id = s.id
          AND r.status = 'sent' ORDER BY r.period_start DESC LIMIT 1) AS last_period,
       (SELECT r.sent_at FROM recap_sends r WHERE r.subscription_id = s.id
          AND r.status = 'sent' ORDER BY r.period_start DESC LIMIT 1) AS last_sent_at
FROM recap_subscriptions s";

/// Organization `$1`'s subscription `$2`.
const ONE_RECAP: &str = "WHERE s.organization_id = $1 AND s.id = $2";

/// Member `$2`'s e-mail recap of scope `$3` and frequency `$4` in organization `$1`.
const MEMBER_RECAP: &str = "WHERE s.organization_id = $1 AND s.user_id = $2
  AND s.scope_key = $3 AND s.frequency = $4";

/// `org`'s subscription `id`, read on `conn`.
async fn read<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    id: Uuid,
) -> Result<Option<RecapSubscription>, StoreError> {
    let row: Option<RecapRow> = D::query(AssertSqlSafe(format!("{SELECT_RECAP} {ONE_RECAP}")))
        .bind(org.0)
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.map(RecapSubscription::try_from).transpose()
}

/// The e-mail recap of `user` with this scope and frequency, other than `except`.
async fn member_recap<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    user: UserId,
    scope: &str,
    frequency: Frequency,
    except: Option<Uuid>,
) -> Result<Option<RecapSubscription>, StoreError> {
    let rows: Vec<RecapRow> = D::query(AssertSqlSafe(format!("{SELECT_RECAP} {MEMBER_RECAP}")))
        .bind(org.0)
        .bind(user.0)
        .bind(scope)
        .bind(frequency.as_str())
        .fetch_all(conn)
        .await?;
    rows.into_iter()
        .find(|r| Some(r.id) != except)
        .map(RecapSubscription::try_from)
        .transpose()
}

/// Whether `org` has campaign `id`.
async fn has_campaign<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    id: CampaignId,
) -> Result<bool, StoreError> {
    let found: Option<Uuid> =
        D::query("SELECT id FROM campaigns WHERE organization_id = $1 AND id = $2")
            .bind(org.0)
            .bind(id.0)
            .fetch_scalar_optional(conn)
            .await?;
    Ok(found.is_some())
}

/// A claimed send's row.
#[derive(sqlx::FromRow)]
struct DueRow {
    subscription_id: Uuid,
    lease_token: Uuid,
    period_start: NaiveDate,
    period_end: NaiveDate,
    attempts: i64,
    organization_id: Uuid,
    org_name: String,
    campaign_id: Option<Uuid>,
    campaign_name: Option<String>,
    frequency: String,
    chat_kind: Option<String>,
    chat_url: Option<String>,
    email: Option<String>,
    member_left: bool,
    language: String,
}

impl TryFrom<DueRow> for DueRecap {
    type Error = StoreError;
    fn try_from(r: DueRow) -> Result<Self, StoreError> {
        Ok(Self {
            lease_token: r.lease_token,
            subscription_id: r.subscription_id,
            org: OrgId(r.organization_id),
            org_name: r.org_name,
            campaign: r.campaign_id.map(CampaignId).zip(r.campaign_name),
            frequency: frequency(&r.frequency)?,
            period: DateRange {
                from: r.period_start,
                to: r.period_end,
            },
            email: r.email.filter(|_| !r.member_left),
            chat: r
                .chat_kind
                .zip(r.chat_url)
                .map(|(kind, url)| ChatTarget { kind, url }),
            member_left: r.member_left,
            language: r.language,
            attempts: r.attempts,
        })
    }
}

#[async_trait]
impl<D: Db> RecapStore for SqlStore<D> {
    async fn create_recap(
        &self,
        org: OrgId,
        new: NewRecap,
        now: DateTime<Utc>,
    ) -> Result<Result<RecapSubscription, RecapRefusal>, StoreError> {
        let mut tx = self.write_tx().await?;
        if let Some(campaign) = new.campaign_id
            && !has_campaign::<D>(&mut tx, org, campaign).await?
        {
            return rollback_with(tx, Ok(Err(RecapRefusal::CampaignNotFound))).await;
        }
        let (user, chat) = match &new.target {
            RecapTarget::Email(user) => (Some(user.0), None),
            RecapTarget::Chat(chat) => (None, Some(chat)),
        };
        let id = Uuid::now_v7();
        let scope = scope_key(new.campaign_id);
        let inserted: Option<Uuid> = D::query(
            "INSERT INTO recap_subscriptions (id, organization_id, user_id, chat_kind, chat_url,
                 campaign_id, scope_key, frequency, created_by, created_at, updated_at)
             SELECT $1, o.id, $3, $4, $5, $6, $7, $8, $9, $10, $10
             FROM organizations o WHERE o.id = $2
             ON CONFLICT DO NOTHING
             RETURNING id",
        )
        .bind(id)
        .bind(org.0)
        .bind(user)
        .bind(chat.map(|c| c.kind.as_str()))
        .bind(chat.map(|c| c.url.as_str()))
        .bind(new.campaign_id.map(|c| c.0))
        .bind(scope.as_str())
        .bind(new.frequency.as_str())
        .bind(new.created_by.map(|u| u.0))
        .bind(now)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        let answer = match (inserted, &new.target) {
            (Some(id), _) => read::<D>(&mut tx, org, id)
                .await?
                .ok_or(RecapRefusal::NotFound),
            (None, RecapTarget::Email(user)) => {
                member_recap::<D>(&mut tx, org, *user, &scope, new.frequency, None)
                    .await?
                    .map_or(Err(RecapRefusal::NotFound), |r| {
                        Err(RecapRefusal::Exists(Box::new(r)))
                    })
            }
            (None, RecapTarget::Chat(_)) => Err(RecapRefusal::NotFound),
        };
        tx.commit().await?;
        Ok(answer)
    }

    async fn recaps_of(
        &self,
        org: OrgId,
        user: Option<UserId>,
    ) -> Result<Vec<RecapSubscription>, StoreError> {
        let mut conn = self.read().await?;
        let rows: Vec<RecapRow> = match user {
            Some(user) => {
                D::query(AssertSqlSafe(format!(
                    "{SELECT_RECAP} WHERE s.organization_id = $1
                         AND (s.user_id = $2 OR s.user_id IS NULL)
                     ORDER BY s.created_at, s.id"
                )))
                .bind(org.0)
                .bind(user.0)
                .fetch_all(&mut *conn)
                .await?
            }
            None => {
                D::query(AssertSqlSafe(format!(
                    "{SELECT_RECAP} WHERE s.organization_id = $1 ORDER BY s.created_at, s.id"
                )))
                .bind(org.0)
                .fetch_all(&mut *conn)
                .await?
            }
        };
        rows.into_iter().map(RecapSubscription::try_from).collect()
    }

    async fn recap(&self, org: OrgId, id: Uuid) -> Result<Option<RecapSubscription>, StoreError> {
        read::<D>(&mut *self.read().await?, org, id).await
    }

    async fn update_recap(
        &self,
        org: OrgId,
        id: Uuid,
        change: RecapChange,
        now: DateTime<Utc>,
    ) -> Result<Result<RecapSubscription, RecapRefusal>, StoreError> {
        let mut tx = self.write_tx().await?;
        let Some(current) = read::<D>(&mut tx, org, id).await? else {
            return rollback_with(tx, Ok(Err(RecapRefusal::NotFound))).await;
        };
        let campaign = change.campaign_id.unwrap_or(current.campaign_id);
        if let Some(c) = campaign
            && change.campaign_id.is_some()
            && !has_campaign::<D>(&mut tx, org, c).await?
        {
            return rollback_with(tx, Ok(Err(RecapRefusal::CampaignNotFound))).await;
        }
        let frequency = change.frequency.unwrap_or(current.frequency);
        let scope = scope_key(campaign);
        if let RecapTarget::Email(user) = current.target
            && let Some(other) =
                member_recap::<D>(&mut tx, org, user, &scope, frequency, Some(id)).await?
        {
            return rollback_with(tx, Ok(Err(RecapRefusal::Exists(Box::new(other))))).await;
        }
        D::query(
            "UPDATE recap_subscriptions
             SET campaign_id = $3, scope_key = $4, frequency = $5,
                 chat_url = coalesce($6, chat_url), updated_at = $7
             WHERE organization_id = $1 AND id = $2",
        )
        .bind(org.0)
        .bind(id)
        .bind(campaign.map(|c| c.0))
        .bind(scope.as_str())
        .bind(frequency.as_str())
        .bind(change.chat_url.as_deref())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let updated = read::<D>(&mut tx, org, id).await?;
        tx.commit().await?;
        Ok(updated.ok_or(RecapRefusal::NotFound))
    }

    async fn delete_recap(&self, org: OrgId, id: Uuid) -> Result<bool, StoreError> {
        let deleted =
            D::query("DELETE FROM recap_subscriptions WHERE organization_id = $1 AND id = $2")
                .bind(org.0)
                .bind(id)
                .execute(&mut *self.write().await?)
                .await?;
        Ok(deleted > 0)
    }

    async fn schedule_recaps(
        &self,
        frequency: Frequency,
        period: DateRange,
        created_by: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        D::query(
            "INSERT INTO recap_sends (subscription_id, period_start, period_end, status, attempts,
                                      next_attempt_at, created_at)
             SELECT s.id, $2, $3, 'pending', 0, $5, $5
             FROM recap_subscriptions s
             WHERE s.frequency = $1 AND s.created_at <= $4
               AND NOT EXISTS (SELECT 1 FROM recap_sends r
                               WHERE r.subscription_id = s.id AND r.period_start = $2)
               AND (s.user_id IS NULL OR EXISTS (
                      SELECT 1 FROM memberships m
                      WHERE m.organization_id = s.organization_id AND m.user_id = s.user_id))
             ON CONFLICT DO NOTHING",
        )
        .bind(frequency.as_str())
        .bind(period.from)
        .bind(period.to)
        .bind(created_by)
        .bind(now)
        .execute(&mut *self.write().await?)
        .await
    }

    async fn claim_recaps(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueRecap>, StoreError> {
        let mut tx = self.write_tx().await?;
        let token = Uuid::new_v4();
        D::query(AssertSqlSafe(format!(
            "UPDATE recap_sends SET next_attempt_at = $2, lease_token = $3, attempts = attempts + 1
             WHERE (subscription_id, period_start) IN (
               SELECT subscription_id, period_start FROM recap_sends
               WHERE status = 'pending' AND next_attempt_at <= $1
               ORDER BY next_attempt_at, subscription_id LIMIT $4
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
            "SELECT r.subscription_id, r.lease_token, r.period_start, r.period_end, r.attempts,
                    s.organization_id, o.name AS org_name, s.campaign_id, c.name AS campaign_name,
                    s.frequency, s.chat_kind, s.chat_url, u.email,
                    (s.user_id IS NOT NULL AND m.user_id IS NULL) AS member_left,
                    coalesce(u.language, cb.language, 'en') AS language
             FROM recap_sends r
             JOIN recap_subscriptions s ON s.id = r.subscription_id
             JOIN organizations o ON o.id = s.organization_id
             LEFT JOIN campaigns c ON c.id = s.campaign_id
             LEFT JOIN users u ON u.id = s.user_id
             LEFT JOIN memberships m ON m.organization_id = s.organization_id
                                    AND m.user_id = s.user_id
             LEFT JOIN users cb ON cb.id = s.created_by
             WHERE r.lease_token = $1
             ORDER BY r.period_start, r.subscription_id",
        )
        .bind(token)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.into_iter().map(DueRecap::try_from).collect()
    }

    async fn finish_recap(
        &self,
        subscription_id: Uuid,
        period_start: NaiveDate,
        lease_token: Uuid,
        outcome: RecapOutcome,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (status, next, error, sent_at) = match outcome {
            RecapOutcome::Sent => ("sent", None, None, Some(now)),
            RecapOutcome::Retry { error, at } => ("pending", Some(at), Some(error), None),
            RecapOutcome::Failed { error } => ("failed", None, Some(error), None),
        };
        D::query(
            "UPDATE recap_sends
             SET status = $4, next_attempt_at = $5, last_error = $6, sent_at = $7,
                 lease_token = NULL
             WHERE subscription_id = $1 AND period_start = $2 AND lease_token = $3",
        )
        .bind(subscription_id)
        .bind(period_start)
        .bind(lease_token)
        .bind(status)
        .bind(next)
        .bind(error)
        .bind(sent_at)
        .execute(&mut *self.write().await?)
        .await?;
        Ok(())
    }

    async fn new_videos_in(
        &self,
        org: OrgId,
        campaign: Option<&str>,
        period: DateRange,
    ) -> Result<i64, StoreError> {
        let start = period.from.and_time(chrono::NaiveTime::MIN).and_utc();
        let end = (period.to + Duration::days(1))
            .and_time(chrono::NaiveTime::MIN)
            .and_utc();
        D::query(
            "SELECT count(*) FROM tracked_videos
             WHERE organization_id = $1 AND (CAST($2 AS TEXT) IS NULL OR campaign = $2)
               AND tracking_started_at >= $3 AND tracking_started_at < $4",
        )
        .bind(org.0)
        .bind(campaign)
        .bind(start)
        .bind(end)
        .fetch_scalar(&mut *self.read().await?)
        .await
    }

    /// Counts the firings of the organization's rules (of the campaign's
    /// rules for a campaign recap) within the period's UTC days.
    async fn alerts_fired_in(
        &self,
        org: OrgId,
        campaign: Option<CampaignId>,
        period: DateRange,
    ) -> Result<i64, StoreError> {
        let start = period.from.and_time(chrono::NaiveTime::MIN).and_utc();
        let end = (period.to + Duration::days(1))
            .and_time(chrono::NaiveTime::MIN)
            .and_utc();
        let sql = format!(
            "SELECT count(*) FROM alert_events e
             JOIN alert_rules r ON r.id = e.rule_id
             WHERE e.organization_id = $1 AND ({campaign} IS NULL OR r.campaign_id = $2)
               AND e.fired_at >= $3 AND e.fired_at < $4",
            campaign = D::typed("$2", "uuid"),
        );
        D::query(AssertSqlSafe(sql))
            .bind(org.0)
            .bind(campaign.map(|c| c.0))
            .bind(start)
            .bind(end)
            .fetch_scalar(&mut *self.read().await?)
            .await
    }
}
