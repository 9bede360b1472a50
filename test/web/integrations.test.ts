// Browser journeys of the integrations page (/{team}/integrations), each on a fresh server: a team admin adds an
// incoming webhook, copies its URL and posts to it with @slack/webhook; an outgoing webhook made in the page calls a
// real integration (node:http on 127.0.0.1) on a post and its delivery log shows the call; a slash command made in
// the page, its token regenerated, its call in its log; a bot with a token, disabled and enabled; a plain member
// neither sees the page nor can open it. Every new screen is checked with axe and saved in docs/.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { IncomingWebhook } from '@slack/webhook';
import { describeBrowser, launchBrowser, signIn } from '../support/browser';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';
import { eventually } from '../support/eventually';

const journeys = new Journeys();

/** A real integration: records every request (path, headers, body) and answers what `reply` says. */
interface Integration {
  url: string;
  calls: Array<{ path: string; headers: IncomingMessage['headers']; body: string }>;
  reply: (path: string) => { status: number; body: unknown };
  close(): Promise<void>;
}

async function startIntegration(): Promise<Integration> {
  const it: Partial<Integration> = { calls: [], reply: () => ({ status: 200, body: {} }) };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      it.calls!.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const { status, body } = it.reply!(path);
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  it.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  it.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return it as Integration;
}

let integration: Integration | undefined;

async function makeTeamAdmin(world: WebWorld, userId: string): Promise<void> {
  await world.admin.put(`/api/v4/teams/${world.team.id}/members/${userId}/roles`, { roles: 'team_user team_admin' });
}

async function openTeamMenu(page: Page): Promise<void> {
  await page.getByRole('button', { name: /team menu/ }).click();
  await page.getByRole('menu', { name: 'Team' }).waitFor();
}

