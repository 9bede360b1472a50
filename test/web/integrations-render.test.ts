// The integrations page rendered against a state object built by hand (no server, no actions run): the lists come
// from the state alone, what people typed is shown as text (never markup), and a viewer who may not manage the
// team's integrations gets the permission message instead. Rendered by Preact in Chromium from the client's sources.
import { build } from 'esbuild';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { projectRoot } from '../../src/spec';
import { describeBrowser, launchBrowser } from '../support/browser';

let browser: Browser;
let page: Page;

const ME = 'm'.repeat(26);
const TEAM = 't'.repeat(26);
const CH = 'c'.repeat(26);
const HOOK = 'h'.repeat(26);

const STATE = {
  boot: 'ready',
  me: { id: ME, username: 'alice', roles: 'system_user', create_at: 1, update_at: 1, delete_at: 0 },
  users: { [ME]: { id: ME, username: 'alice', roles: 'system_user', create_at: 1, update_at: 1, delete_at: 0 } },
  teams: [{ id: TEAM, name: 'team-a', display_name: 'Team A', type: 'O' }],
  currentTeamId: TEAM,
  channels: { [CH]: { id: CH, team_id: TEAM, name: 'deploys', display_name: 'Deploys', type: 'O', delete_at: 0 } },
  teamChannels: { [TEAM]: [CH] },
  config: { SiteURL: 'https://chat.example.com', EnableIncomingWebhooks: 'true', EnableOutgoingWebhooks: 'true', EnableCommands: 'false' },
  route: { kind: 'integrations', team: 'team-a', view: { page: 'list', section: 'incoming_webhooks' } },
  integrations: {
    canManage: { [TEAM]: true },
    teamId: TEAM,
    incoming: [
      {
        id: HOOK,
        create_at: 1,
        update_at: 1,
        delete_at: 0,
        user_id: ME,
        channel_id: CH,
        team_id: TEAM,
        display_name: '<img src=x onerror="window.pwned=1">CI',
        description: 'Build <b>results</b>',
        username: '',
        icon_url: '',
        channel_locked: true,
        signing_secret: 's'.repeat(26),
      },
    ],
    botTokens: {},
    deliveries: {},
    errors: {},
  },
};

async function render(patch: object = {}): Promise<{ text: string; html: string }> {
  return page.evaluate((p) => (globalThis as unknown as { renderWith(p: object): Promise<{ text: string; html: string }> }).renderWith(p), { ...STATE, ...patch });
}

describeBrowser('web client: the integrations page rendered from a state object', () => {
  beforeAll(async () => {
    const root = projectRoot();
    const entry = `
      import { render, h } from 'preact';
      import { createStore } from './web/src/state/store';
      import { initialState } from './web/src/state/app-state';
      import { StoreContext } from './web/src/state/use-store';
      import { Integrations } from './web/src/components/Integrations';
      window.renderWith = async (patch) => {
        const el = document.createElement('div');
        document.body.replaceChildren(el);
        render(h(StoreContext.Provider, { value: createStore({ ...initialState, ...patch }) }, h(Integrations, {})), el);
        await new Promise((r) => setTimeout(r, 0));
        return { text: el.innerText, html: el.innerHTML };
      };
    `;
    const bundle = await build({
      stdin: { contents: entry, resolveDir: root, loader: 'tsx', sourcefile: 'integrations-probe.tsx' },
      absWorkingDir: root,
      bundle: true,
      write: false,
      format: 'iife',
      logLevel: 'silent',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      loader: { '.css': 'empty' },
      tsconfig: join(root, 'web', 'tsconfig.json'),
    });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ content: bundle.outputFiles[0].text });
  }, 60000);

  afterAll(async () => {
    await browser?.close();
  });

  test('the incoming webhooks listed from the state: text as text, the URL on the site URL, only the sections turned on', async () => {
    const { text, html } = await render();
    expect(text).toContain('<img src=x onerror="window.pwned=1">CI');
    expect(text).toContain('Build <b>results</b>');
    expect(text).toContain('Deploys (locked)');
    expect(text).toContain(`https://chat.example.com/hooks/${HOOK}`);
    expect(html).not.toContain('<img');
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    // Commands are off and bots are system admins': neither is offered.
    expect(text).toContain('Outgoing webhooks');
    expect(text).not.toContain('Slash commands');
    expect(text).not.toContain('Bot accounts');
  });

  test('a viewer who may not manage the team\'s integrations is told so, and sees none of them', async () => {
    const { text } = await render({ integrations: { ...STATE.integrations, canManage: { [TEAM]: false } } });
    expect(text).toContain('Permission denied');
    expect(text).not.toContain('CI');
  });
});
