// Names of the API's fixed values, in the user's language.
import { t } from './i18n.js';

export function platformLabel(p) {
  switch (String(p || '').toLowerCase()) {
    case 'tiktok':
      return t('platform.tiktok');
    case 'instagram':
      return t('platform.instagram');
    case 'youtube':
      return t('platform.youtube');
    default:
      return p || '–';
  }
}

export const PLATFORMS = ['tiktok', 'instagram', 'youtube'];

export function trackingStatusLabel(s) {
  switch (s) {
    case 'active':
      return t('tracking.active');
    case 'completed':
      return t('tracking.completed');
    case 'failed':
      return t('tracking.failed');
    default:
      return s || '–';
  }
}

export const TRACKING_STATES = ['active', 'completed', 'failed'];

export function videoStatusLabel(s) {
  switch (s) {
    case 'tracking':
      return t('video_status.tracking');
    case 'paused':
      return t('video_status.paused');
    case 'deleted':
      return t('video_status.deleted');
    default:
      return s || '–';
  }
}

export const VIDEO_STATUSES = ['tracking', 'paused', 'deleted'];

export function workflowLabel(s) {
  switch (s) {
    case 'to do':
      return t('workflow.todo');
    case 'running':
      return t('workflow.running');
    case 'ended':
      return t('workflow.ended');
    default:
      return s || '–';
  }
}

export const WORKFLOW_STATUSES = ['to do', 'running', 'ended'];

export function roleLabel(r) {
  switch (r) {
    case 'viewer':
      return t('role.viewer');
    case 'editor':
      return t('role.editor');
    case 'admin':
      return t('role.admin');
    case 'owner':
      return t('role.owner');
    default:
      return r || '–';
  }
}

export const INVITABLE_ROLES = ['viewer', 'editor', 'admin'];

export function jobStatusLabel(s) {
  switch (s) {
    case 'queued':
      return t('job.queued');
    case 'processing':
      return t('job.processing');
    case 'succeeded':
      return t('job.succeeded');
    case 'error':
      return t('job.error');
    default:
      return s || '–';
  }
}

export function trackOutcomeLabel(s) {
  switch (s) {
    case 'tracked':
      return t('track.tracked');
    case 'already_tracked':
      return t('track.already_tracked');
    case 'error':
      return t('track.error');
    default:
      return s || '–';
  }
}

export function inviteFailureLabel(reason) {
  switch (reason) {
    case 'already_member':
      return t('team.failed_member');
    case 'already_invited':
      return t('team.failed_invited');
    case 'email_failed':
      return t('team.failed_email');
    default:
      return reason;
  }
}

export function metricLabel(m) {
  switch (m) {
    case 'views':
      return t('metric.views');
    case 'likes':
      return t('metric.likes');
    case 'comments':
      return t('metric.comments');
    case 'reposts':
      return t('metric.reposts');
    case 'saves':
      return t('metric.saves');
    default:
      return m;
  }
}

export const METRICS = ['views', 'likes', 'comments', 'reposts', 'saves'];
