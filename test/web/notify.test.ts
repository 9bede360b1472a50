// The web client's desktop notification rule, texts and tab signs (web/src/notify.ts). The rule must agree with the
// server's (src/app/notify-rules.ts): the server decides who is mentioned, the page applies the viewer's settings
// to that, and both must reach the same answer for every combination of settings.
import { decideNotifications, type NotifyMember } from '../../src/app/notify-rules';
import { desktopLevel, faviconPath, isMuted, notificationBody, plainFirstLine, tabTitle, unreadSigns, wantsDesktop, type DesktopCase } from '../../web/src/notify';
import { initialState, type AppState } from '../../web/src/state/app-state';

const ME = 'me0000000000000000000000aa';
const BOB = 'bob000000000000000000000aa';

function desktopCase(over: Partial<DesktopCase> = {}): DesktopCase {
  return {
    post: { user_id: BOB, type: '', root_id: '', props: {} },
    channelType: 'O',
    meId: ME,
    userProps: { desktop: 'mention' },
    member: { notify_props: { desktop: 'default', mark_unread: 'all' } },
    mentioned: false,
    status: 'online',
    collapsedThreads: true,
    following: false,
    ...over,
  };
}

describe('desktop notification rule', () => {
  test.each<[string, Partial<DesktopCase>, boolean]>([
    ['mentioned, user at mention', { mentioned: true }, true],
    ['not mentioned, user at mention', {}, false],
    ['not mentioned, user at all', { userProps: { desktop: 'all' } }, true],
    ['mentioned, user at none', { mentioned: true, userProps: { desktop: 'none' } }, false],
    ['channel all overrides user none', { userProps: { desktop: 'none' }, member: { notify_props: { desktop: 'all' } } }, true],
    ['channel none overrides user all, even mentioned', { mentioned: true, userProps: { desktop: 'all' }, member: { notify_props: { desktop: 'none' } } }, false],
    ['channel mention, user all, not mentioned', { userProps: { desktop: 'all' }, member: { notify_props: { desktop: 'mention' } } }, false],
    ['muted channel never, even mentioned', { mentioned: true, member: { notify_props: { desktop: 'all', mark_unread: 'mention' } } }, false],
    ['dnd never', { mentioned: true, status: 'dnd' }, false],
    ['out of office never', { mentioned: true, status: 'ooo' }, false],
    ['away still notified', { mentioned: true, status: 'away' }, true],
    ['system messages never', { mentioned: true, post: { user_id: BOB, type: 'system_join_channel', root_id: '', props: {} } }, false],
    ['own post never', { mentioned: true, post: { user_id: ME, type: '', root_id: '', props: {} } }, false],
    ['own webhook post may', { mentioned: true, post: { user_id: ME, type: '', root_id: '', props: { from_webhook: 'true' } } }, true],
    ['group message at mention counts as all', { channelType: 'G' }, true],
    ['direct message (mentioned by the server)', { channelType: 'D', mentioned: true }, true],
    ['unknown membership: the user setting', { member: undefined, userProps: { desktop: 'all' } }, true],
    ['user setting unset reads as all (as the server)', { userProps: {} }, true],
    ['collapsed threads: reply at all, thread not followed', { userProps: { desktop: 'all' }, post: { user_id: BOB, type: '', root_id: 'root', props: {} } }, false],
    ['collapsed threads: reply at all, thread followed', { userProps: { desktop: 'all' }, following: true, post: { user_id: BOB, type: '', root_id: 'root', props: {} } }, true],
    ['collapsed threads: reply at mention, followed, thread replies on by default', { following: true, post: { user_id: BOB, type: '', root_id: 'root', props: {} } }, true],
    ['collapsed threads: reply at mention, followed, thread replies off', { userProps: { desktop: 'mention', desktop_threads: 'mention' }, following: true, post: { user_id: BOB, type: '', root_id: 'root', props: {} } }, false],
    ["collapsed threads: the channel's thread replies setting overrides the user's", { userProps: { desktop: 'mention', desktop_threads: 'mention' }, member: { notify_props: { desktop: 'default', desktop_threads: 'all' } }, following: true, post: { user_id: BOB, type: '', root_id: 'root', props: {} } }, true],
    ['collapsed threads: reply at mention, not followed', { post: { user_id: BOB, type: '', root_id: 'root', props: {} } }, false],
    ['collapsed threads: a followed reply in a muted channel never', { userProps: { desktop: 'all' }, member: { notify_props: { mark_unread: 'mention' } }, following: true, post: { user_id: BOB, type: '', root_id: 'root', props: {} } }, false],
    ['threads not collapsed: every reply at all', { userProps: { desktop: 'all' }, collapsedThreads: false, post: { user_id: BOB, type: '', root_id: 'root', props: {} } }, true],
  ])('%s', (_name, over, want) => {
    expect(wantsDesktop(desktopCase(over))).toBe(want);
  });

  test('desktop level: the channel unless default, else the user', () => {
    expect(desktopLevel('O', { desktop: 'none' }, { notify_props: { desktop: 'default' } })).toBe('none');
    expect(desktopLevel('O', { desktop: 'none' }, { notify_props: { desktop: 'all' } })).toBe('all');
    expect(desktopLevel('G', { desktop: 'mention' }, undefined)).toBe('all');
    expect(isMuted({ notify_props: { mark_unread: 'mention' } })).toBe(true);
    expect(isMuted({ notify_props: { mark_unread: 'all' } })).toBe(false);
  });

  // Every combination of the settings the two sides read: the client, given the server's `mentioned` and `followers`,
  // reaches the server's desktop decision.
  test('agrees with the server rule for every combination of settings', () => {
    const config = { maxNotificationsPerChannel: 1000, sendEmailNotifications: false, collapsedThreads: 'always_on' };
    let checked = 0;
    for (const channelType of ['O', 'P', 'G', 'D'])
      for (const userDesktop of ['all', 'mention', 'none'])
        for (const chanDesktop of ['default', 'all', 'mention', 'none'])
          for (const markUnread of ['all', 'mention'])
            for (const status of ['online', 'away', 'offline', 'dnd'] as const)
              for (const message of ['hello', '@me0 look', '@channel look'])
                for (const type of ['', 'system_header_change'])
                  for (const thread of ['root post', 'reply, followed', 'reply, not followed'])
                    for (const desktopThreads of ['', 'mention']) {
                      const member: NotifyMember = {
                        userId: ME,
                        username: 'me0',
                        firstName: '',
                        isBot: false,
                        notifyProps: { desktop: userDesktop, channel: 'true', ...(desktopThreads ? { desktop_threads: desktopThreads } : {}) },
                        channelNotifyProps: { desktop: chanDesktop, mark_unread: markUnread },
                        status,
                      };
                      const post = { id: 'p', user_id: BOB, channel_id: 'c', root_id: thread === 'root post' ? '' : 'r', type, message, props: {} };
                      const followers = new Set(thread === 'reply, followed' ? [ME] : []);
                      const server = decideNotifications(post, { id: 'c', type: channelType, memberCount: 2 }, [member], config, { followers });
                      const mine = server.recipients.find((r) => r.userId === ME);
                      const client = wantsDesktop({
                        post,
                        channelType,
                        meId: ME,
                        userProps: member.notifyProps,
                        member: { notify_props: member.channelNotifyProps },
                        mentioned: server.mentioned.includes(ME),
                        status,
                        collapsedThreads: true,
                        following: server.followers?.includes(ME) ?? false,
                      });
                      const given = [channelType, userDesktop, chanDesktop, markUnread, status, message, type, thread, desktopThreads];
                      expect([...given, client]).toEqual([...given, mine?.desktop ?? false]);
                      checked++;
                    }
    expect(checked).toBe(4 * 3 * 4 * 2 * 4 * 3 * 2 * 3 * 2);
  });
});

