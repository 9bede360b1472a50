import { textWords, withoutCode } from '../../src/app/mentions';
import {
  type MemberNotification,
  type NotifyConfig,
  type NotifyMember,
  type NotifyPost,
  decideNotifications,
  effectiveStatus,
} from '../../src/app/notify-rules';

// Given a post and the channel's members with their settings, want these recipients: one table for every rule, run
// for an API post and for the same post made by a webhook (whose creator is the poster).

type Flags = { mentioned?: boolean; desktop?: boolean; email?: boolean };

interface Case {
  name: string;
  message: string;
  channelType?: string;
  /** Member overrides by username; members not listed keep the defaults. */
  members?: Record<string, Partial<Omit<NotifyMember, 'userId' | 'username'>> & { notify?: Record<string, string>; channel?: Record<string, string> }>;
  post?: Partial<NotifyPost>;
  config?: Partial<NotifyConfig>;
  /** Wanted recipients by username: flags not given are false. */
  want: Record<string, Flags>;
  suppressed?: '@here' | '@channel' | '@all';
  /** Only for API posts (the webhook variant differs for the poster). */
  apiOnly?: boolean;
  /** Threads collapsed, replies: who follows the thread (usernames), as the post writer reads them. */
  followers?: string[];
  /** Wanted in the decision's `followers` (told so in `posted`), by username; none when absent. */
  toldFollowers?: string[];
}

const USER_DEFAULTS = { email: 'true', push: 'mention', desktop: 'mention', desktop_sound: 'true', mention_keys: '', channel: 'true', first_name: 'false', comments: 'never' };
const CHANNEL_DEFAULTS = { desktop: 'default', push: 'default', email: 'default', mark_unread: 'all', ignore_channel_mentions: 'default' };
const NAMES = ['poster', 'alice', 'bob', 'carol'];

function members(c: Case): NotifyMember[] {
  return NAMES.map((username) => {
    const o = c.members?.[username] ?? {};
    const { notify, channel, ...rest } = o;
    return {
      userId: `u-${username}`,
      username,
      firstName: username[0].toUpperCase() + username.slice(1),
      isBot: false,
      status: 'offline' as const,
      ...rest,
      notifyProps: { ...USER_DEFAULTS, ...notify },
      channelNotifyProps: { ...CHANNEL_DEFAULTS, ...channel },
    };
  });
}

const CONFIG: NotifyConfig = { maxNotificationsPerChannel: 1000, sendEmailNotifications: true, collapsedThreads: 'disabled' };

function decide(c: Case, webhook: boolean) {
  const post: NotifyPost = {
    id: 'p1',
    user_id: 'u-poster',
    channel_id: 'c1',
    root_id: '',
    type: '',
    message: c.message,
    props: webhook ? { from_webhook: 'true' } : {},
    ...c.post,
  };
  if (webhook) post.props = { ...post.props, from_webhook: 'true' };
  const followers = c.followers ? new Set(c.followers.map((n) => `u-${n}`)) : undefined;
  return decideNotifications(post, { id: 'c1', type: c.channelType ?? 'O', memberCount: NAMES.length }, members(c), { ...CONFIG, ...c.config }, { followers });
}

const byName = (recipients: MemberNotification[]) =>
  Object.fromEntries(recipients.map((r) => [r.userId.slice(2), { mentioned: r.mentioned, desktop: r.desktop, email: r.email }]));
const full = (want: Record<string, Flags>) =>
  Object.fromEntries(Object.entries(want).map(([k, f]) => [k, { mentioned: f.mentioned ?? false, desktop: f.desktop ?? false, email: f.email ?? false }]));

/** Mentioned while offline with default settings: counted, desktop and email. */
const M = { mentioned: true, desktop: true, email: true };

