// Managing channels: PatchChannel, UpdateChannel, DeleteChannel (archive), RestoreChannel, GetChannelByNameForTeamName,
// GetChannelMembersForUser, GetChannelStats, UpdateChannelRoles and leaving, over real HTTP on the run's database.
import { expectAppError } from '../support/assertions';
import { createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let owner: Actor; // team admin of `teamId`
let member: Actor; // plain member of `teamId`
let other: Actor; // plain member of `teamId` too
let outsider: Actor; // on another, invite-only team only
let teamId: string;
let teamName: string;
let closedTeamName: string;
let townSquareId: string;
let seq = 0;

const unique = (prefix = 'ch') => `${prefix}-${process.pid}-${++seq}`;

interface Channel {
  id: string;
  name: string;
  type: string;
  display_name: string;
  header: string;
  purpose: string;
  update_at: number;
  delete_at: number;
  team_id: string;
}

async function createChannel(as: Actor, type: 'O' | 'P' = 'O', extra: Record<string, unknown> = {}): Promise<Channel> {
  const name = unique();
  return (await as.api.post('/api/v4/channels', { team_id: teamId, name, display_name: `Channel ${name}`, type, ...extra }).expect(201)).body;
}

async function join(as: Actor, channelId: string, userId: string): Promise<void> {
  await as.api.post(`/api/v4/channels/${channelId}/members`, { user_id: userId }).expect(201);
}

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  owner = await createUser(server, sysadmin);
  member = await createUser(server, sysadmin);
  other = await createUser(server, sysadmin);
  outsider = await createUser(server, sysadmin);
  teamName = unique('team');
  teamId = await createTeam(owner, teamName, [member, other]);
  closedTeamName = unique('closed');
  await outsider.api.post('/api/v4/teams', { name: closedTeamName, display_name: 'Closed', type: 'I' }).expect(201);
  townSquareId = (await owner.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
});
afterAll(() => server.close());

