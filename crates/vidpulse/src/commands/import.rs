//! `vidpulse admin import-stats`: historical statistics from a CSV file
//! (docs/operations.md, "Importing history"). Every row is checked before
//! anything is written; the first bad row stops the import with its number
//! (the header is row 1); the rows are stored in one transaction.

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use uuid::Uuid;
use vidpulse_domain::video_url::{ParsedUrl, parse_video_url};
use vidpulse_domain::{Counters, OrgId, Platform};
use vidpulse_store::{ImportRow, Store, StoreError};

/// What `admin import-stats` prints.
#[derive(Debug, Serialize)]
pub struct Imported {
    /// Videos the organization did not track before.
    pub videos_created: usize,
    /// Snapshots stored.
    pub snapshots_imported: usize,
    /// Snapshots already stored, left as they were.
    pub snapshots_skipped: usize,
}

const REQUIRED: [&str; 8] = [
    "platform",
    "external_video_id",
    "captured_at",
    "views",
    "likes",
    "comments",
    "reposts",
    "saves",
];
const OPTIONAL: [&str; 4] = ["url", "channel_username", "title", "published_at"];
/// Longest title kept.
const TITLE_MAX_CHARS: usize = 2000;
/// Snapshots may be stamped this far ahead of the clock (clock skew).
const FUTURE_SLACK: Duration = Duration::minutes(5);

/// Imports `file` for `org`: checks every row, then stores all or nothing.
pub async fn import_stats(
    store: &Arc<dyn Store>,
    org: Uuid,
    file: &Path,
    window: Duration,
    now: DateTime<Utc>,
) -> anyhow::Result<Imported> {
    let reader =
        std::fs::File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
    let rows = parse_stats_csv(reader, now)?;
    let out = store
        .import_observations(OrgId(org), &rows, window, now)
        .await
        .map_err(|e| match e {
            StoreError::NotFound => anyhow::anyhow!("organization {org} not found"),
            other => anyhow::Error::new(other).context("cannot store the import"),
        })?;
    Ok(Imported {
        videos_created: out.videos_created,
        snapshots_imported: out.snapshots_imported,
        snapshots_skipped: out.snapshots_skipped,
    })
}

/// True when the file has no header at all or only an empty line.
fn header_is_blank(header: &csv::StringRecord) -> bool {
    header.is_empty() || (header.len() == 1 && header[0].is_empty())
}

/// Parses and checks a whole file; the error names the row and the reason.
pub fn parse_stats_csv(input: impl Read, now: DateTime<Utc>) -> anyhow::Result<Vec<ImportRow>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let header = match reader.headers() {
        Ok(h) if !header_is_blank(h) => h.clone(),
        Ok(_) => bail!("row 1: the file is empty; it needs a header row"),
        Err(e) => bail!("row 1: {}", csv_reason(&e)),
    };
    let mut columns: Vec<&str> = Vec::new();
    for name in header.iter() {
        let name = name.trim_start_matches('\u{feff}');
        if name.contains('\0') {
            bail!("row 1: a column name contains a NUL character");
        }
        if !REQUIRED.contains(&name) && !OPTIONAL.contains(&name) {
            bail!(
                "row 1: unknown column `{name}`; the columns are {} (required) and {} (optional)",
                REQUIRED.join(", "),
                OPTIONAL.join(", ")
            );
        }
        if columns.contains(&name) {
            bail!("row 1: column `{name}` appears twice");
        }
        columns.push(name);
    }
    if let Some(missing) = REQUIRED.iter().find(|c| !columns.contains(c)) {
        bail!("row 1: required column `{missing}` is missing");
    }
    let index = |name: &str| columns.iter().position(|c| *c == name);
    let at = |record: &csv::StringRecord, name: &str| -> Option<String> {
        index(name)
            .and_then(|i| record.get(i))
            .map(str::to_owned)
            .filter(|s| !s.is_empty())
    };
    let mut rows = Vec::new();
    let mut seen: HashSet<(Platform, String, DateTime<Utc>)> = HashSet::new();
    for (i, record) in reader.records().enumerate() {
        let number = i + 2;
        let record = record.map_err(|e| anyhow::anyhow!("row {number}: {}", csv_reason(&e)))?;
        // PostgreSQL refuses NUL in text and SQLite would keep it: neither stores it.
        if let Some(i) = record.iter().position(|field| field.contains('\0')) {
            let column = columns.get(i).copied().unwrap_or("?");
            bail!("row {number}: `{column}` contains a NUL character");
        }
        let row = parse_row(&record, &at, now).map_err(|e| anyhow::anyhow!("row {number}: {e}"))?;
        if !seen.insert((row.platform, row.external_id.clone(), row.captured_at)) {
            bail!(
                "row {number}: duplicate snapshot of {} video {} at {}",
                row.platform.display_name(),
                row.external_id,
                row.captured_at.to_rfc3339()
            );
        }
        rows.push(row);
    }
    Ok(rows)
}

