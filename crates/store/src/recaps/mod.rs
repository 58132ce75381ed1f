//! Scheduled recaps (migration 0034): members' subscriptions to a daily or
//! weekly recap of a campaign or of the whole organization, e-mailed to
//! them or posted to a team chat, and one send per subscription and
//! period. The send's row is inserted once (its key `(subscription_id,
//! period_start)` decides between workers), then claimed under a lease and
//! finished as sent, retried or failed: nothing is sent twice.

use async_trait::async_trait;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use uuid::Uuid;
use vidpulse_domain::analytics::DateRange;
use vidpulse_domain::{CampaignId, OrgId, UserId};

use crate::StoreError;

mod store;

/// How often a recap is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Frequency {
    /// Every day, of the day before.
    Daily,
    /// Every Monday, of the week before (Monday to Sunday).
    Weekly,
}

impl Frequency {
    /// The name in the API and the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Frequency::Daily => "daily",
            Frequency::Weekly => "weekly",
        }
    }

    /// The frequency named `s`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "daily" => Some(Frequency::Daily),
            "weekly" => Some(Frequency::Weekly),
            _ => None,
        }
    }
}

/// A team chat's incoming webhook a recap is posted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatTarget {
    /// `slack` or `discord`.
    pub kind: String,
    /// The incoming-webhook URL (a secret).
    pub url: String,
}

/// Where a recap goes: one member's e-mail, or a chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecapTarget {
    /// E-mailed to this member.
    Email(UserId),
    /// Posted to this chat.
    Chat(ChatTarget),
}

/// A recap subscription.
#[derive(Debug, Clone, PartialEq)]
pub struct RecapSubscription {
    /// Its id.
    pub id: Uuid,
    /// Where it goes.
    pub target: RecapTarget,
    /// The campaign it covers; `None`: the whole organization.
    pub campaign_id: Option<CampaignId>,
    /// How often.
    pub frequency: Frequency,
    /// Who created it.
    pub created_by: Option<UserId>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
    /// The last period sent: its first day and when it was sent.
    pub last_sent: Option<(NaiveDate, DateTime<Utc>)>,
}

/// A subscription to create (checked by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRecap {
    /// Where it goes.
    pub target: RecapTarget,
    /// The campaign; `None`: the organization.
    pub campaign_id: Option<CampaignId>,
    /// How often.
    pub frequency: Frequency,
    /// Who creates it (`None`: an API key).
    pub created_by: Option<UserId>,
}

/// A subscription's changes; `None` leaves a field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecapChange {
    /// A new frequency.
    pub frequency: Option<Frequency>,
    /// A new scope (`Some(None)`: the organization).
    pub campaign_id: Option<Option<CampaignId>>,
    /// A new chat URL (chat subscriptions only).
    pub chat_url: Option<String>,
}

/// Why a recap write was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum RecapRefusal {
    /// The member has this e-mail recap already (scope and frequency).
    Exists(Box<RecapSubscription>),
    /// No such campaign in the organization.
    CampaignNotFound,
    /// No such subscription in the organization.
    NotFound,
}

/// A send claimed by a worker: what to write, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct DueRecap {
    /// The claim's token, to present when finishing.
    pub lease_token: Uuid,
    /// The subscription.
    pub subscription_id: Uuid,
    /// The organization.
    pub org: OrgId,
    /// The organization's name.
    pub org_name: String,
    /// The campaign covered, with its name; `None`: the organization.
    pub campaign: Option<(CampaignId, String)>,
    /// How often.
    pub frequency: Frequency,
    /// The days covered.
    pub period: DateRange,
    /// The member's address (an e-mail recap whose member still belongs
    /// to the organization).
    pub email: Option<String>,
    /// The chat (a chat recap).
    pub chat: Option<ChatTarget>,
    /// Whether an e-mail recap's member has left the organization.
    pub member_left: bool,
    /// The language to write in: the member's (e-mail), its creator's (chat).
    pub language: String,
    /// This attempt's number (1 for the first).
    pub attempts: i64,
}

/// How a claimed send ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecapOutcome {
    /// Sent.
    Sent,
    /// Failed; tried again at this time.
    Retry {
        /// Why.
        error: String,
        /// When.
        at: DateTime<Utc>,
    },
    /// Failed for good.
    Failed {
        /// Why.
        error: String,
    },
}

/// Recap subscriptions and their sends.
#[async_trait]
pub trait RecapStore {
    /// Creates a subscription; an e-mail recap the member has already (same
    /// scope and frequency) is refused with it.
    async fn create_recap(
        &self,
        org: OrgId,
        new: NewRecap,
        now: DateTime<Utc>,
    ) -> Result<Result<RecapSubscription, RecapRefusal>, StoreError>;

    /// What `user` sees: their own e-mail recaps and the organization's
    /// chat recaps, oldest first; with `None`, every recap of the
    /// organization (an API key's view).
    async fn recaps_of(
        &self,
        org: OrgId,
        user: Option<UserId>,
    ) -> Result<Vec<RecapSubscription>, StoreError>;

    /// One subscription of the organization.
    async fn recap(&self, org: OrgId, id: Uuid) -> Result<Option<RecapSubscription>, StoreError>;

    /// Changes a subscription.
    async fn update_recap(
        &self,
        org: OrgId,
        id: Uuid,
        change: RecapChange,
        now: DateTime<Utc>,
    ) -> Result<Result<RecapSubscription, RecapRefusal>, StoreError>;

    /// Deletes a subscription (and its sends); whether it existed.
    async fn delete_recap(&self, org: OrgId, id: Uuid) -> Result<bool, StoreError>;

    /// Queues one send of `period` for every subscription of `frequency`
    /// created at or before `created_by` whose e-mail member still
    /// belongs to the organization; a send queued before (by any worker)
    /// stays as it is. How many were queued.
    async fn schedule_recaps(
        &self,
        frequency: Frequency,
        period: DateRange,
        created_by: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError>;

    /// Claims up to `limit` pending sends due at `now` for `lease` (each
    /// claim counts an attempt); another worker claims none of them.
    async fn claim_recaps(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueRecap>, StoreError>;

    /// Records how a claimed send ended (ignored when the lease was lost).
    async fn finish_recap(
        &self,
        subscription_id: Uuid,
        period_start: NaiveDate,
        lease_token: Uuid,
        outcome: RecapOutcome,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Videos whose tracking started within `period` (of campaign `campaign`
    /// when given, by name).
    async fn new_videos_in(
        &self,
        org: OrgId,
        campaign: Option<&str>,
        period: DateRange,
    ) -> Result<i64, StoreError>;

    /// Alert firings within `period`'s UTC days: of the rules of campaign
    /// `campaign`, or of all the organization's rules when `None`.
    async fn alerts_fired_in(
        &self,
        org: OrgId,
        campaign: Option<CampaignId>,
        period: DateRange,
    ) -> Result<i64, StoreError>;
}
