//! The organization's tracked creators as the public API shows them
//! (docs/api.md: GET /v1/bloggers and GET
//! /v1/bloggers/by-username/{username}, and the answers of its PATCH and
//! refresh): a page of them, or one by handle, each with its totals as of
//! today and its tags.

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::names::Handle;
use vidpulse_domain::{OrgId, Platform};
use vidpulse_store::{AccountQuery, CreatorTotals, Tag, TrackedAccount};

use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// A creator tracked by the organization.
#[derive(Debug, Serialize, ToSchema)]
pub struct BloggerView {
    /// The creator's id (`blogger_id` of its job).
    pub id: Uuid,
    /// Platform id.
    pub platform: &'static str,
    /// Handle, without `@`.
    pub channel_username: String,
    /// The platform's id of the account.
    pub channel_id: String,
    /// Display name.
    pub display_name: Option<String>,
    /// Avatar URL.
    pub avatar_url: Option<String>,
    /// Followers; null when the platform does not say.
    pub follower_count: Option<i64>,
    /// Whether the organization tracks it now.
    pub is_active: bool,
    /// The last time the platform profile was read (daily).
    pub last_fetched_at: DateTime<Utc>,
    /// The organization's tracked account.
    pub tracked_account_id: Uuid,
    /// Videos backfilled when tracking started.
    pub initial_videos_count: i64,
    /// New videos tracked a day at most (`null`: the service default, 5).
    pub daily_videos_count: Option<i64>,
    /// The campaign its new videos get.
    pub campaign: Option<String>,
    /// The budget its new videos get.
    pub budget_per_video: Option<i64>,
    /// Its tags (its videos carry them), by name.
    pub tags: Vec<String>,
    /// When its videos were last listed.
    pub last_scraped_at: Option<DateTime<Utc>>,
    /// Why the last daily discovery skipped videos, if it did.
    pub discovery_note: Option<String>,
    /// The organization's videos its backfill and daily discovery tracked.
    pub videos_tracked: i64,
    /// Their latest views, summed.
    pub views: i64,
    /// Followers gained over the last 7 days (docs/api.md, "Follower
    /// gain"); null when no count was ever recorded.
    pub follower_gain_7d: Option<i64>,
    /// Followers gained over the last 30 days; null when no count was ever
    /// recorded.
    pub follower_gain_30d: Option<i64>,
}

impl BloggerView {
    /// The answer for `a` with its `totals` and its `tags`.
    pub fn of(a: TrackedAccount, totals: CreatorTotals, tags: Vec<Tag>) -> Self {
        Self {
            id: a.creator_id,
            platform: a.platform.id(),
            channel_username: a.username,
            channel_id: a.channel_id,
            display_name: a.display_name,
            avatar_url: a.avatar_url,
            follower_count: a.follower_count,
            is_active: a.is_active,
            last_fetched_at: a.last_fetched_at,
            tracked_account_id: a.tracked_account_id,
            initial_videos_count: a.initial_videos_count,
            daily_videos_count: a.daily_videos_count,
            campaign: a.campaign,
            budget_per_video: a.budget_per_video,
            tags: tags.into_iter().map(|t| t.name).collect(),
            last_scraped_at: a.last_scraped_at,
            discovery_note: a.discovery_note,
            videos_tracked: totals.videos_tracked,
            views: totals.views,
            follower_gain_7d: totals.followers.gain_7d,
            follower_gain_30d: totals.followers.gain_30d,
        }
    }
}

/// The organization's tracked `account`, shaped with its totals as of today.
pub(crate) async fn blogger_view(
    app: &AppState,
    org: OrgId,
    account: TrackedAccount,
) -> Result<BloggerView, ApiError> {
    let today = app.clock.now().date_naive();
    let mut totals = app
        .store
        .creator_totals(org, &[account.tracked_account_id], today)
        .await?;
    let totals = totals
        .remove(&account.tracked_account_id)
        .unwrap_or_default();
    let tags = app
        .store
        .blogger_tags(org, &[account.tracked_account_id])
        .await?
        .remove(&account.tracked_account_id)
        .unwrap_or_default();
    Ok(BloggerView::of(account, totals, tags))
}

/// The organization's tracked account of `username` (on `platform` when
/// given), or 404 `BLOGGER_NOT_TRACKED`.
pub(crate) async fn tracked_or_404(
    app: &AppState,
    org: OrgId,
    platform: Option<Platform>,
    username: &Handle,
) -> Result<TrackedAccount, ApiError> {
    app.store
        .tracked_account_by_username(org, platform, username)
        .await?
        .ok_or_else(|| not_tracked(username.as_str()))
}

/// The organization's tracked account `id` as it stands now (after a
/// write), or 404 `BLOGGER_NOT_TRACKED` naming `username` (it went
/// meanwhile).
pub(crate) async fn account_now(
    app: &AppState,
    org: OrgId,
    id: Uuid,
    username: &str,
) -> Result<TrackedAccount, ApiError> {
    app.store
        .tracked_account(org, id)
        .await?
        .ok_or_else(|| not_tracked(username))
}

/// 404 `BLOGGER_NOT_TRACKED`: the organization does not track `username`.
pub(crate) fn not_tracked(username: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::BloggerNotTracked,
        format!("The organization does not track @{username}"),
    )
}

/// The page of the organization's tracked creators `query` names, most
/// recently tracked first, each with its totals as of today; and how many
/// match in all.
pub(crate) async fn tracked_page(
    app: &AppState,
    org: OrgId,
    query: &AccountQuery,
) -> Result<(Vec<BloggerView>, i64), ApiError> {
    let page = app.store.tracked_accounts(org, query).await?;
    let ids: Vec<_> = page.items.iter().map(|a| a.tracked_account_id).collect();
    let today = app.clock.now().date_naive();
    let mut totals = app.store.creator_totals(org, &ids, today).await?;
    let mut tags = app.store.blogger_tags(org, &ids).await?;
    let items = page
        .items
        .into_iter()
        .map(|a| {
            let t = totals.remove(&a.tracked_account_id).unwrap_or_default();
            let names = tags.remove(&a.tracked_account_id).unwrap_or_default();
            BloggerView::of(a, t, names)
        })
        .collect();
    Ok((items, page.total))
}