fn csv_reason(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "the file is not valid UTF-8".into(),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields where the header has {expected_len}"),
        _ => e.to_string(),
    }
}

fn parse_row(
    record: &csv::StringRecord,
    at: &dyn Fn(&csv::StringRecord, &str) -> Option<String>,
    now: DateTime<Utc>,
) -> anyhow::Result<ImportRow> {
    let platform_raw = at(record, "platform").context("`platform` is empty")?;
    let platform = Platform::from_id(&platform_raw.to_ascii_lowercase()).map_err(|_| {
        anyhow::anyhow!("`platform` must be tiktok, instagram or youtube; got `{platform_raw}`")
    })?;
    let external_id = at(record, "external_video_id").context("`external_video_id` is empty")?;
    if !valid_id(platform, &external_id) {
        bail!(
            "`external_video_id` `{}` is not a {} video id",
            clip(&external_id),
            platform.display_name()
        );
    }
    let captured_at =
        timestamp(at(record, "captured_at"), "captured_at")?.context("`captured_at` is empty")?;
    if captured_at > now + FUTURE_SLACK {
        bail!(
            "`captured_at` {} is in the future",
            captured_at.to_rfc3339()
        );
    }
    let metric = |name: &str| -> anyhow::Result<Option<i64>> {
        match at(record, name) {
            None => Ok(None),
            Some(s) => s
                .parse::<i64>()
                .ok()
                .filter(|n| *n >= 0)
                .map(Some)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "`{name}` must be a whole number ≥ 0 or empty; got `{}`",
                        clip(&s)
                    )
                }),
        }
    };
    let counters = Counters {
        views: metric("views")?,
        likes: metric("likes")?,
        comments: metric("comments")?,
        reposts: metric("reposts")?,
        saves: metric("saves")?,
    };
    let url = match at(record, "url") {
        None => None,
        Some(u) => match parse_video_url(&u) {
            Ok(ParsedUrl::Video(v)) if v.platform == platform && v.external_id == external_id => {
                Some(v.canonical_url)
            }
            _ => bail!("`url` `{}` is not a page of this video", clip(&u)),
        },
    };
    let channel_username = match at(record, "channel_username") {
        None => None,
        Some(u) => {
            let name = u.trim_start_matches('@');
            let ok = !name.is_empty()
                && name.chars().count() <= 100
                && name
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'));
            if !ok {
                bail!("`channel_username` `{}` is not a valid handle", clip(&u));
            }
            Some(name.to_owned())
        }
    };
    let title = at(record, "title").map(|t| t.chars().take(TITLE_MAX_CHARS).collect());
    let published_at = timestamp(at(record, "published_at"), "published_at")?;
    Ok(ImportRow {
        platform,
        external_id,
        captured_at,
        counters,
        url,
        channel_username,
        title,
        published_at,
    })
}

fn timestamp(value: Option<String>, name: &str) -> anyhow::Result<Option<DateTime<Utc>>> {
    value
        .map(|s| {
            DateTime::parse_from_rfc3339(&s)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| {
                    anyhow::anyhow!(
                        "`{name}` must be an RFC 3339 timestamp such as 2026-10-01T12:00:00Z; got `{}`",
                        clip(&s)
                    )
                })
        })
        .transpose()
}

