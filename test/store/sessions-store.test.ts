import { createHash, randomBytes } from 'node:crypto';
import type { UserRecord } from '../../src/model';
import { newId } from '../../src/lib/ids';
import { forEachDatabase, makeUser } from './fixtures';

const NOW = 1_000_000;
/** A fresh token digest, as the app stores them (sha-256 hex of a random token). */
const digest = () => createHash('sha256').update(randomBytes(32)).digest('hex');

forEachDatabase((h) => {
  async function user(fields: Partial<UserRecord> = {}): Promise<UserRecord> {
    const u = makeUser(fields);
    await h.stores.users.insert(u);
    return u;
  }

  async function session(userId: string, expiresAt = 0): Promise<{ id: string; tokenHash: string; csrfToken: string }> {
    const s = { id: newId(), tokenHash: digest(), csrfToken: newId() };
    await h.stores.sessions.createSession({ ...s, userId, createAt: NOW - 10, expiresAt });
    return s;
  }

  async function accessToken(userId: string, fields: { is_active?: boolean; expires_at?: number } = {}): Promise<{ id: string; tokenHash: string }> {
    const t = { id: newId(), tokenHash: digest() };
    await h.stores.sessions.createAccessToken({ ...t, user_id: userId, description: 'ci token', is_active: fields.is_active ?? true, expires_at: fields.expires_at ?? 0 });
    return t;
  }

  describe('login sessions', () => {
    test('findByTokenHash resolves the session with its CSRF token and the user roles, joined', async () => {
      const u = await user({ roles: 'system_user system_admin' });
      const s = await session(u.id);
      expect(await h.stores.sessions.findByTokenHash(s.tokenHash, NOW)).toEqual({
        id: s.id,
        userId: u.id,
        roles: 'system_user system_admin',
        isAccessToken: false,
        csrfToken: s.csrfToken,
      });
      // The roles are read with the session, so a change of roles applies to existing sessions at once.
      await h.stores.users.update(u.id, { roles: 'system_user' });
      expect((await h.stores.sessions.findByTokenHash(s.tokenHash, NOW))?.roles).toBe('system_user');
    });

    test.each([
      ['never expires (0)', 0, true],
      ['expires later', NOW + 1, true],
      ['expires at this very millisecond', NOW, true],
      ['expired a millisecond ago', NOW - 1, false],
      ['expired long ago', 1, false],
    ])('expiry: %s', async (_case, expiresAt, found) => {
      const u = await user();
      const s = await session(u.id, expiresAt);
      expect((await h.stores.sessions.findByTokenHash(s.tokenHash, NOW))?.id).toBe(found ? s.id : undefined);
    });

    test("a deactivated user's sessions resolve to nothing, and come back with the user", async () => {
      const u = await user();
      const s = await session(u.id);
      await h.stores.users.update(u.id, { delete_at: NOW - 5 });
      expect(await h.stores.sessions.findByTokenHash(s.tokenHash, NOW)).toBeUndefined();
      await h.stores.users.update(u.id, { delete_at: 0 });
      expect((await h.stores.sessions.findByTokenHash(s.tokenHash, NOW))?.id).toBe(s.id);
    });

    test('deleteSession ends that session only', async () => {
      const u = await user();
      const [a, b] = [await session(u.id), await session(u.id)];
      await h.stores.sessions.deleteSession(a.tokenHash);
      expect(await h.stores.sessions.findByTokenHash(a.tokenHash, NOW)).toBeUndefined();
      expect((await h.stores.sessions.findByTokenHash(b.tokenHash, NOW))?.id).toBe(b.id);
      // Deleting again, or an unknown digest, is not an error.
      await h.stores.sessions.deleteSession(a.tokenHash);
      await h.stores.sessions.deleteSession(digest());
    });

    test('an unknown digest resolves to nothing', async () => {
      expect(await h.stores.sessions.findByTokenHash(digest(), NOW)).toBeUndefined();
    });
  });

  describe('personal access tokens', () => {
    test('createAccessToken and getAccessToken round-trip; findByTokenHash resolves it as an access token', async () => {
      const u = await user({ roles: 'system_user' });
      const t = await accessToken(u.id, { expires_at: NOW + 100 });
      expect(await h.stores.sessions.getAccessToken(t.id)).toEqual({ id: t.id, user_id: u.id, description: 'ci token', is_active: true, expires_at: NOW + 100 });
      expect(await h.stores.sessions.findByTokenHash(t.tokenHash, NOW)).toEqual({ id: t.id, userId: u.id, roles: 'system_user', isAccessToken: true, isBot: false, csrfToken: '' });
      expect(await h.stores.sessions.getAccessToken(newId())).toBeUndefined();
    });

    test.each([
      ['active, never expires', { is_active: true, expires_at: 0 }, true],
      ['active, expires later', { is_active: true, expires_at: NOW + 1 }, true],
      ['active, expires at this very millisecond', { is_active: true, expires_at: NOW }, true],
      ['active, expired', { is_active: true, expires_at: NOW - 1 }, false],
      ['inactive (revoked)', { is_active: false, expires_at: 0 }, false],
      ['inactive and expired', { is_active: false, expires_at: NOW - 1 }, false],
    ])('%s', async (_case, fields, found) => {
      const u = await user();
      const t = await accessToken(u.id, fields);
      expect((await h.stores.sessions.findByTokenHash(t.tokenHash, NOW))?.id).toBe(found ? t.id : undefined);
      // Listing still shows it, with its state.
      expect(await h.stores.sessions.getAccessToken(t.id)).toMatchObject(fields);
    });

    test("a deactivated user's tokens resolve to nothing", async () => {
      const u = await user({ delete_at: NOW - 5 });
      const t = await accessToken(u.id);
      expect(await h.stores.sessions.findByTokenHash(t.tokenHash, NOW)).toBeUndefined();
    });
  });
});
