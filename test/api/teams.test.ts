import { expectAppError } from '../support/assertions';
import { createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let alice: Actor;
let bob: Actor;
let carol: Actor;
let seq = 0;

const uniqueName = (prefix = 'team') => `${prefix}${process.pid}x${++seq}`;

async function createTeam(owner: Actor, type: 'O' | 'I' = 'O', name = uniqueName()) {
  const res = await owner.api.post('/api/v4/teams', { name, display_name: `Team ${name}`, type }).expect(201);
  return res.body as { id: string; name: string; type: string; allow_open_invite: boolean; invite_id: string; email: string };
}

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  alice = await createUser(server, sysadmin);
  bob = await createUser(server, sysadmin);
  carol = await createUser(server, sysadmin);
});
afterAll(() => server.close());

describe('CreateTeam', () => {
  test('creates an open team whose creator is team admin and sits in town-square and off-topic', async () => {
    const name = uniqueName();
    const res = await alice.api.post('/api/v4/teams', { name, display_name: 'Alpha', type: 'O' }).expect(201);
    expect(res.body).toMatchObject({ name, display_name: 'Alpha', type: 'O', allow_open_invite: true, delete_at: 0 });
    expect(res.body.id).toMatch(/^[a-z0-9]{26}$/);
    // The creator manages the team, so the invite id is not blanked for them.
    expect(res.body.invite_id).not.toBe('');
    const teamId = res.body.id;

    const members = await alice.api.get(`/api/v4/teams/${teamId}/members`).expect(200);
    expect(members.body).toHaveLength(1);
    expect(members.body[0]).toMatchObject({
      team_id: teamId,
      user_id: alice.id,
      roles: 'team_user team_admin',
      scheme_user: true,
      scheme_admin: true,
      delete_at: 0,
    });

    for (const channelName of ['town-square', 'off-topic']) {
      const channel = await alice.api.get(`/api/v4/teams/${teamId}/channels/name/${channelName}`).expect(200);
      expect(channel.body).toMatchObject({ name: channelName, type: 'O', team_id: teamId });
      const me = await alice.api.get(`/api/v4/channels/${channel.body.id}/members/me`).expect(200);
      expect(me.body.user_id).toBe(alice.id);
    }
    const mine = await alice.api.get(`/api/v4/users/me/teams/${teamId}/channels`).expect(200);
    expect(mine.body.map((c: { name: string }) => c.name).sort()).toEqual(['off-topic', 'town-square']);
  });

  test('an invite-only team is not open', async () => {
    const team = await createTeam(alice, 'I');
    expect(team).toMatchObject({ type: 'I', allow_open_invite: false });
  });

  test.each([
    ['a reserved prefix', 'api-x', 'reserved'],
    ['another reserved prefix', 'admins', 'reserved'],
    ['a single character', 'a', 'url'],
    ['upper case', 'MyTeam', 'characters'],
    ['an underscore', 'my_team', 'characters'],
    ['a leading dash', '-team', 'characters'],
    ['a trailing dash', 'team-', 'characters'],
    ['more than 64 characters', 'a'.repeat(65), 'url'],
  ])('rejects a name with %s (%s)', async (_why, name, reason) => {
    const res = await alice.api.post('/api/v4/teams', { name, display_name: 'Bad', type: 'O' });
    expectAppError(res, 400, `model.team.is_valid.${reason}.app_error`);
  });

  test('accepts a 64-character name and a 2-character name', async () => {
    // Each test file has a database of its own, so fixed names cannot collide.
    await alice.api.post('/api/v4/teams', { name: 'z'.repeat(64), display_name: 'Long', type: 'O' }).expect(201);
    await alice.api.post('/api/v4/teams', { name: 'zq', display_name: 'Short', type: 'O' }).expect(201);
  });

  test('rejects an empty or too long display name', async () => {
    expectAppError(await alice.api.post('/api/v4/teams', { name: uniqueName(), display_name: '', type: 'O' }), 400, 'model.team.is_valid.name.app_error');
    expectAppError(
      await alice.api.post('/api/v4/teams', { name: uniqueName(), display_name: 'x'.repeat(65), type: 'O' }),
      400,
      'model.team.is_valid.name.app_error',
    );
  });

  test('rejects a type other than O or I', async () => {
    const res = await alice.api.post('/api/v4/teams', { name: uniqueName(), display_name: 'T', type: 'P' });
    expect(res.status).toBe(400);
    expect(res.body.status_code).toBe(400);
  });

  test('rejects a duplicate name', async () => {
    const team = await createTeam(alice);
    const res = await bob.api.post('/api/v4/teams', { name: team.name, display_name: 'Again', type: 'O' });
    expectAppError(res, 400, 'app.team.save.existing.app_error');
  });

  test('needs a session', async () => {
    const res = await server.http().post('/api/v4/teams', { name: uniqueName(), display_name: 'T', type: 'O' });
    expectAppError(res, 401, 'api.context.session_expired.app_error');
  });
});

