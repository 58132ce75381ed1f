#!/usr/bin/env node
// Measures the web app's first page against a running vidpulse on a large
// dataset: bytes transferred, first contentful paint, and when the videos
// table shows its first page, over several cold loads (a new browser context
// each: nothing cached).
//
//   node e2e/first-paint.mjs <base URL> <e-mail> <password> [runs]
//
// The account must exist with that password and belong to the organization
// to measure (`vidpulse admin create-user --email … --org <id>`, then set the
// password at the printed link, or let this script do it with
// SET_PASSWORD_URL=<link>). Prints one JSON line per load and a median line.

import { chromium } from 'playwright-core';

const [base, email, password, runsArg] = process.argv.slice(2);
if (!base || !email || !password) {
  console.error('usage: node e2e/first-paint.mjs <base URL> <e-mail> <password> [runs]');
  process.exit(2);
}
const runs = Number(runsArg || 9);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

async function signedInContext() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // Only the server under test: nothing else is reachable anyway.
  await context.route((url) => !url.href.startsWith(base), (route) => route.abort());
  const page = await context.newPage();
  if (process.env.SET_PASSWORD_URL) {
    const link = new URL(process.env.SET_PASSWORD_URL);
    const token = link.searchParams.get('token');
    await page.request.post(`${base}/auth/set-password`, { data: { token, password } });
    delete process.env.SET_PASSWORD_URL;
  }
  const answer = await page.request.post(`${base}/auth/sign-in`, { data: { email, password } });
  if (!answer.ok()) throw new Error(`sign-in: ${answer.status()} ${await answer.text()}`);
  return { context, page };
}

// Each load: a new browser context (`cold`: a fresh profile, nothing
// cached) or, with WARM=1, one signed-in tab reloading /videos with the HTTP
// cache disabled (the browser's own start-up left out).
const warm = process.env.WARM === '1';
const shared = warm ? await signedInContext() : null;
if (shared) {
  const cdp = await shared.context.newCDPSession(shared.page);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await shared.page.goto(`${base}/videos`);
}
const results = [];
for (let i = 0; i < runs; i++) {
  const { context, page } = shared || (await signedInContext());
  if (shared) await page.goto('about:blank');
  let bytes = 0;
  page.on('response', async (response) => {
    const length = Number((await response.allHeaders())['content-length'] || 0);
    bytes += length || (await response.body().catch(() => Buffer.alloc(0))).length;
  });
  const started = Date.now();
  await page.goto(`${base}/videos`, { waitUntil: 'commit' });
  await page.locator('a.title-link').first().waitFor({ timeout: 30000 });
  const tableMs = Date.now() - started;
  const timing = await page.evaluate(() => {
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const nav = performance.getEntriesByType('navigation')[0];
    return { fcp: paint ? paint.startTime : null, domContentLoaded: nav ? nav.domContentLoadedEventEnd : null };
  });
  const row = { run: i + 1, first_contentful_paint_ms: Math.round(timing.fcp), dom_content_loaded_ms: Math.round(timing.domContentLoaded), table_shown_ms: tableMs, bytes };
  console.log(JSON.stringify(row));
  results.push(row);
  page.removeAllListeners('response');
  if (!shared) await context.close();
}
await browser.close();

const median = (key) => {
  const values = results.map((r) => r[key]).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)];
};
console.log(
  JSON.stringify({
    median_first_contentful_paint_ms: median('first_contentful_paint_ms'),
    median_table_shown_ms: median('table_shown_ms'),
    median_bytes: median('bytes'),
    runs,
    mode: warm ? 'warm' : 'cold',
  }),
);
