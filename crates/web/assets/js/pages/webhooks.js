// Webhooks: the organization's endpoints (the dashboard API's
// /organizations/webhooks, admins and owners only): the list with each
// endpoint's state and last delivery, create (the signing secret shown
// once), send a test, enable or disable, delete; and one endpoint's page:
// its details, edit (URL, note, events), rotate the secret (the old one
// signs beside the new one for 24 hours), and its delivery log with a
// replay of one delivery or of every event since an instant.
import { get, post, patch, del, can } from '../api.js';
import { h, clear, fill, field, select, errorBox, errorText, busy, pageHeader, section, notice, toast, nextId } from '../dom.js';
import { t, num, dateTime } from '../i18n.js';
import { dataTable } from '../table.js';
import { navigate } from '../app.js';

const BASE = '/organizations/webhooks';
const LOG_PAGE = 20;
/** How often a log with deliveries on their way is read again, and how many times. */
const POLL_MS = 2000;
const POLL_TIMES = 30;

/**
 * The events an endpoint can subscribe to, with their labels. The names are
 * the API's (template literals: they are not catalog keys).
 */
export const EVENTS = [
  [`video.tracked`, () => t('webhooks.event_video_tracked')],
  [`video.milestone`, () => t('webhooks.event_video_milestone')],
  [`video.tracking_completed`, () => t('webhooks.event_video_tracking_completed')],
  [`video.unavailable`, () => t('webhooks.event_video_unavailable')],
  [`creator.job.succeeded`, () => t('webhooks.event_creator_job_succeeded')],
  [`creator.job.failed`, () => t('webhooks.event_creator_job_failed')],
  [`creator.video_discovered`, () => t('webhooks.event_creator_video_discovered')],
  [`alert.triggered`, () => t('webhooks.event_alert_triggered')],
];

const path = (id) => `${BASE}/${encodeURIComponent(id)}`;

/** An endpoint's state: `on`, `failing`, `off` (by a person) or `stopped` (by the service). */
export function endpointState(e) {
  if (e.enabled) return e.failing_since ? 'failing' : 'on';
  return e.disabled_reason ? 'stopped' : 'off';
}

/** The state as a badge, with why and since when. */
function stateBadge(e) {
  const state = endpointState(e);
  const text = {
    on: () => t('webhooks.state_on'),
    failing: () => t('webhooks.state_failing', { when: dateTime(e.failing_since) }),
    off: () => t('webhooks.state_off'),
    stopped: () => t('webhooks.state_stopped', { reason: e.disabled_reason }),
  }[state]();
  return h('span', { class: `badge badge-webhook-${state}` }, text);
}

function deliveryStatusLabel(s) {
  switch (s) {
    case 'pending':
      return t('webhooks.status_pending');
    case 'delivered':
      return t('webhooks.status_delivered');
    case 'failed':
      return t('webhooks.status_failed');
    default:
      return s || '–';
  }
}

function statusBadge(s) {
  return h('span', { class: `badge badge-${s}` }, deliveryStatusLabel(s));
}

function eventTags(events) {
  return h('span', { class: 'tags' }, events.map((e) => h('code', { class: 'tag' }, e)));
}

/** The host of `url`, or the URL itself when it does not parse. */
function hostOf(url) {
  try {
    return new URL(url).host;
  } catch (_) {
    return url;
  }
}

/** The checkboxes of the events, `chosen` ticked, in a fieldset; `.picked()` reads them. */
function eventPicker(chosen) {
  // An event this page has no label for (a newer server's) stays offered, under its name.
  const known = new Set(EVENTS.map(([name]) => name));
  const offered = [...EVENTS, ...chosen.filter((name) => !known.has(name)).map((name) => [name, null])];
  const boxes = offered.map(([name, label]) => {
    const box = h('input', { type: 'checkbox', id: nextId('event'), value: name, checked: chosen.includes(name) });
    const text = label ? [label(), ' ', h('code', { class: 'event-name' }, name)] : h('code', null, name);
    return { box, el: h('div', { class: 'checkbox' }, box, h('label', { for: box.id }, text)) };
  });
  const el = h('fieldset', { class: 'form event-picker', id: nextId('events') }, h('legend', { class: 'label' }, t('webhooks.events')), boxes.map((b) => b.el));
  return {
    el,
    picked: () => boxes.filter((b) => b.box.checked).map((b) => b.box.value),
    focus: () => boxes[0].box.focus(),
    invalid: (on) => (on ? el.setAttribute('aria-invalid', 'true') : el.removeAttribute('aria-invalid')),
  };
}

