// Settings: the organization (name, logo), the user's language, the plan
// and its limits, API keys (shown once at creation), the user's sessions.
import { get, post, put, patch, del, api, can, session, currentOrg } from '../api.js';
import { h, clear, fill, field, select, errorBox, busy, pageHeader, section, notice, toast } from '../dom.js';
import { t, dateTime, setLanguage, language } from '../i18n.js';
import { dataTable } from '../table.js';
import { render } from '../app.js';
import { showPlan } from './plan-summary.js';
import { loadPlan } from '../plan.js';

const MAX_LOGO = 512 * 1024;

async function organization(slot) {
  if (!currentOrg()) {
    slot.append(notice(t('app.no_org_text'), 'info'));
    return;
  }
  const s = await get('/organizations/settings');
  const logo = s.logo_url ? h('img', { src: s.logo_url, alt: t('settings.logo_alt', { name: s.name }), class: 'logo-preview' }) : h('p', { class: 'hint' }, t('settings.no_logo'));
  const parts = [h('dl', { class: 'facts' }, h('dt', null, t('settings.org_name')), h('dd', { id: 'org-name' }, s.name), h('dt', null, t('settings.currency')), h('dd', { id: 'org-currency-shown' }, s.currency))];
  if (can('admin')) {
    parts.push(renameForm(s), await currencyForm(s));
  }
  parts.push(h('h3', null, t('settings.logo')), logo);
  if (can('admin')) {
    const file = h('input', { type: 'file', id: 'logo-file', accept: 'image/png,image/jpeg,image/webp' });
    const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
    const upload = h('button', { type: 'submit', class: 'btn' }, t('settings.logo_upload'));
    const form = h('form', { class: 'inline-form' }, field(t('settings.logo_file'), file, t('settings.logo_hint')), upload);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      clear(status);
      const chosen = file.files[0];
      if (!chosen) {
        status.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('settings.logo_missing')));
        return;
      }
      if (chosen.size > MAX_LOGO) {
        status.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('settings.logo_too_large')));
        return;
      }
      const body = new FormData();
      body.append('file', chosen);
      await busy(upload, async () => {
        try {
          const data = await api('POST', '/organizations/logo', { form: body });
          toast(t('settings.logo_saved'));
          logo.replaceWith(h('img', { src: `${data.logo_url}?v=${Date.now()}`, alt: t('settings.logo_alt', { name: s.name }), class: 'logo-preview' }));
        } catch (e) {
          status.append(errorBox(e));
        }
      });
    });
    parts.push(status, form);
  }
  slot.append(...parts);
}

/** The form that renames the organization (admins). */
function renameForm(s) {
  const name = h('input', { type: 'text', id: 'org-rename', maxlength: 200, value: s.name, required: true, autocomplete: 'organization' });
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'btn' }, t('settings.rename'));
  const form = h('form', { class: 'inline-form' }, field(t('settings.new_name'), name), save);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    await busy(save, async () => {
      try {
        const data = await put('/organizations/settings', { name: name.value });
        document.getElementById('org-name').textContent = data.name;
        toast(t('settings.renamed'));
      } catch (e) {
        status.append(errorBox(e));
      }
    });
  });
  return h('div', null, status, form);
}

/** Currencies offered first (any ISO 4217 code is taken). */
const CURRENCIES = ['USD', 'EUR', 'GBP', 'CHF', 'JPY', 'CAD', 'AUD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'BRL', 'MXN', 'INR', 'CNY', 'KRW', 'SGD', 'HKD', 'NZD', 'ZAR', 'TRY', 'AED'];

/**
 * The organization's currency (admins, paid plans): what campaign budgets
 * and spend are counted in unless a campaign names its own. On a free plan
 * the form is shown with the plan's wall, as other paid features are.
 */
async function currencyForm(s) {
  const report = await loadPlan().catch(() => null);
  const paid = !report || report.paid_operations;
  const input = h('input', { type: 'text', id: 'org-currency', maxlength: 3, value: s.currency || '', list: 'currency-codes', autocomplete: 'off', disabled: !paid });
  const codes = h('datalist', { id: 'currency-codes' }, CURRENCIES.map((c) => h('option', { value: c })));
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'btn', disabled: !paid }, t('settings.currency_save'));
  const form = h('form', { class: 'inline-form', id: 'currency-form' }, field(t('settings.currency'), input, t('settings.currency_hint')), codes, save);
  if (!paid) status.append(errorBox({ status: 402, code: 'PAID_PLAN_REQUIRED' }));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    input.removeAttribute('aria-invalid');
    await busy(save, async () => {
      try {
        const data = await patch('/organizations/settings', { currency: input.value.trim().toUpperCase() });
        document.getElementById('org-currency-shown').textContent = data.currency;
        input.value = data.currency;
        toast(t('settings.currency_saved', { currency: data.currency }));
      } catch (e) {
        status.append(errorBox(e));
        if (e.field === 'currency') {
          input.setAttribute('aria-invalid', 'true');
          input.focus();
        }
      }
    });
  });
  return h('div', null, status, form);
}