const CASES: Case[] = [
  { name: 'nobody', message: 'hello', want: {} },
  { name: '@username', message: 'hi @alice', want: { alice: M } },
  { name: 'case-insensitive, trailing punctuation', message: 'thanks @ALICE.', want: { alice: M } },
  { name: 'a non-member name mentions nobody', message: 'hi @dave', want: {} },
  { name: 'not inside an e-mail address', message: 'mail alice@example.com', want: {} },
  { name: 'not in a code span', message: 'run `@alice` then ask @bob', want: { bob: M } },
  { name: 'not in a double-backtick span', message: '``@alice ` `` and @bob', want: { bob: M } },
  { name: 'not in a fenced block', message: '```\n@alice @channel\n```\n@bob', want: { bob: M } },
  { name: 'not in an indented block', message: 'see:\n\n    @alice\n\n@bob', want: { bob: M } },
  { name: 'an indented line inside a paragraph is text', message: 'see\n    @alice', want: { alice: M } },
  { name: 'the poster never mentions themselves', message: '@poster hi', want: {}, apiOnly: true },
  { name: '@channel: every member', message: '@channel', want: { alice: M, bob: M, carol: M }, apiOnly: true },
  { name: '@all: every member', message: '@all ship it', want: { alice: M, bob: M, carol: M }, apiOnly: true },
  {
    name: '@here: online members only (no email: they are online)',
    message: '@here',
    members: { alice: { status: 'online' }, bob: { status: 'away' }, carol: { status: 'dnd' } },
    want: { alice: { mentioned: true, desktop: true } },
  },
  {
    name: "@channel: not with the channel's ignore_channel_mentions on",
    message: '@channel',
    members: { alice: { channel: { ignore_channel_mentions: 'on' } } },
    want: { bob: M, carol: M },
    apiOnly: true,
  },
  {
    name: "@channel: not with the user's channel off",
    message: '@all',
    members: { alice: { notify: { channel: 'false' } } },
    want: { bob: M, carol: M },
    apiOnly: true,
  },
  {
    name: '@channel: not in a muted channel left at default (Mattermost), yes with ignore_channel_mentions off',
    message: '@channel',
    members: { alice: { channel: { mark_unread: 'mention' } }, bob: { channel: { mark_unread: 'mention', ignore_channel_mentions: 'off' } } },
    want: { bob: { mentioned: true }, carol: M },
    apiOnly: true,
  },
  {
    name: 'muted channel: an @mention counts, but no desktop and no email',
    message: '@alice',
    members: { alice: { channel: { mark_unread: 'mention' } } },
    want: { alice: { mentioned: true } },
  },
  {
    name: 'mention_keys: comma-separated words, any case, trimmed',
    message: 'The DEPLOY of Parley-Web is done',
    members: { alice: { notify: { mention_keys: 'release, deploy' } }, bob: { notify: { mention_keys: 'parley' } }, carol: { notify: { mention_keys: 'web,' } } },
    want: { alice: M, bob: M, carol: M },
  },
  {
    name: 'mention_keys: a whole word only, not in code',
    message: 'deployment `deploy`',
    members: { alice: { notify: { mention_keys: 'deploy' } } },
    want: {},
  },
  {
    name: 'first_name "true": the first name as written',
    message: 'ask Alice or bob',
    members: { alice: { notify: { first_name: 'true' } }, bob: { notify: { first_name: 'true' } } },
    want: { alice: M },
  },
  { name: 'first_name "false" (the default): not mentioned', message: 'ask Alice', want: {} },
  { name: 'direct message: the other member always', message: 'no mention here', channelType: 'D', want: { alice: M, bob: M, carol: M }, apiOnly: true },
  { name: 'group message: every other member', message: 'lunch?', channelType: 'G', want: { alice: M, bob: M, carol: M }, apiOnly: true },
  {
    name: 'desktop "all": told of every post, not mentioned',
    message: 'hello',
    members: { alice: { notify: { desktop: 'all' } }, bob: { channel: { desktop: 'all' } } },
    want: { alice: { desktop: true }, bob: { desktop: true } },
  },
  {
    name: 'desktop "none" (user, or channel over user "all"): mentioned, no desktop',
    message: '@alice @bob',
    members: { alice: { notify: { desktop: 'none' } }, bob: { notify: { desktop: 'all' }, channel: { desktop: 'none' } } },
    want: { alice: { mentioned: true, email: true }, bob: { mentioned: true, email: true } },
  },
  {
    name: 'email "false" (user), channel email overrides either way',
    message: '@alice @bob @carol',
    members: { alice: { notify: { email: 'false' } }, bob: { notify: { email: 'false' }, channel: { email: 'true' } }, carol: { channel: { email: 'false' } } },
    want: { alice: { mentioned: true, desktop: true }, bob: M, carol: { mentioned: true, desktop: true } },
  },
  {
    name: 'email only when away or offline; dnd: no desktop, no email',
    message: '@alice @bob @carol',
    members: { alice: { status: 'online' }, bob: { status: 'away' }, carol: { status: 'dnd' } },
    want: { alice: { mentioned: true, desktop: true }, bob: M, carol: { mentioned: true } },
  },
  { name: 'no email when SendEmailNotifications is off', message: '@alice', config: { sendEmailNotifications: false }, want: { alice: { mentioned: true, desktop: true } } },
  { name: 'bots get no email', message: '@alice', members: { alice: { isBot: true } }, want: { alice: { mentioned: true, desktop: true } } },
  {
    name: 'a header change post mentions by name but not channel-wide',
    message: '@channel @alice',
    post: { type: 'system_header_change' },
    want: { alice: { mentioned: true, email: true } },
    apiOnly: true,
  },
  {
    name: 'reply, comments "any": the root author and repliers',
    message: 'a reply',
    post: { root_id: 'root1' },
    members: {
      alice: { notify: { comments: 'any' }, threadRole: 'root' },
      bob: { notify: { comments: 'any' }, threadRole: 'replied' },
      carol: { notify: { comments: 'any' } },
    },
    want: { alice: M, bob: M },
  },
  {
    name: 'reply, comments "root": only the root author; "never": nobody',
    message: 'a reply',
    post: { root_id: 'root1' },
    members: {
      alice: { notify: { comments: 'root' }, threadRole: 'root' },
      bob: { notify: { comments: 'root' }, threadRole: 'replied' },
      carol: { notify: { comments: 'never' }, threadRole: 'root' },
    },
    want: { alice: M },
  },
  {
    name: 'reply with collapsed threads on: `comments` does not apply (followers are told instead)',
    message: 'a reply',
    post: { root_id: 'root1' },
    config: { collapsedThreads: 'always_on' },
    members: { alice: { notify: { comments: 'any', desktop: 'all' }, threadRole: 'root' }, bob: { notify: { desktop: 'all' } } },
    followers: ['alice'],
    want: { alice: { desktop: true } },
    toldFollowers: ['alice'],
  },
  {
    name: 'collapsed threads, a reply: every follower is told; desktop at "all", or at "mention" with thread replies on',
    message: 'a reply',
    post: { root_id: 'root1' },
    config: { collapsedThreads: 'always_on' },
    members: {
      alice: { notify: { desktop: 'all' } },
      // `desktop_threads` unset reads as "all" (Mattermost's default): thread replies notify at "mention".
      bob: { notify: { desktop: 'mention' } },
      carol: { notify: { desktop: 'mention', desktop_threads: 'mention' } },
    },
    followers: ['alice', 'bob', 'carol'],
    want: { alice: { desktop: true }, bob: { desktop: true } },
    toldFollowers: ['alice', 'bob', 'carol'],
  },
  {
    name: 'collapsed threads, a reply: a member at "all" who does not follow the thread is neither told nor notified',
    message: 'a reply',
    post: { root_id: 'root1' },
    config: { collapsedThreads: 'default_on' },
    members: { alice: { notify: { desktop: 'all' } }, bob: { notify: { desktop: 'all' } } },
    followers: ['bob'],
    want: { bob: { desktop: true } },
    toldFollowers: ['bob'],
  },
  {
    name: 'collapsed threads, a reply: followers who muted the channel, chose none or are dnd are told but not notified',
    message: 'a reply',
    post: { root_id: 'root1' },
    config: { collapsedThreads: 'always_on' },
    members: {
      alice: { notify: { desktop: 'all' }, channel: { mark_unread: 'mention' } },
      bob: { notify: { desktop: 'none' } },
      carol: { notify: { desktop: 'all' }, status: 'dnd' },
    },
    followers: ['alice', 'bob', 'carol'],
    want: {},
    toldFollowers: ['alice', 'bob', 'carol'],
  },
  {
    name: "collapsed threads, a reply: the channel's desktop_threads overrides the user's",
    message: 'a reply',
    post: { root_id: 'root1' },
    config: { collapsedThreads: 'always_on' },
    members: {
      alice: { notify: { desktop: 'mention', desktop_threads: 'all' }, channel: { desktop_threads: 'mention' } },
      bob: { notify: { desktop: 'mention', desktop_threads: 'mention' }, channel: { desktop_threads: 'all' } },
    },
    followers: ['alice', 'bob'],
    want: { bob: { desktop: true } },
    toldFollowers: ['alice', 'bob'],
  },
  {
    name: 'collapsed threads, a reply mentioning a non-follower: mentioned as ever',
    message: 'over to @carol',
    post: { root_id: 'root1' },
    config: { collapsedThreads: 'always_on' },
    followers: ['alice'],
    want: { alice: { desktop: true }, carol: M },
    toldFollowers: ['alice'],
  },
  {
    name: 'collapsed threads: a root post tells no followers',
    message: 'a new thread',
    config: { collapsedThreads: 'always_on' },
    members: { alice: { notify: { desktop: 'all' } } },
    followers: ['alice'],
    want: { alice: { desktop: true } },
  },
  {
    name: 'threads not collapsed: no followers are told, a reply at "all" notifies every member at "all"',
    message: 'a reply',
    post: { root_id: 'root1' },
    config: { collapsedThreads: 'disabled' },
    members: { alice: { notify: { desktop: 'all' } }, bob: { notify: { desktop: 'all' } } },
    followers: ['alice'],
    want: { alice: { desktop: true }, bob: { desktop: true } },
  },
];

