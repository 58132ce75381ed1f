// The one HTTP client of the app: the dashboard API with the session cookie.
// State-changing requests carry X-CSRF-Token; org-scoped ones X-Organization-ID.

const ORG_KEY = 'vidpulse.organization';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const session = {
  user: null,
  csrf: null,
  organizations: [],
  org: null,
};

/** An error answer, read from either envelope form (docs/api.md "Envelopes"). */
export class ApiError extends Error {
  constructor(status, code, message, field, body, headers) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code || null;
    this.field = field || null;
    this.body = body || null;
    this.headers = headers || null;
  }
}

/** Reads `success` first, then `error` as an object (nested) or a string (flat). */
export function errorOf(status, body, headers) {
  if (body && body.success === false) {
    const e = body.error;
    if (e && typeof e === 'object') return new ApiError(status, e.code, e.message, e.field, body, headers);
    if (typeof e === 'string') {
      const field = body.details && body.details.parameter;
      return new ApiError(status, body.code, e, field, body, headers);
    }
  }
  return new ApiError(status, null, null, null, body, headers);
}

export function currentOrg() {
  return session.org;
}

export function setOrg(id) {
  session.org = id;
  try {
    localStorage.setItem(ORG_KEY, id);
  } catch (_) {
    /* private mode: not remembered */
  }
}

export function rememberedOrg() {
  try {
    return localStorage.getItem(ORG_KEY);
  } catch (_) {
    return null;
  }
}

function signInPath() {
  const here = location.pathname + location.search;
  return `/sign-in?next=${encodeURIComponent(here)}`;
}

/**
 * Calls the API. Options: `body` (JSON), `query` (object; empty values left
 * out), `org` (send X-Organization-ID; default true), `form` (FormData),
 * `redirect401` (default true), `raw` (return the whole envelope).
 * Returns `data` of the envelope, or throws ApiError.
 */
export async function api(method, path, options = {}) {
  const { body, query, form, org = true, redirect401 = true, raw = false } = options;
  let url = path;
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (Array.isArray(v)) v.forEach((item) => params.append(k, String(item)));
      else if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
    }
    const qs = params.toString();
    if (qs) url += `?${qs}`;
  }
  const headers = { Accept: 'application/json' };
  if (STATE_CHANGING.has(method) && session.csrf) headers['X-CSRF-Token'] = session.csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (org && session.org) headers['X-Organization-ID'] = session.org;
  let res;
  try {
    res = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body: form || (body !== undefined ? JSON.stringify(body) : undefined),
    });
  } catch (e) {
    throw new ApiError(0, 'NETWORK', null);
  }
  let json = null;
  const text = await res.text();
  if (text) {
    try {
      json = JSON.parse(text);
    } catch (_) {
      json = null;
    }
  }
  if (res.status === 401 && redirect401) {
    session.user = null;
    session.csrf = null;
    location.assign(signInPath());
    throw errorOf(res.status, json, res.headers);
  }
  if (!res.ok || (json && json.success === false)) throw errorOf(res.status, json, res.headers);
  if (raw) return json;
  return json && 'data' in json ? json.data : json;
}

export const get = (path, options) => api('GET', path, options);
export const post = (path, body, options = {}) => api('POST', path, { ...options, body });
export const put = (path, body, options = {}) => api('PUT', path, { ...options, body });
export const patch = (path, body, options = {}) => api('PATCH', path, { ...options, body });
export const del = (path, options) => api('DELETE', path, options);

/** Keeps the answer of sign-in, set-password or GET /auth/session. */
export function signedIn(data) {
  session.user = data.user;
  session.csrf = data.csrf_token;
}

/** The session on app start, or null when nobody is signed in. */
export async function loadSession() {
  try {
    const data = await get('/auth/session', { org: false, redirect401: false });
    signedIn(data);
    return data;
  } catch (e) {
    if (e.status === 401 || e.status === 404) return null;
    throw e;
  }
}

/** The organizations of the user; picks the remembered one or the first. */
export async function loadOrganizations() {
  const list = await get('/organizations/list', { org: false });
  session.organizations = list || [];
  const remembered = rememberedOrg();
  const found = session.organizations.find((o) => o.id === remembered);
  const chosen = found ? found.id : session.organizations[0]?.id || null;
  if (chosen) setOrg(chosen);
  else session.org = null;
  return session.organizations;
}

export function currentRole() {
  return session.organizations.find((o) => o.id === session.org)?.role || null;
}

const RANK = { viewer: 0, editor: 1, admin: 2, owner: 3 };
/** Whether the user's role in the current organization reaches `role`. */
export function can(role) {
  const mine = currentRole();
  return mine !== null && RANK[mine] >= RANK[role];
}