function languageForm() {
  const sel = select(
    [
      ['en', 'English'],
      ['de', 'Deutsch'],
    ],
    language(),
    { id: 'settings-language' },
  );
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'btn' }, t('settings.language_save'));
  const form = h('form', { class: 'inline-form' }, field(t('header.language'), sel), save);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    await busy(save, async () => {
      try {
        await put('/organizations/user/language', { language: sel.value }, { org: false });
        await setLanguage(sel.value);
        render();
      } catch (e) {
        fill(status, errorBox(e));
      }
    });
  });
  return h('div', null, status, form);
}

/** A key's scopes for people: full access, or read only. */
function scopeLabel(scopes) {
  return (scopes || []).includes('write') ? t('keys.scope_full') : h('span', { class: 'badge' }, t('keys.scope_read'));
}

async function apiKeys(slot, isCurrent) {
  const listSlot = h('div');
  const createdSlot = h('div', { 'aria-live': 'polite' });
  const name = h('input', { type: 'text', id: 'key-name', maxlength: 100, autocomplete: 'off' });
  const access = select([['full', t('keys.scope_full')], ['read', t('keys.scope_read')]], 'full', { id: 'key-scopes' });
  const create = h('button', { type: 'submit', class: 'btn btn-primary' }, t('keys.create'));
  const form = h('form', { class: 'inline-form' }, field(t('keys.name'), name), field(t('keys.access'), access, t('keys.access_hint')), create);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(createdSlot);
    await busy(create, async () => {
      try {
        const scopes = access.value === 'read' ? ['read'] : ['read', 'write'];
        const key = await post('/organizations/api-keys', { name: name.value.trim() || null, scopes });
        name.value = '';
        access.value = 'full';
        const secret = h('code', { class: 'secret', id: 'new-api-key' }, key.api_key);
        const copy = h('button', { type: 'button', class: 'btn btn-small' }, t('keys.copy'));
        copy.addEventListener('click', async () => {
          try {
            await navigator.clipboard.writeText(key.api_key);
            toast(t('keys.copied'));
          } catch (_) {
            const range = document.createRange();
            range.selectNodeContents(secret);
            const sel = window.getSelection();
            sel.removeAllRanges();
            sel.addRange(range);
            toast(t('keys.copy_manually'), 'error');
          }
        });
        createdSlot.append(h('div', { class: 'alert alert-warn', role: 'status' }, h('p', null, h('strong', null, t('keys.shown_once'))), secret, h('div', { class: 'actions' }, copy)));
        load();
      } catch (e) {
        createdSlot.append(errorBox(e));
      }
    });
  });
  async function load() {
    let keys;
    try {
      keys = await get('/organizations/api-keys');
    } catch (e) {
      if (isCurrent()) fill(listSlot, errorBox(e));
      return;
    }
    if (!isCurrent()) return;
    fill(listSlot, 
      dataTable({
        caption: t('keys.title'),
        hideCaption: true,
        csvName: 'api-keys',
        columns: [
          { key: 'key_id', label: 'id', hidden: true },
          { key: 'name', label: t('keys.name'), header: true, cell: (k) => k.name || t('keys.unnamed') },
          { key: 'prefix', label: t('keys.prefix'), cell: (k) => h('code', null, `${k.prefix}…`) },
          { key: 'scopes', label: t('keys.access'), csv: ['scopes', (k) => (k.scopes || []).join(',')], cell: (k) => scopeLabel(k.scopes) },
          { key: 'created', label: t('keys.created'), csv: 'created_at', cell: (k) => dateTime(k.created_at) },
          { key: 'used', label: t('keys.last_used'), csv: 'last_used_at', cell: (k) => (k.last_used_at ? dateTime(k.last_used_at) : t('keys.never')) },
          { key: 'state', label: t('keys.state'), csv: 'revoked_at', cell: (k) => (k.revoked_at ? t('keys.revoked_at', { when: dateTime(k.revoked_at) }) : h('span', { class: 'badge badge-active' }, t('keys.active'))) },
          {
            key: 'actions',
            label: h('span', { class: 'visually-hidden' }, t('team.col_actions')),
            csv: false,
            cell: (k) => {
              if (k.revoked_at) return '';
              const b = h('button', { type: 'button', class: 'btn btn-small btn-danger', 'aria-label': t('keys.revoke_one', { name: k.name || k.prefix }) }, t('keys.revoke'));
              b.addEventListener('click', () => {
                if (!window.confirm(t('keys.revoke_confirm', { name: k.name || k.prefix }))) return;
                busy(b, async () => {
                  try {
                    await del(`/organizations/api-keys/${encodeURIComponent(k.key_id)}`);
                    toast(t('keys.revoked'));
                    load();
                  } catch (e) {
                    toast(errorBox(e).textContent, 'error');
                  }
                });
              });
              return b;
            },
          },
        ],
        rows: keys || [],
        empty: t('keys.none'),
      }),
    );
  }
  slot.append(h('p', { class: 'hint' }, t('keys.intro')), form, createdSlot, listSlot);
  await load();
}

