// Alerts: the organization's alert rules (kind, scope, channels, enabled,
// last fired), a form per kind to create or edit one (editors and above),
// delete with confirm, a test message to its channels, and each rule's
// firings with their sends.
import { get, post, patch, del, can } from '../api.js';
import { h, clear, fill, field, select, errorBox, busy, pageHeader, section, toast } from '../dom.js';
import { t, num, dateTime } from '../i18n.js';
import { dataTable } from '../table.js';

export const KINDS = ['views_milestone', 'velocity', 'outlier', 'followers_milestone', 'video_unavailable'];

/** The label of a rule's kind. */
export const kindLabel = (kind) => t(`alerts.kind_${kind}`);

/** What a rule's parameters say, in words. */
export function paramsText(rule) {
  const p = rule.params || {};
  switch (rule.kind) {
    case 'views_milestone':
    case 'followers_milestone':
      return (p.thresholds || []).map((n) => num(n)).join(', ');
    case 'velocity':
      return t('alerts.params_velocity', { views: num(p.views), hours: num(p.hours) });
    case 'outlier':
      return t('alerts.params_outlier', { factor: num(p.factor), min: num(p.min_videos) });
    default:
      return '';
  }
}

/** The channels of a rule, in words (e-mail recipients by address). */
function channelsText(rule, members) {
  return (rule.channels || [])
    .map((c) => {
      if (c.type === 'email') {
        const who = (c.to || []).map((id) => members.find((m) => m.id === id)?.email || id);
        return t('alerts.channel_email', { to: who.join(', ') });
      }
      if (c.type === 'webhooks') return t('alerts.channel_webhooks');
      return `${t(`alerts.channel_${c.type}`)} ${c.url}`;
    })
    .join(' · ');
}

