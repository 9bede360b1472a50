// GetPostsAroundLastUnread (GET /api/v4/users/{user_id}/channels/{channel_id}/posts/unread): the first page the apps
// load when a channel opens, through Client4's getPostsUnread, with posts placed in time so the first unread post is
// known exactly.
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { atTime, createChannel, createPost, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let teamId: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
  teamId = await createTeam(admin, `unread${process.pid}`, [alice, bob]);
});
afterAll(() => server.close());

let clock = Date.now() - 10_000_000;

/** A channel where alice wrote `count` posts one second apart (oldest first); the returned times are theirs. */
async function channelWithPosts(count: number, members: Actor[] = [alice, bob]): Promise<{ channelId: string; ids: string[]; times: number[] }> {
  const channelId = await createChannel(admin, teamId, 'O', members, 'unread');
  const ids: string[] = [];
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    clock += 1000;
    ids.push((await atTime(server, clock, () => createPost(alice, channelId, `m${i}`))).id);
    times.push(clock);
  }
  clock += 1000;
  return { channelId, ids, times };
}

const viewAt = (actor: Actor, channelId: string, at: number) => atTime(server, at, () => actor.api.post('/api/v4/channels/members/me/view', { channel_id: channelId }).expect(200));
const newestFirst = (ids: string[]) => [...ids].reverse();

describe('around the first unread post', () => {
  test('limit_before older posts, the first unread one and limit_after - 1 newer ones, newest first; the cursors name the posts past each end', async () => {
    const { channelId, ids, times } = await channelWithPosts(10);
    // Bob read up to the sixth post's time: the seventh (ids[6]) is his first unread one.
    await viewAt(bob, channelId, times[5]);
    const list = await client4For(server, bob).getPostsUnread(channelId, bob.id, 3, 2);
    expect(list.order).toEqual(newestFirst(ids.slice(4, 9)));
    expect(Object.keys(list.posts).sort()).toEqual(ids.slice(4, 9).sort());
    expect(list.posts[ids[6]].message).toBe('m6');
    expect(list.next_post_id).toBe(ids[9]);
    expect(list.prev_post_id).toBe(ids[3]);
    expect((list as unknown as { has_next: boolean }).has_next).toBe(true);
  });

  test('with the defaults (Client4 asks for 30 and 30) a short channel comes whole: no cursors', async () => {
    const { channelId, ids, times } = await channelWithPosts(6);
    await viewAt(bob, channelId, times[2]);
    const list = await client4For(server, bob).getPostsUnread(channelId, bob.id);
    expect(list).toMatchObject({ order: newestFirst(ids), next_post_id: '', prev_post_id: '', has_next: false });
    // No parameters at all: Mattermost's defaults (60 and 60).
    const raw = await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread`).expect(200);
    expect(raw.body.order).toEqual(newestFirst(ids));
  });

  test('limit_before=0: the first unread post and the newer ones; prev_post_id names the post just before it', async () => {
    const { channelId, ids, times } = await channelWithPosts(5);
    await viewAt(bob, channelId, times[1]);
    const list = (await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread?limit_before=0&limit_after=2`).expect(200)).body;
    expect(list.order).toEqual([ids[3], ids[2]]);
    expect(list.prev_post_id).toBe(ids[1]);
    expect(list.next_post_id).toBe(ids[4]);
  });

  test('a deleted post is never the first unread one; a reply comes with its root post outside `order` unless skipFetchThreads', async () => {
    const { channelId, ids, times } = await channelWithPosts(3);
    clock += 1000;
    const reply = await atTime(server, clock, () => createPost(alice, channelId, 'a reply', { root_id: ids[0] }));
    clock += 1000;
    const deleted = await atTime(server, clock, () => createPost(alice, channelId, 'to delete'));
    await alice.api.delete(`/api/v4/posts/${deleted.id}`).expect(200);
    clock += 1000;
    const last = await atTime(server, clock, () => createPost(alice, channelId, 'last'));
    await viewAt(bob, channelId, times[2]);
    const c = client4For(server, bob);
    const withThreads = await c.getPostsUnread(channelId, bob.id, 1, 0);
    expect(withThreads.order).toEqual([reply.id]);
    expect(Object.keys(withThreads.posts).sort()).toEqual([reply.id, ids[0]].sort());
    expect(withThreads.next_post_id).toBe(last.id);
    expect(withThreads.prev_post_id).toBe(ids[2]);
    const without = await c.getPostsUnread(channelId, bob.id, 1, 0, false);
    expect(Object.keys(without.posts)).toEqual([reply.id]);
    // Only the deleted post and nothing else after it: it is skipped, the last post is the first unread one.
    await viewAt(bob, channelId, clock - 1500);
    expect((await c.getPostsUnread(channelId, bob.id, 1, 0)).order).toEqual([last.id]);
  });

  test('collapsedThreads and collapsedThreadsExtended are accepted', async () => {
    const { channelId, ids, times } = await channelWithPosts(3);
    await viewAt(bob, channelId, times[0]);
    const list = await client4For(server, bob).getPostsUnread(channelId, bob.id, 30, 30, true, true, true);
    expect(list.order).toEqual(newestFirst(ids));
  });
});

