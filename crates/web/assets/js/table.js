// Tables: caption, sortable headers, a CSV download of their data.
import { h, nextId, busy, toast, errorText } from './dom.js';
import { t } from './i18n.js';
import { downloadCsv } from './csv.js';

/**
 * columns: [{key, label, cell(row) → Node|string, numeric, sortable, csv}]
 * (`csv`: see csvOf; `hidden`: in the CSV only). sort: {key, dir: 'asc'|'desc', onSort(key)} (optional).
 * csvName: a file name (the rows' data by the columns' `csv`), or a
 * function that downloads (the server's export). Returns a wrapper with
 * the table and its CSV button.
 */
export function dataTable({ caption, columns: all, rows, csvName, empty, sort, rowAttrs, hideCaption = false }) {
  // Columns marked `hidden` are data of the CSV only (ids, say).
  const columns = all.filter((c) => !c.hidden);
  const headRow = h(
    'tr',
    null,
    columns.map((c) => {
      const attrs = { scope: 'col', class: c.numeric ? 'num' : null };
      if (sort && c.sortable) {
        const active = sort.key === c.key;
        attrs['aria-sort'] = active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none';
        const arrow = active ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : '';
        return h(
          'th',
          attrs,
          h('button', { type: 'button', class: 'sort', onclick: () => sort.onSort(c.key) }, c.label, h('span', { 'aria-hidden': 'true' }, arrow)),
        );
      }
      return h('th', attrs, c.label);
    }),
  );
  const body = h('tbody');
  if (!rows.length) {
    body.append(h('tr', null, h('td', { colspan: columns.length, class: 'empty' }, empty || t('table.empty'))));
  }
  for (const row of rows) {
    body.append(
      h(
        'tr',
        rowAttrs ? rowAttrs(row) : null,
        columns.map((c) => {
          const value = c.cell ? c.cell(row) : row[c.key];
          const attrs = { class: c.numeric ? 'num' : null };
          return c.header ? h('th', { ...attrs, scope: 'row' }, value ?? '') : h('td', attrs, value ?? '');
        }),
      ),
    );
  }
  const captionEl = h('caption', { class: hideCaption ? 'visually-hidden' : null }, caption);
  const table = h('table', { class: 'table' }, captionEl, h('thead', null, headRow), body);
  const wrap = h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('table.region', { caption }) }, table);
  const tools = h('div', { class: 'table-tools' });
  if (csvName) tools.append(csvButton({ columns: all, rows, csv: csvName, caption }));
  return h('div', { class: 'table-block' }, tools, wrap);
}

/**
 * The CSV of `rows` by `columns`: each column's `csv` names its field
 * (`false` leaves it out; a string reads that field; a pair [name, fn]
 * reads fn(row); by default the field `key`), written raw: numbers as
 * numbers, instants and days as the API gives them (ISO), ids and URLs.
 */
export function csvOf(columns, rows) {
  const picked = columns
    .filter((c) => c.csv !== false)
    .map((c) => {
      if (Array.isArray(c.csv)) return c.csv;
      const field = typeof c.csv === 'string' ? c.csv : c.key;
      return [field, (row) => row[field]];
    });
  return [picked.map(([name]) => name), rows.map((row) => picked.map(([, read]) => read(row)))];
}

/**
 * A CSV download button: `csv` is a file name (the table's rows by its
 * columns' `csv`), or a function that downloads (the server's export).
 */
export function csvButton({ columns, rows, csv, caption }) {
  const label = t('table.csv');
  const button = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': caption ? `${label}: ${caption}` : label }, label);
  button.addEventListener('click', () =>
    busy(button, async () => {
      try {
        if (typeof csv === 'function') {
          await csv();
          return;
        }
        const [header, data] = csvOf(columns, rows);
        const day = new Date().toISOString().slice(0, 10);
        downloadCsv(`${csv}-${day}.csv`, header, data);
      } catch (e) {
        toast(errorText(e), 'error');
      }
    }),
  );
  return button;
}

export { nextId };