describe('GetAllTeams', () => {
  test('a plain user sees open teams only; a system admin sees invite-only ones too', async () => {
    const open = await createTeam(alice, 'O');
    const closed = await createTeam(alice, 'I');
    const asBob = await bob.api.get('/api/v4/teams?page=0&per_page=200').expect(200);
    const bobIds = asBob.body.map((t: { id: string }) => t.id);
    expect(bobIds).toContain(open.id);
    expect(bobIds).not.toContain(closed.id);
    expect(asBob.body.every((t: { type: string; allow_open_invite: boolean }) => t.type === 'O' && t.allow_open_invite)).toBe(true);
    // Bob does not manage these teams: the invite id and email are blanked.
    expect(asBob.body.find((t: { id: string }) => t.id === open.id)).toMatchObject({ invite_id: '', email: '' });

    const asAdmin = await sysadmin.api.get('/api/v4/teams?page=0&per_page=200').expect(200);
    const adminIds = asAdmin.body.map((t: { id: string }) => t.id);
    expect(adminIds).toEqual(expect.arrayContaining([open.id, closed.id]));
  });

  test('include_total_count wraps the page with the total number of visible teams', async () => {
    await createTeam(alice, 'O');
    await createTeam(alice, 'O');
    await createTeam(alice, 'I');
    const all = await bob.api.get('/api/v4/teams?per_page=200').expect(200);
    const res = await bob.api.get('/api/v4/teams?page=0&per_page=1&include_total_count=true').expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['teams', 'total_count']);
    expect(res.body.teams).toHaveLength(1);
    expect(res.body.total_count).toBe(all.body.length);
    expect(res.body.total_count).toBeGreaterThan(1);
    const adminCount = await sysadmin.api.get('/api/v4/teams?include_total_count=true').expect(200);
    expect(adminCount.body.total_count).toBeGreaterThan(res.body.total_count);
  });

  test('pages do not overlap', async () => {
    await createTeam(alice, 'O');
    await createTeam(alice, 'O');
    const first = await bob.api.get('/api/v4/teams?page=0&per_page=2').expect(200);
    const second = await bob.api.get('/api/v4/teams?page=1&per_page=2').expect(200);
    expect(first.body).toHaveLength(2);
    expect(second.body.length).toBeGreaterThan(0);
    const firstIds = first.body.map((t: { id: string }) => t.id);
    for (const t of second.body) expect(firstIds).not.toContain(t.id);
  });
});

