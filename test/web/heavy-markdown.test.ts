// Finding L8 (security review, round 3): adversarial Markdown must not freeze a viewer's page. A channel of 42 posts of
// the review's payloads (`a_a_…`, `1. 1. …`, `*a*a…`, ~16,000 characters each) used to take ~5 s to show, with a
// single main-thread task of ~2.7 s; posts nested thousands of levels deep made marked overflow its stack. Here, in
// Chromium against a real server: the longest main-thread task while such a channel opens (PerformanceObserver
// 'longtask') stays under a generous bound, each post shows a bounded preview with a "Show more" button (keyboard
// operable, aria-expanded) that renders the whole post on request, normal posts are untouched, and deeply nested
// posts render without a page error.
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';
import { describeBrowser, launchBrowser, openPage, screenshotPath, signIn, type WatchedPage } from '../support/browser';
import { PASSWORD, createWebWorld, type Caller, type WebWorld } from '../support/web-world';
import { eventually } from '../support/eventually';

let db: TestDatabase;
let server: ServerProcess;
let browser: Browser;
let world: WebWorld;

/** The review's three payloads, each ~16,000 characters; a distinct suffix per post. */
const PAYLOADS = ['a_'.repeat(8000), '1. '.repeat(5333), '*a'.repeat(8000)];
const HEAVY_POSTS = 42;
/** Nested thousands of levels deep: past ~2,700 levels marked's recursive lexer overflowed the stack. */
const DEEP = ['- * + '.repeat(2666), '> '.repeat(8000), '> - 1. '.repeat(2285), `${'**'.repeat(4000)}a${'**'.repeat(4000)}`];
/**
 * The longest main-thread task allowed while the heavy channel opens: 1 s (it was 2.7 s in the review, 23 s on this
 * suite's loaded 2-core machine), or, on a machine so loaded that opening a channel of as many normal posts takes long
 * tasks too, 3 times the longest of those.
 */
const LONGEST_TASK_MS = 1000;
const LOAD_FACTOR = 3;
const NORMAL = 'All clear: **normal** posts are shown whole.';
/** A long but ordinary post (under the preview bounds), for the reference channel. */
const QUIET = 'The **2.4 release** is planned for Thursday: code freeze at noon, QA sign-off, then `npm run deploy`. '.repeat(8);

