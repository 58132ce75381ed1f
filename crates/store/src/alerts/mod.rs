//! Alert rules (migration 0033): an organization's rules over its videos
//! (all of them, or one campaign's) or its tracked creators, the firings
//! (`alert_events`, one per rule, subject and threshold: a UNIQUE
//! constraint decides, so several workers never fire twice) and their
//! sends (`alert_sends`, one per firing and recipient, retried under a
//! lease). The rules' kinds, parameters and channels are checked by the
//! caller and kept as JSON.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use uuid::Uuid;
use vidpulse_domain::OrgId;

use crate::StoreError;

mod store;

/// Most rules per organization.
pub const MAX_RULES: i64 = 100;

/// A rule as its organization sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertRule {
    /// Its id.
    pub id: Uuid,
    /// Its organization.
    pub organization_id: OrgId,
    /// The campaign it watches; `None`: every video of the organization.
    pub campaign_id: Option<Uuid>,
    /// That campaign's name.
    pub campaign_name: Option<String>,
    /// Its name.
    pub name: String,
    /// Its kind (`views_milestone`, `velocity`, …).
    pub kind: String,
    /// Its parameters (a JSON object, by kind).
    pub params: Value,
    /// Its channels (a JSON array).
    pub channels: Value,
    /// Whether the worker evaluates it.
    pub enabled: bool,
    /// When the worker last evaluated it.
    pub evaluated_at: Option<DateTime<Utc>>,
    /// When it last fired.
    pub last_fired_at: Option<DateTime<Utc>>,
    /// How many times it fired.
    pub events: i64,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// What creating a rule needs (checked by the caller).
#[derive(Debug, Clone, PartialEq)]
pub struct NewAlertRule {
    /// The campaign watched, if one.
    pub campaign_id: Option<Uuid>,
    /// Name.
    pub name: String,
    /// Kind.
    pub kind: String,
    /// Parameters.
    pub params: Value,
    /// Channels.
    pub channels: Value,
    /// Enabled.
    pub enabled: bool,
}

/// A rule's changes: `None` leaves a field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AlertRuleChanges {
    /// Name.
    pub name: Option<String>,
    /// The campaign watched (`Some(None)`: the whole organization).
    pub campaign_id: Option<Option<Uuid>>,
    /// Parameters.
    pub params: Option<Value>,
    /// Channels.
    pub channels: Option<Value>,
    /// Enabled.
    pub enabled: Option<bool>,
}

/// Why a rule write was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertRefusal {
    /// No such rule in the organization.
    NotFound,
    /// No such campaign in the organization.
    CampaignNotFound,
    /// The organization has [`MAX_RULES`] rules already.
    TooMany,
}

/// One send of a firing, as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertSend {
    /// `email`, `slack`, `discord` or `webhooks`.
    pub channel: String,
    /// The address or chat URL (`""` for webhooks).
    pub target: String,
    /// `pending`, `sent` or `failed`.
    pub status: String,
    /// Attempts made.
    pub attempts: i64,
    /// The last failure.
    pub last_error: Option<String>,
    /// When it was sent.
    pub sent_at: Option<DateTime<Utc>>,
}

/// One firing of a rule.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertEvent {
    /// Its id.
    pub id: Uuid,
    /// The rule.
    pub rule_id: Uuid,
    /// The video's tracked id or the creator's id.
    pub subject: String,
    /// The threshold or condition that fired.
    pub threshold_key: String,
    /// When.
    pub fired_at: DateTime<Utc>,
    /// The text sent.
    pub message: String,
    /// The figures (JSON object).
    pub details: Value,
    /// Its sends.
    pub sends: Vec<AlertSend>,
}

/// A firing to record, with its recipients.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAlertEvent {
    /// The rule.
    pub rule_id: Uuid,
    /// Its organization.
    pub organization_id: OrgId,
    /// The subject.
    pub subject: String,
    /// The threshold or condition.
    pub threshold_key: String,
    /// The first line of the message (an e-mail's subject; the sends take
    /// it from the message, and the details stay as given).
    pub title: String,
    /// The text.
    pub message: String,
    /// The figures.
    pub details: Value,
    /// `(channel, target)` of each e-mail and chat send.
    pub sends: Vec<(String, String)>,
    /// The `data` of an `alert.triggered` webhook event, when the rule has
    /// the webhooks channel.
    pub webhook: Option<Value>,
}

/// A tracked video as the evaluation sees it.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AlertVideo {
    /// The organization's video id.
    pub video_id: Uuid,
    /// The catalog video.
    pub catalog_id: i64,
    /// Platform.
    pub platform: String,
    /// Title.
    pub title: Option<String>,
    /// Author handle.
    pub author: Option<String>,
    /// Its address.
    pub url: String,
    /// When it was published.
    pub published_at: Option<DateTime<Utc>>,
    /// When the organization started tracking it.
    pub tracking_started_at: DateTime<Utc>,
    /// When the platform reported it removed or private.
    pub gone_at: Option<DateTime<Utc>>,
}

