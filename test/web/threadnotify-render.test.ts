// "Notify me about replies to threads I'm following" (`desktop_threads`) in the account's notification settings and a
// channel's notification preferences, rendered against a state object built by hand: asked only while threads are
// collapsed and the desktop level in force is "mention", shown as the value in force. And the channel value saved.
import { describeBrowser } from '../support/browser';
import { useStateRenderer } from '../support/web-render';
import { threadsChoice } from '../../web/src/notify';

const ME = 'm'.repeat(26);
const TEAM = 't'.repeat(26);
const C1 = 'c'.repeat(26);
const G1 = 'g'.repeat(26);
const LABEL = "Notify me about replies to threads I'm following";
const me = (notify_props: Record<string, string>) => ({ id: ME, username: 'alice', roles: 'system_user', create_at: 1, update_at: 1, delete_at: 0, notify_props });
const channel = (id: string, type: 'O' | 'G') => ({ id, team_id: type === 'G' ? '' : TEAM, name: id, display_name: type === 'G' ? 'alice, bob, carol' : 'Deploys', type, delete_at: 0, create_at: 1, update_at: 1, header: '', purpose: '', last_post_at: 0, creator_id: ME });
const member = (channel_id: string, notify_props: Record<string, string>) => ({ channel_id, user_id: ME, msg_count: 0, mention_count: 0, roles: 'channel_user', last_viewed_at: 0, notify_props });
const ON = { CollapsedThreads: 'always_on' };

describeBrowser('web client: the thread-replies box rendered from a state object', () => {
  const { render, page } = useStateRenderer({
    imports: `
    import { NotificationSettings } from './web/src/components/NotificationSettings';
    import { ChannelNotifyDialog } from './web/src/components/ChannelNotifyDialog';
    `,
    components: `{
      Account: (s) => h(NotificationSettings, { me: s.me }),
      Channel: (s) => h(ChannelNotifyDialog, { channel: s.channels[s.currentChannelId], onClose: () => {} }),
    }`,
    state: { boot: 'ready', teams: [{ id: TEAM, name: 'team-a', display_name: 'Team A', type: 'O' }], currentTeamId: TEAM },
  });

  /** Whether the box is there, and then whether it is checked. */
  async function box(component: string, state: object): Promise<'absent' | 'checked' | 'unchecked'> {
    const { html } = await render(component, state);
    if (!html.includes(LABEL)) return 'absent';
    // Page script as text: the test's TypeScript has no DOM types.
    const checked = await page().evaluate(`[...document.querySelectorAll('label')].find((el) => el.textContent === ${JSON.stringify(LABEL)})?.querySelector('input')?.checked`);
    return checked ? 'checked' : 'unchecked';
  }

  test.each([
    ['threads collapsed, desktop "mention", thread replies unset (all)', ON, { desktop: 'mention' }, 'checked'],
    ['threads collapsed, desktop "mention", thread replies "mention"', ON, { desktop: 'mention', desktop_threads: 'mention' }, 'unchecked'],
    ['threads collapsed (default_on), desktop "mention", thread replies "all"', { CollapsedThreads: 'default_on' }, { desktop: 'mention', desktop_threads: 'all' }, 'checked'],
    ['threads collapsed, desktop "all" (implied)', ON, { desktop: 'all' }, 'absent'],
    ['threads collapsed, desktop "none" (nothing notifies)', ON, { desktop: 'none' }, 'absent'],
    ['threads not collapsed (disabled)', { CollapsedThreads: 'disabled' }, { desktop: 'mention' }, 'absent'],
    ['threads not collapsed (default_off)', { CollapsedThreads: 'default_off' }, { desktop: 'mention' }, 'absent'],
  ])('account settings: %s → %s', async (_name, config, props, want) => {
    expect(await box('Account', { config, me: me(props) })).toBe(want);
  });

  const inChannel = (config: object, userProps: Record<string, string>, memberProps: Record<string, string>, type: 'O' | 'G' = 'O') => {
    const id = type === 'G' ? G1 : C1;
    return { config, me: me(userProps), currentChannelId: id, channels: { [id]: channel(id, type) }, members: { [id]: member(id, memberProps) } };
  };
  test.each([
    ['channel default, account "mention": the account\'s thread replies (all)', 'checked', inChannel(ON, { desktop: 'mention' }, { desktop: 'default' })],
    ['channel default, account "mention" with thread replies "mention"', 'unchecked', inChannel(ON, { desktop: 'mention', desktop_threads: 'mention' }, { desktop: 'default' })],
    ['channel "mention", account "all": the channel\'s own thread replies "mention"', 'unchecked', inChannel(ON, { desktop: 'all' }, { desktop: 'mention', desktop_threads: 'mention' })],
    ['channel thread replies "default" follow the account\'s', 'unchecked', inChannel(ON, { desktop: 'mention', desktop_threads: 'mention' }, { desktop: 'default', desktop_threads: 'default' })],
    ['channel "all"', 'absent', inChannel(ON, { desktop: 'mention' }, { desktop: 'all' })],
    ['channel "none"', 'absent', inChannel(ON, { desktop: 'mention' }, { desktop: 'none' })],
    ['channel default, account "all"', 'absent', inChannel(ON, { desktop: 'all' }, { desktop: 'default' })],
    ['group message at the account\'s "mention" (counts as all)', 'absent', inChannel(ON, { desktop: 'mention' }, { desktop: 'default' }, 'G')],
    ['threads not collapsed', 'absent', inChannel({ CollapsedThreads: 'disabled' }, { desktop: 'mention' }, { desktop: 'mention' })],
  ])('channel preferences: %s → %s', async (_name, want, state) => {
    expect(await box('Channel', state)).toBe(want);
  });
});

describe('the channel\'s desktop_threads saved from the box', () => {
  test.each([
    // chosen, account's, channel's stored → saved
    ['mention', 'all', undefined, 'mention'],
    ['mention', undefined, undefined, 'mention'],
    ['all', 'mention', undefined, 'all'],
    ['all', 'all', undefined, undefined],
    ['all', undefined, 'mention', 'default'],
    ['mention', 'mention', 'all', 'default'],
    ['mention', 'mention', 'default', undefined],
    [undefined, 'all', undefined, undefined],
    ['default', 'all', 'mention', undefined],
  ])('chosen %s, account %s, stored %s → %s', (chosen, user, stored, want) => {
    expect(threadsChoice(chosen, user, stored)).toBe(want);
  });
});