describe('GetTeam and GetTeamByName', () => {
  test('unknown team: 404', async () => {
    expectAppError(await alice.api.get('/api/v4/teams/aaaaaaaaaaaaaaaaaaaaaaaaaa'), 404, 'app.team.get.find.app_error');
    expectAppError(await alice.api.get(`/api/v4/teams/name/${uniqueName('nosuch')}`), 404, 'app.team.get.find.app_error');
  });

  test('names are matched exactly on every database (no case or trailing-space folding)', async () => {
    const team = await createTeam(alice, 'O');
    await alice.api.get(`/api/v4/teams/name/${team.name}`).expect(200);
    expectAppError(await alice.api.get(`/api/v4/teams/name/${team.name.toUpperCase()}`), 404, 'app.team.get.find.app_error');
    expectAppError(await alice.api.get(`/api/v4/teams/name/${team.name}%20`), 404, 'app.team.get.find.app_error');
  });

  test('an open team is visible to a non-member, sanitised', async () => {
    const team = await createTeam(alice, 'O');
    const byId = await bob.api.get(`/api/v4/teams/${team.id}`).expect(200);
    expect(byId.body).toMatchObject({ id: team.id, name: team.name, invite_id: '', email: '' });
    const byName = await bob.api.get(`/api/v4/teams/name/${team.name}`).expect(200);
    expect(byName.body.id).toBe(team.id);
    // The team admin sees the invite id.
    const asOwner = await alice.api.get(`/api/v4/teams/${team.id}`).expect(200);
    expect(asOwner.body.invite_id).toBe(team.invite_id);
  });

  test('an invite-only team is closed to non-members (403 by id; by name 404, as if missing) and open to members and system admins', async () => {
    const team = await createTeam(alice, 'I');
    expectAppError(await bob.api.get(`/api/v4/teams/${team.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await bob.api.get(`/api/v4/teams/name/${team.name}`), 404, 'app.team.get.find.app_error');
    expectAppError(await bob.api.get(`/api/v4/teams/name/${team.name}x`), 404, 'app.team.get.find.app_error');
    await alice.api.get(`/api/v4/teams/${team.id}`).expect(200);
    await alice.api.get(`/api/v4/teams/name/${team.name}`).expect(200);
    await sysadmin.api.get(`/api/v4/teams/${team.id}`).expect(200);
    await alice.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: bob.id }).expect(201);
    const asMember = await bob.api.get(`/api/v4/teams/${team.id}`).expect(200);
    expect(asMember.body.id).toBe(team.id);
  });
});

describe('GetTeamsForUser', () => {
  test('me lists exactly my teams', async () => {
    const dave = await createUser(server, sysadmin);
    expect((await dave.api.get('/api/v4/users/me/teams').expect(200)).body).toEqual([]);
    const a = await createTeam(dave, 'O');
    const b = await createTeam(dave, 'I');
    const res = await dave.api.get('/api/v4/users/me/teams').expect(200);
    expect(res.body.map((t: { id: string }) => t.id).sort()).toEqual([a.id, b.id].sort());
    const byId = await dave.api.get(`/api/v4/users/${dave.id}/teams`).expect(200);
    expect(byId.body).toHaveLength(2);
  });

  test("another user's teams: 403 for a plain user, 200 for a system admin", async () => {
    const team = await createTeam(carol, 'O');
    expectAppError(await bob.api.get(`/api/v4/users/${carol.id}/teams`), 403, 'api.context.permissions.app_error');
    const res = await sysadmin.api.get(`/api/v4/users/${carol.id}/teams`).expect(200);
    expect(res.body.map((t: { id: string }) => t.id)).toContain(team.id);
  });
});

describe('AddTeamMember', () => {
  test('a team admin adds a user, who lands in town-square and off-topic as a plain member', async () => {
    const team = await createTeam(alice, 'I');
    const res = await alice.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: bob.id }).expect(201);
    expect(res.body).toMatchObject({ team_id: team.id, user_id: bob.id, roles: 'team_user', scheme_user: true, scheme_admin: false, delete_at: 0 });
    const channels = await bob.api.get(`/api/v4/users/me/teams/${team.id}/channels`).expect(200);
    expect(channels.body.map((c: { name: string }) => c.name).sort()).toEqual(['off-topic', 'town-square']);
    const teams = await bob.api.get('/api/v4/users/me/teams').expect(200);
    expect(teams.body.map((t: { id: string }) => t.id)).toContain(team.id);
  });

  test('adding an existing member returns the membership unchanged', async () => {
    const team = await createTeam(alice, 'O');
    await alice.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: bob.id }).expect(201);
    const again = await alice.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: bob.id }).expect(201);
    expect(again.body).toMatchObject({ user_id: bob.id, roles: 'team_user' });
    const members = await alice.api.get(`/api/v4/teams/${team.id}/members`).expect(200);
    expect(members.body).toHaveLength(2);
  });

  test('a user joins an open team by themself', async () => {
    const team = await createTeam(alice, 'O');
    const res = await carol.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: carol.id }).expect(201);
    expect(res.body).toMatchObject({ team_id: team.id, user_id: carol.id, roles: 'team_user' });
    const town = await carol.api.get(`/api/v4/teams/${team.id}/channels/name/town-square`).expect(200);
    await carol.api.get(`/api/v4/channels/${town.body.id}/members/me`).expect(200);
  });

  test('a user cannot join an invite-only team by themself', async () => {
    const team = await createTeam(alice, 'I');
    const res = await carol.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: carol.id });
    expectAppError(res, 403, 'api.context.permissions.app_error');
  });

  test('a non-member cannot add others to an invite-only team (403), nor to an open one', async () => {
    const closed = await createTeam(alice, 'I');
    expectAppError(
      await bob.api.post(`/api/v4/teams/${closed.id}/members`, { team_id: closed.id, user_id: carol.id }),
      403,
      'api.context.permissions.app_error',
    );
    const open = await createTeam(alice, 'O');
    expectAppError(
      await bob.api.post(`/api/v4/teams/${open.id}/members`, { team_id: open.id, user_id: carol.id }),
      403,
      'api.context.permissions.app_error',
    );
    const members = await alice.api.get(`/api/v4/teams/${closed.id}/members`).expect(200);
    expect(members.body.map((m: { user_id: string }) => m.user_id)).toEqual([alice.id]);
  });

  test('a system admin adds users to any team', async () => {
    const team = await createTeam(alice, 'I');
    await sysadmin.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: carol.id }).expect(201);
  });

  test('unknown team or user: 404; team_id in the body must match the path: 400', async () => {
    const team = await createTeam(alice, 'O');
    expectAppError(
      await alice.api.post('/api/v4/teams/aaaaaaaaaaaaaaaaaaaaaaaaaa/members', { team_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', user_id: bob.id }),
      404,
      'app.team.get.find.app_error',
    );
    const unknownUser = await alice.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: 'bbbbbbbbbbbbbbbbbbbbbbbbbb' });
    expect(unknownUser.status).toBe(404);
    expect(unknownUser.body.status_code).toBe(404);
    const other = await createTeam(alice, 'O');
    expectAppError(
      await alice.api.post(`/api/v4/teams/${team.id}/members`, { team_id: other.id, user_id: bob.id }),
      400,
      'api.context.invalid_param.app_error',
    );
  });
});

describe("AddTeamMember and the team's allowed_domains (Mattermost's IsTeamEmailAllowed)", () => {
  const refused = 'api.team.join_user_to_team.allowed_domains.app_error';
  const restricted = async (allowedDomains: string, type: 'O' | 'I' = 'O') => {
    const name = uniqueName('dom');
    const res = await alice.api.post('/api/v4/teams', { name, display_name: name, type, allowed_domains: allowedDomains }).expect(201);
    return res.body.id as string;
  };
  const join = (as: Actor, teamId: string, userId = as.id) => as.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: userId });
  const memberIds = async (teamId: string) => (await alice.api.get(`/api/v4/teams/${teamId}/members`).expect(200)).body.map((m: { user_id: string }) => m.user_id);

  test('a user whose address is outside the list cannot join an open team (400), nor be added by its admin; nothing is joined', async () => {
    const teamId = await restricted('corp.example');
    const res = await join(carol, teamId);
    expectAppError(res, 400, refused);
    expect(res.body.message).toMatch(/domain associated with the account is not permitted/);
    expectAppError(await join(alice, teamId, bob.id), 400, refused);
    expect(await memberIds(teamId)).toEqual([alice.id]);
    // Not on the team, so not in its channels either.
    expectAppError(await carol.api.get(`/api/v4/users/me/teams/${teamId}/channels`), 403, 'api.context.permissions.app_error');
  });

  test('an address in the list joins: domains are separated by commas, spaces or "@", in any letter case', async () => {
    const insider = await createUser(server, sysadmin, { email: `In.Side${process.pid}x${++seq}@Corp.Example` });
    for (const list of ['corp.example', 'CORP.EXAMPLE', 'other.example, corp.example', '@other.example @corp.example', ' other.example\tcorp.example ']) {
      const teamId = await restricted(list);
      expect((await join(insider, teamId).expect(201)).body).toMatchObject({ team_id: teamId, user_id: insider.id });
    }
  });

  test('the whole domain must match: a subdomain, a longer domain or a domain only named inside the local part is refused', async () => {
    const teamId = await restricted('corp.example');
    for (const email of ['x@sub.corp.example', 'x@corp.example.net', 'x@notcorp.example', 'corp.example@example.com']) {
      const user = await createUser(server, sysadmin, { email: `${process.pid}x${++seq}${email}` });
      expectAppError(await join(user, teamId), 400, refused);
    }
  });

  test('system admins are held to the list too (Mattermost exempts only bots), adding themselves or others', async () => {
    const teamId = await restricted('corp.example', 'I');
    expectAppError(await join(sysadmin, teamId), 400, refused);
    expectAppError(await join(sysadmin, teamId, bob.id), 400, refused);
    expect(await memberIds(teamId)).toEqual([alice.id]);
  });

  test('an empty or blank list allows every address; members already on the team stay when a list is set', async () => {
    const teamId = await restricted(' , ');
    await join(bob, teamId).expect(201);
    await alice.api.put(`/api/v4/teams/${teamId}/patch`, { allowed_domains: 'corp.example' }).expect(200);
    expect(await memberIds(teamId)).toEqual(expect.arrayContaining([alice.id, bob.id]));
    // Re-adding is a join like any other, checked before the membership is looked at (as in Mattermost).
    expectAppError(await join(bob, teamId), 400, refused);
    expect(await memberIds(teamId)).toEqual(expect.arrayContaining([alice.id, bob.id]));
    // Clearing the list opens the team to every address again.
    await alice.api.put(`/api/v4/teams/${teamId}/patch`, { allowed_domains: '' }).expect(200);
    await join(carol, teamId).expect(201);
  });
});

describe('GetTeamMembers', () => {
  test('pages through the members by user id', async () => {
    const team = await createTeam(alice, 'O');
    for (const u of [bob, carol, sysadmin]) {
      await alice.api.post(`/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: u.id }).expect(201);
    }
    const all = await bob.api.get(`/api/v4/teams/${team.id}/members`).expect(200);
    const ids = all.body.map((m: { user_id: string }) => m.user_id);
    expect(ids).toEqual([alice.id, bob.id, carol.id, sysadmin.id].sort());
    const page0 = await bob.api.get(`/api/v4/teams/${team.id}/members?page=0&per_page=3`).expect(200);
    const page1 = await bob.api.get(`/api/v4/teams/${team.id}/members?page=1&per_page=3`).expect(200);
    const page2 = await bob.api.get(`/api/v4/teams/${team.id}/members?page=2&per_page=3`).expect(200);
    expect(page0.body.map((m: { user_id: string }) => m.user_id)).toEqual(ids.slice(0, 3));
    expect(page1.body.map((m: { user_id: string }) => m.user_id)).toEqual(ids.slice(3));
    expect(page2.body).toEqual([]);
    const byUsername = await bob.api.get(`/api/v4/teams/${team.id}/members?sort=Username`).expect(200);
    const usernames = new Map([alice, bob, carol, sysadmin].map((u) => [u.id, u.username]));
    const names = byUsername.body.map((m: { user_id: string }) => usernames.get(m.user_id));
    expect(names).toEqual([...names].sort());
  });

  test('a non-member gets 403 for an invite-only team; unknown team is 404', async () => {
    const team = await createTeam(alice, 'I');
    expectAppError(await bob.api.get(`/api/v4/teams/${team.id}/members`), 403, 'api.context.permissions.app_error');
    await sysadmin.api.get(`/api/v4/teams/${team.id}/members`).expect(200);
    expectAppError(await bob.api.get('/api/v4/teams/aaaaaaaaaaaaaaaaaaaaaaaaaa/members'), 404, 'app.team.get.find.app_error');
  });
});