describe('PatchChannel', () => {
  test('a member of a public channel changes its header, purpose, display name and name; only given fields change', async () => {
    const channel = await createChannel(owner, 'O', { header: 'old header', purpose: 'old purpose' });
    await join(member, channel.id, member.id);
    const res = await member.api.put(`/api/v4/channels/${channel.id}/patch`, { header: 'new **header**' }).expect(200);
    expect(res.body).toMatchObject({ id: channel.id, header: 'new **header**', purpose: 'old purpose', name: channel.name, display_name: channel.display_name });
    expect(res.body.update_at).toBeGreaterThan(channel.update_at);
    const name = unique('renamed');
    const renamed = await member.api.put(`/api/v4/channels/${channel.id}/patch`, { name, display_name: 'Renamed', purpose: '' }).expect(200);
    expect(renamed.body).toMatchObject({ name, display_name: 'Renamed', purpose: '', header: 'new **header**' });
    const read = await other.api.get(`/api/v4/teams/${teamId}/channels/name/${name}`).expect(200);
    expect(read.body).toMatchObject({ id: channel.id, display_name: 'Renamed', header: 'new **header**', purpose: '' });
  });

  test('an empty patch is 400 no_changes; bad values are refused with the model ids', async () => {
    const channel = await createChannel(member);
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/patch`, {}), 400, 'api.channel.patch_update_channel.no_changes.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/patch`, { name: 'Not Valid' }), 400, 'model.channel.is_valid.2_or_more.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/patch`, { display_name: '' }), 400, 'model.channel.is_valid.display_name.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/patch`, { header: 'h'.repeat(1025) }), 400, 'model.channel.is_valid.header.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/patch`, { purpose: 'p'.repeat(251) }), 400, 'model.channel.is_valid.purpose.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/patch`, { group_constrained: true }), 400, 'api.channel.patch_update_channel.group_constrained_not_allowed.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/patch`, { header: 42 }), 400, 'api.context.invalid_param.app_error');
    // At the limits exactly: accepted.
    await member.api.put(`/api/v4/channels/${channel.id}/patch`, { header: '😀'.repeat(1024), purpose: 'p'.repeat(250), display_name: 'd'.repeat(64) }).expect(200);
  });

  test('a name taken in the team is 400 store.sql_channel.update.exists.app_error (archived channels keep theirs)', async () => {
    const a = await createChannel(member);
    const b = await createChannel(member, 'P');
    expectAppError(await member.api.put(`/api/v4/channels/${b.id}/patch`, { name: a.name }), 400, 'store.sql_channel.update.exists.app_error');
    await member.api.delete(`/api/v4/channels/${a.id}`).expect(200);
    expectAppError(await member.api.put(`/api/v4/channels/${b.id}/patch`, { name: a.name }), 400, 'store.sql_channel.update.exists.app_error');
    // Its own name again is no conflict.
    await member.api.put(`/api/v4/channels/${b.id}/patch`, { name: b.name }).expect(200);
  });

  test('town-square cannot be renamed, but its header can change', async () => {
    expectAppError(await member.api.put(`/api/v4/channels/${townSquareId}/patch`, { name: 'main' }), 400, 'api.channel.update_channel.tried.app_error');
    const res = await member.api.put(`/api/v4/channels/${townSquareId}/patch`, { header: 'Welcome', name: 'town-square' }).expect(200);
    expect(res.body).toMatchObject({ name: 'town-square', header: 'Welcome' });
  });

  test('permissions: a team member outside the channel 403, an outsider 403, a private channel is for its members; team admins and system admins may', async () => {
    const open = await createChannel(member);
    const closed = await createChannel(member, 'P');
    expectAppError(await other.api.put(`/api/v4/channels/${open.id}/patch`, { header: 'x' }), 403, 'api.context.permissions.app_error');
    expectAppError(await other.api.put(`/api/v4/channels/${closed.id}/patch`, { header: 'x' }), 403, 'api.context.permissions.app_error');
    expectAppError(await outsider.api.put(`/api/v4/channels/${open.id}/patch`, { header: 'x' }), 403, 'api.context.permissions.app_error');
    await owner.api.put(`/api/v4/channels/${closed.id}/patch`, { header: 'by the team admin' }).expect(200);
    await sysadmin.api.put(`/api/v4/channels/${open.id}/patch`, { header: 'by the system admin' }).expect(200);
    expectAppError(await member.api.put('/api/v4/channels/aaaaaaaaaaaaaaaaaaaaaaaaaa/patch', { header: 'x' }), 404, 'app.channel.get.existing.app_error');
    expectAppError(await server.http().put(`/api/v4/channels/${open.id}/patch`, { header: 'x' }), 401, 'api.context.session_expired.app_error');
  });

  test('a direct channel: its members may change the header only; others get the forbidden id', async () => {
    const dm = (await member.api.post('/api/v4/channels/direct', [member.id, other.id]).expect(201)).body;
    const res = await other.api.put(`/api/v4/channels/${dm.id}/patch`, { header: 'our dm' }).expect(200);
    expect(res.body).toMatchObject({ id: dm.id, header: 'our dm', name: dm.name, type: 'D' });
    expectAppError(await member.api.put(`/api/v4/channels/${dm.id}/patch`, { purpose: 'why' }), 400, 'api.channel.patch_update_channel.update_direct_or_group_messages_not_allowed.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${dm.id}/patch`, { display_name: 'Ours' }), 400, 'api.channel.patch_update_channel.update_direct_or_group_messages_not_allowed.app_error');
    expectAppError(await owner.api.put(`/api/v4/channels/${dm.id}/patch`, { header: 'intruder' }), 403, 'api.channel.patch_update_channel.forbidden.app_error');
  });

  test('an archived channel cannot be changed', async () => {
    const channel = await createChannel(member);
    await member.api.delete(`/api/v4/channels/${channel.id}`).expect(200);
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/patch`, { header: 'x' }), 400, 'api.channel.update_channel.deleted.app_error');
  });
});

describe('UpdateChannel', () => {
  test('takes header and purpose always, names only when given; ignores the rest of the channel object', async () => {
    const channel = await createChannel(member, 'P', { header: 'h', purpose: 'p' });
    const res = await member.api.put(`/api/v4/channels/${channel.id}`, { ...channel, display_name: '', name: '', header: 'H2', purpose: undefined, total_msg_count: 999, creator_id: other.id }).expect(200);
    expect(res.body).toMatchObject({ id: channel.id, name: channel.name, display_name: channel.display_name, header: 'H2', purpose: '', type: 'P' });
    const read = await member.api.get(`/api/v4/channels/${channel.id}`).expect(200);
    expect(read.body).toMatchObject({ header: 'H2', purpose: '', total_msg_count: 0, creator_id: member.id });
  });

  test('errors: another id 400, a type change 400, town-square renamed 400, archived 400, a non-member 403', async () => {
    const channel = await createChannel(member);
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}`, { ...channel, id: townSquareId }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}`, { ...channel, type: 'P' }), 400, 'api.channel.update_channel.typechange.app_error');
    const town = (await member.api.get(`/api/v4/channels/${townSquareId}`).expect(200)).body;
    expectAppError(await member.api.put(`/api/v4/channels/${townSquareId}`, { ...town, name: 'plaza' }), 400, 'api.channel.update_channel.tried.app_error');
    expectAppError(await other.api.put(`/api/v4/channels/${channel.id}`, channel), 403, 'api.context.permissions.app_error');
    await member.api.delete(`/api/v4/channels/${channel.id}`).expect(200);
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}`, channel), 400, 'api.channel.update_channel.deleted.app_error');
  });

  test('a direct channel: the purpose cannot change', async () => {
    const dm = (await member.api.post('/api/v4/channels/direct', [member.id, owner.id]).expect(201)).body;
    expectAppError(await member.api.put(`/api/v4/channels/${dm.id}`, { ...dm, purpose: 'no' }), 400, 'api.channel.update_channel.update_direct_or_group_messages_not_allowed.app_error');
    await member.api.put(`/api/v4/channels/${dm.id}`, { ...dm, header: 'fine' }).expect(200);
  });
});

