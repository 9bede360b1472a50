// Where a webhook post goes (docs/webhook-rules.md, rule 6), who may post there, the disabled switch (rule 4) and the error ids
// of this path (rule 13): the hook key never appears in an answer.
import { expectAppError } from '../support/assertions';
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { addToChannel, channelPosts, createChannel, createHook, expectOk, lastPost, patchConfig, postJson, rawPost, uniqueName } from './hooks-support';

let server: TestServer;
let world: World;
let key: string; // admin's hook on town-square
let offTopicId: string;
let alice: Actor; // a team member

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  offTopicId = (await world.admin.api.get(`/api/v4/teams/${world.teamId}/channels/name/off-topic`).expect(200)).body.id;
  key = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Router' })).id;
  alice = await createUser(server, world.admin, { username: uniqueName('alice') });
  await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: alice.id }).expect(201);
});
afterAll(() => server.close());

async function dmBetween(a: Actor, b: Actor): Promise<string> {
  return (await a.api.post('/api/v4/channels/direct', [a.id, b.id]).expect(201)).body.id;
}

describe('channel by name', () => {
  test.each(['town-square', '#town-square'])('%p posts to that channel', async (channel) => {
    expectOk(await postJson(server, key, { text: `to ${channel}`, channel }));
    const post = await lastPost(world.admin, world.townSquareId);
    expect(post.message).toBe(`to ${channel}`);
  });

  test.each(['off-topic', '#off-topic'])('%p posts to that channel, not the default one', async (channel) => {
    expectOk(await postJson(server, key, { text: `to ${channel}`, channel }));
    expect((await lastPost(world.admin, offTopicId)).message).toBe(`to ${channel}`);
    expect((await lastPost(world.admin, world.townSquareId)).message).not.toBe(`to ${channel}`);
  });

  test('an empty channel posts to the hook channel', async () => {
    expectOk(await postJson(server, key, { text: 'default', channel: '' }));
    expect((await lastPost(world.admin, world.townSquareId)).message).toBe('default');
  });

  test('channel names are matched whatever their case (names are lower-case), on every database', async () => {
    expectOk(await postJson(server, key, { text: 'upper name', channel: 'Off-Topic' }));
    expect((await lastPost(world.admin, offTopicId)).message).toBe('upper name');
  });

  test.each(['no-such-channel', '#no-such-channel', '#', 'Town Square'])('%p is 404 web.incoming_webhook.channel.app_error', async (channel) => {
    expectAppError(await postJson(server, key, { text: 'x', channel }), 404, 'web.incoming_webhook.channel.app_error', { notContaining: key });
  });

  test("a channel of another team is not found: names are scoped to the hook's team", async () => {
    const other = await world.admin.api.post('/api/v4/teams', { name: uniqueName('elsewhere'), display_name: 'E', type: 'O' }).expect(201);
    const name = uniqueName('onlythere');
    await createChannel(world.admin, other.body.id, name);
    expectAppError(await postJson(server, key, { text: 'x', channel: name }), 404, 'web.incoming_webhook.channel.app_error', { notContaining: key });
  });
});

