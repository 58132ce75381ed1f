//! The `stats` object of a video record: for each metric, the reading time
//! (`YYYY-MM-DD HH:MM:SS.ffffff+00`) → value, over the video's history.
//!
//! A history holds up to about 330 readings (the default schedule over 30
//! days), so a record's `stats` has up to 1,650 entries: they are written
//! straight from the history, each time formatted once, with no map built.

use chrono::{DateTime, Datelike, Timelike, Utc};
use serde::ser::{Serialize, SerializeMap, Serializer};
use vidpulse_domain::metrics::{Counters, Observation};

/// Reads one metric off a reading's counters.
type Metric = fn(&Counters) -> Option<i64>;

/// The metric series, in the order of their names (as a sorted map gives them).
const METRICS: [(&str, Metric); 5] = [
    ("comments", |c| c.comments),
    ("likes", |c| c.likes),
    ("reposts", |c| c.reposts),
    ("saves", |c| c.saves),
    ("views", |c| c.views),
];

/// One key of a series: a reading time, formatted (ASCII).
type TimeKey = [u8; KEY_LEN];

/// The length of a formatted reading time.
const KEY_LEN: usize = 29;

/// `stats` of one video: every metric over its history, oldest first.
#[derive(Debug, Default)]
pub struct StatsMap {
    /// Reading times, formatted, ascending and distinct, one after the
    /// other (`KEY_LEN` bytes each).
    times: String,
    /// The counters read at each of `times`.
    counters: Vec<Counters>,
}

impl StatsMap {
    /// The series of a history sorted by time (as the store returns it).
    /// Two readings in the same microsecond keep the later one, as a map would.
    pub fn new(history: &[Observation]) -> Self {
        let mut map = StatsMap {
            times: String::with_capacity(history.len() * KEY_LEN),
            counters: Vec::with_capacity(history.len()),
        };
        for o in history {
            let key = time_key(o.captured_at);
            // Only ASCII digits and separators are ever written to a key.
            let key = std::str::from_utf8(&key).unwrap_or_default();
            if map.times.ends_with(key) {
                if let Some(last) = map.counters.last_mut() {
                    *last = o.counters;
                }
                continue;
            }
            map.times.push_str(key);
            map.counters.push(o.counters);
        }
        map
    }

    /// The formatted reading times, in order.
    fn keys(&self) -> impl Iterator<Item = &str> {
        (0..self.counters.len()).filter_map(|i| self.times.get(i * KEY_LEN..(i + 1) * KEY_LEN))
    }
}

impl Serialize for StatsMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(METRICS.len()))?;
        for (name, metric) in METRICS {
            map.serialize_entry(name, &Series { map: self, metric })?;
        }
        map.end()
    }
}

/// One metric's series: the readings that carry it.
struct Series<'a> {
    map: &'a StatsMap,
    metric: Metric,
}

impl Serialize for Series<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, counters) in self.map.keys().zip(&self.map.counters) {
            if let Some(value) = (self.metric)(counters) {
                map.serialize_entry(key, &value)?;
            }
        }
        map.end()
    }
}

/// `YYYY-MM-DD HH:MM:SS.ffffff+00` (the record's timestamp keys), without a
/// format string to interpret on each of a history's readings.
fn time_key(t: DateTime<Utc>) -> TimeKey {
    let mut key = *b"0000-00-00 00:00:00.000000+00";
    let mut put = |at: usize, width: usize, mut n: u32| {
        for i in (at..at + width).rev() {
            key[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
    };
    // Years outside 0..=9999 never reach a video's history; they wrap.
    put(0, 4, t.year().rem_euclid(10_000) as u32);
    put(5, 2, t.month());
    put(8, 2, t.day());
    put(11, 2, t.hour());
    put(14, 2, t.minute());
    put(17, 2, t.second());
    put(20, 6, (t.nanosecond() % 1_000_000_000) / 1_000);
    key
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn reading(at: DateTime<Utc>, views: i64, saves: Option<i64>) -> Observation {
        Observation {
            captured_at: at,
            counters: Counters {
                views: Some(views),
                likes: Some(views / 10),
                comments: None,
                reposts: None,
                saves,
            },
        }
    }

    #[test]
    fn keys_match_the_spec_format() {
        let t = Utc.with_ymd_and_hms(2026, 3, 7, 4, 5, 9).unwrap()
            + chrono::Duration::microseconds(12_345);
        let key = time_key(t);
        assert_eq!(
            std::str::from_utf8(&key).unwrap(),
            "2026-03-07 04:05:09.012345+00"
        );
        assert_eq!(
            std::str::from_utf8(&key).unwrap(),
            t.format("%Y-%m-%d %H:%M:%S%.6f+00").to_string()
        );
    }

    #[test]
    fn series_hold_only_the_readings_that_carry_the_metric() {
        let t0 = Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap();
        let t1 = t0 + chrono::Duration::minutes(15);
        let stats = StatsMap::new(&[reading(t0, 100, None), reading(t1, 250, Some(3))]);
        let json = serde_json::to_value(&stats).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "comments": {},
                "likes": {"2026-11-01 12:00:00.000000+00": 10, "2026-11-01 12:15:00.000000+00": 25},
                "reposts": {},
                "saves": {"2026-11-01 12:15:00.000000+00": 3},
                "views": {"2026-11-01 12:00:00.000000+00": 100, "2026-11-01 12:15:00.000000+00": 250},
            })
        );
        // Keys in the order of their names, as the map this replaced gave them.
        let text = serde_json::to_string(&stats).unwrap();
        assert!(text.starts_with("{\"comments\":{},\"likes\":"), "{text}");
    }

    #[test]
    fn two_readings_in_one_microsecond_keep_the_later() {
        let t0 = Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap();
        let t1 = t0 + chrono::Duration::nanoseconds(300);
        let stats = StatsMap::new(&[reading(t0, 100, None), reading(t1, 120, None)]);
        let json = serde_json::to_value(&stats).unwrap();
        assert_eq!(
            json["views"],
            serde_json::json!({"2026-11-01 12:00:00.000000+00": 120})
        );
    }
}
