// Reactions (SaveReaction, DeleteReaction, GetReactions, GetBulkReactions) over real HTTP, and through Client4 where it
// has a method; how posts carry them (has_reactions, metadata.reactions) and what a reaction changes on its post.
import { newId } from '../../src/lib/ids';
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createChannel, createPost, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
let alice: Actor; // member of every channel below
let bob: Actor; // member of the public channel and the private one
let carol: Actor; // on the team, in no channel of the tests
let teamId: string;
let publicId: string;
let privateId: string;

const channel = (type: 'O' | 'P', members: Actor[]) => createChannel(admin, teamId, type, members, 'reactions');

const react = (as: Actor, postId: string, emoji: string, userId = as.id) => as.api.post('/api/v4/reactions', { user_id: userId, post_id: postId, emoji_name: emoji });
const unreact = (as: Actor, userId: string, postId: string, emoji: string) => as.api.delete(`/api/v4/users/${userId}/posts/${postId}/reactions/${emoji}`);
const names = (reactions: Array<{ emoji_name: string }>) => reactions.map((r) => r.emoji_name);

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
  carol = await createUser(server, admin);
  teamId = await createTeam(admin, `reactions${process.pid}`, [alice, bob, carol]);
  publicId = await channel('O', [alice, bob]);
  privateId = await channel('P', [alice, bob]);
});
afterAll(() => server.close());

