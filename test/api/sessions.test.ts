// Revocation: sessions, personal access tokens, password changes and deactivation end access at once.
import { accountKey, sessionKey } from '../../src/app/login-lock';
import { hashToken } from '../../src/lib/secrets';
import { PASSWORD, createUser, login, startTestServer, type Actor, type TestServer } from '../support/server';
import { expectAppError } from '../support/assertions';

let server: TestServer;
let admin: Actor;
let seq = 0;
const unique = (p: string) => `${p}${process.pid}s${++seq}`;

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  // Through the API, not the environment (which would win over the patches below).
  await admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableUserAccessTokens: true } }).expect(200);
});
afterAll(() => server.close());

async function newUser(): Promise<Actor> {
  return createUser(server, admin, { username: unique('u') });
}

const works = async (a: { api: Actor['api'] }) => (await a.api.get('/api/v4/users/me')).status === 200;

interface SessionJson {
  id: string;
  token: string;
  user_id: string;
  create_at: number;
  expires_at: number;
  last_activity_at: number;
}

describe('GetSessions, RevokeSession, RevokeAllSessionsForUser', () => {
  test('a user lists their sessions, newest activity first, without tokens', async () => {
    const user = await newUser();
    const second = await login(server, user.id, user.username);
    const res = await second.api.get('/api/v4/users/me/sessions').expect(200);
    const sessions = res.body as SessionJson[];
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(s).toMatchObject({ token: '', user_id: user.id });
      expect(s.expires_at - s.create_at).toBe(720 * 3600 * 1000);
    }
    expect(JSON.stringify(res.body)).not.toContain(user.token);
    expect(JSON.stringify(res.body)).not.toContain(second.token);
  });

  test('revoking one session ends exactly that one, at once', async () => {
    const user = await newUser();
    const other = await login(server, user.id, user.username);
    const list = (await user.api.get('/api/v4/users/me/sessions').expect(200)).body as SessionJson[];
    const target = list.sort((a, b) => b.create_at - a.create_at)[0];
    await user.api.post('/api/v4/users/me/sessions/revoke', { session_id: target.id }).expect(200);
    expect(await works(other)).toBe(false);
    expect(await works(user)).toBe(true);
    expectAppError(await user.api.post('/api/v4/users/me/sessions/revoke', { session_id: target.id }), 400, 'app.session.get.app_error');
  });

  test("another user's sessions: 403 for a plain user, allowed for an admin; a session of someone else is 400 for this user", async () => {
    const user = await newUser();
    const stranger = await newUser();
    expectAppError(await stranger.api.get(`/api/v4/users/${user.id}/sessions`), 403, 'api.context.permissions.app_error');
    const theirs = (await admin.api.get(`/api/v4/users/${user.id}/sessions`).expect(200)).body as SessionJson[];
    expectAppError(await stranger.api.post(`/api/v4/users/${user.id}/sessions/revoke`, { session_id: theirs[0].id }), 403, 'api.context.permissions.app_error');
    expectAppError(await stranger.api.post('/api/v4/users/me/sessions/revoke', { session_id: theirs[0].id }), 400, 'api.context.invalid_param.app_error');
    expect(await works(user)).toBe(true);
    await admin.api.post(`/api/v4/users/${user.id}/sessions/revoke`, { session_id: theirs[0].id }).expect(200);
    expect(await works(user)).toBe(false);
  });

  test('revoking all sessions ends every one of them, the caller’s own included', async () => {
    const user = await newUser();
    const other = await login(server, user.id, user.username);
    await user.api.post('/api/v4/users/me/sessions/revoke/all').expect(200);
    expect(await works(user)).toBe(false);
    expect(await works(other)).toBe(false);
    await login(server, user.id, user.username);
  });
});