describe('@username: the direct channel between that user and the hook creator', () => {
  test('created if needed, and the post is in it', async () => {
    const bob = await createUser(server, world.admin, { username: uniqueName('bob') });
    const before = await world.admin.api.get(`/api/v4/users/${bob.id}/teams/${world.teamId}/channels`).expect(200);
    expect(before.body.filter((c: { type: string }) => c.type === 'D')).toEqual([]);
    expectOk(await postJson(server, key, { text: 'hello bob', channel: `@${bob.username}` }));
    const dmId = await dmBetween(world.admin, bob);
    const posts = await channelPosts(bob, dmId);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ message: 'hello bob', user_id: world.admin.id });
    expect(posts[0].props.from_webhook).toBe('true');
    // The same channel the second time.
    expectOk(await postJson(server, key, { text: 'again bob', channel: `@${bob.username}` }));
    expect((await channelPosts(bob, dmId)).map((p) => p.message)).toEqual(['hello bob', 'again bob']);
  });

  test('an existing direct channel is reused', async () => {
    const dmId = await dmBetween(world.admin, alice);
    expectOk(await postJson(server, key, { text: 'hi alice', channel: `@${alice.username}` }));
    expect((await lastPost(alice, dmId)).message).toBe('hi alice');
  });

  test("@<creator's own username> is the creator's self-DM", async () => {
    expectOk(await postJson(server, key, { text: 'note to self', channel: `@${world.admin.username}` }));
    const self = (await world.admin.api.post('/api/v4/channels/direct', [world.admin.id, world.admin.id]).expect(201)).body.id;
    expect((await lastPost(world.admin, self)).message).toBe('note to self');
  });

  test('the username is matched whatever its case', async () => {
    expectOk(await postJson(server, key, { text: 'upper user', channel: `@${alice.username.toUpperCase()}` }));
    expect((await lastPost(alice, await dmBetween(world.admin, alice))).message).toBe('upper user');
  });

  test.each(['@nosuchuser', '@'])('%p is 404 web.incoming_webhook.user.app_error', async (channel) => {
    expectAppError(await postJson(server, key, { text: 'x', channel }), 404, 'web.incoming_webhook.user.app_error', { notContaining: key });
  });
});

describe('channel-locked hook', () => {
  let locked: string;

  beforeAll(async () => {
    locked = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Locked', channel_locked: true })).id;
  });

  test.each(['', 'town-square', '#town-square'])('its own channel (%p) is allowed', async (channel) => {
    expectOk(await postJson(server, locked, { text: `locked ${channel}`, channel }));
    expect((await lastPost(world.admin, world.townSquareId)).message).toBe(`locked ${channel}`);
  });

  test.each(['off-topic', '#off-topic'])('another channel (%p) is 403 channel_locked', async (channel) => {
    const res = await postJson(server, locked, { text: 'x', channel });
    expectAppError(res, 403, 'web.incoming_webhook.channel_locked.app_error', { notContaining: locked });
  });

  test('@user is 403 channel_locked, also for the creator and for unknown users', async () => {
    for (const channel of [`@${alice.username}`, `@${world.admin.username}`, '@nosuchuser']) {
      expectAppError(await postJson(server, locked, { text: 'x', channel }), 403, 'web.incoming_webhook.channel_locked.app_error', { notContaining: locked });
    }
  });

  test('an unknown channel name is still 404', async () => {
    expectAppError(await postJson(server, locked, { text: 'x', channel: 'no-such' }), 404, 'web.incoming_webhook.channel.app_error', { notContaining: locked });
  });
});

