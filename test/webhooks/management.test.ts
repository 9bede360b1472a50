// Incoming webhook management: CreateIncomingWebhook, GetIncomingWebhooks, GetIncomingWebhook,
// UpdateIncomingWebhook, DeleteIncomingWebhook (permissions, validation, paging) and the key's life cycle.
import { expectAppError } from '../support/assertions';
import { createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { createChannel, createHook, expectOk, postJson, uniqueName } from './hooks-support';

let server: TestServer;
let sysadmin: Actor;
let teamAdmin: Actor; // a plain system user who created the team: team_admin of it
let member: Actor; // a plain team member
let outsider: Actor; // in no team at all
let teamId: string;
let townSquareId: string;
let privateId: string; // private channel of teamAdmin, member not in it
let otherTeamChannelId: string;

const ID = /^[a-z0-9]{26}$/;
const UNKNOWN_ID = 'abcdefghijklmnopqrstuvwxyz';

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  teamAdmin = await createUser(server, sysadmin);
  member = await createUser(server, sysadmin);
  outsider = await createUser(server, sysadmin);
  const team = await teamAdmin.api.post('/api/v4/teams', { name: uniqueName('mgmt'), display_name: 'Mgmt', type: 'O' }).expect(201);
  teamId = team.body.id;
  await teamAdmin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: member.id }).expect(201);
  townSquareId = (await teamAdmin.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
  privateId = await createChannel(teamAdmin, teamId, uniqueName('priv'), 'P');
  const other = await sysadmin.api.post('/api/v4/teams', { name: uniqueName('other'), display_name: 'Other', type: 'O' }).expect(201);
  otherTeamChannelId = (await sysadmin.api.get(`/api/v4/teams/${other.body.id}/channels/name/town-square`).expect(200)).body.id;
});
afterAll(() => server.close());

describe('CreateIncomingWebhook', () => {
  test('a team admin creates a hook: 201, a 26-character id, the channel team, owned by the caller', async () => {
    const res = await teamAdmin.api
      .post('/api/v4/hooks/incoming', { channel_id: townSquareId, display_name: 'CI', description: 'builds' })
      .expect(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body.id).toMatch(ID);
    expect(res.body).toMatchObject({
      channel_id: townSquareId,
      team_id: teamId,
      user_id: teamAdmin.id,
      display_name: 'CI',
      description: 'builds',
      delete_at: 0,
      channel_locked: false,
    });
    expect(res.body.create_at).toBeGreaterThan(0);
    // The key works at once.
    expectOk(await postJson(server, res.body.id, { text: 'first' }));
  });

  test('a system admin who is not in the team creates a hook: 201', async () => {
    const res = await sysadmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId }).expect(201);
    expect(res.body.id).toMatch(ID);
    expect(res.body.user_id).toBe(sysadmin.id);
    expect(res.body.team_id).toBe(teamId);
  });

  test('a plain team member, or a user outside the team, gets 403', async () => {
    for (const actor of [member, outsider]) {
      const res = await actor.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId }).expect(403);
      expect(res.body.id).toBe('api.context.permissions.app_error');
    }
  });

  test('an unknown channel is 404; a malformed channel id is 400', async () => {
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: UNKNOWN_ID }).expect(404);
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: 'nope' }).expect(400);
  });

  test('without a session: 401', async () => {
    await server.http().post('/api/v4/hooks/incoming', { channel_id: townSquareId }).expect(401);
  });

  test('display_name is limited to 64 bytes, not characters', async () => {
    // 32 × "é" is 32 characters and 64 bytes: allowed. 33 × "é" is 66 bytes: refused.
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, display_name: 'é'.repeat(32) }).expect(201);
    const res = await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, display_name: 'é'.repeat(33) }).expect(400);
    expect(res.body.id).toBe('model.incoming_hook.display_name.app_error');
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, display_name: 'x'.repeat(65) }).expect(400);
  });

  test('description over 500 bytes and icon_url over 1024 bytes are 400', async () => {
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, description: 'd'.repeat(501) }).expect(400);
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, icon_url: `https://e.com/${'i'.repeat(1020)}` }).expect(400);
  });

  test.each(['Bad Name', 'UPPER', 'all', 'channel', 'x'.repeat(65), 'na$me'])('invalid username %p is 400', async (username) => {
    const res = await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, username }).expect(400);
    expect(res.body.id).toBe('api.incoming_webhook.invalid_username.app_error');
  });

  test("another user's user_id needs manage_others: a team admin may, a member may not", async () => {
    const res = await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, user_id: member.id }).expect(201);
    expect(res.body.user_id).toBe(member.id);
    await member.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, user_id: teamAdmin.id }).expect(403);
    // The named owner must exist.
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, user_id: UNKNOWN_ID }).expect(404);
  });

  test('a private channel needs read access: the team admin, a member of it, may; others get 403', async () => {
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: privateId }).expect(201);
    const adminsOwn = await createChannel(sysadmin, teamId, uniqueName('sysonly'), 'P');
    await teamAdmin.api.post('/api/v4/hooks/incoming', { channel_id: adminsOwn }).expect(403);
  });

  test('username and icon_url are not stored while the overrides are off', async () => {
    const res = await teamAdmin.api
      .post('/api/v4/hooks/incoming', { channel_id: townSquareId, username: 'ci-bot', icon_url: 'https://e.com/i.png' })
      .expect(201);
    expect(res.body.username).toBe('');
    expect(res.body.icon_url).toBe('');
  });
});

