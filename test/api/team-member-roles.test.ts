// UpdateTeamMemberRoles (#25): a team can have admins who are not system admins. Through Client4's
// updateTeamMemberRoles; the new team admin's permissions then apply to the team's operations, and go with a demotion.
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { connect } from '../support/ws';

let server: TestServer;
let admin: Actor;
let owner: Actor;
let bob: Actor;
let carol: Actor;
let dave: Actor;
let teamId: string;
let seq = 0;
const unique = (p: string) => `${p}${process.pid}r${++seq}`;
/** Client4's typings say string[]; it sends what it is given, and the server (Mattermost's too) reads a string. */
const roles = (r: string) => r as unknown as string[];

const memberOf = async (userId: string) =>
  ((await admin.api.get(`/api/v4/teams/${teamId}/members?per_page=200`).expect(200)).body as Array<Record<string, unknown>>).find((m) => m.user_id === userId);

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  owner = await createUser(server, admin);
  bob = await createUser(server, admin);
  carol = await createUser(server, admin);
  dave = await createUser(server, admin);
  // Created by a plain user: its creator is its team admin, nobody here but `admin` is a system admin.
  teamId = (await owner.api.post('/api/v4/teams', { name: unique('roles'), display_name: 'Roles', type: 'O' }).expect(201)).body.id;
  for (const u of [bob, carol, dave]) await owner.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: u.id }).expect(201);
});
afterAll(() => server.close());

describe('UpdateTeamMemberRoles', () => {
  test('a team admin makes a member a team admin: scheme_admin set, memberrole_updated to that member only', async () => {
    const bobSocket = await connect(server.url, { token: bob.token });
    const carolSocket = await connect(server.url, { token: carol.token });
    try {
      expect(await client4For(server, owner).updateTeamMemberRoles(teamId, bob.id, roles('team_user team_admin'))).toEqual({ status: 'OK' });
      expect(await memberOf(bob.id)).toMatchObject({ roles: 'team_user team_admin', scheme_user: true, scheme_admin: true, explicit_roles: '' });
      const event = await bobSocket.next((f) => f.event === 'memberrole_updated');
      expect(JSON.parse(event.data?.member as string)).toMatchObject({ team_id: teamId, user_id: bob.id, roles: 'team_user team_admin', scheme_admin: true });
      expect(event.broadcast).toMatchObject({ user_id: bob.id });
      await carolSocket.none((f) => f.event === 'memberrole_updated', 200);
      expect(bobSocket.problems).toEqual([]);
    } finally {
      await bobSocket.close();
      await carolSocket.close();
    }
  });

  test("the new team admin's permissions apply (not a system admin); a demotion takes them away", async () => {
    await owner.api.put(`/api/v4/teams/${teamId}/members/${bob.id}/roles`, { roles: 'team_user team_admin' }).expect(200);
    const asBob = client4For(server, bob);
    // Team admin permissions: manage_team, manage_team_roles, remove_user_from_team.
    await asBob.patchTeam({ id: teamId, description: 'by bob' } as never);
    await asBob.regenerateTeamInviteId(teamId);
    await asBob.updateTeamMemberRoles(teamId, carol.id, roles('team_user'));
    await bob.api.delete(`/api/v4/teams/${teamId}/members/${dave.id}`).expect(200);
    await owner.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: dave.id }).expect(201);
    // A plain member has none of them.
    const asCarol = client4For(server, carol);
    await expectClientError(asCarol.patchTeam({ id: teamId, description: 'by carol' } as never), 403, 'api.context.permissions.app_error');
    await expectClientError(asCarol.updateTeamMemberRoles(teamId, dave.id, roles('team_user team_admin')), 403, 'api.context.permissions.app_error');
    await expectClientError(asCarol.regenerateTeamInviteId(teamId), 403);
    // Demoted: bob is back to a plain member.
    await client4For(server, owner).updateTeamMemberRoles(teamId, bob.id, roles('team_user'));
    expect(await memberOf(bob.id)).toMatchObject({ roles: 'team_user', scheme_admin: false });
    await expectClientError(asBob.patchTeam({ id: teamId, description: 'again' } as never), 403, 'api.context.permissions.app_error');
  });

  test("a system admin may set anyone's team roles without being on the team", async () => {
    await client4For(server, admin).updateTeamMemberRoles(teamId, carol.id, roles('team_user team_admin'));
    expect(await memberOf(carol.id)).toMatchObject({ scheme_admin: true });
    await client4For(server, admin).updateTeamMemberRoles(teamId, carol.id, roles('team_user'));
    expect(await memberOf(carol.id)).toMatchObject({ scheme_admin: false });
  });

  test.each([
    ['not a role name', 'team_user Team-Admin', 400, 'api.context.invalid_param.app_error'],
    ['system_admin alone', 'system_admin', 400, 'api.context.invalid_param.app_error'],
    ['a role Parley does not have', 'team_user team_post_all', 400, 'app.role.get_by_name.app_error'],
    ['a role of another scope', 'team_user channel_admin', 400, 'api.channel.update_team_member_roles.scheme_role.app_error'],
    ['a system role', 'system_user team_user', 400, 'api.channel.update_team_member_roles.scheme_role.app_error'],
    ['the guest role', 'team_guest', 400, 'api.channel.update_team_member_roles.changing_guest_role.app_error'],
  ])('%s (%s): %i %s, nothing changes', async (_what, roles, status, id) => {
    const before = await memberOf(dave.id);
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/members/${dave.id}/roles`, { roles }), status, id);
    expect(await memberOf(dave.id)).toEqual(before);
  });

  test('a user who is not on the team is 404; a body without roles is 400; no session 401', async () => {
    const stranger = await createUser(server, admin);
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/members/${stranger.id}/roles`, { roles: 'team_user' }), 404, 'app.team.get_member.missing.app_error');
    expectAppError(await owner.api.put(`/api/v4/teams/${teamId}/members/${dave.id}/roles`, {}), 400);
    expectAppError(await server.http().put(`/api/v4/teams/${teamId}/members/${dave.id}/roles`, { roles: 'team_user' }), 401);
  });
});
