// Inline SVG charts: bars (a value per day, or per reading) and a line of
// counters over time. Each has a <title> and <desc>; pages put a table
// beside it. A chart is drawn at the width it is shown at (one unit of the
// drawing is one pixel), so its labels keep their size on a phone; it is
// drawn again when that width changes.
import { num, shortDate, dateTime, localDay, localTime, t } from './i18n.js';
import { nextId } from './dom.js';

const NS = 'http://www.w3.org/2000/svg';
/** The width drawn before the chart is laid out (then its real width). */
const FIRST_W = 720;
const H = 260;
const PAD = { top: 16, right: 16, bottom: 46, left: 60 };
/** Room one x-axis label needs, in pixels. */
const LABEL_ROOM = 76;
/** Data spanning at most this many days is shown reading by reading. */
export const FEW_DAYS = 3;
const HOUR = 3600000;
const DAY = 24 * HOUR;

function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/**
 * Round tick values covering min..max (whole numbers: counters are). The
 * axis starts where the data does: a cumulative line is not pressed flat
 * against a zero far below it.
 */
export function ticks(min, max, count = 4) {
  if (max === min) {
    const pad = Math.max(1, Math.abs(max) * 0.05);
    min = min >= 0 ? Math.max(0, min - pad) : min - pad;
    max += pad;
  }
  const span = max - min;
  const step0 = span / count;
  const mag = 10 ** Math.floor(Math.log10(step0));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((m) => m >= step0) || step0;
  step = Math.max(1, step);
  const start = Math.floor(min / step) * step;
  const out = [];
  for (let v = start; v <= max + step * 0.001; v += step) out.push(Math.round(v * 1e6) / 1e6);
  if (out[out.length - 1] < max) out.push(out[out.length - 1] + step);
  return out;
}

/** Whether instants `first`..`last` (Dates or ms) lie within FEW_DAYS days. */
export function spansFewDays(first, last) {
  return Number(last) - Number(first) <= FEW_DAYS * DAY;
}

const STEPS = [15 * 60000, 30 * 60000, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, 91 * DAY, 182 * DAY, 365 * DAY];

/**
 * Labelled instants for a time axis from `t0` to `t1` (ms), at most `max`:
 * round hours (the day under the first of each day) within a few days,
 * days beyond. No two labels read the same.
 */
export function timeTicks(t0, t1, max) {
  const span = t1 - t0;
  const off = -new Date(t0).getTimezoneOffset() * 60000;
  let at = [];
  let daily = false;
  if (span > 0) {
    const step = STEPS.find((st) => span / st <= Math.max(1, max - 1)) || STEPS[STEPS.length - 1];
    for (let v = Math.ceil((t0 + off) / step) * step - off; v <= t1; v += step) at.push(v);
    if (!at.length) at = [t0, t1];
    daily = step >= DAY;
  } else {
    at = [t0];
  }
  const out = [];
  let lastDay = null;
  let lastText = null;
  for (const v of at) {
    const day = localDay(new Date(v));
    const time = localTime(new Date(v));
    const lines = daily ? [day] : day === lastDay ? [time] : [time, day];
    const text = lines.join(' ');
    if (text === lastText || (daily && day === lastDay)) continue;
    out.push({ at: v, lines });
    lastDay = day;
    lastText = text;
  }
  return out;
}

function frame(title, description, w) {
  const titleId = nextId('chart-t');
  const descId = nextId('chart-d');
  const svg = s('svg', {
    viewBox: `0 0 ${w} ${H}`,
    class: 'chart',
    role: 'img',
    'aria-labelledby': `${titleId} ${descId}`,
    preserveAspectRatio: 'xMidYMid meet',
  });
  svg.append(s('title', { id: titleId }, title), s('desc', { id: descId }, description));
  return svg;
}

/**
 * The y labels of `values`: short (`51K`, `2.5K`), with the digits each
 * needs to read exactly (ticks are round numbers).
 */
export function yLabels(values) {
  const decimals = (v) => {
    const k = Math.abs(v) >= 1000 ? Math.floor(Math.log10(Math.abs(v)) / 3) : 0;
    const q = Math.round((v / 1000 ** k) * 1000) / 1000;
    const text = String(q);
    return text.includes('.') ? text.split('.')[1].length : 0;
  };
  const digits = Math.min(3, Math.max(0, ...values.map(decimals)));
  return values.map((v) => num(v, { notation: 'compact', maximumFractionDigits: digits }));
}

function yAxis(svg, w, scaleY, tickValues) {
  const g = s('g', { class: 'axis', 'aria-hidden': 'true' });
  const labels = yLabels(tickValues);
  tickValues.forEach((v, i) => {
    const y = scaleY(v);
    g.append(s('line', { x1: PAD.left, x2: w - PAD.right, y1: y, y2: y, class: 'grid' }));
    g.append(s('text', { x: PAD.left - 8, y: y + 4, 'text-anchor': 'end' }, labels[i]));
  });
  svg.append(g);
}

/** X-axis labels: [{x, lines: [text, …]}], each line under the one before. */
function xLabels(svg, w, labels) {
  const g = s('g', { class: 'axis x-axis', 'aria-hidden': 'true' });
  for (const { x, lines } of labels) {
    const anchor = x < PAD.left + 24 ? 'start' : x > w - PAD.right - 24 ? 'end' : 'middle';
    const text = s('text', { x, y: H - PAD.bottom + 18, 'text-anchor': anchor });
    lines.forEach((line, i) => text.append(s('tspan', { x, dy: i ? 15 : 0 }, line)));
    g.append(text);
  }
  svg.append(g);
}

