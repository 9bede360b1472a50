import { createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { expectStatus, expectAppError } from '../support/assertions';
import { eventually } from '../support/eventually';

const MASK = '********************************';
const NO_CACHE = 'no-cache, no-store, must-revalidate';

let server: TestServer;
const others: TestServer[] = [];
let admin: Actor;
let member: Actor;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const other of others) await other.close();
  await server.close();
});

describe('on an empty database', () => {
  test('GetClientConfig format=old is a flat string map with NoAccounts "true"', async () => {
    const res = await server.http().get('/api/v4/config/client?format=old');
    expectStatus(res, 200);
    expect(res.headers['cache-control']).toBe(NO_CACHE);
    expect(res.body.NoAccounts).toBe('true');
    expect(Object.keys(res.body).length).toBeGreaterThan(5);
    for (const [key, value] of Object.entries(res.body)) {
      expect([key, typeof value]).toEqual([key, 'string']);
    }
    expect(res.body).toMatchObject({ EnableOpenServer: 'false', EnableUserCreation: 'true', EnableSignUpWithEmail: 'true' });
    // Anonymous callers get the limited set: nothing about features behind the login.
    for (const key of ['EnableIncomingWebhooks', 'EnableUserAccessTokens', 'EnablePostUsernameOverride', 'MaxPostSize']) {
      expect(res.body).not.toHaveProperty(key);
    }
  });

  test('the first user created makes NoAccounts "false"', async () => {
    admin = await createUser(server);
    member = await createUser(server, admin);
    const res = await server.http().get('/api/v4/config/client?format=old');
    expectStatus(res, 200);
    expect(res.body.NoAccounts).toBe('false');
  });
});

describe('GetPing', () => {
  test('answers OK without auth and without the status checks by default', async () => {
    const res = await server.http().get('/api/v4/system/ping');
    expectStatus(res, 200);
    expect(res.body.status).toBe('OK');
    expect(res.body).not.toHaveProperty('database_status');
    expect(res.body).not.toHaveProperty('filestore_status');
    expect(res.headers.expires).toBe('0');
  });

  test('get_server_status=true reports the database and file store', async () => {
    const res = await server.http().get('/api/v4/system/ping?get_server_status=true&use_rest_semantics=true');
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'OK', database_status: 'OK', filestore_status: 'OK' });
  });

  test('a garbage token does not matter on a public route', async () => {
    const res = await server.http('garbage').get('/api/v4/system/ping');
    expectStatus(res, 200);
    expect(res.body.status).toBe('OK');
  });

  test('a non-boolean get_server_status is a 400', async () => {
    expectAppError(await server.http().get('/api/v4/system/ping?get_server_status=maybe'), 400, 'api.context.invalid_param.app_error');
  });

  test('with the database gone it reports UNHEALTHY: 200 by default', async () => {
    const broken = await startTestServer({}, server.db);
    others.push(broken);
    await broken.parley.db.close();
    const res = await broken.http().get('/api/v4/system/ping?get_server_status=true');
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'UNHEALTHY', database_status: 'UNHEALTHY' });
  });

  test('with the database gone and use_rest_semantics=true it is a 500 with the status body', async () => {
    const broken = others[others.length - 1];
    const res = await broken.http().get('/api/v4/system/ping?get_server_status=true&use_rest_semantics=true');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toMatchObject({ status: 'UNHEALTHY', database_status: 'UNHEALTHY' });
  });
});

describe('GetClientConfig', () => {
  test('without format is 501 api.config.client.old_format.app_error', async () => {
    expectAppError(await server.http().get('/api/v4/config/client'), 501, 'api.config.client.old_format.app_error');
    expectAppError(await server.http().get('/api/v4/config/client?format='), 501, 'api.config.client.old_format.app_error');
  });

  test('format=new is a 400', async () => {
    expectAppError(await server.http().get('/api/v4/config/client?format=new'), 400, 'api.context.invalid_param.app_error');
  });

  test('with a session it is the full set: the limited one plus the settings behind the login', async () => {
    const anonymous = await server.http().get('/api/v4/config/client?format=old');
    const res = await member.api.get('/api/v4/config/client?format=old');
    expectStatus(res, 200);
    expect(res.body).toMatchObject(anonymous.body);
    expect(res.body).toMatchObject({
      NoAccounts: 'false',
      MaxPostSize: '16383',
      EnableIncomingWebhooks: 'true',
      EnableOutgoingWebhooks: 'true',
      EnableCommands: 'true',
      EnableBotAccountCreation: 'false',
      EnableUserAccessTokens: 'false',
      EnablePostUsernameOverride: 'false',
      EnablePostIconOverride: 'false',
      ShowEmailAddress: 'true',
      ShowFullName: 'true',
    });
    for (const value of Object.values(res.body)) expect(typeof value).toBe('string');
  });

  test('an invalid token is treated as no session (limited set), not refused', async () => {
    const res = await server.http('0123456789abcdefghijklmnop').get('/api/v4/config/client?format=old');
    expectStatus(res, 200);
    expect(res.body).not.toHaveProperty('MaxPostSize');
  });
});

