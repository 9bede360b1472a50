// Managing teams: PatchTeam, RemoveTeamMember (leaving, and removing someone), GetTeamStats, GetTeamUnread and
// GetTeamsUnreadForUser, over real HTTP on the run's database.
import { expectAppError } from '../support/assertions';
import { createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let owner: Actor;
let member: Actor;
let outsider: Actor;
let seq = 0;

const unique = (prefix = 't') => `${prefix}${process.pid}x${++seq}`;

async function channelId(as: Actor, teamId: string, name: string): Promise<string> {
  return (await as.api.get(`/api/v4/teams/${teamId}/channels/name/${name}`).expect(200)).body.id;
}

async function memberIds(as: Actor, path: string): Promise<string[]> {
  return (await as.api.get(path).expect(200)).body.map((m: { user_id: string }) => m.user_id);
}

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  owner = await createUser(server, sysadmin);
  member = await createUser(server, sysadmin);
  outsider = await createUser(server, sysadmin);
});
afterAll(() => server.close());

describe('PatchTeam', () => {
  test('a team admin changes some fields; the rest (name, email, what Client4 sends besides) stays; managers see the invite id', async () => {
    const teamId = await createTeam(owner, unique(), [member]);
    const before = (await owner.api.get(`/api/v4/teams/${teamId}`).expect(200)).body;
    const res = await owner.api.put(`/api/v4/teams/${teamId}/patch`, { ...before, name: 'renamed-team', email: 'x@example.com', display_name: 'New Name', description: 'About us', company_name: 'ACME' }).expect(200);
    expect(res.body).toMatchObject({ id: teamId, name: before.name, email: before.email, display_name: 'New Name', description: 'About us', company_name: 'ACME', invite_id: before.invite_id, type: 'O', allow_open_invite: true });
    expect(res.body.update_at).toBeGreaterThan(before.update_at);
    const read = await member.api.get(`/api/v4/teams/${teamId}`).expect(200);
    // A plain member may invite (team_user's invite_user): the invite id, not the e-mail (Mattermost's SanitizeTeam).
    expect(read.body).toMatchObject({ display_name: 'New Name', description: 'About us', company_name: 'ACME', invite_id: before.invite_id, email: '' });
  });

  test('closing a team makes it invite-only with a new invite id; opening it makes it open and keeps the id', async () => {
    const teamId = await createTeam(owner, unique());
    const before = (await owner.api.get(`/api/v4/teams/${teamId}`).expect(200)).body;
    const closed = await owner.api.put(`/api/v4/teams/${teamId}/patch`, { allow_open_invite: false }).expect(200);
    expect(closed.body).toMatchObject({ type: 'I', allow_open_invite: false });
    expect(closed.body.invite_id).toMatch(/^[a-z0-9]{26}$/);
    expect(closed.body.invite_id).not.toBe(before.invite_id);
    // Invite-only now: someone outside it no longer sees it.
    expectAppError(await outsider.api.get(`/api/v4/teams/name/${before.name}`), 404, 'app.team.get.find.app_error');
    const opened = await owner.api.put(`/api/v4/teams/${teamId}/patch`, { allow_open_invite: true }).expect(200);
    expect(opened.body).toMatchObject({ type: 'O', allow_open_invite: true, invite_id: closed.body.invite_id });
    await outsider.api.get(`/api/v4/teams/name/${before.name}`).expect(200);
  });

  test('permissions and errors', async () => {
    const teamId = await createTeam(owner, unique(), [member]);
    expectAppError(await member.api.put(`/api/v4/teams/${teamId}/patch`, { display_name: 'Mine' }), 403, 'api.context.permissions.app_error');
    expectAppError(await outsider.api.put(`/api/v4/teams/${teamId}/patch`, { display_name: 'Mine' }), 403, 'api.context.permissions.app_error');
    await sysadmin.api.put(`/api/v4/teams/${teamId}/patch`, { display_name: 'By admin' }).expect(200);
    expectAppError(await owner.api.put('/api/v4/teams/aaaaaaaaaaaaaaaaaaaaaaaaaa/patch', { display_name: 'X' }), 404, 'app.team.get.find.app_error');
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/patch`, { display_name: '' }), 400, 'model.team.is_valid.name.app_error');
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/patch`, { display_name: 'x'.repeat(65) }), 400, 'model.team.is_valid.name.app_error');
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/patch`, { description: 'd'.repeat(256) }), 400, 'model.team.is_valid.description.app_error');
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/patch`, { company_name: 'c'.repeat(65) }), 400, 'model.team.is_valid.companyname.app_error');
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/patch`, { allowed_domains: 'a'.repeat(501) }), 400, 'model.team.is_valid.domains.app_error');
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/patch`, { group_constrained: true }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/patch`, { allow_open_invite: 'yes' }), 400, 'api.context.invalid_param.app_error');
    await owner.api.put(`/api/v4/teams/${teamId}/patch`, { display_name: 'd'.repeat(64), description: '😀'.repeat(255), company_name: 'c'.repeat(64), allowed_domains: 'a'.repeat(500) }).expect(200);
    expect((await owner.api.get(`/api/v4/teams/${teamId}`).expect(200)).body.description).toBe('😀'.repeat(255));
  });
});

describe('RemoveTeamMember', () => {
  test('leaving: out of the team and of all its channels (archived ones too), direct channels kept', async () => {
    const teamId = await createTeam(owner, unique(), [member]);
    const town = await channelId(owner, teamId, 'town-square');
    const priv = (await owner.api.post('/api/v4/channels', { team_id: teamId, name: unique('p'), display_name: 'P', type: 'P' }).expect(201)).body.id;
    await owner.api.post(`/api/v4/channels/${priv}/members`, { user_id: member.id }).expect(201);
    const gone = (await owner.api.post('/api/v4/channels', { team_id: teamId, name: unique('a'), display_name: 'A', type: 'O' }).expect(201)).body.id;
    await member.api.post(`/api/v4/channels/${gone}/members`, { user_id: member.id }).expect(201);
    await owner.api.delete(`/api/v4/channels/${gone}`).expect(200);
    const dm = (await member.api.post('/api/v4/channels/direct', [member.id, owner.id]).expect(201)).body.id;
    const otherTeam = await createTeam(owner, unique(), [member]);
    const otherTown = await channelId(owner, otherTeam, 'town-square');

    expect((await member.api.delete(`/api/v4/teams/${teamId}/members/me`).expect(200)).body).toEqual({ status: 'OK' });
    expect(await memberIds(owner, `/api/v4/teams/${teamId}/members`)).not.toContain(member.id);
    for (const c of [town, priv, gone]) expect(await memberIds(sysadmin, `/api/v4/channels/${c}/members`)).not.toContain(member.id);
    expect(await memberIds(member, `/api/v4/channels/${dm}/members`)).toContain(member.id);
    expect(await memberIds(member, `/api/v4/channels/${otherTown}/members`)).toContain(member.id);
    const teams = (await member.api.get('/api/v4/users/me/teams').expect(200)).body.map((t: { id: string }) => t.id);
    expect(teams).toContain(otherTeam);
    expect(teams).not.toContain(teamId);
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: town, message: 'still here?' }), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.get(`/api/v4/channels/${priv}`), 403, 'api.context.permissions.app_error');
    // Not a member any more.
    expectAppError(await member.api.delete(`/api/v4/teams/${teamId}/members/me`), 400, 'api.team.remove_user_from_team.missing.app_error');
  });

  test('joining again starts from scratch: a team admin who left comes back a plain member, in the default channels only', async () => {
    const admin2 = await createUser(server, sysadmin);
    const teamId = await createTeam(admin2, unique(), [member]);
    await admin2.api.delete(`/api/v4/teams/${teamId}/members/me`).expect(200);
    const back = await sysadmin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: admin2.id }).expect(201);
    expect(back.body).toMatchObject({ roles: 'team_user', scheme_admin: false, delete_at: 0 });
    expectAppError(await admin2.api.put(`/api/v4/teams/${teamId}/patch`, { display_name: 'Mine again' }), 403, 'api.context.permissions.app_error');
  });

  test('removing someone else takes remove_user_from_team (team admins); errors', async () => {
    const third = await createUser(server, sysadmin);
    const teamId = await createTeam(owner, unique(), [member, third]);
    expectAppError(await member.api.delete(`/api/v4/teams/${teamId}/members/${third.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await outsider.api.delete(`/api/v4/teams/${teamId}/members/${third.id}`), 403, 'api.context.permissions.app_error');
    await owner.api.delete(`/api/v4/teams/${teamId}/members/${third.id}`).expect(200);
    expect(await memberIds(owner, `/api/v4/teams/${teamId}/members`)).not.toContain(third.id);
    expectAppError(await owner.api.delete(`/api/v4/teams/${teamId}/members/${third.id}`), 400, 'api.team.remove_user_from_team.missing.app_error');
    expectAppError(await owner.api.delete(`/api/v4/teams/${teamId}/members/${outsider.id}`), 400, 'api.team.remove_user_from_team.missing.app_error');
    expectAppError(await owner.api.delete(`/api/v4/teams/${teamId}/members/aaaaaaaaaaaaaaaaaaaaaaaaaa`), 404, 'app.user.missing_account.const');
    expectAppError(await member.api.delete('/api/v4/teams/aaaaaaaaaaaaaaaaaaaaaaaaaa/members/me'), 404, 'app.team.get.find.app_error');
    await sysadmin.api.delete(`/api/v4/teams/${teamId}/members/${member.id}`).expect(200);
  });
});

