//! The account use cases: the usage report of the caller's organization
//! (docs/api.md, "Usage": GET /v1/account/usage and GET /dashboard/usage),
//! and the months that monthly caps count in.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::OrgId;

use crate::app::rfc3339;
use crate::error::ApiError;
use crate::state::AppState;

/// Days of history in the report, today included.
pub const USAGE_DAYS: i64 = 30;

/// One day of usage.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageEntry {
    /// The organization.
    pub organization_id: Uuid,
    /// Start of the UTC day.
    pub created_at: String,
    /// Requests made with the organization's API keys.
    pub total_requests: i64,
    /// Requests answered below 400.
    pub successful_requests: i64,
    /// Requests answered 400 or above.
    pub error_requests: i64,
    /// Credits charged.
    pub total_credits_used: i64,
    /// Mean response time, in milliseconds.
    pub avg_response_time: f64,
    /// Distinct API keys used.
    pub unique_api_keys: i64,
    /// Scheduled reads of the organization's videos that the operator's
    /// daily read cap skipped that day (0 without a cap).
    pub reads_skipped: i64,
}

/// Totals over the report.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageSummary {
    /// Requests in the last 30 days.
    pub total_requests_30_days: i64,
    /// Credits in the last 30 days.
    pub total_credits_30_days: i64,
    /// Reads the daily read cap skipped in the last 30 days.
    pub reads_skipped_30_days: i64,
}

/// The operator's limits that apply to the organization's usage.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageLimits {
    /// Scheduled reads of the organization's videos per UTC day
    /// (`VIDPULSE_MAX_READS_PER_ORG_PER_DAY`); `null`: no cap.
    pub read_cap: Option<i64>,
}

/// `data` of the usage report.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageReport {
    /// Days with activity, newest first, at most 30.
    pub usage_history: Vec<UsageEntry>,
    /// Totals.
    pub summary: UsageSummary,
    /// The limits in force.
    pub limits: UsageLimits,
}

/// Organization `org`'s usage over the last 30 days, this node's pending
/// counts included.
pub(crate) async fn usage_report(app: &AppState, org: OrgId) -> Result<UsageReport, ApiError> {
    if let Err(e) = app.usage.flush().await {
        tracing::warn!(error = %e, "usage flush before report failed");
    }
    let today = app.clock.now().date_naive();
    let since = today - Duration::days(USAGE_DAYS - 1);
    let days = app.store.usage_history(org, since).await?;
    let summary = UsageSummary {
        total_requests_30_days: days.iter().map(|d| d.total_requests).sum(),
        total_credits_30_days: days.iter().map(|d| d.credits_used).sum(),
        reads_skipped_30_days: days.iter().map(|d| d.reads_skipped).sum(),
    };
    let usage_history = days
        .into_iter()
        .map(|d| UsageEntry {
            organization_id: org.0,
            created_at: rfc3339(d.day.and_time(NaiveTime::MIN).and_utc()),
            total_requests: d.total_requests,
            successful_requests: d.successful_requests,
            error_requests: d.error_requests,
            total_credits_used: d.credits_used,
            avg_response_time: (d.avg_response_time_ms * 100.0).round() / 100.0,
            unique_api_keys: d.unique_api_keys,
            reads_skipped: d.reads_skipped,
        })
        .collect();
    Ok(UsageReport {
        usage_history,
        summary,
        limits: UsageLimits {
            read_cap: app.config.read_cap,
        },
    })
}

/// Start of the month after the one `now` is in (UTC).
pub fn next_month_start(now: DateTime<Utc>) -> DateTime<Utc> {
    let (y, m) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    month_start(y, m)
}

/// The first instant of `month` of `year` (UTC).
pub(crate) fn month_start(year: i32, month: u32) -> DateTime<Utc> {
    let day = NaiveDate::from_ymd_opt(year, month, 1).unwrap_or_default();
    Utc.from_utc_datetime(&day.and_hms_opt(0, 0, 0).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_month_wraps_the_year() {
        let at = |y, m, d| Utc.with_ymd_and_hms(y, m, d, 13, 5, 0).unwrap();
        assert_eq!(
            next_month_start(at(2026, 11, 22)),
            Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap()
        );
        assert_eq!(
            next_month_start(at(2026, 12, 31)),
            Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0).unwrap()
        );
    }
}
