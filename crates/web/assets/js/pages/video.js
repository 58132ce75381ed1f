// One video: its fields, counters over time (line chart), daily increments
// (bar chart and table), the edit form (PATCH), and for editors reading it
// now and untracking it.
import { get, patch, can } from '../api.js';
import { h, clear, fill, field, select, errorBox, busy, pageHeader, section, notice, toast } from '../dom.js';
import { t, num, date, dateTime, gain, toDate } from '../i18n.js';
import { dataTable } from '../table.js';
import { barChart, lineChart, spansFewDays } from '../charts.js';
import { downloadCsv } from '../csv.js';
import { campaignInput, forgetCampaigns } from '../campaign-picker.js';
import {
  platformLabel,
  trackingStatusLabel,
  videoStatusLabel,
  VIDEO_STATUSES,
  workflowLabel,
  WORKFLOW_STATUSES,
  metricLabel,
  METRICS,
} from '../labels.js';
import { series } from '../stats.js';
import { thumbnail, videoActions } from './videos.js';
import { navigate } from '../app.js';

function facts(v) {
  const rows = [
    [t('video.platform'), platformLabel(v.platform)],
    [t('video.creator'), v.author_username ? `@${v.author_username}` : '–'],
    [t('video.external_id'), v.external_video_id],
    [t('video.published'), dateTime(v.published_at)],
    [t('video.tracked_since'), dateTime(v.created_at)],
    [t('video.tracking_ends'), dateTime(v.tracking_ends_at)],
    [t('video.last_read'), dateTime(v.stats_last_updated)],
    v.next_refresh_at !== undefined ? [t('video.next_read'), v.next_refresh_at ? dateTime(v.next_refresh_at) : t('video.no_next_read')] : null,
    [t('video.tracking_status'), h('span', { class: `badge badge-${v.tracking_status}` }, trackingStatusLabel(v.tracking_status))],
    [t('video.video_status'), videoStatusLabel(v.video_status)],
    [t('video.workflow'), workflowLabel(v.status)],
    [t('video.campaign'), v.campaign || '–'],
    [t('video.tags'), v.tags && v.tags.length ? h('span', { class: 'tags' }, v.tags.map((x) => h('span', { class: 'tag' }, x))) : '–'],
    [t('video.budget'), v.budget === null || v.budget === undefined ? '–' : num(v.budget)],
    [t('video.ecpm'), v.ecpm === null || v.ecpm === undefined ? '–' : num(v.ecpm, { maximumFractionDigits: 2 })],
    [t('video.cpm'), v.cpm === null || v.cpm === undefined ? '–' : num(v.cpm, { maximumFractionDigits: 2 })],
    [t('video.er'), v.er === null || v.er === undefined ? '–' : `${num(v.er, { maximumFractionDigits: 2 })} %`],
    [t('video.notes'), v.notes || '–'],
  ];
  return h('dl', { class: 'facts' }, rows.filter(Boolean).map(([k, val]) => [h('dt', null, k), h('dd', null, val)]));
}

function counters(v) {
  return h(
    'dl',
    { class: 'stats' },
    METRICS.map((m) => h('div', { class: 'stat' }, h('dt', null, metricLabel(m)), h('dd', null, num(v[m])))),
  );
}

function overTime(v) {
  const available = METRICS.filter((m) => v.stats && v.stats[m] && Object.keys(v.stats[m]).length);
  const metrics = available.length ? available : ['views'];
  const metricSel = select(metrics.map((m) => [m, metricLabel(m)]), metrics[0], { id: 'line-metric' });
  const slot = h('div', { class: 'chart-block' });
  const draw = () => {
    const m = metricSel.value;
    const points = series(v.stats, m);
    const last = points[points.length - 1];
    fill(slot, 
      lineChart({
        title: t('video.chart_over_time', { metric: metricLabel(m) }),
        description: points.length
          ? t('video.readings_summary', { count: points.length, metric: metricLabel(m), value: num(last.value) })
          : t('chart.no_data'),
        points,
      }),
      h(
        'details',
        null,
        h('summary', null, t('chart.show_table')),
        dataTable({
          caption: t('video.readings_caption', { metric: metricLabel(m) }),
          csvName: () => downloadCsv(`history-${v.video_id}`, HISTORY_COLUMNS, historyRows(v.stats)),
          columns: [
            { key: 'at', label: t('video.col_read_at'), cell: (p) => dateTime(p.at) },
            { key: 'value', label: metricLabel(m), numeric: true, cell: (p) => num(p.value) },
          ],
          rows: [...points].reverse(),
        }),
      ),
    );
  };
  metricSel.addEventListener('change', draw);
  draw();
  return section(t('video.over_time'), h('div', { class: 'chart-controls' }, field(t('chart.metric'), metricSel)), slot);
}

