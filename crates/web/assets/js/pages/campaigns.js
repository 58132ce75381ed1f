// Campaigns: every campaign of the organization (dates, client, videos,
// creators, views gained, spend, CPM, progress to its target, state) with
// create, edit, archive and delete; and one campaign's page: the money
// first (spend, budget left, CPM, CPE, engagement rate, target progress,
// from GET /dashboard/campaigns/{id}/report), then per day, the top videos
// and the creators with their cost and CPM, and its share links for
// clients (made, copied once, listed with their views, revoked). Every
// total counts a video from its first reading (`baseline=tracking`).
import { get, post, patch, del, can } from '../api.js';
import { h, clear, fill, field, select, errorBox, errorText, busy, pageHeader, section, notice, toast } from '../dom.js';
import { t, num, date, dateRange, dateTime } from '../i18n.js';
import { dataTable } from '../table.js';
import { barChart } from '../charts.js';
import { platformLabel, metricLabel, METRICS } from '../labels.js';
import { serverCsv } from '../csv.js';
import { loadCampaigns, forgetCampaigns } from '../campaign-picker.js';
import { navigate } from '../app.js';

const BASELINE = 'tracking';
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function isoDay(d) {
  return d.toISOString().slice(0, 10);
}

/** The window of the last `days` days, today (UTC) included. */
export function presetWindow(days, today = new Date()) {
  const to = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const from = new Date(to.getTime() - (days - 1) * 86400000);
  return { from: isoDay(from), to: isoDay(to) };
}

/** A campaign's state on UTC day `today`: archived, upcoming, ended or active. */
export function campaignState(c, today = isoDay(new Date())) {
  if (c.archived) return 'archived';
  if (c.starts_on && today < c.starts_on) return 'upcoming';
  if (c.ends_on && today > c.ends_on) return 'ended';
  return 'active';
}

function stateLabel(state) {
  switch (state) {
    case 'active':
      return t('campaigns.state_active');
    case 'upcoming':
      return t('campaigns.state_upcoming');
    case 'ended':
      return t('campaigns.state_ended');
    default:
      return t('campaigns.state_archived');
  }
}

function stateBadge(state) {
  return h('span', { class: `badge badge-campaign-${state}` }, stateLabel(state));
}

/** An amount of money in `currency` (its code shown when the browser does not know it). */
export function money(value, currency) {
  if (value === null || value === undefined) return '–';
  try {
    return num(value, { style: 'currency', currency: currency || 'USD' });
  } catch (_) {
    return `${num(value, { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency || ''}`.trim();
  }
}

function percent(value) {
  return value === null || value === undefined ? '–' : num(value, { style: 'percent', maximumFractionDigits: 1 });
}

/** A campaign's days: "1 Nov 2026 – 30 Nov 2026", an open end as such. */
function dates(c) {
  if (!c.starts_on && !c.ends_on) return t('campaigns.no_dates');
  if (c.starts_on && c.ends_on) return dateRange(c.starts_on, c.ends_on);
  return `${c.starts_on ? date(c.starts_on) : '…'} – ${c.ends_on ? date(c.ends_on) : '…'}`;
}

/** The target and how far the views have come: a meter and "45 % of 100,000". */
function progress(report, c) {
  if (!c.target_views) return '–';
  const value = report ? report.target_progress : null;
  if (value === null || value === undefined) return t('campaigns.target_of', { target: num(c.target_views) });
  return h(
    'span',
    { class: 'progress' },
    h('meter', { min: 0, max: 1, value: Math.min(1, value), 'aria-label': t('campaigns.col_progress') }),
    ` ${t('campaigns.progress_of', { progress: percent(value), target: num(c.target_views) })}`,
  );
}

// ------------------------------------------------------------------ the form

/**
 * The create or edit form of campaign `c` (null: a new one). `onSaved(c)`
 * runs after the server took it; `onCancel` closes the form.
 */
