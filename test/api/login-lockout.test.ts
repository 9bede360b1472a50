// Login throttling (ServiceSettings.MaximumLoginAttempts), password hashing and its upgrade of old hashes.
import request from 'supertest';
import { hashToken } from '../../src/lib/secrets';
import { PASSWORD, createUser, login, startTestServer, type Actor, type TestServer } from '../support/server';
import { expectAppError } from '../support/assertions';

let server: TestServer;
let admin: Actor;
let seq = 0;
const unique = (p: string) => `${p}${process.pid}l${++seq}`;

const LOCKED = 'api.user.check_user_login_attempts.too_many.app_error';
const INVALID = 'api.user.login.invalid_credentials_email_username';

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
});
afterAll(() => server.close());

const attempt = (loginId: string, password: string) => request(server.url).post('/api/v4/users/login').send({ login_id: loginId, password });

async function failures(loginId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await attempt(loginId, `wrong-${i}`)).body.id);
  return ids;
}

describe('MaximumLoginAttempts (default 10)', () => {
  test('ten wrong passwords are refused as invalid; then the account is locked, the right password included', async () => {
    const user = await createUser(server, admin, { username: unique('lock') });
    expect(await failures(user.username, 10)).toEqual(Array(10).fill(INVALID));
    expectAppError(await attempt(user.username, 'wrong-again'), 401, LOCKED);
    expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED);
    // By email too: it is the account that is locked, not the login id.
    expectAppError(await attempt(`${user.username}@example.com`, PASSWORD), 401, LOCKED);
    // Sessions opened before the lock keep working.
    await user.api.get('/api/v4/users/me').expect(200);
  });

  test('a successful login resets the count', async () => {
    const user = await createUser(server, admin, { username: unique('reset') });
    await failures(user.username, 9);
    await attempt(user.username, PASSWORD).expect(200);
    expect(await failures(user.username, 9)).toEqual(Array(9).fill(INVALID));
    await attempt(user.username, PASSWORD).expect(200);
  });

  test('a system admin setting a new password unlocks the account', async () => {
    const user = await createUser(server, admin, { username: unique('unlock') });
    await failures(user.username, 11);
    expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED);
    await admin.api.put(`/api/v4/users/${user.id}/password`, { new_password: 'Fresh-Passw0rd' }).expect(200);
    await attempt(user.username, 'Fresh-Passw0rd').expect(200);
  });

  test('the user changing their password (from a session they still have) unlocks it', async () => {
    const user = await createUser(server, admin, { username: unique('self') });
    await failures(user.username, 10);
    // Their current password is right but the account is locked: even this check is refused.
    expectAppError(await user.api.put('/api/v4/users/me/password', { current_password: PASSWORD, new_password: 'Fresh-Passw0rd' }), 401, LOCKED);
    await admin.api.put(`/api/v4/users/${user.id}/password`, { new_password: PASSWORD }).expect(200);
    const again = await login(server, user.id, user.username);
    await again.api.put('/api/v4/users/me/password', { current_password: PASSWORD, new_password: 'Fresh-Passw0rd' }).expect(200);
    await attempt(user.username, 'Fresh-Passw0rd').expect(200);
  });

  test('parallel guesses cannot get past the limit together: exactly 10 are checked, the rest refused as locked', async () => {
    const user = await createUser(server, admin, { username: unique('burst') });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(user.username, `guess-${i}`)));
    const ids = answers.map((a) => a.body.id as string);
    expect(ids.filter((id) => id === INVALID)).toHaveLength(10);
    expect(ids.filter((id) => id === LOCKED)).toHaveLength(20);
  });

  test('an unknown login id gets the same answers as a real account: invalid ten times, then locked', async () => {
    const ghost = unique('ghost');
    const real = await createUser(server, admin, { username: unique('twin') });
    const ghostIds = [...(await failures(ghost, 10)), (await attempt(ghost, PASSWORD)).body.id];
    const realIds = [...(await failures(real.username, 10)), (await attempt(real.username, 'nope')).body.id];
    expect(ghostIds).toEqual(realIds);
    const a = await attempt(ghost, 'x');
    const b = await attempt(real.username, 'x');
    expect({ status: a.status, id: a.body.id, message: a.body.message }).toEqual({ status: b.status, id: b.body.id, message: b.body.message });
  });

  test('an unknown login id costs a password hash check, like a wrong password (same work, so the same time)', async () => {
    const passwords = server.parley.app.passwords;
    const verify = jest.spyOn(passwords, 'verify');
    try {
      const user = await createUser(server, admin, { username: unique('timing') });
      verify.mockClear();
      await attempt(unique('nobody'), 'wrong').expect(401);
      await attempt(user.username, 'wrong').expect(401);
      expect(verify).toHaveBeenCalledTimes(2);
      expect(verify.mock.calls[0][1]).toBeUndefined();
      expect(typeof verify.mock.calls[1][1]).toBe('string');
    } finally {
      verify.mockRestore();
    }
  });

  test('the limit is a setting', async () => {
    await admin.api.put('/api/v4/config/patch', { ServiceSettings: { MaximumLoginAttempts: 3 } }).expect(200);
    try {
      const user = await createUser(server, admin, { username: unique('three') });
      expect(await failures(user.username, 3)).toEqual(Array(3).fill(INVALID));
      expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED);
    } finally {
      await admin.api.put('/api/v4/config/patch', { ServiceSettings: { MaximumLoginAttempts: 10 } }).expect(200);
    }
    // The spec's minimum refuses it before the config rules see it.
    expectAppError(await admin.api.put('/api/v4/config/patch', { ServiceSettings: { MaximumLoginAttempts: 0 } }), 400, 'api.context.invalid_param.app_error');
  });
});

describe('password hashes', () => {
  test('passwords are stored as argon2id with 19 MiB, 2 passes, 1 lane (OWASP), never in the clear', async () => {
    const user = await createUser(server, admin, { username: unique('hash') });
    const record = await server.parley.app.deps.stores.users.get(user.id);
    expect(record?.password).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(record?.password).not.toContain(PASSWORD);
  });

  test("an old scrypt hash still logs in, and is replaced by today's argon2id hash at that login", async () => {
    const user = await createUser(server, admin, { username: unique('legacy') });
    // The hash an earlier version stored for PASSWORD: scrypt N=2^14, r=8, p=1.
    const { scryptSync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const key = scryptSync(PASSWORD, salt, 32, { N: 16384, r: 8, p: 1 });
    await server.parley.app.deps.stores.users.update(user.id, { password: `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}` });
    expectAppError(await attempt(user.username, 'wrong-password'), 401, INVALID);
    expect((await server.parley.app.deps.stores.users.get(user.id))?.password).toMatch(/^scrypt\$/);
    await attempt(user.username, PASSWORD).expect(200);
    expect((await server.parley.app.deps.stores.users.get(user.id))?.password).toMatch(/^\$argon2id\$/);
    await attempt(user.username, PASSWORD).expect(200);
  });

  test('tokens are stored as digests only', async () => {
    const user = await createUser(server, admin, { username: unique('digest') });
    const sessions = await server.parley.db.knex('sessions').where({ user_id: user.id }).select('token_hash');
    expect(sessions.map((s: { token_hash: string }) => s.token_hash)).toContain(hashToken(user.token));
    expect(JSON.stringify(sessions)).not.toContain(user.token);
  });
});
