// Two server processes sharing one database: every management change made through process A takes effect on
// process B's very next webhook post, although B caches hooks, creators and channels (the product rule: consistent across
// several processes behind a load balancer).
import { expectAppError } from '../support/assertions';
import { createUser, createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { addToChannel, createChannel, createHook, expectOk, lastPost, postJson, uniqueName } from './hooks-support';

let a: TestServer;
let b: TestServer;
let world: World;

beforeAll(async () => {
  a = await startTestServer();
  b = await startTestServer({}, a.db);
  world = await createWorld(a);
});
afterAll(async () => {
  await b.close();
  await a.close();
});

test('delete on A: B, whose cache holds the hook, answers 404 on the next post', async () => {
  const hook = await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'x-proc' });
  // Warm B's cache (twice: the second post is served from the cache).
  expectOk(await postJson(b, hook.id, { text: 'warm 1' }));
  expectOk(await postJson(b, hook.id, { text: 'warm 2' }));
  await world.admin.api.delete(`/api/v4/hooks/incoming/${hook.id}`).expect(200);
  const res = await postJson(b, hook.id, { text: 'after delete' });
  expectAppError(res, 404, 'web.incoming_webhook.invalid.app_error', { notContaining: hook.id });
  // And it stays 404, on both processes.
  expectAppError(await postJson(b, hook.id, { text: 'again' }), 404, 'web.incoming_webhook.invalid.app_error', { notContaining: hook.id });
  expectAppError(await postJson(a, hook.id, { text: 'on A' }), 404, 'web.incoming_webhook.invalid.app_error', { notContaining: hook.id });
  expect((await lastPost(world.admin, world.townSquareId)).message).toBe('warm 2');
});

test("removing the hook's creator from its private channel on A: B answers 403 on the next post", async () => {
  const creator = await createUser(a, world.admin);
  await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: creator.id }).expect(201);
  const privateId = await createChannel(world.admin, world.teamId, uniqueName('xpriv'), 'P');
  await addToChannel(world.admin, privateId, creator.id);
  const hook = await createHook(world.admin, { channel_id: privateId, user_id: creator.id, display_name: 'private' });
  expectOk(await postJson(b, hook.id, { text: 'warm 1' }));
  expectOk(await postJson(b, hook.id, { text: 'warm 2' }));
  await world.admin.api.delete(`/api/v4/channels/${privateId}/members/${creator.id}`).expect(200);
  const res = await postJson(b, hook.id, { text: 'after removal' });
  expectAppError(res, 403, 'web.incoming_webhook.permissions.app_error', { notContaining: hook.id });
  expect((await lastPost(world.admin, privateId)).message).toBe('warm 2');
  // Added back on A: B posts again.
  await addToChannel(world.admin, privateId, creator.id);
  expectOk(await postJson(b, hook.id, { text: 'back' }));
});

test("the hook's display name updated on A is on B's next post", async () => {
  const hook = await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Old name' });
  expectOk(await postJson(b, hook.id, { text: 'warm 1' }));
  expectOk(await postJson(b, hook.id, { text: 'warm 2' }));
  expect((await lastPost(world.admin, world.townSquareId)).props.webhook_display_name).toBe('Old name');
  await world.admin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, display_name: 'New name' }).expect(200);
  expectOk(await postJson(b, hook.id, { text: 'renamed' }));
  const post = await lastPost(world.admin, world.townSquareId);
  expect(post.message).toBe('renamed');
  expect(post.props.webhook_display_name).toBe('New name');
});

test("the hook's channel changed on A: B posts to the new channel", async () => {
  const hook = await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'mover' });
  expectOk(await postJson(b, hook.id, { text: 'warm' }));
  const offTopic = (await world.admin.api.get(`/api/v4/teams/${world.teamId}/channels/name/off-topic`).expect(200)).body.id;
  await world.admin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, channel_id: offTopic }).expect(200);
  expectOk(await postJson(b, hook.id, { text: 'moved' }));
  expect((await lastPost(world.admin, offTopic)).message).toBe('moved');
});

test('locking the hook on A: B refuses another channel with 403 on the next post', async () => {
  const hook = await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'lock' });
  expectOk(await postJson(b, hook.id, { text: 'warm', channel: 'off-topic' }));
  await world.admin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, channel_locked: true }).expect(200);
  expectAppError(await postJson(b, hook.id, { text: 'locked', channel: 'off-topic' }), 403, 'web.incoming_webhook.channel_locked.app_error', { notContaining: hook.id });
  expectOk(await postJson(b, hook.id, { text: 'own channel', channel: 'town-square' }));
});

test('EnableIncomingWebhooks=false patched on A: B answers 501 once it has the shared config', async () => {
  const hook = await createHook(world.admin, { channel_id: world.townSquareId });
  expectOk(await postJson(b, hook.id, { text: 'warm' }));
  await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableIncomingWebhooks: false } }).expect(200);
  try {
    // B polls the shared config (once a second); refresh makes the poll happen now.
    await b.parley.config.refresh();
    expectAppError(await postJson(b, hook.id, { text: 'disabled' }), 501, 'web.incoming_webhook.disabled.app_error', { notContaining: hook.id });
  } finally {
    await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableIncomingWebhooks: true } }).expect(200);
    await b.parley.config.refresh();
  }
  expectOk(await postJson(b, hook.id, { text: 'enabled again' }));
});

test("the creator's username changed on A: B's next post uses the new name as override_username", async () => {
  const creator = await createUser(a, world.admin);
  await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: creator.id }).expect(201);
  const hook = await createHook(world.admin, { channel_id: world.townSquareId, user_id: creator.id });
  await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnablePostUsernameOverride: true } }).expect(200);
  try {
    await b.parley.config.refresh();
    expectOk(await postJson(b, hook.id, { text: 'warm 1' }));
    expectOk(await postJson(b, hook.id, { text: 'warm 2' }));
    expect((await lastPost(world.admin, world.townSquareId)).props.override_username).toBe(creator.username);
    const renamed = uniqueName('renamed');
    await world.admin.api.put(`/api/v4/users/${creator.id}/patch`, { username: renamed }).expect(200);
    expectOk(await postJson(b, hook.id, { text: 'after rename' }));
    const post = await lastPost(world.admin, world.townSquareId);
    expect(post.message).toBe('after rename');
    expect(post.props.override_username).toBe(renamed);
  } finally {
    await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnablePostUsernameOverride: false } }).expect(200);
    await b.parley.config.refresh();
  }
});

test("the hook's channel archived (in the shared database): B refuses the post and stores nothing", async () => {
  const channelId = await createChannel(world.admin, world.teamId, uniqueName('archived'));
  const hook = await createHook(world.admin, { channel_id: channelId });
  expectOk(await postJson(b, hook.id, { text: 'warm 1' }));
  expectOk(await postJson(b, hook.id, { text: 'warm 2' }));
  // No archive operation in the API subset: archive the way the store does, in the database both processes share.
  const now = Date.now();
  await a.parley.db.knex('channels').where({ id: channelId }).update({ delete_at: now, update_at: now });
  const res = await postJson(b, hook.id, { text: 'into the archive' });
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.text).not.toContain(hook.id);
  const count = await a.parley.db.knex('posts').where({ channel_id: channelId }).count<{ n: number }[]>({ n: '*' });
  expect(Number(count[0].n)).toBe(2);
});
