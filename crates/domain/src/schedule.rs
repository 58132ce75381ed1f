//! When a tracked video is read next.
//!
//! By default every 15 minutes for the first 24 hours
//! of tracking, hourly until day 7, every 6 hours until day 30, then stop;
//! a video whose campaign runs past day 30 is tracked longer and read every
//! [`RefreshSchedule::extended`] (daily by default) until its tracking ends.

use chrono::{DateTime, Duration, Utc};

/// A tiered refresh schedule: the interval grows with the age of the tracking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshSchedule {
    /// `(until_age, interval)` pairs, ascending by age: while the tracking is
    /// younger than `until_age`, read every `interval`.
    pub tiers: Vec<(Duration, Duration)>,
    /// How long tracking lasts; no read is scheduled after it.
    pub window: Duration,
    /// The interval between reads of a tracking that lasts longer than the
    /// tiers (a campaign running past the window): daily by default.
    pub extended: Duration,
}

impl Default for RefreshSchedule {
    fn default() -> Self {
        Self {
            tiers: vec![
                (Duration::hours(24), Duration::minutes(15)),
                (Duration::days(7), Duration::hours(1)),
                (Duration::days(30), Duration::hours(6)),
            ],
            window: Duration::days(30),
            extended: Duration::hours(24),
        }
    }
}

impl RefreshSchedule {
    /// The interval between reads for a tracking of age `age`, or `None`
    /// once the tracking is older than every tier.
    pub fn interval_at(&self, age: Duration) -> Option<Duration> {
        self.tiers
            .iter()
            .find(|(until, _)| age < *until)
            .map(|(_, every)| *every)
    }

    /// The next read after one made at `now`, for a video whose most recent
    /// tracking began at `started` and whose tracking ends at `ends`; `None`
    /// when no further read is due. Past the tiers (a tracking a campaign
    /// extends), every [`RefreshSchedule::extended`].
    pub fn next_after(
        &self,
        started: DateTime<Utc>,
        ends: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let age = (now - started).max(Duration::zero());
        let next = now + self.interval_at(age).unwrap_or(self.extended);
        // One last read at the end of the window closes the last day.
        if now >= ends {
            None
        } else {
            Some(next.min(ends))
        }
    }

    /// The same schedule reading extended trackings every `every`.
    pub fn with_extended(mut self, every: Duration) -> Result<Self, ScheduleError> {
        if every <= Duration::zero() {
            return Err(ScheduleError(
                "the extended interval must be positive".into(),
            ));
        }
        self.extended = every;
        Ok(self)
    }

    /// Parses `15m@24h,1h@7d,6h@30d`: intervals with the age until which they
    /// apply; the last age is the tracking window.
    pub fn parse(spec: &str) -> Result<Self, ScheduleError> {
        let mut tiers = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (every, until) = part
                .split_once('@')
                .ok_or_else(|| ScheduleError(format!("`{part}` is not INTERVAL@AGE")))?;
            let every = parse_duration(every)?;
            let until = parse_duration(until)?;
            if every <= Duration::zero() {
                return Err(ScheduleError(format!(
                    "interval in `{part}` must be positive"
                )));
            }
            if let Some((prev, _)) = tiers.last()
                && until <= *prev
            {
                return Err(ScheduleError("ages must increase from tier to tier".into()));
            }
            tiers.push((until, every));
        }
        let window = tiers
            .last()
            .map(|(until, _)| *until)
            .ok_or_else(|| ScheduleError("schedule has no tiers".into()))?;
        Ok(Self {
            tiers,
            window,
            extended: Duration::hours(24),
        })
    }
}

/// Parses an interval like `24h`, `90m` or `2d` (see [`RefreshSchedule::parse`]).
pub fn parse_interval(s: &str) -> Result<Duration, ScheduleError> {
    parse_duration(s)
}

/// A schedule string that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid refresh schedule: {0}")]
pub struct ScheduleError(pub String);