/// A reading's instant and views.
pub type ViewsAt = (DateTime<Utc>, i64);

/// A tracked creator's followers, as the evaluation sees them.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AlertCreator {
    /// The creator.
    pub creator_id: Uuid,
    /// Platform.
    pub platform: String,
    /// Handle.
    pub username: String,
    /// Followers at the last reading on or before the instant asked
    /// (else the first reading).
    pub base_followers: Option<i64>,
    /// Followers at the last reading.
    pub latest_followers: i64,
    /// When the last reading was made.
    pub latest_at: DateTime<Utc>,
}

/// A send due now, claimed under a lease.
#[derive(Debug, Clone, PartialEq)]
pub struct DueAlertSend {
    /// Its id.
    pub id: Uuid,
    /// The lease's token.
    pub lease_token: Uuid,
    /// `email`, `slack` or `discord`.
    pub channel: String,
    /// The address or URL.
    pub target: String,
    /// Attempts made before this one.
    pub attempts: i64,
    /// The e-mail subject: the message's first line.
    pub title: String,
    /// The text.
    pub message: String,
}

/// The alert rules of organizations, their firings and sends.
#[async_trait]
pub trait AlertStore {
    /// Creates a rule.
    async fn create_alert_rule(
        &self,
        org: OrgId,
        new: NewAlertRule,
        now: DateTime<Utc>,
    ) -> Result<Result<AlertRule, AlertRefusal>, StoreError>;

    /// The organization's rules, oldest first.
    async fn alert_rules(&self, org: OrgId) -> Result<Vec<AlertRule>, StoreError>;

    /// One rule of the organization.
    async fn alert_rule(&self, org: OrgId, id: Uuid) -> Result<Option<AlertRule>, StoreError>;

    /// Changes a rule.
    async fn update_alert_rule(
        &self,
        org: OrgId,
        id: Uuid,
        changes: AlertRuleChanges,
        now: DateTime<Utc>,
    ) -> Result<Result<AlertRule, AlertRefusal>, StoreError>;

    /// Deletes a rule and its firings; whether it existed.
    async fn delete_alert_rule(&self, org: OrgId, id: Uuid) -> Result<bool, StoreError>;

    /// One page of a rule's firings, newest first, and how many there are.
    async fn alert_events(
        &self,
        org: OrgId,
        rule: Uuid,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<AlertEvent>, i64), StoreError>;

    /// Every enabled rule of every organization.
    async fn enabled_alert_rules(&self) -> Result<Vec<AlertRule>, StoreError>;

    /// Records the worker's pass over a rule.
    async fn alert_rule_evaluated(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// The organization's tracked videos (of `campaign`, if given) with a
    /// visible reading after `since`, or reported gone after it.
    async fn alert_videos(
        &self,
        org: OrgId,
        campaign: Option<Uuid>,
        since: DateTime<Utc>,
    ) -> Result<Vec<AlertVideo>, StoreError>;

    /// The organization's tracked videos by the author `author` (any
    /// letter case) on `platform`.
    async fn alert_creator_videos(
        &self,
        org: OrgId,
        platform: &str,
        author: &str,
    ) -> Result<Vec<AlertVideo>, StoreError>;

    /// The last reading with views of `video` the organization sees at or
    /// before `at`.
    async fn alert_views_before(
        &self,
        org: OrgId,
        video: &AlertVideo,
        at: DateTime<Utc>,
    ) -> Result<Option<ViewsAt>, StoreError>;

    /// The first reading with views of `video` the organization sees.
    async fn alert_first_views(
        &self,
        org: OrgId,
        video: &AlertVideo,
    ) -> Result<Option<ViewsAt>, StoreError>;

    /// The organization's tracked creators (of `campaign`, if given) whose
    /// followers were read after `since`, with their followers then (`base`
    /// taken at `since`).
    async fn alert_creators(
        &self,
        org: OrgId,
        campaign: Option<Uuid>,
        since: DateTime<Utc>,
    ) -> Result<Vec<AlertCreator>, StoreError>;

    /// Records a firing with its sends (and the webhook event), unless the
    /// rule already fired for that subject and threshold: its id if this
    /// call recorded it.
    async fn fire_alert(
        &self,
        event: NewAlertEvent,
        now: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError>;

    /// Claims up to `limit` sends due at `now` for `lease`.
    async fn claim_alert_sends(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueAlertSend>, StoreError>;

    /// Records a send's attempt: sent (`Ok`), or failed with the error and
    /// when to try again (`None`: failed for good).
    /// A claim whose lease was lost (the send claimed again since) records
    /// nothing.
    async fn finish_alert_send(
        &self,
        due: &DueAlertSend,
        outcome: Result<(), (String, Option<DateTime<Utc>>)>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}