describe('non-public channels need the creator to be a member', () => {
  test('a private channel the creator is not in answers exactly as a missing name (404, same id and message); after joining: 200', async () => {
    const privateId = await createChannel(alice, world.teamId, uniqueName('alicepriv'), 'P');
    const name = (await alice.api.get(`/api/v4/channels/${privateId}`).expect(200)).body.name;
    // The hook's creator is a system admin, and still must be a member.
    const res = await postJson(server, key, { text: 'x', channel: name });
    const missing = await postJson(server, key, { text: 'x', channel: uniqueName('nosuch') });
    expectAppError(res, 404, 'web.incoming_webhook.channel.app_error', { notContaining: key });
    expect({ status: res.status, id: res.json.id, message: res.json.message }).toEqual({ status: missing.status, id: missing.json.id, message: missing.json.message });
    expect(res.text).not.toContain(name);
    expect(res.text).not.toContain(world.admin.username);
    expect(await channelPosts(alice, privateId)).toEqual([]);
    await addToChannel(alice, privateId, world.admin.id);
    expectOk(await postJson(server, key, { text: 'member now', channel: name }));
    expect((await lastPost(alice, privateId)).message).toBe('member now');
  });

  test('a locked hook naming a private channel its creator is not in: 404 as a missing name, not 403 channel_locked', async () => {
    const locked = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Locked too', channel_locked: true })).id;
    const privateId = await createChannel(alice, world.teamId, uniqueName('lockpriv'), 'P');
    const name = (await alice.api.get(`/api/v4/channels/${privateId}`).expect(200)).body.name;
    const res = await postJson(server, locked, { text: 'x', channel: `#${name}` });
    expectAppError(res, 404, 'web.incoming_webhook.channel.app_error', { notContaining: locked });
    expect(res.text).not.toContain(name);
    expect(res.text).not.toContain(privateId);
  });

  test('an archived private channel the creator is not in: 404 as a missing name', async () => {
    const privateId = await createChannel(alice, world.teamId, uniqueName('gonepriv'), 'P');
    const name = (await alice.api.get(`/api/v4/channels/${privateId}`).expect(200)).body.name;
    await alice.api.delete(`/api/v4/channels/${privateId}`).expect(200);
    expectAppError(await postJson(server, key, { text: 'x', channel: name }), 404, 'web.incoming_webhook.channel.app_error', { notContaining: key });
  });

  test('@user: a deactivated user answers exactly as an unknown one, and neither answer names the user', async () => {
    const gone = await createUser(server, world.admin, { username: uniqueName('gone') });
    await world.admin.api.delete(`/api/v4/users/${gone.id}`).expect(200);
    const deactivated = await postJson(server, key, { text: 'x', channel: `@${gone.username}` });
    const unknown = await postJson(server, key, { text: 'x', channel: `@${uniqueName('ghost')}` });
    expectAppError(deactivated, 404, 'web.incoming_webhook.user.app_error', { notContaining: key });
    expect({ status: deactivated.status, id: deactivated.json.id, message: deactivated.json.message }).toEqual({ status: unknown.status, id: unknown.json.id, message: unknown.json.message });
    expect(deactivated.text).not.toContain(gone.username);
  });

  test("a hook whose default channel is private stops working when its creator leaves (403, naming neither user nor channel)", async () => {
    const privateId = await createChannel(alice, world.teamId, uniqueName('leave'), 'P');
    const hook = await createHook(world.admin, { channel_id: privateId, user_id: alice.id });
    expectOk(await postJson(server, hook.id, { text: 'while member' }));
    await alice.api.delete(`/api/v4/channels/${privateId}/members/me`).expect(200);
    const res = await postJson(server, hook.id, { text: 'after leaving' });
    expectAppError(res, 403, 'web.incoming_webhook.permissions.app_error', { notContaining: hook.id });
    expect(res.text).not.toContain(alice.username);
    expect(res.text).not.toContain((await world.admin.api.get(`/api/v4/channels/${privateId}`).expect(200)).body.name);
  });

  test('a public channel the creator is not in: allowed, as in Mattermost', async () => {
    const publicId = await createChannel(alice, world.teamId, uniqueName('alicepub'), 'O');
    const name = (await alice.api.get(`/api/v4/channels/${publicId}`).expect(200)).body.name;
    const hook = await createHook(world.admin, { channel_id: world.townSquareId, user_id: alice.id });
    await alice.api.delete(`/api/v4/channels/${publicId}/members/me`).expect(200);
    expectOk(await postJson(server, hook.id, { text: 'public, not a member', channel: name }));
    expect((await lastPost(world.admin, publicId)).message).toBe('public, not a member');
  });
});

