// Null where Mattermost's Go decoding reads "not given" (issue #21): the optional string fields, the map-of-strings
// bodies and the patch fields of the operations served. Each case sends null and checks it means exactly what
// leaving the field out means: never a 400 from the schema, never a value cleared by a patch.
import { createPost, createUser, createWorld, PASSWORD, startTestServer, type ApiClient, type TestServer, type World } from '../support/server';
import { expectAppError, type AnyAnswer } from '../support/assertions';

let server: TestServer;
let world: World;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterAll(() => server.close());

let n = 0;
const unique = (prefix: string) => `${prefix}${++n}x${process.pid}`;

describe('users', () => {
  test('CreateUser: null optional strings and maps are not given', async () => {
    const username = unique('nulluser');
    const res = await world.admin.api
      .post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD, first_name: null, last_name: null, nickname: null, position: null, locale: null, props: null, notify_props: null, timezone: null })
      .expect(201);
    expect(res.body).toMatchObject({ username, first_name: '', nickname: '', locale: 'en' });
  });

  test('PatchUser: a null field is not patched; a null value in a map of strings is ""', async () => {
    const u = await createUser(server, world.admin, { first_name: 'Ada', position: 'Engineer' });
    const res = await u.api.put('/api/v4/users/me/patch', { nickname: 'ada', first_name: null, position: null, email: null, username: null, password: null, locale: null, timezone: null, props: { note: null } }).expect(200);
    expect(res.body).toMatchObject({ username: u.username, nickname: 'ada', first_name: 'Ada', position: 'Engineer' });
    expect(res.body.props).toEqual({ note: '' });
  });

  test('UpdatePassword: a null current_password is not given (an admin needs none for another user)', async () => {
    const u = await createUser(server, world.admin);
    await world.admin.api.put(`/api/v4/users/${u.id}/password`, { current_password: null, new_password: 'An0ther-passw0rd' }).expect(200);
    await server.http().post('/api/v4/users/login', { login_id: u.username, password: 'An0ther-passw0rd', token: null }).expect(200);
  });

  test('UpdateUserStatus: a null user_id is not given', async () => {
    const res = await world.member.api.put('/api/v4/users/me/status', { user_id: null, status: 'away' }).expect(200);
    expect(res.body).toMatchObject({ user_id: world.member.id, status: 'away' });
  });
});

describe('teams', () => {
  test('CreateTeam and PatchTeam: null optional strings are not given, not patched', async () => {
    const name = unique('nullteam');
    const team = await world.admin.api
      .post('/api/v4/teams', { name, display_name: 'Nulls', type: 'O', description: null, email: null, allowed_domains: null, company_name: null })
      .expect(201);
    expect(team.body).toMatchObject({ name, description: '', allowed_domains: '' });
    const patched = await world.admin.api.put(`/api/v4/teams/${team.body.id}/patch`, { display_name: null, description: 'now described', company_name: null, allowed_domains: null }).expect(200);
    expect(patched.body).toMatchObject({ display_name: 'Nulls', description: 'now described' });
  });
});

