// UpdatePost, PinPost/UnpinPost, GetPinnedPosts and GetPostsByIds over real HTTP, and through Client4 (updatePost,
// pinPost, unpinPost, getPinnedPosts, getPostsByIds).
import { newPost } from '../../src/app/records';
import { newId } from '../../src/lib/ids';
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createChannel, createPost, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { createHook } from '../webhooks/hooks-support';

let server: TestServer;
let admin: Actor;
let alice: Actor; // member of every channel below
let bob: Actor; // member of the public channels
let carol: Actor; // on the team, in no channel of the tests
let teamId: string;
let publicId: string;
let privateId: string;

const channel = (type: 'O' | 'P', members: Actor[]) => createChannel(admin, teamId, type, members, 'postops');

const get = async (as: Actor, id: string) => (await as.api.get(`/api/v4/posts/${id}`).expect(200)).body;

/** A system message (as join/leave messages are), written straight through the stores. */
async function systemPost(channelId: string): Promise<string> {
  const p = newPost({ user_id: admin.id, channel_id: channelId, message: 'someone joined the channel', type: 'system_join_channel' }, Date.now());
  await server.parley.app.deps.stores.transaction((tx) => tx.posts.write({ channelId, posts: [p], mentions: new Map() }));
  return p.id;
}

const archive = (channelId: string) => server.parley.db.knex('channels').where({ id: channelId }).update({ delete_at: Date.now() });

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
  carol = await createUser(server, admin);
  teamId = await createTeam(admin, `opsteam${process.pid}`, [alice, bob, carol]);
  publicId = await channel('O', [alice, bob]);
  privateId = await channel('P', [alice]);
});
afterAll(() => server.close());

