// Inline SVG charts: a bar chart of daily gains and a line chart of counters
// over time. Each has a <title> and <desc>; pages put a table beside it.
import { num, shortDate, dateTime, t } from './i18n.js';
import { nextId } from './dom.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 720;
const H = 260;
const PAD = { top: 16, right: 16, bottom: 40, left: 64 };

function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** Round tick values from 0 (or min) to max. */
function ticks(min, max, count = 4) {
  if (max === min) max = min + 1;
  const span = max - min;
  const step0 = span / count;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((m) => m >= step0) || step0;
  const start = Math.floor(min / step) * step;
  const out = [];
  for (let v = start; v <= max + step * 0.001; v += step) out.push(Math.round(v * 1e6) / 1e6);
  if (out[out.length - 1] < max) out.push(out[out.length - 1] + step);
  return out;
}

function frame(title, description) {
  const titleId = nextId('chart-t');
  const descId = nextId('chart-d');
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart',
    role: 'img',
    'aria-labelledby': `${titleId} ${descId}`,
    preserveAspectRatio: 'xMidYMid meet',
  });
  svg.append(s('title', { id: titleId }, title), s('desc', { id: descId }, description));
  return svg;
}

function yAxis(svg, scaleY, tickValues) {
  const g = s('g', { class: 'axis', 'aria-hidden': 'true' });
  for (const v of tickValues) {
    const y = scaleY(v);
    g.append(s('line', { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: 'grid' }));
    g.append(s('text', { x: PAD.left - 8, y: y + 4, 'text-anchor': 'end' }, num(v, { notation: 'compact' })));
  }
  svg.append(g);
}

function xLabels(svg, items, xOf, label) {
  const g = s('g', { class: 'axis', 'aria-hidden': 'true' });
  const every = Math.max(1, Math.ceil(items.length / 8));
  items.forEach((item, i) => {
    if (i % every !== 0 && i !== items.length - 1) return;
    g.append(s('text', { x: xOf(item, i), y: H - PAD.bottom + 18, 'text-anchor': 'middle' }, label(item)));
  });
  svg.append(g);
}

/**
 * Bars of one value per day. points: [{date: 'YYYY-MM-DD', value}].
 * `description` says in words what the chart shows (for screen readers).
 */
export function barChart({ title, description, points }) {
  const svg = frame(title, description);
  const values = points.map((p) => p.value || 0);
  const max = Math.max(0, ...values);
  const min = Math.min(0, ...values);
  const tv = ticks(min, max);
  const lo = tv[0];
  const hi = tv[tv.length - 1];
  const plotH = H - PAD.top - PAD.bottom;
  const plotW = W - PAD.left - PAD.right;
  const scaleY = (v) => PAD.top + plotH - ((v - lo) / (hi - lo || 1)) * plotH;
  yAxis(svg, scaleY, tv);
  const band = plotW / Math.max(1, points.length);
  const barW = Math.max(1, Math.min(40, band * 0.7));
  const bars = s('g', { class: 'bars' });
  points.forEach((p, i) => {
    const v = p.value || 0;
    const x = PAD.left + band * i + (band - barW) / 2;
    const y0 = scaleY(0);
    const y1 = scaleY(v);
    const rect = s('rect', { x, y: Math.min(y0, y1), width: barW, height: Math.max(v === 0 ? 0 : 1, Math.abs(y0 - y1)), class: 'bar' });
    rect.append(s('title', null, `${shortDate(p.date)}: ${num(v)}`));
    bars.append(rect);
  });
  svg.append(bars);
  xLabels(svg, points, (_, i) => PAD.left + band * i + band / 2, (p) => shortDate(p.date));
  if (!points.length) svg.append(s('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'chart-empty' }, t('chart.no_data')));
  return svg;
}

/**
 * A line over time. points: [{at: Date, value}] (nulls skipped).
 */
export function lineChart({ title, description, points }) {
  const svg = frame(title, description);
  const known = points.filter((p) => p.value !== null && p.value !== undefined);
  const values = known.map((p) => p.value);
  const tv = ticks(Math.min(0, ...values), Math.max(1, ...values));
  const lo = tv[0];
  const hi = tv[tv.length - 1];
  const plotH = H - PAD.top - PAD.bottom;
  const plotW = W - PAD.left - PAD.right;
  const t0 = known.length ? known[0].at.getTime() : 0;
  const t1 = known.length ? known[known.length - 1].at.getTime() : 1;
  const scaleX = (d) => PAD.left + (t1 === t0 ? plotW / 2 : ((d.getTime() - t0) / (t1 - t0)) * plotW);
  const scaleY = (v) => PAD.top + plotH - ((v - lo) / (hi - lo || 1)) * plotH;
  yAxis(svg, scaleY, tv);
  if (known.length) {
    const d = known.map((p, i) => `${i ? 'L' : 'M'}${scaleX(p.at).toFixed(1)},${scaleY(p.value).toFixed(1)}`).join(' ');
    svg.append(s('path', { d, class: 'line' }));
    const dots = s('g', { class: 'dots' });
    const step = Math.max(1, Math.ceil(known.length / 60));
    known.forEach((p, i) => {
      if (i % step !== 0 && i !== known.length - 1) return;
      const c = s('circle', { cx: scaleX(p.at), cy: scaleY(p.value), r: 3, class: 'dot' });
      c.append(s('title', null, `${dateTime(p.at)}: ${num(p.value)}`));
      dots.append(c);
    });
    svg.append(dots);
    const first = known[0];
    const last = known[known.length - 1];
    const labels = first === last ? [first] : [first, known[Math.floor(known.length / 2)], last];
    xLabels(svg, labels, (p) => scaleX(p.at), (p) => shortDate(p.at));
  } else {
    svg.append(s('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'chart-empty' }, t('chart.no_data')));
  }
  return svg;
}
