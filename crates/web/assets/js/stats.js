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
