// Small DOM helpers: element building, messages, form fields.
import { t } from './i18n.js';
import { planRefusal } from './plan.js';

/**
 * h('button', {class: 'x', onclick: fn}, 'text', child…) → element.
 * Attributes: `class`, `on<event>`, `dataset`, booleans, others as attributes.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'value') el.value = v;
      else if (k === 'checked') el.checked = Boolean(v);
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Replaces the children of `el`, leaving out null, undefined and false. */
export function fill(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

let uid = 0;
export function nextId(prefix = 'f') {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** A labelled field: label above the control, an optional hint. */
export function field(labelText, control, hint) {
  if (!control.id) control.id = nextId();
  const parts = [h('label', { for: control.id }, labelText), control];
  if (hint) {
    const hintId = nextId('hint');
    control.setAttribute('aria-describedby', hintId);
    parts.push(h('p', { class: 'hint', id: hintId }, hint));
  }
  return h('div', { class: 'field' }, parts);
}

/** A <select> from [value, label] pairs. */
export function select(options, value, attrs = {}) {
  return h(
    'select',
    attrs,
    options.map(([v, label]) => h('option', { value: v, selected: String(v) === String(value ?? '') }, label)),
  );
}

/** Why a call failed, for people: the server's message, or a known code's text. */
export function errorText(e) {
  if (!e) return t('error.generic');
  if (e.code === 'NETWORK') return t('error.network');
  if (e.status === 429) {
    const after = e.headers && e.headers.get && e.headers.get('Retry-After');
    return after ? t('error.retry_in', { count: Number(after) }) : t('error.too_many');
  }
  const refusal = planRefusal(e);
  if (refusal) return typeof refusal.command === 'string' ? `${refusal.text} ${refusal.command}` : refusal.text;
  if (e.status === 403 && e.code === 'INSUFFICIENT_PERMISSIONS') return t('error.forbidden');
  if (e.status >= 500) return t('error.server');
  return e.message || t('error.generic');
}

/** An alert box for an error (role=alert: read out at once). */
export function errorBox(e) {
  const refusal = planRefusal(e);
  if (refusal) return refusalBox(refusal);
  return h('div', { class: 'alert alert-error', role: 'alert' }, errorText(e));
}

/** A plan refusal: what it means, and the command that lifts it, if any. */
function refusalBox(refusal) {
  const box = h('div', { class: 'alert alert-error plan-refusal', role: 'alert' }, h('p', null, refusal.text));
  if (refusal.command) {
    const line = h('p', null);
    box.append(line);
    Promise.resolve(refusal.command)
      .then((command) => line.append(h('code', { class: 'command' }, command)))
      .catch(() => line.remove());
  }
  return box;
}

export function notice(text, kind = 'info') {
  return h('div', { class: `alert alert-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** A short message in the corner, read by screen readers. */
export function toast(text, kind = 'ok') {
  const box = document.getElementById('toasts');
  if (!box) return;
  const item = h('div', { class: `toast toast-${kind}` }, text);
  box.append(item);
  setTimeout(() => item.remove(), 5000);
}

/** Shows `e` in `slot` (an element), replacing what was there. */
export function showError(slot, e) {
  fill(slot, errorBox(e));
}

/** Disables a button while `work` runs. */
export async function busy(button, work) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/** A page heading with optional actions on its right. */
export function pageHeader(title, ...actions) {
  return h('div', { class: 'page-header' }, h('h1', { id: 'page-title' }, title), h('div', { class: 'actions' }, actions));
}

export function section(title, ...children) {
  const id = nextId('s');
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), children);
}

/** Sets the document title from a page title. */
export function setTitle(title) {
  document.title = `${title} · vidpulse`;
}
