// The app: session on start, the shell (header, organization switcher,
// navigation, user menu) and the client-side router (History API).
import { session, loadSession, loadOrganizations, setOrg, get, put, post, can } from './api.js';
import { setLanguage, t, translateStatic, pick, language } from './i18n.js';
import { h, clear, fill, field, busy, errorBox, toast, setTitle } from './dom.js';

const ROUTES = [
  { path: /^\/sign-in$/, page: 'signin', public: true },
  { path: /^\/forgot-password$/, page: 'forgot', public: true },
  { path: /^\/set-password$/, page: 'setpassword', public: true },
  { path: /^\/invitations\/([^/]+)$/, page: 'invitation', public: true, params: ['id'] },
  { path: /^\/share\/([^/]+)$/, page: 'shared', public: true, params: ['token'] },
  { path: /^\/videos$/, page: 'videos', nav: 'videos' },
  { path: /^\/videos\/([^/]+)$/, page: 'video', params: ['id'], nav: 'videos' },
  { path: /^\/campaigns$/, page: 'campaigns', nav: 'campaigns' },
  { path: /^\/campaigns\/([^/]+)$/, page: 'campaigns', params: ['id'], nav: 'campaigns' },
  { path: /^\/creators$/, page: 'creators', nav: 'creators' },
  { path: /^\/alerts$/, page: 'alerts', nav: 'alerts' },
  { path: /^\/team$/, page: 'team', nav: 'team' },
  { path: /^\/settings$/, page: 'settings', nav: 'settings' },
  { path: /^\/usage$/, page: 'usage', nav: 'usage' },
  { path: /^\/recaps$/, page: 'recaps', nav: 'recaps' },
  { path: /^\/webhooks$/, page: 'webhooks', nav: 'webhooks' },
  { path: /^\/webhooks\/([^/]+)$/, page: 'webhooks', params: ['id'], nav: 'webhooks' },
];

/** The navigation: [key, path, label]. */
const nav = () => [
  ['videos', '/videos', t('nav.videos')],
  ['campaigns', '/campaigns', t('nav.campaigns')],
  ['creators', '/creators', t('nav.creators')],
  ['alerts', '/alerts', t('nav.alerts')],
  ['team', '/team', t('nav.team')],
  ['settings', '/settings', t('nav.settings')],
  ['usage', '/usage', t('nav.usage')],
  ['recaps', '/recaps', t('nav.recaps')],
  ...(can('admin') ? [['webhooks', '/webhooks', t('nav.webhooks')]] : []),
];

const PAGES = {
  signin: () => import('./pages/signin.js'),
  forgot: () => import('./pages/forgot.js'),
  setpassword: () => import('./pages/setpassword.js'),
  invitation: () => import('./pages/invitation.js'),
  shared: () => import('./pages/shared.js'),
  videos: () => import('./pages/videos.js'),
  video: () => import('./pages/video.js'),
  campaigns: () => import('./pages/campaigns.js'),
  creators: () => import('./pages/creators.js'),
  alerts: () => import('./pages/alerts.js'),
  team: () => import('./pages/team.js'),
  settings: () => import('./pages/settings.js'),
  usage: () => import('./pages/usage.js'),
  recaps: () => import('./pages/recaps.js'),
  webhooks: () => import('./pages/webhooks.js'),
};

const main = document.getElementById('main');
const header = document.getElementById('app-header');
let renderSeq = 0;

function match(pathname) {
  for (const r of ROUTES) {
    const m = pathname.match(r.path);
    if (m) {
      const params = {};
      (r.params || []).forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]);
      });
      return { route: r, params };
    }
  }
  return null;
}

/**
 * `next` (a sign-in's `?next=`, say) as the path to go to: honoured only
 * when the browser's own URL parsing puts it on this origin and on a page of
 * the app; anything else (`//host`, `/\host`, `/%09/host`, another scheme)
 * gives `fallback`.
 */
export function safeNext(next, fallback = '/videos') {
  if (typeof next !== 'string' || !next) return fallback;
  let url;
  try {
    url = new URL(next, location.origin);
  } catch (_) {
    return fallback;
  }
  if (url.origin !== location.origin || !match(url.pathname)) return fallback;
  return url.pathname + url.search + url.hash;
}