describe('channels', () => {
  let channelId: string;

  test('CreateChannel: null purpose and header are not given', async () => {
    const name = unique('nullchan');
    const res = await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name, display_name: 'Nulls', type: 'O', purpose: null, header: null }).expect(201);
    expect(res.body).toMatchObject({ name, purpose: '', header: '' });
    channelId = res.body.id;
  });

  test('PatchChannel: a null field is not patched', async () => {
    const res = await world.admin.api.put(`/api/v4/channels/${channelId}/patch`, { header: 'a header', purpose: 'a purpose', display_name: null, name: null }).expect(200);
    expect(res.body).toMatchObject({ display_name: 'Nulls', header: 'a header', purpose: 'a purpose' });
    const again = await world.admin.api.put(`/api/v4/channels/${channelId}/patch`, { header: null, purpose: 'another purpose' }).expect(200);
    expect(again.body).toMatchObject({ header: 'a header', purpose: 'another purpose' });
    // Only nulls is an empty patch, answered as one.
    expectAppError(await world.admin.api.put(`/api/v4/channels/${channelId}/patch`, { header: null, purpose: null }), 400, 'api.channel.patch_update_channel.no_changes.app_error');
  });

  test('UpdateChannel: null fields are as absent ones', async () => {
    const res = await world.admin.api.put(`/api/v4/channels/${channelId}`, { id: channelId, type: null, display_name: null, name: null, header: 'updated', purpose: null }).expect(200);
    expect(res.body).toMatchObject({ display_name: 'Nulls', header: 'updated', type: 'O' });
  });

  test('AddChannelMember: null user_ids, post_root_id and channel_id are not given', async () => {
    const res = await world.admin.api.post(`/api/v4/channels/${channelId}/members`, { user_id: world.member.id, user_ids: null, post_root_id: null, channel_id: null }).expect(201);
    expect(res.body).toMatchObject({ channel_id: channelId, user_id: world.member.id });
    // Both null is neither given: Mattermost's invalid user_id, not a schema error.
    expectAppError(await world.admin.api.post(`/api/v4/channels/${channelId}/members`, { user_id: null, user_ids: null }), 400, 'api.context.invalid_param.app_error');
  });

  test('ViewChannel: a null prev_channel_id is not given', async () => {
    const res = await world.member.api.post('/api/v4/channels/members/me/view', { channel_id: channelId, prev_channel_id: null }).expect(200);
    expect(res.body.status).toBe('OK');
  });
});

describe('incoming webhooks', () => {
  test('CreateIncomingWebhook and UpdateIncomingWebhook: null optional strings are not given, not changed', async () => {
    const hook = await world.admin.api
      .post('/api/v4/hooks/incoming', { channel_id: world.townSquareId, user_id: null, display_name: null, description: 'kept', username: null, icon_url: null })
      .expect(201);
    expect(hook.body).toMatchObject({ user_id: world.admin.id, display_name: '', description: 'kept' });
    const updated = await world.admin.api
      .put(`/api/v4/hooks/incoming/${hook.body.id}`, { id: hook.body.id, channel_id: world.townSquareId, display_name: 'Named', description: null, username: null, icon_url: null, team_id: null, user_id: null })
      .expect(200);
    expect(updated.body).toMatchObject({ display_name: 'Named', description: 'kept', team_id: world.teamId });
  });
});

describe('reactions', () => {
  test('SaveReaction: a null field is a missing one (Mattermost decodes it to "" and answers invalid)', async () => {
    const post = await createPost(world.member, world.townSquareId);
    expectAppError(await world.member.api.post('/api/v4/reactions', { user_id: world.member.id, post_id: post.id, emoji_name: null }), 400, 'api.reaction.save_reaction.invalid.app_error');
    const res = await world.member.api.post('/api/v4/reactions', { user_id: world.member.id, post_id: post.id, emoji_name: 'smile' }).expect(200);
    expect(res.body.emoji_name).toBe('smile');
  });
});

describe('posts and search', () => {
  test('CreatePost: null root_id, file_ids, props and pending_post_id are not given; a null inside props stays null', async () => {
    const res = await world.member.api
      .post('/api/v4/posts', { channel_id: world.townSquareId, message: 'nulls', root_id: null, file_ids: null, props: null, pending_post_id: null })
      .expect(201);
    expect(res.body).toMatchObject({ message: 'nulls', root_id: '', file_ids: [], pending_post_id: '' });
    const withProps = await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'props', props: { kept: null, n: 1 } }).expect(201);
    expect(withProps.body.props).toMatchObject({ kept: null, n: 1 });
  });

  test('PatchPost: a null field is not patched', async () => {
    const post = await createPost(world.member, world.townSquareId, 'original', { props: { a: 1 } });
    const res = await world.member.api.put(`/api/v4/posts/${post.id}/patch`, { message: null, is_pinned: null, file_ids: null, has_reactions: null, props: null }).expect(200);
    expect(res.body).toMatchObject({ message: 'original', is_pinned: false, props: { a: 1 } });
  });

  test('UpdatePost: null is_pinned, props, file_ids and has_reactions are not given', async () => {
    const post = await createPost(world.member, world.townSquareId, 'to update');
    const res = await world.member.api.put(`/api/v4/posts/${post.id}`, { id: post.id, message: 'updated', is_pinned: null, props: null, file_ids: null, has_reactions: null }).expect(200);
    expect(res.body).toMatchObject({ message: 'updated', is_pinned: false, file_ids: [] });
  });

  test('SearchPosts: null options take their defaults', async () => {
    await createPost(world.member, world.townSquareId, 'nullsearchable word');
    const res = await world.member.api
      .post(`/api/v4/teams/${world.teamId}/posts/search`, { terms: 'nullsearchable', is_or_search: null, time_zone_offset: null, include_deleted_channels: null, page: null, per_page: null })
      .expect(200);
    expect(res.body.order).toHaveLength(1);
  });
});

