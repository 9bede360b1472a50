// Team invite links (#25): GetTeamInviteInfo, sign-up with CreateUser's `iid`, AddTeamMemberFromInvite and
// RegenerateTeamInviteId over real HTTP, through Client4's own methods, with who sees a team's invite id.
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { PASSWORD, createUser, login, startTestServer, type Actor, type TestServer } from '../support/server';
import { connect } from '../support/ws';

let server: TestServer;
let admin: Actor;
let owner: Actor;
let member: Actor;
let outsider: Actor;
let seq = 0;
const unique = (p: string) => `${p}${process.pid}i${++seq}`;
const newcomer = (p = 'new') => {
  const username = unique(p);
  return { username, email: `${username}@example.com`, password: PASSWORD };
};

/** An invite-only team of `owner`'s (its creator: team admin) with `member` in it. */
async function inviteOnlyTeam(members: Actor[] = [member]): Promise<{ id: string; name: string; invite_id: string }> {
  const team = (await owner.api.post('/api/v4/teams', { name: unique('inv'), display_name: 'Invite Only', description: 'By link', type: 'I' }).expect(201)).body;
  for (const m of members) await owner.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: m.id }).expect(201);
  return team;
}

const memberIds = async (teamId: string) => ((await admin.api.get(`/api/v4/teams/${teamId}/members?per_page=200`).expect(200)).body as Array<{ user_id: string }>).map((m) => m.user_id);

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  owner = await createUser(server, admin);
  member = await createUser(server, admin);
  outsider = await createUser(server, admin);
});
afterAll(() => server.close());

describe('GetTeamInviteInfo', () => {
  test('anyone holding the link, without a session, gets the team it leads to (an invite-only one too)', async () => {
    const team = await inviteOnlyTeam();
    const info = await client4For(server).getTeamInviteInfo(team.invite_id);
    expect(info).toEqual({ id: team.id, name: team.name, display_name: 'Invite Only', description: 'By link' });
  });

  test('an unknown invite id is 404; one that is not an id at all is 400', async () => {
    expectAppError(await server.http().get(`/api/v4/teams/invite/${'z'.repeat(26)}`), 404, 'app.team.get_by_invite_id.finding.app_error');
    expectAppError(await server.http().get('/api/v4/teams/invite/not-an-id!'), 400);
  });
});