describe('notification text', () => {
  test.each([
    ['plain', 'hello there', 'hello there'],
    ['first line only', 'first\nsecond', 'first'],
    ['skips blank lines', '\n\n  \nthird', 'third'],
    ['bold and italics', '**Deploy** is _done_', 'Deploy is done'],
    ['strike-through', '~~old~~ new', 'old new'],
    ['inline code', 'run `npm ci` now', 'run npm ci now'],
    ['link', 'see [the docs](https://example.com/x)', 'see the docs'],
    ['image', '![a chart](https://example.com/c.png)', 'a chart'],
    ['heading', '### Release notes', 'Release notes'],
    ['quote', '> quoted text', 'quoted text'],
    ['list item', '- first item', 'first item'],
    ['numbered item', '1. step one', 'step one'],
    ['task item', '- [x] done task', 'done task'],
    ['code fence skipped', '```\ncode line\n```\nafter', 'after'],
    ['only a fence', '```js\nx()\n```', ''],
    ['rule skipped', '---\ntext', 'text'],
    ['html stays text', '<b>hi</b> & bye', '<b>hi</b> & bye'],
    ['mentions kept', '@alice can you look?', '@alice can you look?'],
    ['whitespace collapsed', 'a   b\tc', 'a b c'],
  ])('%s', (_name, message, want) => {
    expect(plainFirstLine(message)).toBe(want);
  });

  test('body: sender and first line, cut at 50 characters; attachments and files when there is no text', () => {
    expect(notificationBody({ message: '@alice **can** you check the deploy?\nthanks', props: {} }, '@bob')).toBe('@bob: @alice can you check the deploy?');
    const long = 'x'.repeat(80);
    expect(notificationBody({ message: long, props: {} }, '@bob')).toBe(`@bob: ${'x'.repeat(49)}…`);
    expect(notificationBody({ message: '', props: { attachments: [{ fallback: 'Build *failed*' }] } }, 'ci-bot')).toBe('ci-bot: Build failed');
    expect(notificationBody({ message: '', props: {}, file_ids: ['f1'] }, '@bob')).toBe('@bob attached a file.');
    expect(notificationBody({ message: '', props: {} }, '@bob')).toBe('@bob posted a message.');
  });
});

