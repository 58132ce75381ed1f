//! Campaign analytics: the exact rules of docs/api.md ("Analytics": the
//! rules and the groups) as pure functions over one video's daily closes,
//! and the query an analytics request asks.
//!
//! The store aggregates in the database with the same rules; these functions
//! are the reference its results are tested against.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::AddAssign;

use chrono::{Duration, NaiveDate};

use crate::{Counters, Platform};

/// The five metrics, in the order responses list them; missing counters
/// count as 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Metrics {
    /// Views.
    pub views: i64,
    /// Likes.
    pub likes: i64,
    /// Comments.
    pub comments: i64,
    /// Reposts.
    pub reposts: i64,
    /// Saves.
    pub saves: i64,
}

impl Metrics {
    /// Counters with missing values as 0.
    pub fn of(c: &Counters) -> Self {
        Self {
            views: c.views.unwrap_or(0),
            likes: c.likes.unwrap_or(0),
            comments: c.comments.unwrap_or(0),
            reposts: c.reposts.unwrap_or(0),
            saves: c.saves.unwrap_or(0),
        }
    }

    fn zip(self, other: Self, f: impl Fn(i64, i64) -> i64) -> Self {
        Self {
            views: f(self.views, other.views),
            likes: f(self.likes, other.likes),
            comments: f(self.comments, other.comments),
            reposts: f(self.reposts, other.reposts),
            saves: f(self.saves, other.saves),
        }
    }

    /// `self − earlier`, metric by metric (may be negative).
    pub fn minus(self, earlier: Self) -> Self {
        self.zip(earlier, i64::saturating_sub)
    }

    /// `max(0, self − earlier)`, metric by metric.
    pub fn gain_over(self, earlier: Self) -> Self {
        self.zip(earlier, |a, b| a.saturating_sub(b).max(0))
    }
}

/// One of the five metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Views.
    Views,
    /// Likes.
    Likes,
    /// Comments.
    Comments,
    /// Reposts.
    Reposts,
    /// Saves.
    Saves,
}

impl Metric {
    /// Every metric, in the order responses list them.
    pub const ALL: [Metric; 5] = [
        Metric::Views,
        Metric::Likes,
        Metric::Comments,
        Metric::Reposts,
        Metric::Saves,
    ];

    /// The API's spelling (also the column suffix in the store).
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Views => "views",
            Metric::Likes => "likes",
            Metric::Comments => "comments",
            Metric::Reposts => "reposts",
            Metric::Saves => "saves",
        }
    }

    /// Parses the API's spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

impl Metrics {
    /// The value of one metric.
    pub fn get(&self, metric: Metric) -> i64 {
        match metric {
            Metric::Views => self.views,
            Metric::Likes => self.likes,
            Metric::Comments => self.comments,
            Metric::Reposts => self.reposts,
            Metric::Saves => self.saves,
        }
    }

    /// The relative change from `previous` to `self`, metric by metric:
    /// `(self − previous) / |previous|`, `None` where `previous` is 0.
    pub fn change_from(&self, previous: &Metrics) -> [Option<f64>; 5] {
        Metric::ALL.map(|m| {
            let before = previous.get(m);
            (before != 0).then(|| (self.get(m) - before) as f64 / before.unsigned_abs() as f64)
        })
    }
}

impl AddAssign for Metrics {
    fn add_assign(&mut self, other: Self) {
        *self = self.zip(other, i64::saturating_add);
    }
}

/// A video's first and last observation of one UTC day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayClose {
    /// The day.
    pub day: NaiveDate,
    /// The first observation of the day.
    pub first: Metrics,
    /// The last observation of the day: the close.
    pub last: Metrics,
}

/// The daily closes of one video's readings: per UTC day, its first and
/// last reading (`history` in time order, as a record holds it). This is the
/// rule the store keeps `daily_closes` by.
pub fn daily_closes(history: &[crate::Observation]) -> Vec<DayClose> {
    let mut closes: BTreeMap<NaiveDate, DayClose> = BTreeMap::new();
    for o in history {
        let m = Metrics::of(&o.counters);
        let day = o.captured_at.date_naive();
        closes
            .entry(day)
            .and_modify(|c| c.last = m)
            .or_insert(DayClose {
                day,
                first: m,
                last: m,
            });
    }
    closes.into_values().collect()
}

