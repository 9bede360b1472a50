// The client's one merge rule: pages, catch-ups, events and optimistic posts merged by id, newest version kept,
// deletions final. These are the properties "no duplicates, no gaps" after a reconnect rests on.
import { emptyPosts, markFailed, mergePosts, mergeThread, removeLocal, type ClientPost, type PostsState } from '../../web/src/post-store';

const CH = 'c'.repeat(26);
const OTHER = 'o'.repeat(26);

function post(id: string, at: number, extra: Partial<ClientPost> = {}): ClientPost {
  return { id, create_at: at, update_at: at, delete_at: 0, user_id: 'u', channel_id: CH, root_id: '', message: `m${id}`, type: '', props: {}, ...extra };
}

function page(state: PostsState, posts: ClientPost[], opts: { hasOlder?: boolean; older?: boolean; channelId?: string } = {}): PostsState {
  const listed = [...posts].sort((a, b) => b.create_at - a.create_at).map((p) => p.id);
  return mergePosts(state, posts, { channelId: opts.channelId ?? CH, listed, hasOlder: opts.hasOlder ?? false, loaded: !opts.older, older: opts.older });
}

const ids = (s: PostsState, ch = CH) => s.channels[ch]?.ids ?? [];

describe('mergePosts', () => {
  test('a first page is shown oldest first, with its paging flags', () => {
    const s = page(emptyPosts, [post('b', 2), post('a', 1), post('c', 3)], { hasOlder: true });
    expect(ids(s)).toEqual(['a', 'b', 'c']);
    expect(s.channels[CH]).toMatchObject({ hasOlder: true, loaded: true, lastUpdateAt: 3 });
  });

  test('the same post merged twice (an event and an overlapping catch-up) is listed once', () => {
    let s = page(emptyPosts, [post('a', 1)]);
    s = mergePosts(s, [post('b', 2)]);
    s = mergePosts(s, [post('b', 2), post('c', 3)], { channelId: CH, listed: ['c', 'b'] });
    expect(ids(s)).toEqual(['a', 'b', 'c']);
  });

  test('the newest version wins, whatever the order of arrival', () => {
    const edited = post('a', 1, { update_at: 5, message: 'edited', edit_at: 5 });
    const one = mergePosts(page(emptyPosts, [post('a', 1)]), [edited]);
    const other = page(mergePosts(emptyPosts, [edited]), [post('a', 1)]);
    expect(one.byId.a.message).toBe('edited');
    expect(other.byId.a.message).toBe('edited');
  });

  test('a deletion is final: an older copy arriving later does not bring the post back', () => {
    let s = page(emptyPosts, [post('a', 1), post('b', 2)]);
    s = mergePosts(s, [post('b', 2, { delete_at: 9, update_at: 9 })]);
    expect(ids(s)).toEqual(['a']);
    s = mergePosts(s, [post('b', 2)], { channelId: CH, listed: ['b'] });
    expect(ids(s)).toEqual(['a']);
    expect(s.byId.b).toBeUndefined();
  });

  test('an event that beats the first page is kept when the page arrives without it', () => {
    let s = mergePosts(emptyPosts, [post('new', 10)]);
    expect(s.channels[CH]).toBeUndefined();
    s = page(s, [post('a', 1), post('b', 2)]);
    expect(ids(s)).toEqual(['a', 'b', 'new']);
  });

  test('events for a channel without a list are held, not listed (and other channels are untouched)', () => {
    let s = page(emptyPosts, [post('a', 1)]);
    s = mergePosts(s, [post('x', 2, { channel_id: OTHER })]);
    expect(s.channels[OTHER]).toBeUndefined();
    expect(ids(s)).toEqual(['a']);
    expect(s.byId.x).toBeDefined();
  });

  test('an older page extends the list backwards; hasOlder follows the server', () => {
    let s = page(emptyPosts, [post('c', 3), post('d', 4)], { hasOlder: true });
    s = page(s, [post('a', 1), post('b', 2)], { older: true, hasOlder: false });
    expect(ids(s)).toEqual(['a', 'b', 'c', 'd']);
    expect(s.channels[CH].hasOlder).toBe(false);
  });

  test('a post older than a partial list (an edit of an old post) is not placed above the gap', () => {
    let s = page(emptyPosts, [post('c', 3), post('d', 4)], { hasOlder: true });
    s = mergePosts(s, [post('a', 1, { update_at: 7, edit_at: 7 })]);
    expect(ids(s)).toEqual(['c', 'd']);
    // ...but a list that reaches the channel's start takes it.
    let full = page(emptyPosts, [post('c', 3), post('d', 4)], { hasOlder: false });
    full = mergePosts(full, [post('a', 1)]);
    expect(ids(full)).toEqual(['a', 'c', 'd']);
  });

  test('thread roots that come with a page are held but not listed', () => {
    const reply = post('r', 5, { root_id: 'old' });
    const root = post('old', 1);
    const s = mergePosts(emptyPosts, [reply, root], { channelId: CH, listed: ['r'], hasOlder: true, loaded: true });
    expect(ids(s)).toEqual(['r']);
    expect(s.byId.old).toBeDefined();
  });

  test("the server's copy of an optimistic post replaces it (by pending_post_id), never doubles it", () => {
    let s = page(emptyPosts, [post('a', 1)]);
    const pending = post('u:100', 100, { pending_post_id: 'u:100', pending: true });
    s = mergePosts(s, [pending]);
    expect(ids(s)).toEqual(['a', 'u:100']);
    // The WebSocket event and the HTTP answer both carry it; either order, one post.
    const created = post('real', 101, { pending_post_id: 'u:100' });
    s = mergePosts(s, [created]);
    s = mergePosts(s, [created]);
    expect(ids(s)).toEqual(['a', 'real']);
    expect(s.byId['u:100']).toBeUndefined();
    expect(s.channels[CH].lastUpdateAt).toBe(101);
  });

  test('a failed optimistic post stays, marked, until retried or discarded', () => {
    let s = page(emptyPosts, [post('a', 1)]);
    s = mergePosts(s, [post('u:5', 5, { pending_post_id: 'u:5', pending: true })]);
    s = markFailed(s, 'u:5');
    expect(s.byId['u:5']).toMatchObject({ failed: true, pending: false });
    s = removeLocal(s, 'u:5');
    expect(ids(s)).toEqual(['a']);
  });

  test('posts of the same millisecond are ordered by id, stably', () => {
    const s = page(emptyPosts, [post('b', 1), post('a', 1), post('c', 1)]);
    expect(ids(s)).toEqual(['a', 'b', 'c']);
  });
});

describe('threads', () => {
  test('a fetched thread lists root then replies; new replies and deletions follow', () => {
    let s = mergeThread(emptyPosts, 'root', [post('r2', 3, { root_id: 'root' }), post('root', 1), post('r1', 2, { root_id: 'root' })]);
    expect(s.threads.root).toEqual(['root', 'r1', 'r2']);
    s = mergePosts(s, [post('r3', 4, { root_id: 'root' })]);
    expect(s.threads.root).toEqual(['root', 'r1', 'r2', 'r3']);
    s = mergePosts(s, [post('r1', 2, { root_id: 'root', delete_at: 6, update_at: 6 })]);
    expect(s.threads.root).toEqual(['root', 'r2', 'r3']);
    s = mergePosts(s, [post('root', 1, { delete_at: 7, update_at: 7 })]);
    expect(s.threads.root).toBeUndefined();
  });
});