describe('DeleteChannel and RestoreChannel', () => {
  test('archive: the channel keeps its posts and members, takes no posts, is found by name only with include_deleted', async () => {
    const channel = await createChannel(member);
    await member.api.post('/api/v4/posts', { channel_id: channel.id, message: 'before' }).expect(201);
    const res = await member.api.delete(`/api/v4/channels/${channel.id}`).expect(200);
    expect(res.body).toEqual({ status: 'OK' });
    const read = await member.api.get(`/api/v4/channels/${channel.id}`).expect(200);
    expect(read.body.delete_at).toBeGreaterThan(0);
    expect(read.body.update_at).toBeGreaterThanOrEqual(read.body.delete_at);
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: channel.id, message: 'after' }), 400, 'api.post.create_post.can_not_post_to_deleted.error');
    expect((await member.api.get(`/api/v4/channels/${channel.id}/posts`).expect(200)).body.order).toHaveLength(1);
    expectAppError(await member.api.get(`/api/v4/teams/${teamId}/channels/name/${channel.name}`), 404, 'app.channel.get_by_name.missing.app_error');
    await member.api.get(`/api/v4/teams/${teamId}/channels/name/${channel.name}?include_deleted=true`).expect(200);
    expectAppError(await member.api.delete(`/api/v4/channels/${channel.id}`), 400, 'api.channel.delete_channel.deleted.app_error');
  });

  test('cannot archive town-square, a direct channel, or without permission; permanent deletion is off (401)', async () => {
    expectAppError(await member.api.delete(`/api/v4/channels/${townSquareId}`), 400, 'api.channel.delete_channel.cannot.app_error');
    const dm = (await member.api.post('/api/v4/channels/direct', [member.id, other.id]).expect(201)).body;
    expectAppError(await member.api.delete(`/api/v4/channels/${dm.id}`), 400, 'api.channel.delete_channel.type.invalid');
    const open = await createChannel(member);
    const closed = await createChannel(member, 'P');
    expectAppError(await other.api.delete(`/api/v4/channels/${open.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await other.api.delete(`/api/v4/channels/${closed.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await outsider.api.delete(`/api/v4/channels/${open.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.delete(`/api/v4/channels/${open.id}?permanent=true`), 401, 'api.user.delete_channel.not_enabled.app_error');
    expectAppError(await sysadmin.api.delete(`/api/v4/channels/${open.id}?permanent=true`), 401, 'api.user.delete_channel.not_enabled.for_admin.app_error');
    expect((await member.api.get(`/api/v4/channels/${open.id}`).expect(200)).body.delete_at).toBe(0);
    expectAppError(await member.api.delete('/api/v4/channels/aaaaaaaaaaaaaaaaaaaaaaaaaa'), 404, 'app.channel.get.existing.app_error');
    // A team admin archives a private channel they are not in.
    await owner.api.delete(`/api/v4/channels/${closed.id}`).expect(200);
  });

  test("archiving deletes the channel's incoming webhooks (restoring does not bring them back)", async () => {
    const channel = await createChannel(owner);
    const hook = (await owner.api.post('/api/v4/hooks/incoming', { channel_id: channel.id, display_name: 'ci' }).expect(201)).body;
    const elsewhere = (await owner.api.post('/api/v4/hooks/incoming', { channel_id: townSquareId, display_name: 'kept' }).expect(201)).body;
    // Used once before, so the webhook path has it cached.
    expect((await fetch(`${server.url}/hooks/${hook.id}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'hi' }) })).status).toBe(200);
    await owner.api.delete(`/api/v4/channels/${channel.id}`).expect(200);
    expectAppError(await owner.api.get(`/api/v4/hooks/incoming/${hook.id}`), 404, 'app.webhooks.get_incoming.app_error');
    expect((await fetch(`${server.url}/hooks/${hook.id}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'hi' }) })).status).not.toBe(200);
    await owner.api.get(`/api/v4/hooks/incoming/${elsewhere.id}`).expect(200);
    await owner.api.post(`/api/v4/channels/${channel.id}/restore`).expect(200);
    expectAppError(await owner.api.get(`/api/v4/hooks/incoming/${hook.id}`), 404, 'app.webhooks.get_incoming.app_error');
  });

  test('restore: team admins only; the channel takes posts again; a channel not archived is 400', async () => {
    const channel = await createChannel(member, 'P');
    await member.api.delete(`/api/v4/channels/${channel.id}`).expect(200);
    expectAppError(await member.api.post(`/api/v4/channels/${channel.id}/restore`), 403, 'api.context.permissions.app_error');
    expectAppError(await outsider.api.post(`/api/v4/channels/${channel.id}/restore`), 403, 'api.context.permissions.app_error');
    const res = await owner.api.post(`/api/v4/channels/${channel.id}/restore`).expect(200);
    expect(res.body).toMatchObject({ id: channel.id, delete_at: 0, type: 'P', name: channel.name });
    await member.api.post('/api/v4/posts', { channel_id: channel.id, message: 'back' }).expect(201);
    expectAppError(await owner.api.post(`/api/v4/channels/${channel.id}/restore`), 400, 'api.channel.restore_channel.restored.app_error');
    expectAppError(await owner.api.post('/api/v4/channels/aaaaaaaaaaaaaaaaaaaaaaaaaa/restore'), 404, 'app.channel.get.existing.app_error');
    // A system admin restores too.
    await member.api.delete(`/api/v4/channels/${channel.id}`).expect(200);
    await sysadmin.api.post(`/api/v4/channels/${channel.id}/restore`).expect(200);
  });

  test('concurrent archives of one channel: exactly one succeeds', async () => {
    const channel = await createChannel(member);
    const answers = await Promise.all([1, 2, 3, 4].map(() => member.api.delete(`/api/v4/channels/${channel.id}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
    for (const a of answers.filter((x) => x.status === 400)) expect(a.body.id).toBe('api.channel.delete_channel.deleted.app_error');
  });
});