/// A video's increments on every day from its first close to its last
/// ([`video_increments`] over its whole history).
pub fn daily_increments(closes: &[DayClose]) -> Vec<(NaiveDate, Metrics)> {
    match (closes.first(), closes.last()) {
        (Some(first), Some(last)) => video_increments(closes, first.day, last.day),
        _ => Vec::new(),
    }
}

/// The gain of one video over `from..=to`: the close of the last day on or
/// before `to` minus the baseline (the close before `from`, else the first
/// observation on `from`, else 0). `None` when the video has no observation
/// within `from..=to`: it gained nothing there and makes no group appear.
/// `closes` are sorted by day, one per day.
pub fn video_total(closes: &[DayClose], from: NaiveDate, to: NaiveDate) -> Option<Metrics> {
    let end = closes.iter().rev().find(|c| c.day <= to)?;
    if end.day < from {
        return None;
    }
    let baseline = match closes.iter().rev().find(|c| c.day < from) {
        Some(before) => before.last,
        None => closes
            .iter()
            .find(|c| c.day == from)
            .map_or(Metrics::default(), |c| c.first),
    };
    Some(end.last.minus(baseline))
}

/// The gain of one video over `from..=to` under `baseline`: [`video_total`]
/// for [`Baseline::Window`]; for [`Baseline::Tracking`], a video without a
/// close before `from` counts from the first observation of its first day
/// on or after `from` (its first reading in the window) rather than from
/// `from`'s first observation or 0, so what it had before tracking never
/// counts. With counters that only grow, the tracking total equals the sum
/// of [`video_increments`] over the same days.
pub fn video_total_by(
    closes: &[DayClose],
    from: NaiveDate,
    to: NaiveDate,
    baseline: Baseline,
) -> Option<Metrics> {
    match baseline {
        Baseline::Window => video_total(closes, from, to),
        Baseline::Tracking => {
            let end = closes.iter().rev().find(|c| c.day <= to)?;
            if end.day < from {
                return None;
            }
            let start = match closes.iter().rev().find(|c| c.day < from) {
                Some(before) => before.last,
                None => closes
                    .iter()
                    .find(|c| c.day >= from)
                    .map_or(Metrics::default(), |c| c.first),
            };
            Some(end.last.minus(start))
        }
    }
}

/// The daily increments of one video on the days of `from..=to` that have an
/// observation: `max(0, close(d) − previous)`, where `previous` is the close
/// of the latest earlier day, or on the video's first day its first
/// observation. `closes` are sorted by day, one per day.
pub fn video_increments(
    closes: &[DayClose],
    from: NaiveDate,
    to: NaiveDate,
) -> Vec<(NaiveDate, Metrics)> {
    let mut out = Vec::new();
    let mut previous: Option<Metrics> = None;
    for c in closes {
        if c.day > to {
            break;
        }
        let before = previous.unwrap_or(c.first);
        if c.day >= from {
            out.push((c.day, c.last.gain_over(before)));
        }
        previous = Some(c.last);
    }
    out
}

/// Where a video's growth over a window starts when its tracking began
/// inside the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Baseline {
    /// The spec's rule (the default): it counts from 0, so views it had
    /// before tracking count as growth.
    #[default]
    Window,
    /// It counts from the first reading the organization sees: views from
    /// before tracking never count.
    Tracking,
}

impl Baseline {
    /// The parameter value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Window => "window",
            Self::Tracking => "tracking",
        }
    }

    /// The baseline a parameter value names.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "window" => Some(Self::Window),
            "tracking" => Some(Self::Tracking),
            _ => None,
        }
    }
}

/// How results are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupBy {
    /// One total.
    None,
    /// Per platform.
    Platform,
    /// Per creator username (across platforms).
    BloggerUsername,
    /// Per creator on each platform.
    PlatformBlogger,
    /// Per campaign tag.
    Campaign,
}

impl GroupBy {
    /// Every value, in the spelling of the API.
    pub const ALL: [GroupBy; 5] = [
        GroupBy::None,
        GroupBy::Platform,
        GroupBy::BloggerUsername,
        GroupBy::PlatformBlogger,
        GroupBy::Campaign,
    ];

