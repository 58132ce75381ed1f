#!/usr/bin/env node
// Browser tests of the vidpulse web app.
//
//   node e2e/run.mjs <path of a built vidpulse binary> <database URL>
//
// The database URL is `sqlite://FILE` (or a bare file path) or a PostgreSQL
// URL of an empty database. The runner starts `vidpulse serve` on a free
// loopback port with the simulated platforms and a temporary data folder,
// creates the first account, then drives Debian's Chromium through the
// journeys of issue 21, running axe-core on every page. Screenshots go to
// $CARGO_TARGET_DIR/e2e-screenshots/ (target/e2e-screenshots/ without it).
// Exits non-zero when any journey fails.

import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { createHmac } from 'node:crypto';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const AXE_SOURCE = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');

const [binaryArg, dbArg] = process.argv.slice(2);
if (!binaryArg || !dbArg) {
  console.error('usage: node e2e/run.mjs <vidpulse binary> <database URL>');
  process.exit(2);
}
const binary = path.resolve(binaryArg);
const databaseUrl = /^[a-z]+:\/\//.test(dbArg) ? dbArg : `sqlite://${path.resolve(dbArg)}`;
const backend = databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite';
const targetDir = process.env.CARGO_TARGET_DIR || path.resolve(here, '..', 'target');
const shotDir = path.join(targetDir, 'e2e-screenshots');
const PASSWORD = 'correct horse battery staple';
const OWNER = 'owner@example.test';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const LINKS = [
  'https://www.tiktok.com/@mira.cooks/video/7301234567890123456',
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  'https://www.instagram.com/reel/CWqAgUZgCku/',
  'https://example.com/not-a-video',
];

function log(...args) {
  console.log('e2e:', ...args);
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, check, timeoutMs = 30000, everyMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

// ---------------------------------------------------------------- server

const work = await mkdtemp(path.join(tmpdir(), 'vidpulse-e2e-'));
const dataDir = path.join(work, 'data');
const outbox = path.join(dataDir, 'outbox');
await mkdir(dataDir, { recursive: true });
await mkdir(shotDir, { recursive: true });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  VIDPULSE_LISTEN: `127.0.0.1:${port}`,
  VIDPULSE_UPSTREAM: 'simulated',
  VIDPULSE_FILES_DIR: path.join(dataDir, 'files'),
  VIDPULSE_OUTBOX_DIR: outbox,
  VIDPULSE_PUBLIC_URL: base,
  VIDPULSE_DASHBOARD_URL: base,
  VIDPULSE_WEBHOOK_ALLOW_PRIVATE: 'true',
  VIDPULSE_LOG_FORMAT: 'text',
  RUST_LOG: process.env.RUST_LOG || 'warn',
};
delete env.VIDPULSE_REDIS_URL;
delete env.VIDPULSE_SMTP_URL;

let serverLog = '';
const server = spawn(binary, ['serve'], { env, cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
server.stdout.on('data', (d) => (serverLog += d));
server.stderr.on('data', (d) => (serverLog += d));
let serverExited = false;
server.on('exit', () => (serverExited = true));

async function stopServer() {
  if (!serverExited) {
    server.kill('SIGTERM');
    await Promise.race([new Promise((r) => server.on('exit', r)), sleep(10000)]);
    if (!serverExited) server.kill('SIGKILL');
  }
}

async function admin(...args) {
  const { stdout } = await run(binary, ['admin', ...args], { env, cwd: work });
  return stdout;
}

// ---------------------------------------------------------------- results

const results = [];
const problems = [];
let page;
let context;
let currentJourney = '';

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

async function journey(name, fn) {
  currentJourney = name;
  const started = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    log(`ok   ${name} (${Date.now() - started} ms)`);
    return true;
  } catch (e) {
    results.push({ name, ok: false, error: e });
    log(`FAIL ${name}: ${e.message}`);
    try {
      await page.screenshot({ path: path.join(shotDir, `${backend}-FAILED-${name.replace(/\W+/g, '-')}.png`), fullPage: true });
    } catch (_) {
      /* nothing to show */
    }
    return false;
  }
}

/** axe-core on the page as it stands: serious or critical violations fail. */
async function checkA11y(label) {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of violations.filter((x) => !bad.includes(x))) log(`  axe (${v.impact}) on ${label}: ${v.id} — ${v.help}`);
  if (bad.length) {
    throw new Error(`axe on ${label}: ${bad.map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(', ')}`).join('; ')}`);
  }
}

async function shot(name, { full = true } = {}) {
  const size = page.viewportSize();
  const file = path.join(shotDir, `${backend}-${name}-${size.width}.png`);
  await page.screenshot({ path: file, fullPage: full });
  return file;
}

/** Waits for the app to settle: no "Loading…" paragraph left. */
async function settled() {
  await page.waitForFunction(() => !document.querySelector('main .loading'), null, { timeout: 30000 });
}

async function visit(url) {
  await page.goto(`${base}${url}`);
  await settled();
}

async function heading() {
  return (await page.locator('h1').first().textContent()).trim();
}

async function apiFetch(method, url, body) {
  return page.evaluate(
    async ([m, u, b]) => {
      const headers = { Accept: 'application/json' };
      const org = localStorage.getItem('vidpulse.organization');
      if (org) headers['X-Organization-ID'] = org;
      const s = await (await fetch('/auth/session', { credentials: 'same-origin' })).json();
      if (m !== 'GET') headers['X-CSRF-Token'] = s.data.csrf_token;
      if (b) headers['Content-Type'] = 'application/json';
      const r = await fetch(u, { method: m, headers, body: b ? JSON.stringify(b) : undefined, credentials: 'same-origin' });
      return { status: r.status, body: await r.json().catch(() => null) };
    },
    [method, url, body],
  );
}

/** The first link to `path` in the newest e-mail of the outbox that has one. */
async function linkFromOutbox(pathPrefix, to) {
  return waitFor(`an e-mail with ${pathPrefix}`, async () => {
    const files = (await readdir(outbox).catch(() => [])).filter((f) => f.endsWith('.eml'));
    for (const f of files.reverse()) {
      let text = await readFile(path.join(outbox, f), 'utf8');
      if (to && !text.toLowerCase().includes(to.toLowerCase())) continue;
      // Quoted-printable: soft line breaks and =XX escapes.
      text = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
      const m = text.match(new RegExp(`https?://[^\\s"<>]*${pathPrefix.replace(/[/?]/g, '\\$&')}[^\\s"<>]*`));
      if (m) return m[0];
    }
    return null;
  }, 15000);
}

// ---------------------------------------------------------------- main

