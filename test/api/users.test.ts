import type { Response } from 'supertest';
import { newId } from '../../src/lib/ids';
import type { UserRecord } from '../../src/model';
import { PASSWORD, createUser, login, startTestServer, type Actor, type TestServer } from '../support/server';
import { expectStatus, expectAppError } from '../support/assertions';

function expectNoSecrets(user: Record<string, unknown>): void {
  expect(user).not.toHaveProperty('password');
  expect(user).not.toHaveProperty('mfa_secret');
  expect(user.auth_data ?? '').toBe('');
  expect(JSON.stringify(user)).not.toContain('scrypt$');
}

let server: TestServer;
let seq = 0;
const unique = (prefix: string) => `${prefix}${process.pid}n${++seq}`;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

let admin: Actor;
let member: Actor;

async function patchConfig(patch: Record<string, unknown>): Promise<void> {
  expectStatus(await admin.api.put('/api/v4/config/patch', patch), 200);
}

describe('CreateUser', () => {
  test('the first user needs no session and becomes system_admin system_user', async () => {
    const username = unique('first');
    const res = await server.http().post('/api/v4/users', {
      username,
      email: `${username}@example.com`,
      password: PASSWORD,
      first_name: 'Ada',
      last_name: 'Admin',
    });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ username, email: `${username}@example.com`, roles: 'system_admin system_user', delete_at: 0, first_name: 'Ada', locale: 'en' });
    expect(res.body.id).toMatch(/^[a-z0-9]{26}$/);
    expect(res.body.create_at).toBeGreaterThan(Date.now() - 60_000);
    // Your own record keeps your preferences, with Mattermost's defaults.
    expect(res.body.notify_props).toMatchObject({ email: 'true', push: 'mention', desktop: 'mention', channel: 'true' });
    expectNoSecrets(res.body);
    admin = await login(server, res.body.id, username);
  });

  test('the second user is a plain system_user', async () => {
    member = await createUser(server, admin);
    const me = await member.api.get('/api/v4/users/me');
    expectStatus(me, 200);
    expect(me.body.roles).toBe('system_user');
  });

  test('an anonymous sign-up is 403 api.user.create_user.no_open_server while the server is not open', async () => {
    const username = unique('anon');
    const res = await server.http().post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD });
    expectAppError(res, 403, 'api.user.create_user.no_open_server');
    expectStatus(await admin.api.get(`/api/v4/users/username/${username}`), 404);
  });

  test('a member (not an admin) cannot create users on a closed server either', async () => {
    const username = unique('bymember');
    expectAppError(
      await member.api.post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD }),
      403,
      'api.user.create_user.no_open_server',
    );
  });

  test('an admin can create users on a closed server', async () => {
    const username = unique('byadmin');
    const res = await admin.api.post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD });
    expectStatus(res, 201);
    expect(res.body.roles).toBe('system_user');
    expectNoSecrets(res.body);
  });

  test('with EnableOpenServer on, anonymous sign-up works and gives system_user', async () => {
    await patchConfig({ TeamSettings: { EnableOpenServer: true } });
    try {
      const username = unique('open');
      const res = await server.http().post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD });
      expectStatus(res, 201);
      expect(res.body.roles).toBe('system_user');
      const actor = await login(server, res.body.id, username);
      expect((await actor.api.get('/api/v4/users/me')).body.username).toBe(username);
    } finally {
      await patchConfig({ TeamSettings: { EnableOpenServer: false } });
    }
  });

  test('with EnableUserCreation off, anonymous sign-up is refused even on an open server; an admin still can', async () => {
    await patchConfig({ TeamSettings: { EnableOpenServer: true, EnableUserCreation: false } });
    try {
      const username = unique('closed');
      // Mattermost's IsUserSignUpAllowed answers 501 with this id.
      expectAppError(
        await server.http().post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD }),
        501,
        'api.user.create_user.signup_email_disabled.app_error',
      );
      expectStatus(await admin.api.post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD }), 201);
    } finally {
      await patchConfig({ TeamSettings: { EnableOpenServer: false, EnableUserCreation: true } });
    }
  });

  test('the username and e-mail are stored in lower case', async () => {
    const base = unique('MixedCase');
    const res = await admin.api.post('/api/v4/users', { username: base, email: `${base}@Example.COM`, password: PASSWORD });
    expectStatus(res, 201);
    expect(res.body.username).toBe(base.toLowerCase());
    expect(res.body.email).toBe(`${base.toLowerCase()}@example.com`);
    const byName = await admin.api.get(`/api/v4/users/username/${base.toLowerCase()}`);
    expectStatus(byName, 200);
    expect(byName.body.id).toBe(res.body.id);
  });

  test.each([
    ['a space in the username', 'model.user.is_valid.username.app_error', { username: 'has space' }],
    ['a reserved username', 'model.user.is_valid.username.app_error', { username: 'all' }],
    ['an empty username', 'model.user.is_valid.username.app_error', { username: '' }],
    ['a 65-character username', 'model.user.is_valid.username.app_error', { username: 'a'.repeat(65) }],
    ['a username with "@"', 'model.user.is_valid.username.app_error', { username: 'a@b' }],
    ['an invalid e-mail', 'model.user.is_valid.email.app_error', { email: 'not-an-email' }],
    ['an e-mail with an empty domain label', 'model.user.is_valid.email.app_error', { email: 'x@example..com' }],
    ['a short password', 'model.user.is_valid.pwd.app_error', { password: 'short' }],
    ['a password over 72 bytes', 'model.user.is_valid.pwd.app_error', { password: 'é'.repeat(37) }],
    ['a 65-character nickname', 'model.user.is_valid.nickname.app_error', { nickname: 'n'.repeat(65) }],
    ['a 129-character position', 'model.user.is_valid.position.app_error', { position: 'p'.repeat(129) }],
  ])('%s is 400 %s', async (_name, id, fields) => {
    const username = unique('valid');
    const res = await admin.api.post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD, ...fields });
    expectAppError(res, 400, id);
  });

  test('a 64-character username and 64 emoji as nickname are accepted (limits count code points)', async () => {
    const username = `${unique('long')}`.padEnd(64, 'x');
    const res = await admin.api.post('/api/v4/users', { username, email: `${unique('long')}@example.com`, password: PASSWORD, nickname: '😀'.repeat(64) });
    expectStatus(res, 201);
    expect(res.body.username).toBe(username);
    expect(res.body.nickname).toBe('😀'.repeat(64));
  });

  test('a missing required field is 400', async () => {
    expectAppError(await admin.api.post('/api/v4/users', { username: unique('nomail'), password: PASSWORD }), 400, 'api.context.invalid_param.app_error');
  });

  test('a duplicate username (in any case) is 400 app.user.save.username_exists.app_error', async () => {
    const username = unique('dup');
    expectStatus(await admin.api.post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD }), 201);
    expectAppError(
      await admin.api.post('/api/v4/users', { username: username.toUpperCase(), email: `other${username}@example.com`, password: PASSWORD }),
      400,
      'app.user.save.username_exists.app_error',
    );
  });

  test('a duplicate e-mail (in any case) is 400 app.user.save.email_exists.app_error', async () => {
    const username = unique('dupmail');
    expectStatus(await admin.api.post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD }), 201);
    expectAppError(
      await admin.api.post('/api/v4/users', { username: `${username}b`, email: `${username.toUpperCase()}@EXAMPLE.com`, password: PASSWORD }),
      400,
      'app.user.save.email_exists.app_error',
    );
  });

  test('roles in the body are ignored: sign-up cannot make an admin', async () => {
    await patchConfig({ TeamSettings: { EnableOpenServer: true } });
    try {
      const username = unique('sneaky');
      const res = await server.http().post('/api/v4/users', { username, email: `${username}@example.com`, password: PASSWORD, roles: 'system_admin system_user' });
      expectStatus(res, 201);
      expect(res.body.roles).toBe('system_user');
    } finally {
      await patchConfig({ TeamSettings: { EnableOpenServer: false } });
    }
  });
});