describe('decideNotifications', () => {
  for (const [kind, webhook] of [
    ['API post', false],
    ['webhook post', true],
  ] as const) {
    describe(kind, () => {
      test.each(CASES.filter((c) => !(webhook && c.apiOnly)).map((c) => [c.name, c] as const))('%s', (_name, c) => {
        const d = decide(c, webhook);
        expect(byName(d.recipients)).toEqual(full(c.want));
        expect([...d.mentioned].sort()).toEqual(Object.entries(c.want).filter(([, f]) => f.mentioned).map(([n]) => `u-${n}`).sort());
        expect(d.channelWideSuppressed).toBe(c.suppressed);
        expect(d.followers).toEqual(c.toldFollowers?.map((n) => `u-${n}`).sort());
      });
    });
  }

  test("collapsed threads: the reply's poster is never told it follows, a webhook's creator may be", () => {
    const c: Case = { name: '', message: 'a reply', post: { root_id: 'root1' }, config: { collapsedThreads: 'always_on' }, followers: ['poster', 'alice'], want: {} };
    expect(decide(c, false).followers).toEqual(['u-alice']);
    expect(decide(c, true).followers).toEqual(['u-alice', 'u-poster']);
  });

  test('a webhook may mention (and notify) its own creator, an API post never its poster', () => {
    const c: Case = { name: '', message: '@poster and @channel', want: {} };
    expect(decide(c, false).mentioned.sort()).toEqual(['u-alice', 'u-bob', 'u-carol']);
    expect(decide(c, true).mentioned.sort()).toEqual(['u-alice', 'u-bob', 'u-carol', 'u-poster']);
    const dm: Case = { name: '', message: 'hi', channelType: 'D', want: {} };
    expect(decide(dm, true).mentioned).toContain('u-poster');
  });

  describe('channel-wide mentions in a channel above MaxNotificationsPerChannel', () => {
    const big = (message: string, max: number) =>
      decideNotifications({ id: 'p', user_id: 'u-poster', channel_id: 'c', root_id: '', type: '', message, props: {} }, { id: 'c', type: 'O', memberCount: 4 }, members({ name: '', message, want: {} }), { ...CONFIG, maxNotificationsPerChannel: max });
    test.each<[string, string, number, string[], string | undefined]>([
      ['@channel ignored above the limit, the poster is warned', '@channel', 3, [], '@channel'],
      ['@channel applies at exactly the limit', '@channel', 4, ['u-alice', 'u-bob', 'u-carol'], undefined],
      ['@all ignored above the limit', '@all', 3, [], '@all'],
      ['@here ignored above the limit (and named first)', '@all @here', 1, [], '@here'],
      ['a name still counts above the limit', '@channel @bob', 1, ['u-bob'], '@channel'],
      ['no warning without a channel-wide mention', '@bob', 1, ['u-bob'], undefined],
    ])('%s', (_name, message, max, want, suppressed) => {
      const d = big(message, max);
      expect(d.mentioned.sort()).toEqual(want);
      expect(d.channelWideSuppressed).toBe(suppressed);
    });
  });
});