/** The secret, shown once, with a copy button and what to know about it. */
function secretBox(secret, ...lines) {
  const code = h('code', { class: 'secret', id: 'new-webhook-secret' }, secret);
  const copy = h('button', { type: 'button', class: 'btn btn-small' }, t('webhooks.copy_secret'));
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(secret);
      toast(t('webhooks.copied'));
    } catch (_) {
      const range = document.createRange();
      range.selectNodeContents(code);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      toast(t('webhooks.copy_manually'), 'error');
    }
  });
  return h('div', { class: 'alert alert-warn secret-box', role: 'status' }, lines.map((l) => h('p', null, l)), code, h('div', { class: 'actions' }, copy));
}

/**
 * The form of an endpoint's URL, note and events: `e` null creates one.
 * `onSaved(answer)` runs once the server took it; `onCancel` (optional)
 * closes the form.
 */
function endpointForm(e, onSaved, onCancel) {
  const editing = Boolean(e);
  const url = h('input', { type: 'url', id: editing ? 'webhook-edit-url' : 'webhook-url', maxlength: 2000, required: true, value: e?.url || '', autocomplete: 'off', placeholder: 'https://' });
  const description = h('input', { type: 'text', id: editing ? 'webhook-edit-description' : 'webhook-description', maxlength: 500, value: e?.description || '', autocomplete: 'off' });
  const events = eventPicker(e ? e.events : []);
  const result = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'btn btn-primary' }, editing ? t('webhooks.save') : t('webhooks.create'));
  const cancel = onCancel ? h('button', { type: 'button', class: 'btn' }, t('webhooks.cancel')) : null;
  if (cancel) cancel.addEventListener('click', onCancel);
  const form = h(
    'form',
    { class: 'form', novalidate: true },
    result,
    field(t('webhooks.url'), url, t('webhooks.url_hint')),
    field(t('webhooks.description'), description, t('webhooks.description_hint')),
    events.el,
    h('div', { class: 'actions' }, save, cancel),
  );
  const controls = { url, description };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(result);
    for (const c of Object.values(controls)) c.removeAttribute('aria-invalid');
    events.invalid(false);
    const body = { url: url.value.trim(), events: events.picked(), description: description.value.trim() || null };
    if (!body.url) {
      result.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('webhooks.url_missing')));
      url.setAttribute('aria-invalid', 'true');
      url.focus();
      return;
    }
    if (!body.events.length) {
      result.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('webhooks.events_missing')));
      events.invalid(true);
      events.focus();
      return;
    }
    if (!editing && !body.description) delete body.description;
    await busy(save, async () => {
      try {
        onSaved(editing ? await patch(path(e.id), body) : await post(BASE, body));
      } catch (err) {
        result.append(errorBox(err));
        if (err.field === 'events') {
          events.invalid(true);
          events.focus();
        } else if (controls[String(err.field || '')]) {
          controls[err.field].setAttribute('aria-invalid', 'true');
          controls[err.field].focus();
        }
      }
    });
  });
  return form;
}

/** The page for members who are not admins: what is here, and who manages it. */
function adminsOnly(main) {
  main.append(pageHeader(t('webhooks.title')), h('p', { class: 'subtitle page-intro' }, t('webhooks.intro')), notice(t('webhooks.admins_only'), 'info'));
}

/** A button's classes: small in a table's row, full size in a page's header. */
const buttonClass = (small) => (small ? 'btn btn-small' : 'btn');