describe('Login and Logout', () => {
  test('login returns the user and a Token header that works as a bearer token', async () => {
    const res = await server.http().post('/api/v4/users/login', { login_id: member.username, password: PASSWORD, token: '', deviceId: '' });
    expectStatus(res, 200);
    expect(res.headers.token).toMatch(/^[a-z0-9]{26}$/);
    expect(res.body.id).toBe(member.id);
    expectNoSecrets(res.body);
    const me = await server.http(res.headers.token).get('/api/v4/users/me');
    expectStatus(me, 200);
    expect(me.body.id).toBe(member.id);
  });

  test('login by e-mail (any case), by username in upper case and by id', async () => {
    for (const body of [
      { login_id: `${member.username.toUpperCase()}@EXAMPLE.COM`, password: PASSWORD },
      { login_id: member.username.toUpperCase(), password: PASSWORD },
      { id: member.id, password: PASSWORD },
    ]) {
      const res = await server.http().post('/api/v4/users/login', body);
      expectStatus(res, 200);
      expect(res.body.id).toBe(member.id);
      expect(res.headers.token).toMatch(/^[a-z0-9]{26}$/);
    }
  });

  test('a wrong password is 401 api.user.login.invalid_credentials_email_username, with no token', async () => {
    const res = await server.http().post('/api/v4/users/login', { login_id: member.username, password: 'wrong-password' });
    expectAppError(res, 401, 'api.user.login.invalid_credentials_email_username');
    expect(res.headers.token).toBeUndefined();
  });

  test('an unknown user gets the same 401 as a wrong password', async () => {
    expectAppError(
      await server.http().post('/api/v4/users/login', { login_id: 'nobody-here', password: PASSWORD }),
      401,
      'api.user.login.invalid_credentials_email_username',
    );
  });

  test('a blank password is 400; a missing one too', async () => {
    expectAppError(await server.http().post('/api/v4/users/login', { login_id: member.username, password: '' }), 400, 'api.user.login.blank_pwd.app_error');
    expectAppError(await server.http().post('/api/v4/users/login', { login_id: member.username }), 400, 'api.context.invalid_param.app_error');
  });

  test('logout revokes the token: afterwards it is 401', async () => {
    const session = await login(server, member.id, member.username);
    expectStatus(await session.api.get('/api/v4/users/me'), 200);
    const out = await session.api.post('/api/v4/users/logout');
    expectStatus(out, 200);
    expect(out.body).toEqual({ status: 'OK' });
    expectAppError(await session.api.get('/api/v4/users/me'), 401, 'api.context.session_expired.app_error');
    // Other sessions of the same user are untouched.
    expectStatus(await member.api.get('/api/v4/users/me'), 200);
  });

  test('logout without a token, or with a dead one, still answers OK', async () => {
    const anonymous = await server.http().post('/api/v4/users/logout');
    expectStatus(anonymous, 200);
    expect(anonymous.body).toEqual({ status: 'OK' });
    const dead = await server.http('deadtokendeadtokendeadtoke').post('/api/v4/users/logout');
    expectStatus(dead, 200);
    expect(dead.body).toEqual({ status: 'OK' });
  });
});