/** Posts, waiting out a 429 should the server limit posting rates. */
async function post(who: Caller, channelId: string, message: string): Promise<void> {
  for (;;) {
    try {
      await who.post('/api/v4/posts', { channel_id: channelId, message });
      return;
    } catch (err) {
      if (!String(err).includes('→ 429')) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

describeBrowser('web client: adversarial Markdown (bounded render cost)', () => {
  let heavy: { id: string; name: string };
  let deep: { id: string; name: string };

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource });
    world = await createWebWorld(server.url);
    const { admin, alice, bob, team } = world;
    const channel = async (name: string) => {
      const ch = await admin.post<{ id: string; name: string }>('/api/v4/channels', { team_id: team.id, name, display_name: name, type: 'O' });
      for (const u of [alice, bob]) await admin.post(`/api/v4/channels/${ch.id}/members`, { user_id: u.id });
      return ch;
    };
    heavy = await channel('heavy');
    deep = await channel('deep');
    const quiet = await channel('quiet');
    for (let i = 0; i < HEAVY_POSTS; i++) await post(bob, heavy.id, `${PAYLOADS[i % PAYLOADS.length]} #${i}`);
    for (let i = 0; i <= HEAVY_POSTS; i++) await post(bob, quiet.id, `${QUIET} #${i}`);
    await post(bob, heavy.id, NORMAL);
    for (const [i, text] of DEEP.entries()) await post(bob, deep.id, `${text} deep-${i}`);
    browser = await launchBrowser();
  }, 180000);

  afterAll(async () => {
    await browser?.close();
    await server?.kill();
    await db?.drop();
  });

  const pages: WatchedPage[] = [];
  async function newPage(): Promise<Page> {
    const w = await openPage(browser);
    pages.push(w);
    return w.page;
  }
  afterEach(async () => {
    for (const w of pages.splice(0)) {
      expect(w.errors).toEqual([]);
      await w.context.close();
    }
  });

  const articles = (page: Page) => page.locator('.post-list article.post');

  test('a channel of 42 adversarial posts opens without a long freeze; each shows a bounded preview', async () => {
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD);
    // Every main-thread task over 50 ms from the start of each navigation (injected by the browser: the page's CSP
    // does not apply to it).
    await page.context().addInitScript(`window.__longTasks = [];
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration)); })
        .observe({ type: 'longtask', buffered: true });`);
    const open = async (name: string) => {
      await page.goto(`${server.url}/team-a/channels/${name}`);
      await eventually(async () => expect(await articles(page).count()).toBe(HEAVY_POSTS + 1), 60000, 50);
      const shownMs = Math.round((await page.evaluate('performance.now()')) as number);
      // Let whatever the page still does after the last post appeared finish, and be recorded.
      await page.waitForTimeout(500);
      const tasks = (await page.evaluate('window.__longTasks')) as number[];
      if (process.env.PARLEY_PRINT_FIGURES) {
        process.stderr.write(`${name} channel: all ${HEAVY_POSTS + 1} posts shown at ${shownMs} ms; long tasks ${JSON.stringify(tasks)}\n`);
      }
      return Math.max(0, ...tasks);
    };
    const reference = await open('quiet');
    const longest = await open('heavy');
    expect(longest).toBeLessThan(Math.max(LONGEST_TASK_MS, LOAD_FACTOR * reference));

    // Each adversarial post is a preview with its "Show more"; the normal post is whole, without one.
    await expect(page.getByRole('button', { name: 'Show more' }).count()).resolves.toBe(HEAVY_POSTS);
    const normal = articles(page).filter({ hasText: 'All clear' });
    await expect(normal.locator('strong').textContent()).resolves.toBe('normal');
    await expect(normal.getByRole('button').filter({ hasText: /Show (more|less)/ }).count()).resolves.toBe(0);
    // What a preview puts on the page is bounded: elements per message, and no suffix (the previews are cut).
    const sizes = (await page.evaluate(`[...document.querySelectorAll('.post__message')].map((m) => m.querySelectorAll('*').length)`)) as number[];
    expect(sizes).toHaveLength(HEAVY_POSTS + 1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1000);
    await expect(articles(page).filter({ hasText: '#41' }).count()).resolves.toBe(0);
    await page.screenshot({ path: screenshotPath('heavy-markdown-channel') });

    // "Show more" from the keyboard renders the whole post; "Show less" returns to the preview, focus staying put.
    const last = articles(page).nth(HEAVY_POSTS - 1);
    const toggle = last.locator('.markdown-toggle');
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await last.getByText('#41').waitFor();
    await expect(toggle.textContent()).resolves.toBe('Show less');
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
    const controlled = await toggle.getAttribute('aria-controls');
    await expect(last.locator(`[id="${controlled}"]`).count()).resolves.toBe(1);
    await page.keyboard.press('Space');
    await eventually(async () => expect(await last.getByText('#41').count()).toBe(0), 10000, 50);
    await expect(toggle.textContent()).resolves.toBe('Show more');
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Show more');
  });

  test('posts nested thousands of levels deep render (bounded nesting), without a page error', async () => {
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deep');
    await eventually(async () => expect(await articles(page).count()).toBe(DEEP.length), 30000, 50);
    await expect(page.getByRole('button', { name: 'Show more' }).count()).resolves.toBe(DEEP.length);
    const depth = `Math.max(...[...document.querySelectorAll('.post__message *')].map((el) => { let d = 0; for (let p = el; p && !p.classList.contains('post__message'); p = p.parentElement) d++; return d; }))`;
    expect((await page.evaluate(depth)) as number).toBeLessThanOrEqual(32);
    // In full, each is still rendered as Markdown (lists, quotes), nested no deeper than the bound.
    for (let i = 0; i < DEEP.length; i++) {
      await articles(page).nth(i).getByRole('button', { name: 'Show more' }).click();
      await articles(page).nth(i).getByText(`deep-${i}`).waitFor();
    }
    expect((await page.evaluate(depth)) as number).toBeLessThanOrEqual(32);
    await expect(page.locator('.post__message .markdown-plain').count()).resolves.toBe(0);
    await expect(page.locator('.post__message li').count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('.post__message blockquote').count()).resolves.toBeGreaterThan(0);
  });
});
