import { expectAppError } from '../support/assertions';
import { createUser, startTestServer, type Actor, type TestServer, createTeam } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let owner: Actor; // team admin of `teamId`
let member: Actor; // plain member of `teamId`
let other: Actor; // plain member of `teamId` too
let outsider: Actor; // on no team
let teamId: string;
let townSquareId: string;
let seq = 0;

const uniqueName = (prefix = 'chan') => `${prefix}-${++seq}`;

type Channel = { id: string; name: string; type: string; team_id: string; total_msg_count: number; creator_id: string };

async function createChannel(as: Actor, type: 'O' | 'P' = 'O', name = uniqueName()): Promise<Channel> {
  const res = await as.api.post('/api/v4/channels', { team_id: teamId, name, display_name: `Channel ${name}`, type }).expect(201);
  return res.body;
}

async function post(as: Actor, channelId: string, message: string): Promise<void> {
  await as.api.post('/api/v4/posts', { channel_id: channelId, message }).expect(201);
}

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  owner = await createUser(server, sysadmin);
  member = await createUser(server, sysadmin);
  other = await createUser(server, sysadmin);
  outsider = await createUser(server, sysadmin);
  teamId = await createTeam(owner, 'chanteam', [member, other]);
  townSquareId = (await owner.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
});
afterAll(() => server.close());