describe('GetUser', () => {
  test('me is the caller, with own preferences and no secrets', async () => {
    const res = await member.api.get('/api/v4/users/me');
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: member.id, username: member.username, email: `${member.username}@example.com` });
    expect(res.body.notify_props.email).toBe('true');
    expect(res.body.last_password_update).toBeGreaterThan(0);
    expectNoSecrets(res.body);
  });

  test("another user's profile is sanitised", async () => {
    const res = await member.api.get(`/api/v4/users/${admin.id}`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: admin.id, username: admin.username, notify_props: {}, last_password_update: 0, failed_attempts: 0, email_verified: false });
    // Defaults: ShowEmailAddress and ShowFullName are on.
    expect(res.body.email).toBe(`${admin.username}@example.com`);
    expect(res.body.first_name).toBe('Ada');
    expectNoSecrets(res.body);
  });

  test('PrivacySettings hide e-mail and full name from members but not from admins; the ETag follows', async () => {
    const before = await member.api.get(`/api/v4/users/${admin.id}`);
    await patchConfig({ PrivacySettings: { ShowEmailAddress: false, ShowFullName: false } });
    try {
      const hidden = await member.api.get(`/api/v4/users/${admin.id}`).set('If-None-Match', before.headers.etag);
      expectStatus(hidden, 200);
      expect(hidden.body).toMatchObject({ email: '', first_name: '', last_name: '', username: admin.username });
      const byName = await member.api.get(`/api/v4/users/username/${admin.username}`);
      expect(byName.body).toMatchObject({ email: '', first_name: '' });
      const list = await member.api.post('/api/v4/users/ids', [admin.id]);
      expect(list.body[0]).toMatchObject({ email: '', first_name: '' });
      const asAdmin = await admin.api.get(`/api/v4/users/${member.id}`);
      expect(asAdmin.body.email).toBe(`${member.username}@example.com`);
      expect(asAdmin.body.notify_props).toEqual({});
      const own = await admin.api.get('/api/v4/users/me');
      expect(own.body.first_name).toBe('Ada');
    } finally {
      await patchConfig({ PrivacySettings: { ShowEmailAddress: true, ShowFullName: true } });
    }
  });

  test('ETag, then If-None-Match with it is 304 with an empty body; a change gives a new ETag', async () => {
    const first = await member.api.get('/api/v4/users/me');
    expectStatus(first, 200);
    const etag = first.headers.etag;
    expect(etag).toEqual(expect.any(String));
    const again = await member.api.get('/api/v4/users/me').set('If-None-Match', etag);
    expect(again.status).toBe(304);
    expect(again.text ?? '').toBe('');
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['x-request-id']).toMatch(/^[a-z0-9]{26}$/);
    expect(again.headers['x-version-id']).toEqual(expect.any(String));

    const stale = await member.api.get('/api/v4/users/me').set('If-None-Match', 'something-else');
    expectStatus(stale, 200);

    expectStatus(await member.api.put('/api/v4/users/me/patch', { nickname: unique('nick') }), 200);
    const changed = await member.api.get('/api/v4/users/me').set('If-None-Match', etag);
    expectStatus(changed, 200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  test('the same user seen by someone else has a different ETag than seen by themselves', async () => {
    const own = await member.api.get('/api/v4/users/me');
    const other = await admin.api.get(`/api/v4/users/${member.id}`);
    expect(own.headers.etag).not.toBe(other.headers.etag);
    expectStatus(await admin.api.get(`/api/v4/users/${member.id}`).set('If-None-Match', own.headers.etag), 200);
  });

  test('an unknown id is 404; a malformed id is 400; no token is 401', async () => {
    expectAppError(await member.api.get(`/api/v4/users/${newId()}`), 404, 'app.user.missing_account.const');
    expectAppError(await member.api.get('/api/v4/users/not-an-id'), 400, 'api.context.invalid_param.app_error');
    expectAppError(await server.http().get(`/api/v4/users/${member.id}`), 401, 'api.context.session_expired.app_error');
  });
});