// The rest of the audit (issue #21): every other operation with a body, table-driven. Each case sends the body with
// nulls and the same body without those fields (or, where Mattermost decodes a list of strings, with "" in place of
// each null item) and wants the same status and the same answer.
interface NullCase {
  name: string;
  send: (body: unknown) => Promise<{ status: number; body: any }>;
  /** Builds the two bodies afresh for each send (creates need unique names). */
  withNulls: () => unknown;
  without: () => unknown;
  status: number;
  /** The part of the answer both must agree on (ids and times differ between two creates). */
  pick?: (body: any) => unknown;
}

const cases = (): NullCase[] => {
  // Resolved when a case runs: the table is built before beforeAll has made the world.
  const lazy = (who: () => ApiClient): ApiClient => ({
    get: (path) => who().get(path),
    post: (path, body) => who().post(path, body),
    put: (path, body) => who().put(path, body),
    delete: (path) => who().delete(path),
  });
  const a = lazy(() => world.admin.api);
  const m = lazy(() => world.member.api);
  const teamName = () => unique('nullteamb');
  return [
    {
      name: 'CreateTeam: allow_open_invite null (derived from type)',
      send: (b) => a.post('/api/v4/teams', b),
      withNulls: () => ({ name: teamName(), display_name: 'N', type: 'I', allow_open_invite: null }),
      without: () => ({ name: teamName(), display_name: 'N', type: 'I' }),
      status: 201,
      pick: (t) => [t.type, t.allow_open_invite],
    },
    {
      name: 'PatchTeam: allow_open_invite null is not patched',
      send: (b) => a.put(`/api/v4/teams/${world.teamId}/patch`, b),
      withNulls: () => ({ allow_open_invite: null, company_name: 'Acme' }),
      without: () => ({ company_name: 'Acme' }),
      status: 200,
      pick: (t) => [t.type, t.allow_open_invite, t.company_name, t.invite_id],
    },
    {
      name: 'CreateIncomingWebhook: channel_locked null',
      send: (b) => a.post('/api/v4/hooks/incoming', b),
      withNulls: () => ({ channel_id: world.townSquareId, display_name: 'n', channel_locked: null }),
      without: () => ({ channel_id: world.townSquareId, display_name: 'n' }),
      status: 201,
      pick: (h) => [h.channel_locked, h.channel_id, h.display_name],
    },
    {
      name: 'UpdateIncomingWebhook: channel_locked and the timestamps null are not changed',
      send: (b) => a.put(`/api/v4/hooks/incoming/${hookId}`, { id: hookId, ...(b as object) }),
      withNulls: () => ({ channel_id: world.townSquareId, channel_locked: null, create_at: null, update_at: null, delete_at: null }),
      without: () => ({ channel_id: world.townSquareId }),
      status: 200,
      pick: (h) => [h.channel_locked, h.create_at, h.delete_at],
    },
    {
      name: 'UpdateUserStatus: dnd_end_time null is no end',
      send: (b) => m.put('/api/v4/users/me/status', b),
      withNulls: () => ({ user_id: world.member.id, status: 'dnd', dnd_end_time: null }),
      without: () => ({ user_id: world.member.id, status: 'dnd' }),
      status: 200,
      pick: (s) => [s.status, s.dnd_end_time, s.manual],
    },
    {
      name: 'CreateUserAccessToken: expires_at null never expires',
      send: (b) => a.post(`/api/v4/users/${world.admin.id}/tokens`, b),
      withNulls: () => ({ description: 'nulls', expires_at: null }),
      without: () => ({ description: 'nulls' }),
      status: 200,
      pick: (t) => [t.description, t.is_active, t.expires_at ?? 0],
    },
    {
      name: 'SaveReaction: create_at null (the server sets the time)',
      send: (b) => m.post('/api/v4/reactions', b),
      withNulls: () => ({ user_id: world.member.id, post_id: reactedPostId, emoji_name: 'tada', create_at: null }),
      without: () => ({ user_id: world.member.id, post_id: reactedPostId, emoji_name: 'tada' }),
      status: 200,
      pick: (r) => [r.user_id, r.post_id, r.emoji_name],
    },
    {
      name: 'ViewChannel: channel_id null is "" (no channel has focus), collapsed_threads_supported null',
      send: (b) => m.post('/api/v4/channels/members/me/view', b),
      withNulls: () => ({ channel_id: null, collapsed_threads_supported: null }),
      without: () => ({ channel_id: '' }),
      status: 200,
      pick: (v) => v,
    },
    {
      name: 'CreatePost: metadata null, and priority fields null are not given',
      send: (b) => m.post('/api/v4/posts', b),
      withNulls: () => ({ channel_id: world.townSquareId, message: 'p', metadata: { priority: { priority: 'important', requested_ack: null, persistent_notifications: null } } }),
      without: () => ({ channel_id: world.townSquareId, message: 'p', metadata: { priority: { priority: 'important' } } }),
      status: 201,
      pick: (p) => p.metadata.priority,
    },
    {
      name: 'CreatePost: a null metadata is none',
      send: (b) => m.post('/api/v4/posts', b),
      withNulls: () => ({ channel_id: world.townSquareId, message: 'p', metadata: null }),
      without: () => ({ channel_id: world.townSquareId, message: 'p' }),
      status: 201,
      pick: (p) => p.metadata,
    },
    {
      name: 'GetUsersByIds: a null id is "" (matches no one)',
      send: (b) => m.post('/api/v4/users/ids', b),
      withNulls: () => [world.admin.id, null],
      without: () => [world.admin.id, ''],
      status: 200,
      pick: (list) => list.map((u: any) => u.id),
    },
    {
      name: 'GetUsersByUsernames: a null username is "" (matches no one)',
      send: (b) => m.post('/api/v4/users/usernames', b),
      withNulls: () => [world.admin.username, null],
      without: () => [world.admin.username, ''],
      status: 200,
      pick: (list) => list.map((u: any) => u.id),
    },
    {
      name: 'GetPostsByIds: a null id is "" (no such post)',
      send: (b) => m.post('/api/v4/posts/ids', b),
      withNulls: () => [reactedPostId, null],
      without: () => [reactedPostId, ''],
      status: 200,
      pick: (list) => list.map((p: any) => p.id),
    },
    {
      name: 'GetPostsByIds: only null ids find nothing, as only "" does',
      send: (b) => m.post('/api/v4/posts/ids', b),
      withNulls: () => [null],
      without: () => [''],
      status: 404,
      pick: (e) => e.id,
    },
    {
      name: 'GetBulkReactions: a null id is "" (a post the member cannot read: 403)',
      send: (b) => m.post('/api/v4/posts/ids/reactions', b),
      withNulls: () => [reactedPostId, null],
      without: () => [reactedPostId, ''],
      status: 403,
      pick: (e) => e.id,
    },
    {
      name: 'UpdatePreferences: null name and value are ""',
      send: (b) => m.put(`/api/v4/users/${world.member.id}/preferences`, b),
      withNulls: () => [{ user_id: world.member.id, category: 'nulls', name: null, value: null }],
      without: () => [{ user_id: world.member.id, category: 'nulls' }],
      status: 200,
      pick: (r) => r,
    },
    {
      name: 'UpdatePreferences: a null item is one with every field "" (user_id "" is not the caller: 403)',
      send: (b) => m.put(`/api/v4/users/${world.member.id}/preferences`, b),
      withNulls: () => [null],
      without: () => [{}],
      status: 403,
      pick: (e) => e.id,
    },
    {
      name: 'DeletePreferences: null name and value are ""',
      send: (b) => m.post(`/api/v4/users/${world.member.id}/preferences/delete`, b),
      withNulls: () => [{ user_id: world.member.id, category: 'nulls', name: null, value: null }],
      without: () => [{ user_id: world.member.id, category: 'nulls' }],
      status: 200,
      pick: (r) => r,
    },
    {
      name: 'DeletePreferences: a null category is "" (it matches nothing)',
      send: (b) => m.post(`/api/v4/users/${world.member.id}/preferences/delete`, b),
      withNulls: () => [{ user_id: world.member.id, category: null, name: 'x' }],
      without: () => [{ user_id: world.member.id, name: 'x' }],
      status: 200,
      pick: (r) => r,
    },
    {
      name: 'PatchConfig: a null section or key is not changed',
      send: (b) => a.put('/api/v4/config/patch', b),
      withNulls: () => ({ ServiceSettings: { EnableDeveloper: null, MaximumLoginAttempts: null, SiteURL: null }, TeamSettings: null, FileSettings: { DriverName: null } }),
      without: () => ({}),
      status: 200,
      pick: (c) => c,
    },
  ];
};

