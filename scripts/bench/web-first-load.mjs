// `npm run bench:web` (after a build): how long the browser client takes to show a channel's first posts, measured
// in Chromium with the client's own performance mark `parley:first-posts` (set when the first page of posts is in
// the DOM), on a local server whose channel holds 10,000 posts (SQLite).
//
//   node scripts/bench/web-first-load.mjs [--posts=10000] [--runs=7]
//
// Each run is a fresh navigation of a signed-in tab to /{team}/channels/{channel}: "cold" with an empty HTTP cache
// (a new browser context each time), "warm" reloading the same tab (hashed assets come from the cache). Figures are
// medians, in ms from navigation start. Needs Chromium (CHROME_PATH or chromium-headless-shell).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, log, median, spawnParley } from './lib.mjs';
import { seedPosts } from './seed.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const a = argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : fallback;
};
const POSTS = Number(option('posts', 10_000));
const RUNS = Number(option('runs', 7));
const PASSWORD = 'Passw0rd!bench';
const chrome = [process.env.CHROME_PATH, '/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => p && existsSync(p));
if (!chrome) throw new Error('No Chromium: apt-get install --no-install-recommends chromium-headless-shell, or set CHROME_PATH');
if (!existsSync(join(ROOT, 'dist', 'web', 'index.html'))) throw new Error('dist/web is missing: run npm run build first');

async function call(url, method, body, token) {
  const res = await fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return { body: await res.json(), token: res.headers.get('Token') };
}

const dir = mkdtempSync(join(os.tmpdir(), 'parley-web-bench-'));
const dataSource = join(dir, 'parley.db');
let server = await spawnParley('parley', { driver: 'sqlite', dataSource });
const { body: user } = await call(`${server.url}/api/v4/users`, 'POST', { username: 'bench', email: 'bench@example.com', password: PASSWORD });
const { token } = await call(`${server.url}/api/v4/users/login`, 'POST', { login_id: 'bench', password: PASSWORD });
const { body: team } = await call(`${server.url}/api/v4/teams`, 'POST', { name: 'bench', display_name: 'Bench', type: 'O' }, token);
const { body: channel } = await call(`${server.url}/api/v4/channels`, 'POST', { team_id: team.id, name: 'history', display_name: 'History', type: 'O' }, token);
await server.stop();
await seedPosts({ driver: 'sqlite', dataSource, channelId: channel.id, userId: user.id, count: POSTS, label: 'history' });
server = await spawnParley('parley', { driver: 'sqlite', dataSource });

const browser = await chromium.launch({ executablePath: chrome });
const path = `/${team.name}/channels/${channel.name}`;

async function signedInContext() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/login`);
  await page.getByLabel('Email or username').fill('bench');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('.post-list[aria-busy="false"]').waitFor();
  return { context, page };
}

async function measure(page, reload) {
  if (reload) await page.reload();
  else await page.goto(`${server.url}${path}`);
  await page.waitForFunction(() => performance.getEntriesByName('parley:first-posts').length > 0, null, { timeout: 30000 });
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      firstPosts: performance.getEntriesByName('parley:first-posts')[0].startTime,
      script: performance.getEntriesByName('parley:script-start')[0]?.startTime ?? NaN,
      html: nav.responseEnd,
      posts: document.querySelectorAll('.post-list article.post').length,
      timeline: [
        ...performance.getEntriesByType('resource').map((r) => [r.startTime, r.responseEnd, r.name.replace(location.origin, '')]),
        ...performance.getEntriesByType('mark').map((m) => [m.startTime, m.startTime, m.name]),
      ]
        .sort((a, b) => a[0] - b[0])
        .map(([s, e, n]) => `${s.toFixed(0).padStart(5)} → ${e.toFixed(0).padStart(5)}  ${n}`),
    };
  });
}

const cold = [];
const warm = [];
// One throwaway navigation first: the server's statement caches and the OS file cache are not what is measured.
{
  const { context, page } = await signedInContext();
  await measure(page, false);
  for (let i = 0; i < RUNS; i++) warm.push(await measure(page, true));
  await context.close();
}
for (let i = 0; i < RUNS; i++) {
  const { context, page } = await signedInContext();
  // A new context with only the session cookie: clear the cache the login left behind.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  cold.push(await measure(page, false));
  await context.close();
}
await browser.close();
await server.stop();
rmSync(dir, { recursive: true, force: true });

const info = JSON.parse(readFileSync(join(ROOT, 'dist', 'web', 'build-info.json'), 'utf8'));
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
const fmt = (runs, key) => `${median(runs.map((r) => r[key])).toFixed(0)} ms`;
log(`web client first load, channel of ${POSTS.toLocaleString('en-US')} posts (SQLite, ${RUNS} runs each, medians from navigation start)`);
log(`  bundle: ${info.js} ${kb(info.bytes.js.gz)} + ${info.css} ${kb(info.bytes.css.gz)} gzipped`);
log(`  cold cache: first posts ${fmt(cold, 'firstPosts')} (HTML ${fmt(cold, 'html')}, script running ${fmt(cold, 'script')}), ${cold[0].posts} posts shown`);
log(`  warm cache: first posts ${fmt(warm, 'firstPosts')} (HTML ${fmt(warm, 'html')}, script running ${fmt(warm, 'script')})`);
if (argv.includes('--verbose')) log(`  last warm load:\n    ${warm[warm.length - 1].timeline.join('\n    ')}`);
