// Outgoing webhook management (CreateOutgoingWebhook, GetOutgoingWebhooks, GetOutgoingWebhook, UpdateOutgoingWebhook,
// DeleteOutgoingWebhook, RegenOutgoingHookToken, GetOutgoingWebhookDeliveries) over real HTTP, through Client4 where
// it has a method: fields, Mattermost's validation ids and status codes, permissions, the private-channel rule, 501.
import type { OutgoingWebhook } from '@mattermost/types/integrations';
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createChannel, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let teamAdmin: Actor; // a plain user who created the team: its team admin
let member: Actor; // a plain member of the team
let teamId: string;
let otherTeamId: string;
let townSquareId: string;
let privateId: string; // teamAdmin's private channel, member not in it
let seq = 0;
const word = () => `w${process.pid}x${++seq}`;
const ID = /^[a-z0-9]{26}$/;
const UNKNOWN = 'abcdefghijklmnopqrstuvwxyz';

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  teamAdmin = await createUser(server, sysadmin);
  member = await createUser(server, sysadmin);
  teamId = await createTeam(teamAdmin, `out${process.pid}`, [member]);
  otherTeamId = await createTeam(sysadmin, `outother${process.pid}`);
  townSquareId = (await teamAdmin.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
  privateId = await createChannel(teamAdmin, teamId, 'P', [], 'outpriv');
});
afterAll(() => server.close());

const hookBody = (fields: Partial<OutgoingWebhook> = {}) => ({
  team_id: teamId,
  trigger_words: [word()],
  callback_urls: ['https://integrations.example.com/hook'],
  display_name: 'Deploy',
  ...fields,
});

describe('through Client4', () => {
  test('createOutgoingWebhook, getOutgoingWebhook(s), updateOutgoingWebhook, regenOutgoingHookToken, removeOutgoingWebhook', async () => {
    const c = client4For(server, teamAdmin);
    const created = await c.createOutgoingWebhook(hookBody({ channel_id: townSquareId, trigger_when: 1, content_type: 'application/json', description: 'ships it' }) as OutgoingWebhook);
    expect(created.id).toMatch(ID);
    expect(created.token).toMatch(ID);
    expect(created).toMatchObject({ team_id: teamId, channel_id: townSquareId, creator_id: teamAdmin.id, trigger_when: 1, content_type: 'application/json', description: 'ships it', delete_at: 0, username: '', icon_url: '' });
    expect(created.create_at).toBeGreaterThan(0);
    expect(await c.getOutgoingWebhook(created.id)).toEqual(created);
    expect((await c.getOutgoingWebhooks('', teamId)).map((h) => h.id)).toContain(created.id);
    expect((await c.getOutgoingWebhooks(townSquareId)).map((h) => h.id)).toEqual([created.id]);

    // Client4 sends the whole object back: creator, team, token and times are kept.
    const updated = await c.updateOutgoingWebhook({ ...created, display_name: 'Renamed', trigger_words: ['ship'], callback_urls: ['https://other.example.com/x'], token: 'y'.repeat(26), creator_id: member.id, create_at: 1 });
    expect(updated).toMatchObject({ id: created.id, display_name: 'Renamed', trigger_words: ['ship'], callback_urls: ['https://other.example.com/x'], token: created.token, creator_id: teamAdmin.id, create_at: created.create_at });
    expect(updated.update_at).toBeGreaterThan(created.update_at);

    const regenerated = await c.regenOutgoingHookToken(created.id);
    expect(regenerated.id).toBe(created.id);
    expect(regenerated.token).toMatch(ID);
    expect(regenerated.token).not.toBe(created.token);
    expect((await c.getOutgoingWebhook(created.id)).token).toBe(regenerated.token);

    expect(await c.removeOutgoingWebhook(created.id)).toEqual({ status: 'OK' });
    await expectClientError(c.getOutgoingWebhook(created.id), 404, 'app.webhooks.get_outgoing.app_error');
    expect((await c.getOutgoingWebhooks('', teamId)).map((h) => h.id)).not.toContain(created.id);
  });

  test('a plain member may not manage outgoing webhooks: 403 on create and list', async () => {
    const c = client4For(server, member);
    await expectClientError(c.createOutgoingWebhook(hookBody() as OutgoingWebhook), 403, 'api.context.permissions.app_error');
    await expectClientError(c.getOutgoingWebhooks('', teamId), 403);
    await expectClientError(c.getOutgoingWebhooks(), 403);
  });
});

