// The page a share link opens (/share/{token}), with no sign-in: the
// organization's name and logo, the campaign, a period picker, the headline
// numbers (and the money when the link shows spend), per day, the top
// videos and the creators, a CSV download; printable as a clean PDF. Its
// data is GET /share/{token}/report, which knows the link and nothing else.
import { get } from '../api.js';
import { h, fill, field, select, busy, errorBox, section } from '../dom.js';
import { t, num, date, dateRange } from '../i18n.js';
import { dataTable } from '../table.js';
import { barChart } from '../charts.js';
import { platformLabel, metricLabel, METRICS } from '../labels.js';
import { serverCsv } from '../csv.js';
import { money } from './campaigns.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function percent(value) {
  return value === null || value === undefined ? '–' : num(value, { style: 'percent', maximumFractionDigits: 1 });
}

function creatorName(r) {
  return r.blogger_username ? `@${r.blogger_username}` : t('campaigns.unknown_creator');
}

/** The organization's name and logo, and the campaign. */
function heading(report) {
  const org = report.organization;
  const c = report.campaign;
  const days = c.starts_on && c.ends_on ? dateRange(c.starts_on, c.ends_on) : null;
  return [
    h(
      'div',
      { class: 'shared-brand' },
      org.logo_url ? h('img', { src: org.logo_url, alt: '', class: 'shared-logo', height: 40 }) : null,
      h('span', { class: 'shared-org' }, org.name),
    ),
    h('h1', { id: 'page-title' }, c.name),
    h('p', { class: 'subtitle' }, [c.client ? t('campaigns.for_client', { client: c.client }) : null, days].filter(Boolean).join(' · ')),
  ];
}

/** The headline numbers: views and the other gains, then the money when shown. */
function headline(report) {
  const stat = (id, label, value, extra) => h('div', { class: 'stat', id }, h('dt', null, label), h('dd', null, value, extra ? h('span', { class: 'change' }, extra) : null));
  const c = report.campaign;
  const results = h(
    'dl',
    { class: 'stats', 'aria-label': t('share.results') },
    stat('shared-views', t('campaigns.gained_metric', { metric: metricLabel('views') }), num(report.total.views), t('campaigns.window_days', { from: date(report.from), to: date(report.to) })),
    ...METRICS.filter((m) => m !== 'views').map((m) => stat(`shared-${m}`, t('campaigns.gained_metric', { metric: metricLabel(m) }), num(report.total[m]))),
    stat('shared-er', t('campaigns.engagement_rate'), percent(report.engagement_rate)),
    stat('shared-progress', t('campaigns.target_progress'), percent(report.target_progress), c.target_views ? t('campaigns.target_of', { target: num(c.target_views) }) : t('campaigns.no_target')),
    stat('shared-videos', t('campaigns.col_videos'), num(report.videos)),
  );
  const m = report.money;
  if (!m) return [results];
  const cur = m.currency;
  const spend = h(
    'dl',
    { class: 'stats money', 'aria-label': t('campaigns.money') },
    stat('shared-spend', t('campaigns.spend'), money(m.spend, cur), m.videos_without_cost ? t('campaigns.without_cost', { count: m.videos_without_cost }) : null),
    stat('shared-budget-left', t('campaigns.budget_left'), money(m.budget_left, cur), m.budget !== null ? t('campaigns.of_budget', { budget: money(m.budget, cur) }) : t('campaigns.no_budget')),
    stat('shared-cpm', t('campaigns.cpm'), money(m.cpm, cur), t('campaigns.cpm_hint')),
    stat('shared-cpe', t('campaigns.cpe'), money(m.cpe, cur), t('campaigns.cpe_hint')),
  );
  return [results, spend];
}

function perDay(days) {
  const metricSel = select(METRICS.map((m) => [m, metricLabel(m)]), 'views', { id: 'shared-metric' });
  const slot = h('div', { class: 'chart-block' });
  const draw = () => {
    const m = metricSel.value;
    const points = days.map((d) => ({ date: d.date, value: d[m] }));
    const total = points.reduce((a, p) => a + (p.value || 0), 0);
    fill(
      slot,
      barChart({
        title: t('campaigns.chart_title', { metric: metricLabel(m) }),
        description: points.length ? t('chart.daily_summary', { count: points.length, total: num(total), metric: metricLabel(m) }) : t('chart.no_data'),
        points,
      }),
    );
  };
  metricSel.addEventListener('change', draw);
  draw();
  const table = () =>
    dataTable({
      caption: t('campaigns.per_day'),
      hideCaption: true,
      columns: [{ key: 'date', label: t('table.day'), header: true, cell: (d) => date(d.date) }, ...METRICS.map((m) => ({ key: m, label: metricLabel(m), numeric: true, cell: (r) => num(r[m]) }))],
      rows: [...days].reverse(),
    });
  // On screen the days' table folds away; on paper it is printed whole.
  return section(
    t('campaigns.per_day'),
    h('div', { class: 'chart-controls no-print' }, field(t('chart.metric'), metricSel)),
    slot,
    h('details', { class: 'no-print' }, h('summary', null, t('chart.show_table')), table()),
    h('div', { class: 'print-only' }, table()),
  );
}