let hookId: string;
let reactedPostId: string;

describe('null is not given: the rest of the operations', () => {
  beforeAll(async () => {
    await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableUserAccessTokens: true } }).expect(200);
    hookId = (await world.admin.api.post('/api/v4/hooks/incoming', { channel_id: world.townSquareId, channel_locked: true }).expect(201)).body.id;
    reactedPostId = (await createPost(world.member, world.townSquareId, 'to react to')).id;
  });

  test.each(cases().map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const withNulls = await c.send(c.withNulls());
    const without = await c.send(c.without());
    expect({ status: withNulls.status, body: withNulls.body }).toMatchObject({ status: c.status });
    expect(without.status).toBe(c.status);
    const pick = c.pick ?? ((b: unknown) => b);
    expect(pick(withNulls.body)).toEqual(pick(without.body));
  });
});

describe('null for a field Mattermost requires is a 400, as leaving it out is', () => {
  // [operation, request, the error id]. Mattermost reads each of these null as "" (or, for `active`, as not a
  // boolean) and refuses it; the schema refuses it here first, with the same status.
  const required: Array<[string, () => Promise<AnyAnswer>, string]> = [
    ['Login: password', () => server.http().post('/api/v4/users/login', { login_id: world.member.username, password: null }), 'api.context.invalid_param.app_error'],
    ['CreateUser: username', () => server.http().post('/api/v4/users', { username: null, email: `${unique('n')}@example.com`, password: PASSWORD }), 'api.context.invalid_param.app_error'],
    ['UpdateUserRoles: roles', () => world.admin.api.put(`/api/v4/users/${world.member.id}/roles`, { roles: null }), 'api.context.invalid_param.app_error'],
    ['UpdateUserActive: active', () => world.admin.api.put(`/api/v4/users/${world.member.id}/active`, { active: null }), 'api.context.invalid_param.app_error'],
    ['UpdatePassword: new_password', () => world.member.api.put('/api/v4/users/me/password', { current_password: PASSWORD, new_password: null }), 'api.context.invalid_param.app_error'],
    ['UpdateUserStatus: status', () => world.member.api.put('/api/v4/users/me/status', { user_id: world.member.id, status: null }), 'api.context.invalid_param.app_error'],
    ['CreateUserAccessToken: description', () => world.admin.api.post(`/api/v4/users/${world.admin.id}/tokens`, { description: null }), 'api.context.invalid_param.app_error'],
    ['RevokeSession: session_id', () => world.member.api.post(`/api/v4/users/${world.member.id}/sessions/revoke`, { session_id: null }), 'api.context.invalid_param.app_error'],
    ['RevokeUserAccessToken: token_id', () => world.admin.api.post('/api/v4/users/tokens/revoke', { token_id: null }), 'api.context.invalid_param.app_error'],
    ['DisableUserAccessToken: token_id', () => world.admin.api.post('/api/v4/users/tokens/disable', { token_id: null }), 'api.context.invalid_param.app_error'],
    ['EnableUserAccessToken: token_id', () => world.admin.api.post('/api/v4/users/tokens/enable', { token_id: null }), 'api.context.invalid_param.app_error'],
    ['GetUsersStatusesByIds: a null id', () => world.member.api.post('/api/v4/users/status/ids', [world.member.id, null]), 'api.context.invalid_param.app_error'],
    ['CreateTeam: type', () => world.admin.api.post('/api/v4/teams', { name: unique('nt'), display_name: 'N', type: null }), 'api.context.invalid_param.app_error'],
    ['AddTeamMember: user_id', () => world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: null }), 'api.context.invalid_param.app_error'],
    ['CreateChannel: name', () => world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: null, display_name: 'N', type: 'O' }), 'api.context.invalid_param.app_error'],
    ['CreateDirectChannel: a null user id', () => world.member.api.post('/api/v4/channels/direct', [world.member.id, null]), 'api.context.invalid_param.app_error'],
    ['UpdateChannelRoles: roles', () => world.admin.api.put(`/api/v4/channels/${world.townSquareId}/members/${world.member.id}/roles`, { roles: null }), 'api.context.invalid_param.app_error'],
    ['CreateIncomingWebhook: channel_id', () => world.admin.api.post('/api/v4/hooks/incoming', { channel_id: null }), 'api.context.invalid_param.app_error'],
    ['SearchPosts: terms', () => world.member.api.post(`/api/v4/teams/${world.teamId}/posts/search`, { terms: null }), 'api.context.invalid_param.app_error'],
    ['UpdatePreferences: category (Mattermost\'s invalid category)', () => world.member.api.put(`/api/v4/users/${world.member.id}/preferences`, [{ user_id: world.member.id, category: null, name: 'n', value: 'v' }]), 'model.preference.is_valid.category.app_error'],
  ];

  test.each(required)('%s', async (_name, send, id) => {
    expectAppError(await send(), 400, id);
  });

  test('UpdatePreferences: a preference saved with null name and value reads back with ""', async () => {
    await world.member.api.put(`/api/v4/users/${world.member.id}/preferences`, [{ user_id: world.member.id, category: 'nullsback', name: null, value: null }]).expect(200);
    const res = await world.member.api.get(`/api/v4/users/${world.member.id}/preferences/nullsback`).expect(200);
    expect(res.body).toEqual([{ user_id: world.member.id, category: 'nullsback', name: '', value: '' }]);
  });
});

