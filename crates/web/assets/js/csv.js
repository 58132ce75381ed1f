// CSV files of tables as displayed: RFC 4180 quoting, UTF-8 with a BOM so
// spreadsheet programs read the characters right, and no cell a spreadsheet
// would run as a formula (the rule of the server's exports).

/** A number as the app writes one (`-1,234`, `+12.5`, `1.234`, `+12,5 %`): kept as it is. */
const NUMBER = /^[+-]?\d[\d.,]*(\s?%)?$/;

/** A cell of a numeric column: written as it is when it holds a number. */
export class Figure {
  constructor(text) {
    this.text = text;
  }
}

/**
 * `text` as a cell a spreadsheet shows as text: one starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return (what spreadsheets run as a formula)
 * gets a leading `'`, as the server's exports do (crates/api/src/v1/export.rs, `cell`).
 */
export function sheetText(text) {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** The text of one cell: numbers as they are, any other value made safe by sheetText. */
function cellText(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  if (value instanceof Figure && NUMBER.test(value.text)) return value.text;
  return sheetText(String(value instanceof Figure ? value.text : value));
}

export function csvCell(value) {
  const text = cellText(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header, rows) {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** Starts a download of `rows` (arrays of cells: text, numbers or Figures) under `header`. */
export function downloadCsv(filename, header, rows) {
  const blob = new Blob(['\uFEFF', toCsv(header, rows)], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename.endsWith('.csv') ? filename : `${filename}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