describe('sign-up through a team invite (CreateUser with iid)', () => {
  test('creates the account on a closed server and joins it to the team and its default channels', async () => {
    const team = await inviteOnlyTeam();
    const anonymous = client4For(server);
    // The server is closed (EnableOpenServer off): without the invite, sign-up is refused.
    await expectClientError(anonymous.createUser(newcomer() as never, '', ''), 403, 'api.user.create_user.no_open_server');
    const fields = newcomer();
    const user = await anonymous.createUser({ ...fields, first_name: 'Ina' } as never, '', team.invite_id);
    expect(user).toMatchObject({ username: fields.username, roles: 'system_user', first_name: 'Ina' });
    expect(await memberIds(team.id)).toContain(user.id);
    const invited = await login(server, user.id, fields.username);
    const teams = await client4For(server, invited).getMyTeams();
    expect(teams.map((t) => t.id)).toEqual([team.id]);
    const town = (await invited.api.get(`/api/v4/teams/${team.id}/channels/name/town-square`).expect(200)).body;
    await invited.api.get(`/api/v4/channels/${town.id}/members/me`).expect(200);
    const offTopic = (await invited.api.get(`/api/v4/teams/${team.id}/channels/name/off-topic`).expect(200)).body;
    await invited.api.get(`/api/v4/channels/${offTopic.id}/members/me`).expect(200);
    // A plain member of the team: no admin flag.
    const mine = await client4For(server, invited).getMyTeamMembers();
    expect(mine).toEqual([expect.objectContaining({ team_id: team.id, roles: 'team_user', scheme_user: true, scheme_admin: false })]);
  });

  test('an unknown or regenerated invite id is 404 and creates nothing', async () => {
    const team = await inviteOnlyTeam();
    const old = team.invite_id;
    const fresh = await client4For(server, owner).regenerateTeamInviteId(team.id);
    expect(fresh.invite_id).toMatch(/^[a-z0-9]{26}$/);
    expect(fresh.invite_id).not.toBe(old);
    const fields = newcomer();
    await expectClientError(client4For(server).createUser(fields as never, '', old), 404, 'app.team.get_by_invite_id.finding.app_error');
    expectAppError(await admin.api.get(`/api/v4/users/username/${fields.username}`), 404);
    // The new link works.
    const user = await client4For(server).createUser(fields as never, '', fresh.invite_id);
    expect(await memberIds(team.id)).toContain(user.id);
  });

  test("an e-mail outside the team's allowed domains is 403 and creates nothing", async () => {
    const team = await inviteOnlyTeam();
    await owner.api.put(`/api/v4/teams/${team.id}/patch`, { allowed_domains: 'corp.example' }).expect(200);
    const fields = newcomer();
    await expectClientError(client4For(server).createUser(fields as never, '', team.invite_id), 403, 'api.team.invite_members.invalid_email.app_error');
    expectAppError(await admin.api.get(`/api/v4/users/username/${fields.username}`), 404);
    const inDomain = { ...newcomer(), email: `${unique('d')}@corp.example` };
    await client4For(server).createUser(inDomain as never, '', team.invite_id);
  });

  test('a sign-up the account checks refuse leaves the team as it was', async () => {
    const team = await inviteOnlyTeam();
    const before = await memberIds(team.id);
    await expectClientError(client4For(server).createUser({ ...newcomer(), username: 'Not A Name!' } as never, '', team.invite_id), 400, 'model.user.is_valid.username.app_error');
    expect(await memberIds(team.id)).toEqual(before);
  });

  test('EnableUserCreation off refuses invited sign-ups too (501), an admin sending one included', async () => {
    const team = await inviteOnlyTeam();
    await admin.api.put('/api/v4/config/patch', { TeamSettings: { EnableUserCreation: false } }).expect(200);
    try {
      await expectClientError(client4For(server).createUser(newcomer() as never, '', team.invite_id), 501, 'api.user.create_user.signup_email_disabled.app_error');
      await expectClientError(client4For(server, admin).createUser(newcomer() as never, '', team.invite_id), 501, 'api.user.create_user.signup_email_disabled.app_error');
    } finally {
      await admin.api.put('/api/v4/config/patch', { TeamSettings: { EnableUserCreation: true } }).expect(200);
    }
  });

  test("an e-mail invitation's token (t) is never valid here: 404", async () => {
    await expectClientError(client4For(server).createUser(newcomer() as never, 'sometoken', ''), 404, 'api.user.create_user.signup_link_invalid.app_error');
  });
});