/**
 * A chart drawn by `draw(width)` at the width its box is shown at, drawn
 * again when that changes.
 */
function chartBox(draw) {
  const box = document.createElement('div');
  box.className = 'chart-box';
  let drawn = FIRST_W;
  box.append(draw(drawn));
  if (typeof ResizeObserver === 'function') {
    const observer = new ResizeObserver(() => {
      const w = Math.round(box.clientWidth);
      if (w > 0 && w !== drawn) {
        drawn = w;
        box.replaceChildren(draw(Math.max(240, w)));
      }
    });
    observer.observe(box);
  }
  return box;
}

/** How many x labels fit a chart `w` wide. */
function labelRoom(w) {
  return Math.max(2, Math.floor((w - PAD.left - PAD.right) / LABEL_ROOM));
}

/**
 * Bars. points: [{date: 'YYYY-MM-DD', value}] (a bar a UTC day), or
 * [{at: Date, value}] (a bar a reading: what it gained since the one
 * before, labelled with its time). `description` says in words what the
 * chart shows (for screen readers).
 */
export function barChart({ title, description, points }) {
  return chartBox((w) => {
    const svg = frame(title, description, w);
    const values = points.map((p) => p.value || 0);
    const tv = ticks(Math.min(0, ...values), Math.max(0, ...values));
    const lo = tv[0];
    const hi = tv[tv.length - 1];
    const plotH = H - PAD.top - PAD.bottom;
    const plotW = w - PAD.left - PAD.right;
    const scaleY = (v) => PAD.top + plotH - ((v - lo) / (hi - lo || 1)) * plotH;
    yAxis(svg, w, scaleY, tv);
    const band = plotW / Math.max(1, points.length);
    const barW = Math.max(1, Math.min(40, band * 0.7));
    const bars = s('g', { class: 'bars' });
    const name = (p) => (p.at ? dateTime(p.at) : shortDate(p.date));
    points.forEach((p, i) => {
      const v = p.value || 0;
      const x = PAD.left + band * i + (band - barW) / 2;
      const y0 = scaleY(0);
      const y1 = scaleY(v);
      const rect = s('rect', { x, y: Math.min(y0, y1), width: barW, height: Math.max(v === 0 ? 0 : 1, Math.abs(y0 - y1)), class: 'bar' });
      rect.append(s('title', null, `${name(p)}: ${num(v)}`));
      bars.append(rect);
    });
    svg.append(bars);
    const every = Math.max(1, Math.ceil(points.length / labelRoom(w)));
    const labels = [];
    let lastDay = null;
    points.forEach((p, i) => {
      if (i % every !== 0) return;
      const x = PAD.left + band * i + band / 2;
      if (!p.at) {
        labels.push({ x, lines: [shortDate(p.date)] });
        return;
      }
      const day = localDay(p.at);
      labels.push({ x, lines: day === lastDay ? [localTime(p.at)] : [localTime(p.at), day] });
      lastDay = day;
    });
    xLabels(svg, w, labels);
    if (!points.length) svg.append(s('text', { x: w / 2, y: H / 2, 'text-anchor': 'middle', class: 'chart-empty' }, t('chart.no_data')));
    return svg;
  });
}

/**
 * A line over time. points: [{at: Date, value}] (nulls skipped), each
 * reading a dot at its instant. The y axis spans the values (a counter's
 * line is not pressed flat against a zero far below it).
 */
export function lineChart({ title, description, points }) {
  const known = points.filter((p) => p.value !== null && p.value !== undefined);
  return chartBox((w) => {
    const svg = frame(title, description, w);
    const values = known.map((p) => p.value);
    const tv = values.length ? ticks(Math.min(...values), Math.max(...values)) : ticks(0, 1);
    const lo = tv[0];
    const hi = tv[tv.length - 1];
    const plotH = H - PAD.top - PAD.bottom;
    const plotW = w - PAD.left - PAD.right;
    const inset = Math.min(24, plotW / 10);
    const t0 = known.length ? known[0].at.getTime() : 0;
    const t1 = known.length ? known[known.length - 1].at.getTime() : 1;
    const scaleX = (ms) => PAD.left + inset + (t1 === t0 ? (plotW - 2 * inset) / 2 : ((ms - t0) / (t1 - t0)) * (plotW - 2 * inset));
    const scaleY = (v) => PAD.top + plotH - ((v - lo) / (hi - lo || 1)) * plotH;
    yAxis(svg, w, scaleY, tv);
    if (!known.length) {
      svg.append(s('text', { x: w / 2, y: H / 2, 'text-anchor': 'middle', class: 'chart-empty' }, t('chart.no_data')));
      return svg;
    }
    const d = known.map((p, i) => `${i ? 'L' : 'M'}${scaleX(p.at.getTime()).toFixed(1)},${scaleY(p.value).toFixed(1)}`).join(' ');
    svg.append(s('path', { d, class: 'line' }));
    const dots = s('g', { class: 'dots' });
    const step = Math.max(1, Math.ceil(known.length / 60));
    known.forEach((p, i) => {
      if (i % step !== 0 && i !== known.length - 1) return;
      const c = s('circle', { cx: scaleX(p.at.getTime()), cy: scaleY(p.value), r: 3.5, class: 'dot' });
      c.append(s('title', null, `${dateTime(p.at)}: ${num(p.value)}`));
      dots.append(c);
    });
    svg.append(dots);
    xLabels(
      svg,
      w,
      timeTicks(t0, t1, labelRoom(w)).map((l) => ({ x: scaleX(l.at), lines: l.lines })),
    );
    return svg;
  });
}
