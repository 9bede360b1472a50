// Null where Mattermost's Go decoding reads "not given" (issue #21): the optional string fields, the map-of-strings
// bodies and the patch fields of the operations served. Each case sends null and checks it means exactly what
// leaving the field out means: never a 400 from the schema, never a value cleared by a patch.
import { createPost, createUser, createWorld, PASSWORD, startTestServer, type TestServer, type World } from '../support/server';
import { expectAppError } from '../support/assertions';

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