/** The text of the field's error, beside it (tied to it by aria-describedby). */
async function fieldError(page: Page, label: string): Promise<string> {
  const field = page.locator('.field', { has: page.getByLabel(label, { exact: true }) });
  await field.locator('.form-error').waitFor();
  await expect(page.getByLabel(label, { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
  return (await field.locator('.form-error').textContent()) ?? '';
}

describeBrowser('web client: the integrations page', () => {
  beforeAll(async () => {
    journeys.browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await journeys.browser?.close();
  });

  afterEach(async () => {
    await integration?.close();
    integration = undefined;
    await journeys.finish();
  }, 180000);

  test('a team admin adds an incoming webhook, copies its URL and posts to it with @slack/webhook; the post arrives in the channel', async () => {
    const url = await journeys.fresh({ MM_SERVICESETTINGS_ENABLEPOSTUSERNAMEOVERRIDE: 'true' });
    const world = await createWebWorld(url);
    await makeTeamAdmin(world, world.alice.id);
    const page = await journeys.page();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await signIn(page, url, 'alice', PASSWORD, '/team-a/channels/town-square');

    await openTeamMenu(page);
    await page.getByRole('menuitem', { name: 'Integrations' }).click();
    await page.waitForURL(`${url}/team-a/integrations`);
    await page.getByRole('heading', { name: 'Integrations', level: 2 }).waitFor();
    // A team admin who is not a system admin: no bot accounts (system admins' permission by default).
    await expect(page.getByRole('link', { name: /Bot accounts/ }).count()).resolves.toBe(0);
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('integrations') });

    await page.locator('.integrations__tile', { hasText: 'Incoming webhooks' }).click();
    await page.waitForURL(`${url}/team-a/integrations/incoming_webhooks`);
    await page.getByText('No incoming webhooks yet.').waitFor();
    await page.getByRole('link', { name: 'Add incoming webhook' }).click();
    await page.waitForURL(`${url}/team-a/integrations/incoming_webhooks/add`);
    await page.getByLabel('Title', { exact: true }).fill('<b>CI</b> builds');
    await page.getByLabel('Description', { exact: true }).fill('Build results from CI');
    await page.getByLabel('Channel', { exact: true }).selectOption({ label: 'Deploys' });
    await page.getByLabel('Lock to this channel', { exact: true }).check();
    // The server's own check, beside the field.
    await page.getByLabel('Username', { exact: true }).fill('Not A Username!');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await fieldError(page, 'Username')).toMatch(/username/i);
    expect(await world.alice.get<unknown[]>(`/api/v4/hooks/incoming?team_id=${world.team.id}`)).toEqual([]);
    expect(await axe(page)).toEqual([]);
    await page.getByLabel('Username', { exact: true }).fill('ci-bot');
    await page.getByRole('button', { name: 'Save' }).click();

    // The confirmation: the full URL, a copy button, a curl example and the signing secret.
    await page.waitForURL(/\/team-a\/integrations\/confirm\?type=incoming_webhooks&id=/);
    await page.getByRole('heading', { name: 'Setup successful' }).waitFor();
    const hooks = await world.alice.get<Array<{ id: string; channel_id: string; channel_locked: boolean; display_name: string; username: string; signing_secret: string }>>(
      `/api/v4/hooks/incoming?team_id=${world.team.id}`,
    );
    expect(hooks.map((h) => [h.display_name, h.channel_id, h.channel_locked, h.username])).toEqual([['<b>CI</b> builds', world.channels.deploys.id, true, 'ci-bot']]);
    const hookUrl = `${url}/hooks/${hooks[0].id}`;
    // User-supplied text is text: the title's markup is shown as typed.
    await page.locator('strong', { hasText: '<b>CI</b> builds' }).waitFor();
    await expect(page.getByLabel('Webhook URL', { exact: true }).inputValue()).resolves.toBe(hookUrl);
    await expect(page.getByLabel('Try it with curl', { exact: true }).inputValue()).resolves.toContain(`-H 'Content-Type: application/json'`);
    await expect(page.getByLabel('Try it with curl', { exact: true }).inputValue()).resolves.toMatch(new RegExp(`${hookUrl}$`));
    await expect(page.getByLabel('Signing secret', { exact: true }).inputValue()).resolves.toBe(hooks[0].signing_secret);
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('incoming-webhook-created') });
    await page.getByRole('button', { name: 'Copy Webhook URL' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    const copied = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
    expect(copied).toBe(hookUrl);

    // Regenerating the signing secret replaces it.
    await page.getByRole('button', { name: 'Regenerate signing secret' }).click();
    await page.getByText('The old one no longer works').waitFor();
    const regenerated = await world.alice.get<{ signing_secret: string }>(`/api/v4/hooks/incoming/${hooks[0].id}`);
    expect(regenerated.signing_secret).not.toBe(hooks[0].signing_secret);
    await expect(page.getByLabel('Signing secret', { exact: true }).inputValue()).resolves.toBe(regenerated.signing_secret);

    // A real client posts to the copied URL; the post arrives in the channel, live.
    await page.getByRole('link', { name: 'Done' }).click();
    await page.waitForURL(`${url}/team-a/integrations/incoming_webhooks`);
    await page.locator('.integrations__item', { hasText: '<b>CI</b> builds' }).waitFor();
    await page.goto(`${url}/team-a/channels/deploys`);
    await page.locator('.channel-header').waitFor();
    await expect(new IncomingWebhook(copied).send({ text: 'Build **42** passed' })).resolves.toEqual({ text: 'ok' });
    await page.locator('.post-list article.post', { hasText: 'Build 42 passed' }).waitFor();

    // Edit, then delete (confirmed).
    await page.goto(`${url}/team-a/integrations/incoming_webhooks`);
    await page.getByRole('link', { name: 'Edit <b>CI</b> builds' }).click();
    await page.getByRole('heading', { name: 'Edit incoming webhook' }).waitFor();
    await expect(page.getByLabel('Title', { exact: true }).inputValue()).resolves.toBe('<b>CI</b> builds');
    await page.getByLabel('Title', { exact: true }).fill('CI builds');
    await page.getByRole('button', { name: 'Update' }).click();
    await page.waitForURL(`${url}/team-a/integrations/incoming_webhooks`);
    await page.locator('.integrations__item-title', { hasText: /^CI builds$/ }).waitFor();
    expect((await world.alice.get<{ display_name: string }>(`/api/v4/hooks/incoming/${hooks[0].id}`)).display_name).toBe('CI builds');
    await page.getByRole('button', { name: 'Delete CI builds' }).click();
    await page.getByRole('dialog', { name: 'Delete incoming webhook' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No incoming webhooks yet.').waitFor();
    expect(await world.alice.get<unknown[]>(`/api/v4/hooks/incoming?team_id=${world.team.id}`)).toEqual([]);
  }, 180000);

  test('an outgoing webhook made in the page calls a real integration on a post; its delivery log shows the call, and a redelivery calls again', async () => {
    integration = await startIntegration();
    integration.reply = () => ({ status: 200, body: { text: 'Deploying api now' } });
    const url = await journeys.fresh({ MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1' });
    const world = await createWebWorld(url);
    const page = await journeys.page();
    await signIn(page, url, 'admin', PASSWORD, '/team-a/channels/town-square');
    await page.goto(`${url}/team-a/integrations/outgoing_webhooks`);
    await page.getByText('No outgoing webhooks yet.').waitFor();
    await page.getByRole('link', { name: 'Add outgoing webhook' }).click();
    await page.getByLabel('Title', { exact: true }).fill('Deployer');
    await page.getByLabel('Content type', { exact: true }).selectOption('application/json');
    await page.getByLabel('Channel', { exact: true }).selectOption({ label: 'Deploys' });
    await page.getByLabel('Trigger words (one per line)', { exact: true }).fill('deploy');
    // A callback URL the server refuses: the error is beside the field.
    await page.getByLabel('Callback URLs (one per line)', { exact: true }).fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await fieldError(page, 'Callback URLs (one per line)')).toMatch(/http/);
    expect(await axe(page)).toEqual([]);
    await page.getByLabel('Callback URLs (one per line)', { exact: true }).fill(`${integration.url}/deploy`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/team-a\/integrations\/confirm\?type=outgoing_webhooks&id=/);
    const [hook] = await world.admin.get<Array<{ id: string; token: string; trigger_words: string[]; callback_urls: string[]; content_type: string }>>(
      `/api/v4/hooks/outgoing?team_id=${world.team.id}`,
    );
    expect([hook.trigger_words, hook.callback_urls, hook.content_type]).toEqual([['deploy'], [`${integration.url}/deploy`], 'application/json']);
    await expect(page.getByLabel('Token', { exact: true }).inputValue()).resolves.toBe(hook.token);
    expect(await axe(page)).toEqual([]);
    await page.getByRole('link', { name: 'Done' }).click();
    await page.locator('.integrations__item', { hasText: 'Deployer' }).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('outgoing-webhooks') });

    // A post in the channel fires it; the integration's answer is posted back.
    await page.goto(`${url}/team-a/channels/deploys`);
    const composer = page.getByRole('textbox', { name: 'Write to #Deploys' });
    await composer.fill('deploy api');
    await composer.press('Enter');
    await page.locator('.post-list article.post', { hasText: 'Deploying api now' }).waitFor();
    expect(integration.calls).toHaveLength(1);
    expect(JSON.parse(integration.calls[0].body)).toMatchObject({ token: hook.token, text: 'deploy api', trigger_word: 'deploy', channel_name: 'deploys' });

    // The delivery log shows the call.
    await page.goto(`${url}/team-a/integrations/outgoing_webhooks`);
    await page.getByRole('link', { name: 'Delivery log of Deployer' }).click();
    await page.waitForURL(`${url}/team-a/integrations/outgoing_webhooks/deliveries?id=${hook.id}`);
    const rows = page.locator('.integrations__delivery');
    await rows.first().waitFor();
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.first().locator('td').nth(1).textContent()).resolves.toBe('200');
    await expect(rows.first().locator('td').nth(3).textContent()).resolves.toBe('1');
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('delivery-log') });

    // Redeliver: the integration is called again, and the log shows the new attempt (kept fresh by itself).
    integration.reply = () => ({ status: 500, body: { error: 'down for maintenance' } });
    await rows.first().getByRole('button', { name: /^Redeliver/ }).click();
    await page.getByText('The call was queued again').waitFor();
    await eventually(() => expect(integration!.calls.length).toBeGreaterThanOrEqual(2), 15000);
    await eventually(async () => expect(await page.locator('.integrations__delivery', { hasText: '500' }).count()).toBeGreaterThanOrEqual(1), 15000, 200);

    // Regenerating the token changes what the page shows, as the server has it.
    await page.goto(`${url}/team-a/integrations/outgoing_webhooks`);
    await page.getByRole('button', { name: 'Regenerate token of Deployer' }).click();
    await eventually(async () => {
      const now = await world.admin.get<{ token: string }>(`/api/v4/hooks/outgoing/${hook.id}`);
      expect(now.token).not.toBe(hook.token);
      await expect(page.locator('.integrations__item', { hasText: 'Deployer' }).textContent()).resolves.toContain(now.token);
    });
  }, 180000);

  test('a slash command made in the page (the server checks the trigger), its token regenerated, its call in its delivery log', async () => {
    integration = await startIntegration();
    integration.reply = () => ({ status: 200, body: { response_type: 'ephemeral', text: 'Deploying' } });
    const url = await journeys.fresh({ MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1' });
    const world = await createWebWorld(url);
    // Commands send a response_url, which needs the site URL.
    await world.admin.put('/api/v4/config/patch', { ServiceSettings: { SiteURL: url } });
    const page = await journeys.page();
    await signIn(page, url, 'admin', PASSWORD, '/team-a/channels/town-square');
    await page.goto(`${url}/team-a/integrations/commands`);
    await page.waitForURL(`${url}/team-a/integrations/commands`);
    await page.getByText('No slash commands yet.').waitFor();
    await page.getByRole('link', { name: 'Add slash command' }).click();
    await page.waitForURL(`${url}/team-a/integrations/commands/add`);
    await page.getByLabel('Title', { exact: true }).fill('Deploy');
    await page.getByLabel('Command trigger word', { exact: true }).fill('deploy now');
    await page.getByLabel('Request URL', { exact: true }).fill(`${integration.url}/command`);
    await page.getByLabel('Autocomplete', { exact: true }).check();
    await page.getByLabel('Autocomplete hint', { exact: true }).fill('[service]');
    await page.getByLabel('Autocomplete description', { exact: true }).fill('Deploy a service');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await fieldError(page, 'Command trigger word')).toMatch(/trigger/i);
    expect(await axe(page)).toEqual([]);
    await page.getByLabel('Command trigger word', { exact: true }).fill('deploy');
    await page.getByLabel('Request method', { exact: true }).selectOption('G');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/team-a\/integrations\/confirm\?type=commands&id=/);
    const [command] = await world.admin.get<Array<{ id: string; token: string; trigger: string; method: string; auto_complete: boolean; auto_complete_hint: string }>>(
      `/api/v4/commands?team_id=${world.team.id}&custom_only=true`,
    );
    expect([command.trigger, command.method, command.auto_complete, command.auto_complete_hint]).toEqual(['deploy', 'G', true, '[service]']);
    await expect(page.getByLabel('Token', { exact: true }).inputValue()).resolves.toBe(command.token);
    await page.getByRole('link', { name: 'Done' }).click();
    await page.waitForURL(`${url}/team-a/integrations/commands/installed`);
    const item = page.locator('.integrations__item', { hasText: '/deploy' });
    await item.waitFor();
    await expect(item.textContent()).resolves.toContain('/deploy [service] — Deploy a service');
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('commands') });

    await page.getByRole('button', { name: 'Regenerate token of Deploy' }).click();
    const regenerated = await eventually(async () => {
      const now = await world.admin.get<{ token: string }>(`/api/v4/commands/${command.id}`);
      expect(now.token).not.toBe(command.token);
      await expect(item.textContent()).resolves.toContain(now.token);
      return now.token;
    });

    // Run it (the composer's slash commands are another screen's): the call is made with the new token and logged.
    await world.admin.post('/api/v4/commands/execute', { channel_id: world.channels.deploys.id, command: '/deploy api' });
    expect(integration.calls).toHaveLength(1);
    expect(new URL(integration.calls[0].path, integration.url).searchParams.get('token')).toBe(regenerated);
    await page.getByRole('link', { name: 'Delivery log of Deploy' }).click();
    await page.waitForURL(`${url}/team-a/integrations/commands/deliveries?id=${command.id}`);
    await page.locator('.integrations__delivery').first().waitFor();
    await expect(page.locator('.integrations__delivery td').nth(1).textContent()).resolves.toBe('200');
    // Commands are never redelivered (the user was waiting): no such button.
    await expect(page.getByRole('button', { name: /^Redeliver/ }).count()).resolves.toBe(0);
    expect(await axe(page)).toEqual([]);

    // Deleting it, confirmed.
    await page.getByRole('link', { name: 'Back to slash commands' }).click();
    await page.getByRole('button', { name: 'Delete Deploy' }).click();
    await page.getByRole('dialog', { name: 'Delete slash command' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No slash commands yet.').waitFor();
  }, 180000);

  test('bot accounts: a note while creation is off; a bot made with a token that works, disabled and enabled, a token revoked', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const page = await journeys.page();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await signIn(page, url, 'admin', PASSWORD, '/team-a/channels/town-square');
    await page.goto(`${url}/team-a/integrations/bots`);
    await page.getByText('Creating bot accounts is turned off').waitFor();
    await expect(page.getByRole('link', { name: 'Add bot account' }).count()).resolves.toBe(0);

    await world.admin.put('/api/v4/config/patch', { ServiceSettings: { EnableBotAccountCreation: true } });
    await page.reload();
    await page.getByRole('link', { name: 'Add bot account' }).click();
    await page.waitForURL(`${url}/team-a/integrations/bots/add`);
    await page.getByLabel('Username', { exact: true }).fill('alice');
    await page.getByLabel('Display name', { exact: true }).fill('Deploy bot');
    await page.getByRole('button', { name: 'Create bot account' }).click();
    // Taken: the server says so beside the field.
    expect(await fieldError(page, 'Username')).toMatch(/username|exists|taken/i);
    expect(await axe(page)).toEqual([]);
    await page.getByLabel('Username', { exact: true }).fill('deploy-bot');
    await page.getByLabel('Description', { exact: true }).fill('Posts <i>deployment</i> results');
    await page.getByRole('button', { name: 'Create bot account' }).click();
    await page.waitForURL(/\/team-a\/integrations\/confirm\?type=bots&id=/);
    const token = await page.getByLabel('Access token', { exact: true }).inputValue();
    expect(token).toMatch(/^[a-z0-9]{26}$/);
    const me = await fetch(`${url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    const bot = (await me.json()) as { id: string; username: string; is_bot: boolean };
    expect([bot.username, bot.is_bot]).toEqual(['deploy-bot', true]);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.waitForURL(`${url}/team-a/integrations/bots`);
    const card = page.locator('.integrations__item', { hasText: '@deploy-bot' });
    await card.getByText('Posts <i>deployment</i> results').waitFor();
    await card.getByText('Default Token', { exact: true }).waitFor();

    // A second token: shown once, copied; then revoked (it stops working).
    await card.getByRole('button', { name: 'Create new token for @deploy-bot' }).click();
    await card.getByLabel('Token description', { exact: true }).fill('ci');
    await card.getByRole('button', { name: 'Save token' }).click();
    const second = await card.getByLabel('Access token', { exact: true }).inputValue();
    await card.getByRole('button', { name: 'Copy Access token' }).click();
    await expect(page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).resolves.toBe(second);
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('bots') });
    await card.getByRole('button', { name: 'I copied it' }).click();
    await card.getByLabel('Access token', { exact: true }).waitFor({ state: 'detached' });
    expect((await fetch(`${url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${second}` } })).status).toBe(200);
    await card.getByRole('button', { name: 'Revoke token ci' }).click();
    await page.getByRole('dialog', { name: 'Revoke token' }).getByRole('button', { name: 'Revoke' }).click();
    await card.getByText('ci', { exact: true }).waitFor({ state: 'detached' });
    await eventually(async () => expect((await fetch(`${url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${second}` } })).status).toBe(401));

    // Disable: it moves to the disabled bots and its token stops working; enable brings both back.
    await card.getByRole('button', { name: 'Disable @deploy-bot' }).click();
    await page.getByRole('heading', { name: 'Disabled' }).waitFor();
    await eventually(async () => expect((await fetch(`${url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401));
    await page.getByRole('button', { name: 'Enable @deploy-bot' }).click();
    await page.getByRole('heading', { name: 'Enabled' }).waitFor();
    await eventually(async () => expect((await fetch(`${url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200));

    // Edit.
    await page.getByRole('link', { name: 'Edit @deploy-bot' }).click();
    await page.getByLabel('Display name', { exact: true }).fill('Deployer');
    await page.getByRole('button', { name: 'Update' }).click();
    await page.waitForURL(`${url}/team-a/integrations/bots`);
    await page.locator('.integrations__item-title', { hasText: 'Deployer (@deploy-bot)' }).waitFor();
    expect((await world.admin.get<{ display_name: string }>(`/api/v4/bots/${bot.id}`)).display_name).toBe('Deployer');
  }, 180000);

  test('a plain member does not see Integrations in the team menu, and the page tells them they lack permission', async () => {
    const url = await journeys.fresh();
    await createWebWorld(url);
    const page = await journeys.page();
    await signIn(page, url, 'bob', PASSWORD, '/team-a/channels/town-square');
    await openTeamMenu(page);
    await page.getByRole('menuitem', { name: 'Invite people' }).waitFor();
    await expect(page.getByRole('menuitem', { name: 'Integrations' }).count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
    await page.goto(`${url}/team-a/integrations/incoming_webhooks`);
    await page.getByRole('heading', { name: 'Permission denied' }).waitFor();
    await expect(page.getByRole('link', { name: 'Add incoming webhook' }).count()).resolves.toBe(0);
    expect(await axe(page)).toEqual([]);
  }, 180000);
});
