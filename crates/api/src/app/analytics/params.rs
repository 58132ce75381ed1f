//! The analytics query parameters, read alike by both faces: the window,
//! the grouping, the publishing and tracking periods, and the scope
//! (docs/api.md, "Analytics"); with `compare`, the totals' parameters.
//! Each is a documented type; `AnalyticsParams::query` checks them into
//! the domain's [`AnalyticsQuery`].

use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Deserializer, de};
use serde_json::Value;
use utoipa::IntoParams;
use vidpulse_domain::Platform;
use vidpulse_domain::analytics::{AnalyticsQuery, Baseline, DateRange, GroupBy};
use vidpulse_domain::names::{Handle, handle_key};

use crate::app::compare::Compare;
use crate::error::ApiError;
use crate::input::{Fault, Input, Refusals, text_unless_empty};

/// Longest campaign filter, in characters.
const CAMPAIGN_MAX_CHARS: usize = 200;

/// A day, exactly `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Day(pub NaiveDate);

impl std::str::FromStr for Day {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .filter(|_| s.len() == 10)
            .map(Day)
            .ok_or(())
    }
}

impl<'de> Deserialize<'de> for Day {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse()
            .map_err(|()| de::Error::custom("not a YYYY-MM-DD date"))
    }
}

/// The answer to a faulty [`Day`] in a query parameter.
pub(crate) fn bad_day(fault: &Fault<'_>) -> ApiError {
    let field = fault.field();
    let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
    ApiError::validation(
        field,
        format!("`{field}` must be a date YYYY-MM-DD; got `{sent}`"),
    )
}

/// The days an analytics answer covers.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Window {
    /// First day, YYYY-MM-DD (default: 29 days before `to`)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    from: Option<Day>,
    /// Last day, YYYY-MM-DD (default: today, UTC); at most 366 days in all
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    to: Option<Day>,
}

impl Refusals for Window {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        bad_day(fault)
    }
}

/// How an analytics answer groups the videos.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Grouping {
    /// none (default), platform, blogger_username, platform_blogger or campaign
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    group_by: Option<GroupKey>,
}

/// A `group_by` value.
#[derive(Debug, Clone, Copy)]
struct GroupKey(GroupBy);

impl std::str::FromStr for GroupKey {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        GroupBy::parse(s).map(GroupKey).ok_or(())
    }
}

impl Refusals for Grouping {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
        let valid: Vec<&str> = GroupBy::ALL.iter().map(|g| g.as_str()).collect();
        ApiError::validation(
            "group_by",
            format!(
                "`group_by` must be one of {}; got `{sent}`",
                valid.join(", ")
            ),
        )
    }
}

/// Where a video tracked after the window's first day starts counting.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Growth {
    /// window (default: a video tracked after `from` counts from 0, the views it had before tracking count as growth) or tracking (it counts from its first reading, so views from before tracking never count; the totals then equal the sum of the daily increments when counters only grow). Increments are the same under both
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    baseline: Option<BaselineName>,
}

impl Growth {
    /// The baseline asked for (window by default).
    pub(crate) fn baseline(&self) -> Baseline {
        self.baseline.map_or(Baseline::Window, |BaselineName(b)| b)
    }
}

/// A `baseline` value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BaselineName(pub(crate) Baseline);

impl std::str::FromStr for BaselineName {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Baseline::parse(s).map(BaselineName).ok_or(())
    }
}

/// The message for a `baseline` that is neither `window` nor `tracking`.
pub(crate) fn bad_baseline(sent: &str) -> String {
    format!("`baseline` must be window or tracking; got `{sent}`")
}

impl Refusals for Growth {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
        ApiError::validation("baseline", bad_baseline(sent))
    }
}

/// Which videos count, by when they were published and tracked.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Periods {
    /// Videos published on or after this day
    #[serde(rename = "published_at.from")]
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    published_from: Option<Day>,
    /// Videos published on or before this day
    #[serde(rename = "published_at.to")]
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    published_to: Option<Day>,
    /// Videos whose tracking started on or after this day
    #[serde(rename = "tracked_at.from")]
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    tracked_from: Option<Day>,
    /// Videos whose tracking started on or before this day
    #[serde(rename = "tracked_at.to")]
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    tracked_to: Option<Day>,
}

impl Refusals for Periods {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        bad_day(fault)
    }
}

/// Which videos count, by campaign and platform.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Scope {
    /// Only videos of this campaign
    #[serde(default, deserialize_with = "campaign")]
    #[param(value_type = Option<String>)]
    campaign: Option<String>,
    /// Only videos of this platform
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    platform: Option<AnyCase>,
    /// Only videos of this creator: a handle, with or without `@`, any case
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    blogger: Option<HandleKey>,
}

/// A creator's handle, as its key (lowercase, no `@`).
#[derive(Debug, Clone)]
struct HandleKey(String);

