//! A tracked creator's follower history (docs/api.md:
//! GET /v1/bloggers/by-username/{username}/history and GET
//! /blogger/{tracking_id}/followers): the window's rules and the days with a
//! recorded count.

use chrono::NaiveDate;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::DateRange;
use vidpulse_store::FollowerDay;

use crate::error::ApiError;
use crate::state::AppState;

/// A creator's follower count on one UTC day: the last read that day.
#[derive(Debug, Serialize, ToSchema)]
pub struct FollowerDayView {
    /// The day, YYYY-MM-DD.
    #[schema(value_type = String, format = Date)]
    pub date: NaiveDate,
    /// Followers as last read that day.
    pub follower_count: i64,
}

impl From<FollowerDay> for FollowerDayView {
    fn from(d: FollowerDay) -> Self {
        Self {
            date: d.day,
            follower_count: d.follower_count,
        }
    }
}

/// The window of a follower history (the analytics window rules,
/// `DateRange::window`): `to` defaults to `today`, `from` to 29 days before
/// `to`; `from` on or before `to`; at most 366 days.
pub(crate) fn follower_window(
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    today: NaiveDate,
) -> Result<DateRange, ApiError> {
    DateRange::window(from, to, today)
        .map_err(|(field, message)| ApiError::validation(field, message))
}

/// The recorded follower days of the organization's tracked account in
/// `window`, or 404 `NOT_FOUND` when it has no such account.
pub(crate) async fn follower_days(
    app: &AppState,
    org: OrgId,
    tracked_account_id: Uuid,
    window: DateRange,
) -> Result<Vec<FollowerDayView>, ApiError> {
    let days = app
        .store
        .follower_history(org, tracked_account_id, window.from, window.to)
        .await?
        .ok_or_else(|| ApiError::not_found("No such tracked blogger"))?;
    Ok(days.into_iter().map(FollowerDayView::from).collect())
}