function campaignForm(c, currency, onSaved, onCancel) {
  const editing = Boolean(c);
  const value = (k) => (c && c[k] !== null && c[k] !== undefined ? String(c[k]) : '');
  const controls = {
    name: h('input', { type: 'text', id: 'campaign-name', maxlength: 200, required: true, value: value('name'), autocomplete: 'off' }),
    client: h('input', { type: 'text', id: 'campaign-client', maxlength: 200, value: value('client'), autocomplete: 'off' }),
    starts_on: h('input', { type: 'date', id: 'campaign-starts', value: value('starts_on') }),
    ends_on: h('input', { type: 'date', id: 'campaign-ends', value: value('ends_on') }),
    budget: h('input', { type: 'number', id: 'campaign-budget', min: 0, step: 'any', inputmode: 'decimal', value: value('budget') }),
    currency: h('input', { type: 'text', id: 'campaign-currency', maxlength: 3, value: value('currency') || currency || '', autocomplete: 'off', placeholder: currency || 'USD' }),
    target_views: h('input', { type: 'number', id: 'campaign-target', min: 1, step: 1, inputmode: 'numeric', value: value('target_views') }),
    notes: h('textarea', { id: 'campaign-notes', rows: 2, maxlength: 2000 }, value('notes')),
  };
  const result = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'btn btn-primary' }, editing ? t('campaigns.save') : t('campaigns.create'));
  const cancel = h('button', { type: 'button', class: 'btn' }, t('campaigns.cancel'));
  cancel.addEventListener('click', onCancel);
  const form = h(
    'form',
    { class: 'form', novalidate: true, id: 'campaign-form' },
    result,
    h(
      'div',
      { class: 'grid-2' },
      field(t('campaigns.name'), controls.name),
      field(t('campaigns.client'), controls.client),
      field(t('campaigns.starts_on'), controls.starts_on),
      field(t('campaigns.ends_on'), controls.ends_on),
      field(t('campaigns.budget'), controls.budget, t('campaigns.budget_hint')),
      field(t('campaigns.currency'), controls.currency, t('campaigns.currency_hint')),
      field(t('campaigns.target_views'), controls.target_views),
    ),
    field(t('campaigns.notes'), controls.notes),
    h('div', { class: 'actions' }, save, cancel),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(result);
    for (const el of Object.values(controls)) el.removeAttribute('aria-invalid');
    const read = {
      name: controls.name.value.trim(),
      client: controls.client.value.trim(),
      starts_on: controls.starts_on.value,
      ends_on: controls.ends_on.value,
      budget: controls.budget.value.trim(),
      currency: controls.currency.value.trim().toUpperCase(),
      target_views: controls.target_views.value.trim(),
      notes: controls.notes.value,
    };
    const numeric = { budget: Number, target_views: Number };
    const body = {};
    for (const [k, v] of Object.entries(read)) {
      const typed = v === '' ? null : numeric[k] ? numeric[k](v) : v;
      if (editing) {
        const before = c[k] === undefined ? null : c[k];
        if (typed !== before && !(typed === null && before === '')) body[k] = typed;
      } else if (typed !== null) body[k] = typed;
    }
    if (editing && !Object.keys(body).length) {
      result.append(notice(t('campaigns.nothing_changed'), 'info'));
      return;
    }
    await busy(save, async () => {
      try {
        const saved = editing ? await patch(`/dashboard/campaigns/${encodeURIComponent(c.id)}`, body) : await post('/dashboard/campaigns', body);
        forgetCampaigns();
        toast(editing ? t('campaigns.saved') : t('campaigns.created', { name: saved.name }));
        onSaved(saved);
      } catch (e) {
        result.append(errorBox(e));
        const target = controls[String(e.field || '')];
        if (target) {
          target.setAttribute('aria-invalid', 'true');
          target.focus();
        } else if (e.code === 'CAMPAIGN_EXISTS') {
          controls.name.setAttribute('aria-invalid', 'true');
          controls.name.focus();
        }
      }
    });
  });
  return section(editing ? t('campaigns.edit_title', { name: c.name }) : t('campaigns.new_title'), form);
}

// ------------------------------------------------------------------ the list

/** Runs `work` on each item, `limit` at a time. */
async function pool(items, limit, work) {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  });
  await Promise.all(runners);
}

async function orgCurrency() {
  try {
    return (await get('/organizations/settings')).currency || 'USD';
  } catch (_) {
    return 'USD';
  }
}