    /// The API's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::None => "none",
            GroupBy::Platform => "platform",
            GroupBy::BloggerUsername => "blogger_username",
            GroupBy::PlatformBlogger => "platform_blogger",
            GroupBy::Campaign => "campaign",
        }
    }

    /// Parses the API's spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.as_str() == s)
    }

    /// The group key and label of a video (docs/api.md, "Groups");
    /// `None` for [`GroupBy::None`].
    pub fn key_of(
        self,
        platform: Platform,
        author: Option<&str>,
        campaign: Option<&str>,
    ) -> Option<(String, String)> {
        let author = author.map(|a| a.trim_start_matches('@')).unwrap_or("");
        Some(match self {
            GroupBy::None => return None,
            GroupBy::Platform => (platform.id().to_owned(), platform.display_name().to_owned()),
            GroupBy::BloggerUsername => (crate::names::handle_key(author), author.to_owned()),
            GroupBy::PlatformBlogger => (
                format!("{}:{}", platform.id(), crate::names::handle_key(author)),
                format!("{author} - {}", platform.display_name()),
            ),
            GroupBy::Campaign => match campaign.filter(|c| !c.is_empty()) {
                Some(c) => (c.to_owned(), c.to_owned()),
                None => (String::new(), NO_CAMPAIGN.to_owned()),
            },
        })
    }
}

impl fmt::Display for GroupBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The label of videos without a campaign.
pub const NO_CAMPAIGN: &str = "No campaign";

/// Longest window an analytics request may ask for, in days.
pub const MAX_WINDOW_DAYS: i64 = 366;
/// The window when `from` is omitted: this many days ending on `to`.
pub const DEFAULT_WINDOW_DAYS: i64 = 30;

/// An inclusive date range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateRange {
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
}

impl DateRange {
    /// The window of equal length that ends the day before this one starts
    /// (`compare=previous_period`).
    pub fn previous(&self) -> Self {
        let days = (self.to - self.from).num_days() + 1;
        Self {
            from: self.from - Duration::days(days),
            to: self.from - Duration::days(1),
        }
    }

    /// The window of a request: `to` defaults to `today`, `from` to 29 days
    /// before `to` (30 days in all). Errors name the field.
    pub fn window(
        from: Option<NaiveDate>,
        to: Option<NaiveDate>,
        today: NaiveDate,
    ) -> Result<Self, (&'static str, String)> {
        let to = to.unwrap_or(today);
        let from = from.unwrap_or(to - Duration::days(DEFAULT_WINDOW_DAYS - 1));
        if from > to {
            return Err(("from", format!("`from` ({from}) is after `to` ({to})")));
        }
        let days = (to - from).num_days() + 1;
        if days > MAX_WINDOW_DAYS {
            return Err((
                "from",
                format!("the window is {days} days; at most {MAX_WINDOW_DAYS} are allowed"),
            ));
        }
        Ok(Self { from, to })
    }
}

/// Which videos an analytics request counts, and how it groups them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AnalyticsQuery {
    /// The window.
    pub window: DateRange,
    /// Grouping.
    pub group_by: GroupBy,
    /// Videos published within these days (inclusive).
    pub published: Option<(Option<NaiveDate>, Option<NaiveDate>)>,
    /// Videos whose tracking started within these days (inclusive).
    pub tracked: Option<(Option<NaiveDate>, Option<NaiveDate>)>,
    /// Only videos of this campaign.
    pub campaign: Option<String>,
    /// Only videos of this platform.
    pub platform: Option<Platform>,
    /// Only videos of the creator with this handle key
    /// ([`crate::names::handle_key`]: lowercase, no `@`).
    pub author: Option<String>,
    /// Where a video tracked after `from` starts counting (totals; the
    /// increments are the same under both).
    pub baseline: Baseline,
}

/// A group's metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMetrics {
    /// Key (`total` for the single group of [`GroupBy::None`]).
    pub key: String,
    /// Label.
    pub label: String,
    /// The metrics.
    pub metrics: Metrics,
}

