//! The account use cases: the usage report of the caller's organization
//! (docs/api.md, "Usage": GET /v1/account/usage and GET /dashboard/usage),
//! its plan's limits and what it uses of them (GET /organizations/plan),
//! what an API key is and may do (GET /v1/whoami), and the months that
//! monthly caps count in.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::api_key::Scopes;
use vidpulse_store::Organization;

use crate::app::rfc3339;
use crate::auth::ApiKeyAuth;
use crate::error::ApiError;
use crate::rate_limit::{Budget, WINDOW_SECS};
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

/// One limit and how much of it is in use.
#[derive(Debug, Serialize, ToSchema)]
pub struct Allowance {
    /// In use now.
    pub used: i64,
    /// The most allowed (the plan's, or the operator's override).
    pub limit: i64,
}

/// The month's trend searches.
#[derive(Debug, Serialize, ToSchema)]
pub struct MonthlyAllowance {
    /// Searches this calendar month (UTC).
    pub used: i64,
    /// Searches allowed a month (0: none on this plan).
    pub limit: i64,
    /// When the count starts again (RFC 3339, the next month's first instant).
    pub resets_at: String,
}

/// An organization, its plan's limits and what it uses of each now,
/// counted as the checks that enforce them count.
pub(crate) struct PlanStanding {
    /// The organization, as stored now.
    pub org: Organization,
    /// Videos whose tracking window is open, against the quota.
    pub tracked_videos: Allowance,
    /// Active creators and creator adds in flight, against the cap.
    pub creators: Allowance,
    /// This month's trend searches, against the monthly allowance.
    pub trend_searches: MonthlyAllowance,
}

/// Organization `org`'s plan standing; 404 when it does not exist.
pub(crate) async fn plan_standing(app: &AppState, org: OrgId) -> Result<PlanStanding, ApiError> {
    let now = app.clock.now();
    let (org, used) = app
        .store
        .plan_use(org, now, month_start(now.year(), now.month()))
        .await?
        .ok_or_else(|| ApiError::not_found("No such organization"))?;
    let limits = org.limits();
    Ok(PlanStanding {
        tracked_videos: Allowance {
            used: used.tracked_videos,
            limit: limits.video_quota,
        },
        creators: Allowance {
            used: used.creators,
            limit: limits.creator_cap,
        },
        trend_searches: MonthlyAllowance {
            used: used.trend_searches,
            limit: org.plan.monthly_trend_searches().unwrap_or(0),
            resets_at: rfc3339(next_month_start(now)),
        },
        org,
    })
}

/// The key's organization in [`Whoami`].
#[derive(Debug, Serialize, ToSchema)]
pub struct WhoamiOrganization {
    /// Its id.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// `free`, `pro` or `business`.
    #[schema(value_type = String, example = "pro")]
    pub plan: vidpulse_domain::Plan,
    /// Whether the plan allows the paid operations (PATCH, creators,
    /// analytics, trend search, campaigns).
    pub paid_operations: bool,
}

/// A scope of an API key: `read` (the public API's `GET`s) or `write`
/// (everything else).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeyScope {
    /// Reads.
    Read,
    /// Writes.
    Write,
}

/// The key in [`Whoami`].
#[derive(Debug, Serialize, ToSchema)]
pub struct WhoamiKey {
    /// Its id.
    pub id: Uuid,
    /// Its label.
    pub name: Option<String>,
    /// Its clear prefix.
    pub prefix: String,
    /// What it may do: `["read"]` (read only) or `["read", "write"]`.
    #[schema(value_type = Vec<KeyScope>, example = json!(["read", "write"]))]
    pub scopes: Scopes,
}

/// Credits charged: metered, never refused for want of a balance.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreditUse {
    /// Charged today (UTC).
    pub used_today: i64,
    /// Charged over the last 30 days, today included.
    pub used_30_days: i64,
}

/// The organization's quotas and what it uses of them.
#[derive(Debug, Serialize, ToSchema)]
pub struct WhoamiQuotas {
    /// Videos whose tracking window is open, against the tracked-video quota.
    pub tracked_videos: Allowance,
    /// Active tracked creators and creator adds in flight, against the
    /// creator cap.
    pub creators: Allowance,
    /// Trend searches this month, against the plan's monthly allowance.
    pub trend_searches: MonthlyAllowance,
    /// Credits charged.
    pub credits: CreditUse,
}

/// One rate limit of the key, as the limiter holds it now.
#[derive(Debug, Serialize, ToSchema)]
pub struct RateLimitStanding {
    /// The policy's name, as in the `RateLimit-Policy` header (`default`:
    /// every request).
    pub policy: &'static str,
    /// The requests that spend it.
    pub applies_to: &'static str,
    /// What it counts: `requests`, or `urls` (the URLs of track requests).
    pub unit: &'static str,
    /// Units per window.
    pub quota: u32,
    /// The window, in seconds; the budget refills evenly over it.
    pub window_secs: u64,
    /// Units left now; `null` when the shared limiter (Redis) cannot say.
    pub remaining: Option<u32>,
    /// Seconds until the budget is full again; `null` as `remaining`.
    pub reset_secs: Option<u64>,
}

/// `data` of `GET /v1/whoami`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Whoami {
    /// The key's organization.
    pub organization: WhoamiOrganization,
    /// The key.
    pub api_key: WhoamiKey,
    /// The plan's quotas and what the organization uses of them.
    pub quotas: WhoamiQuotas,
    /// The key's rate limits per minute, this request spent.
    pub rate_limits: Vec<RateLimitStanding>,
    /// Whether the rate limits are shared by every API node (through
    /// Redis); when false, each node keeps its own.
    pub rate_limits_shared: bool,
}

/// What `auth`'s key is, may do and has left. Charges nothing.
pub(crate) async fn whoami(app: &AppState, auth: &ApiKeyAuth) -> Result<Whoami, ApiError> {
    let standing = plan_standing(app, auth.org.id).await?;
    let today = app.clock.now().date_naive();
    let days = app
        .store
        .usage_history(auth.org.id, today - Duration::days(USAGE_DAYS - 1))
        .await?;
    let credits = CreditUse {
        used_today: days
            .iter()
            .filter(|d| d.day == today)
            .map(|d| d.credits_used)
            .sum(),
        used_30_days: days.iter().map(|d| d.credits_used).sum(),
    };
    let mut rate_limits = Vec::with_capacity(Budget::ALL.len());
    for budget in Budget::ALL {
        let state = app.limits.peek(budget, auth.key_id).await;
        rate_limits.push(RateLimitStanding {
            policy: budget.policy(),
            applies_to: budget.applies_to(),
            unit: budget.unit(),
            quota: budget.per_minute(app.limits.config()),
            window_secs: WINDOW_SECS,
            remaining: state.map(|s| s.remaining),
            reset_secs: state.map(|s| s.reset_secs),
        });
    }
    let org = standing.org;
    Ok(Whoami {
        organization: WhoamiOrganization {
            id: org.id.0,
            paid_operations: org.plan.is_paid(),
            plan: org.plan,
            name: org.name,
        },
        api_key: WhoamiKey {
            id: auth.key_id.0,
            name: auth.key_name.clone(),
            prefix: auth.key_prefix.clone(),
            scopes: auth.scopes,
        },
        quotas: WhoamiQuotas {
            tracked_videos: standing.tracked_videos,
            creators: standing.creators,
            trend_searches: standing.trend_searches,
            credits,
        },
        rate_limits,
        rate_limits_shared: app.limits.shared(),
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
