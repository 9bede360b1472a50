// Browser sessions: the cookies login sets, and the CSRF guard on cookie-authenticated state changes.
import request from 'supertest';
import { PASSWORD, createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { expectAppError } from '../support/assertions';

let server: TestServer;
let world: World;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterAll(() => server.close());

interface BrowserLogin {
  cookies: Record<string, string>;
  setCookie: string[];
  cookieHeader: string;
}

async function browserLogin(username: string): Promise<BrowserLogin> {
  const res = await request(server.url).post('/api/v4/users/login').set('X-Requested-With', 'XMLHttpRequest').send({ login_id: username, password: PASSWORD }).expect(200);
  const setCookie = res.headers['set-cookie'] as unknown as string[];
  const cookies: Record<string, string> = {};
  for (const c of setCookie) {
    const [pair] = c.split(';');
    const eq = pair.indexOf('=');
    cookies[pair.slice(0, eq)] = decodeURIComponent(pair.slice(eq + 1));
  }
  return { cookies, setCookie, cookieHeader: Object.entries(cookies).map(([k, v]) => `${k}=${v}`).join('; ') };
}

describe('login cookies', () => {
  test('a browser login (X-Requested-With) sets MMAUTHTOKEN (HttpOnly, SameSite) = the Token header, MMUSERID and MMCSRF (readable)', async () => {
    const res = await request(server.url).post('/api/v4/users/login').set('X-Requested-With', 'XMLHttpRequest').send({ login_id: world.member.username, password: PASSWORD }).expect(200);
    const setCookie = res.headers['set-cookie'] as unknown as string[];
    const byName = new Map(setCookie.map((c) => [c.split('=')[0], c]));
    expect([...byName.keys()].sort()).toEqual(['MMAUTHTOKEN', 'MMCSRF', 'MMUSERID']);
    expect(byName.get('MMAUTHTOKEN')).toContain(`MMAUTHTOKEN=${res.headers.token}`);
    expect(byName.get('MMAUTHTOKEN')).toMatch(/; HttpOnly/);
    expect(byName.get('MMUSERID')).toContain(`MMUSERID=${world.member.id}`);
    for (const c of setCookie) {
      expect(c).toMatch(/; Path=\//);
      expect(c).toMatch(/; SameSite=Lax/);
      // 30 days, Mattermost's default web session length.
      expect(c).toMatch(/; Max-Age=2592000/);
    }
    expect(byName.get('MMUSERID')).not.toMatch(/HttpOnly/);
    expect(byName.get('MMCSRF')).not.toMatch(/HttpOnly/);
    expect(byName.get('MMCSRF')).toMatch(/^MMCSRF=[a-z0-9]{26};/);
  });

  test('any other login gets the Token header and no cookies, as in Mattermost', async () => {
    for (const headers of [{}, { 'X-Requested-With': 'fetch' }]) {
      const res = await request(server.url).post('/api/v4/users/login').set(headers).send({ login_id: world.member.username, password: PASSWORD }).expect(200);
      expect(res.headers.token).toMatch(/^[a-z0-9]{26}$/);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  test('the cookies alone authenticate a read', async () => {
    const login = await browserLogin(world.member.username);
    const res = await request(server.url).get('/api/v4/users/me').set('Cookie', login.cookieHeader).expect(200);
    expect(res.body.id).toBe(world.member.id);
  });

  test('logout revokes the session and expires every cookie', async () => {
    const login = await browserLogin(world.member.username);
    const res = await request(server.url).post('/api/v4/users/logout').set('Cookie', login.cookieHeader).set('X-Requested-With', 'XMLHttpRequest').expect(200);
    const cleared = res.headers['set-cookie'] as unknown as string[];
    expect(cleared.map((c) => c.split('=')[0]).sort()).toEqual(['MMAUTHTOKEN', 'MMCSRF', 'MMUSERID']);
    for (const c of cleared) expect(c).toMatch(/Max-Age=0/);
    expectAppError(await request(server.url).get('/api/v4/users/me').set('Cookie', login.cookieHeader), 401, 'api.context.session_expired.app_error');
  });
});

describe('CSRF guard on cookie-authenticated state changes', () => {
  const post = (cookie: string, headers: Record<string, string> = {}) => {
    let t = request(server.url).post('/api/v4/posts').set('Cookie', cookie).set('Content-Type', 'application/json');
    for (const [k, v] of Object.entries(headers)) t = t.set(k, v);
    return t.send(JSON.stringify({ channel_id: world.townSquareId, message: 'from a page' }));
  };

  test('without X-CSRF-Token or X-Requested-With: 401, and nothing is posted', async () => {
    const login = await browserLogin(world.member.username);
    const before = await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200);
    expectAppError(await post(login.cookieHeader), 401, 'api.context.session_expired.app_error');
    const after = await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200);
    expect(after.body.order).toEqual(before.body.order);
  });

  test('a wrong X-CSRF-Token is refused', async () => {
    const login = await browserLogin(world.member.username);
    expectAppError(await post(login.cookieHeader, { 'X-CSRF-Token': 'x'.repeat(26) }), 401, 'api.context.session_expired.app_error');
  });

  test("another session's CSRF token is refused", async () => {
    const mine = await browserLogin(world.member.username);
    const theirs = await browserLogin(world.admin.username);
    expectAppError(await post(mine.cookieHeader, { 'X-CSRF-Token': theirs.cookies.MMCSRF }), 401, 'api.context.session_expired.app_error');
  });

  test('the session CSRF token (from MMCSRF) passes', async () => {
    const login = await browserLogin(world.member.username);
    const res = await post(login.cookieHeader, { 'X-CSRF-Token': login.cookies.MMCSRF });
    expect(res.status).toBe(201);
    expect(res.body.user_id).toBe(world.member.id);
  });

  test('X-Requested-With: XMLHttpRequest passes (what Mattermost accepts from older apps)', async () => {
    const login = await browserLogin(world.member.username);
    expect((await post(login.cookieHeader, { 'X-Requested-With': 'XMLHttpRequest' })).status).toBe(201);
  });

  test('ExperimentalStrictCSRFEnforcement: X-Requested-With alone is refused (nothing posted), the CSRF token still passes', async () => {
    const login = await browserLogin(world.member.username);
    await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { ExperimentalStrictCSRFEnforcement: true } }).expect(200);
    try {
      const before = await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200);
      expectAppError(await post(login.cookieHeader, { 'X-Requested-With': 'XMLHttpRequest' }), 401, 'api.context.session_expired.app_error');
      // The review's reproduction: a profile patch with the cookie and X-Requested-With only.
      const patch = await request(server.url).put('/api/v4/users/me/patch').set('Cookie', login.cookieHeader).set('X-Requested-With', 'XMLHttpRequest').send({ nickname: 'csrf' });
      expectAppError(patch, 401, 'api.context.session_expired.app_error');
      const after = await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200);
      expect(after.body.order).toEqual(before.body.order);
      expect((await post(login.cookieHeader, { 'X-Requested-With': 'XMLHttpRequest', 'X-CSRF-Token': login.cookies.MMCSRF })).status).toBe(201);
      // Reads and header tokens are untouched by the setting.
      await request(server.url).get('/api/v4/users/me').set('Cookie', login.cookieHeader).expect(200);
      await world.member.api.put('/api/v4/users/me/patch', { nickname: 'header-token' }).expect(200);
    } finally {
      await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { ExperimentalStrictCSRFEnforcement: false } }).expect(200);
    }
  });

  test('a token in the Authorization header needs no CSRF token (another site cannot send it)', async () => {
    const res = await request(server.url).post('/api/v4/posts').set('Authorization', `Bearer ${world.member.token}`).send({ channel_id: world.townSquareId, message: 'api client' });
    expect(res.status).toBe(201);
  });

  test('reads with the cookie need no CSRF token', async () => {
    const login = await browserLogin(world.member.username);
    await request(server.url).get(`/api/v4/channels/${world.townSquareId}/posts`).set('Cookie', login.cookieHeader).expect(200);
  });
});
