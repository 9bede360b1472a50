// TeamSettings.SiteName (the name the web client shows) and TeamSettings.MaxNotificationsPerChannel through
// PatchConfig, checked as Mattermost checks them, and the site name in everyone's client config.
import { createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { expectAppError, expectStatus } from '../support/assertions';

let server: TestServer;
let admin: Actor;

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
});
afterAll(async () => {
  await server.close();
});

test('the site name is "Parley" by default, changed by PatchConfig, and served to anonymous callers too', async () => {
  const before = await server.http().get('/api/v4/config/client?format=old');
  expect(before.body.SiteName).toBe('Parley');
  const got = await admin.api.get('/api/v4/config');
  expect(got.body.TeamSettings.SiteName).toBe('Parley');

  const patched = await admin.api.put('/api/v4/config/patch', { TeamSettings: { SiteName: 'Acme Chat' } });
  expectStatus(patched, 200);
  expect(patched.body.TeamSettings.SiteName).toBe('Acme Chat');
  const after = await server.http().get('/api/v4/config/client?format=old');
  expect(after.body.SiteName).toBe('Acme Chat');
});

test('a site name longer than 30 characters is refused with Mattermost\'s id; 30 is accepted', async () => {
  const res = await admin.api.put('/api/v4/config/patch', { TeamSettings: { SiteName: 'x'.repeat(31) } });
  expectAppError(res, 400, 'model.config.is_valid.sitename_length.app_error');
  expect(res.body.message).toBe('Site name must be less than or equal to 30 characters.');
  expect((await admin.api.get('/api/v4/config')).body.TeamSettings.SiteName).toBe('Acme Chat');
  // Characters, not bytes.
  expectStatus(await admin.api.put('/api/v4/config/patch', { TeamSettings: { SiteName: 'é'.repeat(30) } }), 200);
});

test('MaxNotificationsPerChannel must be positive', async () => {
  const res = await admin.api.put('/api/v4/config/patch', { TeamSettings: { MaxNotificationsPerChannel: 0 } });
  expectAppError(res, 400, 'model.config.is_valid.max_notify_per_channel.app_error');
  expectStatus(await admin.api.put('/api/v4/config/patch', { TeamSettings: { MaxNotificationsPerChannel: 50 } }), 200);
});