describe('GetTeamStats', () => {
  test('counts current members; deactivated ones count in total only; removed ones not at all', async () => {
    const [a, b, c] = [await createUser(server, sysadmin), await createUser(server, sysadmin), await createUser(server, sysadmin)];
    const teamId = await createTeam(owner, unique(), [a, b, c]);
    expect((await a.api.get(`/api/v4/teams/${teamId}/stats`).expect(200)).body).toEqual({ team_id: teamId, total_member_count: 4, active_member_count: 4 });
    await sysadmin.api.put(`/api/v4/users/${b.id}/active`, { active: false }).expect(200);
    await c.api.delete(`/api/v4/teams/${teamId}/members/me`).expect(200);
    expect((await a.api.get(`/api/v4/teams/${teamId}/stats`).expect(200)).body).toEqual({ team_id: teamId, total_member_count: 3, active_member_count: 2 });
    expectAppError(await outsider.api.get(`/api/v4/teams/${teamId}/stats`), 403, 'api.context.permissions.app_error');
    expectAppError(await c.api.get(`/api/v4/teams/${teamId}/stats`), 403, 'api.context.permissions.app_error');
    await sysadmin.api.get(`/api/v4/teams/${teamId}/stats`).expect(200);
    expectAppError(await sysadmin.api.get('/api/v4/teams/aaaaaaaaaaaaaaaaaaaaaaaaaa/stats'), 404, 'app.team.get.find.app_error');
  });
});

