// Channel pages with collapsed reply threads (collapsedThreads=true), through Client4 as the apps call them when the
// server's CollapsedThreads is on: GetPostsForChannel (page, before/after, since), GetPostsAroundLastUnread and
// GetPostThread serve root posts only, each with its thread (reply_count, last_reply_at, participants, is_following).
// Posts are placed in time, so pages and cursors are known exactly.
import type { Post } from '@mattermost/types/posts';
import { client4For } from '../support/client4';
import { atTime, createChannel, createPost, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let carol: Actor;
let teamId: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
  carol = await createUser(server, admin);
  teamId = await createTeam(admin, `crtpages${process.pid}`, [alice, bob, carol]);
});
afterAll(() => server.close());

let clock = Date.now() - 10_000_000;

/**
 * A channel of six roots with replies between them, one second apart (R0 oldest):
 * R0 (alice), R1 (alice), bob → R0, R2 (bob), carol → R1, carol → R0, R3 (alice), R4 (alice), bob → R3, R5 (carol).
 */
async function channelWithThreads() {
  const channelId = await createChannel(admin, teamId, 'O', [alice, bob, carol], 'crt');
  const at = async (as: Actor, message: string, rootId = '') => {
    clock += 1000;
    return atTime(server, clock, () => createPost(as, channelId, message, rootId ? { root_id: rootId } : {}));
  };
  const r0 = await at(alice, 'R0');
  const r1 = await at(alice, 'R1');
  const bobOnR0 = await at(bob, 'bob on R0', r0.id);
  const r2 = await at(bob, 'R2');
  const carolOnR1 = await at(carol, 'carol on R1', r1.id);
  const carolOnR0 = await at(carol, 'carol on R0', r0.id);
  const r3 = await at(alice, 'R3');
  const r4 = await at(alice, 'R4');
  const bobOnR3 = await at(bob, 'bob on R3', r3.id);
  const r5 = await at(carol, 'R5');
  clock += 1000;
  const roots = [r0, r1, r2, r3, r4, r5].map((p) => p.id as string);
  return { channelId, roots, replies: { bobOnR0, carolOnR1, carolOnR0, bobOnR3 } };
}

const newestFirst = (ids: string[]) => [...ids].reverse();
const sorted = (ids: string[]) => [...ids].sort();