describe('errors never contain the hook key', () => {
  test.each<[string, unknown, number]>([
    ['no text', { text: '' }, 400],
    ['bad type', { text: 'x', type: 'foo' }, 400],
    ['unknown channel', { text: 'x', channel: 'nope' }, 404],
    ['unknown user', { text: 'x', channel: '@nope' }, 404],
    ['bad field type', { text: 5 }, 400],
  ])('%s', async (_name, payload, status) => {
    expectAppError(await postJson(server, key, payload), status, undefined, { notContaining: key });
  });

  test('unknown and malformed keys', async () => {
    const unknown = 'zyxwvutsrqponmlkjihgfedcba';
    expectAppError(await postJson(server, unknown, { text: 'x' }), 404, 'web.incoming_webhook.invalid.app_error', { notContaining: unknown });
    expectAppError(await rawPost(server.url, '/hooks/not-a-key!', '{"text":"x"}', { 'Content-Type': 'application/json' }), 404, 'web.incoming_webhook.invalid.app_error', { notContaining: 'not-a-key' });
    expectAppError(await rawPost(server.url, `/hooks/${key}x`, '{"text":"x"}', { 'Content-Type': 'application/json' }), 404, 'web.incoming_webhook.invalid.app_error', { notContaining: key });
  });

  test('the key is exact: its upper-case spelling is not the key, on every database', async () => {
    const upper = key.toUpperCase();
    expectAppError(await postJson(server, upper, { text: 'upper key' }), 404, 'web.incoming_webhook.invalid.app_error', { notContaining: upper });
  });

  test('a query string after the key is ignored', async () => {
    expectOk(await rawPost(server.url, `/hooks/${key}?source=ci`, '{"text":"with query"}', { 'Content-Type': 'application/json' }));
    expect((await lastPost(world.admin, world.townSquareId)).message).toBe('with query');
  });
});

describe('EnableIncomingWebhooks=false', () => {
  beforeAll(() => patchConfig(server, world.admin, { ServiceSettings: { EnableIncomingWebhooks: false } }));
  afterAll(() => patchConfig(server, world.admin, { ServiceSettings: { EnableIncomingWebhooks: true } }));

  test('a valid post is 501 web.incoming_webhook.disabled.app_error, and nothing is stored', async () => {
    const before = await lastPost(world.admin, world.townSquareId);
    const res = await postJson(server, key, { text: 'while disabled' });
    expectAppError(res, 501, 'web.incoming_webhook.disabled.app_error', { notContaining: key });
    expect(res.json?.message).toBe('Incoming webhooks have been disabled by the system admin.');
    expect((await lastPost(world.admin, world.townSquareId)).id).toBe(before.id);
  });

  test('form and multipart posts are 501 too; an unknown key as well (nothing is revealed)', async () => {
    const form = await rawPost(server.url, `/hooks/${key}`, 'payload={"text":"x"}', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expectAppError(form, 501, 'web.incoming_webhook.disabled.app_error', { notContaining: key });
    expectAppError(await postJson(server, 'zyxwvutsrqponmlkjihgfedcba', { text: 'x' }), 501, 'web.incoming_webhook.disabled.app_error');
  });

  test('an undecodable body is still 400', async () => {
    expectAppError(await rawPost(server.url, `/hooks/${key}`, '{nope', { 'Content-Type': 'application/json' }), 400, undefined, { notContaining: key });
  });

  test('management answers 501 as well', async () => {
    expect((await world.admin.api.post('/api/v4/hooks/incoming', { channel_id: world.townSquareId }).expect(501)).body.id).toBe('api.incoming_webhook.disabled.app_error');
    await world.admin.api.get(`/api/v4/hooks/incoming/${key}`).expect(501);
    await world.admin.api.get(`/api/v4/hooks/incoming?team_id=${world.teamId}`).expect(501);
    const hook = { id: key, channel_id: world.townSquareId, display_name: 'x' };
    await world.admin.api.put(`/api/v4/hooks/incoming/${key}`, hook).expect(501);
    await world.admin.api.delete(`/api/v4/hooks/incoming/${key}`).expect(501);
  });
});

test('after re-enabling, the hook works again (it was not deleted while disabled)', async () => {
  expectOk(await postJson(server, key, { text: 'enabled again' }));
});
