// The pure parts of a channel's life in the client: which team lists a live event changes (the revisions the open
// Browse channels and members dialogs fetch again on), and the channel menu's items for an archived channel rendered
// from a state (Unarchive only for the team's admins and system admins, as RestoreChannel's manage_team).
import { raised, revisionKey, revisionsOf } from '../../web/src/state/revisions';
import type { HandledWsEvent } from '../../web/src/ws-events';
import { describeBrowser } from '../support/browser';
import { useStateRenderer } from '../support/web-render';

const TEAM = 't'.repeat(26);
const OTHER = 'o'.repeat(26);
const CH = 'c'.repeat(26);
const ME = 'm'.repeat(26);

const ev = (event: string, data: object, broadcast: object = {}) => ({ event, seq: 1, data, broadcast }) as unknown as HandledWsEvent;
const state = { channels: { [CH]: { id: CH, team_id: OTHER } as never }, currentTeamId: TEAM };

describe('live events → the team lists they change', () => {
  test.each<[string, HandledWsEvent, string[]]>([
    ['a channel created (the creator\'s copy names the team)', ev('channel_created', { channel_id: CH, team_id: TEAM }), [`channels:${TEAM}`]],
    ['a public channel archived (broadcast to its team)', ev('channel_deleted', { channel_id: 'x'.repeat(26), delete_at: 5 }, { team_id: TEAM }), [`channels:${TEAM}`]],
    ['a private channel archived (broadcast to the channel: its team from the state)', ev('channel_deleted', { channel_id: CH, delete_at: 5 }, { channel_id: CH }), [`channels:${OTHER}`]],
    ['a channel unknown here restored: the team being looked at', ev('channel_restored', { channel_id: 'x'.repeat(26) }, { channel_id: 'x'.repeat(26) }), [`channels:${TEAM}`]],
    ['a channel renamed (the channel as a JSON string)', ev('channel_updated', { channel: JSON.stringify({ id: CH, team_id: OTHER, display_name: 'New' }) }), [`channels:${OTHER}`]],
    ['a channel update that is not JSON', ev('channel_updated', { channel: '{nope' }), []],
    ['someone joined the team (user_added in its default channels)', ev('user_added', { user_id: ME, team_id: TEAM }), [`members:${TEAM}`]],
    ['someone added to a direct channel (no team)', ev('user_added', { user_id: ME, team_id: '' }), []],
    ['the joiner\'s own copy', ev('added_to_team', { user_id: ME, team_id: OTHER }), [`members:${OTHER}`]],
    ['someone left the team', ev('leave_team', { user_id: ME, team_id: TEAM }), [`members:${TEAM}`]],
    ['a post (no list changes)', ev('posted', { post: '{}' }), []],
  ])('%s', (_name, event, want) => {
    expect(revisionsOf(event, state)).toEqual(want);
  });

  test('raising counts up from nothing, leaves the other lists alone and the old value unchanged', () => {
    const before = { [revisionKey('channels', TEAM)]: 2, [revisionKey('members', TEAM)]: 7 };
    const after = raised(before, [revisionKey('channels', TEAM), revisionKey('members', OTHER)]);
    expect(after).toEqual({ [`channels:${TEAM}`]: 3, [`members:${TEAM}`]: 7, [`members:${OTHER}`]: 1 });
    expect(before).toEqual({ [`channels:${TEAM}`]: 2, [`members:${TEAM}`]: 7 });
    expect(raised(before, [])).toEqual(before);
  });
});

describeBrowser('the channel menu of an archived channel, rendered from a state', () => {
  const channel = { id: CH, team_id: TEAM, name: 'deploys', display_name: 'Deploys', type: 'O', delete_at: 5, create_at: 1, update_at: 5, header: '', purpose: '', creator_id: ME };
  const user = (roles: string) => ({ id: ME, username: 'alice', roles, create_at: 1, update_at: 1, delete_at: 0 });
  const { render } = useStateRenderer({
    imports: `import { ChannelManageItems } from './web/src/components/ChannelHeaderActions';`,
    components: `{ Items: (s) => h(ChannelManageItems, { channel: s.channels['${CH}'], close: () => {}, open: () => {} }) }`,
    state: { boot: 'ready', channels: { [CH]: channel }, teams: [{ id: TEAM, name: 'team-a', display_name: 'Team A' }], currentTeamId: TEAM },
  });
  const items = async (patch: object) => [...(await render('Items', patch)).html.matchAll(/role="menuitem"[^>]*>([^<]*)</g)].map((m) => m[1]);
  const integrations = (canManage: boolean) => ({ canManage: { [TEAM]: canManage }, botTokens: {}, deliveries: {}, errors: {} });

  test('a team admin and a system admin are offered "Unarchive channel"; a member only the members', async () => {
    expect(await items({ me: user('system_user'), integrations: integrations(true) })).toEqual(['View members', 'Unarchive channel']);
    expect(await items({ me: user('system_user system_admin'), integrations: integrations(false) })).toEqual(['View members', 'Unarchive channel']);
    expect(await items({ me: user('system_user'), integrations: integrations(false) })).toEqual(['View members']);
  });

  test('a live channel has no "Unarchive channel", even for an admin', async () => {
    expect(await items({ me: user('system_user system_admin'), integrations: integrations(true), channels: { [CH]: { ...channel, delete_at: 0 } } })).toEqual([
      'View members',
      'Edit channel header',
      'Edit channel purpose',
      'Leave channel',
      'Archive channel',
    ]);
  });
});