/** Goes to `path` in the app (pushState), or loads paths outside it from the server. */
export function navigate(path, { replace = false } = {}) {
  const url = new URL(path, location.origin);
  if (url.origin !== location.origin) {
    navigate('/videos', { replace });
    return;
  }
  if (!match(url.pathname) && url.pathname !== '/') {
    location.assign(url.href);
    return;
  }
  if (replace) history.replaceState(null, '', url.pathname + url.search);
  else history.pushState(null, '', url.pathname + url.search);
  render();
}

/** After sign-in (or password set): load the user's world and go to `next`. */
export async function afterSignIn(data, next) {
  session.user = data.user;
  session.csrf = data.csrf_token;
  await startSignedIn();
  navigate(safeNext(next), { replace: true });
}

async function startSignedIn() {
  // The language, the catalog and the organizations at once: each is a
  // round trip the first page would otherwise wait for in turn.
  const language = get('/organizations/user/language', { org: false })
    .then((data) => data.language)
    .catch(() => null);
  const orgs = loadOrganizations();
  const lang = (await language) || session.user?.language;
  await Promise.all([setLanguage(lang || navigator.language), orgs]);
}

function renderHeader(active) {
  clear(header);
  if (!session.user) {
    header.hidden = true;
    return;
  }
  header.hidden = false;
  const navId = 'primary-nav';
  const toggle = h(
    'button',
    { type: 'button', class: 'btn nav-toggle', 'aria-expanded': 'false', 'aria-controls': navId },
    h('span', { 'aria-hidden': 'true' }, '☰'),
    t('nav.menu'),
  );
  const navEl = h(
    'nav',
    { id: navId, class: 'nav', 'aria-label': t('nav.label') },
    h(
      'ul',
      null,
      nav().map(([key, href, label]) =>
        h('li', null, h('a', { href, 'aria-current': key === active ? 'page' : null }, label)),
      ),
    ),
  );
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    navEl.classList.toggle('open', open);
  });

  let orgControl;
  if (session.organizations.length) {
    const sel = h(
      'select',
      { id: 'org-switcher', class: 'org-select' },
      session.organizations.map((o) => h('option', { value: o.id, selected: o.id === session.org }, o.name)),
    );
    sel.addEventListener('change', () => {
      setOrg(sel.value);
      render();
    });
    orgControl = h('div', { class: 'org' }, h('label', { for: 'org-switcher', class: 'visually-hidden' }, t('header.organization')), sel);
  }

  const langSel = h(
    'select',
    { id: 'user-language' },
    [
      ['en', 'English'],
      ['de', 'Deutsch'],
    ].map(([v, label]) => h('option', { value: v, selected: v === language(), lang: v }, label)),
  );
  langSel.addEventListener('change', async () => {
    try {
      await put('/organizations/user/language', { language: langSel.value }, { org: false });
      await setLanguage(langSel.value);
      render();
    } catch (e) {
      toast(errorBox(e).textContent, 'error');
    }
  });
  const signOut = h('button', { type: 'button', class: 'btn btn-small', id: 'sign-out' }, t('header.sign_out'));
  signOut.addEventListener('click', doSignOut);
  const menu = h(
    'details',
    { class: 'user-menu' },
    h(
      'summary',
      null,
      h('span', { class: 'avatar', 'aria-hidden': 'true' }, (session.user.email || '?')[0].toUpperCase()),
      h('span', { class: 'user-email' }, session.user.email),
      h('span', { class: 'visually-hidden' }, ` ${t('header.user_menu')}`),
    ),
    h(
      'div',
      { class: 'menu-panel' },
      h('p', { class: 'menu-email' }, session.user.email),
      h('div', { class: 'field' }, h('label', { for: 'user-language' }, t('header.language')), langSel),
      signOut,
    ),
  );
  header.append(
    h(
      'div',
      { class: 'header-bar' },
      h('a', { href: '/videos', class: 'brand' }, h('img', { src: '/assets/favicon.svg', alt: '', width: 24, height: 24 }), 'vidpulse'),
      orgControl,
      toggle,
      navEl,
      menu,
    ),
  );
}

async function doSignOut() {
  try {
    await post('/auth/sign-out', {}, { org: false, redirect401: false });
  } catch (_) {
    /* signed out either way */
  }
  session.user = null;
  session.csrf = null;
  location.assign('/sign-in');
}

