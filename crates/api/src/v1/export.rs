//! Data out, in the formats spreadsheets and pipelines read (docs/api.md,
//! "Exports"): which format a request asks for, RFC 4180 CSV whose cells a
//! spreadsheet will never run as a formula, and the CSV shape of each
//! analytics answer.

use std::borrow::Cow;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::app::analytics::{IncrementsData, MetricsView, TotalsData};
use crate::app::compare::ChangeView;
use crate::app::top::TopData;
use crate::error::ApiError;

/// The format an answer is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The JSON envelope.
    Json,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON object a line.
    Ndjson,
}

impl Format {
    /// The name `format=` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Ndjson => "ndjson",
        }
    }

    /// The `Content-Type` of an answer in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Csv => "text/csv; charset=utf-8",
            Format::Ndjson => "application/x-ndjson",
        }
    }

    /// The format `format` names (`sent`, one of `allowed`), else the one the
    /// `Accept` header prefers among `allowed`, else `allowed[0]`. `Err`
    /// carries the message for a `format` the answer cannot take.
    pub fn asked(
        sent: Option<&str>,
        headers: &HeaderMap,
        allowed: &[Format],
    ) -> Result<Format, String> {
        if let Some(sent) = sent {
            return allowed
                .iter()
                .copied()
                .find(|f| f.name() == sent)
                .ok_or_else(|| {
                    let names: Vec<&str> = allowed.iter().map(|f| f.name()).collect();
                    format!("`format` must be one of {}; got `{sent}`", names.join(", "))
                });
        }
        let accept = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        for media in accept.split(',') {
            let media = media.split(';').next().unwrap_or_default().trim();
            let named = match media {
                "text/csv" => Some(Format::Csv),
                "application/x-ndjson" | "application/ndjson" => Some(Format::Ndjson),
                "application/json" => Some(Format::Json),
                _ => None,
            };
            if let Some(format) = named.filter(|f| allowed.contains(f)) {
                return Ok(format);
            }
        }
        Ok(allowed[0])
    }
}

/// `format`: how the answer is written.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FormatParam {
    /// `json` (default) or `csv`; without it, `Accept: text/csv` asks for CSV
    #[param(value_type = Option<String>)]
    pub format: Option<String>,
}

/// `text` as a CSV cell a spreadsheet shows as text: one starting with
/// `=`, `+`, `-`, `@`, a tab or a carriage return (what spreadsheets run as
/// a formula) gets a leading `'`.
pub fn cell(text: &str) -> Cow<'_, str> {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A CSV writer into memory (RFC 4180: commas, CRLF line ends, quotes where
/// a cell needs them).
pub fn csv_writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new())
}

/// The bytes a CSV writer holds.
pub fn csv_bytes(writer: csv::Writer<Vec<u8>>) -> Result<Vec<u8>, ApiError> {
    writer
        .into_inner()
        .map_err(|e| ApiError::internal(&std::io::Error::other(e.to_string())))
}

/// Writes one CSV record.
pub fn write_row<I, S>(writer: &mut csv::Writer<Vec<u8>>, row: I) -> Result<(), ApiError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<[u8]>,
{
    writer.write_record(row).map_err(|e| ApiError::internal(&e))
}

