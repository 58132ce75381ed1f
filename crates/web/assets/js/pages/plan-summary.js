// The organization's plan, each limit and how much of it is in use (GET
// /organizations/plan), shown on Settings and Usage; for owners and admins,
// the command that moves the organization to a larger plan or raises its
// limits.
import { h } from '../dom.js';
import { t, num, date } from '../i18n.js';
import { can } from '../api.js';
import { loadPlan, setPlanCommand } from '../plan.js';

/** A plan's name for people. */
function planName(plan) {
  if (plan === 'business') return t('plan.business');
  if (plan === 'pro') return t('plan.pro');
  return t('plan.free');
}

/** One limit: "3 of 1,000" and a meter, named by its `<dt>`. */
function allowance(id, label, a, extra) {
  const term = h('dt', { id: `${id}-label` }, label);
  if (!a.limit) return [term, h('dd', { id }, t('plan.not_included'))];
  const meter = h('meter', { min: 0, max: a.limit, value: Math.min(a.used, a.limit), high: Math.ceil(a.limit * 0.9), 'aria-labelledby': `${id}-label` });
  return [term, h('dd', { id }, h('span', null, t('plan.used_of', { used: num(a.used), limit: num(a.limit) })), meter, extra || null)];
}

/** What an owner or admin can have the operator run next. */
function nextStep(report) {
  if (report.plan === 'free') return [t('plan.change_admin', { plan: t('plan.pro') }), setPlanCommand('pro')];
  if (report.plan === 'pro') return [t('plan.change_admin', { plan: t('plan.business') }), setPlanCommand('business')];
  const more = { videoQuota: report.tracked_videos.limit * 2, creatorCap: report.creators.limit * 2 };
  return [t('plan.raise_admin'), setPlanCommand('business', more)];
}

/** The plan's facts as a block; `report` is the answer of GET /organizations/plan. */
export function planFacts(report) {
  const trends = report.trend_searches;
  const facts = h(
    'dl',
    { class: 'facts plan-use' },
    h('dt', null, t('plan.plan')),
    h('dd', { id: 'plan-name' }, planName(report.plan)),
    h('dt', null, t('plan.paid_operations')),
    h('dd', null, report.paid_operations ? t('plan.paid_yes') : t('plan.paid_no')),
    allowance('plan-videos', t('plan.tracked_videos'), report.tracked_videos),
    allowance('plan-creators', t('plan.creators'), report.creators),
    allowance('plan-trends', t('plan.trend_searches'), trends, h('span', { class: 'hint' }, t('plan.resets', { date: date(trends.resets_at) }))),
  );
  if (!can('admin')) return h('div', null, facts, h('p', { class: 'hint' }, t('plan.ask_owner')));
  const [text, command] = nextStep(report);
  return h('div', null, facts, h('p', { class: 'hint' }, text), h('code', { class: 'command', id: 'plan-command' }, command));
}

/** Loads the plan and fills `slot` with it. */
export async function showPlan(slot) {
  const report = await loadPlan();
  slot.append(h('p', { class: 'hint' }, t('plan.intro')), planFacts(report));
}