let exitCode = 1;
let browserContext;
try {
  await waitFor('the server to be ready', async () => {
    if (serverExited) throw new Error(`vidpulse serve exited:\n${serverLog}`);
    const r = await fetch(`${base}/readyz`);
    return r.ok;
  }, 60000);
  log(`server on ${base} (${backend}); screenshots in ${shotDir}`);

  // The first account: a one-time set-password link, printed.
  let setPasswordLink;
  let created = null;
  try {
    // As the README's web-app section has it: the operator is the user, on
    // a plan with every feature.
    created = await admin('create-user', '--email', OWNER, '--org', 'Acme', '--role', 'owner', '--plan', 'pro');
  } catch (e) {
    // A binary without `admin create-user`: the owner from create-org, and
    // the link from a "forgot password" e-mail in the outbox.
    log(`admin create-user failed (${e.message.split('\n')[0]}); using create-org and the forgot-password e-mail`);
    await admin('create-org', '--name', 'Acme', '--plan', 'free', '--owner-email', OWNER);
    const r = await fetch(`${base}/auth/forgot-password`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: OWNER }) });
    expect(r.status === 202, `forgot-password answered ${r.status}`);
  }
  const printed = created && created.match(/(?:https?:\/\/[^\s"]*)?\/set-password\?token=[^\s"]+/);
  const link = printed ? printed[0] : await linkFromOutbox('/set-password?token=', OWNER);
  expect(link, `no set-password link:\n${created}`);
  setPasswordLink = link.startsWith('http') ? `${base}${new URL(link).pathname}${new URL(link).search}` : `${base}${link}`;

  const userData = path.join(work, 'chromium-profile');
  browserContext = await chromium.launchPersistentContext(userData, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
    timezoneId: 'UTC',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context = browserContext;
  page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(15000);
  page.on('console', (msg) => {
    const text = msg.text();
    if (msg.type() === 'error' && !/Failed to load resource|ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED|net::/.test(text)) {
      problems.push(`${currentJourney}: console error: ${text}`);
    }
    if (/Content Security Policy|Refused to/.test(text)) problems.push(`${currentJourney}: CSP: ${text}`);
  });
  page.on('pageerror', (e) => problems.push(`${currentJourney}: page error: ${e.message}`));
  // Every request the page makes stays on this origin (thumbnails included).
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (/^https?:$/.test(url.protocol) && url.origin !== base) problems.push(`${currentJourney}: request to another host: ${r.url()}`);
  });
  page.on('dialog', (d) => d.accept());
  // Nothing leaves this machine; a request that tries is reported above.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort('internetdisconnected'));

  let orgId;

  const signedUp = await journey('set password from the printed link', async () => {
    await page.goto(`${base}/sign-in`);
    await settled();
    expect((await heading()) === 'Sign in', `sign-in heading: ${await heading()}`);
    await checkA11y('sign-in');
    await shot('sign-in');
    await page.goto(setPasswordLink);
    await settled();
    await checkA11y('set-password');
    await page.getByLabel('New password').fill('short');
    await page.getByLabel('Repeat the password').fill('short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'at least 10 characters' }).waitFor();
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL(`${base}/videos`);
    await settled();
    orgId = await page.evaluate(() => localStorage.getItem('vidpulse.organization'));
    expect(orgId, 'no organization chosen after sign-in');
    // Paid features (creator adds, PATCH) need a paid plan: create-user gave it.
    expect(!created || JSON.parse(created).plan === 'pro', `the first organization's plan: ${created}`);
  });
  if (!signedUp) throw new Error('cannot continue without an account');

  await journey('sign out, wrong password, sign in with next', async () => {
    await page.locator('.user-menu summary').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    await settled();
    await page.goto(`${base}/team`);
    await page.waitForURL(/\/sign-in\?next=%2Fteam/);
    await settled();
    await page.getByLabel('E-mail').fill(OWNER);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'E-mail or password is wrong.' }).waitFor();
    await shot('sign-in-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/team`);
    await settled();
    expect((await heading()) === 'Team', `after sign-in: ${await heading()}`);
    // Old addresses lead to the app.
    await page.goto(`${base}/dashboard`);
    await page.waitForURL(`${base}/videos`);
    await settled();
  });

  await journey('paste links and see each outcome', async () => {
    await visit('/videos');
    await page.getByLabel('Video links').fill(LINKS.join('\n'));
    await page.getByText(`${LINKS.length} of 50 links`).waitFor();
    await page.getByRole('button', { name: 'Track videos' }).click();
    const results = page.locator('.track-results table');
    await results.waitFor();
    const outcomes = await results.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(outcomes.length === LINKS.length, `outcomes: ${outcomes}`);
    expect(outcomes.filter((o) => o === 'Tracked').length === 3, `outcomes: ${outcomes}`);
    expect(outcomes[3] === 'Not tracked', `outcome of the bad link: ${outcomes[3]}`);
    // Tracking them again: already tracked.
    await page.getByLabel('Video links').fill(LINKS[0]);
    await page.getByRole('button', { name: 'Track videos' }).click();
    await page.locator('.track-results td', { hasText: 'Already tracked' }).waitFor();
    await page.getByLabel('Video links').fill(LINKS.join('\n'));
    await page.getByRole('button', { name: 'Track videos' }).click();
    await page.locator('.track-results table').waitFor();
  });

  let title;
  await journey('find a video by title and open it', async () => {
    // The first readings arrive within seconds; titles come with them.
    await waitFor('titles of the tracked videos', async () => {
      await visit('/videos');
      const titles = await page.locator('a.title-link').allTextContents();
      return titles.length === 3 && titles.every((x) => !/^[A-Za-z0-9_-]{6,}$/.test(x) || x.includes(' '));
    }, 60000, 1500);
    await checkA11y('videos');
    await shot('videos');
    const titles = await page.locator('a.title-link').allTextContents();
    title = titles[0];
    const word = title.split(/\s+/).find((w) => w.length > 3) || title;
    await page.getByLabel('Search titles').fill(word);
    await page.waitForURL(/q=/);
    await settled();
    await waitFor('the filtered list', async () => (await page.locator('a.title-link').count()) >= 1 && (await page.locator('a.title-link').allTextContents()).every((x) => x.toLowerCase().includes(word.toLowerCase())));
    await page.getByLabel('Platform').selectOption('tiktok');
    await settled();
    await page.getByLabel('Platform').selectOption('');
    await settled();
    await page.getByRole('link', { name: title }).first().click();
    await page.waitForURL(/\/videos\/[0-9a-f-]{36}$/);
    await settled();
    expect((await heading()) === title, `video page heading: ${await heading()} (wanted ${title})`);
  });

  await journey('open a video: charts, table, edit', async () => {
    expect(await page.locator('svg.chart[role="img"]').count() >= 2, 'two charts');
    expect(await page.locator('svg.chart title').first().textContent(), 'chart title');
    await checkA11y('video');
    await shot('video');
    await page.getByLabel('Campaign', { exact: true }).fill('Summer launch');
    await page.getByLabel('Budget', { exact: true }).fill('1500');
    await page.getByLabel('eCPM (cost per 1,000 views)').fill('12.5');
    await page.getByLabel('Add tags').fill('food, EU');
    await page.getByLabel('Workflow').selectOption('running');
    await page.getByLabel('Notes').fill('Posted on launch day.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.toast', { hasText: 'Saved.' }).waitFor();
    await settled();
    const facts = await page.locator('dl.facts').textContent();
    for (const want of ['Summer launch', '1,500', 'food', 'EU', 'Running', 'Posted on launch day.']) expect(facts.includes(want), `facts lack ${want}: ${facts}`);
    // A refused value shows the server's message.
    await page.getByLabel('Budget', { exact: true }).fill('-3');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').first().waitFor();
  });

  await journey('bulk campaign and tags on the selected videos', async () => {
    await visit('/videos');
    // Each bulk edit is one batch request, answered by one result line.
    const edits = [];
    const onRequest = (r) => {
      if (r.method() === 'PATCH') edits.push(new URL(r.url()).pathname);
    };
    page.on('request', onRequest);
    try {
      await page.getByLabel('Select all videos on this page').check();
      await page.getByText('3 selected').waitFor();
      await page.getByLabel('Campaign for the selected').fill('Summer launch');
      await page.getByRole('button', { name: 'Set campaign' }).click();
      await page.locator('.bulk-result.ok', { hasText: 'Campaign set to “Summer launch” on 3 videos.' }).waitFor();
      await settled();
      await page.getByLabel('Select all videos on this page').check();
      await page.getByLabel('Tags for the selected').fill('launch');
      await page.getByRole('button', { name: 'Add tags' }).click();
      await page.locator('.bulk-result.ok', { hasText: 'Tags added to 3 videos: launch.' }).waitFor();
      await settled();
    } finally {
      page.off('request', onRequest);
    }
    expect(edits.length === 2 && edits.every((p) => p === '/dashboard/videos/batch'), `one batch request per edit: ${edits}`);
    const campaigns = await page.locator('table.table tbody tr td:nth-child(10)').allTextContents();
    expect(campaigns.length === 3 && campaigns.every((c) => c === 'Summer launch'), `campaigns: ${campaigns}`);
  });

  await journey('filter videos by campaign, creator and tags', async () => {
    await visit('/videos');
    await page.getByLabel('Campaign', { exact: true }).fill('Summer launch');
    await page.getByLabel('Creator', { exact: true }).fill('@mira.cooks');
    await page.getByLabel('Tags (all of them)').fill('launch');
    await page.getByRole('button', { name: 'Apply' }).click();
    await waitFor('one matching video', async () => (await page.locator('a.title-link').count()) === 1);
    expect(page.url().includes('blogger=%40mira.cooks'), `filters kept in the address: ${page.url()}`);
    await page.getByLabel('Tags (all of them)').fill('launch, nowhere');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No video matches these filters.').waitFor();
    await page.getByLabel('Tags (all of them)').fill('');
    await page.getByLabel('Published from').fill('2999-01-01');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No video matches these filters.').waitFor();
    expect(page.url().includes('published_from=2999-01-01'), `publish filter kept in the address: ${page.url()}`);
    await page.getByLabel('Published from').fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
    // Tracking days: every video was tracked today (UTC), none tomorrow.
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Tracked from').fill(tomorrow);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No video matches these filters.').waitFor();
    expect(page.url().includes(`tracked_from=${tomorrow}`), `tracking filter kept in the address: ${page.url()}`);
    await page.getByLabel('Tracked from').fill(today);
    await page.getByLabel('Tracked until').fill(today);
    await page.getByRole('button', { name: 'Apply' }).click();
    await waitFor('the tracked videos', async () => (await page.locator('a.title-link').count()) === 1);
    await page.getByLabel('Tracked from').fill('');
    await page.getByLabel('Tracked until').fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
  });

  await journey('sort videos by what they gained (the server ranks)', async () => {
    await visit('/videos');
    await page.getByLabel('Sort by').selectOption('gain');
    await settled();
    expect(page.url().includes('sort=gain'), `sort kept in the address: ${page.url()}`);
    await waitFor('three rows', async () => (await page.locator('a.title-link').count()) === 3);
    const cells = await page.locator('table.table tbody tr td:nth-child(9)').allTextContents();
    const values = cells.map((c) => (/\d/.test(c) ? Number(c.replace(/[^\d-]/g, '')) : null));
    const known = values.filter((v) => v !== null);
    expect(known.every((v, i) => i === 0 || known[i - 1] >= v), `gains largest first: ${cells}`);
    expect(values.indexOf(null) === -1 || values.slice(values.indexOf(null)).every((v) => v === null), `unknown gains last: ${cells}`);
  });

  /** A CSV text as rows of cells (RFC 4180: quoted cells, doubled quotes). */
  const parseCsv = (text) => {
    const rows = [];
    let row = [];
    let cell = '';
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (ch === '"') quoted = false;
        else cell += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') {
        row.push(cell);
        cell = '';
      } else if (ch === '\r' && text[i + 1] === '\n') {
        row.push(cell);
        rows.push(row);
        row = [];
        cell = '';
        i++;
      } else cell += ch;
    }
    if (cell || row.length) rows.push([...row, cell]);
    return rows;
  };
  /** The first day of the last `days` UTC days, as the videos page measures its gain column. */
  const periodStart = (days) => new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);

  await journey('download the videos as CSV: the server export\'s columns and cells', async () => {
    await visit('/videos');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /^Download CSV/ }).first().click()]);
    const bytes = await readFile(await download.path());
    expect(bytes[0] !== 0xef, 'no BOM: the bytes the server writes');
    const rows = parseCsv(bytes.toString('utf8'));
    const header = rows[0];
    // The server's own export of the same filters (an API key of the organization).
    // (Left active: a revoked key would be a second "Revoked" row in the API key journey.)
    const key = await apiFetch('POST', '/organizations/api-keys', { name: 'csv-check' });
    expect(key.status === 200 || key.status === 201, `API key: ${JSON.stringify(key.body)}`);
    {
      const url = `${base}/v1/videos/export?sort=created_at&order=desc&baseline=tracking&from=${periodStart(7)}`;
      const answer = await fetch(url, { headers: { Authorization: `Bearer ${key.body.data.api_key}` } });
      expect(answer.ok, `server export: ${answer.status} ${await answer.clone().text()}`);
      const server = parseCsv(await answer.text());
      expect(header.join(',') === server[0].join(','), `CSV header ${header.join(',')} is not the server's ${server[0].join(',')}`);
      expect(rows.length === server.length && rows.length === 4, `rows: ${rows.length} (server ${server.length})`);
      // Readings may arrive between the two downloads: the columns that do not move must agree.
      const stable = ['video_id', 'external_video_id', 'platform', 'url', 'title', 'author_username', 'published_at', 'created_at', 'notes', 'budget', 'campaign', 'video_status', 'status', 'ecpm', 'tags', 'tracking_status'];
      for (let i = 1; i < rows.length; i++) {
        for (const column of stable) {
          const at = header.indexOf(column);
          expect(rows[i][at] === server[i][at], `${column} of row ${i}: ${rows[i][at]} vs the server's ${server[i][at]}`);
        }
      }
    }
    const at = (name) => header.indexOf(name);
    for (const row of rows.slice(1)) {
      expect(/^[0-9a-f-]{36}$/.test(row[at('video_id')]), `an id: ${row[at('video_id')]}`);
      expect(/^https:\/\//.test(row[at('url')]), `a URL: ${row[at('url')]}`);
      expect(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(row[at('created_at')]), `an ISO instant: ${row[at('created_at')]}`);
      expect(/^\d*$/.test(row[at('views')]), `a raw number: ${row[at('views')]}`);
      expect(/^-?\d*$/.test(row[at('views_gained')]), `a raw gain: ${row[at('views_gained')]}`);
    }
    expect(rows.some((r) => r[at('title')] === title), 'the CSV has the video title');
    expect(download.suggestedFilename().startsWith('videos'), download.suggestedFilename());
  });

  // ---- issue 37: campaigns, money, charts on day one.

  const dayOffset = (n) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  const D0 = dayOffset(-60);
  const at = (day, time) => `${day}T${time}Z`;
  /** Imports snapshots (an operator's `import-stats`) for the signed-in organization. */
  const importStats = async (name, lines) => {
    const file = path.join(work, name);
    await writeFile(file, `${['platform,external_video_id,captured_at,views,likes,comments,reposts,saves,channel_username,title', ...lines].join('\n')}\n`);
    return JSON.parse(await admin('import-stats', '--org', orgId, '--file', file));
  };
  /** The organization's video of platform id `external`. */
  const videoOf = async (external) => {
    const listed = await apiFetch('GET', '/dashboard/videos?limit=100');
    return listed.body.data.data.find((v) => v.external_video_id === external);
  };

  await journey('campaigns: list, create, edit, archive, delete', async () => {
    await visit('/campaigns');
    expect((await heading()) === 'Campaigns', `heading: ${await heading()}`);
    // The campaign the videos were given is listed, with its videos.
    const summer = page.locator('table.table tbody tr', { hasText: 'Summer launch' });
    await summer.waitFor();
    expect(/\b3\b/.test(await summer.locator('td').nth(2).textContent()), `Summer launch videos: ${await summer.textContent()}`);
    await page.getByRole('button', { name: 'New campaign' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Autumn push');
    await page.getByLabel('Client', { exact: true }).fill('Acme Foods');
    await page.getByLabel('Starts on').fill(dayOffset(-5));
    await page.getByLabel('Ends on').fill(dayOffset(20));
    await page.getByLabel('Budget', { exact: true }).fill('5000');
    await page.getByLabel('Target views').fill('100000');
    await checkA11y('campaigns (new campaign form)');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.locator('.toast', { hasText: 'Campaign “Autumn push” created.' }).waitFor();
    const autumn = page.locator('table.table tbody tr', { hasText: 'Autumn push' });
    await autumn.waitFor();
    await autumn.getByText('Active').waitFor();
    expect((await autumn.textContent()).includes('Acme Foods'), `the client: ${await autumn.textContent()}`);
    // The same name in another letter case: refused, told.
    await page.getByRole('button', { name: 'New campaign' }).click();
    await page.getByLabel('Name', { exact: true }).fill('autumn PUSH');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.locator('#campaign-form [role="alert"]').waitFor();
    expect((await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')) === 'true', 'the name is marked');
    await page.getByRole('button', { name: 'Cancel' }).click();
    // Edit.
    await page.getByRole('button', { name: 'Edit “Autumn push”' }).click();
    expect((await page.getByLabel('Client', { exact: true }).inputValue()) === 'Acme Foods', 'the form holds the campaign');
    await page.getByLabel('Client', { exact: true }).fill('Acme Drinks');
    await page.getByRole('button', { name: 'Save campaign' }).click();
    await page.locator('.toast', { hasText: 'Campaign saved.' }).waitFor();
    await page.locator('table.table tbody tr', { hasText: 'Acme Drinks' }).waitFor();
    await shot('campaigns-list');
    // Archive.
    await page.getByRole('button', { name: 'Archive “Autumn push”' }).click();
    await page.locator('.action-status .alert-ok', { hasText: '“Autumn push” archived.' }).waitFor();
    await page.locator('table.table tbody tr', { hasText: 'Autumn push' }).getByText('Archived').waitFor();
    // Delete, after a confirm that names it.
    const asked = [];
    const onDialog = (d) => asked.push(d.message());
    page.on('dialog', onDialog);
    try {
      await page.getByRole('button', { name: 'Delete “Autumn push”' }).click();
      await page.locator('.action-status .alert-ok', { hasText: '“Autumn push” deleted' }).waitFor();
    } finally {
      page.off('dialog', onDialog);
    }
    expect(asked.length === 1 && asked[0].includes('Autumn push'), `confirm: ${asked}`);
    await settled();
    await waitFor('the row to go', async () => (await page.locator('table.table tbody tr', { hasText: 'Autumn push' }).count()) === 0);
    const listed = await apiFetch('GET', '/dashboard/campaigns?limit=100');
    const names = JSON.stringify(listed.body);
    expect(!names.includes('Autumn push') && names.includes('Summer launch'), `listed: ${names.slice(0, 300)}`);
    await checkA11y('campaigns');
  });

  let moneyCampaign;
  await journey('campaign page: the money first, checkable by hand', async () => {
    // Two videos read 60 days ago (their tracking is long over: the numbers stay).
    const imported = await importStats('money.csv', [
      `tiktok,7400000000000000001,${at(D0, '10:00:00')},1000,100,10,0,0,money.a,Money A`,
      `tiktok,7400000000000000001,${at(dayOffset(-58), '10:00:00')},5000,300,30,5,5,money.a,Money A`,
      `tiktok,7400000000000000002,${at(dayOffset(-59), '10:00:00')},2000,50,5,0,0,money.b,Money B`,
      `tiktok,7400000000000000002,${at(dayOffset(-57), '10:00:00')},4000,150,15,5,5,money.b,Money B`,
    ]);
    expect(imported.snapshots_imported === 4, `import: ${JSON.stringify(imported)}`);
    const made = await apiFetch('POST', '/dashboard/campaigns', { name: 'Money check', client: 'Acme', starts_on: D0, ends_on: dayOffset(-51), budget: 1000, target_views: 12000 });
    expect(made.status === 201 || made.status === 200, `create: ${JSON.stringify(made.body)}`);
    moneyCampaign = made.body.data;
    // A flat fee on one video, a price per 1,000 views on the other.
    const a = await videoOf('7400000000000000001');
    const b = await videoOf('7400000000000000002');
    expect(a && b, 'the imported videos');
    for (const [v, body] of [[a, { campaign: 'money CHECK', budget: 300 }], [b, { campaign: 'Money check', ecpm: 10 }]]) {
      const r = await apiFetch('PATCH', `/dashboard/videos/${v.video_id}`, body);
      expect(r.status === 200, `PATCH: ${JSON.stringify(r.body)}`);
    }
    // The list: views gained, spend, CPM and progress of each campaign.
    await visit('/campaigns');
    const row = page.locator('table.table tbody tr', { hasText: 'Money check' });
    await waitFor('the report in the row', async () => (await row.textContent()).includes('$320.00'));
    const text = await row.textContent();
    for (const want of ['6,000', '$320.00', '$53.33', '50%', 'Ended', 'Acme']) expect(text.includes(want), `list row lacks ${want}: ${text}`);
    // The page: spend 300 + 10 × 2,000 / 1,000 = 320; views 4,000 + 2,000.
    await row.getByRole('link', { name: 'Money check' }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}/);
    await settled();
    expect((await heading()) === 'Money check', `heading: ${await heading()}`);
    const figure = async (id) => (await page.locator(`#${id} dd`).textContent()).trim();
    const want = {
      'campaign-spend': '$320.00',
      'campaign-budget-left': '$680.00',
      'campaign-cpm': '$53.33',
      'campaign-cpe': '$0.91',
      'campaign-er': '5.8%',
      'campaign-progress': '50%',
      'campaign-views-start': '3,000',
      'campaign-views-gained': '6,000',
      'campaign-views-now': '9,000',
    };
    for (const [id, value] of Object.entries(want)) {
      const shown = await figure(id);
      expect(shown.startsWith(value), `${id}: ${shown} (wanted ${value})`);
    }
    // The headline agrees with the chart under it: the days add up to the gain.
    await page.getByText('Show the numbers as a table').first().click();
    const perDay = page.locator('section', { hasText: 'Per day' }).locator('table tbody tr');
    const dayViews = await perDay.evaluateAll((trs) => trs.map((tr) => Number(tr.cells[1].textContent.replace(/[^\d-]/g, '') || 0)));
    expect(dayViews.reduce((x, y) => x + y, 0) === 6000, `days add up to ${dayViews}`);
    // The creators with their cost and CPM.
    const creators = page.locator('section', { hasText: 'Creators: cost and CPM' });
    const lines = await creators.locator('table tbody tr').allTextContents();
    expect(lines.length === 2 && lines[0].includes('@money.a') && lines[0].includes('$300.00') && lines[0].includes('$75.00'), `creator a: ${lines[0]}`);
    expect(lines[1].includes('@money.b') && lines[1].includes('$20.00') && lines[1].includes('$10.00'), `creator b: ${lines[1]}`);
    // The top videos.
    const top = await page.locator('section', { hasText: 'Top videos' }).locator('table tbody tr').allTextContents();
    expect(top.length === 2 && top[0].includes('Money A'), `top videos: ${top}`);
    await checkA11y('campaign');
    await shot('campaign');
    // The report's CSV is the server's (format=csv).
    const asked = [];
    const onRequest = (r) => asked.push(r.url());
    page.on('request', onRequest);
    let download;
    try {
      [download] = await Promise.all([page.waitForEvent('download'), creators.getByRole('button', { name: /^Download CSV/ }).click()]);
    } finally {
      page.off('request', onRequest);
    }
    expect(asked.some((u) => u.includes(`/dashboard/campaigns/${moneyCampaign.id}/report`) && u.includes('format=csv') && u.includes('baseline=tracking')), `the report's CSV asked: ${asked}`);
    const csvText = await readFile(await download.path(), 'utf8');
    expect(csvText.includes('money.a') && csvText.includes('\r\n'), `report CSV: ${csvText.slice(0, 300)}`);
    // Phone: the headline stacks, nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await settled();
      await page.locator('#campaign-spend').waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow <= 1, `the campaign page scrolls sideways by ${overflow}px`);
      await shot('campaign');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  await journey('campaign fields pick from the organization\'s campaigns', async () => {
    const a = await videoOf('7400000000000000001');
    await visit(`/videos/${a.video_id}`);
    const input = page.getByLabel('Campaign', { exact: true });
    const choices = page.locator(`#${await input.getAttribute('list')} option`);
    await waitFor('the campaigns to pick from', async () => (await choices.count()) >= 2);
    const options = await choices.evaluateAll((os) => os.map((o) => o.value));
    expect(options.includes('Money check') && options.includes('Summer launch'), `choices: ${options}`);
    // Another letter case lands on the same campaign; the record shows its name.
    await input.fill('summer LAUNCH');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.toast', { hasText: 'Saved.' }).waitFor();
    await settled();
    expect((await page.locator('dl.facts').textContent()).includes('Summer launch'), 'the campaign\'s own name');
    // The first save's toast may still show: wait for one more.
    const saved = page.locator('.toast', { hasText: 'Saved.' });
    const before = await saved.count();
    await page.getByLabel('Campaign', { exact: true }).fill('Money check');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitFor('the second save', async () => (await saved.count()) > before || (await page.locator('dl.facts').textContent()).includes('Money check'));
    await visit('/videos');
    const bulk = page.locator(`#${await page.getByLabel('Campaign for the selected').getAttribute('list')} option`);
    await waitFor('the campaigns to pick from in the bulk edit', async () => (await bulk.count()) >= 2);
  });

  await journey('charts read on day one', async () => {
    // A video tracked today, read twice: two points, each at its time.
    const now = Date.now();
    const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await importStats('today.csv', [
      `tiktok,7400000000000000003,${iso(now - 3 * 3_600_000)},50000,900,40,10,5,day.one,Day one`,
      `tiktok,7400000000000000003,${iso(now - 1 * 3_600_000)},51000,950,42,11,6,day.one,Day one`,
    ]);
    const v = await videoOf('7400000000000000003');
    await visit(`/videos/${v.video_id}`);
    const line = page.locator('section', { hasText: 'Counters over time' }).locator('svg.chart');
    await line.waitFor();
    const facts = await line.evaluate((svg) => ({
      dots: [...svg.querySelectorAll('circle.dot title')].map((x) => x.textContent),
      xLabels: [...svg.querySelectorAll('.x-axis text')].map((x) => x.textContent),
      yLabels: [...svg.querySelectorAll('.axis:not(.x-axis) text')].map((x) => x.textContent),
    }));
    expect(facts.dots.length >= 2, `points: ${facts.dots}`);
    expect(facts.dots.every((d) => /\d{1,2}:\d{2}/.test(d)), `each point has its time: ${facts.dots}`);
    expect(new Set(facts.xLabels).size === facts.xLabels.length && facts.xLabels.length >= 2, `x labels repeat: ${facts.xLabels}`);
    expect(facts.xLabels.some((l) => /\d{1,2}:\d{2}/.test(l)), `x labels tell the time: ${facts.xLabels}`);
    expect(facts.yLabels[0] !== '0', `the views axis starts where the views are: ${facts.yLabels}`);
    // The gains: a bar a reading, at its time.
    const bars = page.locator('section', { hasText: 'Daily increments' }).locator('svg.chart');
    const barLabels = await bars.evaluate((svg) => [...svg.querySelectorAll('.x-axis text')].map((x) => x.textContent));
    expect(barLabels.length >= 1 && barLabels.every((l) => /\d{1,2}:\d{2}/.test(l)), `bar labels: ${barLabels}`);
    await shot('video-day-one');
    // On a phone the axis labels keep at least 11 px.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await visit(`/videos/${v.video_id}`);
      await sleep(300);
      const sizes = await page.evaluate(() =>
        [...document.querySelectorAll('svg.chart')].map((svg) => {
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          return Math.min(...[...svg.querySelectorAll('.axis text')].map((x) => parseFloat(getComputedStyle(x).fontSize) * scale));
        }),
      );
      expect(sizes.length >= 2 && sizes.every((px) => px >= 11), `axis labels on a phone: ${sizes.map((x) => x.toFixed(1))} px`);
      const labels = await page.evaluate(() => [...document.querySelectorAll('svg.chart')].map((svg) => [...svg.querySelectorAll('.x-axis text')].map((x) => x.textContent)));
      expect(labels.every((l) => new Set(l).size === l.length), `repeated labels on a phone: ${JSON.stringify(labels)}`);
      await shot('video-day-one');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  await journey('currency on the settings page', async () => {
    await visit('/settings');
    await page.getByLabel('Currency', { exact: true }).fill('EUR');
    await page.getByRole('button', { name: 'Save currency' }).click();
    await page.locator('.toast', { hasText: 'Currency set to EUR.' }).waitFor();
    expect((await page.locator('#org-currency-shown').textContent()) === 'EUR', 'the currency shown');
    await page.getByLabel('Currency', { exact: true }).fill('EU');
    await page.getByRole('button', { name: 'Save currency' }).click();
    await page.locator('#currency-form').locator('xpath=..').getByRole('alert').waitFor();
    const settings = await apiFetch('GET', '/organizations/settings');
    expect(settings.body.data.currency === 'EUR', `stored: ${JSON.stringify(settings.body)}`);
    await apiFetch('PATCH', '/organizations/settings', { currency: 'USD' });
    await checkA11y('settings (currency)');
  });

  await journey('add a creator and watch its job finish', async () => {
    await visit('/creators');
    await page.getByLabel('Handle').fill('@mira.cooks');
    await page.getByLabel('Platform').selectOption('tiktok');
    await page.getByLabel('Latest videos to track').fill('3');
    await page.getByRole('button', { name: 'Add creator' }).click();
    await page.locator('.job').waitFor();
    await page.locator('.job .badge', { hasText: 'Done' }).waitFor({ timeout: 60000 });
    await page.getByRole('button', { name: 'Manage @mira.cooks' }).waitFor();
    await page.getByRole('button', { name: 'Manage @mira.cooks' }).click();
    await page.getByLabel('Campaign', { exact: true }).fill('Summer launch');
    await page.getByRole('button', { name: 'Save campaign' }).click();
    await page.locator('.toast', { hasText: 'Campaign saved.' }).waitFor();
    await page.getByLabel('New tag').fill('food');
    await page.getByRole('button', { name: 'Save tags' }).click();
    await page.locator('.toast', { hasText: 'Tags saved.' }).waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.toast', { hasText: 'Creator paused.' }).waitFor();
    const row = page.locator('table.table tbody tr', { hasText: '@mira.cooks' });
    await row.getByText('Paused').waitFor();
    // Resuming takes a place under the creator cap: at the cap, the server
    // says which limit and the owner is shown the command that raises it.
    await admin('set-plan', '--org', orgId, '--plan', 'pro', '--creator-cap', '0');
    await page.getByRole('button', { name: 'Resume' }).click();
    const capped = page.locator('.plan-refusal');
    await capped.locator('code.command').waitFor();
    expect((await capped.textContent()).includes('Tracked-creator limit reached'), 'the server says which limit');
    const lift = await capped.locator('code.command').textContent();
    expect(lift === `vidpulse admin set-plan --org ${orgId} --plan pro --video-quota 1000 --creator-cap 1`, `the cap command: ${lift}`);
    await row.getByText('Paused').waitFor();
    await admin('set-plan', '--org', orgId, '--plan', 'pro');
    // Followers, and their gain over 7 and 30 days (one reading so far: 0).
    for (const column of ['Followers', '7-day gain', '30-day gain']) {
      expect((await page.locator('table.table thead th', { hasText: column }).count()) >= 1, `a ${column} column`);
    }
    // The follower history: a line chart, and the same days as a table.
    await page.getByRole('button', { name: 'Followers of @mira.cooks', exact: true }).click();
    const followers = page.locator('#creator-followers');
    await followers.locator('svg.chart').waitFor();
    expect((await page.evaluate(() => document.activeElement?.textContent || '')).includes('Followers of @mira.cooks'), 'focus on the history heading');
    await followers.getByText('Show the numbers as a table').click();
    expect((await followers.locator('table tbody tr').count()) >= 1, 'a day with a reading');
    await checkA11y('creators');
    await shot('creators');
  });

  let apiKey;
  await journey('API key create, use, usage, revoke', async () => {
    await visit('/settings');
    await page.getByLabel('Key name').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-api-key').waitFor();
    apiKey = (await page.locator('#new-api-key').textContent()).trim();
    expect(apiKey.length > 20, 'the key is shown once');
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    await checkA11y('settings');
    await shot('settings');
    // Requests with the key are what usage counts.
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${base}/v1/videos/stats?limit=5`, { headers: { Authorization: `Bearer ${apiKey}` } });
      expect(r.ok, `API call with the key: ${r.status}`);
    }
    await waitFor('usage to count the requests', async () => {
      await visit('/usage');
      const n = (await page.locator('#usage-requests').textContent()).replace(/\D/g, '');
      return Number(n) >= 3;
    }, 30000, 2000);
    expect(await page.locator('svg.chart').count() === 1, 'usage chart');
    await checkA11y('usage');
    await shot('usage');
    await visit('/settings');
    await page.getByRole('button', { name: 'Revoke key laptop' }).click();
    await page.locator('.toast', { hasText: 'Key revoked.' }).waitFor();
    await page.getByText(/^Revoked /).waitFor();
    const r = await fetch(`${base}/v1/videos/stats`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(r.status === 401, `revoked key answers ${r.status}`);
  });

  await journey('read-only API key', async () => {
    await visit('/settings');
    await page.getByLabel('Key name').fill('dashboards');
    await page.getByLabel('Access').selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-api-key').waitFor();
    const readKey = (await page.locator('#new-api-key').textContent()).trim();
    await page.getByRole('row', { name: /dashboards/ }).getByText('Read only').waitFor();
    const auth = { Authorization: `Bearer ${readKey}` };
    const who = await fetch(`${base}/v1/whoami`, { headers: auth });
    expect(who.ok, `whoami with a read-only key: ${who.status}`);
    expect((await who.json()).data.api_key.scopes.join(',') === 'read', 'whoami says read only');
    expect(/^"default";r=\d+;t=\d+$/.test(who.headers.get('ratelimit') || ''), `RateLimit header: ${who.headers.get('ratelimit')}`);
    const track = await fetch(`${base}/v1/videos/track`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ urls: ['https://www.youtube.com/watch?v=aqz-KE-bpKQ'] }),
    });
    expect(track.status === 403, `a write with a read-only key answers ${track.status}`);
    expect((await track.json()).error.code === 'INSUFFICIENT_SCOPE', 'INSUFFICIENT_SCOPE');
  });

  let inviteLink;
  await journey('team invite', async () => {
    await visit('/team');
    await page.getByLabel('E-mail 1').fill('kate@example.test');
    await page.getByLabel('Role 1').selectOption('editor');
    await page.getByLabel('E-mail 2').fill('sam@example.test');
    await page.getByRole('button', { name: 'Send invitations' }).click();
    await page.getByText('Invited kate@example.test as Editor.').waitFor();
    await page.locator('#pending-count', { hasText: '2' }).waitFor();
    await checkA11y('team');
    await shot('team');
    inviteLink = await linkFromOutbox('/invitations/', 'kate@example.test');
  });

  await journey('invitation: create a password, accept', async () => {
    expect(inviteLink, 'an invitation link in the outbox');
    const saved = await context.cookies();
    await context.clearCookies();
    const url = new URL(inviteLink);
    expect(/^\?token=[0-9a-f]{64}$/.test(url.search), `the link carries its token: ${inviteLink}`);
    // Without the link's token the page only offers to sign in.
    await visit(url.pathname);
    await page.getByRole('link', { name: 'Sign in to accept' }).waitFor();
    expect((await page.getByLabel('New password').count()) === 0, 'no password form without the token');
    await visit(url.pathname + url.search);
    await page.getByText(`${OWNER} invited you to join Acme as Editor.`).waitFor();
    await checkA11y('invitation (signed out)');
    await shot('invitation');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create password and continue' }).click();
    await page.getByRole('button', { name: 'Accept invitation' }).waitFor();
    await page.getByText(`${OWNER} invited you to join Acme as Editor.`).waitFor();
    await shot('invitation-signed-in');
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.getByText('Welcome to Acme!').waitFor();
    await visit('/videos');
    expect((await page.locator('a.title-link').count()) >= 3, 'the new member sees the videos');
    await context.clearCookies();
    await context.addCookies(saved);
    await page.evaluate((id) => localStorage.setItem('vidpulse.organization', id), orgId);
    // The owner sees the new member and changes her role.
    await visit('/team');
    await page.getByLabel('Role of kate@example.test').selectOption('viewer');
    await page.locator('.toast', { hasText: 'kate@example.test is now Viewer.' }).waitFor();
    await settled();
    expect((await page.getByLabel('Role of kate@example.test').inputValue()) === 'viewer', 'role changed');
  });

  await journey('team: re-send and cancel a pending invitation', async () => {
    const firstLink = await linkFromOutbox('/invitations/', 'sam@example.test');
    await visit('/team');
    await page.getByRole('button', { name: 'Re-send the invitation to sam@example.test' }).click();
    await page.locator('.toast', { hasText: 'Invitation sent again to sam@example.test.' }).waitFor();
    // A new e-mail with a new link.
    const secondLink = await waitFor('a second invitation e-mail', async () => {
      const files = (await readdir(outbox)).filter((f) => f.endsWith('.eml'));
      for (const f of files) {
        const text = (await readFile(path.join(outbox, f), 'utf8')).replace(/=\r?\n/g, '').replace(/=3D/g, '=');
        const m = text.includes('sam@example.test') && text.match(/https?:\/\/[^\s"<>]*\/invitations\/[^\s"<>]*/);
        if (m && m[0] !== firstLink) return m[0];
      }
      return null;
    });
    await checkA11y('team (pending invitations)');
    await shot('team-pending');
    await page.getByRole('button', { name: 'Cancel the invitation of sam@example.test' }).click();
    await page.locator('.toast', { hasText: 'Invitation of sam@example.test cancelled.' }).waitFor();
    await page.locator('#pending-count', { hasText: '0' }).waitFor();
    expect((await page.getByRole('button', { name: 'Cancel the invitation of sam@example.test' }).count()) === 0, 'no longer listed');
    // Neither link works any more.
    const saved = await context.cookies();
    await context.clearCookies();
    for (const link of [firstLink, secondLink]) {
      const url = new URL(link);
      await visit(url.pathname + url.search);
      await page.getByText('This invitation link is unknown').waitFor();
      expect((await page.getByLabel('New password').count()) === 0, 'no password form for a dead link');
    }
    await shot('invitation-cancelled');
    await context.addCookies(saved);
    await page.evaluate((id) => localStorage.setItem('vidpulse.organization', id), orgId);
  });

  await journey('sessions listed', async () => {
    await visit('/settings');
    await page.getByText('this browser').waitFor();
  });

  await journey('rename the organization', async () => {
    await visit('/settings');
    await page.getByLabel('New name').fill('Acme Studio');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.locator('.toast', { hasText: 'Organization renamed.' }).waitFor();
    expect((await page.locator('#org-name').textContent()) === 'Acme Studio', 'the new name shown');
    const listed = await apiFetch('GET', '/organizations/list');
    expect(listed.body.data.some((o) => o.name === 'Acme Studio'), 'the new name listed');
  });

  await journey('a user of no organization starts one', async () => {
    const printed = JSON.parse(await admin('create-user', '--email', 'solo@example.test', '--app-url', base));
    const link = new URL(printed.set_password_url);
    const saved = await context.cookies();
    await context.clearCookies();
    await visit(link.pathname + link.search);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByLabel('Organization name').waitFor();
    await checkA11y('no organization yet');
    await page.getByLabel('Organization name').fill('Solo Studio');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { level: 1, name: 'Videos' }).waitFor();
    await page.getByRole('heading', { name: 'Tracked videos' }).waitFor();
    await context.clearCookies();
    await context.addCookies(saved);
    await page.evaluate((id) => localStorage.setItem('vidpulse.organization', id), orgId);
  });

  await journey('plan and limits on Settings and Usage', async () => {
    await visit('/settings');
    await page.locator('#plan-name', { hasText: 'Pro' }).waitFor();
    const videos = await page.locator('#plan-videos').textContent();
    expect(/\d+ of 1,000/.test(videos), `tracked videos against the quota: ${videos}`);
    expect(/of 200/.test(await page.locator('#plan-creators').textContent()), 'creators against the cap');
    expect(/of 1,000/.test(await page.locator('#plan-trends').textContent()), 'trend searches against the month');
    // The owner is shown what the operator runs to move up.
    const command = await page.locator('#plan-command').textContent();
    expect(command === `vidpulse admin set-plan --org ${orgId} --plan business`, `the command: ${command}`);
    await checkA11y('settings (plan)');
    await shot('settings-plan');
    await visit('/usage');
    await page.locator('#plan-name', { hasText: 'Pro' }).waitFor();
    expect((await page.locator('meter').count()) === 3, 'a meter per limit');
    await checkA11y('usage (plan)');
    await shot('usage-plan');
  });

  await journey('create-user again: a new link, the same organization', async () => {
    const again = JSON.parse(await admin('create-user', '--email', OWNER, '--org', 'Acme Studio', '--role', 'owner', '--plan', 'pro'));
    expect(again.organization_id === orgId && again.organization_created === false, `the same organization: ${JSON.stringify(again)}`);
    expect(again.set_password_url.includes('/set-password?token='), 'a new link');
    const listed = await apiFetch('GET', '/organizations/list');
    expect(listed.body.data.length === 1, `one organization: ${JSON.stringify(listed.body.data)}`);
  });

  await journey('a plan refusal tells who can lift it what to run', async () => {
    const saved = await context.cookies();
    /** Signs `email` in through a fresh create-user link; their organization's id. */
    const signInAs = async (args) => {
      const printed = JSON.parse(await admin('create-user', ...args, '--app-url', base));
      await context.clearCookies();
      await page.evaluate(() => localStorage.removeItem('vidpulse.organization'));
      const link = new URL(printed.set_password_url);
      await visit(link.pathname + link.search);
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByLabel('Repeat the password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.waitForURL(`${base}/videos`);
      await settled();
      return printed.organization_id;
    };
    const saveCampaign = async () => {
      await visit('/videos');
      await waitFor('the tracked video', async () => (await page.locator('a.title-link').count()) === 1, 30000, 1000);
      await page.locator('a.title-link').first().click();
      await page.waitForURL(/\/videos\/[0-9a-f-]{36}$/);
      await settled();
      await page.getByLabel('Campaign', { exact: true }).fill('Launch');
      await page.getByRole('button', { name: 'Save changes' }).click();
      return page.locator('.plan-refusal');
    };
    // The owner of a free organization: the exact command.
    const freeOrg = await signInAs(['--email', 'free-owner@example.test', '--org', 'Free Co']);
    await page.getByLabel('Video links').fill(LINKS[1]);
    await page.getByRole('button', { name: 'Track videos' }).click();
    await page.locator('.track-results td', { hasText: 'Tracked' }).first().waitFor();
    let refusal = await saveCampaign();
    await refusal.locator('code.command').waitFor();
    const command = await refusal.locator('code.command').textContent();
    expect(command === `vidpulse admin set-plan --org ${freeOrg} --plan pro`, `the owner's command: ${command}`);
    await checkA11y('plan refusal (owner)');
    await shot('plan-refusal');
    // A quota reached: the command raises it and keeps the other limit.
    await admin('set-plan', '--org', freeOrg, '--plan', 'free', '--video-quota', '1');
    await visit('/videos');
    await page.getByLabel('Video links').fill(LINKS[0]);
    await page.getByRole('button', { name: 'Track videos' }).click();
    await page.locator('.plan-refusal code.command').waitFor();
    const raise = await page.locator('.plan-refusal code.command').textContent();
    expect(raise === `vidpulse admin set-plan --org ${freeOrg} --plan free --video-quota 2 --creator-cap 10`, `the quota command: ${raise}`);
    expect((await page.locator('.plan-refusal').textContent()).includes('Tracked-video quota reached'), 'the server says which limit');
    await visit('/settings');
    await page.locator('#plan-name', { hasText: 'Free' }).waitFor();
    expect((await page.locator('#plan-trends').textContent()).includes('Not included'), 'no trend searches on free');
    // The currency is a paid feature: the form shows the plan's wall.
    expect(await page.getByLabel('Currency', { exact: true }).isDisabled(), 'the currency field is off on free');
    await page.locator('#currency-form').locator('xpath=..').locator('.plan-refusal code.command').waitFor();
    // An editor there: told to ask an owner, no command.
    await signInAs(['--email', 'free-editor@example.test', '--org', freeOrg, '--role', 'editor']);
    refusal = await saveCampaign();
    await refusal.getByText('Ask an owner of this organization').waitFor();
    expect((await refusal.locator('code').count()) === 0, 'no command for an editor');
    await context.clearCookies();
    await context.addCookies(saved);
    await page.evaluate((id) => localStorage.setItem('vidpulse.organization', id), orgId);
  });

  await journey('phone width: navigation collapses', async () => {
    await visit('/videos');
    expect(!(await page.getByRole('button', { name: 'Menu' }).isVisible()), 'no menu button at 1280 px');
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible(), 'navigation shown at 1280 px');
    await page.setViewportSize({ width: 390, height: 844 });
    await visit('/videos');
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(!(await nav.isVisible()), 'navigation hidden behind the menu button');
    await shot('videos');
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav.waitFor({ state: 'visible' });
    await checkA11y('videos (phone, menu open)');
    await shot('menu', { full: false });
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.waitForURL(/\/campaigns/);
    await settled();
    await shot('campaigns');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow <= 1, `the page scrolls sideways by ${overflow}px`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await journey('keyboard: skip link and focus', async () => {
    await visit('/videos');
    await page.keyboard.press('Tab');
    const first = await page.evaluate(() => document.activeElement.textContent);
    expect(first.trim() === 'Skip to content', `first Tab stop: ${first}`);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    const inMain = await page.evaluate(() => document.getElementById('main').contains(document.activeElement));
    expect(inMain, 'focus moved into the page');
  });

  await journey('language switch to German', async () => {
    await visit('/videos');
    await page.locator('.user-menu summary').click();
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { level: 1, name: 'Videos' }).waitFor();
    await page.getByRole('link', { name: 'Einstellungen' }).waitFor();
    await page.getByRole('link', { name: 'Kampagnen' }).click();
    await page.waitForURL(/\/campaigns/);
    await settled();
    expect((await heading()) === 'Kampagnen', `German heading: ${await heading()}`);
    expect((await page.evaluate(() => document.documentElement.lang)) === 'de', 'html lang');
    const stored = await apiFetch('GET', '/organizations/user/language');
    expect(stored.body.data.language === 'de', `stored language: ${JSON.stringify(stored.body)}`);
    await page.reload();
    await settled();
    expect((await heading()) === 'Kampagnen', 'German after a reload');
    await checkA11y('campaigns (German)');
    await shot('campaigns-de');
    await visit('/usage');
    await shot('usage-de');
  });

  // ---- issue 35: links that lead away, phones, plurals, not-found, signed-out
  // pages, video actions, CSV cells.

  /** Signs the browser out for `fn` (cookies and stored state gone), then back in as it was. */
  async function signedOut(fn) {
    const saved = await context.cookies();
    const org = await page.evaluate(() => localStorage.getItem('vidpulse.organization'));
    await context.clearCookies();
    await page.evaluate(() => localStorage.clear());
    try {
      await fn();
    } finally {
      await context.clearCookies();
      await context.addCookies(saved);
      await page.evaluate((id) => localStorage.setItem('vidpulse.organization', id), org);
    }
  }

  /** The pages of the app, signed in: [name, path]. */
  async function signedInPages() {
    await visit('/videos');
    const href = await page.locator('a.title-link').first().getAttribute('href');
    return [
      ['videos', '/videos'],
      ['video', href],
      ['campaigns', '/campaigns'],
      ...(moneyCampaign ? [['campaign', `/campaigns/${moneyCampaign.id}`]] : []),
      ['creators', '/creators'],
      ['team', '/team'],
      ['settings', '/settings'],
      ['usage', '/usage'],
      ['webhooks', '/webhooks'],
      ['recaps', '/recaps'],
      ['not-found-signed-in', '/no-such-page'],
    ];
  }

  /** A fresh invitation's link, for the signed-out invitation page. */
  async function freshInvitation(email) {
    const sent = await apiFetch('POST', '/organizations/team/invite', { invites: [{ email, role: 'viewer' }] });
    expect(sent.status === 200, `invite: ${JSON.stringify(sent.body)}`);
    return new URL(await linkFromOutbox('/invitations/', email));
  }

  const EVIL = ['/%5Cevil.example/x', '/%09/evil.example/x', '/%5C%5Cevil.example/x', encodeURIComponent('//evil.example'), encodeURIComponent('https://evil.example'), encodeURIComponent('javascript:window.__evil=1')];

  await journey('next never leads away from the app', async () => {
    // The journeys below read the app in English.
    await apiFetch('PUT', '/organizations/user/language', { language: 'en' });
    // Signed in: the sign-in page goes on to `next` at once.
    for (const next of EVIL) {
      await visit(`/sign-in?next=${next}`);
      await page.waitForURL(`${base}/videos`);
      await sleep(300);
      expect(new URL(page.url()).origin === base, `next=${next} led to ${page.url()}`);
      expect(!(await page.evaluate(() => window.__evil)), `next=${next} ran script`);
    }
    // A page of the app is still honoured.
    await visit(`/sign-in?next=${encodeURIComponent('/usage?x=1')}`);
    await page.waitForURL(`${base}/usage?x=1`);
    // Signed out: through the form, and through the old address's redirect
    // (the issue's three payloads: sign-in attempts are throttled per address).
    await signedOut(async () => {
      for (const [i, next] of EVIL.slice(0, 3).entries()) {
        await visit(i % 2 ? `/login?next=${next}` : `/sign-in?next=${next}`);
        await page.getByLabel('E-mail').fill(OWNER);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${base}/videos`);
        await settled();
        await sleep(300);
        expect(new URL(page.url()).origin === base, `sign-in with next=${next} led to ${page.url()}`);
        await context.clearCookies();
      }
    });
  });

  await journey('phone width: no page scrolls sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const wide = [];
    const check = async (name, url) => {
      await visit(url);
      await sleep(200);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 1) wide.push(`${name} (${url}) by ${overflow}px`);
      // Nor does a field's control spill out of its cell (over its neighbour).
      const spilled = await page.evaluate(() =>
        [...document.querySelectorAll('.field')]
          .filter((f) => [...f.children].some((c) => c.getBoundingClientRect().right > f.getBoundingClientRect().right + 1))
          .map((f) => f.querySelector('label')?.textContent || '?'),
      );
      if (spilled.length) wide.push(`${name} (${url}): fields wider than their cell: ${spilled.join(', ')}`);
      await shot(`phone-${name}`);
    };
    try {
      for (const [name, url] of await signedInPages()) await check(name, url);
      const invite = await freshInvitation('phone@example.test');
      await signedOut(async () => {
        for (const [name, url] of [
          ['sign-in', '/sign-in'],
          ['forgot', '/forgot-password'],
          ['set-password', '/set-password?token=0000'],
          ['set-password-no-token', '/set-password'],
          ['invitation', invite.pathname + invite.search],
          ['not-found', '/no-such-page'],
        ]) {
          await check(name, url);
        }
      });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(!wide.length, `pages wider than a 390px phone: ${wide.join('; ')}`);
  });

  await journey('plurals follow the language', async () => {
    await visit('/videos');
    const periods = await page.getByLabel('Gain over').locator('option').allTextContents();
    expect(periods.join('|') === '1 day|7 days|30 days', `periods: ${periods}`);
    const said = async (lang) =>
      page.evaluate(async (l) => {
        const i18n = await import('/assets/js/i18n.js');
        await i18n.setLanguage(l);
        const out = [1, 2, 1000].map((count) => i18n.t('chart.daily_summary', { count, total: '5', metric: 'Views' }));
        out.push(i18n.t('error.retry_in', { count: 1 }), i18n.t('videos.batch_campaign_done', { count: 1, campaign: 'X' }));
        return out;
      }, lang);
    const en = await said('en');
    expect(en[0].startsWith('1 day shown') && en[1].startsWith('2 days shown') && en[2].startsWith('1,000 days shown'), `en: ${en}`);
    expect(en[3].endsWith('in 1 second.') && en[4] === 'Campaign set to “X” on 1 video.', `en: ${en}`);
    const de = await said('de');
    expect(de[0].startsWith('1 Tag;') && de[1].startsWith('2 Tage;') && de[2].startsWith('1.000 Tage;'), `de: ${de}`);
    expect(de[3].includes('in 1 Sekunde') && de[4] === 'Kampagne „X“ für 1 Video gesetzt.', `de: ${de}`);
    // German, through the app: the period list.
    await apiFetch('PUT', '/organizations/user/language', { language: 'de' });
    try {
      await visit('/videos');
      const tage = await page.getByLabel('Zuwachs über').locator('option').allTextContents();
      expect(tage.join('|') === '1 Tag|7 Tage|30 Tage', `German periods: ${tage}`);
    } finally {
      await apiFetch('PUT', '/organizations/user/language', { language: 'en' });
    }
  });

  await journey('an unknown address shows the not-found page', async () => {
    const response = await page.goto(`${base}/no-such-page?x=1`);
    await settled();
    expect(response.status() === 404, `status ${response.status()}`);
    expect((await heading()) === 'Page not found', `heading: ${await heading()}`);
    expect((await page.title()).startsWith('Page not found'), `title: ${await page.title()}`);
    await checkA11y('not found');
    await shot('not-found');
    await page.getByRole('link', { name: 'Go to the videos' }).click();
    await page.waitForURL(`${base}/videos`);
    await settled();
    // A link inside the app to an unknown page: the same page, no reload loop.
    await page.evaluate(async () => (await import('/assets/js/app.js')).navigate('/nowhere/at/all'));
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    // API clients still get JSON.
    const api = await apiFetch('GET', '/no-such-page');
    expect(api.status === 404 && api.body?.error?.code === 'NOT_FOUND', `API client: ${JSON.stringify(api)}`);
  });

  await journey('signed-out pages log nothing to the console', async () => {
    const invite = await freshInvitation('quiet@example.test');
    await signedOut(async () => {
      for (const url of ['/sign-in', '/forgot-password', '/set-password?token=0000', '/set-password', invite.pathname + invite.search, '/no-such-page', '/team']) {
        const messages = [];
        const onConsole = (m) => messages.push(m);
        page.on('console', onConsole);
        try {
          await page.goto(`${base}${url}`);
          await settled();
          await sleep(500);
        } finally {
          page.off('console', onConsole);
        }
        const target = `${base}${url}`;
        // The browser reports the not-found page's own status 404: that is
        // the answer the address must have, not an error of the page.
        const logged = messages.filter(
          (m) => !(url === '/no-such-page' && /status of 404/.test(m.text()) && m.location().url === target),
        );
        expect(!logged.length, `${url}: ${logged.map((m) => `${m.type()}: ${m.text()} (${m.location().url})`).join('; ')}`);
      }
    });
  });

  await journey('refresh a video now and untrack one', async () => {
    // A fourth video, to untrack.
    const tracked = await apiFetch('POST', '/dashboard/videos/track', { urls: ['https://www.youtube.com/watch?v=untrack0001'] });
    expect(tracked.status === 200, `track: ${JSON.stringify(tracked.body)}`);
    const id = tracked.body.data.results[0].video_id;
    await waitFor('its title', async () => {
      const v = await apiFetch('GET', `/dashboard/videos/${id}`);
      return v.body?.data?.data?.title || v.body?.data?.title;
    }, 30000, 1000);
    const record = await apiFetch('GET', `/dashboard/videos/${id}`);
    const name = (record.body.data.data || record.body.data).title;
    await visit('/videos');
    // Read it now: its scheduled read is recent, so that reading answers, free;
    // asked again within the cooldown, the API's refusal is told plainly.
    await page.getByRole('button', { name: `Refresh now: “${name}”` }).click();
    await page.locator('.action-status .alert-ok', { hasText: `“${name}” was read at` }).waitFor();
    await page.getByRole('button', { name: `Refresh now: “${name}”` }).click();
    await page.locator('.action-status .alert-error', { hasText: /refreshed for your organization moments ago: ask again in \d+ seconds\./ }).waitFor();
    await checkA11y('videos with row actions');
    // Untrack, after a confirm that names it.
    const asked = [];
    const onDialog = (d) => asked.push(d.message());
    page.on('dialog', onDialog);
    try {
      await page.getByRole('button', { name: `Untrack: “${name}”` }).click();
      await page.locator('.action-status .alert-ok', { hasText: `“${name}” is no longer tracked.` }).waitFor();
    } finally {
      page.off('dialog', onDialog);
    }
    expect(asked.length === 1 && asked[0].includes(name), `confirm: ${asked}`);
    await settled();
    expect((await page.getByRole('link', { name }).count()) === 0, 'the untracked video left the list');
    const gone = await apiFetch('GET', `/dashboard/videos/${id}`);
    expect(gone.status === 404, `untracked video answers ${gone.status}`);
    // The video page has the same actions.
    await page.locator('a.title-link').first().click();
    await page.waitForURL(/\/videos\/[0-9a-f-]{36}$/);
    await settled();
    await page.getByRole('button', { name: /^Refresh now: “.*”$/ }).waitFor();
    await page.getByRole('button', { name: /^Untrack: “.*”$/ }).waitFor();
  });

  await journey('CSV cells a spreadsheet would run stay text', async () => {
    const listed = await apiFetch('GET', '/dashboard/videos?limit=100');
    const ids = listed.body.data.data.map((v) => v.video_id);
    const edit = await apiFetch('PATCH', '/dashboard/videos/batch', { video_ids: ids, campaign: '-launch', tags: ['=1+2'] });
    expect(edit.status === 200, `batch: ${JSON.stringify(edit.body)}`);
    await visit('/videos');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /^Download CSV/ }).first().click()]);
    const rows = parseCsv(await readFile(await download.path(), 'utf8'));
    const header = rows[0];
    const at = (name) => header.indexOf(name);
    expect(rows.length - 1 === ids.length, `rows: ${rows.length - 1} of ${ids.length}`);
    for (const row of rows.slice(1)) {
      expect(row[at('campaign')] === "'-launch", `campaign cell: ${row[at('campaign')]}`);
      expect(row[at('tags')].startsWith("'=1+2"), `tags cell: ${row[at('tags')]}`);
      for (const column of ['views', 'likes', 'comments']) {
        expect(/^\d*$/.test(row[at(column)]), `${column} stays a raw number: ${row[at(column)]}`);
      }
      expect(/^-?\d*$/.test(row[at('views_gained')]), `a gain stays a raw number: ${row[at('views_gained')]}`);
    }
    // The rule itself, as the server's exports apply it.
    const cells = await page.evaluate(async () => {
      const { toCsv } = await import('/assets/js/csv.js');
      return toCsv([], [[-7, 12.5, true, null, '-5', '=1+1', '+1', '@SUM(A1)', '\tx', '\rx', 'a=b', 'a,b']]);
    });
    expect(cells === '\r\n-7,12.5,true,,\'-5,\'=1+1,\'+1,\'@SUM(A1),\'\tx,"\'\rx",a=b,"a,b"\r\n', `cells: ${JSON.stringify(cells)}`);
  });

  await journey('API reference at /docs renders under its CSP', async () => {
    const before = problems.length;
    const answer = await page.goto(`${base}/docs/`);
    const csp = answer.headers()['content-security-policy'] || '';
    expect(csp.includes("frame-ancestors 'none'"), `/docs/ CSP: ${csp}`);
    expect(answer.headers()['x-content-type-options'] === 'nosniff', '/docs/ nosniff');
    await page.locator('.opblock').first().waitFor();
    const operations = await page.locator('.opblock').count();
    expect(operations > 20, `only ${operations} operations shown`);
    // An operation opens with its parameters and responses.
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock .responses-wrapper').first().waitFor();
    await sleep(300);
    await shot('docs', { full: false });
    expect(problems.length === before, problems.slice(before).join('\n'));
  });

  /**
   * A webhook receiver on this machine: records each request (path,
   * headers, body) and answers 204, or 500 on paths ending in /fail.
   */
  async function startReceiver() {
    const received = [];
    const srv = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ path: req.url, headers: req.headers, body, json: JSON.parse(body || 'null') });
        res.writeHead(req.url.endsWith('/fail') ? 500 : 204);
        res.end();
      });
    });
    await new Promise((r) => srv.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${srv.address().port}/hooks`, received, close: () => new Promise((r) => srv.close(r)) };
  }

  /** Whether a delivery carries a Standard Webhooks signature by `secret`. */
  function signedBy(delivery, secret) {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const { 'webhook-id': id, 'webhook-timestamp': at, 'webhook-signature': signatures } = delivery.headers;
    const expected = `v1,${createHmac('sha256', key).update(`${id}.${at}.${delivery.body}`).digest('base64')}`;
    return String(signatures || '').split(' ').includes(expected);
  }

  await journey('webhooks: create, test, see the delivery, replay, rotate, edit, delete', async () => {
    const receiver = await startReceiver();
    const url = receiver.url;
    const tests = () => receiver.received.filter((r) => r.json?.type === 'webhook.test' && r.path === '/hooks');
    try {
      await visit('/webhooks');
      expect((await heading()) === 'Webhooks', `heading: ${await heading()}`);
      await page.getByRole('link', { name: 'Webhooks' }).waitFor();
      await page.getByText('No webhook endpoints yet.').waitFor();
      await page.getByRole('button', { name: 'New endpoint' }).click();
      await page.getByLabel('URL', { exact: true }).fill(url);
      await page.getByLabel('Note').fill('CRM');
      // No event chosen: the form says so before asking the server.
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByText('Choose at least one event.').waitFor();
      await page.getByLabel('A video is newly tracked').check();
      // The server's refusal points at the field.
      await page.getByLabel('URL', { exact: true }).fill('ftp://hooks.example.test/x');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.locator('.form-status .alert-error', { hasText: 'url' }).waitFor();
      expect((await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')) === 'true', 'the URL marked invalid');
      await page.getByLabel('URL', { exact: true }).fill(url);
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.locator('#new-webhook-secret').waitFor();
      const secret = (await page.locator('#new-webhook-secret').textContent()).trim();
      expect(/^whsec_[A-Za-z0-9+/=]{20,}$/.test(secret), `the secret shown once: ${secret}`);
      await page.getByRole('button', { name: 'Copy secret' }).waitFor();
      const row = page.locator('tbody tr', { hasText: url });
      await row.getByText('Enabled').waitFor();
      await row.getByText('None yet').waitFor();
      expect((await row.locator('code.tag').allTextContents()).join(' ') === 'video.tracked', 'the events listed');
      await checkA11y('webhooks (created)');
      await shot('webhooks');
      // The secret is not shown again.
      await visit('/webhooks');
      expect((await page.locator('#new-webhook-secret').count()) === 0, 'the secret is gone after a reload');
      const listed = await apiFetch('GET', '/organizations/webhooks');
      expect(!JSON.stringify(listed.body).includes(secret), 'the list never holds the secret');

      // A test from the list, received and signed by the secret.
      await page.getByRole('button', { name: `Send test: ${url}`, exact: true }).click();
      await page.locator('.action-status .alert-ok', { hasText: `Test event queued for ${url}.` }).waitFor();
      const first = await waitFor('the test at the receiver', () => tests()[0]);
      expect(signedBy(first, secret), `signature: ${JSON.stringify(first.headers)}`);
      await waitFor('the last delivery in the list', async () => {
        await visit('/webhooks');
        return (await page.locator('tbody tr', { hasText: url }).getByText('Delivered').count()) === 1;
      }, 15000, 1000);

      // The endpoint's page: its delivery, replayed with the same webhook-id.
      await page.getByRole('link', { name: url, exact: true }).click();
      await page.waitForURL(/\/webhooks\/[0-9a-f-]{36}$/);
      await settled();
      expect((await heading()) === `Endpoint ${new URL(url).host}`, `heading: ${await heading()}`);
      const log = page.locator('tbody tr', { hasText: 'webhook.test' });
      await log.first().locator('.badge-delivered').waitFor();
      expect((await log.first().locator('td').allTextContents()).includes('204'), 'the response code shown');
      await page.getByRole('button', { name: /^Replay webhook\.test queued / }).first().click();
      await page.locator('.action-status .alert-ok', { hasText: 'webhook.test queued again.' }).waitFor();
      await waitFor('the replay at the receiver', () => tests().length === 2);
      expect(tests()[1].headers['webhook-id'] === first.headers['webhook-id'], 'a replay keeps the webhook-id');
      await waitFor('both deliveries shown delivered', async () => (await page.locator('tbody tr .badge-delivered').count()) === 2, 15000);
      await checkA11y('webhook endpoint');
      await shot('webhook');

      // Rotation: the new secret once, the overlap told; deliveries carry both signatures.
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByText('The signing secret was rotated.').waitFor();
      const rotated = (await page.locator('#new-webhook-secret').textContent()).trim();
      expect(rotated.startsWith('whsec_') && rotated !== secret, 'a new secret');
      await page.getByText(/every delivery carries two signatures/).waitFor();
      await page.getByText(/^Still signs beside the new one until /).waitFor();
      await shot('webhook-rotated');
      await page.getByRole('button', { name: `Send test: ${url}`, exact: true }).click();
      const third = await waitFor('the test after the rotation', () => tests()[2]);
      expect(signedBy(third, rotated) && signedBy(third, secret), `both signatures: ${third.headers['webhook-signature']}`);

      // Edit the events; the details follow.
      await page.getByLabel('A video reached 1k, 10k, 100k, 1M or 10M views').check();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Endpoint saved.').waitFor();
      const events = await page.locator('.facts code.tag').allTextContents();
      expect(events.join(' ') === 'video.tracked video.milestone', `events: ${events}`);

      // At phone width the page does not scroll sideways (the log's table does).
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await visit(new URL(page.url()).pathname);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow <= 1, `the endpoint's page scrolls sideways by ${overflow}px`);
        await shot('phone-webhook');
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }

      // Replay since a day ago: every subscribed event of the day, counted.
      await page.getByRole('button', { name: 'Replay events' }).click();
      await page.locator('.action-status .alert-ok', { hasText: /^\d+ deliver(y|ies) since .* queued\.$/ }).waitFor();

      // The status filter.
      await page.getByLabel('Status', { exact: true }).selectOption('failed');
      await page.getByText('No deliveries with this status.').waitFor();
      await page.getByLabel('Status', { exact: true }).selectOption('');

      // Disable and enable again.
      await page.getByRole('button', { name: `Disable: ${url}`, exact: true }).click();
      await page.locator('.facts .badge-webhook-off', { hasText: 'Disabled' }).waitFor();
      await page.getByRole('button', { name: `Enable: ${url}`, exact: true }).click();
      await page.locator('.facts .badge-webhook-on', { hasText: 'Enabled' }).waitFor();

      // A receiver that fails: the answer's code, the attempt and the next one.
      const failing = await apiFetch('POST', '/organizations/webhooks', { url: `${url}/fail`, events: ['video.tracked'] });
      expect(failing.status === 201, `create: ${JSON.stringify(failing.body)}`);
      await apiFetch('POST', `/organizations/webhooks/${failing.body.data.id}/test`);
      await visit(`/webhooks/${failing.body.data.id}`);
      const attempt = page.locator('tbody tr', { hasText: 'webhook.test' }).first();
      await attempt.locator('td', { hasText: /^500$/ }).waitFor({ timeout: 20000 });
      await attempt.getByText(/^Next attempt /).waitFor();
      await attempt.getByText('Pending').waitFor();
      await shot('webhook-failing');
      await page.getByRole('button', { name: `Delete: ${url}/fail`, exact: true }).click();
      await page.waitForURL(`${base}/webhooks`);
      await settled();
      await page.locator('.toast', { hasText: `Endpoint ${url}/fail deleted.` }).waitFor();

      // Delete from the list, after a confirm that names it.
      const asked = [];
      const onDialog = (d) => asked.push(d.message());
      page.on('dialog', onDialog);
      try {
        await page.getByRole('button', { name: `Delete: ${url}`, exact: true }).click();
        await page.locator('.action-status .alert-ok', { hasText: `Endpoint ${url} deleted.` }).waitFor();
      } finally {
        page.off('dialog', onDialog);
      }
      expect(asked.length === 1 && asked[0].includes(url), `confirm: ${asked}`);
      await page.getByText('No webhook endpoints yet.').waitFor();
      // In German.
      await apiFetch('PUT', '/organizations/user/language', { language: 'de' });
      try {
        await visit('/webhooks');
        await page.getByText('Noch keine Webhook-Endpunkte.').waitFor();
        await page.getByRole('button', { name: 'Neuer Endpunkt' }).click();
        await page.getByLabel('Ein Video wird neu verfolgt').waitFor();
      } finally {
        await apiFetch('PUT', '/organizations/user/language', { language: 'en' });
      }
    } finally {
      await receiver.close();
    }
  });

  await journey('webhooks: members who are not admins are told who manages them', async () => {
    const saved = await context.cookies();
    const printed = JSON.parse(await admin('create-user', '--email', 'hook-viewer@example.test', '--org', orgId, '--role', 'viewer', '--app-url', base));
    try {
      await context.clearCookies();
      const link = new URL(printed.set_password_url);
      await visit(link.pathname + link.search);
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByLabel('Repeat the password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.waitForURL(`${base}/videos`);
      await settled();
      expect((await page.getByRole('link', { name: 'Webhooks' }).count()) === 0, 'no Webhooks entry in the navigation');
      await visit('/webhooks');
      await page.getByText('Only admins and owners see and manage webhooks').waitFor();
      expect((await page.getByRole('button', { name: 'New endpoint' }).count()) === 0, 'no New endpoint button');
      await checkA11y('webhooks (viewer)');
      await shot('webhooks-viewer');
      const refused = await apiFetch('GET', '/organizations/webhooks');
      expect(refused.status === 403, `the API refuses a viewer: ${refused.status}`);
    } finally {
      await context.clearCookies();
      await context.addCookies(saved);
      await page.evaluate((id) => localStorage.setItem('vidpulse.organization', id), orgId);
    }
  });

  // ---- issue 38: a campaign's share link for a client.

  let shareUrl;
  await journey('share a campaign with a client, copy the link once, see its views', async () => {
    // A campaign of its own, with known numbers: 300 flat + 10 per 1,000 of 2,000 views.
    const imported = await importStats('share.csv', [
      `tiktok,7400000000000000011,${at(D0, '10:00:00')},1000,100,10,0,0,share.a,Share A`,
      `tiktok,7400000000000000011,${at(dayOffset(-58), '10:00:00')},5000,300,30,5,5,share.a,Share A`,
      `tiktok,7400000000000000012,${at(dayOffset(-59), '10:00:00')},2000,50,5,0,0,share.b,Share B`,
      `tiktok,7400000000000000012,${at(dayOffset(-57), '10:00:00')},4000,150,15,5,5,share.b,Share B`,
    ]);
    expect(imported.snapshots_imported === 4, `import: ${JSON.stringify(imported)}`);
    const made = await apiFetch('POST', '/dashboard/campaigns', { name: 'Client share', client: 'Acme', starts_on: D0, ends_on: dayOffset(-51), budget: 1000, target_views: 12000, notes: 'Internal: renegotiate fee' });
    expect(made.status === 201, `create: ${JSON.stringify(made.body)}`);
    const campaign = made.body.data;
    for (const [ext, body] of [['7400000000000000011', { campaign: 'Client share', budget: 300 }], ['7400000000000000012', { campaign: 'Client share', ecpm: 10 }]]) {
      const v = await videoOf(ext);
      const r = await apiFetch('PATCH', `/dashboard/videos/${v.video_id}`, body);
      expect(r.status === 200, `PATCH: ${JSON.stringify(r.body)}`);
    }
    await visit(`/campaigns/${campaign.id}`);
    const panel = page.locator('section', { hasText: 'Share with a client' });
    await panel.getByText('No link yet.').waitFor();
    await panel.getByLabel('Label').fill('Acme weekly call');
    await panel.getByRole('button', { name: 'Create link' }).click();
    const url = panel.locator('#share-url');
    await url.waitFor();
    shareUrl = await url.inputValue();
    expect(shareUrl.startsWith(`${base}/share/vpshare_`), `the link: ${shareUrl}`);
    await panel.getByRole('button', { name: 'Copy link' }).click();
    const row = panel.locator('table tbody tr', { hasText: 'Acme weekly call' });
    await row.waitFor();
    expect((await row.textContent()).includes('Active'), `row: ${await row.textContent()}`);
    // The list never shows the link again.
    const listed = await apiFetch('GET', `/dashboard/campaigns/${campaign.id}/share-links`);
    expect(!JSON.stringify(listed.body).includes('vpshare_'), 'the list shows no token');
    await checkA11y('campaign with its share panel');
    await shot('share-panel');
    // Opened signed out, the page counts a view.
    await signedOut(async () => {
      await page.goto(shareUrl);
      await settled();
      await page.locator('#shared-views').waitFor();
    });
    await visit(`/campaigns/${campaign.id}`);
    await waitFor('the view counted', async () => {
      const cells = await page.locator('section', { hasText: 'Share with a client' }).locator('table tbody tr', { hasText: 'Acme weekly call' }).locator('td').allTextContents();
      return cells.some((c) => c.trim() === '1');
    });
  });

  await journey('the shared page: signed out, no spend, no notes, phone width, print', async () => {
    expect(shareUrl, 'a link from the journey before');
    await signedOut(async () => {
      const answer = await page.goto(shareUrl);
      expect(answer.status() === 200, `status ${answer.status()}`);
      const headers = answer.headers();
      expect(headers['x-robots-tag'] === 'noindex, nofollow', `X-Robots-Tag: ${headers['x-robots-tag']}`);
      expect(headers['referrer-policy'] === 'no-referrer', `Referrer-Policy: ${headers['referrer-policy']}`);
      expect((headers['content-security-policy'] || '').includes("frame-ancestors 'none'"), 'the app\'s CSP');
      await settled();
      expect((await heading()) === 'Client share', `heading: ${await heading()}`);
      expect(await page.locator('#app-header').isHidden(), 'no navigation or sign-in');
      const text = await page.locator('main').textContent();
      expect(text.includes('Acme') && text.includes('6,000'), `headline: ${text.slice(0, 400)}`);
      for (const hidden of ['Internal: renegotiate', '$320', 'Budget left', 'CPM', 'Money check', 'Summer launch']) {
        expect(!text.includes(hidden), `the page shows “${hidden}”`);
      }
      const creators = await page.locator('section', { hasText: 'Creators' }).locator('table tbody tr').allTextContents();
      expect(creators.length === 2 && creators[0].includes('@share.a'), `creators: ${creators}`);
      const top = await page.locator('section', { hasText: 'Top videos' }).locator('table tbody tr').allTextContents();
      expect(top.length === 2 && top[0].includes('Share A'), `top videos: ${top}`);
      await checkA11y('shared page');
      await shot('shared');
      // The CSV: the server's, without the money.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /^Download CSV/ }).click()]);
      const csvText = await readFile(await download.path(), 'utf8');
      expect(csvText.includes('share.a') && !csvText.includes('spend') && !csvText.includes('campaign_id'), `shared CSV: ${csvText.slice(0, 300)}`);
      // Another period: the address keeps it.
      await page.getByLabel('From').fill(dayOffset(-59));
      await page.getByRole('button', { name: 'Show' }).click();
      await settled();
      await page.waitForURL(/from=/);
      // Phone width: nothing scrolls sideways.
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.reload();
        await settled();
        await page.locator('#shared-views').waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow <= 1, `the shared page scrolls sideways by ${overflow}px`);
        await checkA11y('shared page on a phone');
        await shot('shared');
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }
      // Print: no picker, no buttons, every table whole.
      await page.emulateMedia({ media: 'print' });
      try {
        expect(await page.locator('.period-form').isHidden(), 'the picker is not printed');
        expect((await page.locator('main button:visible').count()) === 0, 'no button is printed');
        expect(await page.locator('.print-only table').first().isVisible(), 'the days\' table is printed');
        await shot('shared-print');
        await page.pdf({ path: path.join(shotDir, `${backend}-shared.pdf`), format: 'A4', printBackground: true });
      } finally {
        await page.emulateMedia({ media: 'screen' });
      }
    });
  });

  await journey('a revoked link opens nothing', async () => {
    expect(shareUrl, 'a link from the journey before');
    const campaigns = await apiFetch('GET', '/dashboard/campaigns?q=Client%20share');
    const id = campaigns.body.data[0].id;
    await visit(`/campaigns/${id}`);
    const panel = page.locator('section', { hasText: 'Share with a client' });
    const asked = [];
    const onDialog = (d) => asked.push(d.message());
    page.on('dialog', onDialog);
    try {
      await panel.getByRole('button', { name: 'Revoke “Acme weekly call”' }).click();
      await page.locator('.toast', { hasText: 'Link revoked.' }).waitFor();
    } finally {
      page.off('dialog', onDialog);
    }
    expect(asked.length === 1 && asked[0].includes('Acme weekly call'), `confirm: ${asked}`);
    await panel.locator('table tbody tr', { hasText: 'Revoked' }).waitFor();
    await signedOut(async () => {
      const messages = [];
      const onConsole = (m) => messages.push(m);
      page.on('console', onConsole);
      let answer;
      try {
        answer = await page.goto(shareUrl);
        await settled();
        await page.getByRole('heading', { level: 1, name: 'This link does not work' }).waitFor();
      } finally {
        page.off('console', onConsole);
      }
      expect(answer.status() === 404, `status ${answer.status()}`);
      const text = await page.locator('main').textContent();
      expect(!text.includes('Client share') && !text.includes('Acme'), `the page names nothing: ${text}`);
      await checkA11y('revoked link');
      await shot('shared-revoked');
      // The page's own 404 and its report's are the answers the link must have.
      const logged = messages.filter((m) => !/status of 404/.test(m.text()));
      expect(!logged.length, logged.map((m) => m.text()).join('; '));
    });
  });

  await journey('alerts: create, list, edit, firings, delete', async () => {
    await visit('/alerts');
    expect((await heading()) === 'Alerts', `heading: ${await heading()}`);
    await page.getByLabel('Name', { exact: true }).fill('Viral videos');
    await page.getByLabel('Kind', { exact: true }).selectOption('views_milestone');
    // Thresholds out of order: refused, the field named.
    await page.getByLabel('Thresholds', { exact: true }).fill('100000, 10000');
    await page.locator('#alert-form .checks input').first().check();
    await page.getByLabel('Slack webhook URL').fill('https://hooks.slack.com/services/T000/B000/abcdWXYZ');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.locator('#alert-form [role="alert"]').waitFor();
    expect((await page.locator('#alert-form [role="alert"]').textContent()).includes('thresholds'), 'the thresholds are named');
    await page.getByLabel('Thresholds', { exact: true }).fill('10000, 100000');
    await checkA11y('alerts (new rule form)');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.locator('.toast', { hasText: 'Rule “Viral videos” created.' }).waitFor();
    const row = page.locator('#alert-rules table tbody tr', { hasText: 'Viral videos' });
    await row.waitFor();
    const text = await row.textContent();
    expect(text.includes('…WXYZ') && !text.includes('abcdWXYZ'), `the chat URL masked: ${text}`);
    expect(text.includes('10,000') && text.includes('Never'), `thresholds, never fired: ${text}`);
    // Edit: switched off; the masked URL kept as saved.
    await page.getByRole('button', { name: 'Edit “Viral videos”' }).click();
    await page.getByLabel('Enabled', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.locator('.toast', { hasText: 'Rule “Viral videos” saved.' }).waitFor();
    await row.getByText('Off', { exact: true }).waitFor();
    const saved = await apiFetch('GET', '/dashboard/alerts');
    expect(saved.body.data[0].channels.some((c) => c.url === 'https://hooks.slack.com/…WXYZ'), JSON.stringify(saved.body.data[0].channels));
    // Its firings: none yet.
    await row.getByRole('button', { name: 'Firings' }).click();
    await page.getByText('This rule has not fired yet.').waitFor();
    await checkA11y('alerts');
    await shot('alerts');
    // Delete, after a confirm that names it.
    const asked = [];
    const onDialog = (d) => asked.push(d.message());
    page.on('dialog', onDialog);
    try {
      await page.getByRole('button', { name: 'Delete “Viral videos”' }).click();
      await page.locator('.toast', { hasText: 'Rule “Viral videos” deleted.' }).waitFor();
    } finally {
      page.off('dialog', onDialog);
    }
    expect(asked.length === 1 && asked[0].includes('Viral videos'), `confirm: ${asked}`);
    await page.getByText('No alert rules yet.').waitFor();
  });

  await journey('alerts: a rule fires once and its firing is shown', async () => {
    // A "video unavailable" rule, then a video the simulated TikTok reports
    // gone (its id cannot exist there): the worker's next pass fires it once.
    await visit('/alerts');
    await page.getByLabel('Name', { exact: true }).fill('Gone videos');
    await page.getByLabel('Kind', { exact: true }).selectOption('video_unavailable');
    await page.locator('#alert-form .checks input').first().check();
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.locator('.toast', { hasText: 'Rule “Gone videos” created.' }).waitFor();
    // A test message first: sent to the member now, no firing recorded.
    await page.getByRole('button', { name: 'Send test of “Gone videos”' }).click();
    await page.locator('.toast', { hasText: /Test of “Gone videos”: E-mail to \S+@example\.test: sent/ }).waitFor();
    const rules = await apiFetch('GET', '/dashboard/alerts');
    const rule = rules.body.data.find((r) => r.name === 'Gone videos');
    const url = 'https://www.tiktok.com/@gone.test/video/99999999999999999999';
    const tracked = await apiFetch('POST', '/dashboard/videos/track', { urls: [url] });
    expect(tracked.status === 200, `track: ${JSON.stringify(tracked.body)}`);
    const events = await waitFor('the rule to fire', async () => {
      const e = await apiFetch('GET', `/dashboard/alerts/${rule.id}/events`);
      return e.body?.data?.length ? e.body.data : null;
    }, 150000, 2000);
    expect(events.length === 1 && events[0].threshold === 'unavailable', JSON.stringify(events));
    await waitFor('its e-mail sent', async () => {
      const e = await apiFetch('GET', `/dashboard/alerts/${rule.id}/events`);
      return e.body.data[0].sends.every((x) => x.status === 'sent');
    }, 90000, 2000);
    await visit('/alerts');
    const row = page.locator('#alert-rules table tbody tr', { hasText: 'Gone videos' });
    await row.waitFor();
    expect(!(await row.textContent()).includes('Never'), `last fired shown: ${await row.textContent()}`);
    await row.getByRole('button', { name: 'Firings' }).click();
    const firing = page.locator('#alert-events table tbody tr');
    await firing.first().waitFor();
    expect((await firing.count()) === 1, `one firing: ${await firing.count()}`);
    const text = await firing.first().textContent();
    expect(text.includes('Unavailable') && /E-mail to \S+@example\.test: sent/.test(text), `the firing and where it was sent: ${text}`);
    await checkA11y('alerts (a firing)');
    await shot('alerts-firing');
    // Untracked and deleted, so later journeys see the catalog as before.
    const gone = tracked.body.data.results[0].video_id;
    await apiFetch('DELETE', `/dashboard/alerts/${rule.id}`);
    await apiFetch('DELETE', `/dashboard/videos/${gone}`);
  });

  await journey('recaps: subscribe, change, stop; a Slack channel recap; a viewer; a free plan; phone; German', async () => {
    const made = await apiFetch('POST', '/dashboard/campaigns', { name: 'Recap launch' });
    expect(made.status === 201, `campaign: ${JSON.stringify(made.body)}`);
    const ok = (text) => page.locator('.action-status .alert-ok', { hasText: text }).waitFor();
    await visit('/recaps');
    expect((await heading()) === 'Recaps', `heading: ${await heading()}`);
    await page.getByRole('link', { name: 'Recaps' }).waitFor();
    await page.getByText('You get no recaps yet.').waitFor();
    await page.getByText('No channel gets recaps yet.').waitFor();
    await page.getByText(`E-mailed to ${OWNER}, in your language.`).waitFor();

    // A daily recap of the organization and a weekly one of a campaign.
    await page.locator('#recap-frequency').selectOption('daily');
    await page.getByRole('button', { name: 'Add recap', exact: true }).click();
    await ok('Recap added: Whole organization, Daily.');
    await page.locator('#recap-frequency').selectOption('weekly');
    await page.locator('#recap-scope').selectOption({ label: 'Recap launch' });
    await page.getByRole('button', { name: 'Add recap', exact: true }).click();
    await ok('Recap added: Recap launch, Weekly.');
    await page.getByRole('combobox', { name: 'Frequency: Whole organization, Daily', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Frequency: Recap launch, Weekly', exact: true }).waitFor();
    // The same one again: the page says it is there already.
    await page.locator('#recap-frequency').selectOption('daily');
    await page.locator('#recap-scope').selectOption('');
    await page.getByRole('button', { name: 'Add recap', exact: true }).click();
    await ok('You already get this recap: Whole organization, Daily.');

    // Change one: the campaign's recap becomes daily.
    await page.getByRole('combobox', { name: 'Frequency: Recap launch, Weekly', exact: true }).selectOption('daily');
    await ok('Recap changed: Recap launch, Daily.');
    await page.getByRole('combobox', { name: 'Frequency: Recap launch, Daily', exact: true }).waitFor();
    // Stop the other, after a confirm that names it.
    const asked = [];
    const onDialog = (d) => asked.push(d.message());
    page.on('dialog', onDialog);
    try {
      await page.getByRole('button', { name: 'Stop: Whole organization, Daily', exact: true }).click();
      await ok('Recap stopped: Whole organization, Daily.');
    } finally {
      page.off('dialog', onDialog);
    }
    expect(asked.length === 1 && asked[0].includes('Whole organization, Daily'), `confirm: ${asked}`);
    let stored = await apiFetch('GET', '/dashboard/recaps');
    const mine = stored.body.data.filter((r) => r.delivery === 'email');
    expect(mine.length === 1 && mine[0].campaign_id === made.body.data.id && mine[0].frequency === 'daily' && mine[0].email === OWNER, `stored: ${JSON.stringify(stored.body.data)}`);

    // A channel recap to Slack: shown masked, never in full.
    const hook = 'https://hooks.slack.com/services/T000/B000/XXXX';
    await page.getByRole('button', { name: 'Add channel recap' }).click();
    await page.getByText("Enter the channel's webhook URL.").waitFor();
    await page.locator('#channel-recap-service').selectOption('slack');
    await page.locator('#channel-recap-frequency').selectOption('weekly');
    await page.getByLabel('Incoming-webhook URL').fill(hook);
    await page.getByRole('button', { name: 'Add channel recap' }).click();
    const masked = 'https://hooks.slack.com/…XXXX';
    await ok(`Recap added: Slack ${masked}, Whole organization, Weekly.`);
    const row = page.locator('tbody tr', { hasText: masked });
    await row.getByText('Slack', { exact: true }).waitFor();
    expect(!(await page.locator('main').textContent()).includes('T000/B000'), 'the full chat URL is never shown');
    stored = await apiFetch('GET', '/dashboard/recaps');
    expect(!JSON.stringify(stored.body).includes('T000/B000'), 'the API masks the chat URL');
    // A new URL for it.
    await row.getByRole('button', { name: /^Change URL: / }).click();
    await page.locator('#channel-recap-new-url').fill('https://hooks.slack.com/services/T000/B000/YYYY');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await ok('Recap changed: Slack https://hooks.slack.com/…YYYY, Whole organization, Weekly.');
    await checkA11y('recaps');
    await shot('recaps');

    // A viewer sees the channel recaps but no controls for them, and gets e-mail recaps of their own.
    const saved = await context.cookies();
    const printed = JSON.parse(await admin('create-user', '--email', 'recap-viewer@example.test', '--org', orgId, '--role', 'viewer', '--app-url', base));
    try {
      await context.clearCookies();
      const link = new URL(printed.set_password_url);
      await visit(link.pathname + link.search);
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByLabel('Repeat the password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.waitForURL(`${base}/videos`);
      await settled();
      await page.getByRole('link', { name: 'Recaps' }).click();
      await page.waitForURL(`${base}/recaps`);
      await settled();
      await page.locator('tbody tr', { hasText: 'https://hooks.slack.com/…YYYY' }).waitFor();
      await page.getByText('Editors and above add, change and stop them.', { exact: false }).waitFor();
      expect((await page.getByRole('button', { name: 'Add channel recap' }).count()) === 0, 'no channel form for a viewer');
      expect((await page.getByRole('button', { name: /^(Stop|Change URL): Slack/ }).count()) === 0, 'no channel buttons for a viewer');
      expect((await page.locator('tbody tr', { hasText: 'hooks.slack.com' }).locator('select').count()) === 0, 'no channel selects for a viewer');
      await page.getByText('You get no recaps yet.').waitFor();
      await page.getByRole('button', { name: 'Add recap', exact: true }).click();
      await ok('Recap added: Whole organization, Daily.');
      await checkA11y('recaps (viewer)');
      await shot('recaps-viewer');
    } finally {
      await context.clearCookies();
      await context.addCookies(saved);
      await page.evaluate((id) => localStorage.setItem('vidpulse.organization', id), orgId);
    }

    // On a free plan the refusal says what lifts it, as on other pages.
    const free = JSON.parse(await admin('create-user', '--email', 'free-owner@example.test', '--org', 'Free Co', '--app-url', base));
    try {
      await context.clearCookies();
      await page.evaluate(() => localStorage.removeItem('vidpulse.organization'));
      const link = new URL(free.set_password_url);
      await visit(link.pathname + link.search);
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByLabel('Repeat the password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.waitForURL(`${base}/videos`);
      await settled();
      await visit('/recaps');
      await page.getByRole('button', { name: 'Add recap', exact: true }).click();
      const refusal = page.locator('.recap-form .plan-refusal');
      await refusal.locator('code.command', { hasText: `vidpulse admin set-plan --org ${free.organization_id} --plan pro` }).waitFor();
      await page.getByText('You get no recaps yet.').waitFor();
      await shot('recaps-free');
    } finally {
      await context.clearCookies();
      await context.addCookies(saved);
      await page.evaluate((id) => localStorage.setItem('vidpulse.organization', id), orgId);
    }

    // At phone width the page does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await visit('/recaps');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow <= 1, `the recaps page scrolls sideways by ${overflow}px`);
      await shot('phone-recaps-listed');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    // In German.
    await apiFetch('PUT', '/organizations/user/language', { language: 'de' });
    try {
      await visit('/recaps');
      expect((await heading()) === 'Rückblicke', `German heading: ${await heading()}`);
      await page.getByRole('heading', { name: 'Ihre Rückblicke' }).waitFor();
      await page.getByRole('combobox', { name: 'Häufigkeit: Recap launch, Täglich', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Kanal-Rückblick hinzufügen' }).waitFor();
      await checkA11y('recaps (German)');
      await shot('recaps-de');
    } finally {
      await apiFetch('PUT', '/organizations/user/language', { language: 'en' });
    }
  });

  await journey('no console errors or CSP violations', async () => {
    expect(problems.length === 0, problems.join('\n'));
  });

  exitCode = results.every((r) => r.ok) ? 0 : 1;
} catch (e) {
  log(`stopped: ${e.stack || e.message}`);
  if (serverLog) log(`server log (last lines):\n${serverLog.split('\n').slice(-30).join('\n')}`);
} finally {
  if (browserContext) await browserContext.close().catch(() => {});
  await stopServer();
  await rm(work, { recursive: true, force: true }).catch(() => {});
}

const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
log(`screenshots: ${shotDir}`);
console.log(`e2e (${backend}): ${passed} passed, ${failed} failed`);
if (failed === 0 && exitCode === 0) console.log(`e2e: ${passed} journeys passed`);
process.exit(failed ? 1 : exitCode);