describe('UpdatePost', () => {
  test('Client4 updatePost: the message changes, edit_at and update_at move, the rest of the post stays', async () => {
    const original = await createPost(alice, publicId, 'first draft', { props: { mine: 1 } });
    const updated = await client4For(server, alice).updatePost({ ...original, message: 'final' } as never);
    expect(updated).toMatchObject({ id: original.id, message: 'final', user_id: alice.id, channel_id: publicId, create_at: original.create_at, props: { mine: 1 } });
    expect(updated.edit_at).toBeGreaterThan(0);
    expect(updated.update_at).toBeGreaterThan(original.update_at);
    expect(await get(bob, original.id)).toMatchObject({ message: 'final', edit_at: updated.edit_at });
  });

  test('the whole post is replaced: is_pinned and props absent from the body become false and empty, as in Mattermost', async () => {
    const original = await createPost(alice, publicId, 'pinned one', { props: { keep: 'me' } });
    await alice.api.post(`/api/v4/posts/${original.id}/pin`).expect(200);
    const res = (await alice.api.put(`/api/v4/posts/${original.id}`, { id: original.id, message: 'pinned one' }).expect(200)).body;
    expect(res).toMatchObject({ is_pinned: false, props: {}, edit_at: 0 });
    // An unchanged message leaves edit_at alone.
    expect((await get(alice, original.id)).edit_at).toBe(0);
  });

  test('server-set props are kept whatever the body says, and cannot be added', async () => {
    const hook = await createHook(admin, { channel_id: publicId, display_name: 'ci' });
    const res = await fetch(`${server.url}/hooks/${hook.id}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'from ci' }) });
    expect(res.status).toBe(200);
    const page = (await admin.api.get(`/api/v4/channels/${publicId}/posts?per_page=1`).expect(200)).body;
    const hookPost = page.posts[page.order[0]];
    expect(hookPost.props.from_webhook).toBe('true');
    const updated = (await admin.api.put(`/api/v4/posts/${hookPost.id}`, { id: hookPost.id, message: 'edited', props: { from_webhook: 'false', extra: true } }).expect(200)).body;
    expect(updated.props).toEqual({ from_webhook: 'true', webhook_display_name: 'ci', extra: true });

    const plain = await createPost(alice, publicId);
    const forged = (await alice.api.put(`/api/v4/posts/${plain.id}`, { id: plain.id, message: 'x', props: { from_webhook: 'true', override_username: 'boss' } }).expect(200)).body;
    expect(forged.props).toEqual({});
  });

  test("the body's id must be the path's: 400 api.context.invalid_param.app_error", async () => {
    const p = await createPost(alice, publicId);
    const other = await createPost(alice, publicId);
    expectAppError(await alice.api.put(`/api/v4/posts/${p.id}`, { id: other.id, message: 'x' }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await alice.api.put(`/api/v4/posts/${p.id}`, { message: 'x' }), 400, 'api.context.invalid_param.app_error');
    expect((await get(alice, other.id)).message).toBe(other.message);
  });

  test("someone else's post: 403 for a member, allowed for a system admin (edit_others_posts)", async () => {
    const p = await createPost(alice, publicId);
    expectAppError(await bob.api.put(`/api/v4/posts/${p.id}`, { ...p, message: 'mine now' }), 403, 'api.context.permissions.app_error');
    await expectClientError(client4For(server, bob).updatePost({ ...p, message: 'mine now' } as never), 403, 'api.context.permissions.app_error');
    expect((await admin.api.put(`/api/v4/posts/${p.id}`, { ...p, message: 'moderated' }).expect(200)).body.message).toBe('moderated');
  });

  test('a post that does not exist, or was deleted: 403, as in Mattermost; a private channel one is not in: 403', async () => {
    const id = newId();
    expectAppError(await alice.api.put(`/api/v4/posts/${id}`, { id, message: 'x' }), 403, 'api.context.permissions.app_error');
    const p = await createPost(alice, publicId);
    await alice.api.delete(`/api/v4/posts/${p.id}`).expect(200);
    expectAppError(await alice.api.put(`/api/v4/posts/${p.id}`, { id: p.id, message: 'x' }), 403, 'api.context.permissions.app_error');
    const secret = await createPost(alice, privateId);
    expectAppError(await carol.api.put(`/api/v4/posts/${secret.id}`, { id: secret.id, message: 'x' }), 403, 'api.context.permissions.app_error');
  });

  test('a system message: 400; a post in an archived channel: 400; a message past 16383 code points: 400', async () => {
    const sys = await systemPost(publicId);
    expectAppError(await admin.api.put(`/api/v4/posts/${sys}`, { id: sys, message: 'x' }), 400, 'api.post.update_post.system_message.app_error');
    const p = await createPost(alice, publicId);
    expectAppError(await alice.api.put(`/api/v4/posts/${p.id}`, { id: p.id, message: 'x'.repeat(16384) }), 400, 'model.post.is_valid.message_length.app_error');
    await alice.api.put(`/api/v4/posts/${p.id}`, { id: p.id, message: '😀'.repeat(16383) }).expect(200);
    const ch = await channel('O', [alice]);
    const q = await createPost(alice, ch);
    await archive(ch);
    expectAppError(await alice.api.put(`/api/v4/posts/${q.id}`, { id: q.id, message: 'x' }), 400, 'api.post.update_post.can_not_update_post_in_deleted.error');
  });

  test('PatchPost in an archived channel: 400 api.post.patch_post.can_not_update_post_in_deleted.error, as UpdatePost (L12)', async () => {
    const ch = await channel('O', [alice]);
    const q = await createPost(alice, ch, 'before archiving', { props: { a: 1 } });
    await archive(ch);
    for (const patch of [{ message: 'after' }, { props: { b: 2 } }, { is_pinned: true }]) {
      expectAppError(await alice.api.put(`/api/v4/posts/${q.id}/patch`, patch), 400, 'api.post.patch_post.can_not_update_post_in_deleted.error');
    }
    expectAppError(await admin.api.put(`/api/v4/posts/${q.id}/patch`, { message: 'admin too' }), 400, 'api.post.patch_post.can_not_update_post_in_deleted.error');
    expect(await get(alice, q.id)).toMatchObject({ message: 'before archiving', props: { a: 1 }, is_pinned: false, edit_at: 0 });
  });

  test('file_ids: absent or unchanged is fine; new ones are refused (no attachments here)', async () => {
    const p = await createPost(alice, publicId);
    await alice.api.put(`/api/v4/posts/${p.id}`, { id: p.id, message: 'a', file_ids: [] }).expect(200);
    expectAppError(await alice.api.put(`/api/v4/posts/${p.id}`, { id: p.id, message: 'b', file_ids: [newId()] }), 400, 'api.post.create_post.file_ids.app_error');
    expect((await get(alice, p.id)).message).toBe('a');
  });

  test('no session: 401', async () => {
    const p = await createPost(alice, publicId);
    expectAppError(await server.http().put(`/api/v4/posts/${p.id}`, { id: p.id, message: 'x' }), 401, 'api.context.session_expired.app_error');
  });
});

describe('PinPost and UnpinPost, GetPinnedPosts', () => {
  test('Client4 pinPost/unpinPost/getPinnedPosts: pinned posts listed oldest first, as Mattermost lists them; edit_at untouched, update_at moved', async () => {
    const ch = await channel('O', [alice, bob]);
    const older = await createPost(alice, ch, 'older');
    const newer = await createPost(bob, ch, 'newer');
    await createPost(alice, ch, 'never pinned');
    const b = client4For(server, bob);
    expect(await b.pinPost(older.id)).toEqual({ status: 'OK' });
    expect(await b.pinPost(newer.id)).toEqual({ status: 'OK' });
    const pinnedOlder = await get(alice, older.id);
    expect(pinnedOlder).toMatchObject({ is_pinned: true, edit_at: 0 });
    expect(pinnedOlder.update_at).toBeGreaterThan(older.update_at);
    const list = await b.getPinnedPosts(ch);
    expect(list.order).toEqual([older.id, newer.id]);
    expect(Object.keys(list.posts).sort()).toEqual([newer.id, older.id].sort());
    expect(list.posts[older.id]).toMatchObject({ is_pinned: true, message: 'older' });

    expect(await client4For(server, alice).unpinPost(newer.id)).toEqual({ status: 'OK' });
    expect((await get(alice, newer.id)).is_pinned).toBe(false);
    expect((await b.getPinnedPosts(ch)).order).toEqual([older.id]);
    // Deleted posts are not listed.
    await alice.api.delete(`/api/v4/posts/${older.id}`).expect(200);
    expect((await b.getPinnedPosts(ch)).order).toEqual([]);
  });

  test('anyone who can read the post may pin it (a team member outside a public channel too), as in Mattermost', async () => {
    const p = await createPost(alice, publicId);
    await carol.api.post(`/api/v4/posts/${p.id}/pin`).expect(200);
    expect((await get(alice, p.id)).is_pinned).toBe(true);
    await carol.api.post(`/api/v4/posts/${p.id}/unpin`).expect(200);
  });

  test('a private channel one is not in, an unknown post, a deleted one: 403', async () => {
    const secret = await createPost(alice, privateId);
    expectAppError(await carol.api.post(`/api/v4/posts/${secret.id}/pin`), 403, 'api.context.permissions.app_error');
    expect((await get(alice, secret.id)).is_pinned).toBe(false);
    expectAppError(await alice.api.post(`/api/v4/posts/${newId()}/pin`), 403, 'api.context.permissions.app_error');
    expectAppError(await admin.api.post(`/api/v4/posts/${newId()}/unpin`), 403, 'api.context.permissions.app_error');
    const p = await createPost(alice, publicId);
    await alice.api.delete(`/api/v4/posts/${p.id}`).expect(200);
    expectAppError(await alice.api.post(`/api/v4/posts/${p.id}/pin`), 403, 'api.context.permissions.app_error');
    expectAppError(await server.http().post(`/api/v4/posts/${secret.id}/pin`), 401, 'api.context.session_expired.app_error');
  });

  test('a system message: 400; a post in an archived channel: 400', async () => {
    const sys = await systemPost(publicId);
    expectAppError(await alice.api.post(`/api/v4/posts/${sys}/pin`), 400, 'api.post.update_post.system_message.app_error');
    const ch = await channel('O', [alice]);
    const p = await createPost(alice, ch);
    await archive(ch);
    expectAppError(await alice.api.post(`/api/v4/posts/${p.id}/pin`), 400, 'api.post.patch_post.can_not_update_post_in_deleted.error');
  });

  test('GetPinnedPosts: an ETag, 304 while nothing changed, a new one after a pin; 403 and 404', async () => {
    const ch = await channel('P', [alice]);
    const p = await createPost(alice, ch);
    const first = await alice.api.get(`/api/v4/channels/${ch}/pinned`).expect(200);
    expect(first.body).toMatchObject({ order: [], posts: {}, next_post_id: '', prev_post_id: '' });
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    await alice.api.get(`/api/v4/channels/${ch}/pinned`).set('If-None-Match', etag).expect(304);
    await alice.api.post(`/api/v4/posts/${p.id}/pin`).expect(200);
    const second = await alice.api.get(`/api/v4/channels/${ch}/pinned`).set('If-None-Match', etag).expect(200);
    expect(second.body.order).toEqual([p.id]);
    expect(second.headers.etag).not.toBe(etag);
    // The pinned list is not the channel's page: their ETags differ.
    expect((await alice.api.get(`/api/v4/channels/${ch}/posts`).expect(200)).headers.etag).not.toBe(second.headers.etag);
    expectAppError(await carol.api.get(`/api/v4/channels/${ch}/pinned`), 403, 'api.context.permissions.app_error');
    await expectClientError(client4For(server, carol).getPinnedPosts(ch), 403, 'api.context.permissions.app_error');
    expectAppError(await alice.api.get(`/api/v4/channels/${newId()}/pinned`), 404, 'app.channel.get.existing.app_error');
  });
});

describe('GetPostsByIds', () => {
  test('Client4 getPostsByIds: the readable posts, newest first; unreadable and unknown ones left out', async () => {
    const a = await createPost(alice, publicId, 'a');
    const b = await createPost(alice, privateId, 'b');
    const c = await createPost(bob, publicId, 'c');
    const mine = await client4For(server, bob).getPostsByIds([a.id, b.id, c.id, newId(), a.id]);
    expect(mine.map((p) => p.id)).toEqual([c.id, a.id]);
    const all = (await alice.api.post('/api/v4/posts/ids', [a.id, b.id, c.id]).expect(200));
    expect(all.body.map((p: any) => p.message)).toEqual(['c', 'b', 'a']);
    expect(all.headers['first-inaccessible-post-time']).toBe('0');
  });

  test('none of the ids a post: 404 app.post.get.app_error; only unreadable ones: 200 []', async () => {
    expectAppError(await alice.api.post('/api/v4/posts/ids', [newId(), newId(), 'not-an-id']), 404, 'app.post.get.app_error');
    const secret = await createPost(alice, privateId);
    expect((await carol.api.post('/api/v4/posts/ids', [secret.id]).expect(200)).body).toEqual([]);
  });

  test('a deleted post comes back deleted and emptied: what it said is not shown', async () => {
    const p = await createPost(alice, publicId, 'regrettable', { props: { x: 1 } });
    await alice.api.delete(`/api/v4/posts/${p.id}`).expect(200);
    const [got] = (await bob.api.post('/api/v4/posts/ids', [p.id]).expect(200)).body;
    expect(got).toMatchObject({ id: p.id, message: '', props: {}, file_ids: [], metadata: {} });
    expect(got.delete_at).toBeGreaterThan(0);
  });

  test('no ids: 400; more than 1000 different ids: 400 api.post.posts_by_ids.invalid_body.request_error; duplicates count once', async () => {
    expectAppError(await alice.api.post('/api/v4/posts/ids', []), 400, 'api.context.invalid_param.app_error');
    const p = await createPost(alice, publicId);
    const many = Array.from({ length: 999 }, () => newId());
    expect((await alice.api.post('/api/v4/posts/ids', [p.id, ...many, ...many]).expect(200)).body.map((x: any) => x.id)).toEqual([p.id]);
    expectAppError(await alice.api.post('/api/v4/posts/ids', [p.id, ...many, newId()]), 400, 'api.post.posts_by_ids.invalid_body.request_error');
    expectAppError(await alice.api.post('/api/v4/posts/ids', { ids: [p.id] }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await server.http().post('/api/v4/posts/ids', [p.id]), 401, 'api.context.session_expired.app_error');
  });
});