/// An answer of `body` in `format`, offered as a download named `filename`.
pub fn download(format: Format, filename: &str, body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    if let Ok(value) = HeaderValue::from_str(&format!(
        "attachment; filename=\"{filename}.{}\"",
        format.name()
    )) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

/// A number cell (`""` for none).
pub fn number<T: ToString>(n: Option<T>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

const METRICS: [&str; 5] = ["views", "likes", "comments", "reposts", "saves"];

fn metric_cells(m: &MetricsView) -> [String; 5] {
    [m.views, m.likes, m.comments, m.reposts, m.saves].map(|n| n.to_string())
}

fn change_cells(c: &ChangeView) -> [String; 5] {
    [c.views, c.likes, c.comments, c.reposts, c.saves].map(number)
}

/// The column names of a comparison: `previous_views`…, `change_views`….
fn comparison_columns() -> impl Iterator<Item = String> {
    METRICS
        .iter()
        .map(|m| format!("previous_{m}"))
        .chain(METRICS.iter().map(|m| format!("change_{m}")))
}

/// A comparison's cells, or none when there is none.
fn comparison_cells(previous: Option<&MetricsView>, change: Option<&ChangeView>) -> Vec<String> {
    match (previous, change) {
        (Some(p), Some(c)) => metric_cells(p).into_iter().chain(change_cells(c)).collect(),
        _ => Vec::new(),
    }
}

/// Totals as CSV: the total first (`group_key` empty, `group_label`
/// `Total`), then each group; with a comparison, its columns after.
pub fn totals_csv(data: &TotalsData) -> Result<Vec<u8>, ApiError> {
    let compared = data.previous.is_some();
    let mut w = csv_writer();
    let mut header: Vec<String> = ["group_key", "group_label"]
        .into_iter()
        .chain(METRICS)
        .map(str::to_owned)
        .collect();
    if compared {
        header.extend(comparison_columns());
    }
    write_row(&mut w, &header)?;
    let mut total = vec![String::new(), "Total".to_owned()];
    total.extend(metric_cells(&data.total));
    total.extend(comparison_cells(
        data.previous.as_ref(),
        data.change.as_ref(),
    ));
    write_row(&mut w, &total)?;
    for g in &data.groups {
        let mut row = vec![
            cell(&g.group_key).into_owned(),
            cell(&g.group_label).into_owned(),
        ];
        row.extend(metric_cells(&g.metrics));
        row.extend(comparison_cells(g.previous.as_ref(), g.change.as_ref()));
        write_row(&mut w, &row)?;
    }
    csv_bytes(w)
}

/// Increments as CSV: a row per day and group, days ascending.
pub fn increments_csv(data: &IncrementsData) -> Result<Vec<u8>, ApiError> {
    let mut w = csv_writer();
    write_row(
        &mut w,
        ["day", "group_key", "group_label"]
            .into_iter()
            .chain(METRICS),
    )?;
    for day in &data.data {
        for g in day.groups.values() {
            let mut row = vec![
                day.period.to_string(),
                cell(&g.key).into_owned(),
                cell(&g.label).into_owned(),
            ];
            row.extend(metric_cells(&g.metrics));
            write_row(&mut w, &row)?;
        }
    }
    csv_bytes(w)
}

/// A leaderboard as CSV: a row per place; the video columns empty for
/// groups; with a comparison, its columns after.
pub fn top_csv(data: &TopData) -> Result<Vec<u8>, ApiError> {
    let compared = data.previous_period.is_some();
    let mut w = csv_writer();
    let mut header: Vec<String> = ["rank", "key", "label"]
        .into_iter()
        .chain(METRICS)
        .chain([
            "video_id",
            "external_video_id",
            "title",
            "url",
            "platform",
            "blogger_username",
        ])
        .map(str::to_owned)
        .collect();
    if compared {
        header.extend(comparison_columns());
    }
    write_row(&mut w, &header)?;
    for item in &data.items {
        let mut row = vec![
            item.rank.to_string(),
            cell(&item.key).into_owned(),
            cell(&item.label).into_owned(),
        ];
        row.extend(metric_cells(&item.metrics));
        row.extend([
            number(item.video_id),
            item.external_video_id
                .as_deref()
                .map(cell)
                .unwrap_or_default()
                .into_owned(),
            item.title
                .clone()
                .flatten()
                .as_deref()
                .map(cell)
                .unwrap_or_default()
                .into_owned(),
            item.url
                .as_deref()
                .map(cell)
                .unwrap_or_default()
                .into_owned(),
            item.platform.unwrap_or_default().to_owned(),
            item.blogger_username
                .clone()
                .flatten()
                .as_deref()
                .map(cell)
                .unwrap_or_default()
                .into_owned(),
        ]);
        row.extend(comparison_cells(
            item.previous.as_ref(),
            item.change.as_ref(),
        ));
        write_row(&mut w, &row)?;
    }
    csv_bytes(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_become_text() {
        for risky in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(cell(risky), format!("'{risky}"));
        }
        for plain in ["Summer launch", "1", "", "a=b"] {
            assert_eq!(cell(plain), plain);
        }
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let mut w = csv_writer();
        write_row(&mut w, ["a,b", "say \"hi\"", "line\nbreak", "plain"]).unwrap();
        assert_eq!(
            String::from_utf8(csv_bytes(w).unwrap()).unwrap(),
            "\"a,b\",\"say \"\"hi\"\"\",\"line\nbreak\",plain\r\n"
        );
    }

    #[test]
    fn the_format_param_wins_then_accept() {
        let mut headers = HeaderMap::new();
        let both = [Format::Json, Format::Csv];
        assert_eq!(Format::asked(None, &headers, &both), Ok(Format::Json));
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/csv;q=0.9, */*"),
        );
        assert_eq!(Format::asked(None, &headers, &both), Ok(Format::Csv));
        assert_eq!(
            Format::asked(Some("json"), &headers, &both),
            Ok(Format::Json)
        );
        assert!(Format::asked(Some("xml"), &headers, &both).is_err());
        assert!(Format::asked(Some("ndjson"), &headers, &both).is_err());
    }
}