describe('UpdatePassword', () => {
  test('changing your own password needs the current one and ends your other sessions, not this one', async () => {
    const user = await newUser();
    const other = await login(server, user.id, user.username);
    expectAppError(await user.api.put('/api/v4/users/me/password', { new_password: 'N3w-Passw0rd' }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.put('/api/v4/users/me/password', { current_password: 'wrong-one', new_password: 'N3w-Passw0rd' }), 400, 'api.user.update_password.incorrect.app_error');
    expectAppError(await user.api.put('/api/v4/users/me/password', { current_password: PASSWORD, new_password: 'short' }), 400, 'model.user.is_valid.pwd.app_error');
    expect(await works(other)).toBe(true);
    await user.api.put('/api/v4/users/me/password', { current_password: PASSWORD, new_password: 'N3w-Passw0rd' }).expect(200);
    expect(await works(user)).toBe(true);
    expect(await works(other)).toBe(false);
    expectAppError(await server.http().post('/api/v4/users/login', { login_id: user.username, password: PASSWORD }), 401, 'api.user.login.invalid_credentials_email_username');
    await server.http().post('/api/v4/users/login', { login_id: user.username, password: 'N3w-Passw0rd' }).expect(200);
  });

  test("another user's password: only a system admin, without the current one; every session of that user ends", async () => {
    const user = await newUser();
    const stranger = await newUser();
    expectAppError(await stranger.api.put(`/api/v4/users/${user.id}/password`, { new_password: 'N3w-Passw0rd' }), 403, 'api.user.update_password.context.app_error');
    await admin.api.put(`/api/v4/users/${user.id}/password`, { new_password: 'N3w-Passw0rd' }).expect(200);
    expect(await works(user)).toBe(false);
  });
});

describe('deactivation', () => {
  test('deactivating ends every session and deletes every access token; reactivating restores login, not the tokens', async () => {
    const user = await newUser();
    const pat = (await admin.api.post(`/api/v4/users/${user.id}/tokens`, { description: 'bot' }).expect(200)).body as { id: string; token: string };
    const viaPat = server.http(pat.token);
    expect(await works({ api: viaPat })).toBe(true);
    await admin.api.put(`/api/v4/users/${user.id}/active`, { active: false }).expect(200);
    expect(await works(user)).toBe(false);
    expect(await works({ api: viaPat })).toBe(false);
    expectAppError(await server.http().post('/api/v4/users/login', { login_id: user.username, password: PASSWORD }), 401, 'api.user.login.inactive.app_error');
    await admin.api.put(`/api/v4/users/${user.id}/active`, { active: true }).expect(200);
    await login(server, user.id, user.username);
    expect(await works({ api: viaPat })).toBe(false);
    expectAppError(await admin.api.get(`/api/v4/users/tokens/${pat.id}`), 404, 'app.user_access_token.get_by_user.app_error');
  });

  test('a user may deactivate themselves; deactivating others takes manage_system; DELETE /users/{id} deactivates', async () => {
    const user = await newUser();
    const stranger = await newUser();
    expectAppError(await stranger.api.put(`/api/v4/users/${user.id}/active`, { active: false }), 403, 'api.user.update_active.permissions.app_error');
    expectAppError(await stranger.api.delete(`/api/v4/users/${user.id}`), 403, 'api.user.update_active.permissions.app_error');
    await user.api.delete('/api/v4/users/me').expect(200);
    expect(await works(user)).toBe(false);
    const fetched = await admin.api.get(`/api/v4/users/${user.id}`).expect(200);
    expect(fetched.body.delete_at).toBeGreaterThan(0);
    const self = await newUser();
    await self.api.put('/api/v4/users/me/active', { active: false }).expect(200);
    expect(await works(self)).toBe(false);
  });
});

describe('personal access tokens', () => {
  async function tokenOf(user: Actor): Promise<{ id: string; token: string }> {
    return (await admin.api.post(`/api/v4/users/${user.id}/tokens`, { description: 'ci' }).expect(200)).body;
  }

  test('list and get never show the secret', async () => {
    const user = await newUser();
    const t = await tokenOf(user);
    const list = (await admin.api.get(`/api/v4/users/${user.id}/tokens`).expect(200)).body as Array<Record<string, unknown>>;
    expect(list).toEqual([{ id: t.id, user_id: user.id, description: 'ci', is_active: true, expires_at: 0 }]);
    const one = (await admin.api.get(`/api/v4/users/tokens/${t.id}`).expect(200)).body;
    expect(one).not.toHaveProperty('token');
    expect(JSON.stringify([list, one])).not.toContain(t.token);
  });

  test('disable stops a token, enable lets it work again', async () => {
    const user = await newUser();
    const t = await tokenOf(user);
    const api = server.http(t.token);
    await admin.api.post('/api/v4/users/tokens/disable', { token_id: t.id }).expect(200);
    expect(await works({ api })).toBe(false);
    await admin.api.post('/api/v4/users/tokens/enable', { token_id: t.id }).expect(200);
    expect(await works({ api })).toBe(true);
  });

  test('a revoked token never works again, even after EnableUserAccessTokens is turned off and on', async () => {
    const user = await newUser();
    const revoked = await tokenOf(user);
    const kept = await tokenOf(user);
    await admin.api.post('/api/v4/users/tokens/revoke', { token_id: revoked.id }).expect(200);
    expect(await works({ api: server.http(revoked.token) })).toBe(false);
    await admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableUserAccessTokens: false } }).expect(200);
    expect(await works({ api: server.http(kept.token) })).toBe(false);
    await admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableUserAccessTokens: true } }).expect(200);
    expect(await works({ api: server.http(kept.token) })).toBe(true);
    expect(await works({ api: server.http(revoked.token) })).toBe(false);
    expectAppError(await admin.api.post('/api/v4/users/tokens/revoke', { token_id: revoked.id }), 404, 'app.user_access_token.get_by_user.app_error');
  });

  test('a plain user without the token role can neither see nor revoke tokens, theirs included', async () => {
    const user = await newUser();
    const t = await tokenOf(user);
    expectAppError(await user.api.get('/api/v4/users/me/tokens'), 403, 'api.context.permissions.app_error');
    expectAppError(await user.api.post('/api/v4/users/tokens/revoke', { token_id: t.id }), 403, 'api.context.permissions.app_error');
    expect(await works({ api: server.http(t.token) })).toBe(true);
  });
});

describe('PatchUser: changing your own email takes your password', () => {
  test("without it 400, with a wrong one 401 (counted against the session, not the account's logins), with the right one the change is made", async () => {
    const user = await newUser();
    const session = (await server.parley.app.deps.stores.sessions.findByTokenHash(hashToken(user.token), Date.now()))!;
    const counter = () => server.parley.app.deps.stores.users.getLoginAttempts(sessionKey(session.id));
    const email = `${unique('new')}@example.com`;
    expectAppError(await user.api.put('/api/v4/users/me/patch', { email }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.put('/api/v4/users/me/patch', { email, password: 'wrong-one' }), 401, 'api.user.check_user_password.invalid.app_error');
    expect((await counter())?.failures).toBe(1);
    expect(await server.parley.app.deps.stores.users.getLoginAttempts(accountKey(user.id))).toBeUndefined();
    const res = await user.api.put('/api/v4/users/me/patch', { email, password: PASSWORD }).expect(200);
    expect(res.body.email).toBe(email);
    expect(await counter()).toBeUndefined();
    // Other fields, and the same address again, need no password; an admin changing someone's email needs none.
    await user.api.put('/api/v4/users/me/patch', { nickname: 'nick', email }).expect(200);
    await admin.api.put(`/api/v4/users/${user.id}/patch`, { email: `${unique('byadmin')}@example.com` }).expect(200);
  });
});