/** The columns of the server's history export (GET /v1/videos/by-id/{id}/history). */
const HISTORY_COLUMNS = ['captured_at', ...METRICS];

/** Every reading of a record's `stats` map, oldest first, as the history export writes it. */
export function historyRows(stats) {
  const at = new Map();
  for (const m of METRICS) {
    for (const [key, value] of Object.entries((stats && stats[m]) || {})) {
      // `2026-10-01 08:00:00.000000+00` → `2026-10-01T08:00:00.000000Z`.
      const iso = /^\d{4}-\d{2}-\d{2} /.test(key) ? key.replace(' ', 'T').replace(/\+00(:00)?$/, 'Z') : key;
      if (!at.has(iso)) at.set(iso, { captured_at: iso, time: toDate(key).getTime() });
      at.get(iso)[m] = value;
    }
  }
  return [...at.values()].sort((a, b) => a.time - b.time).map((r) => HISTORY_COLUMNS.map((c) => r[c] ?? null));
}

/**
 * What each reading gained since the one before: [{at, value}] of metric
 * `m` (the first reading has none before it).
 */
export function perReading(stats, m) {
  const points = series(stats, m).filter((p) => p.value !== null && p.value !== undefined);
  return points.slice(1).map((p, i) => ({ at: p.at, value: p.value - points[i].value }));
}

function daily(stats, record) {
  const incs = stats.daily_increments || [];
  // The first days: a bar a reading, at its time (a day's one bar says little).
  const readings = series(record.stats, 'views');
  const byReading = readings.length >= 2 && spansFewDays(readings[0].at, readings[readings.length - 1].at);
  const metricSel = select(
    [
      ['views_delta', metricLabel('views')],
      ['likes_delta', metricLabel('likes')],
    ],
    'views_delta',
    { id: 'bar-metric' },
  );
  const chartSlot = h('div', { class: 'chart-block' });
  const draw = () => {
    const key = metricSel.value;
    const label = metricSel.selectedOptions[0].textContent;
    const points = byReading ? perReading(record.stats, key.replace(/_delta$/, '')) : incs.map((d) => ({ date: d.date, value: d[key] }));
    const total = points.reduce((a, p) => a + (p.value || 0), 0);
    fill(chartSlot, 
      barChart({
        title: byReading ? t('video.chart_per_reading', { metric: label }) : t('video.chart_daily', { metric: label }),
        description: !points.length
          ? t('chart.no_data')
          : byReading
            ? t('chart.reading_summary', { count: points.length, total: num(total), metric: label })
            : t('chart.daily_summary', { count: points.length, total: num(total), metric: label }),
        points,
      }),
    );
  };
  metricSel.addEventListener('change', draw);
  draw();
  const table = dataTable({
    caption: t('video.daily_caption'),
    csvName: 'video-daily',
    columns: [
      { key: 'date', label: t('table.day'), header: true, cell: (d) => date(d.date) },
      { key: 'views_delta', label: metricLabel('views'), numeric: true, cell: (d) => gain(d.views_delta) },
      { key: 'likes_delta', label: metricLabel('likes'), numeric: true, cell: (d) => gain(d.likes_delta) },
    ],
    rows: [...incs].reverse(),
  });
  return section(t('video.daily'), h('div', { class: 'chart-controls' }, field(t('chart.metric'), metricSel)), chartSlot, table);
}

/** The PATCH body of what changed in the form (docs/api.md PATCH rules). */
export function changes(v, values) {
  const body = {};
  if ((values.notes || '') !== (v.notes || '')) body.notes = values.notes;
  const budget = values.budget.trim();
  if (budget !== (v.budget === null || v.budget === undefined ? '' : String(v.budget))) body.budget = budget === '' ? null : Number(budget);
  const campaign = values.campaign.trim();
  if (campaign !== (v.campaign || '')) body.campaign = campaign === '' ? null : campaign;
  const ecpm = values.ecpm.trim();
  if (ecpm !== (v.ecpm === null || v.ecpm === undefined ? '' : String(v.ecpm))) body.ecpm = ecpm === '' ? null : Number(ecpm);
  if (values.video_status !== v.video_status) body.video_status = values.video_status;
  if (values.status !== v.status) body.status = values.status;
  const tags = values.tags
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (tags.length) body.tags = tags;
  return body;
}

