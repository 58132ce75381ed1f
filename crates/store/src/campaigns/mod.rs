//! Campaigns: an organization's named groups of videos, with their client,
//! dates, budget, currency, target and notes (migration 0030). Videos and
//! creators carry the campaign's name (`tracked_videos.campaign`,
//! `tracked_accounts.campaign`), which the store keeps equal to a campaign's
//! `name`: attaching by name, in any letter case, finds or creates the
//! campaign (`attach.rs`); renaming or deleting one rewrites its videos and
//! creators and moves their analytics.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use vidpulse_domain::analytics::{Baseline, DateRange, Metrics};
use vidpulse_domain::names::Campaign;
use vidpulse_domain::{CampaignId, OrgId, Platform, VideoId};

use crate::StoreError;

mod adopt;
mod attach;
mod crud;
mod report;
mod store;
pub(crate) mod tracking;

pub(crate) use adopt::adopt_if_queued;
pub(crate) use attach::attach;

/// A campaign as its organization sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignRecord {
    /// Its id.
    pub id: CampaignId,
    /// Its name, as first written (unique in its organization in any case).
    pub name: String,
    /// The client it is run for.
    pub client: Option<String>,
    /// First day.
    pub starts_on: Option<NaiveDate>,
    /// Last day.
    pub ends_on: Option<NaiveDate>,
    /// The money it may spend, in `currency`.
    pub budget: Option<f64>,
    /// ISO 4217 code of its money.
    pub currency: String,
    /// The views it aims at.
    pub target_views: Option<i64>,
    /// Free text.
    pub notes: Option<String>,
    /// When it was archived (still readable, hidden by default in the app).
    pub archived_at: Option<DateTime<Utc>>,
    /// How many tracked videos carry it.
    pub videos: i64,
    /// How many distinct creators those videos have.
    pub creators: i64,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// What creating a campaign needs (checked by the caller).
#[derive(Debug, Clone, PartialEq)]
pub struct NewCampaign {
    /// The name.
    pub name: Campaign,
    /// The client.
    pub client: Option<String>,
    /// First day.
    pub starts_on: Option<NaiveDate>,
    /// Last day (on or after `starts_on`).
    pub ends_on: Option<NaiveDate>,
    /// Budget (≥ 0).
    pub budget: Option<f64>,
    /// Currency; `None`: the organization's.
    pub currency: Option<String>,
    /// Target views (≥ 1).
    pub target_views: Option<i64>,
    /// Notes.
    pub notes: Option<String>,
}

/// A campaign's changes: `None` leaves a field, `Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CampaignChanges {
    /// A new name.
    pub name: Option<Campaign>,
    /// The client.
    pub client: Option<Option<String>>,
    /// First day.
    pub starts_on: Option<Option<NaiveDate>>,
    /// Last day.
    pub ends_on: Option<Option<NaiveDate>>,
    /// Budget.
    pub budget: Option<Option<f64>>,
    /// Currency.
    pub currency: Option<String>,
    /// Target views.
    pub target_views: Option<Option<i64>>,
    /// Notes.
    pub notes: Option<Option<String>>,
    /// Archive (`true`) or restore (`false`).
    pub archived: Option<bool>,
}

/// Which campaigns a listing wants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CampaignListQuery {
    /// Only names containing this text, in any case.
    pub q: Option<String>,
    /// Page size.
    pub limit: i64,
    /// Rows skipped.
    pub offset: i64,
}

/// Why a campaign write was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CampaignRefusal {
    /// Another campaign of the organization has this name in some case.
    NameTaken,
    /// No such campaign in the organization.
    NotFound,
    /// The change would leave `ends_on` before `starts_on` (one of them
    /// changed, checked against the other as stored).
    EndsBeforeStart,
}

/// One video of a campaign, with what a report needs of it.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignVideoFigures {
    /// The organization's video id.
    pub video_id: VideoId,
    /// Platform.
    pub platform: Platform,
    /// Author handle as shown.
    pub author_username: Option<String>,
    /// Flat fee.
    pub budget: Option<i64>,
    /// Price per 1,000 views.
    pub ecpm: Option<f64>,
    /// Gained over the report's window, by its baseline; `None` without a
    /// visible reading on or before its last day.
    pub gained: Option<Metrics>,
    /// Views gained from the first reading the organization sees to the
    /// close of the last visible day on or before the window's last day.
    pub views_since_tracking: i64,
}

impl CampaignVideoFigures {
    /// The video's cost: its flat fee, else `ecpm × views since tracking /
    /// 1000` (at least 0), else unknown.
    pub fn cost(&self) -> Option<f64> {
        match (self.budget, self.ecpm) {
            (Some(budget), _) => Some(budget as f64),
            (None, Some(ecpm)) => Some(ecpm * self.views_since_tracking.max(0) as f64 / 1000.0),
            (None, None) => None,
        }
    }
}

/// The campaigns of organizations.
#[async_trait]
pub trait CampaignStore {
    /// Creates a campaign.
    async fn create_campaign(
        &self,
        org: OrgId,
        new: NewCampaign,
        now: DateTime<Utc>,
    ) -> Result<Result<CampaignRecord, CampaignRefusal>, StoreError>;

    /// One page of the organization's campaigns (newest first) and how many match.
    async fn campaigns(
        &self,
        org: OrgId,
        query: &CampaignListQuery,
    ) -> Result<(Vec<CampaignRecord>, i64), StoreError>;

    /// One campaign of the organization.
    async fn campaign(
        &self,
        org: OrgId,
        id: CampaignId,
    ) -> Result<Option<CampaignRecord>, StoreError>;

    /// Changes a campaign (a new name rewrites its videos and creators).
    async fn update_campaign(
        &self,
        org: OrgId,
        id: CampaignId,
        changes: CampaignChanges,
        now: DateTime<Utc>,
    ) -> Result<Result<CampaignRecord, CampaignRefusal>, StoreError>;

    /// Deletes a campaign; its videos stay tracked without a campaign.
    async fn delete_campaign(
        &self,
        org: OrgId,
        id: CampaignId,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Every video of campaign `name` with its report figures over `window`.
    async fn campaign_video_figures(
        &self,
        org: OrgId,
        name: &str,
        window: DateRange,
        baseline: Baseline,
    ) -> Result<Vec<CampaignVideoFigures>, StoreError>;
}