describe('GetTeamUnread and GetTeamsUnreadForUser', () => {
  test('sums unread posts and mentions over the team channels; replies count in msg_count only; viewing clears', async () => {
    const poster = await createUser(server, sysadmin);
    const reader = await createUser(server, sysadmin);
    const teamId = await createTeam(owner, unique(), [poster, reader]);
    const town = await channelId(owner, teamId, 'town-square');
    const offTopic = await channelId(owner, teamId, 'off-topic');
    const zero = { team_id: teamId, msg_count: 0, mention_count: 0, mention_count_root: 0, msg_count_root: 0, thread_count: 0, thread_mention_count: 0, thread_urgent_mention_count: 0 };
    expect((await reader.api.get(`/api/v4/users/me/teams/${teamId}/unread`).expect(200)).body).toEqual(zero);
    const root = (await poster.api.post('/api/v4/posts', { channel_id: town, message: `hello @${reader.username}` }).expect(201)).body.id;
    await poster.api.post('/api/v4/posts', { channel_id: town, message: 'second' }).expect(201);
    await poster.api.post('/api/v4/posts', { channel_id: town, message: `a reply for @${reader.username}`, root_id: root }).expect(201);
    await poster.api.post('/api/v4/posts', { channel_id: offTopic, message: 'elsewhere' }).expect(201);
    const unread = await reader.api.get(`/api/v4/users/me/teams/${teamId}/unread`).expect(200);
    expect(unread.body).toEqual({ ...zero, msg_count: 4, msg_count_root: 3, mention_count: 2, mention_count_root: 1 });
    await reader.api.post('/api/v4/channels/members/me/view', { channel_id: town }).expect(200);
    expect((await reader.api.get(`/api/v4/users/me/teams/${teamId}/unread`).expect(200)).body).toEqual({ ...zero, msg_count: 1, msg_count_root: 1 });
  });

  test('a channel marked to count mentions only adds its mentions, not its messages; archived and direct channels do not count', async () => {
    const poster = await createUser(server, sysadmin);
    const reader = await createUser(server, sysadmin);
    const teamId = await createTeam(owner, unique(), [poster, reader]);
    const town = await channelId(owner, teamId, 'town-square');
    const muted = (await owner.api.post('/api/v4/channels', { team_id: teamId, name: unique('m'), display_name: 'M', type: 'O' }).expect(201)).body.id;
    const archived = (await owner.api.post('/api/v4/channels', { team_id: teamId, name: unique('x'), display_name: 'X', type: 'O' }).expect(201)).body.id;
    for (const c of [muted, archived]) {
      await reader.api.post(`/api/v4/channels/${c}/members`, { user_id: reader.id }).expect(201);
      await poster.api.post(`/api/v4/channels/${c}/members`, { user_id: poster.id }).expect(201);
    }
    // No operation sets a member's notify_props yet: written as Mattermost stores them.
    await server.parley.db.knex('channel_members').where({ channel_id: muted, user_id: reader.id }).update({ notify_props: JSON.stringify({ mark_unread: 'mention' }) });
    await poster.api.post('/api/v4/posts', { channel_id: muted, message: 'quiet' }).expect(201);
    await poster.api.post('/api/v4/posts', { channel_id: muted, message: `loud @${reader.username}` }).expect(201);
    await poster.api.post('/api/v4/posts', { channel_id: town, message: 'counted' }).expect(201);
    await poster.api.post('/api/v4/posts', { channel_id: archived, message: `gone @${reader.username}` }).expect(201);
    await owner.api.delete(`/api/v4/channels/${archived}`).expect(200);
    const dm = (await poster.api.post('/api/v4/channels/direct', [poster.id, reader.id]).expect(201)).body.id;
    await poster.api.post('/api/v4/posts', { channel_id: dm, message: 'direct' }).expect(201);
    const unread = await reader.api.get(`/api/v4/users/${reader.id}/teams/${teamId}/unread`).expect(200);
    expect(unread.body).toMatchObject({ msg_count: 1, msg_count_root: 1, mention_count: 1, mention_count_root: 1 });
    const all = await reader.api.get('/api/v4/users/me/teams/unread').expect(200);
    expect(all.body).toEqual([unread.body]);
  });

  test('every team the user has channels in, one entry each; exclude_team leaves one out; include_collapsed_threads accepted', async () => {
    const poster = await createUser(server, sysadmin);
    const reader = await createUser(server, sysadmin);
    const teamA = await createTeam(owner, unique(), [poster, reader]);
    const teamB = await createTeam(owner, unique(), [poster, reader]);
    await poster.api.post('/api/v4/posts', { channel_id: await channelId(owner, teamA, 'town-square'), message: 'a1' }).expect(201);
    await poster.api.post('/api/v4/posts', { channel_id: await channelId(owner, teamB, 'town-square'), message: 'b1' }).expect(201);
    await poster.api.post('/api/v4/posts', { channel_id: await channelId(owner, teamB, 'off-topic'), message: 'b2' }).expect(201);
    const all = (await reader.api.get('/api/v4/users/me/teams/unread?include_collapsed_threads=true').expect(200)).body as Array<{ team_id: string; msg_count: number }>;
    expect(all.map((t) => [t.team_id, t.msg_count]).sort()).toEqual([[teamA, 1], [teamB, 2]].sort());
    const without = (await reader.api.get(`/api/v4/users/me/teams/unread?exclude_team=${teamA}`).expect(200)).body;
    expect(without.map((t: { team_id: string }) => t.team_id)).toEqual([teamB]);
    expect((await outsider.api.get('/api/v4/users/me/teams/unread').expect(200)).body).toEqual([]);
  });

  test("another user's counts: 403 for a plain member; view_team needed for one team", async () => {
    const teamId = await createTeam(owner, unique(), [member]);
    expectAppError(await member.api.get(`/api/v4/users/${owner.id}/teams/${teamId}/unread`), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.get(`/api/v4/users/${owner.id}/teams/unread`), 403, 'api.context.permissions.app_error');
    expectAppError(await outsider.api.get(`/api/v4/users/me/teams/${teamId}/unread`), 403, 'api.context.permissions.app_error');
    await sysadmin.api.get(`/api/v4/users/${member.id}/teams/${teamId}/unread`).expect(200);
    await sysadmin.api.get(`/api/v4/users/${member.id}/teams/unread`).expect(200);
  });
});
