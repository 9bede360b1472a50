// The roles (GetRolesByNames, GetRoleByName, GetRole) and a user's memberships across all teams
// (GetTeamMembersForUser, GetChannelsForUser, GetChannelMembersWithTeamDataForUser): what the web app reads on every
// page load, through Client4, and the roles' permissions checked against what the server then allows.
import { haveIChannelPermission, haveISystemPermission, haveITeamPermission } from 'mattermost-redux/selectors/entities/roles';
import * as channelActions from 'mattermost-redux/actions/channels';
import * as userActions from 'mattermost-redux/actions/users';
import { PERMISSIONS, rolesGrant } from '../../src/app/permissions';
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { reduxClientFor } from '../support/redux';
import { PASSWORD, createChannel, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let teamA: string;
let teamB: string;
let left: string;

const ROLE_NAMES = ['channel_admin', 'channel_user', 'system_admin', 'system_user', 'system_user_access_token', 'team_admin', 'team_user'];
const byId = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
  teamA = await createTeam(admin, `rma${process.pid}`, [alice, bob]);
  teamB = await createTeam(alice, `rmb${process.pid}`, [bob]);
  left = await createTeam(admin, `rmleft${process.pid}`, [alice]);
  await alice.api.delete(`/api/v4/teams/${left}/members/${alice.id}`).expect(200);
});
afterAll(() => server.close());

describe('roles, through Client4', () => {
  test('getRolesByNames: every role Parley has, sorted by name, with the fields Mattermost sends; unknown names left out', async () => {
    const c = client4For(server, alice);
    const roles = await c.getRolesByNames([...ROLE_NAMES].reverse().concat(['system_guest', 'no_such_role', 'team_user']));
    expect(roles.map((r) => r.name)).toEqual(ROLE_NAMES);
    for (const role of roles) {
      expect(role).toEqual({
        id: expect.stringMatching(/^[a-z0-9]{26}$/),
        name: role.name,
        display_name: expect.stringMatching(/^authentication\.roles\.[a-z_]+\.name$/),
        description: expect.stringMatching(/^authentication\.roles\.[a-z_]+\.description$/),
        create_at: 0,
        update_at: 0,
        delete_at: 0,
        permissions: expect.arrayContaining([]),
        scheme_managed: role.name !== 'system_user_access_token',
        built_in: true,
      });
      expect(new Set(role.permissions).size).toBe(role.permissions.length);
      // The same role by id and by name.
      expect(await c.getRole(role.id)).toEqual(role);
      expect(await c.getRoleByName(role.name)).toEqual(role);
    }
    expect(new Set(roles.map((r) => r.id)).size).toBe(ROLE_NAMES.length);
  });

  test("each role lists exactly the permissions Parley's checks grant with it, plus the names the apps use for them", async () => {
    const roles = await client4For(server, alice).getRolesByNames(ROLE_NAMES);
    for (const role of roles) {
      for (const permission of PERMISSIONS) {
        expect({ role: role.name, permission, listed: role.permissions.includes(permission) }).toEqual({ role: role.name, permission, listed: rolesGrant(role.name, permission) });
      }
    }
    const perms = Object.fromEntries(roles.map((r) => [r.name, new Set(r.permissions)]));
    // What every logged-in user may do here without a check of that name; reading posts is read_channel here.
    for (const p of ['list_public_teams', 'join_public_teams', 'view_members', 'create_team', 'create_direct_channel']) expect(perms.system_user.has(p)).toBe(true);
    expect(perms.channel_user.has('read_channel_content')).toBe(true);
    // What Parley does not serve is not offered.
    for (const p of ['create_group_channel', 'manage_system', 'create_custom_group', 'get_public_link', 'manage_slash_commands']) expect(perms.system_user.has(p) || perms.channel_user.has(p)).toBe(false);
    // The system admin holds everything every other role lists.
    for (const role of roles) for (const p of role.permissions) expect(perms.system_admin.has(p)).toBe(true);
  });

  test('names are de-duplicated before the limit of 100 is counted; blank names and nulls are dropped', async () => {
    const c = client4For(server, alice);
    expect((await c.getRolesByNames(Array.from({ length: 150 }, () => 'team_user'))).map((r) => r.name)).toEqual(['team_user']);
    expect((await alice.api.post('/api/v4/roles/names', ['', '  ', null, 'channel_user']).expect(200)).body.map((r: { name: string }) => r.name)).toEqual(['channel_user']);
    expect((await alice.api.post('/api/v4/roles/names', ['', null]).expect(200)).body).toEqual([]);
    // Own names only: an object's inherited keys are no roles.
    expect((await alice.api.post('/api/v4/roles/names', ['constructor', 'tostring', '__proto__']).expect(200)).body).toEqual([]);
  });

  test.each<[string, unknown, string]>([
    ['an empty list', [], 'api.context.invalid_param.app_error'],
    ['101 different names', Array.from({ length: 101 }, (_, i) => `role_${i}`), 'api.roles.get_multiple_by_name_too_many.request_error'],
    ['a name with capitals', ['System_User'], 'api.context.invalid_param.app_error'],
    ['a name with a space around it', [' system_user '], 'api.context.invalid_param.app_error'],
    ['a name of 65 characters', ['a'.repeat(65)], 'api.context.invalid_param.app_error'],
    ['an object instead of a list', { names: ['system_user'] }, 'api.context.invalid_param.app_error'],
    ['a list of numbers', [1, 2], 'api.context.invalid_param.app_error'],
  ])('GetRolesByNames refuses %s with a 400', async (_name, body, id) => {
    expectAppError(await alice.api.post('/api/v4/roles/names', body), 400, id);
  });

  test('a missing role is 404 by name and by id; a malformed name or id is 400', async () => {
    const c = client4For(server, alice);
    await expectClientError(c.getRoleByName('no_such_role'), 404, 'app.role.get_by_name.app_error');
    await expectClientError(c.getRoleByName('constructor'), 404, 'app.role.get_by_name.app_error');
    await expectClientError(c.getRole('abcdefghijklmnopqrstuvwxyz'), 404, 'app.role.get.app_error');
    expectAppError(await alice.api.get(`/api/v4/roles/name/${'a'.repeat(65)}`), 400, 'api.context.invalid_param.app_error');
    expectAppError(await alice.api.get('/api/v4/roles/short'), 400, 'api.context.invalid_param.app_error');
  });
});

