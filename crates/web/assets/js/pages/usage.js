// Usage: the organization's plan and what it uses of its limits, and its API
// requests and credits per day (last 30 days).
import { get } from '../api.js';
import { h, clear, fill, field, select, pageHeader, section, errorBox } from '../dom.js';
import { t, num, date } from '../i18n.js';
import { dataTable } from '../table.js';
import { barChart } from '../charts.js';
import { showPlan } from './plan-summary.js';

export default async function usage(main, params, query, ctx) {
  const planSlot = h('div');
  const [report] = await Promise.all([get('/dashboard/usage'), showPlan(planSlot).catch((e) => planSlot.append(errorBox(e)))]);
  if (!ctx.isCurrent()) return;
  const days = [...(report.usage_history || [])].map((d) => ({ ...d, date: String(d.created_at).slice(0, 10) }));
  const ascending = [...days].sort((a, b) => (a.date < b.date ? -1 : 1));
  main.append(
    pageHeader(t('usage.title')),
    h('p', { class: 'subtitle' }, t('usage.intro')),
    h(
      'dl',
      { class: 'stats' },
      h('div', { class: 'stat' }, h('dt', null, t('usage.requests_30')), h('dd', { id: 'usage-requests' }, num(report.summary?.total_requests_30_days))),
      h('div', { class: 'stat' }, h('dt', null, t('usage.credits_30')), h('dd', { id: 'usage-credits' }, num(report.summary?.total_credits_30_days))),
    ),
    section(t('plan.title'), planSlot),
  );
  const metricSel = select(
    [
      ['total_requests', t('usage.requests')],
      ['total_credits_used', t('usage.credits')],
      ['error_requests', t('usage.errors')],
    ],
    'total_requests',
    { id: 'usage-metric' },
  );
  const slot = h('div', { class: 'chart-block' });
  const draw = () => {
    const key = metricSel.value;
    const label = metricSel.selectedOptions[0].textContent;
    const points = ascending.map((d) => ({ date: d.date, value: d[key] }));
    const total = points.reduce((a, p) => a + (p.value || 0), 0);
    fill(slot, 
      barChart({
        title: t('usage.chart_title', { metric: label }),
        description: points.length ? t('chart.daily_summary', { count: points.length, total: num(total), metric: label }) : t('chart.no_data'),
        points,
      }),
    );
  };
  metricSel.addEventListener('change', draw);
  draw();
  main.append(
    section(t('usage.per_day'), h('div', { class: 'chart-controls' }, field(t('chart.metric'), metricSel)), slot),
    section(
      t('usage.table_title'),
      dataTable({
        caption: t('usage.table_title'),
        hideCaption: true,
        csvName: 'usage',
        empty: t('usage.none'),
        columns: [
          { key: 'date', label: t('table.day'), header: true, cell: (d) => date(d.date) },
          { key: 'req', label: t('usage.requests'), numeric: true, csv: 'total_requests', cell: (d) => num(d.total_requests) },
          { key: 'ok', label: t('usage.successful'), numeric: true, csv: 'successful_requests', cell: (d) => num(d.successful_requests) },
          { key: 'err', label: t('usage.errors'), numeric: true, csv: 'error_requests', cell: (d) => num(d.error_requests) },
          { key: 'credits', label: t('usage.credits'), numeric: true, csv: 'total_credits_used', cell: (d) => num(d.total_credits_used) },
          { key: 'ms', label: t('usage.response_time'), numeric: true, csv: 'avg_response_time', cell: (d) => num(d.avg_response_time, { maximumFractionDigits: 1 }) },
          { key: 'keys', label: t('usage.keys'), numeric: true, csv: 'unique_api_keys', cell: (d) => num(d.unique_api_keys) },
        ],
        rows: days,
      }),
    ),
  );
}