/// Sums per-video results into groups, ordered by views (then key); a key
/// seen with several labels takes the first in byte order.
pub fn into_groups(
    items: impl IntoIterator<Item = (String, String, Metrics)>,
) -> Vec<GroupMetrics> {
    let mut by_key: BTreeMap<String, GroupMetrics> = BTreeMap::new();
    for (key, label, m) in items {
        let group = by_key.entry(key.clone()).or_insert_with(|| GroupMetrics {
            key,
            label: label.clone(),
            metrics: Metrics::default(),
        });
        // Spellings of one handle differ ("Mira", "mira"): pick one the
        // same way every time, whatever order the rows came in.
        if label < group.label {
            group.label = label;
        }
        group.metrics += m;
    }
    let mut groups: Vec<GroupMetrics> = by_key.into_values().collect();
    sort_groups(&mut groups);
    groups
}

/// Orders groups by views, largest first, then by key.
pub fn sort_groups(groups: &mut [GroupMetrics]) {
    groups.sort_by(|a, b| {
        b.metrics
            .views
            .cmp(&a.metrics.views)
            .then_with(|| a.key.cmp(&b.key))
    });
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn d(day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
    }

    fn m(views: i64) -> Metrics {
        Metrics {
            views,
            likes: views / 10,
            ..Metrics::default()
        }
    }

    fn close(day: u32, first: i64, last: i64) -> DayClose {
        DayClose {
            day: d(day),
            first: m(first),
            last: m(last),
        }
    }

    #[test]
    fn a_history_closes_each_day_at_its_last_reading() {
        use chrono::{TimeZone, Utc};
        let at = |day: u32, hour: u32, views: i64| crate::Observation {
            captured_at: Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap(),
            counters: Counters {
                views: Some(views),
                likes: Some(views / 10),
                ..Counters::default()
            },
        };
        let closes = daily_closes(&[at(2, 6, 10), at(2, 23, 30), at(4, 1, 70)]);
        assert_eq!(closes, vec![close(2, 10, 30), close(4, 70, 70)]);
        // Days without a reading have no increment.
        assert_eq!(
            daily_increments(&closes),
            vec![(d(2), m(20)), (d(4), m(40))]
        );
        assert!(daily_increments(&[]).is_empty());
    }

    fn sum(incs: &[(NaiveDate, Metrics)]) -> Metrics {
        let mut s = Metrics::default();
        for (_, m) in incs {
            s += *m;
        }
        s
    }

    #[test]
    fn the_previous_period_has_the_same_length_and_ends_the_day_before() {
        let week = DateRange {
            from: d(8),
            to: d(14),
        };
        assert_eq!(
            week.previous(),
            DateRange {
                from: d(1),
                to: d(7)
            }
        );
        let day = DateRange {
            from: d(8),
            to: d(8),
        };
        assert_eq!(
            day.previous(),
            DateRange {
                from: d(7),
                to: d(7)
            }
        );
    }

    #[test]
    fn change_is_relative_to_the_previous_value_and_none_from_zero() {
        let now = Metrics {
            views: 150,
            likes: 5,
            comments: 0,
            reposts: -2,
            saves: 3,
        };
        let before = Metrics {
            views: 100,
            likes: 0,
            comments: 4,
            reposts: -4,
            saves: 3,
        };
        assert_eq!(
            now.change_from(&before),
            [Some(0.5), None, Some(-1.0), Some(0.5), Some(0.0)]
        );
        assert_eq!(Metric::parse("comments"), Some(Metric::Comments));
        assert_eq!(Metric::parse("Views"), None);
    }

    #[test]
    fn totals_are_end_close_minus_baseline() {
        let closes = [close(2, 100, 150), close(3, 160, 200), close(5, 210, 260)];
        // Baseline: the close before `from`.
        assert_eq!(video_total(&closes, d(3), d(5)), Some(m(260 - 150)));
        // `from` on the first day: its first observation.
        assert_eq!(video_total(&closes, d(2), d(5)), Some(m(260 - 100)));
        // `to` on a day without observation: the close of the last earlier day.
        assert_eq!(video_total(&closes, d(3), d(4)), Some(m(200 - 150)));
        // Tracking began after `from`: the baseline is 0.
        assert_eq!(video_total(&closes, d(1), d(5)), Some(m(260)));
        // Nothing on or before `to`: no contribution.
        assert_eq!(video_total(&closes, d(1), d(1)), None);
        // A window after the last observation: nothing within it, no contribution.
        assert_eq!(video_total(&closes, d(6), d(9)), None);
    }

    #[test]
    fn increments_follow_the_close_to_close_rule() {
        let closes = [close(2, 100, 150), close(3, 160, 200), close(5, 210, 260)];
        assert_eq!(
            video_increments(&closes, d(1), d(30)),
            vec![(d(2), m(50)), (d(3), m(50)), (d(5), m(60))]
        );
        // The window starts after the first day: the previous close still counts.
        assert_eq!(video_increments(&closes, d(4), d(5)), vec![(d(5), m(60))]);
        assert!(video_increments(&closes, d(6), d(9)).is_empty());
    }

    #[test]
    fn difference_one_pre_existing_counts() {
        // Tracking began with 1000 views already there.
        let closes = [close(3, 1000, 1100), close(4, 1150, 1200)];
        let incs = video_increments(&closes, d(1), d(4));
        assert_eq!(
            incs[0],
            (d(3), m(100)),
            "the first day counts from its first observation"
        );
        assert_eq!(sum(&incs), m(200));
        // Totals credit the pre-existing count when `from` precedes the first day...
        assert_eq!(video_total(&closes, d(1), d(4)), Some(m(1200)));
        // ...and agree with increments when it does not.
        assert_eq!(
            video_total(&closes, d(3), d(4)),
            Some(sum(&video_increments(&closes, d(3), d(4))))
        );
    }

    #[test]
    fn the_tracking_baseline_never_counts_views_from_before_tracking() {
        // Tracked on day 3 with 1000 views already there.
        let closes = [close(3, 1000, 1100), close(4, 1150, 1500)];
        let window = |from, to| video_total_by(&closes, d(from), d(to), Baseline::Window);
        let tracking = |from, to| video_total_by(&closes, d(from), d(to), Baseline::Tracking);
        assert_eq!(window(1, 4), Some(m(1500)));
        assert_eq!(tracking(1, 4), Some(m(500)));
        assert_eq!(
            tracking(1, 4),
            Some(sum(&video_increments(&closes, d(1), d(4))))
        );
        // A close before `from`: the same under both.
        assert_eq!(window(4, 4), Some(m(400)));
        assert_eq!(tracking(4, 4), Some(m(400)));
        // `from` on the first day: the same under both.
        assert_eq!(tracking(3, 4), window(3, 4));
        // Nothing in the window: nothing under both.
        assert_eq!(tracking(1, 2), None);
        assert_eq!(tracking(5, 9), None);
        for b in [Baseline::Window, Baseline::Tracking] {
            assert_eq!(Baseline::parse(b.as_str()), Some(b));
        }
        assert_eq!(Baseline::parse("Tracking"), None);
        assert_eq!(Baseline::default(), Baseline::Window);
    }

    #[test]
    fn difference_two_dips_and_recoveries() {
        let closes = [close(1, 100, 100), close(2, 90, 90), close(3, 120, 120)];
        let incs = video_increments(&closes, d(1), d(3));
        assert_eq!(incs, vec![(d(1), m(0)), (d(2), m(0)), (d(3), m(30))]);
        assert_eq!(sum(&incs), m(30));
        assert_eq!(video_total(&closes, d(2), d(3)), Some(m(20)));
        // Totals credit the recovery from the dip only against the baseline.
        assert_eq!(video_total(&closes, d(1), d(3)), Some(m(20)));
    }

    #[test]
    fn difference_three_counter_resets() {
        let closes = [close(1, 500, 500), close(2, 10, 20)];
        assert_eq!(video_increments(&closes, d(2), d(2)), vec![(d(2), m(0))]);
        assert_eq!(video_total(&closes, d(2), d(2)), Some(m(-480)));
    }

    #[test]
    fn windows_default_and_are_bounded() {
        let today = d(22);
        let w = DateRange::window(None, None, today).unwrap();
        assert_eq!((w.from, w.to), (d(22) - Duration::days(29), d(22)));
        let w = DateRange::window(Some(d(1)), None, today).unwrap();
        assert_eq!((w.from, w.to), (d(1), d(22)));
        assert_eq!(
            DateRange::window(Some(d(5)), Some(d(4)), today)
                .unwrap_err()
                .0,
            "from"
        );
        let long = DateRange::window(Some(d(1) - Duration::days(366)), Some(d(1)), today);
        assert_eq!(long.unwrap_err().0, "from");
        assert!(DateRange::window(Some(d(1) - Duration::days(365)), Some(d(1)), today).is_ok());
    }

    #[test]
    fn group_keys_follow_the_table() {
        let tt = Platform::TikTok;
        assert_eq!(GroupBy::None.key_of(tt, Some("Mira"), None), None);
        assert_eq!(
            GroupBy::Platform.key_of(tt, None, None),
            Some(("tiktok".into(), "TikTok".into()))
        );
        assert_eq!(
            GroupBy::BloggerUsername.key_of(tt, Some("@Mira.Cooks"), None),
            Some(("mira.cooks".into(), "Mira.Cooks".into()))
        );
        assert_eq!(
            GroupBy::PlatformBlogger.key_of(Platform::YouTube, Some("MiraCooks"), None),
            Some(("youtube:miracooks".into(), "MiraCooks - YouTube".into()))
        );
        assert_eq!(
            GroupBy::Campaign.key_of(tt, None, Some("Summer")),
            Some(("Summer".into(), "Summer".into()))
        );
        assert_eq!(
            GroupBy::Campaign.key_of(tt, None, None),
            Some((String::new(), "No campaign".into()))
        );
        for g in GroupBy::ALL {
            assert_eq!(GroupBy::parse(g.as_str()), Some(g));
        }
        assert_eq!(GroupBy::parse("creator"), None);
    }

    #[test]
    fn groups_are_summed_and_ordered_by_views() {
        let groups = into_groups([
            ("b".to_owned(), "B".to_owned(), m(10)),
            ("a".to_owned(), "A".to_owned(), m(10)),
            ("b".to_owned(), "B".to_owned(), m(5)),
        ]);
        let keys: Vec<_> = groups
            .iter()
            .map(|g| (g.key.as_str(), g.metrics.views))
            .collect();
        assert_eq!(keys, [("b", 15), ("a", 10)]);
    }

    fn growing_history() -> impl Strategy<Value = Vec<DayClose>> {
        prop::collection::vec((1u32..=3, 0i64..1000, 0i64..1000), 1..20).prop_map(|steps| {
            let mut day = d(1);
            let mut value = 0;
            steps
                .into_iter()
                .map(|(gap, intra, close_gain)| {
                    day += Duration::days(i64::from(gap));
                    let first = value + intra;
                    value = first + close_gain;
                    DayClose {
                        day,
                        first: m(first),
                        last: m(value),
                    }
                })
                .collect()
        })
    }

    proptest! {
        /// Counters that only grow, `from` on or after the first day: totals
        /// equal the sum of increments.
        #[test]
        fn totals_equal_summed_increments_when_counters_grow(
            closes in growing_history(),
            from_offset in 0usize..20,
            span in 0i64..60,
        ) {
            let first = closes[0].day;
            let from = closes.get(from_offset).map_or(first, |c| c.day);
            let to = from + Duration::days(span);
            let total = video_total(&closes, from, to).unwrap_or_default();
            prop_assert_eq!(total, sum(&video_increments(&closes, from, to)));
        }

        /// Counters that only grow, any window: tracking totals equal the
        /// sum of increments.
        #[test]
        fn tracking_totals_equal_summed_increments_when_counters_grow(
            closes in growing_history(),
            from_offset in -5i64..60,
            span in 0i64..60,
        ) {
            let from = d(1) + Duration::days(from_offset);
            let to = from + Duration::days(span);
            let total = video_total_by(&closes, from, to, Baseline::Tracking).unwrap_or_default();
            prop_assert_eq!(total, sum(&video_increments(&closes, from, to)));
        }

        /// Increments never go negative, whatever the counters do.
        #[test]
        fn increments_are_never_negative(
            values in prop::collection::vec((-100i64..1000, -100i64..1000), 1..15),
        ) {
            let closes: Vec<DayClose> = values
                .iter()
                .enumerate()
                .map(|(i, (a, b))| DayClose { day: d(1) + Duration::days(i as i64), first: m(*a), last: m(*b) })
                .collect();
            for (_, inc) in video_increments(&closes, d(1), d(30)) {
                prop_assert!(inc.views >= 0 && inc.likes >= 0);
            }
        }
    }
}