describe('GetTeamMembersForUser', () => {
  test("getMyTeamMembers: the user's memberships in every team, the left one with its delete_at, team admin where they are", async () => {
    const members = await client4For(server, alice).getMyTeamMembers();
    expect([...members].sort((a, b) => (a.team_id < b.team_id ? -1 : 1))).toEqual(
      [
        { team_id: teamA, roles: 'team_user', delete_at: 0, scheme_admin: false },
        { team_id: teamB, roles: 'team_user team_admin', delete_at: 0, scheme_admin: true },
        // Left: the row stays with its delete_at (its explicit roles cleared, the scheme's user flag kept, as in Mattermost).
        { team_id: left, roles: 'team_user', delete_at: expect.any(Number), scheme_admin: false },
      ]
        .sort((a, b) => (a.team_id < b.team_id ? -1 : 1))
        .map((m) => ({ ...m, user_id: alice.id, scheme_guest: false, scheme_user: true, explicit_roles: '' })),
    );
    expect(members.find((m) => m.team_id === left)?.delete_at).toBeGreaterThan(0);
    expect(members.map((m) => m.team_id)).toEqual([...members.map((m) => m.team_id)].sort());
  });

  test("another user's: system admins only (read_other_users_teams); a user in no team has none", async () => {
    expect((await client4For(server, admin).getTeamMembersForUser(alice.id)).map((m) => m.team_id).sort()).toEqual([teamA, teamB, left].sort());
    const res = await bob.api.get(`/api/v4/users/${alice.id}/teams/members`);
    expectAppError(res, 403, 'api.context.permissions.app_error');
    expect(res.body.detailed_error).toBe('permission=read_other_users_teams');
    const loner = await createUser(server, admin);
    expect(await client4For(server, loner).getMyTeamMembers()).toEqual([]);
  });
});

