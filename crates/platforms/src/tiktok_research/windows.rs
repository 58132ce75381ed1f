//! Date windows: every query names one of at most 30 days, a video id
//! carries the day it was created (which picks the window to read it in),
//! ids go in batches whose days fit one window, and our trend cursor
//! carries the window its page belongs to.

use chrono::{DateTime, Days, NaiveDate, Utc};

use super::wire::is_search_id;
use super::{BATCH, WINDOW_DAYS};

pub(super) fn ymd(d: NaiveDate) -> String {
    d.format("%Y%m%d").to_string()
}

pub(super) fn today() -> NaiveDate {
    Utc::now().date_naive()
}

pub(super) fn days_before(d: NaiveDate, n: u64) -> NaiveDate {
    d.checked_sub_days(Days::new(n)).unwrap_or(NaiveDate::MIN)
}

/// The UTC day a video id was created: `id >> 32` is its Unix time (docs/platforms.md).
pub(super) fn id_day(id: u64) -> NaiveDate {
    let secs = i64::try_from(id >> 32).unwrap_or(0);
    DateTime::from_timestamp(secs, 0)
        .unwrap_or_default()
        .date_naive()
}

/// Our opaque trend cursor: `{cursor}:{search_id}:{start}:{end}`.
pub(super) fn encode_cursor(
    cursor: u64,
    search_id: &str,
    start: NaiveDate,
    end: NaiveDate,
) -> String {
    format!("{cursor}:{search_id}:{}:{}", ymd(start), ymd(end))
}

pub(super) fn decode_cursor(s: &str) -> Option<(u64, String, NaiveDate, NaiveDate)> {
    let parts: Vec<&str> = s.split(':').collect();
    let [cursor, search_id, start, end] = parts.as_slice() else {
        return None;
    };
    let date = |d: &str| {
        NaiveDate::parse_from_str(d, "%Y%m%d")
            .ok()
            .filter(|_| d.len() == 8)
    };
    let (start, end) = (date(start)?, date(end)?);
    let span = (end - start).num_days();
    if !is_search_id(search_id) || !(0..=WINDOW_DAYS as i64).contains(&span) {
        return None;
    }
    Some((cursor.parse().ok()?, search_id.to_string(), start, end))
}

/// Splits ids into batches of at most [`BATCH`] whose creation days span at
/// most 28 days, each with its window: a day of slack on both sides, never
/// past today.
pub(super) fn batches<'a>(
    ids: &[(&'a str, NaiveDate)],
) -> Vec<(Vec<&'a str>, (NaiveDate, NaiveDate))> {
    let mut sorted = ids.to_vec();
    sorted.sort_by_key(|(_, day)| *day);
    let mut out: Vec<(Vec<&str>, NaiveDate, NaiveDate)> = Vec::new();
    for (id, day) in sorted {
        match out.last_mut() {
            Some((batch, first, last))
                if batch.len() < BATCH && (day - *first).num_days() <= 28 =>
            {
                batch.push(id);
                *last = day;
            }
            _ => out.push((vec![id], day, day)),
        }
    }
    let today = today();
    out.into_iter()
        .map(|(batch, first, last)| {
            let end = last
                .checked_add_days(Days::new(1))
                .unwrap_or(last)
                .min(today);
            (batch, (days_before(first, 1).min(end), end))
        })
        .collect()
}