describe('GetIncomingWebhooks', () => {
  let listTeamId: string;
  let ids: string[];

  beforeAll(async () => {
    // A team of its own, so the counts are exact.
    const team = await teamAdmin.api.post('/api/v4/teams', { name: uniqueName('list'), display_name: 'List', type: 'O' }).expect(201);
    listTeamId = team.body.id;
    const town = (await teamAdmin.api.get(`/api/v4/teams/${listTeamId}/channels/name/town-square`).expect(200)).body.id;
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createHook(teamAdmin, { channel_id: town, display_name: `h${i}` })).id);
  });

  test('team_id with page/per_page pages through every hook exactly once', async () => {
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const res = await teamAdmin.api.get(`/api/v4/hooks/incoming?team_id=${listTeamId}&page=${page}&per_page=2`).expect(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body.length).toBe(page < 2 ? 2 : 1);
      for (const h of res.body) expect(h.team_id).toBe(listTeamId);
      seen.push(...res.body.map((h: { id: string }) => h.id));
    }
    expect([...seen].sort()).toEqual([...ids].sort());
    const beyond = await teamAdmin.api.get(`/api/v4/hooks/incoming?team_id=${listTeamId}&page=3&per_page=2`).expect(200);
    expect(beyond.body).toEqual([]);
  });

  test('include_total_count=true wraps the page: {incoming_webhooks, total_count}', async () => {
    const res = await teamAdmin.api.get(`/api/v4/hooks/incoming?team_id=${listTeamId}&page=0&per_page=2&include_total_count=true`).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['incoming_webhooks', 'total_count']);
    expect(res.body.total_count).toBe(5);
    expect(res.body.incoming_webhooks).toHaveLength(2);
    const bare = await teamAdmin.api.get(`/api/v4/hooks/incoming?team_id=${listTeamId}&include_total_count=false`).expect(200);
    expect(Array.isArray(bare.body)).toBe(true);
    expect(bare.body).toHaveLength(5);
  });

  test('a system admin lists every team without team_id; a plain user needs team_id', async () => {
    const all = await sysadmin.api.get('/api/v4/hooks/incoming?per_page=200&include_total_count=true').expect(200);
    expect(all.body.total_count).toBeGreaterThanOrEqual(all.body.incoming_webhooks.length);
    const allIds = all.body.incoming_webhooks.map((h: { id: string }) => h.id);
    for (const id of ids) expect(allIds).toContain(id);
    expect(new Set(all.body.incoming_webhooks.map((h: { team_id: string }) => h.team_id)).size).toBeGreaterThan(1);
    await teamAdmin.api.get('/api/v4/hooks/incoming').expect(403);
  });

  test('a plain member gets 403 for the team; deleted hooks are not listed', async () => {
    await member.api.get(`/api/v4/hooks/incoming?team_id=${listTeamId}`).expect(403);
    await teamAdmin.api.delete(`/api/v4/hooks/incoming/${ids[4]}`).expect(200);
    const res = await teamAdmin.api.get(`/api/v4/hooks/incoming?team_id=${listTeamId}&include_total_count=true`).expect(200);
    expect(res.body.total_count).toBe(4);
    expect(res.body.incoming_webhooks.map((h: { id: string }) => h.id)).not.toContain(ids[4]);
    ids.pop();
  });
});