describe('GetChannelByNameForTeamName', () => {
  test('finds a public channel by team and channel name', async () => {
    const channel = await createChannel(member);
    const res = await other.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}`).expect(200);
    expect(res.body).toMatchObject({ id: channel.id, team_id: teamId });
  });

  test('a missing team, and an invite-only team the caller is not on, answer alike (404)', async () => {
    const missing = await member.api.get(`/api/v4/teams/name/${unique('nope')}/channels/name/town-square`);
    const hidden = await member.api.get(`/api/v4/teams/name/${closedTeamName}/channels/name/town-square`);
    expectAppError(missing, 404, 'app.team.get_by_name.missing.app_error');
    expectAppError(hidden, 404, 'app.team.get_by_name.missing.app_error');
    expect({ ...hidden.body, request_id: '' }).toEqual({ ...missing.body, request_id: '' });
    await outsider.api.get(`/api/v4/teams/name/${closedTeamName}/channels/name/town-square`).expect(200);
  });

  test('a private channel the caller cannot read answers exactly as a missing one; team admins and members see it', async () => {
    const channel = await createChannel(member, 'P');
    const hidden = await other.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}`);
    const missing = await other.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}-x`);
    expectAppError(hidden, 404, 'app.channel.get_by_name.missing.app_error');
    expectAppError(missing, 404, 'app.channel.get_by_name.missing.app_error');
    expect({ ...hidden.body, request_id: '' }).toEqual({ ...missing.body, request_id: '' });
    await member.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}`).expect(200);
    await owner.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}`).expect(200);
    await sysadmin.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}`).expect(200);
  });

  test('a public channel of an open team the caller is not on is 403; archived ones need include_deleted', async () => {
    const channel = await createChannel(member);
    expectAppError(await outsider.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}`), 403, 'api.context.permissions.app_error');
    await member.api.delete(`/api/v4/channels/${channel.id}`).expect(200);
    expectAppError(await member.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}`), 404, 'app.channel.get_by_name.missing.app_error');
    await member.api.get(`/api/v4/teams/name/${teamName}/channels/name/${channel.name}?include_deleted=true`).expect(200);
  });
});