describe('GetPostsForChannel with collapsedThreads', () => {
  test('false: the replies are in the page; true: the roots only, each with its thread and whether the caller follows it', async () => {
    const { channelId, roots, replies } = await channelWithThreads();
    const a = client4For(server, alice);
    const flat = await a.getPosts(channelId, 0, 60, true, false, false);
    expect(flat.order).toHaveLength(10);
    expect(flat.order).toContain(replies.bobOnR3.id);

    const crt = await a.getPosts(channelId, 0, 60, true, true, false);
    expect(crt.order).toEqual(newestFirst(roots));
    expect(sorted(Object.keys(crt.posts))).toEqual(sorted(roots));
    const [r0, r1, r2, r3, , r5] = roots.map((id) => crt.posts[id]);
    expect(r0).toMatchObject({ reply_count: 2, last_reply_at: replies.carolOnR0.create_at, participants: [{ id: bob.id }, { id: carol.id }], is_following: true });
    expect(r1).toMatchObject({ reply_count: 1, last_reply_at: replies.carolOnR1.create_at, participants: [{ id: carol.id }], is_following: true });
    expect(r3).toMatchObject({ reply_count: 1, participants: [{ id: bob.id }], is_following: true });
    // A root without replies: no thread, no participants, no membership.
    expect(r2).toMatchObject({ reply_count: 0, last_reply_at: 0 });
    expect(r2.participants).toBeUndefined();
    expect(r2.is_following).toBeUndefined();
    expect(r5.is_following).toBeUndefined();

    // is_following is the caller's: carol replied to R0 and R1 only; after unfollowing R0 it is false there.
    const c = client4For(server, carol);
    await c.updateThreadFollowForUser(carol.id, teamId, roots[0], false);
    const carols = await c.getPosts(channelId, 0, 60, true, true, false);
    expect(carols.posts[roots[0]].is_following).toBe(false);
    expect(carols.posts[roots[1]].is_following).toBe(true);
    expect(carols.posts[roots[3]].is_following).toBeUndefined();

    // skipFetchThreads changes nothing: there are no replies to fetch roots for.
    expect((await a.getPosts(channelId, 0, 60, false, true, false)).order).toEqual(crt.order);
  });

  test('collapsedThreadsExtended: the participants are whole users, sanitized', async () => {
    const { channelId, roots } = await channelWithThreads();
    const list = await client4For(server, alice).getPosts(channelId, 0, 60, true, true, true);
    const participants = list.posts[roots[0]].participants as unknown as Array<Record<string, unknown>>;
    expect(participants.map((p) => [p.id, p.username])).toEqual([
      [bob.id, bob.username],
      [carol.id, carol.username],
    ]);
    for (const p of participants) {
      expect(p.password).toBeUndefined();
      expect(p.auth_data === undefined || p.auth_data === '').toBe(true);
    }
  });

  test('pages, before and after count roots only; the cursors name roots', async () => {
    const { channelId, roots, replies } = await channelWithThreads();
    const b = client4For(server, bob);
    const page0 = await b.getPosts(channelId, 0, 2, true, true, false);
    expect(page0).toMatchObject({ order: [roots[5], roots[4]], next_post_id: '', prev_post_id: roots[3] });
    expect((await b.getPosts(channelId, 1, 2, true, true, false)).order).toEqual([roots[3], roots[2]]);
    expect((await b.getPosts(channelId, 2, 2, true, true, false)).order).toEqual([roots[1], roots[0]]);

    const before = await b.getPostsBefore(channelId, roots[3], 0, 2, true, true, false);
    expect(before).toMatchObject({ order: [roots[2], roots[1]], next_post_id: roots[3], prev_post_id: roots[0] });
    const after = await b.getPostsAfter(channelId, roots[1], 0, 2, true, true, false);
    expect(after).toMatchObject({ order: [roots[3], roots[2]], next_post_id: roots[4], prev_post_id: roots[1] });
    // An anchor that is a reply: the roots older than it; the next root past the page is the newer neighbour.
    const beforeReply = await b.getPostsBefore(channelId, replies.bobOnR3.id, 0, 2, true, true, false);
    expect(beforeReply).toMatchObject({ order: [roots[4], roots[3]], next_post_id: roots[5], prev_post_id: roots[2] });
    for (const list of [page0, before, after, beforeReply]) expect(Object.values(list.posts).every((p) => p.root_id === '')).toBe(true);
  });

  test('since: the roots changed or replied to since then, newest first; a deleted root comes emptied', async () => {
    const { channelId, roots } = await channelWithThreads();
    const since = clock;
    clock += 1000;
    const reply = await atTime(server, clock, () => createPost(bob, channelId, 'late reply', { root_id: roots[1] }));
    clock += 1000;
    await atTime(server, clock, () => alice.api.put(`/api/v4/posts/${roots[4]}/patch`, { message: 'R4 edited' }).expect(200));
    clock += 1000;
    await atTime(server, clock, () => bob.api.delete(`/api/v4/posts/${roots[2]}`).expect(200));

    const list = await client4For(server, alice).getPostsSince(channelId, since, true, true, false);
    expect(list.order).toEqual([roots[4], roots[2], roots[1]]);
    expect(list.posts[roots[1]]).toMatchObject({ reply_count: 2, last_reply_at: reply.create_at, is_following: true });
    expect(list.posts[roots[4]].message).toBe('R4 edited');
    expect(list.posts[roots[2]]).toMatchObject({ message: '', delete_at: clock });
    expect(list.posts[reply.id]).toBeUndefined();
    // Without collapsed threads the reply itself is there.
    expect((await client4For(server, alice).getPostsSince(channelId, since, true, false, false)).order).toContain(reply.id);
  });

  test('collapsed pages have an ETag of their own', async () => {
    const { channelId } = await channelWithThreads();
    const flat = await alice.api.get(`/api/v4/channels/${channelId}/posts?per_page=60`).expect(200);
    const crt = await alice.api.get(`/api/v4/channels/${channelId}/posts?per_page=60&collapsedThreads=true`).expect(200);
    expect(crt.headers.etag).not.toBe(flat.headers.etag);
    await alice.api.get(`/api/v4/channels/${channelId}/posts?per_page=60&collapsedThreads=true`).set('If-None-Match', crt.headers.etag as string).expect(304);
    const again = await alice.api.get(`/api/v4/channels/${channelId}/posts?per_page=60&collapsedThreads=true`).set('If-None-Match', flat.headers.etag as string).expect(200);
    expect(again.body.order).toEqual(crt.body.order);
  });
});

