// Security findings of the outside review, each with its regression test: the first-user race, typed bodies (no
// coercion), lone surrogates, SiteURL, response headers, and non-JSON API bodies.
import request from 'supertest';
import { bootSettings, loadBootConfig } from '../../src/config/load';
import { createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { expectAppError } from '../support/assertions';

describe('the first-user rule under concurrency', () => {
  test('20 concurrent anonymous sign-ups on an empty database make exactly one system admin', async () => {
    const server = await startTestServer();
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request(server.url)
            .post('/api/v4/users')
            .send({ username: `racer${i}`, email: `racer${i}@example.com`, password: 'Passw0rd!' }),
        ),
      );
      const created = answers.filter((a) => a.status === 201);
      // Open sign-up is off: the winner is the one first user, everyone else is refused as an ordinary sign-up.
      expect(created).toHaveLength(1);
      expect(created[0].body.roles).toBe('system_admin system_user');
      for (const a of answers.filter((x) => x.status !== 201)) expectAppError(a, 403, 'api.user.create_user.no_open_server');
      const stored = await server.parley.db.knex('users').select('roles');
      expect(stored.map((u: { roles: string }) => u.roles)).toEqual(['system_admin system_user']);
    } finally {
      await server.close();
    }
  });

  test('with open sign-up, the same race makes one admin and 19 ordinary users', async () => {
    const server = await startTestServer({ MM_TEAMSETTINGS_ENABLEOPENSERVER: 'true' });
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => request(server.url).post('/api/v4/users').send({ username: `open${i}`, email: `open${i}@example.com`, password: 'Passw0rd!' })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
      const roles = answers.map((a) => a.body.roles as string).sort();
      expect(roles.filter((r) => r.includes('system_admin'))).toHaveLength(1);
      expect(roles.filter((r) => r === 'system_user')).toHaveLength(19);
    } finally {
      await server.close();
    }
  });
});

describe('on one server', () => {
  let server: TestServer;
  let world: World;

  beforeAll(async () => {
    server = await startTestServer();
    world = await createWorld(server);
  });
  afterAll(() => server.close());

  test('numbers are not silently turned into strings in a body: a type mismatch is 400, as in Mattermost', async () => {
    const res = await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 123 });
    expectAppError(res, 400, 'api.context.invalid_param.app_error');
    expect(res.body.message).toContain('body/message');
    expectAppError(await world.member.api.put('/api/v4/users/me/patch', { nickname: true }), 400, 'api.context.invalid_param.app_error');
    // Query parameters are strings on the wire and still converted to their types.
    await world.member.api.get(`/api/v4/channels/${world.townSquareId}/posts?page=0&per_page=5`).expect(200);
  });

  test('lone surrogates become U+FFFD before validation: stored as valid UTF-8 and read back at the same length', async () => {
    const body = `{"channel_id":"${world.townSquareId}","message":"a\\ud800b\\udfffc${'x'.repeat(16378)}"}`;
    const res = await request(server.url).post('/api/v4/posts').set('Authorization', `Bearer ${world.member.token}`).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(201);
    const read = await world.member.api.get(`/api/v4/posts/${res.body.id}`).expect(200);
    expect(read.body.message.slice(0, 5)).toBe('a\ufffdb\ufffdc');
    expect([...read.body.message]).toHaveLength(16383);
    expect(read.body.message.isWellFormed()).toBe(true);
    // A real pair written as escapes stays the character it encodes.
    const pair = await request(server.url)
      .post('/api/v4/posts')
      .set('Authorization', `Bearer ${world.member.token}`)
      .set('Content-Type', 'application/json')
      .send(`{"channel_id":"${world.townSquareId}","message":"\\ud83d\\ude00"}`)
      .expect(201);
    expect(pair.body.message).toBe('😀');
  });

  test('a body sent to a path the API does not serve is a 404 or 405, whatever its type: routing comes before the body', async () => {
    for (const type of ['multipart/form-data; boundary=x', 'application/json', 'text/plain']) {
      const unknown = await request(server.url).post('/api/v4/no-such-thing').set('Authorization', `Bearer ${world.member.token}`).set('Content-Type', type).send('--x\r\n{');
      expectAppError(unknown, 404);
      const wrongMethod = await request(server.url).put('/api/v4/system/ping').set('Content-Type', type).send('--x\r\n{');
      expectAppError(wrongMethod, 405);
    }
  });

  test('an API body sent as anything but JSON is refused (415), never parsed: a cross-site form cannot pass for an API call', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await request(server.url)
        .post('/api/v4/posts')
        .set('Authorization', `Bearer ${world.member.token}`)
        .set('Content-Type', type)
        .send(JSON.stringify({ channel_id: world.townSquareId, message: 'smuggled' }));
      expectAppError(res, 415, 'api.context.invalid_body_param.app_error');
    }
    const posts = await world.member.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200);
    expect(Object.values(posts.body.posts as Record<string, { message: string }>).map((p) => p.message)).not.toContain('smuggled');
    // application/json with parameters, +json types, and no Content-Type at all are JSON.
    for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
      await request(server.url)
        .post('/api/v4/posts')
        .set('Authorization', `Bearer ${world.member.token}`)
        .set('Content-Type', type)
        .send(JSON.stringify({ channel_id: world.townSquareId, message: 'typed' }))
        .expect(201);
    }
  });

  test('SiteURL takes only http(s) URLs or empty: javascript:, data: and relative values are 400', async () => {
    for (const value of ['javascript:alert(1)', 'data:text/html,x', 'ftp://example.com', '/relative', 'http://']) {
      expectAppError(await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { SiteURL: value } }), 400, 'model.config.is_valid.site_url.app_error');
    }
    const ok = await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { SiteURL: 'https://chat.example.com' } }).expect(200);
    expect(ok.body.ServiceSettings.SiteURL).toBe('https://chat.example.com');
    expect(() => bootSettings(loadBootConfig({ MM_SERVICESETTINGS_SITEURL: 'javascript:alert(1)' }))).toThrow(/Site URL/);
  });

  test('every response says nosniff and no-referrer; HTML pages forbid framing and set a content policy', async () => {
    const answers = [
      await world.member.api.get('/api/v4/users/me'),
      await request(server.url).get('/api/v4/nothing'),
      await request(server.url).post('/hooks/aaaaaaaaaaaaaaaaaaaaaaaaaa').send({ text: 'x' }),
      await request(server.url).get('/api/v4/openapi.json'),
    ];
    for (const res of answers) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    const docs = await request(server.url).get('/api/v4/docs').expect(200);
    expect(docs.headers['x-frame-options']).toBe('DENY');
    expect(docs.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(docs.headers['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
  });
});