describe('GetConfig', () => {
  test('an admin gets the config with secrets masked', async () => {
    const res = await admin.api.get('/api/v4/config');
    expectStatus(res, 200);
    expect(res.headers['cache-control']).toBe(NO_CACHE);
    expect(res.body.SqlSettings.DataSource).toBe(MASK);
    expect(res.body.SqlSettings.DriverName).toBe(server.db.driver);
    expect(res.body.ServiceSettings).toMatchObject({ EnableIncomingWebhooks: true, EnableUserAccessTokens: false, MaximumPayloadSizeBytes: 300000 });
    expect(res.body.TeamSettings).toMatchObject({ EnableOpenServer: false, EnableUserCreation: true });
    expect(JSON.stringify(res.body)).not.toContain(server.db.dataSource);
  });

  test('a member is 403', async () => {
    expectAppError(await member.api.get('/api/v4/config'), 403, 'api.context.permissions.app_error');
  });

  test('no token is 401', async () => {
    expectAppError(await server.http().get('/api/v4/config'), 401, 'api.context.session_expired.app_error');
  });
});

describe('PatchConfig', () => {
  test('an admin patches a value, gets it back and reads it back; other keys are kept', async () => {
    const patched = await admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnablePostIconOverride: true } });
    expectStatus(patched, 200);
    expect(patched.headers['cache-control']).toBe(NO_CACHE);
    expect(patched.body.ServiceSettings.EnablePostIconOverride).toBe(true);
    expect(patched.body.ServiceSettings.EnableIncomingWebhooks).toBe(true);
    expect(patched.body.SqlSettings.DataSource).toBe(MASK);

    const read = await admin.api.get('/api/v4/config');
    expectStatus(read, 200);
    expect(read.body.ServiceSettings.EnablePostIconOverride).toBe(true);
    expect(read.body.ServiceSettings.EnablePostUsernameOverride).toBe(false);

    const client = await member.api.get('/api/v4/config/client?format=old');
    expect(client.body.EnablePostIconOverride).toBe('true');

    expectStatus(await admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnablePostIconOverride: false } }), 200);
    expect((await admin.api.get('/api/v4/config')).body.ServiceSettings.EnablePostIconOverride).toBe(false);
  });

  test('sending the masked secret back leaves it unchanged', async () => {
    const res = await admin.api.put('/api/v4/config/patch', { SqlSettings: { DataSource: MASK }, Unknown: { X: 1 } });
    expectStatus(res, 200);
    expect(res.body.SqlSettings.DataSource).toBe(MASK);
    expect(res.body).not.toHaveProperty('Unknown');
    // The server still reaches its database.
    const ping = await server.http().get('/api/v4/system/ping?get_server_status=true');
    expect(ping.body.database_status).toBe('OK');
  });

  test('SqlSettings.QueryTimeout is shown (30 s by default) and must be a positive number of seconds', async () => {
    expect((await admin.api.get('/api/v4/config')).body.SqlSettings.QueryTimeout).toBe(30);
    const res = await admin.api.put('/api/v4/config/patch', { SqlSettings: { QueryTimeout: 0 } });
    expect(res.status).toBe(400);
    expectAppError(res, 400, res.body.id);
    expect((await admin.api.get('/api/v4/config')).body.SqlSettings.QueryTimeout).toBe(30);
  });

  test('a value of the wrong type is a 400 and changes nothing', async () => {
    const res = await admin.api.put('/api/v4/config/patch', { TeamSettings: { EnableOpenServer: 'yes' } });
    expect(res.status).toBe(400);
    expectAppError(res, 400, res.body.id);
    expect(res.body.id).toMatch(/^(api\.context\.invalid_param|model\.config\.is_valid)\.app_error$/);
    expect((await admin.api.get('/api/v4/config')).body.TeamSettings.EnableOpenServer).toBe(false);
  });

  test('an invalid MaximumPayloadSizeBytes is a 400', async () => {
    expectAppError(
      await admin.api.put('/api/v4/config/patch', { ServiceSettings: { MaximumPayloadSizeBytes: 10 } }),
      400,
      'model.config.is_valid.max_payload_size.app_error',
    );
    expect((await admin.api.get('/api/v4/config')).body.ServiceSettings.MaximumPayloadSizeBytes).toBe(300000);
  });

  test('a non-empty SiteURL cannot be cleared', async () => {
    expectStatus(await admin.api.put('/api/v4/config/patch', { ServiceSettings: { SiteURL: 'https://chat.example.com' } }), 200);
    expectAppError(
      await admin.api.put('/api/v4/config/patch', { ServiceSettings: { SiteURL: '' } }),
      400,
      'api.config.update_config.clear_siteurl.app_error',
    );
    const client = await server.http().get('/api/v4/config/client?format=old');
    expect(client.body.SiteURL).toBe('https://chat.example.com');
  });

  test('a member is 403 and nothing changes', async () => {
    expectAppError(
      await member.api.put('/api/v4/config/patch', { TeamSettings: { EnableOpenServer: true } }),
      403,
      'api.context.permissions.app_error',
    );
    expect((await admin.api.get('/api/v4/config')).body.TeamSettings.EnableOpenServer).toBe(false);
  });

  test('no token is 401', async () => {
    expectAppError(
      await server.http().put('/api/v4/config/patch', { TeamSettings: { EnableOpenServer: true } }),
      401,
      'api.context.session_expired.app_error',
    );
  });
});