describe('tab title and favicon', () => {
  const channel = (id: string, name: string, display: string, total: number) => ({ id, name, display_name: display, type: 'O', team_id: 't1', total_msg_count: total, delete_at: 0 }) as AppState['channels'][string];
  const member = (channelId: string, msgs: number, mentions: number, markUnread = 'all') => ({ channel_id: channelId, user_id: ME, msg_count: msgs, mention_count: mentions, notify_props: { mark_unread: markUnread } }) as unknown as AppState['members'][string];
  const state = (members: AppState['members']): AppState => ({
    ...initialState,
    config: { SiteName: 'Parley' },
    teams: [{ id: 't1', name: 'team-a', display_name: 'Team A' } as AppState['teams'][number]],
    currentTeamId: 't1',
    currentChannelId: 'c1',
    channels: { c1: channel('c1', 'town-square', 'Town Square', 5), c2: channel('c2', 'deploys', 'Deploys', 4), c3: channel('c3', 'off-topic', 'Off-Topic', 2) },
    teamChannels: { t1: ['c1', 'c2', 'c3'] },
    members,
  });

  test('mentions of the other channels counted, as Mattermost words the title', () => {
    const s = state({ c1: member('c1', 5, 0), c2: member('c2', 1, 3), c3: member('c3', 2, 0) });
    expect(tabTitle(s)).toBe('(3) Town Square - Team A Parley');
    expect(unreadSigns(s)).toEqual({ mentions: 3, unread: true });
  });

  test('unread without mentions: a star; everything read: the plain title and icon', () => {
    expect(tabTitle(state({ c1: member('c1', 5, 0), c2: member('c2', 4, 0), c3: member('c3', 1, 0) }))).toBe('* Town Square - Team A Parley');
    const read = state({ c1: member('c1', 5, 0), c2: member('c2', 4, 0), c3: member('c3', 2, 0) });
    expect(tabTitle(read)).toBe('Town Square - Team A Parley');
    expect(unreadSigns(read).unread).toBe(false);
    expect(faviconPath(false)).toBe('/favicon.svg');
    expect(faviconPath(true)).toBe('/favicon-unread.svg');
  });

  test('a muted channel is not unread, but its mentions still count', () => {
    expect(unreadSigns(state({ c2: member('c2', 1, 0, 'mention'), c3: member('c3', 2, 0) }))).toEqual({ mentions: 0, unread: false });
    expect(unreadSigns(state({ c2: member('c2', 1, 2, 'mention'), c3: member('c3', 2, 0) }))).toEqual({ mentions: 2, unread: true });
  });

  test('the open channel does not count', () => {
    expect(tabTitle(state({ c1: member('c1', 0, 4), c2: member('c2', 4, 0), c3: member('c3', 2, 0) }))).toBe('Town Square - Team A Parley');
  });
});
