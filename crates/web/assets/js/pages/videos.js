// Videos: the tracked videos (sort, filters, title search, paging, gain
// over a period), the paste box that tracks links, bulk campaign and tags
// (one batch edit), and each video's actions: read it now, untrack it.
import { get, post, patch, del, can } from '../api.js';
import { h, clear, fill, field, select, errorBox, errorText, busy, pageHeader, section, nextId } from '../dom.js';
import { t, num, gain, dateTime } from '../i18n.js';
import { dataTable } from '../table.js';
import { exportVideos } from '../csv.js';
import { campaignInput, forgetCampaigns } from '../campaign-picker.js';
import { platformLabel, PLATFORMS, trackingStatusLabel, TRACKING_STATES, trackOutcomeLabel } from '../labels.js';

export const MAX_LINKS = 50;
const SORTS = ['created_at', 'views', 'likes', 'comments', 'updated_at', 'published_at'];
const PERIODS = [1, 7, 30];
const PAGE_SIZES = [25, 50, 100];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The listing's state, kept in the address so back and reload keep it. */
function readState(query) {
  const int = (name, fallback) => {
    const v = Number.parseInt(query.get(name) ?? '', 10);
    return Number.isFinite(v) && v >= 0 ? v : fallback;
  };
  return {
    q: query.get('q') || '',
    campaign: query.get('campaign') || '',
    blogger: query.get('blogger') || '',
    tags: query.get('tags') || '',
    published_from: DAY.test(query.get('published_from') || '') ? query.get('published_from') : '',
    published_to: DAY.test(query.get('published_to') || '') ? query.get('published_to') : '',
    tracked_from: DAY.test(query.get('tracked_from') || '') ? query.get('tracked_from') : '',
    tracked_to: DAY.test(query.get('tracked_to') || '') ? query.get('tracked_to') : '',
    platform: PLATFORMS.includes(query.get('platform')) ? query.get('platform') : '',
    status: TRACKING_STATES.includes(query.get('status')) ? query.get('status') : '',
    sort: SORTS.includes(query.get('sort')) || query.get('sort') === 'gain' ? query.get('sort') : 'created_at',
    order: query.get('order') === 'asc' ? 'asc' : 'desc',
    limit: PAGE_SIZES.includes(int('limit', 50)) ? int('limit', 50) : 50,
    offset: int('offset', 0),
    period: PERIODS.includes(int('period', 7)) ? int('period', 7) : 7,
  };
}

function writeState(state) {
  const params = new URLSearchParams();
  const defaults = { sort: 'created_at', order: 'desc', limit: 50, offset: 0, period: 7 };
  for (const [k, v] of Object.entries(state)) {
    if (v === '' || v === defaults[k]) continue;
    params.set(k, String(v));
  }
  const qs = params.toString();
  history.replaceState(null, '', `/videos${qs ? `?${qs}` : ''}`);
}

/**
 * A video's thumbnail, always from this origin (`GET /thumbnails/{id}`):
 * the platform's picture through the server, or a tile in the platform's
 * colour; nothing is loaded from another host.
 */
export function thumbnail(record) {
  const placeholder = () => h('span', { class: 'thumb thumb-placeholder', 'aria-hidden': 'true' }, '▶');
  if (!record || !record.video_id) return placeholder();
  const img = h('img', { class: 'thumb', src: `/thumbnails/${encodeURIComponent(record.video_id)}`, alt: '', loading: 'lazy', width: 64, height: 36 });
  img.addEventListener('error', () => img.replaceWith(placeholder()));
  return img;
}

/** The first UTC day of the `days` days ending today, `YYYY-MM-DD`. */
export function periodStart(days, today = new Date()) {
  const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)));
  return start.toISOString().slice(0, 10);
}

/** One line per link; blank lines dropped. */
export function parseLinks(text) {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
}

/** The name a message gives video `v`: its title, else the platform's id. */
function videoName(v) {
  return v.title || v.external_video_id || v.video_id;
}

/** The message for a refresh the server refused (`e`), for video `v`. */
function refreshRefusal(v, e) {
  const title = videoName(v);
  if (e.code === 'REFRESH_TOO_SOON') {
    const seconds = Number(e.headers?.get?.('Retry-After')) || 1;
    return t('videos.refresh_too_soon', { title, count: seconds });
  }
  if (e.code === 'EXTERNAL_API_ERROR') return t('videos.refresh_failed', { title });
  return `${title}: ${errorText(e)}`;
}

