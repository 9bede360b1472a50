// Accessibility of the main screens, checked in the browser with axe-core (WCAG 2.x A and AA rules: names of
// controls, colour contrast, landmarks, ARIA use), plus what axe cannot see: every icon-only button has a name that
// says what it does, and focus is visible.
import { readFileSync } from 'node:fs';
import { IncomingWebhook } from '@slack/webhook';
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';
import { describeBrowser, launchBrowser, openPage, signIn, type WatchedPage } from '../support/browser';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';

let db: TestDatabase;
let server: ServerProcess;
let browser: Browser;
let world: WebWorld;
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string[]; failureSummary: string }>;
}

/** Runs axe in the page (through the DevTools protocol, which the page's CSP does not govern). */
async function axe(page: Page): Promise<string[]> {
  const violations = (await page.evaluate(`(async () => {
    if (!window.axe) { ${AXE}\n }
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  })()`)) as Violation[];
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}: ${n.failureSummary}`));
}

describeBrowser('web client: accessibility', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource });
    world = await createWebWorld(server.url);
    await world.admin.put('/api/v4/config/patch', { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
    const hook = await world.admin.post<{ id: string }>('/api/v4/hooks/incoming', { channel_id: world.channels.townSquare.id, display_name: 'CI' });
    const root = await world.post(world.alice, world.channels.townSquare.id, 'Release **Thursday**. @bob can you check `api`?\n\n> quoted\n\n- one\n- two');
    await world.post(world.bob, world.channels.townSquare.id, 'Yes, on it.', { root_id: root.id });
    await world.post(world.bob, world.channels.townSquare.id, 'Reminder for @channel: [the doc](https://example.com/doc)');
    await new IncomingWebhook(`${server.url}/hooks/${hook.id}`).send({
      text: 'Deploy finished',
      username: 'ci-bot',
      icon_emoji: 'rocket',
      props: { card: '## Report\n\n| a | b |\n|---|---|\n| 1 | 2 |' },
      attachments: [{ fallback: 'f', color: 'good', pretext: 'Pipeline passed', title: 'api@3f2a91c', title_link: 'https://example.com/p', text: 'All tests passed', fields: [{ title: 'Env', value: 'prod', short: true }], footer: 'CI', ts: 1700000000 }],
    } as never);
    await world.post(world.bob, world.channels.deploys.id, '@alice ping');
    browser = await launchBrowser();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await server?.kill();
    await db?.drop();
  });

  const pages: WatchedPage[] = [];
  afterEach(async () => {
    for (const w of pages.splice(0)) await w.context.close();
  });
  async function newPage(): Promise<Page> {
    const w = await openPage(browser);
    pages.push(w);
    return w.page;
  }

  test('the login page and its error pass WCAG 2.1 A/AA checks', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Email or username').waitFor();
    expect(await axe(page)).toEqual([]);
    await page.getByLabel('Email or username').fill('alice');
    await page.getByLabel('Password').fill('nope');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await axe(page)).toEqual([]);
  });

  test('the channel view (posts, mentions, webhook post, attachment, unread sidebar), the thread and the card panel pass', async () => {
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await page.locator('.attachment').waitFor();
    await page.locator('.sidebar a[data-channel="deploys"] .badge').waitFor();
    // Hover a post so its action buttons are shown too.
    await page.locator('.post-list article.post').first().hover();
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: '1 reply' }).click();
    await page.getByRole('complementary', { name: 'Thread' }).locator('article').nth(1).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Show card' }).click();
    await page.getByRole('complementary', { name: 'Info' }).locator('table').waitFor();
    expect(await axe(page)).toEqual([]);
    // The account menu and the delete confirmation.
    await page.getByRole('button', { name: /account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press('Escape');
    const mine = page.locator('.post-list article.post', { hasText: 'Release Thursday' });
    await mine.hover();
    await mine.getByRole('button', { name: 'Delete message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete message' });
    await dialog.waitFor();
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('every icon-only control has a name saying what it does; focus is visible', async () => {
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await page.locator('.attachment').waitFor();
    const unnamed = await page.evaluate(`[...document.querySelectorAll('button, a[href], [role="button"], textarea, input')]
      .filter((el) => !(el.getAttribute('aria-label') || el.textContent.trim() || el.labels?.length || el.getAttribute('aria-labelledby')))
      .map((el) => el.outerHTML.slice(0, 120))`);
    expect(unnamed).toEqual([]);
    const iconButtons = (await page.evaluate(`[...document.querySelectorAll('button')].filter((b) => !b.textContent.trim()).map((b) => b.getAttribute('aria-label'))`)) as string[];
    expect(new Set(iconButtons)).toEqual(new Set(['Show card', 'Reply', 'Edit message', 'Delete message', 'Send message', 'Add reaction', 'Attach files', 'Channel list', 'Write a direct message']));
    // Keyboard focus draws an outline: from the top of the page, the skip link, then the team switcher.
    await page.evaluate('document.activeElement.blur()');
    const focused = async () => page.evaluate<string>(`(() => { const el = document.activeElement; const s = getComputedStyle(el); return [el.tagName === 'BODY' ? 'body' : el.textContent.trim(), s.outlineStyle, s.outlineWidth].join(' | '); })()`);
    for (let i = 0; i < 3 && !(await focused()).startsWith('Skip to messages'); i++) await page.keyboard.press('Tab');
    await expect(focused()).resolves.toBe('Skip to messages | solid | 2px');
    await page.keyboard.press('Tab');
    await expect(focused()).resolves.toBe('TATeam A | solid | 2px');
  });
});
