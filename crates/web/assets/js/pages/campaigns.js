// Campaigns: a campaign and a period; totals compared with the period
// before, gains per day (bar chart and table), the top videos and the top
// creators (the leaderboards of /dashboard/top), per platform (the grouped
// totals of /dashboard/stats).
import { get } from '../api.js';
import { h, clear, fill, field, select, errorBox, busy, pageHeader, section, nextId } from '../dom.js';
import { t, num, date } from '../i18n.js';
import { dataTable } from '../table.js';
import { barChart } from '../charts.js';
import { platformLabel, PLATFORMS, metricLabel, METRICS } from '../labels.js';

const PRESETS = [7, 30, 90];
const MAX_DAYS = 366;

function isoDay(d) {
  return d.toISOString().slice(0, 10);
}

/** The window of the last `days` days, today (UTC) included. */
export function presetWindow(days, today = new Date()) {
  const to = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const from = new Date(to.getTime() - (days - 1) * 86400000);
  return { from: isoDay(from), to: isoDay(to) };
}

function daysBetween(from, to) {
  const out = [];
  for (let d = new Date(`${from}T00:00:00Z`); isoDay(d) <= to; d = new Date(d.getTime() + 86400000)) out.push(isoDay(d));
  return out;
}

async function campaignNames() {
  const names = new Set();
  const [creators, videos] = await Promise.all([
    get('/blogger/list').catch(() => []),
    get('/dashboard/videos', { query: { limit: 100, sort: 'updated_at' } }).catch(() => ({ data: [] })),
  ]);
  for (const c of creators || []) if (c.campaign) names.add(c.campaign);
  for (const v of videos.data || []) if (v.campaign) names.add(v.campaign);
  return [...names].sort((a, b) => a.localeCompare(b));
}

function metricCells(prefix = '') {
  return METRICS.map((m) => ({ key: m, label: metricLabel(m), numeric: true, cell: (r) => num(r[`${m}${prefix}`]) }));
}

export default async function campaigns(main, params, query, ctx) {
  const initial = presetWindow(30);
  const state = {
    campaign: query.get('campaign') || '',
    platform: PLATFORMS.includes(query.get('platform')) ? query.get('platform') : '',
    from: query.get('from') || initial.from,
    to: query.get('to') || initial.to,
  };
  main.append(pageHeader(t('campaigns.title')));
  const listId = nextId('campaign-names');
  const campaign = h('input', { type: 'text', id: 'campaign-name', list: listId, value: state.campaign, autocomplete: 'off', maxlength: 200 });
  const datalist = h('datalist', { id: listId });
  const platform = select([['', t('filter.all_platforms')], ...PLATFORMS.map((p) => [p, platformLabel(p)])], state.platform, { id: 'campaign-platform' });
  const from = h('input', { type: 'date', id: 'campaign-from', value: state.from, required: true });
  const to = h('input', { type: 'date', id: 'campaign-to', value: state.to, required: true });
  const presetButtons = PRESETS.map((d) => {
    const b = h('button', { type: 'button', class: 'btn btn-small', 'aria-pressed': 'false' }, t('campaigns.last_days', { count: d }));
    b.addEventListener('click', () => {
      const w = presetWindow(d);
      from.value = w.from;
      to.value = w.to;
      run();
    });
    return [d, b];
  });
  const show = h('button', { type: 'submit', class: 'btn btn-primary' }, t('campaigns.show'));
  const form = h(
    'form',
    { class: 'filters', 'aria-label': t('campaigns.picker') },
    field(t('campaigns.campaign'), campaign, t('campaigns.campaign_hint')),
    datalist,
    field(t('filter.platform'), platform),
    field(t('campaigns.from'), from),
    field(t('campaigns.to'), to),
    h('div', { class: 'field' }, h('span', { class: 'label', id: 'preset-label' }, t('campaigns.presets')), h('div', { class: 'presets', role: 'group', 'aria-labelledby': 'preset-label' }, presetButtons.map(([, b]) => b))),
    show,
  );
  const results = h('div');
  main.append(section(t('campaigns.picker'), form), results);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });

  campaignNames().then((names) => {
    for (const n of names) datalist.append(h('option', { value: n }));
  });

  async function run() {
    state.campaign = campaign.value.trim();
    state.platform = platform.value;
    state.from = from.value;
    state.to = to.value;
    const sp = new URLSearchParams();
    for (const k of ['campaign', 'platform', 'from', 'to']) if (state[k]) sp.set(k, state[k]);
    history.replaceState(null, '', `/campaigns?${sp}`);
    for (const [d, b] of presetButtons) {
      const w = presetWindow(d);
      b.setAttribute('aria-pressed', String(w.from === state.from && w.to === state.to));
    }
    clear(results);
    if (!state.from || !state.to || state.from > state.to) {
      results.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('campaigns.bad_window')));
      return;
    }
    const days = daysBetween(state.from, state.to);
    if (days.length > MAX_DAYS) {
      results.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('campaigns.too_long', { max: MAX_DAYS })));
      return;
    }
    results.append(h('p', { class: 'loading' }, t('app.loading')));
    const scope = { from: state.from, to: state.to, campaign: state.campaign };
    await busy(show, async () => {
      try {
        const stats = (group_by, compare) => get('/dashboard/stats', { query: { ...scope, platform: state.platform, group_by, compare } });
        const top = (by, limit) => get('/dashboard/top', { query: { ...scope, platform: state.platform, by, limit, compare: 'previous_period' } });
        const [all, byPlatform, creators, leaders] = await Promise.all([
          stats(undefined, 'previous_period'),
          stats('platform'),
          top('platform_blogger', 100),
          top('video', 10),
        ]);
        if (!ctx.isCurrent()) return;
        const flat = (g) => ({ ...g, key: g.group_key });
        fill(results, 
          h('p', { class: 'subtitle' }, t('campaigns.window', { campaign: state.campaign || t('campaigns.all'), from: date(all.from), to: date(all.to) })),
          h(
            'dl',
            { class: 'stats', 'aria-label': t('campaigns.totals') },
            METRICS.map((m) =>
              h(
                'div',
                { class: 'stat' },
                h('dt', null, metricLabel(m)),
                h('dd', null, num(all.total[m]), h('span', { class: 'change' }, changeText(all.change && all.change[m]))),
              ),
            ),
          ),
          all.previous_period
            ? h('p', { class: 'hint' }, t('campaigns.compared_with', { from: date(all.previous_period.from), to: date(all.previous_period.to) }))
            : null,
          perDay(all.days || []),
          topVideos(leaders.items || []),
          section(
            t('campaigns.per_platform'),
            dataTable({
              caption: t('campaigns.per_platform'),
              hideCaption: true,
              csvName: 'campaign-platforms',
              columns: [{ key: 'platform', label: t('filter.platform'), header: true, cell: (r) => platformLabel(r.key) }, ...metricCells()],
              rows: (byPlatform.groups || []).map(flat),
            }),
          ),
          topCreators(creators.items || []),
        );
      } catch (e) {
        if (ctx.isCurrent()) fill(results, errorBox(e));
      }
    });
  }
  await run();
}

