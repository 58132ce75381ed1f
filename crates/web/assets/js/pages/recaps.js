// Recaps: the member's own recap e-mails (the dashboard API's
// /dashboard/recaps: add a daily or weekly recap of the organization or of
// one campaign, change its frequency or what it covers, stop it) and the
// organization's channel recaps posted to Slack or Discord (everyone sees
// them, URLs masked; editors and above add, change and stop them).
import { get, post, patch, del, can, session } from '../api.js';
import { h, clear, fill, field, select, errorBox, busy, pageHeader, section } from '../dom.js';
import { t, dateTime } from '../i18n.js';
import { dataTable } from '../table.js';
import { loadCampaigns } from '../campaign-picker.js';

const BASE = '/dashboard/recaps';
const path = (id) => `${BASE}/${encodeURIComponent(id)}`;

/** The frequencies, with their labels. */
const FREQUENCIES = () => [
  ['daily', t('recaps.daily')],
  ['weekly', t('recaps.weekly')],
];

/** The chat services a channel recap posts to, with their labels. */
const SERVICES = () => [
  ['slack', t('recaps.slack')],
  ['discord', t('recaps.discord')],
];

const frequencyLabel = (f) => (FREQUENCIES().find(([v]) => v === f) || [f, f])[1];
const serviceLabel = (s) => (SERVICES().find(([v]) => v === s) || [s, s])[1];

/**
 * What the recaps can cover: the whole organization (''), then the
 * campaigns that are not archived, plus `keep` (a recap's own campaign)
 * when it is archived.
 */
function scopeOptions(campaigns, keep) {
  const offered = campaigns.filter((c) => !c.archived || c.id === keep);
  return [['', t('recaps.whole_org')], ...offered.map((c) => [c.id, c.name])];
}

/** A recap in words: what it covers and how often (and where it goes). */
function describe(r, names) {
  const scope = r.campaign_id ? names.get(r.campaign_id) || r.campaign_id : t('recaps.whole_org');
  const frequency = frequencyLabel(r.frequency);
  if (r.delivery === 'email') return t('recaps.label', { scope, frequency });
  return t('recaps.channel_label', { service: serviceLabel(r.delivery), url: r.channel_url, scope, frequency });
}

/** "27 Nov 2026, 06:00", or that it was not sent yet. */
function lastSent(r) {
  return r.last_sent_at ? dateTime(r.last_sent_at) : h('span', { class: 'hint' }, t('recaps.never_sent'));
}

/**
 * The form that adds a recap: frequency and scope, and for a channel its
 * service and URL. `onAdded(recap)` runs once the server took it.
 */
function addForm(channel, campaigns, onAdded) {
  const idPart = channel ? 'channel-recap' : 'recap';
  const frequency = select(FREQUENCIES(), 'daily', { id: `${idPart}-frequency` });
  const scope = select(scopeOptions(campaigns), '', { id: `${idPart}-scope` });
  const service = channel ? select(SERVICES(), 'slack', { id: 'channel-recap-service' }) : null;
  const url = channel ? h('input', { type: 'url', id: 'channel-recap-url', maxlength: 2000, required: true, autocomplete: 'off', placeholder: 'https://' }) : null;
  const result = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, channel ? t('recaps.add_channel') : t('recaps.add'));
  const form = h(
    'form',
    { class: 'form recap-form', novalidate: true },
    result,
    h(
      'div',
      { class: 'inline-form' },
      channel ? field(t('recaps.service'), service) : null,
      field(t('recaps.frequency'), frequency),
      field(t('recaps.scope'), scope),
    ),
    channel ? field(t('recaps.url'), url, t('recaps.url_hint')) : null,
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(result);
    if (url) url.removeAttribute('aria-invalid');
    const body = { frequency: frequency.value, campaign_id: scope.value || null };
    if (channel) {
      const address = url.value.trim();
      if (!address) {
        result.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('recaps.url_missing')));
        url.setAttribute('aria-invalid', 'true');
        url.focus();
        return;
      }
      body.channel = { type: service.value, url: address };
    }
    await busy(submit, async () => {
      try {
        const recap = await post(BASE, body);
        if (url) url.value = '';
        onAdded(recap);
      } catch (err) {
        result.append(errorBox(err));
        const marked = { channel: url, 'channel.url': url, frequency, campaign_id: scope }[String(err.field || '')];
        if (marked) {
          marked.setAttribute('aria-invalid', 'true');
          marked.focus();
        }
      }
    });
  });
  return form;
}