describe('effectiveStatus', () => {
  const NOW = 1_700_000_000_000;
  const AWAY = 5 * 60 * 1000;
  const row = (status: string, extra: Partial<{ manual: boolean; dnd_end_time: number; prev_status: string }> = {}) => ({ status, manual: false, dnd_end_time: 0, prev_status: '', ...extra });
  test.each<[string, ReturnType<typeof row> | undefined, number, string]>([
    ['no row, active within the window: online', undefined, NOW - AWAY, 'online'],
    ['no row, quiet: offline', undefined, NOW - AWAY - 1, 'offline'],
    ['online row, quiet: away', row('online'), NOW - AWAY - 1, 'away'],
    ['online row, active: online', row('online'), NOW - 1000, 'online'],
    ['offline row (sockets closed): offline even if active', row('offline'), NOW, 'offline'],
    ['manual away stays away', row('away', { manual: true }), NOW, 'away'],
    ['dnd', row('dnd', { manual: true }), NOW, 'dnd'],
    ['dnd that has ended: back to what it replaced', row('dnd', { manual: true, dnd_end_time: NOW / 1000 - 1, prev_status: 'away' }), NOW, 'away'],
  ])('%s', (_name, stored, lastActivity, want) => {
    expect(effectiveStatus(stored, lastActivity, NOW, AWAY)).toBe(want);
  });
});

