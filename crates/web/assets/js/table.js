// Tables: caption, sortable headers, a CSV download of what is displayed.
import { h, nextId } from './dom.js';
import { t } from './i18n.js';
import { downloadCsv, Figure } from './csv.js';

/**
 * columns: [{key, label, cell(row) → Node|string, numeric, sortable, csv: false}]
 * sort: {key, dir: 'asc'|'desc', onSort(key)} (optional)
 * Returns a wrapper with the table and its CSV button.
 */
export function dataTable({ caption, columns, rows, csvName, empty, sort, rowAttrs, hideCaption = false }) {
  const headRow = h(
    'tr',
    null,
    columns.map((c) => {
      const attrs = { scope: 'col', class: c.numeric ? 'num' : null, dataset: c.csv === false ? { csv: 'no' } : null };
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
          const attrs = { class: c.numeric ? 'num' : null, dataset: c.csv === false ? { csv: 'no' } : null };
          return c.header ? h('th', { ...attrs, scope: 'row' }, value ?? '') : h('td', attrs, value ?? '');
        }),
      ),
    );
  }
  const captionEl = h('caption', { class: hideCaption ? 'visually-hidden' : null }, caption);
  const table = h('table', { class: 'table' }, captionEl, h('thead', null, headRow), body);
  const wrap = h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('table.region', { caption }) }, table);
  const tools = h('div', { class: 'table-tools' });
  if (csvName) tools.append(csvButton(table, csvName, caption));
  return h('div', { class: 'table-block' }, tools, wrap);
}

/**
 * The table's displayed cells, header first, leaving out columns marked
 * data-csv="no"; the cells of numeric columns as Figures (numbers stay
 * numbers in the file).
 */
export function tableCells(table) {
  const headers = [...table.tHead.rows[0].cells];
  const keep = headers.map((c) => c.dataset.csv !== 'no');
  const text = (cell) => {
    const marked = cell.dataset.csvValue ?? cell.querySelector('[data-csv-value]')?.dataset.csvValue;
    if (marked !== undefined) return marked;
    const chosen = cell.querySelector('select');
    if (chosen) return chosen.selectedOptions[0]?.textContent ?? '';
    return cell.textContent.replace(/\s+/g, ' ').trim();
  };
  const header = headers.filter((_, i) => keep[i]).map(text);
  const rows = [];
  for (const tr of table.tBodies[0].rows) {
    if (tr.cells.length !== headers.length) continue;
    const cells = [...tr.cells].map((cell, i) => (headers[i].classList.contains('num') ? new Figure(text(cell)) : text(cell)));
    rows.push(cells.filter((_, i) => keep[i]));
  }
  return [header, rows];
}

export function csvButton(table, name, caption) {
  const label = t('table.csv');
  return h(
    'button',
    {
      type: 'button',
      class: 'btn btn-small',
      'aria-label': caption ? `${label}: ${caption}` : label,
      onclick: () => {
        const [header, rows] = tableCells(table);
        const day = new Date().toISOString().slice(0, 10);
        downloadCsv(`${name}-${day}.csv`, header, rows);
      },
    },
    label,
  );
}

export { nextId };