describe('CreateOutgoingWebhook rules', () => {
  const create = (as: Actor, body: Record<string, unknown>) => as.api.post('/api/v4/hooks/outgoing', body);

  test('a team-wide hook needs trigger words; a channel hook may have none', async () => {
    expectAppError(await create(teamAdmin, hookBody({ trigger_words: [] })), 400, 'api.webhook.create_outgoing.triggers.app_error');
    const res = await create(teamAdmin, hookBody({ channel_id: townSquareId, trigger_words: [] }));
    expect(res.status).toBe(201);
    expect(res.body.trigger_words).toEqual([]);
  });

  test.each([
    [{ callback_urls: [] }, 'model.outgoing_hook.is_valid.callback.app_error'],
    [{ callback_urls: ['ftp://x.example.com'] }, 'model.outgoing_hook.is_valid.url.app_error'],
    [{ callback_urls: ['HTTP://x.example.com'] }, 'model.outgoing_hook.is_valid.url.app_error'],
    [{ callback_urls: [`https://x.example.com/${'p'.repeat(1010)}`] }, 'model.outgoing_hook.is_valid.callback.app_error'],
    [{ trigger_words: ['ok', ''] }, 'model.outgoing_hook.is_valid.trigger_words.app_error'],
    [{ trigger_words: ['w'.repeat(1025)] }, 'model.outgoing_hook.is_valid.words.app_error'],
    [{ display_name: 'é'.repeat(65) }, 'model.outgoing_hook.is_valid.display_name.app_error'],
    [{ description: 'd'.repeat(501) }, 'model.outgoing_hook.is_valid.description.app_error'],
    [{ content_type: 'c'.repeat(129) }, 'model.outgoing_hook.is_valid.content_type.app_error'],
    // Mattermost's quirk: a bad trigger_when is reported under the content_type id.
    [{ trigger_when: 2 }, 'model.outgoing_hook.is_valid.content_type.app_error'],
    [{ username: 'u'.repeat(65) }, 'model.outgoing_hook.username.app_error'],
    [{ icon_url: `https://e.com/${'i'.repeat(1020)}` }, 'model.outgoing_hook.icon_url.app_error'],
  ].map(([fields, id]) => [id as string, JSON.stringify(fields).slice(0, 48), fields] as const))('400 %s for %s', async (id, _, fields) => {
    expectAppError(await create(teamAdmin, hookBody(fields as Partial<OutgoingWebhook>)), 400, id);
  });

  test('64 characters of display name are fine (characters, not bytes)', async () => {
    expect((await create(teamAdmin, hookBody({ display_name: 'é'.repeat(64) }))).status).toBe(201);
  });

  test('an overlapping hook (same channel, a shared URL and a shared word) is refused, 400', async () => {
    const w = word();
    await create(teamAdmin, hookBody({ trigger_words: [w, 'other'], callback_urls: ['https://a.example.com/1'] })).then((r) => expect(r.status).toBe(201));
    expectAppError(await create(teamAdmin, hookBody({ trigger_words: [w], callback_urls: ['https://a.example.com/1', 'https://b.example.com'] })), 400, 'api.webhook.create_outgoing.intersect.app_error');
    // Another URL, another word, or another channel: allowed.
    expect((await create(teamAdmin, hookBody({ trigger_words: [w], callback_urls: ['https://c.example.com/1'] }))).status).toBe(201);
    expect((await create(teamAdmin, hookBody({ channel_id: townSquareId, trigger_words: [w], callback_urls: ['https://a.example.com/1'] }))).status).toBe(201);
  });

  test('channels: unknown 404; another team 403; a DM 403; a private one only for its members (Parley)', async () => {
    expectAppError(await create(teamAdmin, hookBody({ channel_id: UNKNOWN })), 404, 'app.channel.get.existing.app_error');
    const otherChannel = (await sysadmin.api.get(`/api/v4/teams/${otherTeamId}/channels/name/town-square`).expect(200)).body.id;
    expectAppError(await create(sysadmin, hookBody({ channel_id: otherChannel })), 403, 'api.webhook.create_outgoing.permissions.app_error');
    const dm = (await teamAdmin.api.post('/api/v4/channels/direct', [teamAdmin.id, member.id]).expect(201)).body.id;
    expectAppError(await create(teamAdmin, hookBody({ channel_id: dm })), 403, 'api.outgoing_webhook.disabled.app_error');
    // The team admin is a member of their private channel: allowed.
    expect((await create(teamAdmin, hookBody({ channel_id: privateId }))).status).toBe(201);
    // A private channel the team admin is not in: refused, as Mattermost refuses every private channel.
    const notTheirs = await createChannel(sysadmin, teamId, 'P', [], 'outsys');
    expectAppError(await create(teamAdmin, hookBody({ channel_id: notTheirs })), 403, 'api.outgoing_webhook.disabled.app_error');
    // The hook's creator must be a member too.
    expectAppError(await create(teamAdmin, hookBody({ channel_id: privateId, creator_id: member.id })), 403, 'api.outgoing_webhook.disabled.app_error');
  });

  test("creator_id: someone else's needs manage_others (team admins have it) and must exist", async () => {
    const res = await create(teamAdmin, hookBody({ creator_id: member.id }));
    expect(res.status).toBe(201);
    expect(res.body.creator_id).toBe(member.id);
    expectAppError(await create(teamAdmin, hookBody({ creator_id: UNKNOWN })), 404, 'app.user.missing_account.const');
  });

  test('without a session 401; without team_id 400', async () => {
    await server.http().post('/api/v4/hooks/outgoing', hookBody()).expect(401);
    const { team_id: _, ...noTeam } = hookBody();
    expectAppError(await create(teamAdmin, noTeam), 400, 'api.context.invalid_param.app_error');
  });
});

