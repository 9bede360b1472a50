import { MAX_POSTS_PER_ROW, emailRows } from '../../src/app/email-notifications';
import { MAX_ITEMS_PER_EMAIL, type EmailItem, escapeHtml, plain, renderBatch, renderSingle } from '../../src/app/email-render';
import { batchIntervalSeconds, retryDelayMs } from '../../src/app/email-worker';

const AT = Date.UTC(2026, 4, 4, 15, 30); // May 4, 2026
const item = (over: Partial<EmailItem> = {}): EmailItem => ({
  senderName: 'alice',
  channelType: 'O',
  channelName: 'Ops',
  message: 'deploy done',
  createAt: AT,
  link: 'http://chat.example.com/team/pl/p1',
  ...over,
});
const opts = { siteName: 'Parley', contents: 'full' as const, timeZone: '' };

describe('subjects (as Mattermost words them)', () => {
  test.each([
    ['channel mention', item(), opts, '[Parley] New Mention in Ops on May 4, 2026'],
    ['direct message', item({ channelType: 'D', channelName: 'Direct Message' }), opts, '[Parley] New Direct Message from @alice on May 4, 2026'],
    ['group message, full', item({ channelType: 'G', channelName: 'alice, bob' }), opts, '[Parley] New Group Message in alice, bob on May 4, 2026'],
    ['group message, generic', item({ channelType: 'G', channelName: 'alice, bob' }), { ...opts, contents: 'generic' as const }, '[Parley] New Group Message on May 4, 2026'],
    ['the recipient’s time zone', item({ createAt: Date.UTC(2026, 4, 4, 23, 30) }), { ...opts, timeZone: 'Asia/Tokyo' }, '[Parley] New Mention in Ops on May 5, 2026'],
    ['an unknown time zone reads as UTC', item(), { ...opts, timeZone: 'Mars/Olympus' }, '[Parley] New Mention in Ops on May 4, 2026'],
    ['newlines in a name do not reach the subject', item({ channelName: 'Ops\r\nBcc: x@y' }), opts, '[Parley] New Mention in Ops Bcc: x@y on May 4, 2026'],
  ])('%s', (_name, given, options, want) => {
    expect(renderSingle(given, options).subject).toBe(want);
  });

  test('each zone keeps its own date however many zones were seen (formatters are cached, the cache bounded)', () => {
    const late = item({ createAt: Date.UTC(2026, 4, 4, 23, 30) });
    for (let i = 0; i < 1200; i++) expect(renderSingle(late, { ...opts, timeZone: `Nowhere/Zone${i}` }).subject).toContain('May 4, 2026');
    expect(renderSingle(late, { ...opts, timeZone: 'Asia/Tokyo' }).subject).toContain('May 5, 2026');
    expect(renderSingle(late, { ...opts, timeZone: 'America/Los_Angeles' }).subject).toContain('May 4, 2026');
    expect(renderSingle(late, { ...opts, timeZone: 'Asia/Tokyo' }).subject).toContain('May 5, 2026');
  });

  test('a batch: "New Notifications for" the first post\'s date', () => {
    expect(renderBatch([item(), item()], opts).subject).toBe('[Parley] New Notifications for May 4, 2026');
    expect(renderBatch([item()], opts).subject).toBe('[Parley] New Notification for May 4, 2026');
  });
});

describe('escaping', () => {
  test.each([
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    [`"quoted" & 'single'`, '&quot;quoted&quot; &amp; &#39;single&#39;'],
    ['plain', 'plain'],
  ])('escapeHtml(%j)', (given, want) => expect(escapeHtml(given)).toBe(want));

  test('control characters go, line breaks stay (CRLF and CR as LF)', () => {
    expect(plain('a\r\nb\rc\u0000d\u0007e\tf\u2028g')).toBe('a\nb\ncde\tfg');
  });

  test('every user-supplied field is escaped in the HTML part, kept as written in the text part', () => {
    const evil = item({ senderName: '<b>al</b>', channelName: '<i>Ops</i>', message: '<img src=x onerror=alert(1)>\nline 2', link: 'http://x/t/pl/1?a="b"' });
    const email = renderSingle(evil, opts);
    expect(email.html).not.toMatch(/<img|<b>|<i>/);
    expect(email.html).toContain('&lt;img src=x onerror=alert(1)&gt;<br>\nline 2');
    expect(email.html).toContain('href="http://x/t/pl/1?a=&quot;b&quot;"');
    expect(email.text).toContain('<img src=x onerror=alert(1)>\nline 2');
  });

  test('a message of nothing but specials is escaped whole', () => {
    const email = renderSingle(item({ message: '<&'.repeat(50_000) }), opts);
    expect(email.html).toContain('&lt;&amp;'.repeat(50_000));
  });
});