export default async function recaps(main, params, query, ctx) {
  const editor = can('editor');
  const status = h('div', { class: 'action-status', 'aria-live': 'polite' });
  const mineSlot = h('div');
  const mineForm = h('div');
  const channelSlot = h('div');
  const channelEdit = h('div');
  const channelForm = h('div');
  main.append(pageHeader(t('recaps.title')), h('p', { class: 'subtitle page-intro' }, t('recaps.intro')), status);
  main.append(section(t('recaps.mine_title'), h('p', { class: 'hint' }, t('recaps.mine_hint', { email: session.user?.email || '' })), mineSlot, h('h3', null, t('recaps.add_title')), mineForm));
  main.append(
    section(
      t('recaps.channels_title'),
      h('p', { class: 'hint' }, editor ? t('recaps.channels_hint') : t('recaps.channels_editors_only')),
      channelEdit,
      channelSlot,
      editor ? [h('h3', null, t('recaps.add_channel_title')), channelForm] : null,
    ),
  );
  fill(mineSlot, h('p', { class: 'loading' }, t('app.loading')));
  const say = (text) => fill(status, h('p', { class: 'alert alert-ok', role: 'status' }, text));
  const sayError = (err) => fill(status, errorBox(err));

  let campaigns = [];
  try {
    campaigns = await loadCampaigns({ fresh: true });
  } catch (_) {
    // Without the campaigns the recaps still show; they read "whole organization" or their id.
  }
  if (!ctx.isCurrent()) return;
  const names = new Map(campaigns.map((c) => [c.id, c.name]));
  let list = [];

  /** A select in a recap's row that changes `key` of it at once. */
  function changeSelect(r, options, value, label, bodyOf) {
    const sel = select(options, value, { class: 'recap-select', 'aria-label': `${label}: ${describe(r, names)}` });
    sel.addEventListener('change', async () => {
      sel.disabled = true;
      try {
        const saved = await patch(path(r.id), bodyOf(sel.value));
        say(t('recaps.saved', { recap: describe(saved, names) }));
        await load();
      } catch (err) {
        sayError(err);
        sel.value = value;
        sel.disabled = false;
      }
    });
    return sel;
  }

  const frequencyCell = (r) => (r.delivery === 'email' || editor ? changeSelect(r, FREQUENCIES(), r.frequency, t('recaps.frequency'), (v) => ({ frequency: v })) : frequencyLabel(r.frequency));
  const scopeCell = (r) =>
    r.delivery === 'email' || editor
      ? changeSelect(r, scopeOptions(campaigns, r.campaign_id), r.campaign_id || '', t('recaps.scope'), (v) => ({ campaign_id: v || null }))
      : r.campaign_id
        ? names.get(r.campaign_id) || r.campaign_id
        : t('recaps.whole_org');

  /** Stops `r` after a confirm that names it. */
  function stopButton(r) {
    const label = describe(r, names);
    const b = h('button', { type: 'button', class: 'btn btn-small btn-danger', 'aria-label': t('recaps.stop_one', { recap: label }) }, t('recaps.stop'));
    b.addEventListener('click', () => {
      if (!window.confirm(t('recaps.stop_confirm', { recap: label }))) return;
      busy(b, async () => {
        try {
          await del(path(r.id));
          say(t('recaps.stopped', { recap: label }));
          await load();
        } catch (err) {
          sayError(err);
        }
      });
    });
    return b;
  }

  /** Opens the form that gives channel recap `r` a new URL. */
  function changeUrlButton(r) {
    const b = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('recaps.change_url_of', { recap: describe(r, names) }) }, t('recaps.change_url'));
    b.addEventListener('click', () => {
      const url = h('input', { type: 'url', id: 'channel-recap-new-url', maxlength: 2000, required: true, autocomplete: 'off', placeholder: 'https://' });
      const result = h('div', { class: 'form-status', 'aria-live': 'polite' });
      const save = h('button', { type: 'submit', class: 'btn btn-primary' }, t('recaps.save'));
      const cancel = h('button', { type: 'button', class: 'btn' }, t('recaps.cancel'));
      cancel.addEventListener('click', () => clear(channelEdit));
      const form = h('form', { class: 'form recap-form', novalidate: true }, h('h3', null, t('recaps.change_url_title', { recap: describe(r, names) })), result, field(t('recaps.url'), url, t('recaps.url_hint')), h('div', { class: 'actions' }, save, cancel));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        clear(result);
        url.removeAttribute('aria-invalid');
        if (!url.value.trim()) {
          result.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('recaps.url_missing')));
          url.setAttribute('aria-invalid', 'true');
          url.focus();
          return;
        }
        await busy(save, async () => {
          try {
            const saved = await patch(path(r.id), { channel_url: url.value.trim() });
            clear(channelEdit);
            say(t('recaps.saved', { recap: describe(saved, names) }));
            await load();
          } catch (err) {
            result.append(errorBox(err));
            url.setAttribute('aria-invalid', 'true');
            url.focus();
          }
        });
      });
      fill(channelEdit, form);
      url.focus();
    });
    return b;
  }

  function draw() {
    const mine = list.filter((r) => r.delivery === 'email');
    const channels = list.filter((r) => r.delivery !== 'email');
    const common = [
      { key: 'id', label: 'id', hidden: true },
      { key: 'frequency', label: t('recaps.frequency'), csv: 'frequency', cell: frequencyCell },
      { key: 'campaign_id', label: t('recaps.scope'), csv: 'campaign_id', cell: scopeCell },
      { key: 'last_sent_at', label: t('recaps.col_last_sent'), csv: 'last_sent_at', cell: lastSent },
    ];
    fill(
      mineSlot,
      dataTable({
        caption: t('recaps.mine_title'),
        hideCaption: true,
        empty: t('recaps.mine_none'),
        columns: [
          ...common,
          { key: 'actions', label: h('span', { class: 'visually-hidden' }, t('recaps.col_actions')), csv: false, cell: stopButton },
        ],
        rows: mine,
      }),
    );
    const channelColumns = [
      { key: 'id', label: 'id', hidden: true },
      {
        key: 'channel_url',
        label: t('recaps.channel'),
        header: true,
        csv: 'channel_url',
        cell: (r) => h('span', { class: 'title-cell' }, h('span', { class: 'badge' }, serviceLabel(r.delivery)), h('span', { class: 'url recap-url' }, r.channel_url)),
      },
      ...common.slice(1),
    ];
    if (editor) {
      channelColumns.push({
        key: 'actions',
        label: h('span', { class: 'visually-hidden' }, t('recaps.col_actions')),
        csv: false,
        cell: (r) => h('span', { class: 'row-actions' }, changeUrlButton(r), stopButton(r)),
      });
    }
    fill(channelSlot, dataTable({ caption: t('recaps.channels_title'), hideCaption: true, empty: t('recaps.channels_none'), columns: channelColumns, rows: channels }));
  }

  async function load() {
    try {
      list = await get(BASE);
    } catch (err) {
      if (ctx.isCurrent()) fill(mineSlot, errorBox(err));
      return;
    }
    if (ctx.isCurrent()) draw();
  }

  const known = () => new Set(list.map((r) => r.id));
  fill(
    mineForm,
    addForm(false, campaigns, async (recap) => {
      say(known().has(recap.id) ? t('recaps.already', { recap: describe(recap, names) }) : t('recaps.added', { recap: describe(recap, names) }));
      await load();
    }),
  );
  if (editor) {
    fill(
      channelForm,
      addForm(true, campaigns, async (recap) => {
        say(t('recaps.added', { recap: describe(recap, names) }));
        await load();
      }),
    );
  }
  await load();
}