describe('nothing unread, or never viewed: the latest posts', () => {
  test('nothing unread: the latest limit_before posts, as GetPostsForChannel page 0, with its ETag (304 when unchanged)', async () => {
    const { channelId, ids } = await channelWithPosts(6);
    await viewAt(bob, channelId, clock);
    const list = await client4For(server, bob).getPostsUnread(channelId, bob.id, 30, 4);
    expect(list).toMatchObject({ order: newestFirst(ids).slice(0, 4), next_post_id: '', prev_post_id: ids[1] });
    const res = await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread?limit_before=4`).expect(200);
    expect(res.body.order).toEqual(list.order);
    const page = (await bob.api.get(`/api/v4/channels/${channelId}/posts?page=0&per_page=4`).expect(200)).body;
    expect(res.body).toEqual(page);
    const etag = res.headers.etag as string;
    expect(etag).toBeTruthy();
    await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread?limit_before=4`).set('If-None-Match', etag).expect(304);
    // A new post changes the answer: the If-None-Match no longer matches, and the post is now the first unread one.
    clock += 1000;
    const fresh = await atTime(server, clock, () => createPost(alice, channelId, 'fresh'));
    const again = await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread?limit_before=4`).set('If-None-Match', etag).expect(200);
    expect(again.body.order[0]).toBe(fresh.id);
  });

  test('a member who never viewed the channel (last_viewed_at 0) gets the latest posts', async () => {
    const { channelId, ids } = await channelWithPosts(4);
    const carol = await createUser(server, admin);
    await admin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: carol.id }).expect(201);
    await admin.api.post(`/api/v4/channels/${channelId}/members`, { user_id: carol.id }).expect(201);
    const list = await client4For(server, carol).getPostsUnread(channelId, carol.id, 30, 2);
    expect(list).toMatchObject({ order: newestFirst(ids).slice(0, 2), prev_post_id: ids[1], next_post_id: '' });
  });

  test('an empty channel: an empty list', async () => {
    const channelId = await createChannel(admin, teamId, 'O', [alice, bob], 'unread');
    expect(await client4For(server, bob).getPostsUnread(channelId, bob.id)).toMatchObject({ order: [], posts: {}, next_post_id: '', prev_post_id: '' });
  });
});

describe('who may ask, and bad input', () => {
  test("another user's unread posts: 403 for a member, the admin gets that user's (edit_other_users)", async () => {
    const { channelId, ids, times } = await channelWithPosts(4);
    await viewAt(bob, channelId, times[1]);
    await expectClientError(client4For(server, alice).getPostsUnread(channelId, bob.id), 403, 'api.context.permissions.app_error');
    const asAdmin = await client4For(server, admin).getPostsUnread(channelId, bob.id, 1, 0);
    expect(asAdmin.order).toEqual([ids[2]]);
  });

  test('a readable public channel the user is not a member of: 404 app.channel.get_member.missing.app_error', async () => {
    const { channelId } = await channelWithPosts(1, [alice]);
    await expectClientError(client4For(server, bob).getPostsUnread(channelId, bob.id), 404, 'app.channel.get_member.missing.app_error');
  });

  test('a private channel the caller is not in: 403; an unknown channel: 404', async () => {
    const privateId = await createChannel(admin, teamId, 'P', [alice], 'unread');
    await expectClientError(client4For(server, bob).getPostsUnread(privateId, bob.id), 403, 'api.context.permissions.app_error');
    await expectClientError(client4For(server, bob).getPostsUnread('a'.repeat(26), bob.id), 404, 'app.channel.get.existing.app_error');
  });

  test('limit_after=0 is 400 api.context.invalid_url_param.app_error; negative limits read as the defaults; a non-number is 400', async () => {
    const { channelId, ids, times } = await channelWithPosts(3);
    await viewAt(bob, channelId, times[0]);
    expectAppError(await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread?limit_after=0`), 400, 'api.context.invalid_url_param.app_error');
    const negative = await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread?limit_after=-5&limit_before=-1`).expect(200);
    expect(negative.body.order).toEqual(newestFirst(ids));
    expectAppError(await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread?limit_after=many`), 400, 'api.context.invalid_param.app_error');
  });
});

describe('large posts: the page budget (H3)', () => {
  test('each side stops at about 1 MiB; next_post_id and prev_post_id name the first posts left out', async () => {
    const channelId = await createChannel(admin, teamId, 'O', [alice, bob], 'unread');
    // Posts written before props were bounded (straight to the database), 240 KB of props each, one second apart.
    const knex = server.parley.db.knex;
    clock += 1000;
    const seed = await atTime(server, clock, () => createPost(alice, channelId, 'seed'));
    const [row] = await knex('posts').where({ id: seed.id });
    await knex('posts').where({ id: seed.id }).del();
    const ids: string[] = [];
    const base = clock;
    for (let i = 0; i < 20; i++) {
      const id = `${seed.id.slice(0, 20)}${String(200000 + i)}`;
      await knex('posts').insert({ ...row, id, create_at: base + i * 1000, update_at: base + i * 1000, message: `old ${i}`, props: JSON.stringify({ n: i, blob: 'b'.repeat(240_000) }), pending_post_id: '' });
      ids.push(id);
    }
    clock = base + 20 * 1000;
    await viewAt(bob, channelId, base + 9500);
    const res = await bob.api.get(`/api/v4/users/me/channels/${channelId}/posts/unread?limit_before=60&limit_after=60`).expect(200);
    // The first unread is ids[10]; 4 posts of 240 KB fit in 1 MiB on each side, a fifth would not.
    expect(res.body.order).toEqual(newestFirst(ids.slice(6, 15)));
    expect(res.body.next_post_id).toBe(ids[15]);
    expect(res.body.prev_post_id).toBe(ids[5]);
    expect(res.text.length).toBeLessThan(2 * 1024 * 1024 + 400_000);
    expect(res.body.posts[ids[10]].props).toEqual({ n: 10, blob: 'b'.repeat(240_000) });
  });
});