/** A relative change as a signed percentage; a dash when there was nothing before. */
function changeText(change) {
  if (change === null || change === undefined) return t('campaigns.change_none');
  return t('campaigns.change', { change: num(change, { style: 'percent', signDisplay: 'exceptZero', maximumFractionDigits: 1 }) });
}

/** The period's ten videos that gained most views, each against the period before. */
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
        { key: 'title', label: t('videos.col_title'), header: true, cell: (r) => h('a', { href: `/videos/${r.video_id}`, class: 'title-link' }, r.label) },
        { key: 'creator', label: t('videos.col_creator'), cell: (r) => (r.blogger_username ? `@${r.blogger_username}` : '–') },
        { key: 'platform', label: t('filter.platform'), cell: (r) => platformLabel(r.platform) },
        { key: 'views', label: metricLabel('views'), numeric: true, cell: (r) => num(r.views) },
        { key: 'likes', label: metricLabel('likes'), numeric: true, cell: (r) => num(r.likes) },
        { key: 'previous', label: t('campaigns.previous_views'), numeric: true, cell: (r) => num(r.previous && r.previous.views) },
        { key: 'change', label: t('campaigns.change_views'), numeric: true, cell: (r) => changeText(r.change && r.change.views) },
      ],
      rows: items,
    }),
  );
}

/** The period's creators (per platform) by views gained, each against the period before. */
function topCreators(items) {
  return section(
    t('campaigns.top_creators'),
    dataTable({
      caption: t('campaigns.top_creators'),
      hideCaption: true,
      csvName: 'campaign-top-creators',
      empty: t('campaigns.top_none'),
      columns: [
        { key: 'rank', label: t('campaigns.rank'), numeric: true, cell: (r) => num(r.rank) },
        { key: 'creator', label: t('videos.col_creator'), header: true, cell: (r) => (r.username ? `@${r.username}` : t('campaigns.unknown_creator')) },
        { key: 'platform', label: t('filter.platform'), cell: (r) => platformLabel(r.platform) },
        ...metricCells(),
        { key: 'previous', label: t('campaigns.previous_views'), numeric: true, cell: (r) => num(r.previous && r.previous.views) },
        { key: 'change', label: t('campaigns.change_views'), numeric: true, cell: (r) => changeText(r.change && r.change.views) },
      ],
      rows: items.map((item) => creatorRow({ ...item, group_key: item.key, group_label: item.label })),
    }),
  );
}

function perDay(days) {
  const metricSel = select(METRICS.map((m) => [m, metricLabel(m)]), 'views', { id: 'campaign-metric' });
  const slot = h('div', { class: 'chart-block' });
  const draw = () => {
    const m = metricSel.value;
    const points = days.map((d) => ({ date: d.date, value: d[m] }));
    const total = points.reduce((a, p) => a + (p.value || 0), 0);
    fill(slot, 
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
    dataTable({
      caption: t('campaigns.per_day'),
      hideCaption: true,
      csvName: 'campaign-days',
      columns: [{ key: 'date', label: t('table.day'), header: true, cell: (d) => date(d.date) }, ...metricCells()],
      rows: [...days].reverse(),
    }),
  );
}

/**
 * A row of the creators' table from a `platform_blogger` group: its key is
 * `platform:handle`, its label `handle - Platform`.
 */
function creatorRow(g) {
  const platform = g.group_key.split(':')[0];
  const cut = g.group_label.lastIndexOf(' - ');
  const username = cut >= 0 ? g.group_label.slice(0, cut) : g.group_label;
  return { ...g, platform, username };
}
