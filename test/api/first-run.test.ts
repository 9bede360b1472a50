// First run (#25): on an empty server the client config says NoAccounts, the first account needs no session and no
// open server and becomes the system admin, creates the first team, and a second person signs up through the team's
// invite link on the still-closed server. All through Client4, as the web client will call it.
import { expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { PASSWORD, startTestServer, type TestServer } from '../support/server';

let server: TestServer;
const unique = (p: string) => `${p}${process.pid}f`;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test('empty server → first account (system admin) → first team → invited sign-up on a closed server', async () => {
  const anonymous = client4For(server);
  const before = await anonymous.getClientConfig();
  expect(before).toMatchObject({ NoAccounts: 'true', EnableOpenServer: 'false', EnableUserCreation: 'true' });

  // The first account: no session, the server closed to sign-up, and still allowed; it becomes the system admin.
  const adminName = unique('first');
  const first = await anonymous.createUser({ username: adminName, email: `${adminName}@example.com`, password: PASSWORD } as never, '', '');
  expect(first).toMatchObject({ username: adminName, roles: 'system_admin system_user' });
  expect((await anonymous.getClientConfig()).NoAccounts).toBe('false');

  // From now on the server is closed: a second anonymous sign-up is refused.
  const otherName = unique('second');
  const other = { username: otherName, email: `${otherName}@example.com`, password: PASSWORD };
  await expectClientError(anonymous.createUser(other as never, '', ''), 403, 'api.user.create_user.no_open_server');

  // The admin logs in and creates the first team; the team's invite link lets the second person in.
  const admin = client4For(server);
  await admin.login(adminName, PASSWORD);
  const team = await admin.createTeam({ name: unique('first-team'), display_name: 'First Team', type: 'I' } as never);
  expect(team.invite_id).toMatch(/^[a-z0-9]{26}$/);
  expect(await anonymous.getTeamInviteInfo(team.invite_id)).toEqual({ id: team.id, name: team.name, display_name: 'First Team', description: '' });
  const second = await anonymous.createUser(other as never, '', team.invite_id);
  expect(second).toMatchObject({ username: otherName, roles: 'system_user' });

  const asSecond = client4For(server);
  await asSecond.login(otherName, PASSWORD);
  expect((await asSecond.getMyTeams()).map((t) => t.id)).toEqual([team.id]);
  const members = await admin.getTeamMembers(team.id, 0, 60);
  expect(members.map((m) => m.user_id).sort()).toEqual([first.id, second.id].sort());
  expect(members.find((m) => m.user_id === first.id)).toMatchObject({ scheme_admin: true });
  expect(members.find((m) => m.user_id === second.id)).toMatchObject({ scheme_admin: false });
});