async function listPage(main, query, ctx) {
  const editor = can('editor');
  const newButton = editor ? h('button', { type: 'button', class: 'btn btn-primary', id: 'campaign-new' }, t('campaigns.new')) : null;
  main.append(pageHeader(t('campaigns.title'), newButton));
  main.append(h('p', { class: 'subtitle page-intro' }, t('campaigns.intro')));
  const formSlot = h('div');
  const status = h('div', { class: 'action-status', 'aria-live': 'polite' });
  const listSlot = h('div');
  main.append(formSlot, status, section(t('campaigns.list_title'), listSlot));
  const currencyP = orgCurrency();
  const say = (text, kind) => fill(status, h('p', { class: `alert alert-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text));

  const openForm = async (c) => {
    const currency = await currencyP;
    fill(
      formSlot,
      campaignForm(
        c,
        currency,
        () => {
          clear(formSlot);
          load();
        },
        () => clear(formSlot),
      ),
    );
    formSlot.querySelector('#campaign-name').focus();
  };
  if (newButton) newButton.addEventListener('click', () => openForm(null));

  async function load() {
    fill(listSlot, h('p', { class: 'loading' }, t('app.loading')));
    let list;
    try {
      list = await loadCampaigns({ fresh: true });
    } catch (e) {
      if (ctx.isCurrent()) fill(listSlot, errorBox(e));
      return;
    }
    if (!ctx.isCurrent()) return;
    // Archived campaigns last; otherwise the newest start first.
    list.sort((a, b) => Number(a.archived) - Number(b.archived) || String(b.starts_on || '').localeCompare(String(a.starts_on || '')) || a.name.localeCompare(b.name));
    const reports = new Map();
    const draw = (pending) => {
      const rows = list.map((c) => ({ ...c, report: reports.get(c.id) || null, state: campaignState(c) }));
      const columns = [
        { key: 'id', label: 'id', hidden: true },
        { key: 'name', label: t('campaigns.name'), header: true, cell: (r) => h('a', { href: `/campaigns/${r.id}`, class: 'title-link campaign-link' }, r.name) },
        { key: 'dates', label: t('campaigns.col_dates'), csv: false, cell: (r) => dates(r) },
        { key: 'starts_on', label: 'starts_on', hidden: true },
        { key: 'ends_on', label: 'ends_on', hidden: true },
        { key: 'client', label: t('campaigns.client'), cell: (r) => r.client || '–' },
        { key: 'videos', label: t('campaigns.col_videos'), numeric: true, cell: (r) => num(r.videos) },
        { key: 'creators', label: t('campaigns.col_creators'), numeric: true, cell: (r) => num(r.creators) },
        {
          key: 'views',
          label: t('campaigns.col_views_gained'),
          numeric: true,
          csv: ['views_gained', (r) => r.report?.total?.views ?? null],
          cell: (r) => (r.report ? num(r.report.total?.views) : pending ? '…' : '–'),
        },
        { key: 'budget', label: 'budget', hidden: true },
        {
          key: 'spend',
          label: t('campaigns.col_spend'),
          numeric: true,
          csv: ['spend', (r) => r.report?.spend ?? null],
          cell: (r) => (r.report ? money(r.report.spend, r.report.currency || r.currency) : pending ? '…' : '–'),
        },
        { key: 'currency', label: 'currency', hidden: true },
        {
          key: 'cpm',
          label: t('campaigns.cpm'),
          numeric: true,
          csv: ['cpm', (r) => r.report?.cpm ?? null],
          cell: (r) => (r.report ? money(r.report.cpm, r.report.currency || r.currency) : pending ? '…' : '–'),
        },
        { key: 'target_views', label: 'target_views', hidden: true },
        { key: 'progress', label: t('campaigns.col_progress'), csv: ['target_progress', (r) => r.report?.target_progress ?? null], cell: (r) => progress(r.report, r) },
        { key: 'state', label: t('campaigns.col_state'), cell: (r) => stateBadge(r.state) },
      ];
      if (editor) {
        columns.push({
          key: 'actions',
          label: h('span', { class: 'visually-hidden' }, t('campaigns.col_actions')),
          csv: false,
          cell: (r) => rowActions(r),
        });
      }
      fill(
        listSlot,
        dataTable({
          caption: t('campaigns.list_title'),
          hideCaption: true,
          csvName: 'campaigns',
          columns,
          rows,
          empty: t('campaigns.none'),
        }),
      );
    };
    draw(true);
    await pool(list, 4, async (c) => {
      try {
        reports.set(c.id, await get(`/dashboard/campaigns/${encodeURIComponent(c.id)}/report`, { query: { baseline: BASELINE } }));
      } catch (_) {
        /* shown as unknown */
      }
    });
    if (ctx.isCurrent()) draw(false);
  }

  function rowActions(c) {
    const edit = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('campaigns.edit_one', { name: c.name }) }, t('campaigns.edit'));
    edit.addEventListener('click', () => openForm(c));
    const archive = h(
      'button',
      { type: 'button', class: 'btn btn-small', 'aria-label': t(c.archived ? 'campaigns.unarchive_one' : 'campaigns.archive_one', { name: c.name }) },
      c.archived ? t('campaigns.unarchive') : t('campaigns.archive'),
    );
    archive.addEventListener('click', () =>
      busy(archive, async () => {
        try {
          await patch(`/dashboard/campaigns/${encodeURIComponent(c.id)}`, { archived: !c.archived });
          forgetCampaigns();
          say(c.archived ? t('campaigns.unarchived', { name: c.name }) : t('campaigns.archived', { name: c.name }), 'ok');
          load();
        } catch (e) {
          say(`${c.name}: ${errorText(e)}`, 'error');
        }
      }),
    );
    const remove = h('button', { type: 'button', class: 'btn btn-small btn-danger', 'aria-label': t('campaigns.delete_one', { name: c.name }) }, t('campaigns.delete'));
    remove.addEventListener('click', () => {
      if (!window.confirm(t('campaigns.delete_confirm', { name: c.name, count: c.videos || 0 }))) return;
      busy(remove, async () => {
        try {
          await del(`/dashboard/campaigns/${encodeURIComponent(c.id)}`);
          forgetCampaigns();
          say(t('campaigns.deleted', { name: c.name }), 'ok');
          load();
        } catch (e) {
          say(`${c.name}: ${errorText(e)}`, 'error');
        }
      });
    });
    return h('span', { class: 'row-actions campaign-actions' }, edit, archive, remove);
  }

  await load();
}

// ------------------------------------------------------------------ one campaign

/** The headline: the money, then the views (when tracking began, gained since, now). */
function headline(report, c, views) {
  const cur = report.currency || c.currency;
  const stat = (id, label, value, extra) => h('div', { class: 'stat', id }, h('dt', null, label), h('dd', null, value, extra ? h('span', { class: 'change' }, extra) : null));
  const money_ = h(
    'dl',
    { class: 'stats money', 'aria-label': t('campaigns.money') },
    stat('campaign-spend', t('campaigns.spend'), money(report.spend, cur), report.videos_without_cost ? t('campaigns.without_cost', { count: report.videos_without_cost }) : null),
    stat('campaign-budget-left', t('campaigns.budget_left'), money(report.budget_left, cur), c.budget !== null && c.budget !== undefined ? t('campaigns.of_budget', { budget: money(c.budget, cur) }) : t('campaigns.no_budget')),
    stat('campaign-cpm', t('campaigns.cpm'), money(report.cpm, cur), t('campaigns.cpm_hint')),
    stat('campaign-cpe', t('campaigns.cpe'), money(report.cpe, cur), t('campaigns.cpe_hint')),
    stat('campaign-er', t('campaigns.engagement_rate'), percent(report.engagement_rate)),
    stat(
      'campaign-progress',
      t('campaigns.target_progress'),
      percent(report.target_progress),
      c.target_views ? t('campaigns.target_of', { target: num(c.target_views) }) : t('campaigns.no_target'),
    ),
  );
  const gained = report.total ? report.total.views : null;
  const viewsRow = h(
    'dl',
    { class: 'stats', 'aria-label': t('campaigns.views_title') },
    stat('campaign-views-start', t('campaigns.views_at_start'), num(views.atStart), t('campaigns.views_at_start_hint')),
    stat('campaign-views-gained', t('campaigns.views_gained', { from: date(report.from) }), num(gained), t('campaigns.window_days', { from: date(report.from), to: date(report.to) })),
    stat('campaign-views-now', t('campaigns.views_now'), num(views.now)),
    ...METRICS.filter((m) => m !== 'views').map((m) => stat(`campaign-${m}`, t('campaigns.gained_metric', { metric: metricLabel(m) }), num(report.total ? report.total[m] : null))),
  );
  return [money_, viewsRow];
}

/**
 * The campaign's videos' views at their first reading and now (the listing,
 * filtered by the campaign): with `baseline=tracking`, gained = now − then
 * over a window that holds the whole tracking.
 */
async function campaignViews(name) {
  let atStart = 0;
  let now = 0;
  let known = false;
  for (let offset = 0; offset < 5000; offset += 100) {
    const page = await get('/dashboard/videos', { query: { campaign: name, limit: 100, offset } });
    const items = page.data || [];
    for (const v of items) {
      const readings = Object.entries((v.stats && v.stats.views) || {})
        .filter(([, value]) => value !== null && value !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (readings.length) {
        atStart += readings[0][1];
        known = true;
      }
      if (v.views !== null && v.views !== undefined) now += v.views;
    }
    if (!page.pagination?.has_more || !items.length) break;
  }
  return known ? { atStart, now } : { atStart: null, now: null };
}

function perDay(days) {
  const metricSel = select(METRICS.map((m) => [m, metricLabel(m)]), 'views', { id: 'campaign-metric' });
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
  return section(
    t('campaigns.per_day'),
    h('div', { class: 'chart-controls' }, field(t('chart.metric'), metricSel)),
    slot,
    h(
      'details',
      null,
      h('summary', null, t('chart.show_table')),
      dataTable({
        caption: t('campaigns.per_day'),
        hideCaption: true,
        csvName: 'campaign-days',
        columns: [{ key: 'date', label: t('table.day'), header: true, cell: (d) => date(d.date) }, ...METRICS.map((m) => ({ key: m, label: metricLabel(m), numeric: true, cell: (r) => num(r[m]) }))],
        rows: [...days].reverse(),
      }),
    ),
  );
}

function topVideos(items) {
  return section(
    t('campaigns.top_videos'),
    dataTable({
      caption: t('campaigns.top_videos'),
      hideCaption: true,
      csvName: 'campaign-top-videos',
      empty: t('campaigns.top_none'),
      columns: [
        { key: 'rank', label: t('campaigns.rank'), numeric: true, cell: (r) => num(r.rank) },
        { key: 'video_id', label: 'video_id', hidden: true },
        { key: 'title', label: t('videos.col_title'), header: true, csv: 'label', cell: (r) => h('a', { href: `/videos/${r.video_id}`, class: 'title-link' }, r.label) },
        { key: 'creator', label: t('videos.col_creator'), csv: 'blogger_username', cell: (r) => (r.blogger_username ? `@${r.blogger_username}` : '–') },
        { key: 'platform', label: t('filter.platform'), cell: (r) => platformLabel(r.platform) },
        ...METRICS.map((m) => ({ key: m, label: t('campaigns.gained_metric', { metric: metricLabel(m) }), numeric: true, cell: (r) => num(r[m]) })),
      ],
      rows: items,
    }),
  );
}

function creatorsTable(report, c, query) {
  const cur = report.currency || c.currency;
  return section(
    t('campaigns.creators_title'),
    report.videos_without_cost ? h('p', { class: 'hint' }, t('campaigns.without_cost_hint', { count: report.videos_without_cost })) : null,
    dataTable({
      caption: t('campaigns.creators_title'),
      hideCaption: true,
      // The report as the server writes it (format=csv).
      csvName: () => serverCsv(`/dashboard/campaigns/${encodeURIComponent(c.id)}/report`, { ...query, format: 'csv' }, 'campaign-report.csv'),
      empty: t('campaigns.top_none'),
      columns: [
        { key: 'creator', label: t('videos.col_creator'), header: true, cell: (r) => (r.blogger_username ? `@${r.blogger_username}` : t('campaigns.unknown_creator')) },
        { key: 'platform', label: t('filter.platform'), cell: (r) => platformLabel(r.platform) },
        { key: 'videos', label: t('campaigns.col_videos'), numeric: true, cell: (r) => num(r.videos) },
        ...METRICS.map((m) => ({ key: m, label: metricLabel(m), numeric: true, cell: (r) => num(r[m]) })),
        { key: 'spend', label: t('campaigns.cost'), numeric: true, cell: (r) => money(r.spend, cur) },
        { key: 'cpm', label: t('campaigns.cpm'), numeric: true, cell: (r) => money(r.cpm, cur) },
      ],
      rows: report.creators || [],
    }),
  );
}

// ------------------------------------------------------------------ share links

/** A link's state now: active, revoked or expired. */
export function linkState(link, now = new Date()) {
  if (link.revoked_at) return 'revoked';
  if (link.expires_at && new Date(link.expires_at) <= now) return 'expired';
  return 'active';
}

function linkStateLabel(state) {
  switch (state) {
    case 'active':
      return t('share.state_active');
    case 'revoked':
      return t('share.state_revoked');
    default:
      return t('share.state_expired');
  }
}

/** The link just made, shown this once, with a copy button. */
function madeLink(link) {
  const input = h('input', { type: 'text', id: 'share-url', readonly: true, value: link.url, class: 'share-url' });
  const copy = h('button', { type: 'button', class: 'btn btn-small', id: 'share-copy' }, t('share.copy'));
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(link.url);
      toast(t('share.copied'));
    } catch (_) {
      input.select();
      toast(t('share.copy_failed'), 'error');
    }
  });
  return h('div', { class: 'alert alert-warn', role: 'status' }, h('p', null, h('strong', null, t('share.shown_once'))), field(t('share.link_label'), input), h('div', { class: 'actions' }, copy));
}

/**
 * "Share with a client": the campaign's links (any member sees them, with
 * their views), a form that makes one and a revoke button (editors).
 */
function sharePanel(c) {
  const base = `/dashboard/campaigns/${encodeURIComponent(c.id)}/share-links`;
  const editor = can('editor');
  const listSlot = h('div');
  const made = h('div', { 'aria-live': 'polite' });
  let form = null;
  if (editor) {
    const label = h('input', { type: 'text', id: 'share-label', maxlength: 200, autocomplete: 'off' });
    const expires = h('input', { type: 'date', id: 'share-expires' });
    const spend = h('input', { type: 'checkbox', id: 'share-spend' });
    const create = h('button', { type: 'submit', class: 'btn btn-primary' }, t('share.create'));
    form = h(
      'form',
      { class: 'inline-form share-form', 'aria-label': t('share.create') },
      field(t('share.label'), label, t('share.label_hint')),
      field(t('share.expires'), expires, t('share.expires_hint')),
      h('div', { class: 'checkbox' }, spend, h('label', { for: spend.id }, t('share.show_spend'))),
      h('div', { class: 'actions' }, create),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      clear(made);
      if (expires.value && expires.value < new Date().toISOString().slice(0, 10)) {
        made.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('share.bad_expiry')));
        return;
      }
      await busy(create, async () => {
        try {
          const body = { label: label.value.trim() || null, show_spend: spend.checked };
          if (expires.value) body.expires_at = `${expires.value}T23:59:59Z`;
          const link = await post(base, body);
          label.value = '';
          expires.value = '';
          spend.checked = false;
          made.append(madeLink(link));
          load();
        } catch (e) {
          made.append(errorBox(e));
        }
      });
    });
  }

  async function load() {
    let links;
    try {
      links = await get(base);
    } catch (e) {
      fill(listSlot, errorBox(e));
      return;
    }
    const columns = [
      { key: 'label', label: t('share.col_label'), header: true, cell: (l) => l.label || t('share.no_label') },
      { key: 'show_spend', label: t('share.col_spend'), cell: (l) => (l.show_spend ? t('share.yes') : t('share.no')) },
      { key: 'created_at', label: t('share.col_created'), cell: (l) => dateTime(l.created_at) },
      { key: 'expires_at', label: t('share.col_expires'), cell: (l) => (l.expires_at ? dateTime(l.expires_at) : t('share.never')) },
      { key: 'views', label: t('share.col_views'), numeric: true, cell: (l) => num(l.views) },
      { key: 'last_viewed_at', label: t('share.col_last_viewed'), cell: (l) => dateTime(l.last_viewed_at) },
      { key: 'state', label: t('share.col_state'), cell: (l) => linkStateLabel(linkState(l)) },
    ];
    if (editor) columns.push({ key: 'actions', label: t('share.col_actions'), cell: revokeButton });
    fill(listSlot, dataTable({ caption: t('share.list_title'), hideCaption: true, empty: t('share.none'), columns, rows: links, rowAttrs: (l) => ({ 'data-link': l.id }) }));
  }

  function revokeButton(l) {
    if (l.revoked_at) return '';
    const name = l.label || t('share.no_label');
    const revoke = h('button', { type: 'button', class: 'btn btn-small btn-danger', 'aria-label': t('share.revoke_one', { label: name }) }, t('share.revoke'));
    revoke.addEventListener('click', () => {
      if (!window.confirm(t('share.revoke_confirm', { label: name }))) return;
      busy(revoke, async () => {
        try {
          await del(`${base}/${encodeURIComponent(l.id)}`);
          toast(t('share.revoked'));
          clear(made);
          load();
        } catch (e) {
          toast(errorText(e), 'error');
        }
      });
    });
    return revoke;
  }

  load();
  return section(t('share.title'), h('p', { class: 'hint' }, t('share.intro')), form, made, listSlot);
}

async function campaignPage(main, id, query, ctx) {
  const c = await get(`/dashboard/campaigns/${encodeURIComponent(id)}`);
  if (!ctx.isCurrent()) return;
  const state = campaignState(c);
  main.append(
    h('p', null, h('a', { href: '/campaigns' }, `← ${t('campaigns.back')}`)),
    pageHeader(c.name),
    h(
      'p',
      { class: 'subtitle' },
      stateBadge(state),
      ' ',
      [c.client ? t('campaigns.for_client', { client: c.client }) : null, dates(c), t('campaigns.counts', { count: c.videos || 0, videos: num(c.videos), creators: num(c.creators) })]
        .filter(Boolean)
        .join(' · '),
    ),
  );
  if (c.notes) main.append(h('p', { class: 'hint campaign-notes' }, c.notes));
  const from = h('input', { type: 'date', id: 'report-from', value: DAY.test(query.get('from') || '') ? query.get('from') : '' });
  const to = h('input', { type: 'date', id: 'report-to', value: DAY.test(query.get('to') || '') ? query.get('to') : '' });
  const show = h('button', { type: 'submit', class: 'btn btn-primary' }, t('campaigns.show'));
  const reset = h('button', { type: 'button', class: 'btn' }, t('campaigns.campaign_dates'));
  const form = h('form', { class: 'inline-form period-form', 'aria-label': t('campaigns.period') }, field(t('campaigns.from'), from), field(t('campaigns.to'), to), h('div', { class: 'actions' }, show, reset));
  const results = h('div');
  main.append(form, results, sharePanel(c));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });
  reset.addEventListener('click', () => {
    from.value = '';
    to.value = '';
    run();
  });
  const views = campaignViews(c.name).catch(() => ({ atStart: null, now: null }));

  async function run() {
    const sp = new URLSearchParams();
    if (from.value) sp.set('from', from.value);
    if (to.value) sp.set('to', to.value);
    history.replaceState(null, '', `/campaigns/${encodeURIComponent(id)}${sp.toString() ? `?${sp}` : ''}`);
    if (from.value && to.value && from.value > to.value) {
      fill(results, h('div', { class: 'alert alert-error', role: 'alert' }, t('campaigns.bad_window')));
      return;
    }
    fill(results, h('p', { class: 'loading' }, t('app.loading')));
    await busy(show, async () => {
      try {
        const q = { from: from.value, to: to.value, baseline: BASELINE };
        const report = await get(`/dashboard/campaigns/${encodeURIComponent(id)}/report`, { query: q });
        // The chart and the top videos over the report's own window.
        const scope = { campaign: c.name, from: report.from, to: report.to, baseline: BASELINE };
        const [stats, top, v] = await Promise.all([
          get('/dashboard/stats', { query: scope }),
          get('/dashboard/top', { query: { ...scope, by: 'video', limit: 10 } }).catch(() => ({ items: [] })),
          views,
        ]);
        if (!ctx.isCurrent()) return;
        if (!from.value) from.value = report.from;
        if (!to.value) to.value = report.to;
        fill(
          results,
          section(t('campaigns.money'), ...headline(report, c, v)),
          perDay(stats.days || []),
          topVideos(top.items || []),
          creatorsTable(report, c, { from: report.from, to: report.to, baseline: BASELINE }),
        );
      } catch (e) {
        if (ctx.isCurrent()) fill(results, errorBox(e));
      }
    });
  }
  await run();
}

export default async function campaigns(main, params, query, ctx) {
  if (params.id) return campaignPage(main, params.id, query, ctx);
  // The old address (`?campaign=NAME`): that campaign's page, when there is one.
  const named = query.get('campaign');
  if (named) {
    try {
      const found = (await loadCampaigns()).find((c) => c.name.toLowerCase() === named.toLowerCase());
      if (found) {
        navigate(`/campaigns/${found.id}`, { replace: true });
        return undefined;
      }
    } catch (_) {
      /* the list below says why */
    }
  }
  return listPage(main, query, ctx);
}