describe('code and words', () => {
  test.each<[string, string, string]>([
    ['fenced', 'a\n```js\n@x\n```\nb', 'a\n\n\n\nb'],
    ['a longer closing fence closes', '````\n@x\n`````\nb', '\n\n\nb'],
    ['a shorter one does not', '````\n@x\n```\n@y', '\n\n\n'],
    ['a fence opener on the last line is text', 'a\n```@x', 'a\n```@x'],
    ['indented after a blank line', 'a\n\n    @x\n\tb\nc', 'a\n\n\n\nc'],
    ['code span pairs equal runs only', '`` a ` b `` c', '  c'],
    ['unmatched run is literal', '`a', '`a'],
  ])('withoutCode: %s', (_name, text, want) => {
    expect(withoutCode(text)).toBe(want);
  });

  test('words: as written, without trailing punctuation, and their parts', () => {
    const w = textWords(['Hello, release-1.2: go! :smile: foo_bar.']);
    expect([...w.exact].sort()).toEqual(['1', '2', 'Hello', 'foo_bar', 'foo_bar.', 'go', 'release', 'release-1.2', 'release-1.2:'].sort());
    expect(w.lower.has('hello')).toBe(true);
    expect(w.lower.has('smile')).toBe(false);
  });

  test('linear: long texts of code markers and words stay fast', () => {
    const size = 300_000;
    const texts = ['`'.repeat(1) + ' `` '.repeat(size / 4), '```\n'.repeat(size / 4), '    a\n\n'.repeat(size / 7), 'a-'.repeat(size / 2), ':a'.repeat(size / 2)];
    const start = Date.now();
    for (const t of texts) {
      withoutCode(t);
      textWords([t]);
    }
    expect(Date.now() - start).toBeLessThan(3000);
  });
});
