// The organization's plan (GET /organizations/plan), and what a plan
// refusal tells the person who can lift it: owners and admins get the exact
// command the operator runs on the server; other members are told to ask
// an owner. No DOM here: dom.js draws the refusal, pages/plan-summary.js
// the plan.
import { get, can, currentOrg } from './api.js';
import { t } from './i18n.js';

/** The current organization's plan, its limits and their use. */
export function loadPlan() {
  return get('/organizations/plan');
}

/** The command that sets the current organization's plan (and overrides). */
export function setPlanCommand(plan, overrides = {}) {
  const parts = ['vidpulse admin set-plan', '--org', currentOrg(), '--plan', plan];
  if (overrides.videoQuota) parts.push('--video-quota', String(overrides.videoQuota));
  if (overrides.creatorCap) parts.push('--creator-cap', String(overrides.creatorCap));
  return parts.join(' ');
}

/** Error codes of a limit the plan sets. */
const LIMIT_CODES = new Set(['SUBSCRIPTION_LIMIT', 'TRACKED_CREATORS_LIMIT']);

/**
 * The command that lifts limit `code` of the organization whose plan
 * report is `report`: the same plan, that limit doubled, the other kept
 * as it is (set-plan without an override would reset it to the plan's).
 */
export function liftLimitCommand(report, code) {
  const videos = report.tracked_videos.limit;
  const creators = report.creators.limit;
  return code === 'TRACKED_CREATORS_LIMIT'
    ? setPlanCommand(report.plan, { videoQuota: videos, creatorCap: Math.max(1, creators * 2) })
    : setPlanCommand(report.plan, { videoQuota: Math.max(1, videos * 2), creatorCap: creators });
}

/**
 * What a plan refusal says, or null for any other error: `text`, and for
 * owners and admins `command`, the command to run (a string, or a promise
 * of one when it depends on the plan's limits).
 */
export function planRefusal(e) {
  if (!e) return null;
  const paid = e.status === 402 || e.code === 'PAID_PLAN_REQUIRED';
  const limit = LIMIT_CODES.has(e.code);
  if (!paid && !limit) return null;
  const manager = Boolean(currentOrg()) && can('admin');
  if (paid) {
    return manager ? { text: t('error.paid_plan_admin'), command: setPlanCommand('pro') } : { text: t('error.paid_plan') };
  }
  // The server's message, as a sentence the advice can follow.
  const message = e.message || t('error.plan_limit');
  const reason = /[.!?]$/.test(message) ? message : `${message}.`;
  if (!manager) return { text: `${reason} ${t('error.plan_limit_member')}` };
  return {
    text: `${reason} ${t('error.plan_limit_admin')}`,
    command: loadPlan().then((report) => liftLimitCommand(report, e.code)),
  };
}
