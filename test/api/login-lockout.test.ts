// Login throttling (ServiceSettings.MaximumLoginAttempts), password hashing and its upgrade of old hashes.
import request from 'supertest';
import { hashToken } from '../../src/lib/secrets';
import { PASSWORD, atTime, createUser, login, startTestServer, type Actor, type TestServer } from '../support/server';
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

  test("M3: a stranger's failed logins do not stop the owner changing their password from a live session, which unlocks logins", async () => {
    const user = await createUser(server, admin, { username: unique('self') });
    await failures(user.username, 10);
    expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED);
    await user.api.put('/api/v4/users/me/password', { current_password: PASSWORD, new_password: 'Fresh-Passw0rd' }).expect(200);
    // The guesses were at the old password: the new one logs in at once.
    await attempt(user.username, 'Fresh-Passw0rd').expect(200);
  });

  test('M3: a locked account still changes its email from a live session (with the right password)', async () => {
    const user = await createUser(server, admin, { username: unique('mail') });
    await failures(user.username, 10);
    const email = `${unique('moved')}@example.com`;
    const res = await user.api.put('/api/v4/users/me/patch', { email, password: PASSWORD }).expect(200);
    expect(res.body.email).toBe(email);
    // The login lock itself is unchanged by it.
    expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED);
  });

  test('M3: wrong current passwords inside a session are counted per session: ten, then that session is refused; logins are not locked', async () => {
    const user = await createUser(server, admin, { username: unique('guess') });
    const wrong = (i: number) => user.api.put('/api/v4/users/me/password', { current_password: `wrong-${i}`, new_password: 'Fresh-Passw0rd' });
    for (let i = 0; i < 10; i++) expectAppError(await wrong(i), 400, 'api.user.update_password.incorrect.app_error');
    // The eleventh, even with the right password, and an email change (also a password check) from that session.
    expectAppError(await user.api.put('/api/v4/users/me/password', { current_password: PASSWORD, new_password: 'Fresh-Passw0rd' }), 401, LOCKED);
    expectAppError(await user.api.put('/api/v4/users/me/patch', { email: `${unique('x')}@example.com`, password: PASSWORD }), 401, LOCKED);
    // The account's logins are untouched, and another session has its own count.
    const again = await login(server, user.id, user.username);
    await again.api.put('/api/v4/users/me/password', { current_password: PASSWORD, new_password: 'Fresh-Passw0rd' }).expect(200);
  });

  test('M3: locks expire after LoginLockoutMinutes (15), and each lock in a row lasts twice as long', async () => {
    const user = await createUser(server, admin, { username: unique('expire') });
    const t0 = Date.now();
    const minute = 60 * 1000;
    await atTime(server, t0, async () => {
      expect(await failures(user.username, 10)).toEqual(Array(10).fill(INVALID));
      expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED);
    });
    await atTime(server, t0 + 15 * minute - 1, async () => expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED));
    // The first lock is over: a new count of ten starts, and the second lock lasts 30 minutes.
    const t1 = t0 + 15 * minute;
    await atTime(server, t1, async () => {
      expect(await failures(user.username, 10)).toEqual(Array(10).fill(INVALID));
      expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED);
    });
    await atTime(server, t1 + 30 * minute - 1, async () => expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED));
    await atTime(server, t1 + 30 * minute, async () => {
      await attempt(user.username, PASSWORD).expect(200);
    });
  });

  test('M3: the lock duration is a setting (LoginLockoutMinutes, 1 to 1440)', async () => {
    await admin.api.put('/api/v4/config/patch', { ServiceSettings: { LoginLockoutMinutes: 1 } }).expect(200);
    try {
      const user = await createUser(server, admin, { username: unique('short') });
      const t0 = Date.now();
      await atTime(server, t0, async () => {
        await failures(user.username, 10);
        expectAppError(await attempt(user.username, PASSWORD), 401, LOCKED);
      });
      await atTime(server, t0 + 60 * 1000, async () => {
        await attempt(user.username, PASSWORD).expect(200);
      });
    } finally {
      await admin.api.put('/api/v4/config/patch', { ServiceSettings: { LoginLockoutMinutes: 15 } }).expect(200);
    }
    expectAppError(await admin.api.put('/api/v4/config/patch', { ServiceSettings: { LoginLockoutMinutes: 0 } }), 400, 'api.context.invalid_param.app_error');
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

  test('L1: an unknown login id is counted in the database like a real account: another process (or a restart) answers both alike', async () => {
    const ghost = `${unique('ghost')}@corp.example`;
    const real = await createUser(server, admin, { username: unique('known') });
    const known = `${real.username}@example.com`;
    await failures(ghost, 10);
    await failures(known, 10);
    // A second server on the same database: a new process, with nothing in memory.
    const other = await startTestServer({}, server.db);
    try {
      const again = (loginId: string) => request(other.url).post('/api/v4/users/login').send({ login_id: loginId, password: 'one-more' });
      const a = await again(ghost);
      const b = await again(known);
      expectAppError(a, 401, LOCKED);
      expect({ status: a.status, id: a.body.id, message: a.body.message }).toEqual({ status: b.status, id: b.body.id, message: b.body.message });
    } finally {
      await other.close();
    }
  });

  test('L1: a failed login runs the same SQL statements for an unknown id as for a real account (the same writes, so the same time)', async () => {
    const real = await createUser(server, admin, { username: unique('sql') });
    const knex = server.parley.db.knex;
    const statements = async (loginId: string) => {
      const seen: string[] = [];
      const listen = (q: { sql: string }) => seen.push(q.sql);
      knex.on('query', listen);
      try {
        await attempt(loginId, 'wrong').expect(401);
      } finally {
        knex.removeListener('query', listen);
      }
      // Only the login's own statements (not the config poll or other background work running meanwhile).
      return seen.filter((sql) => /[`"](users|login_attempts)[`"]/.test(sql));
    };
    // The first failure of each creates its counter, the second updates it: compare both.
    const ghost = unique('nobody');
    const ghostSql = [...(await statements(ghost)), ...(await statements(ghost))];
    const realSql = [...(await statements(real.username)), ...(await statements(real.username))];
    expect(realSql).toEqual(ghostSql);
    expect(realSql.some((sql) => /^(insert|update)/i.test(sql.trim()))).toBe(true);
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
