// Reading a video record's `stats` map (metric → instant → value).
import { toDate } from './i18n.js';

/** [{at: Date, value}] of one metric, oldest first. */
export function series(stats, metric) {
  const m = (stats && stats[metric]) || {};
  return Object.entries(m)
    .map(([at, value]) => ({ at: toDate(at), value }))
    .filter((p) => !Number.isNaN(p.at.getTime()))
    .sort((a, b) => a.at - b.at);
}

/**
 * What `metric` gained over the last `days` days: the latest reading minus
 * the last reading before the period (or the first reading inside it when
 * tracking began later). null without readings.
 */
export function gainOver(stats, metric, days, now = new Date()) {
  const points = series(stats, metric).filter((p) => p.value !== null && p.value !== undefined);
  if (!points.length) return null;
  const start = now.getTime() - days * 86400000;
  const last = points[points.length - 1];
  let base = null;
  for (const p of points) {
    if (p.at.getTime() <= start) base = p;
    else break;
  }
  if (!base) base = points[0];
  return last.value - base.value;
}