describe('GetPostsAroundLastUnread with collapsedThreads', () => {
  const viewAt = (actor: Actor, channelId: string, at: number) => atTime(server, at, () => actor.api.post('/api/v4/channels/members/me/view', { channel_id: channelId }).expect(200));

  test('the first unread root, the roots around it, the cursors past them; replies skipped', async () => {
    const { channelId, roots, replies } = await channelWithThreads();
    // Bob read up to carol's reply on R1: carol's reply on R0 is his first unread post, R3 his first unread root.
    await viewAt(bob, channelId, replies.carolOnR1.create_at);
    const b = client4For(server, bob);
    const crt = await b.getPostsUnread(channelId, bob.id, 2, 2, true, true, false);
    expect(crt).toMatchObject({ order: [roots[4], roots[3], roots[2], roots[1]], next_post_id: roots[5], prev_post_id: roots[0] });
    expect(sorted(Object.keys(crt.posts))).toEqual(sorted(roots.slice(1, 5)));
    expect(crt.posts[roots[3]]).toMatchObject({ reply_count: 1, participants: [{ id: bob.id }], is_following: true });
    expect(crt.posts[roots[1]].is_following).toBeUndefined();

    const flat = await b.getPostsUnread(channelId, bob.id, 2, 2, true, false, false);
    expect(flat.order[1]).toBe(replies.carolOnR0.id);

    // Extended participants, for the path's user.
    const extended = await b.getPostsUnread(channelId, bob.id, 2, 2, true, true, true);
    expect((extended.posts[roots[3]].participants as unknown as Array<Record<string, unknown>>)[0]).toMatchObject({ id: bob.id, username: bob.username });
  });

  test('nothing unread: the latest roots, as GetPostsForChannel page 0 with collapsedThreads', async () => {
    const { channelId, roots } = await channelWithThreads();
    await viewAt(carol, channelId, clock);
    const c = client4For(server, carol);
    const list = await c.getPostsUnread(channelId, carol.id, 30, 3, true, true, false);
    expect(list).toMatchObject({ order: newestFirst(roots).slice(0, 3), next_post_id: '', prev_post_id: roots[2] });
    const page = await c.getPosts(channelId, 0, 3, true, true, false);
    expect(list).toEqual(page);
  });
});

describe('GetPostThread', () => {
  test('collapsedThreads: the root carries its thread; the replies come too', async () => {
    const { roots, replies } = await channelWithThreads();
    const list = await client4For(server, carol).getPostThread(roots[0], true, true, true);
    expect(sorted(list.order)).toEqual(sorted([roots[0], replies.bobOnR0.id, replies.carolOnR0.id]));
    const root = list.posts[roots[0]] as Post;
    expect(root).toMatchObject({ reply_count: 2, is_following: true });
    expect((root.participants as unknown as Array<Record<string, unknown>>).map((p) => p.username)).toEqual([bob.username, carol.username]);
    expect(list.posts[replies.bobOnR0.id].participants).toBeUndefined();
  });

  test('skipFetchThreads without collapsed threads answers the post alone, as Mattermost', async () => {
    const { roots, replies } = await channelWithThreads();
    const c = client4For(server, carol);
    const alone = await c.getPostThread(replies.carolOnR0.id, false);
    expect(alone.order).toEqual([replies.carolOnR0.id]);
    expect(Object.keys(alone.posts)).toEqual([replies.carolOnR0.id]);
    expect((await c.getPostThread(replies.carolOnR0.id, true)).order).toHaveLength(3);
    expect((await c.getPostThread(roots[2], false)).order).toEqual([roots[2]]);
  });
});