describe('CreateChannel', () => {
  test.each(['O', 'P'] as const)('type %s: the creator is its channel admin and only member', async (type) => {
    const name = uniqueName();
    const res = await member.api
      .post('/api/v4/channels', { team_id: teamId, name, display_name: 'My channel', type, purpose: 'why', header: 'hi' })
      .expect(201);
    expect(res.body).toMatchObject({
      team_id: teamId,
      name,
      display_name: 'My channel',
      type,
      purpose: 'why',
      header: 'hi',
      creator_id: member.id,
      total_msg_count: 0,
      delete_at: 0,
    });
    expect(res.body.id).toMatch(/^[a-z0-9]{26}$/);
    const members = await member.api.get(`/api/v4/channels/${res.body.id}/members`).expect(200);
    expect(members.body).toHaveLength(1);
    expect(members.body[0]).toMatchObject({
      channel_id: res.body.id,
      user_id: member.id,
      roles: 'channel_user channel_admin',
      scheme_user: true,
      scheme_admin: true,
      msg_count: 0,
      mention_count: 0,
    });
  });

  test.each([
    ['upper case', 'MyChannel'],
    ['a space', 'my channel'],
    ['a leading dash', '-abc'],
    ['a leading underscore', '_abc'],
    ['an empty name', ''],
    ['more than 64 characters', 'a'.repeat(65)],
    ['a direct-channel shape', `${'a'.repeat(26)}__${'b'.repeat(26)}`],
    ['a group-channel shape', 'abcdef0123456789abcdef0123456789abcdef01'],
  ])('rejects a name with %s', async (_why, name) => {
    const res = await member.api.post('/api/v4/channels', { team_id: teamId, name, display_name: 'X', type: 'O' });
    expectAppError(res, 400, 'model.channel.is_valid.2_or_more.app_error');
  });

  test('accepts a one-character name and a name ending in an underscore', async () => {
    await member.api.post('/api/v4/channels', { team_id: teamId, name: 'q', display_name: 'Q', type: 'O' }).expect(201);
    await member.api.post('/api/v4/channels', { team_id: teamId, name: 'ends_', display_name: 'E', type: 'O' }).expect(201);
  });

  test('rejects a bad display name, header or purpose', async () => {
    const base = { team_id: teamId, name: uniqueName(), type: 'O' };
    expectAppError(await member.api.post('/api/v4/channels', { ...base, display_name: '' }), 400, 'model.channel.is_valid.display_name.app_error');
    expectAppError(await member.api.post('/api/v4/channels', { ...base, display_name: 'x'.repeat(65) }), 400, 'model.channel.is_valid.display_name.app_error');
    expectAppError(await member.api.post('/api/v4/channels', { ...base, display_name: 'X', header: 'h'.repeat(1025) }), 400, 'model.channel.is_valid.header.app_error');
    expectAppError(await member.api.post('/api/v4/channels', { ...base, display_name: 'X', purpose: 'p'.repeat(251) }), 400, 'model.channel.is_valid.purpose.app_error');
  });

  test('rejects a duplicate name in the same team, whatever the type', async () => {
    const channel = await createChannel(member, 'O');
    const again = await other.api.post('/api/v4/channels', { team_id: teamId, name: channel.name, display_name: 'Again', type: 'P' });
    expectAppError(again, 400, 'store.sql_channel.save_channel.exists.app_error');
  });

  test('a user outside the team cannot create channels in it (403); unknown team is 404', async () => {
    for (const type of ['O', 'P']) {
      const res = await outsider.api.post('/api/v4/channels', { team_id: teamId, name: uniqueName(), display_name: 'X', type });
      expectAppError(res, 403, 'api.context.permissions.app_error');
    }
    const res = await member.api.post('/api/v4/channels', { team_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', name: uniqueName(), display_name: 'X', type: 'O' });
    expectAppError(res, 404, 'app.team.get.find.app_error');
  });

  test('type D cannot be created through CreateChannel', async () => {
    const res = await member.api.post('/api/v4/channels', { team_id: teamId, name: uniqueName(), display_name: 'X', type: 'D' });
    expect(res.status).toBe(400);
    expect(res.body.status_code).toBe(400);
  });
});

describe('CreateDirectChannel', () => {
  test('creates the D channel "<idA>__<idB>" (sorted ids, no team) with both users as members; repeat calls return it', async () => {
    const [a, b] = [member.id, outsider.id].sort();
    const res = await member.api.post('/api/v4/channels/direct', [outsider.id, member.id]).expect(201);
    expect(res.body).toMatchObject({ name: `${a}__${b}`, type: 'D', team_id: '', display_name: '' });
    const members = await member.api.get(`/api/v4/channels/${res.body.id}/members`).expect(200);
    expect(members.body.map((m: { user_id: string }) => m.user_id)).toEqual([a, b]);
    const again = await member.api.post('/api/v4/channels/direct', [member.id, outsider.id]).expect(201);
    expect(again.body.id).toBe(res.body.id);
    const fromOtherSide = await outsider.api.post('/api/v4/channels/direct', [outsider.id, member.id]).expect(201);
    expect(fromOtherSide.body.id).toBe(res.body.id);
  });

  test('a self-DM has one member', async () => {
    const res = await other.api.post('/api/v4/channels/direct', [other.id, other.id]).expect(201);
    expect(res.body.name).toBe(`${other.id}__${other.id}`);
    const members = await other.api.get(`/api/v4/channels/${res.body.id}/members`).expect(200);
    expect(members.body.map((m: { user_id: string }) => m.user_id)).toEqual([other.id]);
  });

  test('a user who is not one of the two gets 403; a system admin may create it', async () => {
    expectAppError(await other.api.post('/api/v4/channels/direct', [member.id, owner.id]), 403, 'api.context.permissions.app_error');
    const res = await sysadmin.api.post('/api/v4/channels/direct', [member.id, owner.id]).expect(201);
    expect(res.body.name).toBe([member.id, owner.id].sort().join('__'));
  });

  test('an unknown user or a bad body is 400', async () => {
    expectAppError(await member.api.post('/api/v4/channels/direct', [member.id, 'zzzzzzzzzzzzzzzzzzzzzzzzzz']), 400, 'api.channel.create_direct_channel.invalid_user.app_error');
    const three = await member.api.post('/api/v4/channels/direct', [member.id, owner.id, other.id]);
    expect(three.status).toBe(400);
    expect(three.body.status_code).toBe(400);
  });

  test('only the two members can read it', async () => {
    const dm = await member.api.post('/api/v4/channels/direct', [member.id, other.id]).expect(201);
    await other.api.get(`/api/v4/channels/${dm.body.id}`).expect(200);
    expectAppError(await owner.api.get(`/api/v4/channels/${dm.body.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await owner.api.get(`/api/v4/channels/${dm.body.id}/members`), 403, 'api.context.permissions.app_error');
  });
});

describe('GetChannel and GetChannelByName', () => {
  test('a public channel is readable by every team member but not by outsiders', async () => {
    const channel = await createChannel(owner, 'O');
    const res = await member.api.get(`/api/v4/channels/${channel.id}`).expect(200);
    expect(res.body).toMatchObject({ id: channel.id, name: channel.name, type: 'O' });
    const byName = await member.api.get(`/api/v4/teams/${teamId}/channels/name/${channel.name}`).expect(200);
    expect(byName.body.id).toBe(channel.id);
    expectAppError(await outsider.api.get(`/api/v4/channels/${channel.id}`), 403, 'api.context.permissions.app_error');
  });

  test('a private channel is closed to non-members (403 by id; by name 404, exactly as a missing one), open to members', async () => {
    const channel = await createChannel(owner, 'P');
    expectAppError(await member.api.get(`/api/v4/channels/${channel.id}`), 403, 'api.context.permissions.app_error');
    const hidden = await member.api.get(`/api/v4/teams/${teamId}/channels/name/${channel.name}`);
    const missing = await member.api.get(`/api/v4/teams/${teamId}/channels/name/${channel.name}x`);
    expectAppError(hidden, 404, 'app.channel.get_by_name.missing.app_error');
    expectAppError(missing, 404, 'app.channel.get_by_name.missing.app_error');
    expect({ ...hidden.body, request_id: '' }).toEqual({ ...missing.body, request_id: '' });
    await owner.api.get(`/api/v4/teams/${teamId}/channels/name/${channel.name}`).expect(200);
    await owner.api.get(`/api/v4/channels/${channel.id}`).expect(200);
    await sysadmin.api.get(`/api/v4/channels/${channel.id}`).expect(200);
  });

  test('names are matched exactly on every database (no case or trailing-space folding)', async () => {
    const channel = await createChannel(owner, 'O');
    expectAppError(await member.api.get(`/api/v4/teams/${teamId}/channels/name/${channel.name.toUpperCase()}`), 404, 'app.channel.get_by_name.missing.app_error');
    expectAppError(await member.api.get(`/api/v4/teams/${teamId}/channels/name/${channel.name}%20`), 404, 'app.channel.get_by_name.missing.app_error');
  });

  test('unknown channel: 404', async () => {
    expectAppError(await member.api.get('/api/v4/channels/aaaaaaaaaaaaaaaaaaaaaaaaaa'), 404, 'app.channel.get.existing.app_error');
    expectAppError(await member.api.get(`/api/v4/teams/${teamId}/channels/name/no-such-channel`), 404, 'app.channel.get_by_name.missing.app_error');
  });
});

describe('GetPublicChannelsForTeam and GetChannelsForTeamForUser', () => {
  test('the public list has only open channels, including ones the caller is not in', async () => {
    const open = await createChannel(owner, 'O');
    const priv = await createChannel(owner, 'P');
    const res = await member.api.get(`/api/v4/teams/${teamId}/channels?per_page=200`).expect(200);
    const ids = res.body.map((c: Channel) => c.id);
    expect(ids).toContain(open.id);
    expect(ids).toContain(townSquareId);
    expect(ids).not.toContain(priv.id);
    expect(res.body.every((c: Channel) => c.type === 'O' && c.team_id === teamId)).toBe(true);
    const page = await member.api.get(`/api/v4/teams/${teamId}/channels?page=0&per_page=2`).expect(200);
    expect(page.body).toHaveLength(2);
    expectAppError(await outsider.api.get(`/api/v4/teams/${teamId}/channels`), 403, 'api.context.permissions.app_error');
  });

  test("my channels of a team: the team's channels I am in plus my direct channels", async () => {
    const dave = await createUser(server, sysadmin);
    await owner.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: dave.id }).expect(201);
    const mine = await createChannel(dave, 'P');
    const notMine = await createChannel(owner, 'O');
    const dm = await dave.api.post('/api/v4/channels/direct', [dave.id, owner.id]).expect(201);
    const res = await dave.api.get(`/api/v4/users/me/teams/${teamId}/channels`).expect(200);
    const ids = res.body.map((c: Channel) => c.id).sort();
    const town = townSquareId;
    const offTopic = (await dave.api.get(`/api/v4/teams/${teamId}/channels/name/off-topic`).expect(200)).body.id;
    expect(ids).toEqual([mine.id, dm.body.id, town, offTopic].sort());
    expect(ids).not.toContain(notMine.id);
    expectAppError(await member.api.get(`/api/v4/users/${dave.id}/teams/${teamId}/channels`), 403, 'api.context.permissions.app_error');
    await sysadmin.api.get(`/api/v4/users/${dave.id}/teams/${teamId}/channels`).expect(200);
  });
});

describe('AddChannelMember', () => {
  test('user_id adds one member and answers one ChannelMember; msg_count starts at the channel total', async () => {
    const channel = await createChannel(owner, 'P');
    await post(owner, channel.id, 'before anyone joined');
    const res = await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id, channel_id: channel.id, post_root_id: '' }).expect(201);
    expect(Array.isArray(res.body)).toBe(false);
    expect(res.body).toMatchObject({ channel_id: channel.id, user_id: member.id, roles: 'channel_user', scheme_admin: false, msg_count: 1, mention_count: 0 });
    await member.api.get(`/api/v4/channels/${channel.id}`).expect(200);
  });

  test('user_ids adds several and answers an array', async () => {
    const channel = await createChannel(owner, 'O');
    const res = await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_ids: [member.id, other.id] }).expect(201);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((m: { user_id: string }) => m.user_id)).toEqual([member.id, other.id]);
    const members = await owner.api.get(`/api/v4/channels/${channel.id}/members`).expect(200);
    expect(members.body).toHaveLength(3);
  });

  test('adding an existing member returns the membership', async () => {
    const channel = await createChannel(owner, 'O');
    await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id }).expect(201);
    const again = await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id }).expect(201);
    expect(again.body.user_id).toBe(member.id);
    expect((await owner.api.get(`/api/v4/channels/${channel.id}/members`).expect(200)).body).toHaveLength(2);
  });

  test('a team member joins a public channel by themself', async () => {
    const channel = await createChannel(owner, 'O');
    const res = await other.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: other.id }).expect(201);
    expect(res.body.user_id).toBe(other.id);
  });

  test('a user who is not on the team cannot be added (400)', async () => {
    const channel = await createChannel(owner, 'O');
    const res = await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: outsider.id });
    expectAppError(res, 400, 'api.channel.add_members.user_denied');
    const bulk = await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_ids: [member.id, outsider.id] });
    expectAppError(bulk, 400, 'api.channel.add_members.user_denied');
    // All or nothing: the valid user of the failed bulk add was not added either.
    expect((await owner.api.get(`/api/v4/channels/${channel.id}/members`).expect(200)).body).toHaveLength(1);
  });

  test('a non-member cannot add anyone to a private channel, nor join it (403)', async () => {
    const channel = await createChannel(owner, 'P');
    expectAppError(await member.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: other.id }), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id }), 403, 'api.context.permissions.app_error');
    // A member of the private channel may add other team members.
    await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id }).expect(201);
    await member.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: other.id }).expect(201);
  });

  test('neither or both of user_id and user_ids: 400; direct channels take no members: 400', async () => {
    const channel = await createChannel(owner, 'O');
    const neither = await owner.api.post(`/api/v4/channels/${channel.id}/members`, { channel_id: channel.id });
    expect(neither.status).toBe(400);
    expect(neither.body.status_code).toBe(400);
    const both = await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id, user_ids: [other.id] });
    expect(both.status).toBe(400);
    const dm = await owner.api.post('/api/v4/channels/direct', [owner.id, member.id]).expect(201);
    expectAppError(await owner.api.post(`/api/v4/channels/${dm.body.id}/members`, { user_id: other.id }), 400, 'api.channel.add_user_to_channel.type.app_error');
  });
});

describe('GetChannelMembers, GetChannelMember and RemoveUserFromChannel', () => {
  test('members are paged; one member is read by id or as me', async () => {
    const channel = await createChannel(owner, 'O');
    await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_ids: [member.id, other.id] }).expect(201);
    const all = await member.api.get(`/api/v4/channels/${channel.id}/members`).expect(200);
    const ids = all.body.map((m: { user_id: string }) => m.user_id);
    expect(ids).toEqual([owner.id, member.id, other.id].sort());
    const p0 = await member.api.get(`/api/v4/channels/${channel.id}/members?page=0&per_page=2`).expect(200);
    const p1 = await member.api.get(`/api/v4/channels/${channel.id}/members?page=1&per_page=2`).expect(200);
    expect([...p0.body, ...p1.body].map((m: { user_id: string }) => m.user_id)).toEqual(ids);

    const me = await member.api.get(`/api/v4/channels/${channel.id}/members/me`).expect(200);
    expect(me.body).toMatchObject({ channel_id: channel.id, user_id: member.id, roles: 'channel_user' });
    expect(me.body.notify_props).toMatchObject({ desktop: 'default', push: 'default', email: 'default', mark_unread: 'all' });
    const byId = await other.api.get(`/api/v4/channels/${channel.id}/members/${owner.id}`).expect(200);
    expect(byId.body).toMatchObject({ user_id: owner.id, roles: 'channel_user channel_admin' });
    expectAppError(await member.api.get(`/api/v4/channels/${channel.id}/members/${outsider.id}`), 404, 'app.channel.get_member.missing.app_error');
  });

  test("another member's read state and notification settings are hidden (-1, {}); the caller's own member is complete", async () => {
    const channel = await createChannel(owner, 'O');
    await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_ids: [member.id] }).expect(201);
    await post(owner, channel.id, `hello @${member.username}`);
    const hidden = {
      last_viewed_at: -1,
      last_update_at: -1,
      msg_count: -1,
      msg_count_root: -1,
      mention_count: -1,
      mention_count_root: -1,
      urgent_mention_count: -1,
      notify_props: {},
    };
    // A member, a team member who never joined this public channel, and a system admin (as in Mattermost) alike.
    for (const viewer of [member, other, sysadmin]) {
      const list = (await viewer.api.get(`/api/v4/channels/${channel.id}/members`).expect(200)).body as Array<Record<string, unknown>>;
      for (const m of list.filter((x) => x.user_id !== viewer.id)) expect(m).toMatchObject(hidden);
      const one = (await viewer.api.get(`/api/v4/channels/${channel.id}/members/${owner.id}`).expect(200)).body;
      expect(one).toEqual({ ...one, ...hidden });
      // What is not read state stays: who they are and their roles.
      expect(one).toMatchObject({ channel_id: channel.id, user_id: owner.id, roles: 'channel_user channel_admin', scheme_admin: true });
    }
    // The caller's own member, by id, as me and in the list, is complete: it is what the apps' unread markers read.
    const mine = (await member.api.get(`/api/v4/channels/${channel.id}/members/${member.id}`).expect(200)).body;
    expect(mine).toMatchObject({ user_id: member.id, mention_count: 1, msg_count: 0 });
    expect(mine.last_viewed_at).toBeGreaterThanOrEqual(0);
    expect(mine.last_update_at).toBeGreaterThan(0);
    expect(mine.notify_props).toMatchObject({ desktop: 'default', mark_unread: 'all' });
    expect((await member.api.get(`/api/v4/channels/${channel.id}/members/me`).expect(200)).body).toEqual(mine);
    const listed = (await member.api.get(`/api/v4/channels/${channel.id}/members`).expect(200)).body.find((m: { user_id: string }) => m.user_id === member.id);
    expect(listed).toEqual(mine);
    const ownerOwn = (await owner.api.get(`/api/v4/channels/${channel.id}/members/me`).expect(200)).body;
    expect(ownerOwn.msg_count).toBe(1);
    expect(ownerOwn.last_viewed_at).toBeGreaterThan(0);
  });

  test('members of a private channel are hidden from non-members', async () => {
    const channel = await createChannel(owner, 'P');
    expectAppError(await member.api.get(`/api/v4/channels/${channel.id}/members`), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.get(`/api/v4/channels/${channel.id}/members/${owner.id}`), 403, 'api.context.permissions.app_error');
  });

  test('a member leaves by themself; removing others needs manage-members', async () => {
    const channel = await createChannel(owner, 'P');
    await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_ids: [member.id, other.id] }).expect(201);
    const res = await member.api.delete(`/api/v4/channels/${channel.id}/members/me`).expect(200);
    expect(res.body).toEqual({ status: 'OK' });
    expectAppError(await member.api.get(`/api/v4/channels/${channel.id}`), 403, 'api.context.permissions.app_error');
    // outsider is not a channel member: cannot remove others.
    expectAppError(await outsider.api.delete(`/api/v4/channels/${channel.id}/members/${other.id}`), 403, 'api.context.permissions.app_error');
    await owner.api.delete(`/api/v4/channels/${channel.id}/members/${other.id}`).expect(200);
    const left = await owner.api.get(`/api/v4/channels/${channel.id}/members`).expect(200);
    expect(left.body.map((m: { user_id: string }) => m.user_id)).toEqual([owner.id]);
    expectAppError(await owner.api.delete(`/api/v4/channels/${channel.id}/members/${other.id}`), 404, 'app.channel.get_member.missing.app_error');
  });

  test('a team member who is not in a public channel cannot remove its members', async () => {
    const channel = await createChannel(owner, 'O');
    await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id }).expect(201);
    expectAppError(await other.api.delete(`/api/v4/channels/${channel.id}/members/${member.id}`), 403, 'api.context.permissions.app_error');
  });

  test('nobody leaves or is removed from town-square; off-topic can be left', async () => {
    expectAppError(await member.api.delete(`/api/v4/channels/${townSquareId}/members/me`), 400, 'api.channel.remove.default.app_error');
    expectAppError(await owner.api.delete(`/api/v4/channels/${townSquareId}/members/${member.id}`), 400, 'api.channel.remove.default.app_error');
    await member.api.get(`/api/v4/channels/${townSquareId}/members/me`).expect(200);
    const offTopic = (await member.api.get(`/api/v4/teams/${teamId}/channels/name/off-topic`).expect(200)).body.id;
    await other.api.delete(`/api/v4/channels/${offTopic}/members/me`).expect(200);
    expectAppError(await other.api.get(`/api/v4/channels/${offTopic}/members/me`), 404, 'app.channel.get_member.missing.app_error');
  });

  test('nobody can be removed from a direct channel', async () => {
    const dm = await member.api.post('/api/v4/channels/direct', [member.id, owner.id]).expect(201);
    expectAppError(await member.api.delete(`/api/v4/channels/${dm.body.id}/members/me`), 400, 'api.channel.remove_channel_member.type.app_error');
  });
});

describe('ViewChannel', () => {
  test('unread counts: posts move the channel total; a mention counts; viewing resets both', async () => {
    const channel = await createChannel(owner, 'O');
    await owner.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id }).expect(201);
    await post(owner, channel.id, 'one');
    await post(owner, channel.id, `two @${member.username}`);
    await post(owner, channel.id, 'three');

    const ch = await member.api.get(`/api/v4/channels/${channel.id}`).expect(200);
    expect(ch.body.total_msg_count).toBe(3);
    expect(ch.body.last_post_at).toBeGreaterThan(0);
    const before = await member.api.get(`/api/v4/channels/${channel.id}/members/me`).expect(200);
    expect(before.body.msg_count).toBe(0);
    expect(before.body.msg_count).toBeLessThan(ch.body.total_msg_count);
    expect(before.body.mention_count).toBe(1);
    // The poster has read everything they wrote.
    const poster = await owner.api.get(`/api/v4/channels/${channel.id}/members/me`).expect(200);
    expect(poster.body).toMatchObject({ msg_count: 3, mention_count: 0 });

    const t0 = Date.now();
    const view = await member.api.post('/api/v4/channels/members/me/view', { channel_id: channel.id, collapsed_threads_supported: true }).expect(200);
    expect(view.body.status).toBe('OK');
    expect(Object.keys(view.body.last_viewed_at_times)).toEqual([channel.id]);
    expect(view.body.last_viewed_at_times[channel.id]).toBeGreaterThanOrEqual(t0);
    const after = await member.api.get(`/api/v4/channels/${channel.id}/members/me`).expect(200);
    expect(after.body).toMatchObject({ msg_count: 3, mention_count: 0, last_viewed_at: view.body.last_viewed_at_times[channel.id] });
  });

  test('prev_channel_id is marked as viewed too; an empty channel_id alone changes nothing', async () => {
    const a = await createChannel(owner, 'O');
    const b = await createChannel(owner, 'O');
    await owner.api.post(`/api/v4/channels/${a.id}/members`, { user_id: member.id }).expect(201);
    await owner.api.post(`/api/v4/channels/${b.id}/members`, { user_id: member.id }).expect(201);
    await post(owner, a.id, `@${member.username} in a`);
    await post(owner, b.id, `@${member.username} in b`);

    const blur = await member.api.post('/api/v4/channels/members/me/view', { channel_id: '' }).expect(200);
    expect(blur.body.last_viewed_at_times ?? {}).toEqual({});
    expect((await member.api.get(`/api/v4/channels/${a.id}/members/me`).expect(200)).body.mention_count).toBe(1);

    const res = await member.api.post('/api/v4/channels/members/me/view', { channel_id: a.id, prev_channel_id: b.id }).expect(200);
    expect(Object.keys(res.body.last_viewed_at_times).sort()).toEqual([a.id, b.id].sort());
    for (const id of [a.id, b.id]) {
      const m = await member.api.get(`/api/v4/channels/${id}/members/me`).expect(200);
      expect(m.body).toMatchObject({ msg_count: 1, mention_count: 0 });
    }

    // Focus lost while leaving a: only a is marked.
    await post(owner, a.id, `@${member.username} again`);
    const left = await member.api.post('/api/v4/channels/members/me/view', { channel_id: '', prev_channel_id: a.id }).expect(200);
    expect(Object.keys(left.body.last_viewed_at_times)).toEqual([a.id]);
    expect((await member.api.get(`/api/v4/channels/${a.id}/members/me`).expect(200)).body).toMatchObject({ msg_count: 2, mention_count: 0 });
  });

  test("another user's view: 403; a channel the user is not in: 404", async () => {
    const channel = await createChannel(owner, 'O');
    expectAppError(await member.api.post(`/api/v4/channels/members/${owner.id}/view`, { channel_id: channel.id }), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.post('/api/v4/channels/members/me/view', { channel_id: channel.id }), 404, 'app.channel.get_member.missing.app_error');
    expectAppError(await member.api.post('/api/v4/channels/members/me/view', { channel_id: 'not-an-id' }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await member.api.post('/api/v4/channels/members/me/view', { channel_id: '', prev_channel_id: 'nope' }), 400, 'api.context.invalid_param.app_error');
  });
});
