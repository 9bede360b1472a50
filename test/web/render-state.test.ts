// Components rendered against a state object built by hand (no server, no actions run): the client's state is a
// plain value and components read it through StoreContext, so a screen can be checked from a state alone. Rendered
// by Preact in Chromium (the client's own bundle of the components), read back from the DOM.
import { describeBrowser } from '../support/browser';
import { useStateRenderer } from '../support/web-render';

const ME = 'm'.repeat(26);
const BOB = 'b'.repeat(26);
const TEAM = 't'.repeat(26);
const channel = (id: string, name: string, display_name: string, type: 'O' | 'P' | 'D', total: number) => ({
  id,
  team_id: type === 'D' ? '' : TEAM,
  name,
  display_name,
  type,
  total_msg_count: total,
  delete_at: 0,
  create_at: 1,
  update_at: 1,
  header: '',
  purpose: type === 'O' ? 'Where it happens' : '',
  last_post_at: 0,
  creator_id: ME,
});
const member = (channel_id: string, msg_count: number, mention_count: number) => ({ channel_id, user_id: ME, msg_count, mention_count, roles: 'channel_user', last_viewed_at: 0 });
const user = (id: string, username: string) => ({ id, username, roles: 'system_user', create_at: 1, update_at: 1, delete_at: 0 });

/** A signed-in state: two channels (one with an unread mention), a direct channel with bob, bob typing. */
const STATE = {
  boot: 'ready',
  me: user(ME, 'alice'),
  users: { [ME]: user(ME, 'alice'), [BOB]: user(BOB, 'bob') },
  teams: [{ id: TEAM, name: 'team-a', display_name: 'Team A', type: 'O' }],
  currentTeamId: TEAM,
  currentChannelId: 'c1'.padEnd(26, '1'),
  channels: {
    ['c1'.padEnd(26, '1')]: channel('c1'.padEnd(26, '1'), 'town-square', 'Town Square', 'O', 10),
    ['c2'.padEnd(26, '2')]: channel('c2'.padEnd(26, '2'), 'secret', 'Secret Plans', 'P', 5),
    ['d3'.padEnd(26, '3')]: channel('d3'.padEnd(26, '3'), `${BOB}__${ME}`, '', 'D', 2),
  },
  teamChannels: { [TEAM]: ['c1'.padEnd(26, '1'), 'c2'.padEnd(26, '2'), 'd3'.padEnd(26, '3')] },
  members: {
    ['c1'.padEnd(26, '1')]: member('c1'.padEnd(26, '1'), 10, 0),
    ['c2'.padEnd(26, '2')]: member('c2'.padEnd(26, '2'), 3, 1),
    ['d3'.padEnd(26, '3')]: member('d3'.padEnd(26, '3'), 0, 0),
  },
  memberCounts: { ['c1'.padEnd(26, '1')]: { count: 3, more: false } },
  typing: { ['c1'.padEnd(26, '1')]: [{ userId: BOB, until: Number.MAX_SAFE_INTEGER }] },
};

describeBrowser('web client: components rendered from a state object', () => {
  const { render } = useStateRenderer({
    imports: `
    import { Sidebar } from './web/src/components/Sidebar';
    import { ChannelHeader } from './web/src/components/ChannelHeader';
    import { TypingIndicator } from './web/src/components/Typing';
    import { Login } from './web/src/components/Login';
    import { SystemConsole } from './web/src/components/SystemConsole';
    import { PostItem } from './web/src/components/Post';
    `,
    components: `{
      Sidebar: () => h(Sidebar, {}),
      ChannelHeader: (s) => h(ChannelHeader, { channel: s.channels[s.currentChannelId] }),
      Typing: (s) => h(TypingIndicator, { typingKey: s.currentChannelId }),
      Login: () => h(Login, {}),
      SystemConsole: () => h(SystemConsole, {}),
      Post: (s) => h(PostItem, { post: s.posts.byId.e1, continuation: false, replyContext: false }),
    }`,
    state: STATE,
  });

  test('the sidebar lists the team, its channels sorted, the direct channel named for the other member, unread and mentions', async () => {
    const { text, html } = await render('Sidebar');
    expect(text.split('\n').filter(Boolean)).toEqual(['Team A, team menu', 'Aalice, account menu', 'Channels', 'Add channels', 'Secret Plans1, unread, 1 mention', 'Town Square', 'Direct messages', 'Bbob2, unread, 2 mentions']);
    expect(html).toContain('href="/team-a/messages/@bob"');
    expect(html).toMatch(/aria-current="page"[^>]*data-channel="town-square"/);
  });

  test('the same component shows another state: no unread channel, another team name', async () => {
    const { text } = await render('Sidebar', {
      teams: [{ id: TEAM, name: 'team-a', display_name: 'Renamed' }],
      members: Object.fromEntries(Object.entries(STATE.channels).map(([id, c]) => [id, member(id, c.total_msg_count, 0)])),
    });
    expect(text).toContain('Renamed');
    expect(text).not.toContain('unread');
  });

  test('the channel header and the typing line read the state', async () => {
    await expect(render('ChannelHeader')).resolves.toMatchObject({ text: expect.stringContaining('Town Square') });
    expect((await render('ChannelHeader')).html).toContain('aria-label="3 members"');
    expect((await render('Typing')).text).toBe('bob is typing…');
    expect((await render('Typing', { typing: {} })).text).toBe('');
  });

  test('the login page shows the site name and the notice the state holds', async () => {
    const { text } = await render('Login', { me: undefined, route: { kind: 'login', redirectTo: '' }, config: { SiteName: 'Acme Chat' }, loginNotice: 'Your session has ended. Please log in again.' });
    expect(text).toContain('Acme Chat');
    expect(text).toContain('Your session has ended. Please log in again.');
  });

  test('the system console: no permission for a member; its pages for a system admin', async () => {
    const denied = await render('SystemConsole', { route: { kind: 'console', group: 'site_config', page: 'customization' } });
    expect(denied.text).toContain('You do not have permission to access the System Console.');
    expect(denied.html).not.toContain('Site Name');
    const admin = await render('SystemConsole', { me: { ...user(ME, 'alice'), roles: 'system_user system_admin' }, route: { kind: 'console', group: 'site_config', page: 'customization' } });
    expect(admin.text).toContain('Customization');
    expect(admin.text).toContain('Integration Management');
    expect(admin.html).toMatch(/aria-current="page"[^>]*>Customization</);
  });

  test('an ephemeral post says it is only visible to you and can be dismissed', async () => {
    const post = { id: 'e1', create_at: 1, update_at: 1, delete_at: 0, user_id: ME, channel_id: 'c1'.padEnd(26, '1'), root_id: '', message: 'Only you see this', type: 'system_ephemeral', props: {} };
    const { text, html } = await render('Post', { posts: { byId: { e1: post }, deleted: {}, channels: {}, threads: {} } });
    expect(text).toContain('Only you see this');
    expect(text).toContain('(Only visible to you)');
    expect(html).toContain('aria-label="Dismiss message"');
    expect(html).not.toContain('aria-label="Reply"');
  });
});