/** Enables or disables `e`; `done()` after the server took it. */
function toggleButton(e, say, done, small = true) {
  const label = e.enabled ? t('webhooks.disable') : t('webhooks.enable');
  const b = h('button', { type: 'button', class: buttonClass(small), 'aria-label': `${label}: ${e.url}` }, label);
  b.addEventListener('click', () =>
    busy(b, async () => {
      try {
        await patch(path(e.id), { enabled: !e.enabled });
        say(e.enabled ? t('webhooks.disabled', { url: e.url }) : t('webhooks.enabled', { url: e.url }), 'ok');
        done();
      } catch (err) {
        say(`${e.url}: ${errorText(err)}`, 'error');
      }
    }),
  );
  return b;
}

/** Sends a test event to `e`. */
function testButton(e, say, done, small = true) {
  const label = t('webhooks.send_test');
  const b = h('button', { type: 'button', class: buttonClass(small), 'aria-label': `${label}: ${e.url}` }, label);
  b.addEventListener('click', () =>
    busy(b, async () => {
      try {
        await post(`${path(e.id)}/test`);
        say(t('webhooks.test_queued', { url: e.url }), 'ok');
        done();
      } catch (err) {
        say(`${e.url}: ${errorText(err)}`, 'error');
      }
    }),
  );
  return b;
}

/** Deletes `e` after a confirm that names it. */
function deleteButton(e, say, done, small = true) {
  const label = t('webhooks.delete');
  const b = h('button', { type: 'button', class: `${buttonClass(small)} btn-danger`, 'aria-label': `${label}: ${e.url}` }, label);
  b.addEventListener('click', () => {
    if (!window.confirm(t('webhooks.delete_confirm', { url: e.url }))) return;
    busy(b, async () => {
      try {
        await del(path(e.id));
        say(t('webhooks.deleted', { url: e.url }), 'ok');
        done();
      } catch (err) {
        say(`${e.url}: ${errorText(err)}`, 'error');
      }
    });
  });
  return b;
}

/** "Delivered · 27 Nov 2026, 22:15", or that there is none yet. */
function lastDelivery(d) {
  if (d === undefined) return '…';
  if (!d) return h('span', { class: 'hint' }, t('webhooks.no_deliveries_yet'));
  return h('span', { class: 'last-delivery' }, statusBadge(d.status), ' ', dateTime(d.last_attempt_at || d.created_at));
}

// ------------------------------------------------------------------ the list