describe('GetChannelMembersForUser', () => {
  test("the caller's memberships of the team's channels (archived too) and of their direct channels; not another team's", async () => {
    const fresh = await createUser(server, sysadmin);
    await owner.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: fresh.id }).expect(201);
    const archivedOne = await createChannel(fresh);
    await fresh.api.delete(`/api/v4/channels/${archivedOne.id}`).expect(200);
    const dm = (await fresh.api.post('/api/v4/channels/direct', [fresh.id, member.id]).expect(201)).body;
    const elsewhere = await createTeam(fresh, unique('own'));
    const res = await fresh.api.get(`/api/v4/users/me/teams/${teamId}/channels/members`).expect(200);
    const ids = res.body.map((m: { channel_id: string }) => m.channel_id);
    const town = townSquareId;
    const offTopic = (await fresh.api.get(`/api/v4/teams/${teamId}/channels/name/off-topic`).expect(200)).body.id;
    expect(ids.sort()).toEqual([town, offTopic, archivedOne.id, dm.id].sort());
    for (const m of res.body) expect(m).toMatchObject({ user_id: fresh.id, roles: expect.stringContaining('channel_user') });
    const theirs = await fresh.api.get(`/api/v4/users/${fresh.id}/teams/${elsewhere}/channels/members`).expect(200);
    expect(theirs.body.map((m: { channel_id: string }) => m.channel_id)).toContain(dm.id);
    expect(theirs.body.map((m: { channel_id: string }) => m.channel_id)).not.toContain(town);
  });

  test("another user's memberships: 403 for a plain member, a system admin sees them (their read times hidden, -1)", async () => {
    expectAppError(await member.api.get(`/api/v4/users/${other.id}/teams/${teamId}/channels/members`), 403, 'api.context.permissions.app_error');
    const res = await sysadmin.api.get(`/api/v4/users/${other.id}/teams/${teamId}/channels/members`).expect(200);
    expect(res.body.length).toBeGreaterThan(0);
    for (const m of res.body) expect(m).toMatchObject({ user_id: other.id, last_viewed_at: -1, last_update_at: -1 });
    const own = await other.api.get(`/api/v4/users/me/teams/${teamId}/channels/members`).expect(200);
    for (const m of own.body) expect(m.last_viewed_at).toBeGreaterThanOrEqual(0);
  });

  test('a team the caller is not on: 403', async () => {
    expectAppError(await outsider.api.get(`/api/v4/users/me/teams/${teamId}/channels/members`), 403, 'api.context.permissions.app_error');
  });
});