describe('config shared by several processes on one database', () => {
  let second: TestServer;
  beforeAll(async () => {
    second = await startTestServer({}, server.db);
    others.push(second);
  });

  test('a second process sees a patch within about 2 s', async () => {
    const before = await admin.api.get('/api/v4/config');
    expect(before.body.ServiceSettings.EnablePostUsernameOverride).toBe(false);
    expectStatus(await admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnablePostUsernameOverride: true } }), 200);
    // The bound is the behaviour (a poll every second or so): eventually's 2.5 s.
    const seen = await eventually(
      async () => {
        const r = await second.http(admin.token).get('/api/v4/config');
        expect(r.body?.ServiceSettings?.EnablePostUsernameOverride).toBe(true);
        return r;
      },
      2500,
      100,
    );
    expectStatus(seen, 200);
    expect(seen.body.ServiceSettings.EnablePostUsernameOverride).toBe(true);
  });

  test('a patch made right after another process patched keeps both changes', async () => {
    // The second process patches one key, the first patches another before its poll could have run.
    expectStatus(await second.http(admin.token).put('/api/v4/config/patch', { ServiceSettings: { EnablePostIconOverride: true } }), 200);
    const res = await admin.api.put('/api/v4/config/patch', { TeamSettings: { MaxNotificationsPerChannel: 42 } });
    expectStatus(res, 200);
    expect(res.body.TeamSettings.MaxNotificationsPerChannel).toBe(42);
    expect(res.body.ServiceSettings.EnablePostIconOverride).toBe(true);
    const seen = await eventually(
      async () => {
        const r = await second.http(admin.token).get('/api/v4/config');
        expect(r.body?.TeamSettings?.MaxNotificationsPerChannel).toBe(42);
        return r;
      },
      2500,
      100,
    );
    expect(seen.body.TeamSettings.MaxNotificationsPerChannel).toBe(42);
    expect(seen.body.ServiceSettings.EnablePostIconOverride).toBe(true);
  });

  test('MM_* environment overrides win over patches, in their own process only', async () => {
    const pinned = await startTestServer({ MM_TEAMSETTINGS_MAXNOTIFICATIONSPERCHANNEL: '7' }, server.db);
    others.push(pinned);
    const own = await pinned.http(admin.token).put('/api/v4/config/patch', { TeamSettings: { MaxNotificationsPerChannel: 50 } });
    expectStatus(own, 200);
    expect(own.body.TeamSettings.MaxNotificationsPerChannel).toBe(7);
    expect((await pinned.http(admin.token).get('/api/v4/config')).body.TeamSettings.MaxNotificationsPerChannel).toBe(7);
    // The patch itself was stored: processes without the override apply it.
    const seen = await eventually(
      async () => {
        const r = await admin.api.get('/api/v4/config');
        expect(r.body?.TeamSettings?.MaxNotificationsPerChannel).toBe(50);
        return r;
      },
      2500,
      100,
    );
    expect(seen.body.TeamSettings.MaxNotificationsPerChannel).toBe(50);
    // And a later patch from elsewhere does not beat the override either (a fixed pause on purpose: a poll has to
    // pass, and the claim is that nothing changes).
    await new Promise((r) => setTimeout(r, 1200));
    expect((await pinned.http(admin.token).get('/api/v4/config')).body.TeamSettings.MaxNotificationsPerChannel).toBe(7);
  });
});
