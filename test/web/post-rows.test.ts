// Layout rules of the post list: grouping (never for webhook posts), date separators, reply context; and routes.
import { GROUP_WINDOW_MS, buildRows, dayOf, isFromBot } from '../../web/src/post-rows';
import type { ClientPost } from '../../web/src/post-store';
import { parseRoute } from '../../web/src/routes';

const T0 = new Date(2025, 5, 10, 9, 0, 0).getTime();

function post(id: string, at: number, extra: Partial<ClientPost> = {}): ClientPost {
  return { id, create_at: at, update_at: at, delete_at: 0, user_id: 'alice', channel_id: 'c', root_id: '', message: id, type: '', props: {}, ...extra };
}

function layout(posts: ClientPost[], inThread = false): string[] {
  const byId = Object.fromEntries(posts.map((p) => [p.id, p]));
  return buildRows(
    posts.map((p) => p.id),
    byId,
    inThread,
  ).map((r) => (r.kind === 'date' ? `--${new Date(r.day).getDate()}--` : `${r.id}${r.continuation ? '+' : ''}${r.replyContext ? '^' : ''}`));
}

describe('bot posts', () => {
  test.each([
    ['marked by the server', { from_bot: 'true' }, true],
    ['no mark', {}, false],
    ['any other value', { from_bot: 'yes' }, false],
    ['a webhook post is not a bot account post', { from_webhook: 'true' }, false],
  ])('%s', (_name, props, want) => {
    expect(isFromBot({ props } as ClientPost)).toBe(want);
  });
});

describe('grouping', () => {
  test.each([
    ['same author within the window', [post('a', T0), post('b', T0 + 60_000)], ['--10--', 'a', 'b+']],
    ['another author', [post('a', T0), post('b', T0 + 1, { user_id: 'bob' })], ['--10--', 'a', 'b']],
    ['past the window', [post('a', T0), post('b', T0 + GROUP_WINDOW_MS)], ['--10--', 'a', 'b']],
    ['a webhook post is never grouped', [post('a', T0, { props: { from_webhook: 'true' } }), post('b', T0 + 1, { props: { from_webhook: 'true' } })], ['--10--', 'a', 'b']],
    ['nor is a post after a webhook post', [post('a', T0, { props: { from_webhook: 'true' } }), post('b', T0 + 1)], ['--10--', 'a', 'b']],
    ['a post with a card keeps its header', [post('a', T0), post('b', T0 + 1, { props: { card: '# c' } })], ['--10--', 'a', 'b']],
    ['a system post is never grouped', [post('a', T0), post('b', T0 + 1, { type: 'system_join_channel' })], ['--10--', 'a', 'b']],
  ])('%s', (_name, posts, want) => {
    expect(layout(posts)).toEqual(want);
  });

  test('a new day gets a separator and breaks the group', () => {
    const late = new Date(2025, 5, 10, 23, 59).getTime();
    const early = new Date(2025, 5, 11, 0, 1).getTime();
    expect(layout([post('a', late), post('b', early)])).toEqual(['--10--', 'a', '--11--', 'b']);
    expect(dayOf(early)).toBe(new Date(2025, 5, 11).getTime());
  });

  test('replies: "Commented on" unless right under their thread; grouped only within one thread', () => {
    const posts = [post('root', T0), post('r1', T0 + 1, { root_id: 'root' }), post('x', T0 + 2), post('r2', T0 + 3, { root_id: 'root' }), post('r3', T0 + 4, { root_id: 'root' })];
    expect(layout(posts)).toEqual(['--10--', 'root', 'r1+', 'x', 'r2^', 'r3+']);
    // In the thread panel there is no "Commented on".
    expect(layout([posts[0], posts[1], posts[3]], true)).toEqual(['--10--', 'root', 'r1+', 'r2+']);
  });
});

describe('routes', () => {
  test.each([
    ['/', { kind: 'root' }],
    ['/team-a', { kind: 'team', team: 'team-a' }],
    ['/team-a/channels/town-square', { kind: 'channel', team: 'team-a', channel: 'town-square' }],
    ['/team-a/channels/town-square/', { kind: 'channel', team: 'team-a', channel: 'town-square' }],
    ['/team-a/channels/abc__def', { kind: 'channel', team: 'team-a', channel: 'abc__def' }],
    ['/team-a/messages/@bob.smith', { kind: 'dm', team: 'team-a', username: 'bob.smith' }],
    ['/team-a/channels/x/y', { kind: 'unknown', path: '/team-a/channels/x/y' }],
  ])('%s', (path, want) => {
    expect(parseRoute(path, '')).toEqual(want);
  });

  test('login keeps a local redirect and refuses any other (no open redirect)', () => {
    expect(parseRoute('/login', '?redirect_to=%2Fteam-a%2Fchannels%2Fdeploys')).toEqual({ kind: 'login', redirectTo: '/team-a/channels/deploys' });
    expect(parseRoute('/login', '?redirect_to=https%3A%2F%2Fevil.example')).toEqual({ kind: 'login', redirectTo: '' });
    expect(parseRoute('/login', '?redirect_to=%2F%2Fevil.example')).toEqual({ kind: 'login', redirectTo: '' });
    expect(parseRoute('/login', '')).toEqual({ kind: 'login', redirectTo: '' });
  });
});
