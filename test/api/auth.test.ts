import request, { type Response } from 'supertest';
import { createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { expectAppError } from '../support/assertions';
import { send } from '../support/http';

function expectMe(res: Response, actor: Actor): void {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text}`);
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.body.id).toBe(actor.id);
}

let server: TestServer;
let admin: Actor;
let member: Actor;

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  member = await createUser(server, admin);
});
afterAll(() => server.close());

const me = () => request(server.url).get('/api/v4/users/me');

describe('token sources', () => {
  test.each([
    ['Bearer <t>', (t: string) => `Bearer ${t}`],
    ['BEARER <t> (Client4)', (t: string) => `BEARER ${t}`],
    ['bearer <t>', (t: string) => `bearer ${t}`],
    ['Token <t>', (t: string) => `Token ${t}`],
    ['TOKEN <t>', (t: string) => `TOKEN ${t}`],
    ['Bearer with extra spaces', (t: string) => `Bearer   ${t}  `],
  ])('Authorization: %s is accepted', async (_name, header) => {
    expectMe(await me().set('Authorization', header(member.token)), member);
  });

  test.each([
    ['Basic <t>', (t: string) => `Basic ${t}`],
    ['the bare token', (t: string) => t],
    ['Bearer with no token', () => 'Bearer'],
    ['Bearertoken glued together', (t: string) => `Bearer${t}`],
  ])('Authorization: %s is not a session (401)', async (_name, header) => {
    expectAppError(await me().set('Authorization', header(member.token)), 401, 'api.context.session_expired.app_error');
  });

  test('the MMAUTHTOKEN cookie is accepted, also among other cookies', async () => {
    expectMe(await me().set('Cookie', `MMAUTHTOKEN=${member.token}`), member);
    expectMe(await me().set('Cookie', `MMUSERID=${member.id}; MMAUTHTOKEN=${member.token}; MMCSRF=x`), member);
  });

  test('the Authorization header wins over the cookie (a client that keeps cookies is judged by the token it sends)', async () => {
    expectMe(await me().set('Cookie', `MMAUTHTOKEN=${member.token}`).set('Authorization', `Bearer ${admin.token}`), admin);
  });

  test('an empty MMAUTHTOKEN cookie falls back to the header', async () => {
    expectMe(await me().set('Cookie', 'MMAUTHTOKEN=').set('Authorization', `Bearer ${admin.token}`), admin);
  });

  test('a malformed cookie value is a 401, not a 500', async () => {
    expectAppError(await me().set('Cookie', 'MMAUTHTOKEN=%E0%A4%A'), 401, 'api.context.session_expired.app_error');
  });

  test('access_token in the query is not a session', async () => {
    expectAppError(await request(server.url).get(`/api/v4/users/me?access_token=${member.token}`), 401, 'api.context.session_expired.app_error');
  });
});

describe('sessions', () => {
  test('a garbage token on a session route is 401 api.context.session_expired.app_error', async () => {
    expectAppError(await server.http('garbage').get('/api/v4/users/me'), 401, 'api.context.session_expired.app_error');
    expectAppError(await server.http('a'.repeat(26)).get('/api/v4/users/me'), 401, 'api.context.session_expired.app_error');
  });

  test('no token on a session route is 401', async () => {
    expectAppError(await server.http().get('/api/v4/users/me'), 401, 'api.context.session_expired.app_error');
    expectAppError(await server.http().get('/api/v4/users'), 401, 'api.context.session_expired.app_error');
    expectAppError(await server.http().post('/api/v4/teams', { name: 'nope', display_name: 'Nope', type: 'O' }), 401, 'api.context.session_expired.app_error');
  });

  test('a garbage token on a public route is ignored', async () => {
    const res = await server.http('garbage').get('/api/v4/system/ping');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('OK');
  });
});

describe('errors outside the handlers', () => {
  test('an unknown route is 404 AppError JSON with X-Request-Id and X-Version-Id', async () => {
    expectAppError(await server.http(member.token).get('/api/v4/nothing/here'), 404, 'api.context.404.app_error');
    expectAppError(await server.http().get('/api/v4/nothing/here'), 404, 'api.context.404.app_error');
    expectAppError(await server.http().post('/api/v4/nothing', { a: 1 }), 404, 'api.context.404.app_error');
  });

  test('a known path with the wrong method is 405 AppError JSON', async () => {
    expectAppError(await server.http(member.token).put('/api/v4/system/ping'), 405, 'api.context.405.app_error');
  });

  test('a body that is not JSON is 400 api.context.invalid_body_param.app_error', async () => {
    const res = await request(server.url).post('/api/v4/users/login').set('Content-Type', 'application/json').send('{"login_id": "x", ');
    expectAppError(res, 400, 'api.context.invalid_body_param.app_error');
  });

  test('unknown JSON fields in a body are ignored', async () => {
    const res = await request(server.url)
      .post('/api/v4/users/login')
      .send({ login_id: member.username, password: 'Passw0rd!', token: '', deviceId: '', something_new: { x: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(member.id);
  });
});

describe('MaximumPayloadSizeBytes', () => {
  const LIMIT = 2048;
  beforeAll(async () => {
    const res = await admin.api.put('/api/v4/config/patch', { ServiceSettings: { MaximumPayloadSizeBytes: LIMIT } });
    expect(res.status).toBe(200);
    expect(res.body.ServiceSettings.MaximumPayloadSizeBytes).toBe(LIMIT);
  });
  afterAll(async () => {
    const res = await admin.api.put('/api/v4/config/patch', { ServiceSettings: { MaximumPayloadSizeBytes: 300000 } });
    expect(res.status).toBe(200);
  });

  test('a body just under the limit is read', async () => {
    const body = JSON.stringify({ nickname: 'n', padding: 'x'.repeat(LIMIT - 40) });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(LIMIT);
    const res = await member.api.put('/api/v4/users/me/patch', undefined).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(200);
    expect(res.body.nickname).toBe('n');
  });

  test('a larger body is 413 api.context.request_body_too_large.app_error', async () => {
    const res = await member.api.put('/api/v4/users/me/patch', { nickname: 'big', padding: 'x'.repeat(LIMIT + 10) });
    expectAppError(res, 413, 'api.context.request_body_too_large.app_error');
    expect((await member.api.get('/api/v4/users/me')).body.nickname).toBe('n');
  });

  test('a larger body sent chunked (no Content-Length) is 413 too', async () => {
    const payload = `{"nickname":"chunked","padding":"${'x'.repeat(8 * 512)}"}`;
    const res = await send(server.url, {
      method: 'PUT',
      path: '/api/v4/users/me/patch',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${member.token}` },
      body: payload,
      chunked: 512,
    });
    expectAppError(res, 413, 'api.context.request_body_too_large.app_error');
    expect((await member.api.get('/api/v4/users/me')).body.nickname).toBe('n');
  });
});