describe('GetChannelsForUser and GetChannelMembersWithTeamDataForUser', () => {
  let privateB: string;
  let archived: string;
  let dmId: string;
  let archivedAt: number;

  beforeAll(async () => {
    privateB = await createChannel(alice, teamB, 'P', [], 'rmpriv');
    archived = await createChannel(admin, teamA, 'O', [alice], 'rmarch');
    await admin.api.delete(`/api/v4/channels/${archived}`).expect(200);
    archivedAt = (await admin.api.get(`/api/v4/channels/${archived}`).expect(200)).body.delete_at;
    dmId = (await alice.api.post('/api/v4/channels/direct', [alice.id, bob.id]).expect(201)).body.id;
  });

  /** Alice's channels as the server knows them, by membership: town-square and off-topic of A and B, and the rest. */
  async function aliceChannelIds(includeArchived: boolean): Promise<string[]> {
    const ids: string[] = [];
    for (const team of [teamA, teamB]) {
      for (const name of ['town-square', 'off-topic']) ids.push((await alice.api.get(`/api/v4/teams/${team}/channels/name/${name}`).expect(200)).body.id);
    }
    ids.push(privateB, dmId);
    if (includeArchived) ids.push(archived);
    return ids.sort();
  }

  test('getAllTeamsChannels (/users/me/channels): every channel in every team with the direct channel, by id, archived ones left out', async () => {
    const channels = await client4For(server, alice).getAllTeamsChannels();
    expect(channels.map((c) => c.id)).toEqual(await aliceChannelIds(false));
    expect(channels.find((c) => c.id === dmId)).toMatchObject({ type: 'D', team_id: '' });
    expect(channels.find((c) => c.id === privateB)).toMatchObject({ type: 'P', team_id: teamB });
  });

  test('include_deleted adds the archived ones; last_delete_at keeps those archived since then', async () => {
    const all = (await alice.api.get('/api/v4/users/me/channels?include_deleted=true').expect(200)).body.map((c: { id: string }) => c.id);
    expect(all).toEqual(await aliceChannelIds(true));
    const since = (await alice.api.get(`/api/v4/users/me/channels?include_deleted=true&last_delete_at=${archivedAt}`).expect(200)).body;
    expect(since.map((c: { id: string }) => c.id)).toContain(archived);
    const later = (await alice.api.get(`/api/v4/users/me/channels?include_deleted=true&last_delete_at=${archivedAt + 1}`).expect(200)).body;
    expect(later.map((c: { id: string }) => c.id)).toEqual(await aliceChannelIds(false));
    expectAppError(await alice.api.get('/api/v4/users/me/channels?last_delete_at=-1'), 400, 'api.context.invalid_param.app_error');
  });

  test("another user's channels: edit_other_users (admins); a user in no channel gets an empty list", async () => {
    expect((await admin.api.get(`/api/v4/users/${alice.id}/channels`).expect(200)).body.map((c: { id: string }) => c.id)).toEqual(await aliceChannelIds(false));
    expectAppError(await bob.api.get(`/api/v4/users/${alice.id}/channels`), 403, 'api.context.permissions.app_error');
    const loner = await createUser(server, admin);
    expect(await client4For(server, loner).getAllTeamsChannels()).toEqual([]);
  });

  test('getAllChannelsMembers with page -1 (as fetchAllMyChannelMembers calls it): every membership with its team, by channel id', async () => {
    const members = await client4For(server, alice).getAllChannelsMembers(alice.id, -1, 60);
    expect(members.map((m) => m.channel_id)).toEqual(await aliceChannelIds(true));
    const teamName = (id: string) => (id === teamA ? `rma${process.pid}` : `rmb${process.pid}`);
    for (const m of members as Array<Record<string, any>>) {
      expect(m.user_id).toBe(alice.id);
      expect(m.last_viewed_at).toBeGreaterThanOrEqual(0);
      if (m.channel_id === dmId) {
        expect(m).toMatchObject({ team_display_name: '', team_name: '', team_update_at: 0 });
      } else {
        const channel = (await alice.api.get(`/api/v4/channels/${m.channel_id}`).expect(200)).body;
        const team = (await alice.api.get(`/api/v4/teams/${channel.team_id}`).expect(200)).body;
        expect(m).toMatchObject({ team_display_name: team.display_name, team_name: teamName(channel.team_id), team_update_at: team.update_at });
      }
    }
    expect(members.find((m) => m.channel_id === privateB)?.roles).toBe('channel_user channel_admin');
  });

  test('pages of per_page cover the same memberships in the same order; page -2 is a 400', async () => {
    const all = (await alice.api.get('/api/v4/users/me/channel_members?page=-1').expect(200)).body;
    const paged: unknown[] = [];
    for (let page = 0; page < 5; page++) paged.push(...(await alice.api.get(`/api/v4/users/me/channel_members?page=${page}&per_page=2`).expect(200)).body);
    expect(paged).toEqual(all);
    expect((await alice.api.get('/api/v4/users/me/channel_members?per_page=0').expect(200)).body).toEqual([]);
    expect((await alice.api.get('/api/v4/users/me/channel_members').expect(200)).body).toEqual(all);
    expectAppError(await alice.api.get('/api/v4/users/me/channel_members?page=-2'), 400, 'api.context.invalid_param.app_error');
  });

  test("another user's memberships: admins get them with the read state blanked; others 403", async () => {
    const seen = (await admin.api.get(`/api/v4/users/${alice.id}/channel_members?page=-1`).expect(200)).body;
    expect(byId(seen.map((m: { channel_id: string }) => ({ id: m.channel_id }))).map((m) => m.id)).toEqual(await aliceChannelIds(true));
    for (const m of seen) expect(m).toMatchObject({ user_id: alice.id, last_viewed_at: -1, msg_count: -1, mention_count: -1, notify_props: {} });
    expectAppError(await bob.api.get(`/api/v4/users/${alice.id}/channel_members?page=-1`), 403, 'api.context.permissions.app_error');
  });
});