describe('GetUserByUsername', () => {
  test('finds a user (also in upper case) with an ETag', async () => {
    const res = await member.api.get(`/api/v4/users/username/${admin.username.toUpperCase()}`);
    expectStatus(res, 200);
    expect(res.body.id).toBe(admin.id);
    expect(res.body.notify_props).toEqual({});
    expectNoSecrets(res.body);
    expect(res.headers.etag).toEqual(expect.any(String));
    const again = await member.api.get(`/api/v4/users/username/${admin.username}`).set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
  });

  test('only the exact name matches, on every database (no accent or trailing-space folding)', async () => {
    const plain = await admin.api.post('/api/v4/users', { username: unique('jose'), email: `${unique('jose')}@example.com`, password: PASSWORD });
    expectStatus(plain, 201);
    const name = plain.body.username as string;
    const accented = encodeURIComponent(name.replace('e', 'é'));
    expectAppError(await member.api.get(`/api/v4/users/username/${accented}`), 404, 'app.user.get_by_username.app_error');
    expectAppError(await member.api.get(`/api/v4/users/username/${name}%20`), 404, 'app.user.get_by_username.app_error');
    expectAppError(
      await server.http().post('/api/v4/users/login', { login_id: name.replace('e', 'é'), password: PASSWORD }),
      401,
      'api.user.login.invalid_credentials_email_username',
    );
  });

  test('unknown is 404 app.user.get_by_username.app_error; no token is 401', async () => {
    expectAppError(await member.api.get('/api/v4/users/username/nobody-at-all'), 404, 'app.user.get_by_username.app_error');
    expectAppError(await server.http().get(`/api/v4/users/username/${admin.username}`), 401, 'api.context.session_expired.app_error');
  });
});