describe('adding, listing and removing, through Client4', () => {
  test('addReaction returns the reaction; getReactionsForPost lists it; removeReaction takes it back', async () => {
    const p = await createPost(alice, publicId);
    const a = client4For(server, alice);
    const before = Date.now();
    const saved = await a.addReaction(alice.id, p.id, '+1');
    expect(saved).toEqual({ user_id: alice.id, post_id: p.id, emoji_name: '+1', create_at: expect.any(Number), update_at: saved.create_at, delete_at: 0, remote_id: '', channel_id: publicId });
    expect(saved.create_at).toBeGreaterThanOrEqual(before);
    await client4For(server, bob).addReaction(bob.id, p.id, 'white_check_mark');
    const listed = await client4For(server, bob).getReactionsForPost(p.id);
    expect(listed.map((r) => [r.user_id, r.emoji_name])).toEqual([
      [alice.id, '+1'],
      [bob.id, 'white_check_mark'],
    ]);
    // Client4 puts the name in the path as it is: '+' and '-' need no escaping.
    expect(await a.removeReaction(alice.id, p.id, '+1')).toEqual({ status: 'OK' });
    expect(names(await a.getReactionsForPost(p.id))).toEqual(['white_check_mark']);
  });

  test('reacting twice with the same emoji is one reaction; other users and other emoji add up', async () => {
    const p = await createPost(alice, publicId);
    const first = (await react(alice, p.id, 'tada').expect(200)).body;
    const again = (await react(alice, p.id, 'tada').expect(200)).body;
    expect(again).toMatchObject({ create_at: first.create_at, delete_at: 0 });
    await react(bob, p.id, 'tada').expect(200);
    await react(alice, p.id, '-1').expect(200);
    const listed = (await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body;
    expect(listed.map((r: any) => `${r.user_id === alice.id ? 'alice' : 'bob'}:${r.emoji_name}`)).toEqual(['alice:tada', 'bob:tada', 'alice:-1']);
  });

  test('a post without reactions lists an empty array', async () => {
    const p = await createPost(alice, publicId);
    expect((await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body).toEqual([]);
  });

  test('removing a reaction that is not there is 200 and changes nothing; `me` stands for the caller', async () => {
    const p = await createPost(alice, publicId);
    const t0 = (await alice.api.get(`/api/v4/posts/${p.id}`).expect(200)).body.update_at;
    expect((await unreact(alice, 'me', p.id, 'smile').expect(200)).body).toEqual({ status: 'OK' });
    expect((await alice.api.get(`/api/v4/posts/${p.id}`).expect(200)).body.update_at).toBe(t0);
    await react(alice, p.id, 'smile').expect(200);
    await unreact(alice, 'me', p.id, 'smile').expect(200);
    expect((await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body).toEqual([]);
  });
});

describe('posts carry their reactions', () => {
  test('has_reactions and metadata.reactions in GetPost, GetPostsForChannel, GetPostThread and GetPostsByIds; gone when the last one goes', async () => {
    const ch = await channel('O', [alice, bob]);
    const root = await createPost(alice, ch);
    const reply = await createPost(bob, ch, 'reply', { root_id: root.id });
    expect(root).not.toHaveProperty('has_reactions');
    await react(bob, root.id, 'heart').expect(200);
    await react(alice, root.id, 'eyes').expect(200);

    const single = (await bob.api.get(`/api/v4/posts/${root.id}`).expect(200)).body;
    expect(single.has_reactions).toBe(true);
    expect(single.metadata.reactions.map((r: any) => [r.user_id, r.emoji_name])).toEqual([
      [bob.id, 'heart'],
      [alice.id, 'eyes'],
    ]);
    const page = (await bob.api.get(`/api/v4/channels/${ch}/posts`).expect(200)).body;
    expect(page.posts[root.id]).toMatchObject({ has_reactions: true, metadata: { reactions: single.metadata.reactions } });
    expect(page.posts[reply.id]).not.toHaveProperty('has_reactions');
    expect(page.posts[reply.id].metadata).not.toHaveProperty('reactions');
    const thread = (await bob.api.get(`/api/v4/posts/${reply.id}/thread`).expect(200)).body;
    expect(names(thread.posts[root.id].metadata.reactions)).toEqual(['heart', 'eyes']);
    const byIds = (await bob.api.post('/api/v4/posts/ids', [root.id]).expect(200)).body;
    expect(byIds[0]).toMatchObject({ id: root.id, has_reactions: true });

    await unreact(bob, bob.id, root.id, 'heart').expect(200);
    await unreact(alice, alice.id, root.id, 'eyes').expect(200);
    const after = (await bob.api.get(`/api/v4/posts/${root.id}`).expect(200)).body;
    expect(after).not.toHaveProperty('has_reactions');
    expect(after.metadata).not.toHaveProperty('reactions');
  });

  test("a reaction moves the post's update_at (not edit_at): the channel's ETag changes and `since` readers get the post", async () => {
    const ch = await channel('O', [alice, bob]);
    const p = await createPost(alice, ch);
    const first = await bob.api.get(`/api/v4/channels/${ch}/posts`).expect(200);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    await bob.api.get(`/api/v4/channels/${ch}/posts`).set('If-None-Match', etag).expect(304);
    const since = (await bob.api.get(`/api/v4/posts/${p.id}`).expect(200)).body.update_at;

    const saved = (await react(bob, p.id, 'rocket').expect(200)).body;
    const reacted = (await bob.api.get(`/api/v4/posts/${p.id}`).expect(200)).body;
    expect(reacted.update_at).toBeGreaterThan(since);
    expect(reacted.update_at).toBe(saved.update_at);
    expect(reacted.edit_at).toBe(0);
    const fresh = await bob.api.get(`/api/v4/channels/${ch}/posts`).set('If-None-Match', etag).expect(200);
    expect(fresh.headers.etag).not.toBe(etag);
    const changed = (await bob.api.get(`/api/v4/channels/${ch}/posts?since=${since}`).expect(200)).body;
    expect(changed.order).toEqual([p.id]);
    expect(names(changed.posts[p.id].metadata.reactions)).toEqual(['rocket']);

    // Removing it moves update_at again.
    await unreact(bob, bob.id, p.id, 'rocket').expect(200);
    const removed = (await bob.api.get(`/api/v4/posts/${p.id}`).expect(200)).body;
    expect(removed.update_at).toBeGreaterThan(reacted.update_at);
    await bob.api.get(`/api/v4/channels/${ch}/posts`).set('If-None-Match', fresh.headers.etag).expect(200);
  });
});

describe('SaveReaction errors', () => {
  test('emoji names: 1 to 64 of letters, digits, -, + and _', async () => {
    const p = await createPost(alice, publicId);
    const max = `${'x'.repeat(60)}+-_9`;
    expect((await react(alice, p.id, max).expect(200)).body.emoji_name).toBe(max);
    expectAppError(await react(alice, p.id, `${max}y`), 400, 'api.reaction.save_reaction.invalid.app_error');
    expectAppError(await react(alice, p.id, ''), 400, 'api.reaction.save_reaction.invalid.app_error');
    for (const bad of ['smi le', ':smile:', 'é', 'a/b', 'a.b']) expectAppError(await react(alice, p.id, bad), 400, 'model.reaction.is_valid.emoji_name.app_error');
    expect(names((await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body)).toEqual([max]);
  });

  test('ids that are not ids, or missing fields: 400; a body that is not an object: 400', async () => {
    const p = await createPost(alice, publicId);
    expectAppError(await alice.api.post('/api/v4/reactions', { user_id: alice.id, post_id: 'nope', emoji_name: 'x' }), 400, 'api.reaction.save_reaction.invalid.app_error');
    expectAppError(await alice.api.post('/api/v4/reactions', { post_id: p.id, emoji_name: 'x' }), 400, 'api.reaction.save_reaction.invalid.app_error');
    expectAppError(await alice.api.post('/api/v4/reactions', { user_id: alice.id, emoji_name: 'x' }), 400, 'api.reaction.save_reaction.invalid.app_error');
    expectAppError(await alice.api.post('/api/v4/reactions', [p.id]), 400, 'api.context.invalid_param.app_error');
    expectAppError(await alice.api.post('/api/v4/reactions', { user_id: alice.id, post_id: p.id, emoji_name: 1 }), 400, 'api.context.invalid_param.app_error');
  });

  test("reacting as someone else: 403 api.reaction.save_reaction.user_id.app_error, also for a system admin", async () => {
    const p = await createPost(alice, publicId);
    expectAppError(await react(alice, p.id, 'smile', bob.id), 403, 'api.reaction.save_reaction.user_id.app_error');
    expectAppError(await react(admin, p.id, 'smile', bob.id), 403, 'api.reaction.save_reaction.user_id.app_error');
    await expectClientError(client4For(server, alice).addReaction(bob.id, p.id, 'smile'), 403);
  });

  test('only channel members react: a team member outside a public channel may read its reactions but not add any (403)', async () => {
    const p = await createPost(alice, publicId);
    await react(alice, p.id, 'smile').expect(200);
    expectAppError(await react(carol, p.id, 'smile'), 403, 'api.context.permissions.app_error');
    expect(names((await carol.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body)).toEqual(['smile']);
    expectAppError(await unreact(carol, carol.id, p.id, 'smile'), 403, 'api.context.permissions.app_error');
  });

  test('a private channel: a non-member can neither react nor read reactions (403)', async () => {
    const p = await createPost(alice, privateId);
    expectAppError(await react(carol, p.id, 'smile'), 403, 'api.context.permissions.app_error');
    expectAppError(await carol.api.get(`/api/v4/posts/${p.id}/reactions`), 403, 'api.context.permissions.app_error');
    await expectClientError(client4For(server, carol).getReactionsForPost(p.id), 403, 'api.context.permissions.app_error');
    // A system admin who is not a member can read them.
    await admin.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200);
  });

  test('no session: 401', async () => {
    const p = await createPost(alice, publicId);
    expectAppError(await server.http().post('/api/v4/reactions', { user_id: alice.id, post_id: p.id, emoji_name: 'x' }), 401, 'api.context.session_expired.app_error');
    expectAppError(await server.http().get(`/api/v4/posts/${p.id}/reactions`), 401, 'api.context.session_expired.app_error');
    expectAppError(await server.http().delete(`/api/v4/users/${alice.id}/posts/${p.id}/reactions/x`), 401, 'api.context.session_expired.app_error');
    expectAppError(await server.http().post('/api/v4/posts/ids/reactions', [p.id]), 401, 'api.context.session_expired.app_error');
  });

  test('a post that does not exist: 403 for a member (the permission is checked through the post), 404 for a system admin; a deleted post: 404', async () => {
    const unknown = newId();
    expectAppError(await react(alice, unknown, 'x'), 403, 'api.context.permissions.app_error');
    expectAppError(await react(admin, unknown, 'x'), 404, 'app.post.get.app_error');
    expectAppError(await alice.api.get(`/api/v4/posts/${unknown}/reactions`), 403, 'api.context.permissions.app_error');
    expectAppError(await admin.api.get(`/api/v4/posts/${unknown}/reactions`), 404, 'app.post.get.app_error');
    const p = await createPost(alice, publicId);
    await react(alice, p.id, 'x').expect(200);
    await alice.api.delete(`/api/v4/posts/${p.id}`).expect(200);
    expectAppError(await react(alice, p.id, 'y'), 404, 'app.post.get.app_error');
    expectAppError(await unreact(alice, alice.id, p.id, 'x'), 404, 'app.post.get.app_error');
  });

  test('archived channel: 403 api.reaction.save.archived_channel.app_error / api.reaction.delete.archived_channel.app_error', async () => {
    const ch = await channel('O', [alice]);
    const p = await createPost(alice, ch);
    await react(alice, p.id, 'x').expect(200);
    await server.parley.db.knex('channels').where({ id: ch }).update({ delete_at: Date.now() });
    expectAppError(await react(alice, p.id, 'y'), 403, 'api.reaction.save.archived_channel.app_error');
    expectAppError(await unreact(alice, alice.id, p.id, 'x'), 403, 'api.reaction.delete.archived_channel.app_error');
    expect(names((await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body)).toEqual(['x']);
  });
});

describe('the per-post limit of different emoji (ServiceSettings.UniqueEmojiReactionLimitPerPost)', () => {
  async function withLimit(limit: number, fn: () => Promise<void>): Promise<void> {
    await admin.api.put('/api/v4/config/patch', { ServiceSettings: { UniqueEmojiReactionLimitPerPost: limit } }).expect(200);
    try {
      await fn();
    } finally {
      await admin.api.put('/api/v4/config/patch', { ServiceSettings: { UniqueEmojiReactionLimitPerPost: 50 } }).expect(200);
    }
  }

  test('is 50 by default, in the client config too', async () => {
    expect((await alice.api.get('/api/v4/config/client?format=old').expect(200)).body.UniqueEmojiReactionLimitPerPost).toBe('50');
    const p = await createPost(alice, publicId);
    for (let i = 0; i < 50; i++) await react(alice, p.id, `e${i}`).expect(200);
    expectAppError(await react(alice, p.id, 'e50'), 400, 'app.reaction.save.save.too_many_reactions');
    expect((await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body).toHaveLength(50);
  });

  test('a new emoji past the limit is 400; an emoji already there can still be added by others; removing one makes room', async () => {
    await withLimit(3, async () => {
      const p = await createPost(alice, publicId);
      for (const e of ['a', 'b', 'c']) await react(alice, p.id, e).expect(200);
      expectAppError(await react(bob, p.id, 'd'), 400, 'app.reaction.save.save.too_many_reactions');
      await react(bob, p.id, 'a').expect(200);
      await react(alice, p.id, 'a').expect(200);
      await unreact(alice, alice.id, p.id, 'c').expect(200);
      await react(bob, p.id, 'd').expect(200);
      expect(names((await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body).sort()).toEqual(['a', 'a', 'b', 'd']);
    });
  });

  test('holds when many different emoji arrive at once', async () => {
    await withLimit(3, async () => {
      const p = await createPost(alice, publicId);
      const answers = await Promise.all(['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8'].map((e, i) => react(i % 2 ? alice : bob, p.id, e)));
      expect(answers.map((r) => r.status).filter((s) => s === 200)).toHaveLength(3);
      for (const r of answers.filter((a) => a.status !== 200)) expectAppError(r, 400, 'app.reaction.save.save.too_many_reactions');
      expect((await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body).toHaveLength(3);
    });
  });

  test('must be a positive whole number (400 on a patch)', async () => {
    expectAppError(await admin.api.put('/api/v4/config/patch', { ServiceSettings: { UniqueEmojiReactionLimitPerPost: 0 } }), 400, 'api.context.invalid_param.app_error');
    expect((await admin.api.get('/api/v4/config').expect(200)).body.ServiceSettings.UniqueEmojiReactionLimitPerPost).toBe(50);
  });
});

describe('DeleteReaction', () => {
  test("a member cannot remove someone else's reaction (403); a system admin can (remove_others_reactions)", async () => {
    const p = await createPost(alice, publicId);
    await react(bob, p.id, 'smile').expect(200);
    expectAppError(await unreact(alice, bob.id, p.id, 'smile'), 403, 'api.context.permissions.app_error');
    await expectClientError(client4For(server, alice).removeReaction(bob.id, p.id, 'smile'), 403, 'api.context.permissions.app_error');
    await unreact(admin, bob.id, p.id, 'smile').expect(200);
    expect((await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body).toEqual([]);
  });

  test('adding and removing the same reactions at once: every call answered 200, nothing left half-done', async () => {
    const p = await createPost(alice, publicId);
    const calls = Array.from({ length: 24 }, (_, i) => {
      const who = i % 3 === 0 ? bob : alice;
      return i % 2 === 0 ? react(who, p.id, 'zap') : unreact(who, who.id, p.id, 'zap');
    });
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(calls.map(() => 200));
    const left = (await alice.api.get(`/api/v4/posts/${p.id}/reactions`).expect(200)).body;
    expect(left.length).toBeLessThanOrEqual(2);
    expect((await alice.api.get(`/api/v4/posts/${p.id}`).expect(200)).body.has_reactions === true).toBe(left.length > 0);
  });

  test('emoji names outside the allowed characters or past 64: 400', async () => {
    const p = await createPost(alice, publicId);
    expectAppError(await unreact(alice, alice.id, p.id, 'a'.repeat(65)), 400, 'api.context.invalid_param.app_error');
    expectAppError(await unreact(alice, alice.id, p.id, 'a%20b'), 400, 'api.context.invalid_param.app_error');
  });
});

describe('GetBulkReactions', () => {
  test('every requested post is a key, with [] when it has no reactions', async () => {
    const p1 = await createPost(alice, publicId);
    const p2 = await createPost(alice, privateId);
    const p3 = await createPost(alice, publicId);
    await react(alice, p1.id, 'one').expect(200);
    await react(bob, p2.id, 'two').expect(200);
    await react(alice, p2.id, 'three').expect(200);
    const got = (await bob.api.post('/api/v4/posts/ids/reactions', [p1.id, p2.id, p3.id, p1.id]).expect(200)).body;
    expect(Object.keys(got).sort()).toEqual([p1.id, p2.id, p3.id].sort());
    expect(names(got[p1.id])).toEqual(['one']);
    expect(names(got[p2.id])).toEqual(['two', 'three']);
    expect(got[p3.id]).toEqual([]);
    expect((await bob.api.post('/api/v4/posts/ids/reactions', []).expect(200)).body).toEqual({});
  });

  test('one post the caller may not read makes it 403; an unknown one too, except for a system admin', async () => {
    const open = await createPost(alice, publicId);
    const secret = await createPost(alice, privateId);
    expectAppError(await carol.api.post('/api/v4/posts/ids/reactions', [open.id, secret.id]), 403, 'api.context.permissions.app_error');
    await carol.api.post('/api/v4/posts/ids/reactions', [open.id]).expect(200);
    expectAppError(await carol.api.post('/api/v4/posts/ids/reactions', [open.id, newId()]), 403, 'api.context.permissions.app_error');
    const unknown = newId();
    const got = (await admin.api.post('/api/v4/posts/ids/reactions', [open.id, unknown]).expect(200)).body;
    expect(got).toEqual({ [open.id]: [], [unknown]: [] });
    expectAppError(await carol.api.post('/api/v4/posts/ids/reactions', { ids: [open.id] }), 400, 'api.context.invalid_param.app_error');
  });
});