/// Whether `id` has the shape of a video id of `platform`.
fn valid_id(platform: Platform, id: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    match platform {
        Platform::TikTok => (1..=25).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit()),
        Platform::YouTube => id.len() == 11 && id.chars().all(word),
        Platform::Instagram => (1..=64).contains(&id.len()) && id.chars().all(word),
    }
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).unwrap()
    }

    fn parse(csv: &str) -> anyhow::Result<Vec<ImportRow>> {
        parse_stats_csv(csv.as_bytes(), now())
    }

    const HEADER: &str =
        "platform,external_video_id,captured_at,views,likes,comments,reposts,saves";

    #[test]
    fn reads_rows_in_any_column_order_with_optional_columns() {
        let rows = parse(
            "views,likes,comments,reposts,saves,captured_at,external_video_id,platform,channel_username,url\n\
             10,2,1,,,2026-10-01T12:00:00Z,dQw4w9WgXcQ,youtube,@Mira,https://youtu.be/dQw4w9WgXcQ\n\
             5,,,,,2026-10-01T13:00:00+02:00,7301234567890123456,TikTok,,\n",
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].counters.views, Some(10));
        assert_eq!(rows[0].counters.reposts, None);
        assert_eq!(rows[0].channel_username.as_deref(), Some("Mira"));
        assert_eq!(
            rows[0].url.as_deref(),
            Some("https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        );
        assert_eq!(rows[1].platform, Platform::TikTok);
        assert_eq!(
            rows[1].captured_at,
            Utc.with_ymd_and_hms(2026, 10, 1, 11, 0, 0).unwrap()
        );
        assert!(parse(&format!("{HEADER}\n")).unwrap().is_empty());
    }

    #[test]
    fn every_mistake_names_its_row() {
        let ok_row = "youtube,dQw4w9WgXcQ,2026-10-01T12:00:00Z,1,1,1,1,1";
        for (csv, expected) in [
            ("", "row 1: the file is empty"),
            (
                "platform,external_video_id\n",
                "row 1: required column `captured_at` is missing",
            ),
            (
                &format!("{HEADER},colour\n"),
                "row 1: unknown column `colour`",
            ),
            (
                &format!("{HEADER},views\n"),
                "row 1: column `views` appears twice",
            ),
            (
                &format!("{HEADER}\n{ok_row}\nvimeo,1,2026-10-01T12:00:00Z,1,1,1,1,1\n"),
                "row 3: `platform` must be",
            ),
            (
                &format!("{HEADER}\nyoutube,short,2026-10-01T12:00:00Z,1,1,1,1,1\n"),
                "row 2: `external_video_id`",
            ),
            (
                &format!("{HEADER}\ntiktok,12a,2026-10-01T12:00:00Z,1,1,1,1,1\n"),
                "row 2: `external_video_id`",
            ),
            (
                &format!("{HEADER}\nyoutube,dQw4w9WgXcQ,yesterday,1,1,1,1,1\n"),
                "row 2: `captured_at` must be",
            ),
            (
                &format!("{HEADER}\nyoutube,dQw4w9WgXcQ,2027-01-01T00:00:00Z,1,1,1,1,1\n"),
                "in the future",
            ),
            (
                &format!("{HEADER}\nyoutube,dQw4w9WgXcQ,2026-10-01T12:00:00Z,-1,1,1,1,1\n"),
                "row 2: `views` must be",
            ),
            (
                &format!("{HEADER}\nyoutube,dQw4w9WgXcQ,2026-10-01T12:00:00Z,1.5,1,1,1,1\n"),
                "row 2: `views` must be",
            ),
            (
                &format!("{HEADER}\n{ok_row}\n{ok_row}\n"),
                "row 3: duplicate snapshot",
            ),
            (
                &format!("{HEADER}\nyoutube,dQw4w9WgXcQ,2026-10-01T12:00:00Z,1,1\n"),
                "row 2: 5 fields where the header has 8",
            ),
            (
                &format!("{HEADER},url\n{ok_row},https://youtu.be/aaaaaaaaaaa\n"),
                "row 2: `url`",
            ),
            (
                &format!("{HEADER},title\n{ok_row},fine\n{ok_row},bad\0title\n"),
                "row 3: `title` contains a NUL character",
            ),
            (
                &format!("{HEADER}\nyoutube,dQw4w9WgXcQ\0,2026-10-01T12:00:00Z,1,1,1,1,1\n"),
                "row 2: `external_video_id` contains a NUL character",
            ),
            (
                &format!("{HEADER},ti\0tle\n"),
                "row 1: a column name contains a NUL character",
            ),
        ] {
            let e = parse(csv).unwrap_err().to_string();
            assert!(
                e.starts_with(expected) || e.contains(expected),
                "{csv:?}: {e}"
            );
        }
    }
}
