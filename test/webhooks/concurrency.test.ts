// Concurrent webhook posts share write transactions (group commit). Whatever shares a transaction, every "ok" is a
// committed post, counters and mention counts add up, and a hook deleted meanwhile fails only its own posts.
import { expectAppError } from '../support/assertions';
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import type { RawAnswer } from '../support/http';
import { addToChannel, channelPosts, createChannel, createHook, postJson, uniqueName } from './hooks-support';

let server: TestServer;
let world: World;
let alice: Actor;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  alice = await createUser(server, world.admin, { username: uniqueName('alice') });
  await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: alice.id }).expect(201);
});
afterAll(() => server.close());

// As stored: the API shows another user's counts as -1, to system admins too.
const member = async (channelId: string, userId: string) => {
  const m = await server.parley.app.deps.stores.channels.getMember(channelId, userId);
  if (!m) throw new Error(`${userId} is not a member of ${channelId}`);
  return m;
};
const channel = async (channelId: string) => (await world.admin.api.get(`/api/v4/channels/${channelId}`).expect(200)).body;

test('60 concurrent posts through two hooks into an open and a private channel: all ok, all stored, counts exact', async () => {
  const open = await createChannel(world.admin, world.teamId, uniqueName('busy'));
  const priv = await createChannel(world.admin, world.teamId, uniqueName('busypriv'), 'P');
  for (const id of [open, priv]) await addToChannel(world.admin, id, alice.id);
  const hookOpen = (await createHook(world.admin, { channel_id: open, display_name: 'open' })).id;
  const hookPriv = (await createHook(world.admin, { channel_id: priv, display_name: 'priv' })).id;
  const sends: Array<Promise<RawAnswer>> = [];
  for (let i = 0; i < 30; i++) {
    // Every third post mentions alice, so the mention counts of a shared transaction must add up per post.
    sends.push(postJson(server, hookOpen, { text: i % 3 === 0 ? `open ${i} @${alice.username}` : `open ${i}` }));
    sends.push(postJson(server, hookPriv, { text: `priv ${i}` }));
  }
  const answers = await Promise.all(sends);
  expect(answers.map((r) => `${r.status} ${r.text}`)).toEqual(answers.map(() => '200 ok'));
  const openPosts = await channelPosts(world.admin, open);
  const privPosts = await channelPosts(world.admin, priv);
  expect(openPosts.map((p) => p.message).sort()).toEqual(Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `open ${i} @${alice.username}` : `open ${i}`)).sort());
  expect(privPosts.map((p) => p.message).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `priv ${i}`).sort());
  expect((await channel(open)).total_msg_count).toBe(30);
  expect((await channel(priv)).total_msg_count).toBe(30);
  expect((await member(open, alice.id)).mention_count).toBe(10);
  expect((await member(priv, alice.id)).mention_count).toBe(0);
});

test('a hook deleted while its posts queue behind others: its posts fail with 404, everyone else’s commit', async () => {
  const target = await createChannel(world.admin, world.teamId, uniqueName('mixed'));
  const keep = (await createHook(world.admin, { channel_id: target, display_name: 'keep' })).id;
  const doomed = (await createHook(world.admin, { channel_id: target, display_name: 'doomed' })).id;
  // Warm the cache with the doomed hook, then delete it: its next posts are served from a stale cache entry and
  // must be refused by the check inside the shared transaction.
  expect((await postJson(server, doomed, { text: 'warm' })).status).toBe(200);
  await world.admin.api.delete(`/api/v4/hooks/incoming/${doomed}`).expect(200);
  const sends: Array<Promise<RawAnswer>> = [];
  for (let i = 0; i < 10; i++) {
    sends.push(postJson(server, keep, { text: `keep ${i}` }));
    sends.push(postJson(server, doomed, { text: `doomed ${i}` }));
  }
  const answers = await Promise.all(sends);
  answers.forEach((r, i) => {
    if (i % 2 === 0) expect(`${r.status} ${r.text}`).toBe('200 ok');
    else expectAppError(r, 404, 'web.incoming_webhook.invalid.app_error', { notContaining: doomed });
  });
  const messages = (await channelPosts(world.admin, target)).map((p) => p.message);
  expect(messages.filter((m) => m.startsWith('keep')).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `keep ${i}`).sort());
  expect(messages.filter((m) => m.startsWith('doomed'))).toEqual([]);
  expect((await channel(target)).total_msg_count).toBe(11);
});
