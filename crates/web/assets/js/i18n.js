// Message catalogs and formatting for the user's language.
// Every visible string comes from assets/i18n/<lang>.json through t(), keyed.
// A message that counts something has a form per plural category of its
// language (`{"one": "{count} day", "other": "{count} days"}`), picked by
// Intl.PluralRules for `count`.

const SUPPORTED = ['en', 'de'];
let messages = {};
let fallback = {};
let current = 'en';

/** The catalog language for a language tag (`de-AT` → `de`), English otherwise. */
export function pick(tag) {
  const base = String(tag || '').toLowerCase().split(/[-_]/)[0];
  return SUPPORTED.includes(base) ? base : 'en';
}

async function fetchCatalog(lang) {
  const res = await fetch(`/assets/i18n/${lang}.json`, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`catalog ${lang}: ${res.status}`);
  return res.json();
}

/** Loads the catalog of `tag` (and English beneath it). */
export async function setLanguage(tag) {
  const lang = pick(tag);
  if (!Object.keys(fallback).length) fallback = await fetchCatalog('en');
  messages = lang === 'en' ? fallback : await fetchCatalog(lang);
  current = lang;
  document.documentElement.lang = lang;
  return lang;
}

export function language() {
  return current;
}

const pluralRules = new Map();
/** The plural category (`one`, `other`, …) of `count` in the current language. */
export function pluralCategory(count) {
  if (!pluralRules.has(current)) pluralRules.set(current, new Intl.PluralRules(current));
  return pluralRules.get(current).select(Number(count));
}

/** The form of a plural message for `count` (its `other` form when it has none for the category). */
function pluralForm(forms, count) {
  if (count === undefined || count === null || Number.isNaN(Number(count))) return forms.other;
  return forms[pluralCategory(count)] ?? forms.other;
}

/**
 * The message `key`, with `{name}` placeholders filled from `vars` (numbers
 * written for the language); a message with plural forms takes the form
 * for `vars.count`.
 */
export function t(key, vars) {
  const message = messages[key] ?? fallback[key] ?? key;
  let text = typeof message === 'object' ? pluralForm(message, vars?.count) : message;
  if (vars) {
    const shown = (value) => (typeof value === 'number' ? numberFormat().format(value) : String(value));
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? shown(vars[name]) : m));
  }
  return text;
}

/** Fills elements that carry `data-i18n` (the static page). */
export function translateStatic(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
}

const numberFormats = new Map();
function numberFormat(options) {
  const key = current + JSON.stringify(options || {});
  if (!numberFormats.has(key)) numberFormats.set(key, new Intl.NumberFormat(current, options));
  return numberFormats.get(key);
}

/** A number for people; '–' when unknown. */
export function num(value, options) {
  if (value === null || value === undefined || value === '' || Number.isNaN(Number(value))) return '–';
  return numberFormat(options).format(Number(value));
}

/** A signed gain (+1,234). */
export function gain(value) {
  if (value === null || value === undefined) return '–';
  return numberFormat({ signDisplay: 'exceptZero' }).format(value);
}

function toDate(value) {
  if (value instanceof Date) return value;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(`${value}T00:00:00Z`);
  // Stats map keys read `2026-10-01 08:00:00.000000+00`.
  if (typeof value === 'string' && / \d{2}:\d{2}/.test(value)) {
    return new Date(value.replace(' ', 'T').replace(/\+00$/, 'Z'));
  }
  return new Date(value);
}

/** A UTC day or instant as a date. */
export function date(value) {
  if (!value) return '–';
  const d = toDate(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return new Intl.DateTimeFormat(current, { dateStyle: 'medium', timeZone: 'UTC' }).format(d);
}

/** Two UTC days as one range (`Sep 28 – Oct 7, 2026`). */
export function dateRange(from, to) {
  const a = toDate(from);
  const b = toDate(to);
  if (Number.isNaN(a.getTime()) || Number.isNaN(b.getTime())) return `${date(from)} – ${date(to)}`;
  const format = new Intl.DateTimeFormat(current, { dateStyle: 'medium', timeZone: 'UTC' });
  return typeof format.formatRange === 'function' ? format.formatRange(a, b) : `${format.format(a)} – ${format.format(b)}`;
}

/** A short day label for charts. */
export function shortDate(value) {
  const d = toDate(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return new Intl.DateTimeFormat(current, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(d);
}

/** An instant's day for chart labels, in the browser's time zone (`27 Nov`). */
export function localDay(value) {
  const d = toDate(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return new Intl.DateTimeFormat(current, { day: 'numeric', month: 'short' }).format(d);
}

/** An instant's time of day for chart labels, in the browser's time zone (`14:05`). */
export function localTime(value) {
  const d = toDate(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return new Intl.DateTimeFormat(current, { hour: 'numeric', minute: '2-digit' }).format(d);
}

/** An instant, in the browser's time zone. */
export function dateTime(value) {
  if (!value) return '–';
  const d = toDate(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return new Intl.DateTimeFormat(current, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

export { toDate };