/**
 * The actions on video `v` for editors: read it now (the API's cooldown,
 * credit and errors) and untrack it (after a confirm). `say(text, kind)`
 * shows the outcome; `done(action)` runs after a success.
 */
export function videoActions(v, say, done) {
  const title = videoName(v);
  const refresh = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('videos.refresh_one', { title }) }, t('videos.refresh'));
  const untrack = h('button', { type: 'button', class: 'btn btn-small btn-danger', 'aria-label': t('videos.untrack_one', { title }) }, t('videos.untrack'));
  refresh.addEventListener('click', () =>
    busy(refresh, async () => {
      try {
        const r = await post(`/dashboard/videos/${encodeURIComponent(v.video_id)}/refresh`);
        say(r.fresh ? t('videos.refresh_fresh', { title }) : t('videos.refresh_cached', { title, time: dateTime(r.read_at) }), 'ok');
        done('refresh');
      } catch (e) {
        say(refreshRefusal(v, e), 'error');
      }
    }),
  );
  untrack.addEventListener('click', () => {
    if (!window.confirm(t('videos.untrack_confirm', { title }))) return;
    busy(untrack, async () => {
      try {
        await del(`/dashboard/videos/${encodeURIComponent(v.video_id)}`);
        say(t('videos.untracked', { title }), 'ok');
        done('untrack');
      } catch (e) {
        say(`${title}: ${errorText(e)}`, 'error');
      }
    });
  });
  return [refresh, untrack];
}

function trackBox(onTracked) {
  const area = h('textarea', { id: 'track-links', rows: 5, spellcheck: 'false', autocomplete: 'off', placeholder: 'https://www.tiktok.com/@creator/video/…' });
  const counter = h('span', { class: 'hint', 'aria-live': 'polite' });
  const results = h('div', { class: 'track-results', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'btn btn-primary' }, t('videos.track_submit'));
  const update = () => {
    const n = parseLinks(area.value).length;
    counter.textContent = t('videos.track_count', { count: n, max: MAX_LINKS });
    counter.classList.toggle('over', n > MAX_LINKS);
  };
  area.addEventListener('input', update);
  update();
  const form = h(
    'form',
    { class: 'form track-form', novalidate: true },
    field(t('videos.track_label'), area, t('videos.track_hint', { max: MAX_LINKS })),
    h('div', { class: 'actions' }, button, counter),
    results,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(results);
    const urls = parseLinks(area.value);
    if (!urls.length) {
      results.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('videos.track_empty')));
      return;
    }
    if (urls.length > MAX_LINKS) {
      results.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('videos.track_too_many', { max: MAX_LINKS })));
      return;
    }
    await busy(button, async () => {
      try {
        const answer = await post('/dashboard/videos/track', { urls }, { raw: true });
        const items = answer.data.results || [];
        const summary = answer.meta?.summary;
        if (summary) {
          results.append(
            h(
              'p',
              { class: 'alert alert-ok', role: 'status' },
              t('videos.track_summary', { tracked: summary.tracked, already: summary.already_tracked, errors: summary.errors }),
            ),
          );
        }
        results.append(
          dataTable({
            caption: t('videos.track_results'),
            csvName: 'track-results',
            columns: [
              { key: 'index', label: '#', numeric: true, cell: (r) => String(r.index + 1) },
              { key: 'url', label: t('videos.col_link'), cell: (r) => h('span', { class: 'url' }, r.url) },
              {
                key: 'status',
                label: t('videos.col_outcome'),
                cell: (r) => h('span', { class: `badge badge-${r.status}` }, trackOutcomeLabel(r.status)),
              },
              { key: 'platform', label: t('videos.col_platform'), cell: (r) => (r.platform ? platformLabel(r.platform) : '–') },
              {
                key: 'detail',
                label: t('videos.col_detail'),
                csv: 'video_id',
                cell: (r) => (r.error ? r.error : r.video_id ? h('a', { href: `/videos/${r.video_id}` }, t('videos.open')) : ''),
              },
              { key: 'error', label: 'error', hidden: true },
            ],
            rows: items,
          }),
        );
        if (items.some((r) => r.status !== 'error')) onTracked();
      } catch (e) {
        results.append(errorBox(e));
      }
    });
  });
  return form;
}

/** The one line that tells what a batch edit of `count` videos did. */
function batchOutcome(body, count) {
  if (body.tags) return t('videos.batch_tags_done', { count, tags: body.tags.join(', ') });
  if (body.campaign) return t('videos.batch_campaign_done', { count, campaign: body.campaign });
  return t('videos.batch_campaign_cleared', { count });
}

