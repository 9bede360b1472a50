// Browser journeys of the system console and of slash commands in the composer, each on a fresh server: a system
// admin changes settings and sees their effect (the site name in titles and on the login page, incoming webhooks
// refused once turned off), a bad value shows the server's error beside its field, unsaved changes are guarded,
// a member has no console; `/` lists commands (built-in and custom, with hint and description) and completes from
// the keyboard, `/echo` posts, a custom command served by a real node:http integration answers ephemeral (only its
// caller sees it, "Only visible to you", dismissable, gone on reload) and in_channel (everyone sees it), an unknown
// command keeps its text and offers to send it as a message. Every new screen is checked with axe.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { describeBrowser, signIn } from '../support/browser';
import { eventually } from '../support/eventually';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld } from '../support/web-world';

const journeys = new Journeys();
// Long journeys on a machine shared by many: each is given minutes, not the default minute.
jest.setTimeout(240000);

const setting = (page: Page, label: string) => page.locator('.console__setting', { has: page.locator('.console__label', { hasText: new RegExp(`^${label}$`) }) });

async function openTeamMenu(page: Page): Promise<void> {
  await page.getByRole('button', { name: /team menu/ }).click();
  await page.getByRole('menu').waitFor();
}

/** An integration answering slash commands, on 127.0.0.1: "public <x>" in the channel, anything else ephemeral. */
async function integration(): Promise<{ url: string; requests: URLSearchParams[]; close: () => Promise<void> }> {
  const requests: URLSearchParams[] = [];
  const read = async (req: IncomingMessage) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    return body;
  };
  const server: Server = createServer((req, res) => {
    void read(req).then((body) => {
      const fields = new URLSearchParams(body);
      requests.push(fields);
      const text = fields.get('text') ?? '';
      const reply = text.startsWith('public ') ? { response_type: 'in_channel', text: `Deployed ${text.slice(7)}` } : { response_type: 'ephemeral', text: `Only you see: ${text}` };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/command`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describeBrowser('web client: system console and slash commands', () => {
  journeys.hooks();

  test('the system console: the site name, incoming webhooks turned off, server errors beside the field, unsaved changes guarded', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const hook = await world.admin.post<{ id: string }>('/api/v4/hooks/incoming', { channel_id: world.channels.deploys.id, display_name: 'CI' });
    const postToHook = (text: string) => fetch(`${url}/hooks/${hook.id}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text }) });
    expect((await postToHook('before')).status).toBe(200);

    const page = await journeys.page();
    await signIn(page, url, 'admin', PASSWORD);
    await openTeamMenu(page);
    await page.getByRole('menuitem', { name: 'System Console' }).click();
    await page.waitForURL(`${url}/admin_console/environment/web_server`);
    await page.getByRole('heading', { name: 'Web Server', level: 1 }).waitFor();
    await page.getByLabel('Site URL').waitFor();

    // Site Configuration > Customization: the site name.
    await page.getByRole('navigation', { name: 'System Console' }).getByRole('link', { name: 'Customization' }).click();
    await page.waitForURL(`${url}/admin_console/site_config/customization`);
    const siteName = page.getByLabel('Site Name');
    await expect(siteName.inputValue()).resolves.toBe('Parley');
    const save = page.getByRole('button', { name: 'Save' });
    await expect(save.isDisabled()).resolves.toBe(true);

    // Too long: the server's own error, beside the field, the field marked invalid and focused; nothing saved.
    await siteName.fill('An Exceedingly Long Chat Site Name');
    await save.click();
    const error = setting(page, 'Site Name').locator('.form-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toBe('Site name must be less than or equal to 30 characters.');
    await expect(siteName.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.evaluate('document.activeElement?.getAttribute("data-setting")')).resolves.toBe('TeamSettings.SiteName');
    expect(await axe(page)).toEqual([]);
    expect((await world.admin.get<{ TeamSettings: { SiteName: string } }>('/api/v4/config')).TeamSettings.SiteName).toBe('Parley');

    await siteName.fill('Acme Chat');
    await save.click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    expect((await world.admin.get<{ TeamSettings: { SiteName: string } }>('/api/v4/config')).TeamSettings.SiteName).toBe('Acme Chat');
    await eventually(async () => expect(await page.title()).toBe('Customization - System Console - Acme Chat'));

    // Rate limits: a value the server's validation refuses, beside its field; then leaving asks first.
    await page.getByRole('link', { name: 'Rate Limiting' }).click();
    await page.getByRole('heading', { name: 'Rate Limiting', level: 1 }).waitFor();
    const perSec = page.getByLabel('Maximum Queries per Second');
    await expect(perSec.isDisabled()).resolves.toBe(true);
    await setting(page, 'Enable Rate Limiting').getByLabel('True').check();
    await expect(perSec.isDisabled()).resolves.toBe(false);
    await perSec.fill('0');
    await save.click();
    const rateError = setting(page, 'Maximum Queries per Second').locator('.form-error');
    await rateError.waitFor();
    await expect(rateError.textContent()).resolves.toContain('RateLimitSettings/PerSec');
    await expect(perSec.getAttribute('aria-invalid')).resolves.toBe('true');
    expect((await world.admin.get<{ RateLimitSettings: { Enable: boolean } }>('/api/v4/config')).RateLimitSettings.Enable).toBe(false);
    expect(await axe(page)).toEqual([]);

    await page.getByRole('link', { name: 'Integration Management' }).click();
    const dialog = page.getByRole('dialog', { name: 'Discard Changes?' });
    await dialog.waitFor();
    expect(await axe(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog.count()).resolves.toBe(0);
    expect(page.url()).toBe(`${url}/admin_console/environment/rate_limiting`);
    await expect(perSec.inputValue()).resolves.toBe('0');
    await page.getByRole('link', { name: 'Integration Management' }).click();
    await page.getByRole('dialog', { name: 'Discard Changes?' }).getByRole('button', { name: 'Yes, Discard' }).click();
    await page.waitForURL(`${url}/admin_console/integrations/integration_management`);

    // Integrations: incoming webhooks off, and a webhook post is refused.
    const incoming = setting(page, 'Enable Incoming Webhooks');
    await expect(incoming.getByLabel('True').isChecked()).resolves.toBe(true);
    await incoming.getByLabel('False').check();
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('system-console') });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    expect(await axe(page)).toEqual([]);
    const refused = await postToHook('after');
    expect(refused.status).toBe(501);
    await expect(refused.json()).resolves.toMatchObject({ id: 'web.incoming_webhook.disabled.app_error' });
    // Saved: leaving no longer asks.
    await page.getByRole('link', { name: 'Back to your channels' }).click();
    await page.locator('.channel-header').waitFor();
    await eventually(async () => expect(await page.title()).toMatch(/Team A.*Acme Chat$/));

    // The login page shows the new site name to anyone.
    const visitor = await journeys.page();
    await visitor.goto(`${url}/login`);
    await visitor.getByRole('button', { name: 'Log in' }).waitFor();
    await expect(visitor.locator('body').textContent()).resolves.toContain('Acme Chat');
    expect(await visitor.title()).toBe('Log in - Acme Chat');
  });

  test('a member has no system console', async () => {
    const url = await journeys.fresh();
    await createWebWorld(url);
    const page = await journeys.page();
    await signIn(page, url, 'alice', PASSWORD);
    await openTeamMenu(page);
    await expect(page.getByRole('menuitem', { name: 'System Console' }).count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
    await page.goto(`${url}/admin_console/site_config/customization`);
    await page.getByText('You do not have permission to access the System Console.').waitFor();
    await expect(page.getByLabel('Site Name').count()).resolves.toBe(0);
    expect(await axe(page)).toEqual([]);
  });

  test('slash commands: autocomplete from the keyboard, /echo, a custom command answering ephemeral and in_channel, an unknown command', async () => {
    const hookServer = await integration();
    try {
      const url = await journeys.fresh({ MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1' });
      const world = await createWebWorld(url);
      // A custom command's response_url is made from the Site URL.
      await world.admin.put('/api/v4/config/patch', { ServiceSettings: { SiteURL: url } });
      await world.admin.post('/api/v4/commands', {
        team_id: world.team.id,
        trigger: 'deploy',
        url: hookServer.url,
        method: 'P',
        display_name: 'Deploy',
        auto_complete: true,
        auto_complete_hint: '[service]',
        auto_complete_desc: 'Deploy a service',
      });

      const alice = await journeys.page();
      const bob = await journeys.page();
      await signIn(alice, url, 'alice', PASSWORD, `/${world.team.name}/channels/deploys`);
      await signIn(bob, url, 'bob', PASSWORD, `/${world.team.name}/channels/deploys`);
      const box = alice.getByRole('textbox', { name: 'Write to #Deploys' });
      const feed = (p: Page) => p.locator('.post-list');

      // "/" lists the commands: built-in and the team's own, with hint and description.
      await box.click();
      await box.pressSequentially('/');
      const list = alice.getByRole('listbox', { name: 'Commands' });
      await list.waitFor();
      await expect(list.getByRole('option', { name: /^\/echo\b/ }).count()).resolves.toBe(1);
      const deploy = list.getByRole('option', { name: /^\/deploy\b/ });
      await expect(deploy.textContent()).resolves.toContain('[service]');
      await expect(deploy.textContent()).resolves.toContain('Deploy a service');
      await expect(box.getAttribute('aria-controls')).resolves.toBe(await list.getAttribute('id'));
      expect(await axe(alice)).toEqual([]);
      await alice.screenshot({ path: docsShot('slash-autocomplete') });

      // Typing narrows it; arrows move the selection (aria-activedescendant); Escape closes; Tab completes.
      await box.pressSequentially('e');
      await eventually(async () => expect(await list.getByRole('option').allTextContents()).toEqual([expect.stringMatching(/^\/\/echo /)]));
      await box.press('Backspace');
      await box.pressSequentially('de');
      await eventually(async () => expect(await list.getByRole('option').count()).toBe(1));
      await expect(box.getAttribute('aria-activedescendant')).resolves.toBe(await list.getByRole('option').first().getAttribute('id'));
      await box.press('Escape');
      await expect(list.count()).resolves.toBe(0);
      await box.pressSequentially('p');
      await list.waitFor();
      await box.press('Tab');
      await expect(box.inputValue()).resolves.toBe('/deploy ');
      await expect(list.count()).resolves.toBe(0);

      // Ephemeral: only alice sees it, marked so; the integration got the command.
      await box.pressSequentially('api');
      await box.press('Enter');
      const ephemeral = feed(alice).locator('article.post', { hasText: 'Only you see: api' });
      await ephemeral.waitFor();
      await expect(ephemeral.textContent()).resolves.toContain('(Only visible to you)');
      await expect(box.inputValue()).resolves.toBe('');
      expect(hookServer.requests.map((r) => [r.get('command'), r.get('text'), r.get('user_name'), r.get('channel_name')])).toEqual([['/deploy', 'api', 'alice', 'deploys']]);

      // In the channel: everyone sees it; bob never sees alice's ephemeral reply.
      await box.pressSequentially('/deploy public web');
      await box.press('Enter');
      await feed(alice).locator('article.post', { hasText: 'Deployed web' }).waitFor();
      await feed(bob).locator('article.post', { hasText: 'Deployed web' }).waitFor();
      await expect(feed(bob).locator('article.post', { hasText: 'Only you see' }).count()).resolves.toBe(0);

      // /echo from the keyboard: Enter completes the selected command, then the text is sent.
      await box.pressSequentially('/ech');
      await list.waitFor();
      await box.press('Enter');
      await expect(box.inputValue()).resolves.toBe('/echo ');
      await box.pressSequentially('hello from echo');
      await box.press('Enter');
      await feed(bob).locator('article.post', { hasText: 'hello from echo' }).waitFor();
      await feed(alice).locator('article.post', { hasText: 'hello from echo' }).waitFor();

      await alice.mouse.move(1, 1);
      await ephemeral.scrollIntoViewIfNeeded();
      expect(await axe(alice)).toEqual([]);
      await alice.screenshot({ path: docsShot('ephemeral') });

      // An unknown command: Mattermost's words, the text kept; "send as a message" posts it as it is.
      await box.pressSequentially('/nope x');
      await box.press('Enter');
      const alert = alice.locator('.composer__command-error');
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain("Command with a trigger of '/nope' not found.");
      await expect(box.inputValue()).resolves.toBe('/nope x');
      expect(await axe(alice)).toEqual([]);
      await alice.getByRole('button', { name: 'Click here to send as a message.' }).click();
      await feed(bob).locator('article.post', { hasText: '/nope x' }).waitFor();
      await expect(box.inputValue()).resolves.toBe('');

      // Dismissed, an ephemeral post is gone; another one is gone after a reload (never stored).
      await ephemeral.hover();
      await ephemeral.getByRole('button', { name: 'Dismiss message' }).click();
      await expect(ephemeral.count()).resolves.toBe(0);
      await box.pressSequentially('/deploy db');
      await box.press('Enter');
      await feed(alice).locator('article.post', { hasText: 'Only you see: db' }).waitFor();
      await alice.reload();
      await feed(alice).locator('article.post', { hasText: 'hello from echo' }).waitFor();
      await expect(feed(alice).locator('article.post', { hasText: 'Only you see' }).count()).resolves.toBe(0);

      // In a thread: the command gets the thread's root, its ephemeral reply shows in the thread.
      const root = await world.post(world.alice, world.channels.deploys.id, 'release thread');
      const rootPost = feed(alice).locator('article.post', { hasText: 'release thread' });
      await rootPost.hover();
      await rootPost.getByRole('button', { name: 'Reply' }).click();
      const reply = alice.getByRole('textbox', { name: 'Reply to thread' });
      await reply.pressSequentially('/deploy cache');
      await reply.press('Enter');
      await alice.locator('.rhs article.post', { hasText: 'Only you see: cache' }).waitFor();
      expect(hookServer.requests.at(-1)?.get('root_id')).toBe(root.id);
    } finally {
      await hookServer.close();
    }
  });
});
