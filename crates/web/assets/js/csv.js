// CSV downloads are data, not the screen: the server's own exports where it
// has one (`format=csv`), else the records' values as the server writes
// them (raw numbers, ISO dates, ids and URLs; column names as the API's
// fields). RFC 4180 quoting, CRLF line ends, and no cell a spreadsheet
// would run as a formula (the rule of the server's exports).
import { session, errorOf } from './api.js';

/**
 * `text` as a cell a spreadsheet shows as text: one starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return (what spreadsheets run as a formula)
 * gets a leading `'`, as the server's exports do (crates/api/src/v1/export.rs, `cell`).
 */
export function sheetText(text) {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** The text of one cell: numbers as they are, booleans as true/false, any text made safe by sheetText. */
function cellText(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return String(value);
  return sheetText(String(value));
}

export function csvCell(value) {
  const text = cellText(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header, rows) {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** Starts the download of `blob` as `filename`. */
export function saveBlob(filename, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Starts a download of `rows` (arrays of raw values) under `header` (column names). */
export function downloadCsv(filename, header, rows) {
  const blob = new Blob([toCsv(header, rows)], { type: 'text/csv;charset=utf-8' });
  saveBlob(filename.endsWith('.csv') ? filename : `${filename}.csv`, blob);
}

/** The file name a `Content-Disposition` header gives, else `fallback`. */
export function dispositionName(header, fallback) {
  const m = /filename="?([^";]+)"?/.exec(header || '');
  return m ? m[1] : fallback;
}

/**
 * Downloads the server's export at `path` (a dashboard endpoint answering
 * CSV) with the session and organization, as the file the server names.
 * Throws the server's error (an ApiError) when it refuses.
 */
export async function serverCsv(path, query, fallbackName) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) {
    if (Array.isArray(v)) v.forEach((item) => params.append(k, String(item)));
    else if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  const headers = { Accept: 'text/csv' };
  if (session.org) headers['X-Organization-ID'] = session.org;
  const res = await fetch(qs ? `${path}?${qs}` : path, { headers, credentials: 'same-origin' });
  if (!res.ok) {
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch (_) {
      json = null;
    }
    throw errorOf(res.status, json, res.headers);
  }
  const blob = await res.blob();
  saveBlob(dispositionName(res.headers.get('Content-Disposition'), fallbackName), blob);
}

/**
 * Every video the listing's `query` matches, as the server exports them
 * (GET /dashboard/videos/export: the columns, cells and gains of
 * GET /v1/videos/export).
 */
export async function exportVideos(query) {
  const { limit: _limit, offset: _offset, ...filters } = query || {};
  await serverCsv('/dashboard/videos/export', { ...filters, format: 'csv' }, `videos.csv`);
}