function bulkBar(selected, onDone) {
  const [campaign, campaignList] = campaignInput({ id: 'bulk-campaign' });
  const tags = h('input', { type: 'text', id: 'bulk-tags' });
  const setCampaign = h('button', { type: 'button', class: 'btn' }, t('videos.bulk_set_campaign'));
  const addTags = h('button', { type: 'button', class: 'btn' }, t('videos.bulk_add_tags'));
  const count = h('p', { class: 'bulk-count', 'aria-live': 'polite' });
  const result = h('p', { class: 'bulk-result', 'aria-live': 'polite' });
  const say = (text, kind) => {
    result.textContent = text;
    result.className = `bulk-result ${kind}`;
  };
  const refresh = () => {
    count.textContent = t('videos.selected', { count: selected.size });
    setCampaign.disabled = selected.size === 0;
    addTags.disabled = selected.size === 0;
  };
  /** Sends `body` for every selected video as one batch edit (all or nothing). */
  async function run(button, body) {
    const ids = [...selected];
    say(t('videos.bulk_working'), 'working');
    await busy(button, async () => {
      try {
        const data = await patch('/dashboard/videos/batch', { video_ids: ids, ...body });
        if ('campaign' in body) forgetCampaigns();
        say(batchOutcome(body, data.updated_count), 'ok');
      } catch (e) {
        const missing = e.body?.error?.not_found;
        say(missing ? t('videos.batch_not_found', { count: missing.length }) : errorText(e), 'error');
      }
    });
    onDone();
  }
  setCampaign.addEventListener('click', () => {
    const value = campaign.value.trim();
    run(setCampaign, { campaign: value || null });
  });
  addTags.addEventListener('click', () => {
    const names = tags.value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (!names.length) {
      say(t('videos.bulk_no_tags'), 'error');
      return;
    }
    run(addTags, { tags: names });
  });
  refresh();
  const bar = h(
    'div',
    { class: 'bulk' },
    count,
    h('div', { class: 'bulk-controls' }, field(t('videos.bulk_campaign'), campaign, t('campaigns.pick_hint')), campaignList, setCampaign),
    h('div', { class: 'bulk-controls' }, field(t('videos.bulk_tags'), tags, t('videos.bulk_tags_hint')), addTags),
    result,
  );
  return { bar, refresh };
}