/// Parses `90s`, `15m`, `1h`, `30d`.
fn parse_duration(s: &str) -> Result<Duration, ScheduleError> {
    let s = s.trim();
    let bad = || ScheduleError(format!("`{s}` is not a duration like 15m, 1h or 30d"));
    let (num, unit) = s.split_at(s.len().checked_sub(1).ok_or_else(bad)?);
    let n: i64 = num.parse().map_err(|_| bad())?;
    match unit {
        "s" => Ok(Duration::seconds(n)),
        "m" => Ok(Duration::minutes(n)),
        "h" => Ok(Duration::hours(n)),
        "d" => Ok(Duration::days(n)),
        _ => Err(bad()),
    }
}

/// After this many consecutive failed reads a video shows as `failed`
/// (it keeps its schedule, with backoff, and recovers on the next success).
pub const FAILING_AFTER_FAILURES: i64 = 3;

/// When to retry a video whose read failed for the `failures`-th time in a
/// row: exponential backoff from one minute, never later than the regular
/// schedule would read it.
pub fn retry_after_failure(failures: i64, regular: Duration) -> Duration {
    let exp = failures.clamp(1, 10) - 1;
    let backoff = Duration::minutes(1) * 2_i32.pow(exp as u32);
    backoff.min(regular)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use rstest::rstest;

    use super::*;

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap()
    }

    #[rstest]
    #[case(Duration::zero(), Duration::minutes(15))]
    #[case(Duration::hours(23) + Duration::minutes(59), Duration::minutes(15))]
    #[case(Duration::hours(24), Duration::hours(1))]
    #[case(Duration::days(6), Duration::hours(1))]
    #[case(Duration::days(7), Duration::hours(6))]
    #[case(Duration::days(29), Duration::hours(6))]
    fn default_tiers(#[case] age: Duration, #[case] every: Duration) {
        assert_eq!(RefreshSchedule::default().interval_at(age), Some(every));
    }

    #[test]
    fn stops_at_the_end_of_the_window() {
        let s = RefreshSchedule::default();
        let ends = t0() + Duration::days(30);
        let late = ends - Duration::hours(1);
        assert_eq!(s.next_after(t0(), ends, late), Some(ends));
        assert_eq!(s.next_after(t0(), ends, ends), None);
        assert_eq!(s.next_after(t0(), ends, ends + Duration::hours(1)), None);
        assert_eq!(
            s.next_after(t0(), ends, t0()),
            Some(t0() + Duration::minutes(15))
        );
    }

    #[test]
    fn reads_daily_past_the_tiers_until_the_extended_end() {
        let s = RefreshSchedule::default();
        let ends = t0() + Duration::days(60);
        let day31 = t0() + Duration::days(31);
        assert_eq!(
            s.next_after(t0(), ends, day31),
            Some(day31 + Duration::days(1))
        );
        let late = ends - Duration::hours(3);
        assert_eq!(s.next_after(t0(), ends, late), Some(ends));
        assert_eq!(s.next_after(t0(), ends, ends), None);
        let hourly = s.clone().with_extended(Duration::hours(1)).unwrap();
        assert_eq!(
            hourly.next_after(t0(), ends, day31),
            Some(day31 + Duration::hours(1))
        );
        assert!(s.with_extended(Duration::zero()).is_err());
        assert_eq!(parse_interval("24h"), Ok(Duration::hours(24)));
    }

    #[test]
    fn parses_the_default_spelling() {
        assert_eq!(
            RefreshSchedule::parse("15m@24h,1h@7d,6h@30d"),
            Ok(RefreshSchedule::default())
        );
        assert!(RefreshSchedule::parse("").is_err());
        assert!(RefreshSchedule::parse("15m@24h,1h@2h").is_err());
        assert!(RefreshSchedule::parse("0m@24h").is_err());
        assert!(RefreshSchedule::parse("15x@24h").is_err());
    }
}