describe('GetIncomingWebhook / UpdateIncomingWebhook', () => {
  let hook: Record<string, any>;
  let offTopicId: string;

  beforeAll(async () => {
    hook = await createHook(teamAdmin, { channel_id: townSquareId, display_name: 'Before', description: 'd' });
    offTopicId = (await teamAdmin.api.get(`/api/v4/teams/${teamId}/channels/name/off-topic`).expect(200)).body.id;
  });

  test('GetIncomingWebhook returns the hook; unknown is 404, malformed 400, a plain member 403', async () => {
    const res = await teamAdmin.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(200);
    expect(res.body).toEqual(hook);
    await sysadmin.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(200);
    await teamAdmin.api.get(`/api/v4/hooks/incoming/${UNKNOWN_ID}`).expect(404);
    await teamAdmin.api.get('/api/v4/hooks/incoming/not-an-id').expect(400);
    await member.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(403);
  });

  test('update changes the editable fields and keeps owner, team and create_at (Client4 sends the whole hook)', async () => {
    const res = await teamAdmin.api
      .put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, channel_id: offTopicId, display_name: 'After', description: 'new', channel_locked: true, user_id: member.id, create_at: 1 })
      .expect(200);
    expect(res.body).toMatchObject({ id: hook.id, channel_id: offTopicId, display_name: 'After', description: 'new', channel_locked: true });
    expect(res.body.user_id).toBe(teamAdmin.id);
    expect(res.body.team_id).toBe(teamId);
    expect(res.body.create_at).toBe(hook.create_at);
    expect(res.body.update_at).toBeGreaterThan(hook.update_at);
    const again = await teamAdmin.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(200);
    expect(again.body).toEqual(res.body);
    hook = res.body;
  });

  test('a body id different from the path id is 400', async () => {
    const res = await teamAdmin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, id: UNKNOWN_ID }).expect(400);
    expect(res.body.id).toBe('api.context.invalid_param.app_error');
  });

  test("a channel of another team is 400, a different team_id is 400, an unknown channel 404", async () => {
    await teamAdmin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, channel_id: otherTeamChannelId }).expect(400);
    // Even for a system admin, who may see both teams.
    await sysadmin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, channel_id: otherTeamChannelId }).expect(400);
    const mismatch = await teamAdmin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, team_id: UNKNOWN_ID }).expect(400);
    expect(mismatch.body.id).toBe('api.webhook.team_mismatch.app_error');
    await teamAdmin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, channel_id: UNKNOWN_ID }).expect(404);
    const unchanged = await teamAdmin.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(200);
    expect(unchanged.body.channel_id).toBe(offTopicId);
  });

  test('bad fields are 400 on update too; a plain member gets 403', async () => {
    await teamAdmin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, display_name: 'x'.repeat(65) }).expect(400);
    await teamAdmin.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, username: 'Bad Name' }).expect(400);
    await member.api.put(`/api/v4/hooks/incoming/${hook.id}`, { ...hook, display_name: 'mine' }).expect(403);
  });

  test('the new display name is on the next webhook post', async () => {
    const res = await postJson(server, hook.id, { text: 'after update' });
    expectOk(res);
    const posts = await teamAdmin.api.get(`/api/v4/channels/${offTopicId}/posts?per_page=1`).expect(200);
    const post = posts.body.posts[posts.body.order[0]];
    expect(post.message).toBe('after update');
    expect(post.props.webhook_display_name).toBe('After');
  });
});

describe('DeleteIncomingWebhook', () => {
  test('the key answers 404 at once, exactly like a key that never existed', async () => {
    const hook = await createHook(teamAdmin, { channel_id: townSquareId });
    expectOk(await postJson(server, hook.id, { text: 'before delete' }));
    const del = await teamAdmin.api.delete(`/api/v4/hooks/incoming/${hook.id}`).expect(200);
    expect(del.body).toEqual({ status: 'OK' });
    const gone = await postJson(server, hook.id, { text: 'after delete' });
    expectAppError(gone, 404, 'web.incoming_webhook.invalid.app_error', { notContaining: hook.id });
    const never = await postJson(server, UNKNOWN_ID, { text: 'never' });
    expectAppError(never, 404, 'web.incoming_webhook.invalid.app_error', { notContaining: UNKNOWN_ID });
    expect({ ...gone.json, request_id: '' }).toEqual({ ...never.json, request_id: '' });
    await teamAdmin.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(404);
    await teamAdmin.api.delete(`/api/v4/hooks/incoming/${hook.id}`).expect(404);
  });

  test('a plain member cannot delete; an unknown id is 404', async () => {
    const hook = await createHook(teamAdmin, { channel_id: townSquareId });
    await member.api.delete(`/api/v4/hooks/incoming/${hook.id}`).expect(403);
    await teamAdmin.api.delete(`/api/v4/hooks/incoming/${UNKNOWN_ID}`).expect(404);
    expectOk(await postJson(server, hook.id, { text: 'still alive' }));
  });

  test("a hook owned by a member (created by the team admin) is managed by the team admin, not by its owner", async () => {
    // The owner lacks manage_own_incoming_webhooks in the default scheme, so only admins manage the hook.
    const hook = await createHook(teamAdmin, { channel_id: townSquareId, user_id: member.id });
    await member.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(403);
    await teamAdmin.api.get(`/api/v4/hooks/incoming/${hook.id}`).expect(200);
    await teamAdmin.api.delete(`/api/v4/hooks/incoming/${hook.id}`).expect(200);
  });
});