describe('AddTeamMemberFromInvite', () => {
  test('an existing user joins an invite-only team by its link: membership, default channels, added_to_team', async () => {
    const team = await inviteOnlyTeam();
    const joiner = await createUser(server, admin);
    const socket = await connect(server.url, { token: joiner.token });
    try {
      const m = await client4For(server, joiner).addToTeamFromInvite('', team.invite_id);
      expect(m).toMatchObject({ team_id: team.id, user_id: joiner.id, roles: 'team_user', delete_at: 0, scheme_admin: false });
      const added = await socket.next((f) => f.event === 'added_to_team');
      expect(added.data).toEqual({ team_id: team.id, user_id: joiner.id });
      const town = (await joiner.api.get(`/api/v4/teams/${team.id}/channels/name/town-square`).expect(200)).body;
      await joiner.api.get(`/api/v4/channels/${town.id}/members/me`).expect(200);
      // Again: the membership as it is, still 201 (Mattermost's status).
      const again = await client4For(server, joiner).addToTeamFromInvite('', team.invite_id);
      expect(again).toMatchObject({ team_id: team.id, user_id: joiner.id, delete_at: 0 });
      expect(socket.problems).toEqual([]);
    } finally {
      await socket.close();
    }
  });

  test('a user who left comes back through the link as a plain member', async () => {
    const team = await inviteOnlyTeam();
    const joiner = await createUser(server, admin);
    await client4For(server, joiner).addToTeamFromInvite('', team.invite_id);
    await joiner.api.delete(`/api/v4/teams/${team.id}/members/${joiner.id}`).expect(200);
    const back = await client4For(server, joiner).addToTeamFromInvite('', team.invite_id);
    expect(back).toMatchObject({ team_id: team.id, user_id: joiner.id, delete_at: 0, roles: 'team_user' });
  });

  test('unknown or regenerated link 404; a token 400; neither 400; no session 401', async () => {
    const team = await inviteOnlyTeam();
    const c = client4For(server, outsider);
    await expectClientError(c.addToTeamFromInvite('', 'z'.repeat(26)), 404, 'app.team.get_by_invite_id.finding.app_error');
    const old = team.invite_id;
    await client4For(server, owner).regenerateTeamInviteId(team.id);
    await expectClientError(c.addToTeamFromInvite('', old), 404, 'app.team.get_by_invite_id.finding.app_error');
    await expectClientError(c.addToTeamFromInvite('sometoken', ''), 400, 'api.user.create_user.signup_link_invalid.app_error');
    await expectClientError(c.addToTeamFromInvite('', ''), 400, 'api.team.add_user_to_team.missing_parameter.app_error');
    expect(await memberIds(team.id)).not.toContain(outsider.id);
    expectAppError(await server.http().post(`/api/v4/teams/members/invite?invite_id=${old}`), 401);
  });

  test("the team's allowed domains apply: 400 as AddTeamMember", async () => {
    const team = await inviteOnlyTeam();
    await owner.api.put(`/api/v4/teams/${team.id}/patch`, { allowed_domains: 'corp.example' }).expect(200);
    await expectClientError(client4For(server, outsider).addToTeamFromInvite('', team.invite_id), 400, 'api.team.join_user_to_team.allowed_domains.app_error');
  });
});

describe('RegenerateTeamInviteId and who sees the invite id', () => {
  test('a team admin regenerates; a plain member cannot (403); the members hear update_team without the id', async () => {
    const team = await inviteOnlyTeam();
    await expectClientError(client4For(server, member).regenerateTeamInviteId(team.id), 403, 'api.context.permissions.app_error');
    const socket = await connect(server.url, { token: member.token });
    try {
      const fresh = await client4For(server, owner).regenerateTeamInviteId(team.id);
      expect(fresh).toMatchObject({ id: team.id, name: team.name });
      expect(fresh.invite_id).not.toBe(team.invite_id);
      const event = await socket.next((f) => f.event === 'update_team' && JSON.parse(f.data?.team as string).id === team.id);
      expect(JSON.parse(event.data?.team as string)).toMatchObject({ id: team.id, invite_id: '', email: '' });
      expect(socket.problems).toEqual([]);
    } finally {
      await socket.close();
    }
  });

  test("a member sees the invite id (they may invite), not the team's e-mail; a non-member of an open team sees neither", async () => {
    const team = await inviteOnlyTeam();
    const asMember = (await member.api.get(`/api/v4/teams/${team.id}`).expect(200)).body;
    expect(asMember).toMatchObject({ invite_id: team.invite_id, email: '' });
    const mine = await client4For(server, member).getMyTeams();
    expect(mine.find((t) => t.id === team.id)?.invite_id).toBe(team.invite_id);
    const open = (await owner.api.post('/api/v4/teams', { name: unique('open'), display_name: 'Open', type: 'O' }).expect(201)).body;
    const asStranger = (await outsider.api.get(`/api/v4/teams/${open.id}`).expect(200)).body;
    expect(asStranger).toMatchObject({ invite_id: '', email: '' });
  });

  test('an unknown team is 404 for a system admin; 403 for others', async () => {
    expectAppError(await admin.api.post(`/api/v4/teams/${'z'.repeat(26)}/regenerate_invite_id`), 404, 'app.team.get.find.app_error');
    expectAppError(await outsider.api.post(`/api/v4/teams/${'z'.repeat(26)}/regenerate_invite_id`), 403);
  });
});
