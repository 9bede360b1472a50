// The integrations page rendered against a state object built by hand (no server, no actions run): the lists come
// from the state alone, what people typed is shown as text (never markup), and a viewer who may not manage the
// team's integrations gets the permission message instead. Rendered by Preact in Chromium from the client's sources.
import { describeBrowser } from '../support/browser';
import { useStateRenderer } from '../support/web-render';

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

describeBrowser('web client: the integrations page rendered from a state object', () => {
  const view = useStateRenderer({
    imports: `import { Integrations } from './web/src/components/Integrations';`,
    components: `{ Integrations: () => h(Integrations, {}) }`,
    state: STATE,
  });
  const render = (patch: object = {}) => view.render('Integrations', patch);

  test('the incoming webhooks listed from the state: text as text, the URL on the site URL, only the sections turned on', async () => {
    const { text, html } = await render();
    expect(text).toContain('<img src=x onerror="window.pwned=1">CI');
    expect(text).toContain('Build <b>results</b>');
    expect(text).toContain('Deploys (locked)');
    expect(text).toContain(`https://chat.example.com/hooks/${HOOK}`);
    expect(html).not.toContain('<img');
    expect(await view.page().evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
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