function topVideos(items) {
  return section(
    t('campaigns.top_videos'),
    dataTable({
      caption: t('campaigns.top_videos'),
      hideCaption: true,
      empty: t('campaigns.top_none'),
      columns: [
        { key: 'rank', label: t('campaigns.rank'), numeric: true, cell: (r) => num(r.rank) },
        { key: 'title', label: t('videos.col_title'), header: true, cell: (r) => h('a', { href: r.url, class: 'title-link', target: '_blank', rel: 'noopener noreferrer' }, r.title || r.url) },
        { key: 'creator', label: t('videos.col_creator'), cell: creatorName },
        { key: 'platform', label: t('filter.platform'), cell: (r) => platformLabel(r.platform) },
        ...METRICS.map((m) => ({ key: m, label: t('campaigns.gained_metric', { metric: metricLabel(m) }), numeric: true, cell: (r) => num(r[m]) })),
      ],
      rows: items,
    }),
  );
}

function creatorsTable(report, csv) {
  const m = report.money;
  const columns = [
    { key: 'creator', label: t('videos.col_creator'), header: true, cell: creatorName },
    { key: 'platform', label: t('filter.platform'), cell: (r) => platformLabel(r.platform) },
    { key: 'videos', label: t('campaigns.col_videos'), numeric: true, cell: (r) => num(r.videos) },
    ...METRICS.map((k) => ({ key: k, label: metricLabel(k), numeric: true, cell: (r) => num(r[k]) })),
  ];
  if (m) {
    columns.push(
      { key: 'spend', label: t('campaigns.cost'), numeric: true, cell: (r) => money(r.spend, m.currency) },
      { key: 'cpm', label: t('campaigns.cpm'), numeric: true, cell: (r) => money(r.cpm, m.currency) },
    );
  }
  return section(
    t('share.creators_title'),
    dataTable({ caption: t('share.creators_title'), hideCaption: true, csvName: csv, empty: t('campaigns.top_none'), columns, rows: report.creators || [] }),
  );
}

/** The page of a link that does not open: nothing about why, or whose. */
function gone(main) {
  fill(main, h('h1', null, t('share.gone_title')), h('p', null, t('share.gone_text')));
}

export default async function shared(main, params, query, ctx) {
  const token = params.token;
  const base = `/share/${encodeURIComponent(token)}`;
  const top = h('div');
  const from = h('input', { type: 'date', id: 'shared-from', value: DAY.test(query.get('from') || '') ? query.get('from') : '' });
  const to = h('input', { type: 'date', id: 'shared-to', value: DAY.test(query.get('to') || '') ? query.get('to') : '' });
  const show = h('button', { type: 'submit', class: 'btn btn-primary' }, t('campaigns.show'));
  const form = h('form', { class: 'inline-form period-form no-print', 'aria-label': t('campaigns.period') }, field(t('campaigns.from'), from), field(t('campaigns.to'), to), h('div', { class: 'actions' }, show));
  const results = h('div');
  const note = h('p', { class: 'hint shared-note' }, t('share.live_note'));
  main.classList.add('shared-page');
  main.append(top, form, results, note);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });

  async function run() {
    const sp = new URLSearchParams();
    if (from.value) sp.set('from', from.value);
    if (to.value) sp.set('to', to.value);
    history.replaceState(null, '', `${base}${sp.toString() ? `?${sp}` : ''}`);
    if (from.value && to.value && from.value > to.value) {
      fill(results, h('div', { class: 'alert alert-error', role: 'alert' }, t('campaigns.bad_window')));
      return;
    }
    fill(results, h('p', { class: 'loading' }, t('app.loading')));
    await busy(show, async () => {
      try {
        const report = await get(`${base}/report`, { query: { from: from.value, to: to.value }, org: false, redirect401: false });
        if (!ctx.isCurrent()) return;
        if (!from.value) from.value = report.from;
        if (!to.value) to.value = report.to;
        fill(top, ...heading(report));
        const csv = () => serverCsv(`${base}/report.csv`, { from: report.from, to: report.to }, 'campaign-report.csv');
        fill(
          results,
          section(t('share.results'), ...headline(report)),
          perDay(report.days || []),
          topVideos(report.top_videos || []),
          creatorsTable(report, csv),
        );
      } catch (e) {
        if (!ctx.isCurrent()) return;
        if (e.status === 404) gone(main);
        else fill(results, errorBox(e));
      }
    });
  }
  await run();
}