async function listPage(main, ctx) {
  const newButton = h('button', { type: 'button', class: 'btn btn-primary', id: 'webhook-new' }, t('webhooks.new'));
  main.append(pageHeader(t('webhooks.title'), newButton), h('p', { class: 'subtitle page-intro' }, t('webhooks.intro')));
  const formSlot = h('div');
  const createdSlot = h('div', { 'aria-live': 'polite' });
  const status = h('div', { class: 'action-status', 'aria-live': 'polite' });
  const listSlot = h('div');
  main.append(formSlot, createdSlot, status, section(t('webhooks.list_title'), listSlot));
  const say = (text, kind) => fill(status, h('p', { class: `alert alert-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text));

  newButton.addEventListener('click', () => {
    clear(createdSlot);
    const form = endpointForm(
      null,
      (created) => {
        clear(formSlot);
        clear(status);
        fill(
          createdSlot,
          secretBox(
            created.secret,
            h('strong', null, t('webhooks.created', { url: created.url })),
            t('webhooks.secret_once'),
          ),
          h('p', null, h('a', { href: `/webhooks/${created.id}` }, t('webhooks.open_deliveries'))),
        );
        load();
      },
      () => clear(formSlot),
    );
    fill(formSlot, section(t('webhooks.new_title'), form));
    formSlot.querySelector('#webhook-url').focus();
  });

  async function load() {
    let list;
    try {
      list = await get(BASE);
    } catch (e) {
      if (ctx.isCurrent()) fill(listSlot, errorBox(e));
      return;
    }
    if (!ctx.isCurrent()) return;
    const last = new Map();
    const draw = () => {
      const rows = list.map((e) => ({ ...e, last: last.has(e.id) ? last.get(e.id) : undefined }));
      fill(
        listSlot,
        dataTable({
          caption: t('webhooks.list_title'),
          hideCaption: true,
          csvName: 'webhooks',
          empty: t('webhooks.none'),
          columns: [
            { key: 'id', label: 'id', hidden: true },
            {
              key: 'url',
              label: t('webhooks.url'),
              header: true,
              cell: (e) => h('span', { class: 'title-cell' }, h('a', { href: `/webhooks/${e.id}`, class: 'url webhook-link' }, e.url), e.description ? h('span', { class: 'hint' }, e.description) : null),
            },
            { key: 'description', label: 'description', hidden: true },
            { key: 'events', label: t('webhooks.events'), csv: ['events', (e) => e.events.join(' ')], cell: (e) => eventTags(e.events) },
            { key: 'state', label: t('webhooks.col_state'), csv: ['enabled', (e) => e.enabled], cell: stateBadge },
            { key: 'disabled_reason', label: 'disabled_reason', hidden: true },
            { key: 'last', label: t('webhooks.col_last_delivery'), csv: ['last_delivery_status', (e) => e.last?.status ?? null], cell: (e) => lastDelivery(e.last) },
            {
              key: 'actions',
              label: h('span', { class: 'visually-hidden' }, t('webhooks.col_actions')),
              csv: false,
              cell: (e) => h('span', { class: 'row-actions' }, testButton(e, say, load), toggleButton(e, say, load), deleteButton(e, say, load)),
            },
          ],
          rows,
        }),
      );
    };
    draw();
    await Promise.all(
      list.map(async (e) => {
        try {
          const page = await get(`${path(e.id)}/deliveries`, { query: { limit: 1 } });
          last.set(e.id, page[0] || null);
        } catch (_) {
          last.set(e.id, null);
        }
      }),
    );
    if (ctx.isCurrent()) draw();
  }
  await load();
}

// ------------------------------------------------------------------ one endpoint

/** The endpoint's facts: URL, note, events, state, the previous secret's overlap. */
function details(e) {
  const facts = [
    [t('webhooks.url'), h('span', { class: 'url', id: 'webhook-url-shown' }, e.url)],
    [t('webhooks.description'), e.description || '–'],
    [t('webhooks.events'), eventTags(e.events)],
    [t('webhooks.col_state'), stateBadge(e)],
    [t('webhooks.created_at'), dateTime(e.created_at)],
  ];
  if (e.previous_secret_expires_at && new Date(e.previous_secret_expires_at) > new Date()) {
    facts.push([t('webhooks.previous_secret'), t('webhooks.previous_secret_until', { when: dateTime(e.previous_secret_expires_at) })]);
  }
  return h('dl', { class: 'facts' }, facts.map(([dt, dd]) => [h('dt', null, dt), h('dd', null, dd)]));
}

/** The value of a `datetime-local` control for `d`, in the browser's time zone. */
export function localInputValue(d) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

async function endpointPage(main, id, ctx) {
  const back = h('p', null, h('a', { href: '/webhooks' }, t('webhooks.back')));
  let e;
  try {
    e = await get(path(id));
  } catch (err) {
    if (ctx.isCurrent()) main.append(back, h('h1', null, t('webhooks.endpoint_missing')), errorBox(err));
    return;
  }
  if (!ctx.isCurrent()) return;
  const secretSlot = h('div', { 'aria-live': 'polite' });
  const status = h('div', { class: 'action-status', 'aria-live': 'polite' });
  const headSlot = h('div');
  const detailSlot = h('div');
  const logSlot = h('div');
  const say = (text, kind) => fill(status, h('p', { class: `alert alert-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text));
  let polls = 0;

  const rotate = h('button', { type: 'button', class: 'btn', id: 'webhook-rotate' }, t('webhooks.rotate'));
  rotate.addEventListener('click', () => {
    if (!window.confirm(t('webhooks.rotate_confirm', { url: e.url }))) return;
    busy(rotate, async () => {
      try {
        const rotated = await post(`${path(id)}/rotate-secret`);
        clear(status);
        fill(
          secretSlot,
          secretBox(
            rotated.secret,
            h('strong', null, t('webhooks.rotated')),
            t('webhooks.secret_once'),
            t('webhooks.rotation_overlap', { when: dateTime(rotated.previous_secret_expires_at) }),
          ),
        );
        show(rotated);
      } catch (err) {
        say(errorText(err), 'error');
      }
    });
  });

  function show(endpoint) {
    e = endpoint;
    const title = t('webhooks.endpoint_title', { host: hostOf(e.url) });
    fill(
      headSlot,
      pageHeader(
        title,
        testButton(e, say, () => loadLog(true), false),
        toggleButton(e, say, reload, false),
        rotate,
        deleteButton(
          e,
          say,
          () => {
            toast(t('webhooks.deleted', { url: e.url }));
            navigate('/webhooks');
          },
          false,
        ),
      ),
    );
    fill(
      detailSlot,
      h(
        'div',
        { class: 'grid-2' },
        section(t('webhooks.details'), details(e)),
        section(
          t('webhooks.edit_title'),
          endpointForm(e, (saved) => {
            say(t('webhooks.saved'), 'ok');
            show(saved);
          }),
        ),
      ),
    );
  }

  async function reload() {
    try {
      show(await get(path(id)));
    } catch (err) {
      say(errorText(err), 'error');
    }
  }

  // The delivery log: filter, pages, replay one, replay since.
  const log = { status: '', offset: 0 };
  const statusSel = select(
    [
      ['', t('webhooks.status_any')],
      ['pending', t('webhooks.status_pending')],
      ['delivered', t('webhooks.status_delivered')],
      ['failed', t('webhooks.status_failed')],
    ],
    '',
    { id: 'delivery-status' },
  );
  statusSel.addEventListener('change', () => {
    log.status = statusSel.value;
    log.offset = 0;
    loadLog(false);
  });
  const refresh = h('button', { type: 'button', class: 'btn', id: 'deliveries-refresh' }, t('webhooks.refresh'));
  refresh.addEventListener('click', () => busy(refresh, () => loadLog(false)));

  function replayButton(d) {
    const label = t('webhooks.replay');
    const b = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('webhooks.replay_one', { event: d.event_type, when: dateTime(d.created_at) }) }, label);
    b.addEventListener('click', () =>
      busy(b, async () => {
        try {
          await post(`${path(id)}/deliveries/${encodeURIComponent(d.id)}/replay`);
          say(t('webhooks.replayed', { event: d.event_type }), 'ok');
          loadLog(true);
        } catch (err) {
          say(errorText(err), 'error');
        }
      }),
    );
    return b;
  }

  async function loadLog(poll) {
    if (poll) polls = 0;
    let page;
    try {
      page = await get(`${path(id)}/deliveries`, { query: { limit: LOG_PAGE, offset: log.offset, status: log.status }, raw: true });
    } catch (err) {
      if (ctx.isCurrent()) fill(logSlot, errorBox(err));
      return;
    }
    if (!ctx.isCurrent()) return;
    const rows = page.data || [];
    const p = page.meta?.pagination || { total: rows.length, offset: log.offset, has_more: false };
    const prev = h('button', { type: 'button', class: 'btn btn-small', disabled: log.offset === 0 }, t('paging.previous'));
    const next = h('button', { type: 'button', class: 'btn btn-small', disabled: !p.has_more }, t('paging.next'));
    prev.addEventListener('click', () => {
      log.offset = Math.max(0, log.offset - LOG_PAGE);
      loadLog(false);
    });
    next.addEventListener('click', () => {
      log.offset += LOG_PAGE;
      loadLog(false);
    });
    fill(
      logSlot,
      dataTable({
        caption: t('webhooks.deliveries'),
        hideCaption: true,
        csvName: 'webhook-deliveries',
        empty: log.status ? t('webhooks.no_deliveries_matching') : t('webhooks.no_deliveries'),
        columns: [
          { key: 'id', label: 'id', hidden: true },
          { key: 'event_id', label: 'event_id', hidden: true },
          { key: 'event_type', label: t('webhooks.col_event'), header: true, cell: (d) => h('code', null, d.event_type) },
          { key: 'status', label: t('webhooks.col_status'), cell: (d) => statusBadge(d.status) },
          { key: 'attempts', label: t('webhooks.col_attempts'), numeric: true, cell: (d) => num(d.attempts) },
          { key: 'last_status_code', label: t('webhooks.col_response'), numeric: true, cell: (d) => (d.last_status_code ?? '–') },
          { key: 'last_latency_ms', label: t('webhooks.col_latency'), numeric: true, cell: (d) => (d.last_latency_ms === null || d.last_latency_ms === undefined ? '–' : t('webhooks.ms', { ms: num(d.last_latency_ms) })) },
          { key: 'created_at', label: t('webhooks.col_queued'), cell: (d) => dateTime(d.created_at) },
          { key: 'last_attempt_at', label: t('webhooks.col_last_attempt'), cell: (d) => dateTime(d.last_attempt_at) },
          {
            key: 'last_error',
            label: t('webhooks.col_note'),
            csv: 'last_error',
            cell: (d) => [d.last_error ? h('span', { class: 'delivery-error' }, d.last_error) : null, d.status === 'pending' && d.next_attempt_at ? h('span', { class: 'hint' }, t('webhooks.next_attempt', { when: dateTime(d.next_attempt_at) })) : null],
          },
          { key: 'next_attempt_at', label: 'next_attempt_at', hidden: true },
          { key: 'delivered_at', label: 'delivered_at', hidden: true },
          { key: 'actions', label: h('span', { class: 'visually-hidden' }, t('webhooks.col_actions')), csv: false, cell: replayButton },
        ],
        rows,
      }),
      h('nav', { class: 'paging', 'aria-label': t('paging.label') }, prev, h('span', null, t('paging.range', { from: num(rows.length ? p.offset + 1 : 0), to: num(p.offset + rows.length), total: num(p.total) })), next),
    );
    // Deliveries on their way are read again for a while, so their fate shows.
    const soon = Date.now() + 60000;
    const waiting = rows.some((d) => d.status === 'pending' && (!d.next_attempt_at || new Date(d.next_attempt_at).getTime() < soon));
    if (waiting && polls < POLL_TIMES) {
      polls += 1;
      setTimeout(() => {
        if (ctx.isCurrent()) loadLog(false);
      }, POLL_MS);
    }
  }

  const since = h('input', { type: 'datetime-local', id: 'replay-since', required: true, value: localInputValue(new Date(Date.now() - 86400000)) });
  const replayAll = h('button', { type: 'submit', class: 'btn' }, t('webhooks.replay_since'));
  const replayForm = h('form', { class: 'inline-form replay-form' }, field(t('webhooks.since'), since, t('webhooks.since_hint')), replayAll);
  replayForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const at = new Date(since.value);
    if (!since.value || Number.isNaN(at.getTime())) {
      say(t('webhooks.since_missing'), 'error');
      since.setAttribute('aria-invalid', 'true');
      since.focus();
      return;
    }
    since.removeAttribute('aria-invalid');
    if (!window.confirm(t('webhooks.replay_since_confirm', { when: dateTime(at) }))) return;
    await busy(replayAll, async () => {
      try {
        const queued = await post(`${path(id)}/replay`, { since: at.toISOString() });
        say(t('webhooks.replayed_since', { count: queued.queued, when: dateTime(at) }), 'ok');
        loadLog(true);
      } catch (err) {
        say(errorText(err), 'error');
      }
    });
  });

  main.append(
    back,
    headSlot,
    secretSlot,
    status,
    detailSlot,
    section(
      t('webhooks.deliveries'),
      h('p', { class: 'hint' }, t('webhooks.deliveries_hint')),
      h('div', { class: 'chart-controls' }, field(t('webhooks.col_status'), statusSel), refresh),
      logSlot,
      h('h3', null, t('webhooks.replay_since_title')),
      replayForm,
    ),
  );
  show(e);
  await loadLog(true);
}

export default async function webhooks(main, params, query, ctx) {
  if (!can('admin')) {
    adminsOnly(main);
    return;
  }
  if (params.id) await endpointPage(main, params.id, ctx);
  else await listPage(main, ctx);
}