function editForm(v, onSaved) {
  const notes = h('textarea', { id: 'edit-notes', rows: 3, maxlength: 2000 }, v.notes || '');
  const budget = h('input', { type: 'number', id: 'edit-budget', min: 1, step: 1, inputmode: 'numeric', value: v.budget ?? '' });
  const [campaign, campaignList] = campaignInput({ id: 'edit-campaign', value: v.campaign || '' });
  const ecpm = h('input', { type: 'number', id: 'edit-ecpm', min: 0, step: 'any', inputmode: 'decimal', value: v.ecpm ?? '' });
  const videoStatus = select(VIDEO_STATUSES.map((s) => [s, videoStatusLabel(s)]), v.video_status, { id: 'edit-video-status' });
  const status = select(WORKFLOW_STATUSES.map((s) => [s, workflowLabel(s)]), v.status, { id: 'edit-status' });
  const tags = h('input', { type: 'text', id: 'edit-tags' });
  const result = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'btn btn-primary' }, t('video.save'));
  const form = h(
    'form',
    { class: 'form', novalidate: true },
    result,
    h(
      'div',
      { class: 'grid-2' },
      field(t('video.campaign'), campaign, t('campaigns.pick_hint')),
      campaignList,
      field(t('video.budget'), budget, t('video.budget_hint')),
      field(t('video.ecpm_long'), ecpm),
      field(t('video.add_tags'), tags, t('video.tags_hint')),
      field(t('video.video_status'), videoStatus),
      field(t('video.workflow'), status),
    ),
    field(t('video.notes'), notes),
    h('div', { class: 'actions' }, save),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(result);
    const body = changes(v, {
      notes: notes.value,
      budget: budget.value,
      campaign: campaign.value,
      ecpm: ecpm.value,
      video_status: videoStatus.value,
      status: status.value,
      tags: tags.value,
    });
    if (!Object.keys(body).length) {
      result.append(notice(t('video.nothing_changed'), 'info'));
      return;
    }
    await busy(save, async () => {
      try {
        await patch(`/dashboard/videos/${encodeURIComponent(v.video_id)}`, body);
        if ('campaign' in body) forgetCampaigns();
        toast(t('video.saved'));
        onSaved();
      } catch (e) {
        result.append(errorBox(e));
        const target = { notes, budget, campaign, ecpm, video_status: videoStatus, status, tags }[String(e.field || '').replace(/\[.*$/, '')];
        if (target) {
          target.setAttribute('aria-invalid', 'true');
          target.focus();
        }
      }
    });
  });
  return section(t('video.edit'), form);
}

export default async function video(main, params, query, ctx) {
  const id = params.id;
  const [v, stats] = await Promise.all([
    get(`/dashboard/videos/${encodeURIComponent(id)}`),
    get(`/dashboard/videos/${encodeURIComponent(id)}/stats`).catch(() => ({ daily_increments: [] })),
  ]);
  if (!ctx.isCurrent()) return;
  const record = v.data && v.video_id === undefined ? v.data : v;
  const reload = () => video(clear(main), params, query, ctx);
  const actions = can('editor')
    ? videoActions(
        record,
        (text, kind) => toast(text, kind),
        (action) => (action === 'untrack' ? navigate('/videos') : reload()),
      )
    : [];
  main.append(
    h('p', null, h('a', { href: '/videos' }, `← ${t('video.back')}`)),
    h(
      'div',
      { class: 'video-head' },
      thumbnail(record),
      h(
        'div',
        null,
        pageHeader(record.title || record.external_video_id, ...actions),
        h('p', { class: 'subtitle' }, h('a', { href: record.url, target: '_blank', rel: 'noopener noreferrer' }, t('video.open_on', { platform: platformLabel(record.platform) }))),
      ),
    ),
    counters(record),
    h('div', { class: 'grid-2' }, section(t('video.details'), facts(record)), can('editor') ? editForm(record, reload) : null),
    overTime(record),
    daily(stats, record),
  );
}