export default async function videos(main, params, query, ctx) {
  const state = readState(query);
  const editor = can('editor');
  const listSlot = h('div');
  main.append(pageHeader(t('videos.title')));

  const trackDetails = h(
    'details',
    { class: 'card track-card', open: true },
    h('summary', null, h('h2', { class: 'inline-h2' }, t('videos.track_title'))),
    trackBox(() => load()),
  );
  main.append(trackDetails);

  // Filters
  const search = h('input', { type: 'search', id: 'video-search', value: state.q, autocomplete: 'off' });
  const [campaign, campaignList] = campaignInput({ id: 'video-campaign', value: state.campaign });
  const blogger = h('input', { type: 'text', id: 'video-blogger', value: state.blogger, autocomplete: 'off', maxlength: 101 });
  const tags = h('input', { type: 'text', id: 'video-tags', value: state.tags, autocomplete: 'off', placeholder: t('videos.filter_tags_example') });
  const publishedFrom = h('input', { type: 'date', id: 'video-published-from', value: state.published_from });
  const publishedTo = h('input', { type: 'date', id: 'video-published-to', value: state.published_to });
  const trackedFrom = h('input', { type: 'date', id: 'video-tracked-from', value: state.tracked_from });
  const trackedTo = h('input', { type: 'date', id: 'video-tracked-to', value: state.tracked_to });
  const platform = select([['', t('filter.all_platforms')], ...PLATFORMS.map((p) => [p, platformLabel(p)])], state.platform, { id: 'video-platform' });
  const status = select([['', t('filter.all_states')], ...TRACKING_STATES.map((s) => [s, trackingStatusLabel(s)])], state.status, { id: 'video-status' });
  const sort = select(
    [
      ['created_at', t('videos.sort_created')],
      ['views', t('videos.sort_views')],
      ['likes', t('videos.sort_likes')],
      ['comments', t('videos.sort_comments')],
      ['updated_at', t('videos.sort_updated')],
      ['published_at', t('videos.sort_published')],
      ['gain', t('videos.sort_gain')],
    ],
    state.sort,
    { id: 'video-sort' },
  );
  const order = select(
    [
      ['desc', t('videos.order_desc')],
      ['asc', t('videos.order_asc')],
    ],
    state.order,
    { id: 'video-order' },
  );
  const period = select(PERIODS.map((d) => [d, t('videos.period', { count: d })]), state.period, { id: 'video-period' });
  const pageSize = select(PAGE_SIZES.map((n) => [n, String(n)]), state.limit, { id: 'video-limit' });
  const filters = h(
    'form',
    { class: 'filters video-filters', role: 'search', 'aria-label': t('videos.filters') },
    field(t('videos.search'), search),
    field(t('videos.filter_campaign'), campaign),
    campaignList,
    field(t('videos.filter_creator'), blogger),
    field(t('videos.filter_tags'), tags),
    field(t('videos.published_from'), publishedFrom),
    field(t('videos.published_to'), publishedTo),
    field(t('videos.tracked_from'), trackedFrom),
    field(t('videos.tracked_to'), trackedTo),
    field(t('filter.platform'), platform),
    field(t('filter.status'), status),
    field(t('videos.sort'), sort),
    field(t('videos.order'), order),
    field(t('videos.gain_period'), period),
    field(t('videos.page_size'), pageSize),
    h('button', { type: 'submit', class: 'btn' }, t('videos.apply')),
  );
  let searchTimer;
  const apply = () => {
    Object.assign(state, {
      q: search.value.trim(),
      campaign: campaign.value.trim(),
      blogger: blogger.value.trim(),
      tags: tags.value.trim(),
      published_from: publishedFrom.value,
      published_to: publishedTo.value,
      tracked_from: trackedFrom.value,
      tracked_to: trackedTo.value,
      platform: platform.value,
      status: status.value,
      sort: sort.value,
      order: order.value,
      period: Number(period.value),
      limit: Number(pageSize.value),
      offset: 0,
    });
    load();
  };
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    apply();
  });
  for (const control of [platform, status, sort, order, period, pageSize, campaign, blogger, tags, publishedFrom, publishedTo, trackedFrom, trackedTo]) control.addEventListener('change', apply);
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(apply, 350);
  });
  // The outcome of the latest row action, kept above the list as it reloads.
  const actionStatus = h('div', { class: 'action-status', 'aria-live': 'polite' });
  const sayAction = (text, kind) => fill(actionStatus, h('p', { class: `alert alert-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text));
  main.append(section(t('videos.list_title'), filters, actionStatus, listSlot));

  const selected = new Set();
  const bulk = editor ? bulkBar(selected, () => load()) : null;
  let loadSeq = 0;

  async function load() {
    const seq = ++loadSeq;
    writeState(state);
    fill(listSlot, h('p', { class: 'loading' }, t('app.loading')));
    let page;
    // The listing's filters, sort and window: the CSV is every video they match.
    const query = {
      sort: state.sort === 'gain' ? 'views_gained' : state.sort,
      // The gain column: the server measures the period's last `period`
      // UTC days, today included, counting a video tracked within them
      // from its first reading (views from before tracking are no gain).
      from: periodStart(state.period),
      baseline: 'tracking',
      order: state.order,
      platform: state.platform,
      status: state.status,
      q: state.q,
      campaign: state.campaign,
      blogger: state.blogger,
      published_from: state.published_from,
      published_to: state.published_to,
      tracked_from: state.tracked_from,
      tracked_to: state.tracked_to,
      tag: state.tags
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    };
    try {
      page = await get('/dashboard/videos', { query: { ...query, limit: state.limit, offset: state.offset } });
    } catch (e) {
      if (seq === loadSeq && ctx.isCurrent()) fill(listSlot, errorBox(e));
      return;
    }
    if (seq !== loadSeq || !ctx.isCurrent()) return;
    const rows = (page.data || []).map((v) => ({ ...v, gain: v.gained ? v.gained.views : null }));
    const rowsById = new Map(rows.map((r) => [r.video_id, r]));
    for (const id of [...selected]) if (!rowsById.has(id)) selected.delete(id);
    const refresh = bulk ? bulk.refresh : () => {};
    const allBox = h('input', { type: 'checkbox', 'aria-label': t('videos.select_all') });
    const boxes = [];
    allBox.addEventListener('change', () => {
      for (const b of boxes) {
        b.checked = allBox.checked;
        if (allBox.checked) selected.add(b.value);
        else selected.delete(b.value);
      }
      refresh();
    });
    const onSort = (key) => {
      if (state.sort === key) state.order = state.order === 'desc' ? 'asc' : 'desc';
      else {
        state.sort = key;
        state.order = 'desc';
      }
      sort.value = state.sort;
      order.value = state.order;
      state.offset = 0;
      load();
    };
    const columns = [];
    if (editor) {
      columns.push({
        key: 'select',
        label: allBox,
        csv: false,
        cell: (r) => {
          const box = h('input', {
            type: 'checkbox',
            value: r.video_id,
            checked: selected.has(r.video_id),
            'aria-label': t('videos.select_one', { title: r.title || r.external_video_id }),
          });
          box.addEventListener('change', () => {
            if (box.checked) selected.add(r.video_id);
            else selected.delete(r.video_id);
            refresh();
          });
          boxes.push(box);
          return box;
        },
      });
    }
    columns.push(
      { key: 'thumb', label: h('span', { class: 'visually-hidden' }, t('videos.col_thumbnail')), csv: false, cell: (r) => thumbnail(r) },
      {
        key: 'title',
        label: t('videos.col_title'),
        // Editors find the video's actions under its title (no column of their own: the table stays narrow).
        cell: (r) => {
          const link = h('a', { href: `/videos/${r.video_id}`, class: 'title-link' }, r.title || r.external_video_id);
          return editor ? h('div', { class: 'title-cell' }, link, h('span', { class: 'row-actions' }, videoActions(r, sayAction, () => load()))) : link;
        },
      },
      { key: 'creator', label: t('videos.col_creator'), cell: (r) => (r.author_username ? `@${r.author_username}` : '–') },
      { key: 'platform', label: t('videos.col_platform'), cell: (r) => platformLabel(r.platform) },
      { key: 'views', label: t('metric.views'), numeric: true, sortable: true, cell: (r) => num(r.views) },
      { key: 'likes', label: t('metric.likes'), numeric: true, sortable: true, cell: (r) => num(r.likes) },
      { key: 'comments', label: t('metric.comments'), numeric: true, sortable: true, cell: (r) => num(r.comments) },
      {
        key: 'gain',
        label: t('videos.col_gain', { days: state.period }),
        numeric: true,
        sortable: true,
        cell: (r) => gain(r.gain),
      },
      { key: 'campaign', label: t('videos.col_campaign'), cell: (r) => r.campaign || '–' },
      {
        key: 'tags',
        label: t('videos.col_tags'),
        cell: (r) =>
          r.tags && r.tags.length
            ? h('span', { class: 'tags' }, r.tags.map((tag) => h('span', { class: 'tag' }, tag)))
            : '–',
      },
      {
        key: 'status',
        label: t('videos.col_status'),
        cell: (r) => h('span', { class: `badge badge-${r.tracking_status}` }, trackingStatusLabel(r.tracking_status)),
      },
    );
    const p = page.pagination || { total: rows.length, limit: state.limit, offset: state.offset, has_more: false };
    const prev = h('button', { type: 'button', class: 'btn btn-small', disabled: p.offset === 0 }, t('paging.previous'));
    const next = h('button', { type: 'button', class: 'btn btn-small', disabled: !p.has_more }, t('paging.next'));
    prev.addEventListener('click', () => {
      state.offset = Math.max(0, state.offset - state.limit);
      load();
    });
    next.addEventListener('click', () => {
      state.offset += state.limit;
      load();
    });
    const from = rows.length ? p.offset + 1 : 0;
    const to = p.offset + rows.length;
    const pagingId = nextId('paging');
    fill(listSlot, 
      bulk ? bulk.bar : null,
      dataTable({
        caption: t('videos.table_caption'),
        hideCaption: true,
        csvName: () => exportVideos(query),
        columns,
        rows,
        empty:
          state.q || state.platform || state.status || state.campaign || state.blogger || state.tags || state.published_from || state.published_to || state.tracked_from || state.tracked_to
            ? t('videos.none_matching')
            : t('videos.none_yet'),
        sort: { key: state.sort, dir: state.order, onSort },
      }),
      h(
        'nav',
        { class: 'paging', 'aria-label': t('paging.label') },
        prev,
        h('span', { id: pagingId }, t('paging.range', { from: num(from), to: num(to), total: num(p.total) })),
        next,
      ),
    );
    refresh();
  }
  await load();
}
