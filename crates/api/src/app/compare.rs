//! Period comparison (`compare=previous_period` on the totals and the
//! leaderboard): beside a window's gains, the gains over the window of equal
//! length that ends the day before it starts, and each metric's relative
//! change (docs/api.md, "Comparing with the previous period").

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use vidpulse_domain::analytics::{DateRange, Metrics};

use crate::error::ApiError;
use crate::input::{Fault, Refusals, text_unless_empty};

/// Whether an answer compares its window with the previous one.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Compare {
    /// `previous_period`: also answer the gains over the window of equal length that ends the day before `from` (`previous`), and each metric's relative change (`change`)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    compare: Option<PreviousPeriod>,
}

/// The one value `compare` takes.
#[derive(Debug, Clone, Copy)]
struct PreviousPeriod;

impl std::str::FromStr for PreviousPeriod {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        (s == "previous_period").then_some(PreviousPeriod).ok_or(())
    }
}

impl Refusals for Compare {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
        ApiError::validation(
            "compare",
            format!("`compare` must be previous_period; got `{sent}`"),
        )
    }
}

impl Compare {
    /// The previous period of `window`, when the request asks to compare.
    pub fn previous_of(&self, window: DateRange) -> Option<DateRange> {
        self.compare.map(|PreviousPeriod| window.previous())
    }
}

/// The days of the previous period.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct PeriodView {
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
}

impl From<DateRange> for PeriodView {
    fn from(r: DateRange) -> Self {
        Self {
            from: r.from,
            to: r.to,
        }
    }
}

/// Each metric's relative change from the previous period:
/// `(now − previous) / |previous|` (0.25 is 25 % more); `null` where the
/// previous value is 0.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct ChangeView {
    /// Views.
    pub views: Option<f64>,
    /// Likes.
    pub likes: Option<f64>,
    /// Comments.
    pub comments: Option<f64>,
    /// Reposts.
    pub reposts: Option<f64>,
    /// Saves.
    pub saves: Option<f64>,
}

impl ChangeView {
    /// The change from `previous` to `now`.
    pub fn between(now: Metrics, previous: Metrics) -> Self {
        let [views, likes, comments, reposts, saves] = now.change_from(&previous);
        Self {
            views,
            likes,
            comments,
            reposts,
            saves,
        }
    }
}