describe('GetChannelStats', () => {
  test('counts active members and pinned posts; files_count is 0, or -1 when excluded', async () => {
    const channel = await createChannel(member, 'P');
    const leaving = await createUser(server, sysadmin);
    await owner.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: leaving.id }).expect(201);
    for (const u of [other, leaving]) await join(member, channel.id, u.id);
    const p1 = (await member.api.post('/api/v4/posts', { channel_id: channel.id, message: 'pin me' }).expect(201)).body.id;
    const p2 = (await member.api.post('/api/v4/posts', { channel_id: channel.id, message: 'pin me too' }).expect(201)).body.id;
    await member.api.post('/api/v4/posts', { channel_id: channel.id, message: 'not pinned' }).expect(201);
    await member.api.put(`/api/v4/posts/${p1}/patch`, { is_pinned: true }).expect(200);
    await member.api.put(`/api/v4/posts/${p2}/patch`, { is_pinned: true }).expect(200);
    let stats = await other.api.get(`/api/v4/channels/${channel.id}/stats`).expect(200);
    expect(stats.body).toEqual({ channel_id: channel.id, member_count: 3, guest_count: 0, pinnedpost_count: 2, files_count: 0 });
    // A deleted pinned post and a deactivated member no longer count.
    await member.api.delete(`/api/v4/posts/${p2}`).expect(200);
    await sysadmin.api.put(`/api/v4/users/${leaving.id}/active`, { active: false }).expect(200);
    stats = await other.api.get(`/api/v4/channels/${channel.id}/stats?exclude_files_count=true`).expect(200);
    expect(stats.body).toEqual({ channel_id: channel.id, member_count: 2, guest_count: 0, pinnedpost_count: 1, files_count: -1 });
  });

  test('needs read_channel: a private channel is 403 to a non-member; unknown 404', async () => {
    const channel = await createChannel(member, 'P');
    expectAppError(await other.api.get(`/api/v4/channels/${channel.id}/stats`), 403, 'api.context.permissions.app_error');
    await other.api.get(`/api/v4/channels/${townSquareId}/stats`).expect(200);
    expectAppError(await other.api.get('/api/v4/channels/aaaaaaaaaaaaaaaaaaaaaaaaaa/stats'), 404, 'app.channel.get.existing.app_error');
  });
});