describe('incoming webhook payloads: null is not given, in JSON and in a form payload', () => {
  let key: string;
  beforeAll(async () => {
    key = (await world.admin.api.post('/api/v4/hooks/incoming', { channel_id: world.townSquareId }).expect(201)).body.id;
  });

  const post = async (res: { status: number; headers: Record<string, string> }) => {
    expect(res.status).toBe(200);
    const [id] = String(res.headers['x-post-ids']).split(',');
    const p = (await world.admin.api.get(`/api/v4/posts/${id}`).expect(200)).body;
    return { message: p.message, type: p.type, root_id: p.root_id, props: p.props, priority: p.metadata?.priority };
  };
  const json = (body: object) => server.http().post(`/hooks/${key}`).set('Content-Type', 'application/json').send(JSON.stringify(body));
  const form = (body: object) =>
    server.http().post(`/hooks/${key}`).set('Content-Type', 'application/x-www-form-urlencoded').send(`payload=${encodeURIComponent(JSON.stringify(body))}`);

  const given = {
    text: 'deploy done',
    attachments: [{ fallback: 'f', text: 'att', fields: [{ title: 't', value: 3, short: true }] }],
    priority: { priority: 'important' },
  };
  const withNulls = {
    ...given,
    channel: null,
    username: null,
    icon_url: null,
    icon_emoji: null,
    type: null,
    props: null,
    root_id: null,
    attachments: [
      null,
      { id: null, fallback: 'f', color: null, pretext: null, author_name: null, title: null, title_link: null, text: 'att', image_url: null, footer: null, actions: null, fields: [null, { title: 't', value: 3, short: true }] },
    ],
    priority: { priority: 'important', requested_ack: null, persistent_notifications: null },
  };

  test.each([
    ['JSON', json],
    ['form payload', form],
  ])('%s: the post is the one the payload without the null fields makes', async (_name, send) => {
    const expected = await post(await send(given));
    expect(expected.props.attachments).toHaveLength(1);
    expect(await post(await send(withNulls))).toEqual(expected);
  });

  test('null text with no attachments is no text; a priority with a null priority is refused as one without', async () => {
    expectAppError(await json({ text: null }), 400, 'web.incoming_webhook.text.app_error');
    expectAppError(await json({ text: 'x', priority: { priority: null } }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await json({ text: 'x', priority: {} }), 400, 'api.context.invalid_param.app_error');
  });
});
