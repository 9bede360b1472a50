// mattermostdriver (Python; the most used Mattermost bot library) on the wire, request for request: raw HTTP with the
// headers its `requests` session sends, a cookie jar kept across requests (the driver hands the login's cookies back
// on every call) and the token as `Authorization: Bearer`. Issue #21: its login body carries `"token": null` (the MFA
// token defaults to None), and a cookie set by that login made its next POST look like a cookie-authenticated page
// without a CSRF token (401). Both must stay fixed.
import { send, type RawAnswer } from '../support/http';
import { PASSWORD, createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { connect } from '../support/ws';

let server: TestServer;
let world: World;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterAll(() => server.close());

/** What python-requests keeps between calls: every cookie the server set, sent back on every request. */
class CookieJar {
  readonly cookies = new Map<string, string>();

  take(answer: RawAnswer): void {
    const set = answer.headers['set-cookie'] ?? [];
    for (const line of set) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      // An expired cookie (logout) leaves the jar, as in requests.
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string | undefined {
    return this.cookies.size === 0 ? undefined : [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** The driver's client: requests' default headers, its Bearer token once logged in, and the jar on every call. */
class DriverClient {
  token: string | undefined;

  constructor(readonly jar = new CookieJar()) {}

  async call(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<RawAnswer> {
    const headers: Record<string, string> = {
      'User-Agent': 'python-requests/2.31.0',
      'Accept-Encoding': 'gzip, deflate',
      Accept: '*/*',
      Connection: 'keep-alive',
      ...extra,
    };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const cookie = this.jar.header();
    if (cookie) headers.Cookie = cookie;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    const answer = await send(server.url, { method, path: `/api/v4${path}`, headers, body: payload });
    this.jar.take(answer);
    return answer;
  }

  /** Driver.login(): `{login_id, password, token: mfa_token}` with mfa_token None, then the Token header kept. */
  async login(loginId: string, extra: Record<string, string> = {}): Promise<RawAnswer> {
    const answer = await this.call('POST', '/users/login', { login_id: loginId, password: PASSWORD, token: null }, extra);
    if (answer.status === 200) this.token = String(answer.headers.token);
    return answer;
  }
}

const expectOk = (answer: RawAnswer, status: number) => {
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status}: ${answer.text}`);
};

describe("mattermostdriver's journey", () => {
  test('login with "token": null, then GET users/me and POST /posts with the Bearer token and the jar', async () => {
    const driver = new DriverClient();
    const login = await driver.login(world.member.username);
    expectOk(login, 200);
    expect(login.json.id).toBe(world.member.id);
    expect(driver.token).toMatch(/^[a-z0-9]{26}$/);

    const me = await driver.call('GET', '/users/me');
    expectOk(me, 200);
    expect(me.json.id).toBe(world.member.id);

    const posted = await driver.call('POST', '/posts', { channel_id: world.townSquareId, message: 'hello from a bot' });
    expectOk(posted, 201);
    expect(posted.json.user_id).toBe(world.member.id);
    expect(posted.json.message).toBe('hello from a bot');

    const patched = await driver.call('PUT', `/users/${world.member.id}/patch`, { nickname: 'bot-made', position: null });
    expectOk(patched, 200);
    expect(patched.json.nickname).toBe('bot-made');
  });

  test('its login gets no session cookies (not a browser login), as from Mattermost', async () => {
    const driver = new DriverClient();
    const login = await driver.login(world.member.username);
    expectOk(login, 200);
    expect(login.headers['set-cookie']).toBeUndefined();
    expect(driver.jar.cookies.size).toBe(0);
  });

  test('every optional login field may be null (Mattermost reads the body as a map of strings)', async () => {
    const driver = new DriverClient();
    const login = await driver.call('POST', '/users/login', { login_id: world.member.username, id: null, password: PASSWORD, token: null, device_id: null, deviceId: null, ldap_only: null });
    expectOk(login, 200);
    expect(login.json.id).toBe(world.member.id);
  });

  test('a null password is still no password: 400, never a login', async () => {
    const driver = new DriverClient();
    const login = await driver.call('POST', '/users/login', { login_id: world.member.username, password: null, token: null });
    expect(login.status).toBe(400);
    expect(login.json.status_code).toBe(400);
  });
});

describe('browser logins and the CSRF rule stay as they were', () => {
  test('a browser login (X-Requested-With) still gets the session cookies', async () => {
    const browser = new DriverClient();
    const login = await browser.login(world.member.username, { 'X-Requested-With': 'XMLHttpRequest' });
    expectOk(login, 200);
    expect([...browser.jar.cookies.keys()].sort()).toEqual(['MMAUTHTOKEN', 'MMCSRF', 'MMUSERID']);
    expect(browser.jar.cookies.get('MMAUTHTOKEN')).toBe(browser.token);
  });

  test('a POST with the cookie alone, without a CSRF token, is still 401 and posts nothing', async () => {
    const browser = new DriverClient();
    expectOk(await browser.login(world.member.username, { 'X-Requested-With': 'XMLHttpRequest' }), 200);
    browser.token = undefined;
    const before = (await server.http(world.admin.token).get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200)).body.order;
    const refused = await browser.call('POST', '/posts', { channel_id: world.townSquareId, message: 'forged' });
    expect(refused.status).toBe(401);
    expect(refused.json.id).toBe('api.context.session_expired.app_error');
    const after = (await server.http(world.admin.token).get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200)).body.order;
    expect(after).toEqual(before);
    // With the CSRF token the same cookie passes: the page's way.
    const page = await browser.call('POST', '/posts', { channel_id: world.townSquareId, message: 'from the page' }, { 'X-CSRF-Token': browser.jar.cookies.get('MMCSRF') as string });
    expectOk(page, 201);
  });
});

describe('Bearer with cookies: judged by the Bearer token', () => {
  test('a driver holding browser-login cookies posts with its Bearer token and no CSRF header', async () => {
    // The worst case of the issue: the jar holds a full cookie session (here from a browser-style login).
    const driver = new DriverClient();
    expectOk(await driver.login(world.member.username, { 'X-Requested-With': 'XMLHttpRequest' }), 200);
    expect(driver.jar.cookies.has('MMAUTHTOKEN')).toBe(true);
    const posted = await driver.call('POST', '/posts', { channel_id: world.townSquareId, message: 'bearer beside a cookie' });
    expectOk(posted, 201);
    expect(posted.json.user_id).toBe(world.member.id);
  });

  test('a stale cookie (its session logged out) beside a valid Bearer token', async () => {
    const old = new DriverClient();
    expectOk(await old.login(world.member.username, { 'X-Requested-With': 'XMLHttpRequest' }), 200);
    const staleCookie = old.jar.header() as string;
    const ended = await send(server.url, { method: 'POST', path: '/api/v4/users/logout', headers: { Authorization: `Bearer ${old.token}` } });
    expect(ended.status).toBe(200);

    const driver = new DriverClient();
    expectOk(await driver.login(world.member.username), 200);
    for (const [k, v] of staleCookie.split('; ').map((p) => p.split('='))) driver.jar.cookies.set(k, v);
    expectOk(await driver.call('GET', '/users/me'), 200);
    expectOk(await driver.call('POST', '/posts', { channel_id: world.townSquareId, message: 'stale cookie ignored' }), 201);
  });

  test("another user's cookie beside the Bearer token: the request is the Bearer token's user's", async () => {
    const admin = new DriverClient();
    expectOk(await admin.login(world.admin.username, { 'X-Requested-With': 'XMLHttpRequest' }), 200);
    const driver = new DriverClient();
    expectOk(await driver.login(world.member.username), 200);
    for (const [k, v] of admin.jar.cookies) driver.jar.cookies.set(k, v);
    const me = await driver.call('GET', '/users/me');
    expect(me.json.id).toBe(world.member.id);
    const posted = await driver.call('POST', '/posts', { channel_id: world.townSquareId, message: 'whose post' });
    expectOk(posted, 201);
    expect(posted.json.user_id).toBe(world.member.id);
  });

  test('a Bearer token that resolves to no session is 401, even beside a valid cookie', async () => {
    const browser = new DriverClient();
    expectOk(await browser.login(world.member.username, { 'X-Requested-With': 'XMLHttpRequest' }), 200);
    browser.token = 'x'.repeat(26);
    const me = await browser.call('GET', '/users/me');
    expect(me.status).toBe(401);
    expect(me.json.id).toBe('api.context.session_expired.app_error');
  });
});

describe("mattermostdriver as a bot (Driver({'token': <the bot's access token>}))", () => {
  test("login() with a token is GET users/me; posts carry from_bot; its WebSocket's authentication_challenge gets hello and OK, then posted", async () => {
    // The bot and its token, made by its owner with personal access tokens off (the server's default).
    await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableBotAccountCreation: true } }).expect(200);
    const bot = (await world.admin.api.post('/api/v4/bots', { username: `driverbot${process.pid}`, display_name: 'Driver bot' }).expect(201)).body;
    const token = (await world.admin.api.post(`/api/v4/users/${bot.user_id}/tokens`, { description: 'mattermostdriver' }).expect(200)).body.token as string;
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: bot.user_id }).expect(201);
    await world.admin.api.post(`/api/v4/channels/${world.townSquareId}/members`, { user_id: bot.user_id }).expect(201);

    const driver = new DriverClient();
    driver.token = token;
    // Driver.login() with options['token']: no POST users/login, only users/me with the Bearer token.
    const me = await driver.call('GET', '/users/me');
    expectOk(me, 200);
    expect(me.json).toMatchObject({ id: bot.user_id, is_bot: true });

    // driver.init_websocket: no header, then {"seq":1,"action":"authentication_challenge","data":{"token":…}}.
    const socket = await connect(server.url, { challenge: token });
    try {
      const ok = await socket.reply(1);
      expect(ok).toMatchObject({ status: 'OK', seq_reply: 1 });
      const hello = socket.events.find((f) => f.event === 'hello');
      expect(hello?.broadcast?.user_id).toBe(bot.user_id);

      // driver.posts.create_post(options={...}): the bot's post, marked by the server.
      const from = socket.events.length;
      const posted = await driver.call('POST', '/posts', { channel_id: world.townSquareId, message: 'build green' });
      expectOk(posted, 201);
      expect(posted.json.user_id).toBe(bot.user_id);
      expect(posted.json.props.from_bot).toBe('true');

      // A person's post reaches the bot's socket.
      const human = await server.http(world.member.token).post('/api/v4/posts', { channel_id: world.townSquareId, message: 'thanks bot' }).expect(201);
      const event = await socket.next((f) => f.event === 'posted' && JSON.parse(f.data?.post).id === human.body.id, { from });
      expect(JSON.parse(event.data?.post).user_id).toBe(world.member.id);
      expect(socket.problems).toEqual([]);
    } finally {
      await socket.close();
    }
    // Its password login (there is none) is refused as Mattermost refuses it.
    const login = await new DriverClient().login(bot.username);
    expect(login.status).toBe(401);
    expect(login.json.id).toBe('api.user.login.bot_login_forbidden.app_error');
  });
});