describe("mattermost-redux's permission selectors on Parley's roles agree with what the server allows", () => {
  test('a plain member of team A who is team admin of their own team C and channel admin of their own private channel', async () => {
    const carol = await createUser(server, admin);
    const teamC = await createTeam(carol, `rmc${process.pid}`);
    await admin.api.post(`/api/v4/teams/${teamA}/members`, { team_id: teamA, user_id: carol.id }).expect(201);
    const own = await createChannel(carol, teamA, 'P', [], 'rmown');
    const town = (await admin.api.get(`/api/v4/teams/${teamA}/channels/name/town-square`).expect(200)).body.id;
    const web = await reduxClientFor(server, carol.username, PASSWORD);
    try {
      await web.dispatch(userActions.loadMe());
      await web.dispatch(channelActions.fetchAllMyChannelMembers());
      // loadRolesIfNeeded runs after its callers return: wait until every role the member holds is in the store.
      for (let i = 0; i < 200 && Object.keys(web.state().entities.roles.roles).length < 5; i++) await new Promise((r) => setTimeout(r, 10));
      const s = web.state();
      expect(Object.keys(s.entities.roles.roles).sort()).toEqual(['channel_admin', 'channel_user', 'system_user', 'team_admin', 'team_user']);

      const cases: Array<[boolean, () => Promise<number>]> = [
        [haveISystemPermission(s, { permission: 'create_team' }), async () => (await carol.api.post('/api/v4/teams', { name: `rmd${process.pid}`, display_name: 'D', type: 'O' })).status],
        [haveISystemPermission(s, { permission: 'manage_system' }), async () => (await carol.api.get('/api/v4/config')).status],
        [haveITeamPermission(s, teamC, 'manage_team'), async () => (await carol.api.put(`/api/v4/teams/${teamC}/patch`, { display_name: 'C2' })).status],
        [haveITeamPermission(s, teamA, 'manage_team'), async () => (await carol.api.put(`/api/v4/teams/${teamA}/patch`, { display_name: 'A2' })).status],
        [haveIChannelPermission(s, teamA, town, 'create_post'), async () => (await carol.api.post('/api/v4/posts', { channel_id: town, message: 'hi' })).status],
        [haveIChannelPermission(s, teamA, own, 'manage_private_channel_properties'), async () => (await carol.api.put(`/api/v4/channels/${own}/patch`, { purpose: 'mine' })).status],
        [haveIChannelPermission(s, teamA, town, 'manage_channel_roles'), async () => (await carol.api.put(`/api/v4/channels/${town}/members/${alice.id}/roles`, { roles: 'channel_user channel_admin' })).status],
      ];
      const expected = [true, false, true, false, true, true, false];
      expect(cases.map(([allowed]) => allowed)).toEqual(expected);
      for (const [allowed, act] of cases) {
        const status = await act();
        expect({ allowed, status: status < 300 ? 'ok' : status }).toEqual({ allowed, status: allowed ? 'ok' : 403 });
      }
      expect(web.failures()).toEqual([]);
    } finally {
      web.close();
    }
  });
});