describe('PatchUser', () => {
  test('a user patches their own profile and reads it back', async () => {
    const res = await member.api.put('/api/v4/users/me/patch', {
      nickname: 'Nicky',
      first_name: 'Mem',
      position: 'Tester',
      notify_props: { push: 'all' },
      props: { team: 'qa' },
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: member.id, nickname: 'Nicky', first_name: 'Mem', position: 'Tester', props: { team: 'qa' } });
    // notify_props are merged key by key.
    expect(res.body.notify_props).toMatchObject({ push: 'all', email: 'true' });
    expectNoSecrets(res.body);
    const me = await member.api.get('/api/v4/users/me');
    expect(me.body).toMatchObject({ nickname: 'Nicky', first_name: 'Mem', position: 'Tester' });
    expect(me.body.notify_props.push).toBe('all');
    expect(me.body.update_at).toBeGreaterThanOrEqual(me.body.create_at);
  });

  test('roles and other unknown fields in a patch are ignored', async () => {
    const res = await member.api.put(`/api/v4/users/${member.id}/patch`, { roles: 'system_admin system_user', delete_at: 5, nickname: 'Still' });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ roles: 'system_user', delete_at: 0, nickname: 'Still' });
    expectAppError(await member.api.get('/api/v4/config'), 403, 'api.context.permissions.app_error');
  });

  test('a member patching another user is 403 and nothing changes', async () => {
    expectAppError(await member.api.put(`/api/v4/users/${admin.id}/patch`, { nickname: 'hacked' }), 403, 'api.context.permissions.app_error');
    expect((await admin.api.get('/api/v4/users/me')).body.nickname).not.toBe('hacked');
  });

  test('an admin patches another user; the username is lower-cased', async () => {
    const name = unique('Renamed');
    const res = await admin.api.put(`/api/v4/users/${member.id}/patch`, { username: name, last_name: 'Patched' });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: member.id, username: name.toLowerCase(), last_name: 'Patched' });
    const me = await member.api.get('/api/v4/users/me');
    expect(me.body.username).toBe(name.toLowerCase());
    member.username = name.toLowerCase();
    // The new name logs in.
    const again = await server.http().post('/api/v4/users/login', { login_id: member.username, password: PASSWORD });
    expectStatus(again, 200);
  });

  test.each([
    ['an invalid username', 'model.user.is_valid.username.app_error', { username: 'no spaces allowed' }],
    ['an invalid e-mail', 'model.user.is_valid.email.app_error', { email: 'nope' }],
    ['a 65-character first name', 'model.user.is_valid.first_name.app_error', { first_name: 'f'.repeat(65) }],
    ['a bad locale', 'model.user.is_valid.locale.app_error', { locale: 'english!' }],
  ])('%s is 400 %s', async (_name, id, patch) => {
    expectAppError(await member.api.put('/api/v4/users/me/patch', patch), 400, id);
  });

  test("taking someone else's username or e-mail is 400", async () => {
    expectAppError(await member.api.put('/api/v4/users/me/patch', { username: admin.username }), 400, 'app.user.save.username_exists.app_error');
    expectAppError(
      await member.api.put('/api/v4/users/me/patch', { email: `${admin.username.toUpperCase()}@example.com` }),
      400,
      'app.user.save.email_exists.app_error',
    );
  });

  test('patching an unknown user as admin is 404; no token is 401', async () => {
    expectAppError(await admin.api.put(`/api/v4/users/${newId()}/patch`, { nickname: 'x' }), 404, 'app.user.missing_account.const');
    expectAppError(await server.http().put(`/api/v4/users/${member.id}/patch`, { nickname: 'x' }), 401, 'api.context.session_expired.app_error');
  });
});