describe('contents', () => {
  test('generic leaves the message out, keeps who and where and the link', () => {
    const email = renderSingle(item({ message: 'the secret' }), { ...opts, contents: 'generic' });
    for (const part of [email.text, email.html]) {
      expect(part).not.toContain('the secret');
      expect(part).toContain('@alice');
      expect(part).toContain('Ops');
      expect(part).toContain('http://chat.example.com/team/pl/p1');
    }
  });

  test(`a batch lists at most ${MAX_ITEMS_PER_EMAIL} posts and counts the rest`, () => {
    const items = Array.from({ length: MAX_ITEMS_PER_EMAIL + 3 }, (_, i) => item({ message: `message #${i}#` }));
    const email = renderBatch(items, opts);
    expect(email.text).toContain(`message #${MAX_ITEMS_PER_EMAIL - 1}#`);
    expect(email.text).not.toContain(`message #${MAX_ITEMS_PER_EMAIL}#`);
    expect(email.text).toContain('...and 3 more.');
    expect(email.text).toContain(`You have ${MAX_ITEMS_PER_EMAIL + 3} new notifications`);
  });
});

describe('schedule', () => {
  test.each([
    [1, 1000],
    [2, 2000],
    [5, 16000],
    [20, 600000],
    [1000, 600000],
  ])('retry %i waits %i ms', (attempts, want) => expect(retryDelayMs(attempts)).toBe(want));

  test.each([
    [undefined, 900],
    ['900', 900],
    ['3600', 3600],
    ['2', 2],
    ['soon', 900],
    ['-5', 900],
    ['1.5', 900],
  ])('email_interval %j batches for %i s', (value, want) => expect(batchIntervalSeconds(value)).toBe(want));
});

describe('outbox rows from the rules’ decision', () => {
  const channel = { id: 'c1', team_id: 't1' } as never;
  const post = (id: string) => ({ id, create_at: 5 }) as never;
  const recipient = (userId: string, email = true) => ({ userId, mentioned: true, desktop: true, email });
  const decided = (entries: Array<[string, string[]]>) =>
    new Map(entries.map(([postId, users]) => [postId, { recipients: users.map((u) => recipient(u)), mentioned: users }]));

  test('one row per recipient and channel, listing their posts in order; none for recipients without email', () => {
    let n = 0;
    const rows = emailRows(
      [
        {
          channel,
          posts: [post('p1'), post('p2')],
          notifications: new Map([
            ['p1', { recipients: [recipient('u1'), recipient('u2', false)], mentioned: ['u1', 'u2'] }],
            ['p2', { recipients: [{ userId: 'u1', mentioned: true, desktop: false, email: true }], mentioned: ['u1'] }],
          ]),
        },
      ],
      100,
      () => `r${++n}`,
    );
    expect(rows).toEqual([{ id: 'r1', user_id: 'u1', post_ids: ['p1', 'p2'], channel_id: 'c1', team_id: 't1', create_at: 5, next_attempt_at: 100, attempts: 0 }]);
  });

  test.each([
    ['two commits in one channel share the rows', [['c1', [['p1', ['u1', 'u2']]]], ['c1', [['p2', ['u2']], ['p3', ['u1']]]]], [['u1', 'c1', ['p1', 'p3']], ['u2', 'c1', ['p1', 'p2']]]],
    ['another channel is another row', [['c1', [['p1', ['u1']]]], ['c2', [['p2', ['u1']]]], ['c1', [['p3', ['u1']]]]], [['u1', 'c1', ['p1', 'p3']], ['u1', 'c2', ['p2']]]],
    ['a post for nobody adds nothing', [['c1', [['p1', []], ['p2', ['u1']]]]], [['u1', 'c1', ['p2']]]],
  ] as Array<[string, Array<[string, Array<[string, string[]]>]>, Array<[string, string, string[]]>]>)('%s', (_name, given, want) => {
    const commits = given.map(([channelId, posts]) => ({
      channel: { id: channelId, team_id: 't1' } as never,
      posts: posts.map(([id]) => post(id)),
      notifications: decided(posts),
    }));
    expect(emailRows(commits, 1).map((r) => [r.user_id, r.channel_id, r.post_ids])).toEqual(want);
  });

  test(`a recipient's row lists at most ${MAX_POSTS_PER_ROW} posts; the rest start another`, () => {
    const ids = Array.from({ length: MAX_POSTS_PER_ROW + 3 }, (_, i) => `p${i}`);
    const rows = emailRows([{ channel, posts: ids.map(post), notifications: decided(ids.map((id) => [id, ['u1']])) }], 1);
    expect(rows.map((r) => r.post_ids)).toEqual([ids.slice(0, MAX_POSTS_PER_ROW), ids.slice(MAX_POSTS_PER_ROW)]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
  });

  test('no decision, no rows', () => {
    expect(emailRows([{ channel, posts: [post('p1')] }], 1)).toEqual([]);
    expect(emailRows([{ channel, posts: [post('p1')], notifications: new Map() }], 1)).toEqual([]);
  });
});