impl std::str::FromStr for HandleKey {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Handle::parse(s)
            .map(|h| HandleKey(handle_key(h.as_str())))
            .map_err(|_| ())
    }
}

/// A platform named by its id or display name, in any case.
#[derive(Debug, Clone, Copy)]
struct AnyCase(Platform);

impl std::str::FromStr for AnyCase {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Platform::ALL
            .into_iter()
            .find(|x| x.id().eq_ignore_ascii_case(s) || x.display_name().eq_ignore_ascii_case(s))
            .map(AnyCase)
            .ok_or(())
    }
}

/// A campaign filter, trimmed, of at most [`CAMPAIGN_MAX_CHARS`]; blank is none.
fn campaign<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(deserializer)?;
    let campaign = text.trim();
    if campaign.chars().count() > CAMPAIGN_MAX_CHARS {
        return Err(de::Error::custom("too long"));
    }
    Ok((!campaign.is_empty()).then(|| campaign.to_owned()))
}

impl Refusals for Scope {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let sent = fault.sent().and_then(Value::as_str).unwrap_or_default();
        if fault.field() == "blogger" {
            return ApiError::validation(
                "blogger",
                format!("`blogger` must be a creator's handle; got `{sent}`"),
            );
        }
        if fault.field() == "campaign" {
            return ApiError::validation(
                "campaign",
                format!("`campaign` must be at most {CAMPAIGN_MAX_CHARS} characters"),
            );
        }
        ApiError::validation(
            "platform",
            format!("`platform` must be tiktok, instagram or youtube; got `{sent}`"),
        )
    }
}

/// Every analytics parameter: [`Window`], [`Grouping`], [`Scope`],
/// [`Periods`] and [`Growth`], read in that order.
#[derive(Debug)]
pub(crate) struct AnalyticsParams {
    window: Window,
    grouping: Grouping,
    scope: Scope,
    periods: Periods,
    growth: Growth,
}

impl Input for AnalyticsParams {
    fn from_json(value: &Value) -> Result<Self, ApiError> {
        Ok(Self {
            window: Window::from_json(value)?,
            grouping: Grouping::from_json(value)?,
            scope: Scope::from_json(value)?,
            periods: Periods::from_json(value)?,
            growth: Growth::from_json(value)?,
        })
    }
}

/// A period's bounds.
type Range = Option<(Option<NaiveDate>, Option<NaiveDate>)>;

/// The period between two days named `lower` and `upper`; the lower must
/// not be after the upper (else the answer `refuse` words for the lower's
/// name and the message).
pub(crate) fn range(
    (from, lower): (Option<Day>, &'static str),
    (to, upper): (Option<Day>, &'static str),
    refuse: fn(&'static str, String) -> ApiError,
) -> Result<Range, ApiError> {
    let (from, to) = (from.map(|Day(d)| d), to.map(|Day(d)| d));
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        return Err(refuse(
            lower,
            format!("`{lower}` ({f}) must be on or before `{upper}` ({t})"),
        ));
    }
    // The bound after 9999-12-31 falls in year 10000, which SQLite's text
    // timestamps sort before every other year (`+10000-…`), so that backend
    // would find nothing; no stored instant lies beyond it, so the bound is
    // dropped and both backends answer alike.
    let to = to.filter(|t| t.succ_opt().is_some_and(|next| next.year() <= 9999));
    Ok((from.is_some() || to.is_some()).then_some((from, to)))
}

impl AnalyticsParams {
    /// The query these parameters ask for; `today` ends the default window.
    pub(crate) fn query(self, today: NaiveDate) -> Result<AnalyticsQuery, ApiError> {
        let Self {
            window,
            grouping,
            scope,
            periods,
            growth,
        } = self;
        let window = DateRange::window(
            window.from.map(|Day(d)| d),
            window.to.map(|Day(d)| d),
            today,
        )
        .map_err(|(field, message)| ApiError::validation(field, message))?;
        Ok(AnalyticsQuery {
            window,
            group_by: grouping.group_by.map_or(GroupBy::None, |GroupKey(g)| g),
            published: range(
                (periods.published_from, "published_at.from"),
                (periods.published_to, "published_at.to"),
                ApiError::validation,
            )?,
            tracked: range(
                (periods.tracked_from, "tracked_at.from"),
                (periods.tracked_to, "tracked_at.to"),
                ApiError::validation,
            )?,
            campaign: scope.campaign,
            platform: scope.platform.map(|AnyCase(p)| p),
            author: scope.blogger.map(|HandleKey(h)| h),
            baseline: growth.baseline(),
        })
    }
}

/// The totals parameters: the analytics ones and `compare`.
pub(crate) struct TotalsParams(pub(crate) AnalyticsParams, pub(crate) Compare);

impl Input for TotalsParams {
    fn from_json(value: &Value) -> Result<Self, ApiError> {
        Ok(Self(
            AnalyticsParams::from_json(value)?,
            Compare::from_json(value)?,
        ))
    }
}
