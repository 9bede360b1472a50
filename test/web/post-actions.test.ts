// Browser journey for interactive messages against a real server process and a real integration (node:http on
// 127.0.0.1): an incoming webhook posts a button and a menu; alice clicks the button (disabled while the call is in
// flight, the failure announced), then again (the integration's update replaces the post in the page), and picks a
// menu value with the keyboard only.
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';
import { describeBrowser, launchBrowser, openPage, screenshotPath, signIn, type WatchedPage } from '../support/browser';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';
import { eventually } from '../support/eventually';
import { startIntegration, type Integration } from '../webhooks/outgoing-support';

let db: TestDatabase;
let server: ServerProcess;
let browser: Browser;
let world: WebWorld;
let integration: Integration;
let hookId: string;

describeBrowser('web client: interactive messages', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    server = await spawnServer({
      MM_SQLSETTINGS_DRIVERNAME: db.driver,
      MM_SQLSETTINGS_DATASOURCE: db.dataSource,
      MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1',
    });
    world = await createWebWorld(server.url);
    integration = await startIntegration();
    hookId = (await world.admin.post<{ id: string }>('/api/v4/hooks/incoming', { channel_id: world.channels.deploys.id, display_name: 'Deployer' })).id;
    browser = await launchBrowser();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await integration?.close();
    await server?.kill();
    await db?.drop();
  });

  let watched: WatchedPage | undefined;
  afterEach(async () => {
    await watched?.context.close();
    watched = undefined;
  });

  const article = (page: Page, id: string) => page.locator(`.post-list article[data-post-id="${id}"]`);

  async function postWithActions(): Promise<string> {
    const url = `${integration.url}/action`;
    const res = await fetch(`${server.url}/hooks/${hookId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        text: 'Deploy **api** to production?',
        attachments: [
          {
            text: 'Waiting for approval',
            actions: [
              { id: 'approve', name: 'Approve', style: 'primary', integration: { url, context: { deploy: 'api' } } },
              { id: 'env', type: 'select', name: 'Environment', options: [{ text: 'Staging', value: 'staging' }, { text: 'Production', value: 'prod' }], integration: { url } },
            ],
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    return (await world.admin.get<{ order: string[] }>(`/api/v4/channels/${world.channels.deploys.id}/posts?per_page=1`)).order[0];
  }

  test('a button: disabled while the call is in flight, the failure announced, then the update replaces the post', async () => {
    const postId = await postWithActions();
    watched = await openPage(browser);
    const { page, dialogs, errors } = watched;
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
    const post = article(page, postId);
    const approve = post.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    await expect(post.getByRole('group', { name: 'Message actions from the integration' }).count()).resolves.toBe(1);
    await page.screenshot({ path: screenshotPath('post-actions-buttons') });

    // The integration holds the first call: the actions are disabled meanwhile; cut, the error is announced.
    integration.answer = () => 'hang';
    await approve.click();
    await eventually(async () => expect(await approve.isDisabled()).toBe(true));
    await eventually(() => expect(integration.forPost(postId)).toHaveLength(1));
    expect(await post.getByRole('button', { name: 'Send Environment' }).isDisabled()).toBe(true);
    integration.releaseHanging();
    await post.getByRole('alert').waitFor();
    await expect(post.getByRole('alert').textContent()).resolves.toContain('Unable to complete the action');
    await eventually(async () => expect(await approve.isDisabled()).toBe(false));

    // Answered this time: the post becomes the integration's update, live.
    integration.answer = () => ({ status: 200, body: { update: { message: 'Deploy of **api** approved by alice', props: { attachments: [{ text: 'Approved', color: 'good' }] } } } });
    await approve.click();
    await eventually(async () => expect((await post.locator('.post__message').textContent())?.trim()).toBe('Deploy of api approved by alice'));
    await expect(post.locator('.post__message strong').textContent()).resolves.toBe('api');
    await eventually(async () => expect(await post.getByRole('button', { name: 'Approve' }).count()).toBe(0));
    await expect(post.getByRole('alert').count()).resolves.toBe(0);
    const calls = integration.forPost(postId);
    expect(calls).toHaveLength(2);
    expect(calls[1].fields).toMatchObject({ user_name: 'alice', type: 'button', context: { deploy: 'api' } });
    await page.screenshot({ path: screenshotPath('post-actions-updated') });
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('a menu with the keyboard only: choose a value, tab to Send, press Enter', async () => {
    integration.answer = () => ({ status: 200, body: {} });
    const postId = await postWithActions();
    watched = await openPage(browser);
    const { page, errors } = watched;
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
    const post = article(page, postId);
    const menu = post.getByRole('combobox', { name: 'Environment' });
    await menu.waitFor();
    const send = post.getByRole('button', { name: 'Send Environment' });
    expect(await send.isDisabled()).toBe(true);
    await menu.focus();
    await menu.selectOption('prod');
    // Choosing fired nothing by itself.
    expect(integration.forPost(postId)).toEqual([]);
    await page.keyboard.press('Tab');
    await expect(send.evaluate((el) => el === el.ownerDocument.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await eventually(() => expect(integration.forPost(postId)).toHaveLength(1));
    expect(integration.forPost(postId)[0].fields).toMatchObject({ type: 'select', context: { selected_option: 'prod' } });
    expect(errors).toEqual([]);
  });
});