describe('reading, updating, deleting', () => {
  test("another team admin's hook: manage_others lets a team admin; a member gets 403; unknown 404", async () => {
    const hook = (await teamAdmin.api.post('/api/v4/hooks/outgoing', hookBody()).expect(201)).body;
    await sysadmin.api.get(`/api/v4/hooks/outgoing/${hook.id}`).expect(200);
    expectAppError(await member.api.get(`/api/v4/hooks/outgoing/${hook.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.post(`/api/v4/hooks/outgoing/${hook.id}/regen_token`), 403);
    expectAppError(await member.api.delete(`/api/v4/hooks/outgoing/${hook.id}`), 403);
    expectAppError(await member.api.get(`/api/v4/hooks/outgoing/${hook.id}/deliveries`), 403);
    expectAppError(await teamAdmin.api.get(`/api/v4/hooks/outgoing/${UNKNOWN}`), 404, 'app.webhooks.get_outgoing.app_error');
  });

  test('update: body id must be the path id; another team 400; team-wide without words 400; overlap 400', async () => {
    const hook = (await teamAdmin.api.post('/api/v4/hooks/outgoing', hookBody()).expect(201)).body;
    const put = (body: Record<string, unknown>) => teamAdmin.api.put(`/api/v4/hooks/outgoing/${hook.id}`, { ...hook, ...body });
    expectAppError(await put({ id: UNKNOWN }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await put({ team_id: otherTeamId }), 400, 'api.webhook.team_mismatch.app_error');
    expectAppError(await put({ trigger_words: [] }), 400, 'api.webhook.create_outgoing.triggers.app_error');
    const dm = (await teamAdmin.api.post('/api/v4/channels/direct', [teamAdmin.id, member.id]).expect(201)).body.id;
    expectAppError(await put({ channel_id: dm }), 403, 'api.webhook.create_outgoing.not_open.app_error');
    const other = (await teamAdmin.api.post('/api/v4/hooks/outgoing', hookBody({ callback_urls: ['https://z.example.com'] })).expect(201)).body;
    expectAppError(await put({ trigger_words: other.trigger_words, callback_urls: other.callback_urls }), 400, 'api.webhook.update_outgoing.intersect.app_error');
    // Binding to a channel with no words is fine; an empty team_id keeps the team.
    const ok = await put({ channel_id: townSquareId, trigger_words: [], team_id: '' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ channel_id: townSquareId, trigger_words: [], team_id: teamId });
  });

  test('a hook on a private channel is seen and managed only by its members (and system admins)', async () => {
    const hook = (await teamAdmin.api.post('/api/v4/hooks/outgoing', hookBody({ channel_id: privateId })).expect(201)).body;
    const otherAdmin = await createUser(server, sysadmin);
    await teamAdmin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: otherAdmin.id }).expect(201);
    await teamAdmin.api.put(`/api/v4/teams/${teamId}/members/${otherAdmin.id}/roles`, { roles: 'team_user team_admin' }).expect(200);
    expectAppError(await otherAdmin.api.get(`/api/v4/hooks/outgoing/${hook.id}`), 403);
    const listed = (await otherAdmin.api.get(`/api/v4/hooks/outgoing?team_id=${teamId}&per_page=200`).expect(200)).body.map((h: { id: string }) => h.id);
    expect(listed).not.toContain(hook.id);
    expect((await teamAdmin.api.get(`/api/v4/hooks/outgoing?team_id=${teamId}&per_page=200`).expect(200)).body.map((h: { id: string }) => h.id)).toContain(hook.id);
    await sysadmin.api.get(`/api/v4/hooks/outgoing/${hook.id}`).expect(200);
  });

  test('lists: own hooks only without manage_others; paging', async () => {
    const team = await createTeam(teamAdmin, `outlist${process.pid}`);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await teamAdmin.api.post('/api/v4/hooks/outgoing', hookBody({ team_id: team })).expect(201)).body.id);
    const page0 = (await teamAdmin.api.get(`/api/v4/hooks/outgoing?team_id=${team}&page=0&per_page=2`).expect(200)).body.map((h: { id: string }) => h.id);
    const page1 = (await teamAdmin.api.get(`/api/v4/hooks/outgoing?team_id=${team}&page=1&per_page=2`).expect(200)).body.map((h: { id: string }) => h.id);
    expect([...page0, ...page1]).toEqual(made);
    expect((await sysadmin.api.get('/api/v4/hooks/outgoing?per_page=200').expect(200)).body.length).toBeGreaterThanOrEqual(3);
  });

  test('deliveries of a hook never called: an empty list', async () => {
    const hook = (await teamAdmin.api.post('/api/v4/hooks/outgoing', hookBody()).expect(201)).body;
    expect((await teamAdmin.api.get(`/api/v4/hooks/outgoing/${hook.id}/deliveries`).expect(200)).body).toEqual([]);
    expectAppError(await teamAdmin.api.post(`/api/v4/hooks/outgoing/${hook.id}/deliveries/${UNKNOWN}/redeliver`), 404, 'app.webhooks.get_delivery.app_error');
  });
});

describe('EnableOutgoingWebhooks off', () => {
  test('every operation answers 501 api.outgoing_webhook.disabled.app_error (after the permission checks on create and list)', async () => {
    const hook = (await teamAdmin.api.post('/api/v4/hooks/outgoing', hookBody()).expect(201)).body;
    await server.parley.config.patch({ ServiceSettings: { EnableOutgoingWebhooks: false } });
    try {
      const id = 'api.outgoing_webhook.disabled.app_error';
      expectAppError(await teamAdmin.api.post('/api/v4/hooks/outgoing', hookBody()), 501, id);
      expectAppError(await teamAdmin.api.get(`/api/v4/hooks/outgoing?team_id=${teamId}`), 501, id);
      expectAppError(await teamAdmin.api.get(`/api/v4/hooks/outgoing/${hook.id}`), 501, id);
      expectAppError(await teamAdmin.api.put(`/api/v4/hooks/outgoing/${hook.id}`, hook), 501, id);
      expectAppError(await teamAdmin.api.post(`/api/v4/hooks/outgoing/${hook.id}/regen_token`), 501, id);
      expectAppError(await teamAdmin.api.get(`/api/v4/hooks/outgoing/${hook.id}/deliveries`), 501, id);
      expectAppError(await teamAdmin.api.delete(`/api/v4/hooks/outgoing/${hook.id}`), 501, id);
      // The permission check comes first: a member still gets 403.
      expectAppError(await member.api.post('/api/v4/hooks/outgoing', hookBody()), 403);
    } finally {
      await server.parley.config.patch({ ServiceSettings: { EnableOutgoingWebhooks: true } });
    }
  });
});
