// What the Mattermost apps call on every page load before anything renders (issue #21): the client license and the
// server limits, through Client4 as the web app's data layer calls them, and through raw HTTP for the edge cases.
import { client4For } from '../support/client4';
import { expectAppError } from '../support/assertions';
import { createUser, createWorld, startTestServer, type TestServer, type World } from '../support/server';

let server: TestServer;
let world: World;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterAll(() => server.close());

describe('GetClientLicense', () => {
  test("Client4's getClientLicenseOld, anonymous or signed in: an unlicensed server's answer", async () => {
    for (const c of [client4For(server), client4For(server, world.member), client4For(server, world.admin)]) {
      const license = await c.getClientLicenseOld();
      expect(license).toEqual({ IsLicensed: 'false', Cloud: 'false', IsTrial: 'false' });
    }
  });

  test('without format (the newest servers ignore it) it answers the same; another format is 400', async () => {
    expect((await server.http().get('/api/v4/license/client').expect(200)).body.IsLicensed).toBe('false');
    expectAppError(await server.http().get('/api/v4/license/client?format=new'), 400, 'api.context.invalid_param.app_error');
  });
});

describe('GetServerLimits', () => {
  test("no limits; the active user count for system admins only (deactivated users not counted), 0 for others", async () => {
    const gone = await createUser(server, world.admin);
    await world.admin.api.delete(`/api/v4/users/${gone.id}`).expect(200);
    // A fresh database: the world's admin and member are the active users; the third was deactivated.
    const admin = (await client4For(server, world.admin).getServerLimits()).data;
    expect(admin).toEqual({ maxUsersLimit: 0, maxUsersHardLimit: 0, activeUserCount: 2, lastAccessiblePostTime: 0, postHistoryLimit: 0 });
    const member = (await client4For(server, world.member).getServerLimits()).data;
    expect(member).toEqual({ maxUsersLimit: 0, maxUsersHardLimit: 0, activeUserCount: 0, lastAccessiblePostTime: 0, postHistoryLimit: 0 });
  });

  test('needs a session (401)', async () => {
    expectAppError(await server.http().get('/api/v4/limits/server'), 401, 'api.context.session_expired.app_error');
  });
});
