// Browser journeys against a real server process (npm's built dist/ and dist/web, a fresh database): signing in
// and out, the login errors, picking a team and a channel, sending (Enter, Shift+Enter, the length limit), reload,
// and replying in a thread in the right-hand panel.
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';
import { describeBrowser, launchBrowser, openPage, screenshotPath, signIn, type WatchedPage } from '../support/browser';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';
import { eventually } from '../support/eventually';

let db: TestDatabase;
let server: ServerProcess;
let browser: Browser;
let world: WebWorld;

describeBrowser('web client: chat journeys', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource });
    world = await createWebWorld(server.url);
    // A second team, so that picking a team is a real choice.
    const ops = await world.admin.post<{ id: string }>('/api/v4/teams', { name: 'ops', display_name: 'Operations', type: 'O' });
    await world.admin.post(`/api/v4/teams/${ops.id}/members`, { team_id: ops.id, user_id: world.alice.id });
    browser = await launchBrowser();
  }, 120000);

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

  /** Waits (polling from the test, not with code evaluated in the page: the page's CSP forbids eval). */
  async function countIs(locator: { count(): Promise<number> }, n: number): Promise<void> {
    await eventually(async () => expect(await locator.count()).toBe(n), 10000, 50);
  }

  const post = (page: Page, text: string) => page.locator('.post-list article.post', { hasText: text });

  test('journey 1: sign in, pick a team and a channel, send a message, see it; reload: still there', async () => {
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD);
    // Two teams: the switcher lists both; pick Team A, then the Deploys channel.
    const teams = page.getByRole('navigation', { name: 'Teams' });
    await countIs(teams.getByRole('link'), 2);
    await teams.getByRole('link', { name: 'Team A' }).click();
    await page.waitForURL(`${server.url}/team-a/channels/town-square`);
    const channels = page.getByRole('navigation', { name: 'Channels' });
    await channels.getByRole('link', { name: /Deploys/ }).click();
    await page.waitForURL(`${server.url}/team-a/channels/deploys`);
    await expect(page.locator('.channel-header__title').textContent()).resolves.toContain('Deploys');
    await expect(page.locator('.channel-header__purpose').textContent()).resolves.toBe('Build and deploy notifications from CI');
    await page.locator('.channel-header__members').waitFor();
    await expect(page.locator('.channel-header__members').getAttribute('aria-label')).resolves.toBe('3 members');

    const composer = page.getByRole('textbox', { name: 'Write to #Deploys' });
    await composer.fill('Hello from the browser **journey**');
    await composer.press('Enter');
    const sent = post(page, 'Hello from the browser journey');
    await sent.waitFor();
    await expect(sent.locator('strong').textContent()).resolves.toBe('journey');
    await expect(composer.inputValue()).resolves.toBe('');
    // Shift+Enter is a new line, Enter sends.
    await composer.type('line one');
    await composer.press('Shift+Enter');
    await composer.type('line two');
    await composer.press('Enter');
    await post(page, 'line two').waitFor();
    await countIs(page.locator('.post--pending'), 0);
    const stored = await world.admin.get<{ order: string[]; posts: Record<string, { message: string }> }>(`/api/v4/channels/${world.channels.deploys.id}/posts`);
    expect(stored.order.map((id) => stored.posts[id].message)).toEqual(['line one\nline two', 'Hello from the browser **journey**']);
    await page.screenshot({ path: screenshotPath('channel') });

    await page.reload();
    await post(page, 'Hello from the browser journey').waitFor();
    await post(page, 'line two').waitFor();
    expect(page.url()).toBe(`${server.url}/team-a/channels/deploys`);
    await expect(page.locator('.post-list article.post', { hasText: 'Hello from the browser journey' }).count()).resolves.toBe(1);
  });

  test('the 16383-character limit is shown and enforced; nothing is sent past it', async () => {
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/off-topic');
    const composer = page.getByRole('textbox', { name: 'Write to #Off-Topic' });
    await composer.fill('x'.repeat(15000));
    await expect(page.locator('.composer__count').textContent()).resolves.toBe('15,000/16,383');
    // Code points, not UTF-16 units: 16383 emoji are exactly at the limit.
    await composer.fill('😀'.repeat(16383));
    await expect(page.locator('.composer__count').textContent()).resolves.toBe('16,383/16,383');
    await expect(page.getByRole('button', { name: 'Send message' }).isEnabled()).resolves.toBe(true);
    await composer.fill('y'.repeat(16384));
    await expect(page.getByRole('alert').textContent()).resolves.toContain('16,384 of at most 16,383 characters');
    await expect(page.getByRole('button', { name: 'Send message' }).isDisabled()).resolves.toBe(true);
    await composer.press('Enter');
    await page.waitForTimeout(300);
    const stored = await world.admin.get<{ order: string[] }>(`/api/v4/channels/${world.channels.offTopic.id}/posts`);
    expect(stored.order).toEqual([]);
  });

  test('journey 6: a reply in the thread panel (keyboard only), shown in the thread and the channel; closing returns focus', async () => {
    const root = await world.post(world.bob, world.channels.townSquare.id, 'Who can review the release notes?');
    await world.post(world.admin, world.channels.townSquare.id, 'Unrelated: lunch is at noon.');
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/town-square');
    const rootPost = page.locator(`.post-list article[data-post-id="${root.id}"]`);
    await rootPost.waitFor();
    // Keyboard: the message actions are in the tab order and appear when focused.
    const reply = rootPost.getByRole('button', { name: 'Reply', exact: true });
    await reply.focus();
    await page.keyboard.press('Enter');
    const panel = page.getByRole('complementary', { name: 'Thread' });
    await panel.waitFor();
    await panel.locator('article.post', { hasText: 'Who can review the release notes?' }).waitFor();
    const replyBox = panel.getByRole('textbox', { name: 'Reply to thread' });
    await replyBox.focus();
    await page.keyboard.type('I will, after lunch.');
    await page.keyboard.press('Enter');
    // Shown at once while it is sent (post--pending), then as the server's post once the server has answered.
    await panel.locator('article.post:not(.post--pending)', { hasText: 'I will, after lunch.' }).waitFor();
    // In the channel too, with a "Commented on" line pointing at the thread.
    const inChannel = post(page, 'I will, after lunch.');
    await inChannel.waitFor();
    await expect(inChannel.locator('.post__reply-context').textContent()).resolves.toContain("bob's message: Who can review the release notes?");
    await expect(rootPost.locator('.post__replies').textContent()).resolves.toContain('1 reply');
    const thread = await world.admin.get<{ order: string[]; posts: Record<string, { message: string; root_id: string }> }>(`/api/v4/posts/${root.id}/thread`);
    const replies = Object.values(thread.posts).filter((p) => p.root_id === root.id);
    expect(replies.map((p) => p.message)).toEqual(['I will, after lunch.']);
    await page.screenshot({ path: screenshotPath('thread') });

    // Escape (from an empty reply box) closes the panel and focus goes back to the Reply button. The box is emptied
    // on send, but the reply can be drawn (from the socket) in a render before the box's: wait for the box itself.
    await page.waitForFunction(`document.querySelector('aside textarea[aria-label="Reply to thread"]')?.value === ''`);
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await expect(reply.evaluate((el) => el === el.ownerDocument.activeElement)).resolves.toBe(true);

    // After a reload the thread opens from the reply count, with the reply in it.
    await page.reload();
    await page.locator(`.post-list article[data-post-id="${root.id}"] .post__replies`).click();
    await page.getByRole('complementary', { name: 'Thread' }).locator('article.post', { hasText: 'I will, after lunch.' }).waitFor();
  });

  test('older pages load on scrolling up (the before cursor), in order, each post once, up to the channel start', async () => {
    const channel = await world.admin.post<{ id: string }>('/api/v4/channels', { team_id: world.team.id, name: 'history', display_name: 'History', type: 'O' });
    await world.admin.post(`/api/v4/channels/${channel.id}/members`, { user_id: world.alice.id });
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) ids.push((await world.post(i % 3 ? world.admin : world.alice, channel.id, `history message ${i}`)).id);
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/history');
    const shown = () => page.locator('.post-list article.post').evaluateAll((els) => els.map((el) => el.getAttribute('data-post-id')));
    await countIs(page.locator('.post-list article.post'), 60);
    expect(await shown()).toEqual(ids.slice(90));
    const list = page.locator('.post-list');
    // One page up: the post that was at the top stays in view (the reading position is kept).
    await list.evaluate((el) => el.scrollTo(0, 0));
    await countIs(page.locator('.post-list article.post'), 120);
    const top = await page.locator(`article[data-post-id="${ids[90]}"]`).evaluate((el) => {
      const box = el.getBoundingClientRect();
      const view = el.closest('.post-list')!.getBoundingClientRect();
      return box.top - view.top;
    });
    expect(top).toBeGreaterThanOrEqual(-5);
    expect(top).toBeLessThan(200);
    for (let i = 0; i < 10 && (await page.locator('.channel-intro').count()) === 0; i++) {
      await list.evaluate((el) => el.scrollTo(0, 0));
      await page.waitForTimeout(300);
    }
    await page.locator('.channel-intro').waitFor();
    expect(await shown()).toEqual(ids);
  });

  test('a reload shows the channel shown last time at once, but not one the user has left meanwhile', async () => {
    const channel = await world.admin.post<{ id: string }>('/api/v4/channels', { team_id: world.team.id, name: 'leaving', display_name: 'Leaving', type: 'O' });
    await world.admin.post(`/api/v4/channels/${channel.id}/members`, { user_id: world.alice.id });
    await world.post(world.admin, channel.id, 'last words');
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/leaving');
    await post(page, 'last words').waitFor();
    await page.reload();
    await post(page, 'last words').waitFor();
    const res = await fetch(`${server.url}/api/v4/channels/${channel.id}/members/${world.alice.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${world.admin.token}` } });
    expect(res.status).toBe(200);
    await page.reload();
    await page.waitForURL(`${server.url}/team-a/channels/town-square`);
    await expect(page.locator('.sidebar a[data-channel="leaving"]').count()).resolves.toBe(0);
  });

  test('editing and deleting an own message', async () => {
    await world.post(world.alice, world.channels.offTopic.id, 'A typo: teh');
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/off-topic');
    const mine = post(page, 'A typo: teh');
    await mine.hover();
    await mine.getByRole('button', { name: 'Edit message' }).click();
    const editor = page.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('A typo: the');
    await editor.press('Enter');
    const fixed = post(page, 'A typo: the');
    await fixed.locator('.post__edited').waitFor();
    await fixed.hover();
    await fixed.getByRole('button', { name: 'Delete message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete message' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await fixed.waitFor({ state: 'detached' });
    const stored = await world.admin.get<{ order: string[] }>(`/api/v4/channels/${world.channels.offTopic.id}/posts`);
    expect(stored.order).toEqual([]);
  });

  test('a bookmarked channel without a session goes to the login page and back after signing in; sign-out ends the session', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/team-a/channels/secret`);
    await page.waitForURL(`${server.url}/login?redirect_to=%2Fteam-a%2Fchannels%2Fsecret`);
    await page.getByLabel('Email or username').fill('bob');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${server.url}/team-a/channels/secret`);
    await expect(page.locator('.channel-header__title').textContent()).resolves.toContain('Secret Plans');
    // Nothing secret is kept where scripts can read it.
    const storage = await page.evaluate('JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookies: document.cookie })');
    const me = await world.bob.get<{ id: string }>('/api/v4/users/me');
    expect(storage).not.toMatch(/MMAUTHTOKEN/);
    expect(storage).toContain(me.id); // MMUSERID, readable by design

    await page.getByRole('button', { name: /^bob\W.*account menu$/ }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL(`${server.url}/login`);
    await page.goto(`${server.url}/team-a/channels/secret`);
    await page.waitForURL(/\/login\?redirect_to=/);
  });

  test('a server that cannot serve the session at start (503) gets a retry page, and Try again recovers', async () => {
    const page = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/town-square');
    const unavailable = JSON.stringify({ id: 'api.context.database_unavailable.app_error', message: 'Database unavailable', detailed_error: '', request_id: 'r', status_code: 503 });
    await page.route('**/api/v4/users/me', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: unavailable }));
    await page.reload();
    await page.getByRole('heading', { name: 'Cannot connect to the server' }).waitFor();
    await page.unroute('**/api/v4/users/me');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('.channel-header').waitFor();
    expect(page.url()).toBe(`${server.url}/team-a/channels/town-square`);
  });

  test('login errors: a wrong password, a locked account, a server that is down', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Email or username').fill('alice');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toBe('The email, username or password is incorrect. Please try again.');
    await expect(page.getByLabel('Password').inputValue()).resolves.toBe('');
    await expect(page.getByLabel('Email or username').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(page.url()).toBe(`${server.url}/login`);
    await page.screenshot({ path: screenshotPath('login-error') });

    // The lock-out answer (Mattermost's id; the server side is being added): the page says what to do.
    await page.route('**/api/v4/users/login', (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ id: 'api.user.check_user_login_attempts.too_many.app_error', message: 'Your account is locked because of too many failed password attempts.', detailed_error: '', request_id: 'r', status_code: 401 }),
      }),
    );
    await page.getByLabel('Password').fill('anything');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(alert.getAttribute('data-reason')).resolves.toBe('locked');
    await expect(alert.textContent()).resolves.toContain('Your account is locked');

    await page.unroute('**/api/v4/users/login');
    await page.route('**/api/v4/users/login', (route) => route.abort('connectionrefused'));
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(alert.getAttribute('data-reason')).resolves.toBe('down');
    await expect(alert.textContent()).resolves.toContain('cannot be reached');
  });
});