/** Renders the page of the current address. */
export async function render() {
  const seq = ++renderSeq;
  const { pathname, search } = location;
  window.dispatchEvent(new Event('vidpulse:rendered'));
  if (pathname === '/') {
    history.replaceState(null, '', session.user ? '/videos' : '/sign-in');
    return render();
  }
  const found = match(pathname);
  if (!found) {
    renderNotFound();
    return;
  }
  const { route, params } = found;
  if (!route.public && !session.user) {
    location.assign(`/sign-in?next=${encodeURIComponent(pathname + search)}`);
    return;
  }
  renderHeader(route.nav);
  fill(main, h('p', { class: 'loading' }, t('app.loading')));
  try {
    const mod = await PAGES[route.page]();
    if (seq !== renderSeq) return;
    clear(main);
    if (route.public || session.org || route.page === 'settings') {
      await mod.default(main, params, new URLSearchParams(search), { isCurrent: () => seq === renderSeq });
    } else {
      main.append(h('h1', null, t('app.no_org_title')), h('p', null, t('app.no_org_text')), registerForm(pathname + search));
    }
    const title = main.querySelector('h1');
    if (seq === renderSeq && title) setTitle(title.textContent);
  } catch (e) {
    if (seq !== renderSeq) return;
    fill(main, h('h1', null, t('error.page_title')), errorBox(e));
  }
}

/** The page of an address the app does not have (the server answered it 404). */
function renderNotFound() {
  renderHeader(null);
  const home = session.user ? ['/videos', t('notfound.to_videos')] : ['/sign-in', t('notfound.to_sign_in')];
  fill(
    main,
    h('h1', null, t('notfound.title')),
    h('p', null, t('notfound.text')),
    h('p', null, h('a', { href: home[0], class: 'btn btn-primary' }, home[1])),
  );
  setTitle(t('notfound.title'));
}

/** A form that registers a first organization; the caller becomes its admin. */
function registerForm(back) {
  const name = h('input', { type: 'text', id: 'new-org-name', maxlength: 200, required: true, autocomplete: 'organization' });
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const create = h('button', { type: 'submit', class: 'btn btn-primary' }, t('app.create_org'));
  const form = h('form', { class: 'inline-form' }, field(t('app.new_org_name'), name), create);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    await busy(create, async () => {
      try {
        const made = await post('/organizations/register', { name: name.value }, { org: false });
        setOrg(made.organization_id);
        await loadOrganizations();
        navigate(back, { replace: true });
      } catch (e) {
        status.append(errorBox(e));
      }
    });
  });
  return h('section', null, h('h2', null, t('app.create_org_title')), status, form);
}

function onLinkClick(event) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const a = event.target.closest('a');
  if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
  const href = a.getAttribute('href') || '';
  if (href.startsWith('#')) {
    // In-page jumps (the skip link) move focus without touching history.
    const target = document.getElementById(href.slice(1));
    if (target) {
      event.preventDefault();
      target.focus();
    }
    return;
  }
  if (!match(a.pathname)) return;
  event.preventDefault();
  const menu = document.querySelector('.nav.open');
  if (menu) {
    menu.classList.remove('open');
    document.querySelector('.nav-toggle')?.setAttribute('aria-expanded', 'false');
  }
  navigate(a.pathname + a.search);
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

async function start() {
  // Fetch the page's code while the session is asked for.
  const found = match(location.pathname);
  if (found) PAGES[found.route.page]().catch(() => {});
  try {
    // The server marks the page of a browser without a session cookie: it
    // is signed out, and asking for its session would only be refused.
    const signedOut = document.querySelector('meta[name="vidpulse-session"]')?.content === 'none';
    const data = signedOut ? null : await loadSession();
    if (data) await startSignedIn();
    else await setLanguage(navigator.language);
  } catch (e) {
    await setLanguage(pick(navigator.language));
    translateStatic();
    fill(main, h('h1', null, t('error.page_title')), errorBox(e));
    return;
  }
  translateStatic();
  document.addEventListener('click', onLinkClick);
  // Back and forward re-render; a jump to an anchor (the skip link) does not.
  let shown = location.pathname + location.search;
  window.addEventListener('popstate', () => {
    const now = location.pathname + location.search;
    if (now === shown) return;
    shown = now;
    render();
  });
  window.addEventListener('vidpulse:rendered', () => {
    shown = location.pathname + location.search;
  });
  await render();
}

start();