describe('UpdateChannelRoles', () => {
  test('a channel admin makes a member a channel admin and back; the new admin may then manage roles', async () => {
    const channel = await createChannel(member, 'P');
    await join(member, channel.id, other.id);
    expectAppError(await other.api.put(`/api/v4/channels/${channel.id}/members/${member.id}/roles`, { roles: 'channel_user' }), 403, 'api.context.permissions.app_error');
    expect((await member.api.put(`/api/v4/channels/${channel.id}/members/${other.id}/roles`, { roles: 'channel_user channel_admin' }).expect(200)).body).toEqual({ status: 'OK' });
    const promoted = await member.api.get(`/api/v4/channels/${channel.id}/members/${other.id}`).expect(200);
    expect(promoted.body).toMatchObject({ roles: 'channel_user channel_admin', scheme_user: true, scheme_admin: true, explicit_roles: '' });
    await other.api.put(`/api/v4/channels/${channel.id}/members/${member.id}/roles`, { roles: 'channel_user' }).expect(200);
    expect((await other.api.get(`/api/v4/channels/${channel.id}/members/${member.id}`).expect(200)).body).toMatchObject({ roles: 'channel_user', scheme_admin: false });
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/members/${other.id}/roles`, { roles: 'channel_user' }), 403, 'api.context.permissions.app_error');
  });

  test('role errors, as Mattermost names them', async () => {
    const channel = await createChannel(member);
    await join(member, channel.id, other.id);
    const put = (roles: unknown) => member.api.put(`/api/v4/channels/${channel.id}/members/${other.id}/roles`, { roles });
    expectAppError(await put('channel_admin'), 400, 'api.channel.update_channel_member_roles.unset_user_scheme.app_error');
    expectAppError(await put(''), 400, 'api.channel.update_channel_member_roles.unset_user_scheme.app_error');
    expectAppError(await put('channel_user team_admin'), 400, 'api.channel.update_channel_member_roles.scheme_role.app_error');
    expectAppError(await put('channel_user system_admin'), 400, 'api.channel.update_channel_member_roles.scheme_role.app_error');
    expectAppError(await put('channel_guest'), 400, 'api.channel.update_channel_member_roles.changing_guest_role.app_error');
    expectAppError(await put('channel_user made_up_role'), 400, 'app.role.get_by_name.app_error');
    expectAppError(await put('Channel User!'), 400, 'api.context.invalid_param.app_error');
    expectAppError(await put(7), 400, 'api.context.invalid_param.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/${channel.id}/members/${outsider.id}/roles`, { roles: 'channel_user' }), 404, 'app.channel.get_member.missing.app_error');
    expectAppError(await member.api.put(`/api/v4/channels/aaaaaaaaaaaaaaaaaaaaaaaaaa/members/${other.id}/roles`, { roles: 'channel_user' }), 404, 'app.channel.get.existing.app_error');
    expect((await member.api.get(`/api/v4/channels/${channel.id}/members/${other.id}`).expect(200)).body.roles).toBe('channel_user');
  });

  test('a team admin outside the channel may set roles in it', async () => {
    const channel = await createChannel(member, 'P');
    await owner.api.put(`/api/v4/channels/${channel.id}/members/${member.id}/roles`, { roles: 'channel_user' }).expect(200);
    expect((await member.api.get(`/api/v4/channels/${channel.id}/members/${member.id}`).expect(200)).body.scheme_admin).toBe(false);
  });
});

describe('leaving a channel', () => {
  test('town-square cannot be left; a direct channel is 400 with its own id; an unknown user 404', async () => {
    expectAppError(await member.api.delete(`/api/v4/channels/${townSquareId}/members/me`), 400, 'api.channel.remove.default.app_error');
    const dm = (await member.api.post('/api/v4/channels/direct', [member.id, other.id]).expect(201)).body;
    expectAppError(await member.api.delete(`/api/v4/channels/${dm.id}/members/me`), 400, 'api.channel.remove_channel_member.type.app_error');
    const channel = await createChannel(member);
    expectAppError(await member.api.delete(`/api/v4/channels/${channel.id}/members/aaaaaaaaaaaaaaaaaaaaaaaaaa`), 404, 'app.user.missing_account.const');
    expectAppError(await member.api.delete(`/api/v4/channels/${channel.id}/members/${other.id}`), 404, 'app.channel.get_member.missing.app_error');
  });

  test("the last member may leave a private channel (as Mattermost's API allows); it cannot be re-joined by a plain member", async () => {
    const channel = await createChannel(member, 'P');
    await member.api.delete(`/api/v4/channels/${channel.id}/members/me`).expect(200);
    expect((await sysadmin.api.get(`/api/v4/channels/${channel.id}/members`).expect(200)).body).toEqual([]);
    expectAppError(await member.api.post(`/api/v4/channels/${channel.id}/members`, { user_id: member.id }), 403, 'api.context.permissions.app_error');
  });
});