/** Thresholds typed as "1000, 10 000": whole numbers, or null when not. */
function parseThresholds(text) {
  const parts = text.split(/[,;]/).map((s) => s.replace(/[\s_.']/g, '')).filter(Boolean);
  const numbers = parts.map((s) => (/^\d+$/.test(s) ? Number(s) : NaN));
  return numbers.some(Number.isNaN) ? null : numbers;
}

function ruleForm(rule, { members, campaigns }, onSaved, onCancel) {
  const editing = Boolean(rule);
  const p = rule?.params || {};
  const name = h('input', { type: 'text', id: 'alert-name', maxlength: 200, value: rule?.name || '', required: true });
  const kind = select(KINDS.map((k) => [k, kindLabel(k)]), rule?.kind || 'views_milestone', { id: 'alert-kind', disabled: editing });
  const scope = select([['', t('alerts.scope_all')], ...campaigns.map((c) => [c.id, c.name])], rule?.campaign_id || '', { id: 'alert-scope' });
  const thresholds = h('input', { type: 'text', id: 'alert-thresholds', inputmode: 'numeric', value: (p.thresholds || []).join(', ') });
  const views = h('input', { type: 'number', id: 'alert-views', min: 1, value: p.views ?? '' });
  const hours = h('input', { type: 'number', id: 'alert-hours', min: 1, max: 168, value: p.hours ?? 24 });
  const factor = h('input', { type: 'number', id: 'alert-factor', min: 1.1, step: 0.1, value: p.factor ?? 3 });
  const minVideos = h('input', { type: 'number', id: 'alert-min-videos', min: 3, value: p.min_videos ?? 5 });
  // One thresholds field, shown for both milestone kinds.
  const thresholdsField = field(t('alerts.thresholds'), thresholds, t('alerts.thresholds_hint'));
  const byKind = {
    views_milestone: [thresholdsField],
    followers_milestone: [thresholdsField],
    velocity: [field(t('alerts.views'), views), field(t('alerts.hours'), hours)],
    outlier: [field(t('alerts.factor'), factor, t('alerts.factor_hint')), field(t('alerts.min_videos'), minVideos)],
    video_unavailable: [h('p', { class: 'hint' }, t('alerts.unavailable_hint'))],
  };
  const paramsSlot = h('div', { class: 'inline-form' });
  const showParams = () => fill(paramsSlot, byKind[kind.value]);
  kind.addEventListener('change', showParams);
  showParams();

  const channel = (type) => (rule?.channels || []).find((c) => c.type === type);
  const recipients = members.map((m) => {
    const box = h('input', { type: 'checkbox', value: m.id, checked: (channel('email')?.to || []).includes(m.id) });
    return h('label', { class: 'check' }, box, ` ${m.email}`);
  });
  const slack = h('input', { type: 'url', id: 'alert-slack', value: channel('slack')?.url || '', placeholder: 'https://hooks.slack.com/services/…' });
  const discord = h('input', { type: 'url', id: 'alert-discord', value: channel('discord')?.url || '', placeholder: 'https://discord.com/api/webhooks/…' });
  const webhooks = h('input', { type: 'checkbox', id: 'alert-webhooks', checked: Boolean(channel('webhooks')) });
  const enabled = h('input', { type: 'checkbox', id: 'alert-enabled', checked: rule ? rule.enabled : true });

  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, editing ? t('alerts.save') : t('alerts.create'));
  const cancel = editing ? h('button', { type: 'button', class: 'btn', onclick: onCancel }, t('alerts.cancel')) : null;
  const form = h(
    'form',
    { class: 'form', id: 'alert-form', novalidate: true },
    status,
    h('div', { class: 'inline-form' }, field(t('alerts.name'), name), field(t('alerts.kind'), kind), field(t('alerts.scope'), scope)),
    paramsSlot,
    h('fieldset', null, h('legend', null, t('alerts.channels')), h('p', { class: 'hint' }, t('alerts.email_to')), h('div', { class: 'checks' }, recipients), field(t('alerts.slack_url'), slack, t('alerts.url_hint')), field(t('alerts.discord_url'), discord), h('label', { class: 'check' }, webhooks, ` ${t('alerts.webhooks_channel')}`)),
    h('label', { class: 'check' }, enabled, ` ${t('alerts.enabled')}`),
    h('div', { class: 'actions' }, submit, cancel),
  );

  function params() {
    switch (kind.value) {
      case 'views_milestone':
      case 'followers_milestone':
        return { thresholds: parseThresholds(thresholds.value) ?? thresholds.value };
      case 'velocity':
        return { views: Number(views.value), hours: Number(hours.value) };
      case 'outlier':
        return { factor: Number(factor.value), min_videos: Number(minVideos.value) };
      default:
        return {};
    }
  }

  function channels() {
    const out = [];
    const to = recipients.map((l) => l.querySelector('input')).filter((b) => b.checked).map((b) => b.value);
    if (to.length) out.push({ type: 'email', to });
    if (slack.value.trim()) out.push({ type: 'slack', url: slack.value.trim() });
    if (discord.value.trim()) out.push({ type: 'discord', url: discord.value.trim() });
    if (webhooks.checked) out.push({ type: 'webhooks' });
    return out;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    const body = { name: name.value.trim(), campaign_id: scope.value || null, params: params(), channels: channels(), enabled: enabled.checked };
    if (!editing) body.kind = kind.value;
    await busy(submit, async () => {
      try {
        const saved = editing ? await patch(`/dashboard/alerts/${encodeURIComponent(rule.id)}`, body) : await post('/dashboard/alerts', body);
        toast(t(editing ? 'alerts.saved' : 'alerts.created', { name: saved.name }));
        onSaved(saved);
      } catch (e) {
        status.append(errorBox(e));
      }
    });
  });
  return form;
}

/** The sends of a firing, in words. */
/** One send in words: the channel and how it went. */
function sendText(s) {
  return `${s.channel === 'email' ? t('alerts.channel_email', { to: s.target }) : t(`alerts.channel_${s.channel}`)}: ${t(`alerts.send_${s.status}`)}`;
}

function sendsText(event) {
  return event.sends.map(sendText).join(' · ');
}

export default async function alerts(main, params, query, ctx) {
  const editor = can('editor');
  main.append(pageHeader(t('alerts.title')));
  main.append(h('p', { class: 'hint' }, t('alerts.intro')));
  const listSlot = h('div', { id: 'alert-rules' });
  const formSlot = h('div');
  const eventsSlot = h('div', { id: 'alert-events' });
  main.append(section(t('alerts.rules'), listSlot));
  if (editor) main.append(section(t('alerts.new_rule'), formSlot));
  main.append(eventsSlot);

  let context = { members: [], campaigns: [] };
  try {
    const [members, campaigns] = await Promise.all([get('/organizations/team/members'), get('/dashboard/campaigns', { query: { limit: 100 } })]);
    context = { members: members || [], campaigns: campaigns || [] };
  } catch (e) {
    if (ctx.isCurrent()) fill(listSlot, errorBox(e));
  }
  if (!ctx.isCurrent()) return;

  const showNewForm = () => fill(formSlot, ruleForm(null, context, () => { showNewForm(); load(); }));
  if (editor) showNewForm();

  async function showEvents(rule) {
    let events;
    try {
      events = await get(`/dashboard/alerts/${encodeURIComponent(rule.id)}/events`, { query: { limit: 100 } });
    } catch (e) {
      fill(eventsSlot, errorBox(e));
      return;
    }
    const columns = [
      { key: 'fired_at', label: t('alerts.col_fired'), cell: (e) => dateTime(e.fired_at) },
      {
        key: 'subject',
        label: t('alerts.col_subject'),
        header: true,
        cell: (e) => (e.details?.video_id ? h('a', { href: `/videos/${encodeURIComponent(e.details.video_id)}` }, e.details.title || e.details.url) : `@${e.details?.username || e.subject}`),
      },
      { key: 'threshold', label: t('alerts.col_threshold'), cell: (e) => (/^\d+$/.test(e.threshold) ? num(Number(e.threshold)) : t(`alerts.condition_${e.threshold}`)) },
      { key: 'sends', label: t('alerts.col_sends'), cell: sendsText },
    ];
    fill(eventsSlot, section(t('alerts.events_of', { name: rule.name }), dataTable({ caption: t('alerts.events_of', { name: rule.name }), hideCaption: true, csvName: 'alert-events', columns, rows: events || [], empty: t('alerts.no_events') })));
    eventsSlot.scrollIntoView({ block: 'start' });
  }

  function actions(rule) {
    const events = h('button', { type: 'button', class: 'btn btn-small', onclick: () => showEvents(rule) }, t('alerts.events'));
    if (!editor) return events;
    const edit = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('alerts.edit_one', { name: rule.name }) }, t('alerts.edit'));
    edit.addEventListener('click', () => {
      fill(formSlot, ruleForm(rule, context, () => { showNewForm(); load(); }, showNewForm));
      formSlot.scrollIntoView({ block: 'start' });
    });
    const remove = h('button', { type: 'button', class: 'btn btn-small btn-danger', 'aria-label': t('alerts.delete_one', { name: rule.name }) }, t('alerts.delete'));
    remove.addEventListener('click', () => {
      if (!window.confirm(t('alerts.delete_confirm', { name: rule.name }))) return;
      busy(remove, async () => {
        try {
          await del(`/dashboard/alerts/${encodeURIComponent(rule.id)}`);
          toast(t('alerts.deleted', { name: rule.name }));
          clear(eventsSlot);
          load();
        } catch (e) {
          toast(errorBox(e).textContent, 'error');
        }
      });
    });
    const test = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('alerts.test_one', { name: rule.name }) }, t('alerts.test'));
    test.addEventListener('click', () => {
      busy(test, async () => {
        try {
          const result = await post(`/dashboard/alerts/${encodeURIComponent(rule.id)}/test`);
          const failed = result.sends.some((s) => s.status === 'failed');
          const said = result.sends.map((s) => `${sendText(s)}${s.status === 'failed' && s.error ? ` (${s.error})` : ''}`).join(' · ');
          toast(t('alerts.tested', { name: rule.name, sends: said }), failed ? 'error' : undefined);
        } catch (e) {
          toast(errorBox(e).textContent, 'error');
        }
      });
    });
    return h('span', { class: 'row-actions' }, events, test, edit, remove);
  }

  async function load() {
    let rules;
    try {
      rules = await get('/dashboard/alerts');
    } catch (e) {
      if (ctx.isCurrent()) fill(listSlot, errorBox(e));
      return;
    }
    if (!ctx.isCurrent()) return;
    const columns = [
      { key: 'name', label: t('alerts.col_name'), header: true, cell: (r) => r.name },
      { key: 'kind', label: t('alerts.col_kind'), cell: (r) => [kindLabel(r.kind), h('div', { class: 'hint' }, paramsText(r))] },
      { key: 'scope', label: t('alerts.col_scope'), cell: (r) => r.campaign_name || t('alerts.scope_all') },
      { key: 'channels', label: t('alerts.col_channels'), cell: (r) => channelsText(r, context.members) },
      { key: 'enabled', label: t('alerts.col_enabled'), cell: (r) => (r.enabled ? t('alerts.on') : t('alerts.off')) },
      { key: 'last_fired_at', label: t('alerts.col_last_fired'), cell: (r) => (r.last_fired_at ? `${dateTime(r.last_fired_at)} (${num(r.events)})` : t('alerts.never')) },
      { key: 'actions', label: h('span', { class: 'visually-hidden' }, t('alerts.col_actions')), csv: false, cell: actions },
    ];
    fill(listSlot, dataTable({ caption: t('alerts.rules'), hideCaption: true, csvName: 'alerts', columns, rows: rules || [], empty: t('alerts.empty') }));
  }
  await load();
}