async function sessions(slot, isCurrent) {
  async function load() {
    let list;
    try {
      list = await get('/auth/sessions', { org: false });
    } catch (e) {
      if (isCurrent()) fill(slot, errorBox(e));
      return;
    }
    if (!isCurrent()) return;
    fill(slot, 
      dataTable({
        caption: t('sessions.title'),
        hideCaption: true,
        csvName: 'sessions',
        columns: [
          { key: 'agent', label: t('sessions.device'), header: true, csv: 'user_agent', cell: (s) => [s.user_agent || t('sessions.unknown_device'), s.current ? h('span', { class: 'badge badge-active' }, ` ${t('sessions.current')}`) : null] },
          { key: 'current', label: 'current', hidden: true },
          { key: 'created', label: t('sessions.created'), csv: 'created_at', cell: (s) => dateTime(s.created_at) },
          { key: 'seen', label: t('sessions.last_seen'), csv: 'last_seen_at', cell: (s) => dateTime(s.last_seen_at) },
          { key: 'expires', label: t('sessions.expires'), csv: 'expires_at', cell: (s) => dateTime(s.expires_at) },
          {
            key: 'actions',
            label: h('span', { class: 'visually-hidden' }, t('team.col_actions')),
            csv: false,
            cell: (s) => {
              const b = h('button', { type: 'button', class: 'btn btn-small btn-danger' }, s.current ? t('sessions.sign_out_here') : t('sessions.revoke'));
              b.addEventListener('click', () =>
                busy(b, async () => {
                  try {
                    await post('/auth/sessions/revoke', { session_id: s.id }, { org: false });
                    if (s.current) {
                      session.user = null;
                      location.assign('/sign-in');
                      return;
                    }
                    toast(t('sessions.revoked'));
                    load();
                  } catch (e) {
                    toast(errorBox(e).textContent, 'error');
                  }
                }),
              );
              return b;
            },
          },
        ],
        rows: list || [],
      }),
    );
  }
  await load();
}

export default async function settings(main, params, query, ctx) {
  main.append(pageHeader(t('settings.title')));
  const orgSlot = h('div');
  const planSlot = h('div');
  const keySlot = h('div');
  const sessionSlot = h('div');
  main.append(
    h('div', { class: 'grid-2' }, section(t('settings.organization'), orgSlot), section(t('settings.language'), languageForm())),
    currentOrg() ? section(t('plan.title'), planSlot) : null,
    section(t('keys.title'), keySlot),
    section(t('sessions.title'), sessionSlot),
  );
  const tasks = [organization(orgSlot).catch((e) => orgSlot.append(errorBox(e))), sessions(sessionSlot, ctx.isCurrent)];
  if (currentOrg()) tasks.push(showPlan(planSlot).catch((e) => planSlot.append(errorBox(e))));
  if (currentOrg() && can('admin')) tasks.push(apiKeys(keySlot, ctx.isCurrent));
  else keySlot.append(notice(t('keys.admins_only'), 'info'));
  await Promise.all(tasks);
}