describe('GetUsers and GetUsersByIds', () => {
  let teamId: string;
  let privateId: string;
  let townSquareId: string;
  let outsider: Actor;

  beforeAll(async () => {
    const team = await admin.api.post('/api/v4/teams', { name: unique('users'), display_name: 'Users', type: 'O' });
    expectStatus(team, 201);
    teamId = team.body.id;
    expectStatus(await admin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: member.id }), 201);
    townSquareId = (await admin.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`)).body.id;
    const priv = await admin.api.post('/api/v4/channels', { team_id: teamId, name: unique('secret'), display_name: 'Secret', type: 'P' });
    expectStatus(priv, 201);
    privateId = priv.body.id;
    outsider = await createUser(server, admin);
  });

  const ids = (res: Response) => (res.body as Array<{ id: string }>).map((u) => u.id);
  const sortedIds = (...actors: Actor[]) => [...actors].sort((a, b) => a.username.localeCompare(b.username)).map((a) => a.id);

  test('in_team lists the team members, sanitised, sorted by username', async () => {
    const res = await member.api.get(`/api/v4/users?in_team=${teamId}&page=0&per_page=60&sort=`);
    expectStatus(res, 200);
    expect(ids(res)).toEqual(sortedIds(admin, member));
    for (const user of res.body) expectNoSecrets(user);
    const other = res.body.find((u: { id: string }) => u.id === admin.id);
    expect(other.notify_props).toEqual({});
  });

  test('page and per_page walk through the list', async () => {
    const all = sortedIds(admin, member);
    const page0 = await member.api.get(`/api/v4/users?in_team=${teamId}&page=0&per_page=1`);
    const page1 = await member.api.get(`/api/v4/users?in_team=${teamId}&page=1&per_page=1`);
    const page2 = await member.api.get(`/api/v4/users?in_team=${teamId}&page=2&per_page=1`);
    expect([ids(page0), ids(page1), ids(page2)]).toEqual([[all[0]], [all[1]], []]);
    const none = await member.api.get(`/api/v4/users?in_team=${teamId}&per_page=0`);
    expectStatus(none, 200);
    expect(none.body).toEqual([]);
  });

  test('not_in_team lists everyone else', async () => {
    const res = await admin.api.get(`/api/v4/users?not_in_team=${teamId}&per_page=200`);
    expectStatus(res, 200);
    expect(ids(res)).toContain(outsider.id);
    expect(ids(res)).not.toContain(member.id);
    expect(ids(res)).not.toContain(admin.id);
  });

  test('in_channel and in_team + not_in_channel', async () => {
    const town = await member.api.get(`/api/v4/users?in_channel=${townSquareId}`);
    expectStatus(town, 200);
    expect(ids(town)).toEqual(sortedIds(admin, member));
    const secret = await admin.api.get(`/api/v4/users?in_channel=${privateId}`);
    expect(ids(secret)).toEqual([admin.id]);
    const notIn = await admin.api.get(`/api/v4/users?in_team=${teamId}&not_in_channel=${privateId}`);
    expectStatus(notIn, 200);
    expect(ids(notIn)).toEqual([member.id]);
  });

  test('filtering on a team you are not in is 403; on a private channel you are not in is 403; unknown channel 404', async () => {
    expectAppError(await outsider.api.get(`/api/v4/users?in_team=${teamId}`), 403, 'api.context.permissions.app_error');
    expectAppError(await outsider.api.get(`/api/v4/users?not_in_team=${teamId}`), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.get(`/api/v4/users?in_channel=${privateId}`), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.get(`/api/v4/users?in_team=${teamId}&not_in_channel=${privateId}`), 403, 'api.context.permissions.app_error');
    expectAppError(await outsider.api.get(`/api/v4/users?in_channel=${townSquareId}`), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.get(`/api/v4/users?in_channel=${newId()}`), 404, 'app.channel.get.existing.app_error');
  });

  test('role, without_team, inactive and sort=create_at narrow and order the list', async () => {
    const admins = await member.api.get('/api/v4/users?role=system_admin&per_page=200');
    expectStatus(admins, 200);
    expect(ids(admins)).toEqual([admin.id]);
    const loners = await admin.api.get('/api/v4/users?without_team=1&per_page=200');
    expectStatus(loners, 200);
    expect(ids(loners)).toContain(outsider.id);
    expect(ids(loners)).not.toContain(member.id);
    const deactivated = await admin.api.get('/api/v4/users?inactive=true&per_page=200');
    expectStatus(deactivated, 200);
    expect(ids(deactivated)).toEqual([]);
    const newestFirst = await member.api.get(`/api/v4/users?in_team=${teamId}&sort=create_at`);
    expectStatus(newestFirst, 200);
    expect(ids(newestFirst)).toEqual([member.id, admin.id]);
  });

  test('cursor_id pages by id, after the cursor', async () => {
    const all = await admin.api.get('/api/v4/users?per_page=200');
    const byId = ids(all).sort();
    const next = await admin.api.get(`/api/v4/users?cursor_id=${byId[0]}&per_page=2`);
    expect(ids(next)).toEqual(byId.slice(1, 3));
  });

  test('no token is 401; a negative page is 400', async () => {
    expectAppError(await server.http().get('/api/v4/users'), 401, 'api.context.session_expired.app_error');
    expectAppError(await member.api.get('/api/v4/users?page=-1'), 400, 'api.context.invalid_param.app_error');
  });

  test('GetUsersByIds returns the known ones, sanitised; unknown ids are left out', async () => {
    const res = await member.api.post('/api/v4/users/ids', [admin.id, member.id, newId(), admin.id]);
    expectStatus(res, 200);
    expect(ids(res).sort()).toEqual([admin.id, member.id].sort());
    const self = res.body.find((u: { id: string }) => u.id === member.id);
    const other = res.body.find((u: { id: string }) => u.id === admin.id);
    expect(self.notify_props.email).toBe('true');
    expect(other.notify_props).toEqual({});
    for (const user of res.body) expectNoSecrets(user);
  });

  test('GetUsersByIds with since returns only users changed after it', async () => {
    // Time passing is the point: `since` lies strictly between the earlier changes and the patch below.
    await new Promise((r) => setTimeout(r, 5));
    const since = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    expectStatus(await outsider.api.put('/api/v4/users/me/patch', { nickname: 'changed' }), 200);
    const res = await admin.api.post(`/api/v4/users/ids?since=${since}`, [outsider.id, member.id]);
    expectStatus(res, 200);
    expect(ids(res)).toEqual([outsider.id]);
  });

  test('GetUsersByIds with an empty list or a non-array body is 400; no token 401', async () => {
    expectAppError(await member.api.post('/api/v4/users/ids', []), 400, 'api.context.invalid_param.app_error');
    expectAppError(await member.api.post('/api/v4/users/ids', { ids: [admin.id] }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await server.http().post('/api/v4/users/ids', [admin.id]), 401, 'api.context.session_expired.app_error');
  });

  test('per_page above 200 is reduced to 200', async () => {
    const now = Date.now();
    const stores = server.parley.app.deps.stores;
    const hash = (await stores.users.get(member.id))!.password;
    await stores.transaction(async (tx) => {
      for (let i = 0; i < 205; i++) {
        const name = `bulk${process.pid}x${String(i).padStart(3, '0')}`;
        const record: UserRecord = {
          id: newId(), create_at: now, update_at: now, delete_at: 0, username: name, auth_data: '', auth_service: '',
          email: `${name}@example.com`, email_verified: false, nickname: '', first_name: '', last_name: '', position: '',
          roles: 'system_user', allow_marketing: false, props: {}, notify_props: {}, last_password_update: now,
          last_picture_update: 0, failed_attempts: 0, locale: 'en', timezone: {}, mfa_active: false, last_activity_at: 0,
          is_bot: false, bot_description: '', disable_welcome_email: false, password: hash,
        };
        await tx.users.insert(record);
      }
    });
    const total = (await stores.users.countAll());
    expect(total).toBeGreaterThan(205);
    const page0 = await admin.api.get('/api/v4/users?page=0&per_page=500');
    expectStatus(page0, 200);
    expect(page0.body).toHaveLength(200);
    const page1 = await admin.api.get('/api/v4/users?page=1&per_page=500');
    expectStatus(page1, 200);
    expect(page1.body).toHaveLength(total - 200);
    expect(new Set([...ids(page0), ...ids(page1)]).size).toBe(total);
    const byDefault = await admin.api.get('/api/v4/users');
    expect(byDefault.body).toHaveLength(60);
  });
});

describe('CreateUserAccessToken', () => {
  test('is 501 app.user_access_token.disabled while personal access tokens are off (the default)', async () => {
    expectAppError(await admin.api.post('/api/v4/users/me/tokens', { description: 'ci' }), 501, 'app.user_access_token.disabled');
  });

  describe('with EnableUserAccessTokens on', () => {
    beforeAll(() => patchConfig({ ServiceSettings: { EnableUserAccessTokens: true } }));
    afterAll(() => patchConfig({ ServiceSettings: { EnableUserAccessTokens: false } }));

    test('a member without create_user_access_token is 403', async () => {
      expectAppError(await member.api.post('/api/v4/users/me/tokens', { description: 'mine' }), 403, 'api.context.permissions.app_error');
      expectAppError(await member.api.post(`/api/v4/users/${admin.id}/tokens`, { description: 'theirs' }), 403, 'api.context.permissions.app_error');
    });

    test('an admin gets a token once, and it works as Authorization: Bearer on GetUser me', async () => {
      const res = await admin.api.post('/api/v4/users/me/tokens', { description: 'CI deploy bot' });
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ user_id: admin.id, description: 'CI deploy bot', is_active: true });
      expect(res.body.id).toMatch(/^[a-z0-9]{26}$/);
      expect(res.body.token).toMatch(/^[a-z0-9]{26}$/);
      expect(res.body.token).not.toBe(admin.token);
      const me = await server.http().get('/api/v4/users/me').set('Authorization', `Bearer ${res.body.token}`);
      expectStatus(me, 200);
      expect(me.body.id).toBe(admin.id);
      // It carries the admin's permissions.
      expectStatus(await server.http(res.body.token).get('/api/v4/config'), 200);
    });

    test('an admin creates a token for another user; it acts as that user', async () => {
      const res = await admin.api.post(`/api/v4/users/${member.id}/tokens`, { description: 'for member' });
      expectStatus(res, 200);
      expect(res.body.user_id).toBe(member.id);
      const me = await server.http(res.body.token).get('/api/v4/users/me');
      expect(me.body.id).toBe(member.id);
      expectAppError(await server.http(res.body.token).get('/api/v4/config'), 403, 'api.context.permissions.app_error');
    });

    test('a token that has expired does not authenticate', async () => {
      const res = await admin.api.post('/api/v4/users/me/tokens', { description: 'short-lived', expires_at: Date.now() - 1000 });
      expectStatus(res, 200);
      expectAppError(await server.http(res.body.token).get('/api/v4/users/me'), 401, 'api.context.session_expired.app_error');
    });

    test('turning tokens off stops existing ones from working; turning them on again restores them', async () => {
      const res = await admin.api.post('/api/v4/users/me/tokens', { description: 'switch' });
      expectStatus(res, 200);
      await patchConfig({ ServiceSettings: { EnableUserAccessTokens: false } });
      try {
        expectAppError(await server.http(res.body.token).get('/api/v4/users/me'), 401, 'api.context.session_expired.app_error');
        // Login sessions are not affected.
        expectStatus(await admin.api.get('/api/v4/users/me'), 200);
      } finally {
        await patchConfig({ ServiceSettings: { EnableUserAccessTokens: true } });
      }
      expectStatus(await server.http(res.body.token).get('/api/v4/users/me'), 200);
    });

    test('an empty or missing description is 400; an unknown user is 404; no token is 401', async () => {
      expectAppError(await admin.api.post('/api/v4/users/me/tokens', { description: '' }), 400, 'model.user_access_token.is_valid.description.app_error');
      expectAppError(await admin.api.post('/api/v4/users/me/tokens', {}), 400, 'api.context.invalid_param.app_error');
      expectAppError(await admin.api.post(`/api/v4/users/${newId()}/tokens`, { description: 'ghost' }), 404, 'app.user.missing_account.const');
      expectAppError(await server.http().post('/api/v4/users/me/tokens', { description: 'anon' }), 401, 'api.context.session_expired.app_error');
    });
  });
});
