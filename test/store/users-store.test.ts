import { randomBytes } from 'node:crypto';
import type { UserRecord } from '../../src/model';
import type { UserFilter } from '../../src/store/users-store';
import { channelWithMembers, forEachDatabase, makeChannel, makeTeam, makeUser, useStores } from './fixtures';

const usernames = (users: UserRecord[]) => users.map((u) => u.username);

forEachDatabase((h) => {
  test('insert and get round-trip every stored field; unknown ids are undefined', async () => {
    const user = makeUser({
      create_at: 10,
      update_at: 11,
      email_verified: true,
      nickname: 'Nick',
      first_name: 'Zoë',
      last_name: 'Ångström',
      position: 'Lead',
      roles: 'system_user system_admin',
      locale: 'fr',
      auth_service: 'gitlab',
      props: { customStatus: '😀', other: 'é' },
      notify_props: { email: 'false', push: 'all' },
      timezone: { useAutomaticTimezone: 'false', manualTimezone: 'Europe/Paris' },
      last_password_update: 12,
      last_picture_update: 13,
      failed_attempts: 2,
      last_activity_at: 14,
      password: '$scrypt$hash',
    });
    await h.stores.users.insert(user);
    expect(await h.stores.users.get(user.id)).toEqual(user);
    expect(await h.stores.users.get('nosuchuserxxxxxxxxxxxxxxxx')).toBeUndefined();
  });

  test('getMany: the existing users among the ids, by username', async () => {
    const [b, a, c] = [makeUser({ username: 'many-b' }), makeUser({ username: 'many-a' }), makeUser({ username: 'many-c' })];
    for (const u of [b, a, c]) await h.stores.users.insert(u);
    expect(usernames(await h.stores.users.getMany([c.id, 'nosuchuserxxxxxxxxxxxxxxxx', b.id, a.id]))).toEqual(['many-a', 'many-b', 'many-c']);
    expect(await h.stores.users.getMany([])).toEqual([]);
  });

  describe('lookups by name find that name exactly, in any letter case (MySQL collations fold accents and trailing spaces)', () => {
    const stored = makeUser({ username: 'jose.lookup', email: 'jose.lookup@example.com' });
    const accented = makeUser({ username: 'zoë.lookup', email: 'zoë.lookup@example.com' });
    beforeAll(async () => {
      await h.stores.users.insert(stored);
      await h.stores.users.insert(accented);
    });

    test.each([
      ['the name', 'jose.lookup', 'jose.lookup@example.com', stored],
      ['in capitals (login ids ignore case)', 'JOSE.Lookup', 'Jose.Lookup@Example.COM', stored],
      ['with an accent added', 'josé.lookup', 'josé.lookup@example.com', undefined],
      ['with an accent removed', 'zoe.lookup', 'zoe.lookup@example.com', undefined],
      ['the accented name', 'zoë.lookup', 'zoë.lookup@example.com', accented],
      ['with a trailing space', 'jose.lookup ', 'jose.lookup@example.com ', undefined],
      ['with a leading space', ' jose.lookup', ' jose.lookup@example.com', undefined],
      ['a prefix', 'jose', 'jose.lookup@example', undefined],
    ])('%s', async (_case, username, email, want) => {
      expect((await h.stores.users.getByUsername(username))?.id).toBe(want?.id);
      expect((await h.stores.users.getByEmail(email))?.id).toBe(want?.id);
    });

    test('getByUsernames: exactly the names given', async () => {
      expect((await h.stores.users.getByUsernames(['jose.lookup', 'zoe.lookup', 'zoë.lookup ', 'nobody'])).map((u) => u.id)).toEqual([stored.id]);
      expect(await h.stores.users.getByUsernames([])).toEqual([]);
    });
  });

  test('update changes only the given fields and serialises the JSON ones; other users are untouched', async () => {
    const user = makeUser({ nickname: 'before', props: { a: '1' } });
    const other = makeUser({ nickname: 'other' });
    await h.stores.users.insert(user);
    await h.stores.users.insert(other);
    const fields = { nickname: 'after', update_at: 50, delete_at: 60, props: { b: '2' }, notify_props: { push: 'none' }, timezone: { manualTimezone: 'UTC' } };
    await h.stores.users.update(user.id, fields);
    expect(await h.stores.users.get(user.id)).toEqual({ ...user, ...fields });
    expect(await h.stores.users.get(other.id)).toEqual(other);
  });

  test('countAll counts every user ever created, deactivated ones included', async () => {
    const before = await h.stores.users.countAll();
    await h.stores.users.insert(makeUser());
    await h.stores.users.insert(makeUser({ delete_at: 5 }));
    expect(await h.stores.users.countAll()).toBe(before + 2);
  });

  test("touchActivity moves that user's last activity only, not its version", async () => {
    const user = makeUser({ last_activity_at: 1, update_at: 7 });
    const other = makeUser({ last_activity_at: 1 });
    await h.stores.users.insert(user);
    await h.stores.users.insert(other);
    await h.stores.users.touchActivity(user.id, 900);
    expect(await h.stores.users.get(user.id)).toEqual({ ...user, last_activity_at: 900 });
    expect((await h.stores.users.get(other.id))?.last_activity_at).toBe(1);
  });

  describe('list', () => {
    // A database of its own: an unfiltered list is every user in it.
    const l = useStores(h.dialect);
    const people: Record<string, UserRecord> = {};
    const ids = { t: '', u: '', c: '', d: '' };
    const page = { page: 0, perPage: 60 };

    beforeAll(async () => {
      const spec: Array<[string, Partial<UserRecord>]> = [
        ['ann', { roles: 'system_user', last_activity_at: 300, create_at: 10 }],
        ['bob', { roles: 'system_user system_admin', last_activity_at: 100, create_at: 50 }],
        ['cat', { roles: 'system_admin system_user', last_activity_at: 200, create_at: 20 }],
        ['dan', { roles: 'system_admin', last_activity_at: 400, create_at: 40, delete_at: 7 }],
        ['eve', { roles: 'system_user system_administrator', last_activity_at: 0, create_at: 30 }],
        // "_" is a LIKE wildcard: this must not pass for system_admin.
        ['fay', { roles: 'system_user systemXadmin', last_activity_at: 250, create_at: 60 }],
        ['gus', { roles: 'system_guest system_admin system_user', last_activity_at: 100, create_at: 70 }],
      ];
      for (const [name, fields] of spec) {
        people[name] = makeUser({ username: name, ...fields });
        await l.stores.users.insert(people[name]);
      }
      const [t, u] = [makeTeam(), makeTeam()];
      await l.stores.teams.insert(t);
      await l.stores.teams.insert(u);
      // Team t: ann and fay; bob and eve left it. Team u: bob and cat.
      for (const [team, name, left] of [[t, 'ann', 0], [t, 'bob', 5], [t, 'eve', 9], [t, 'fay', 0], [u, 'bob', 0], [u, 'cat', 0]] as const) {
        await l.stores.teams.insertMember({ team_id: team.id, user_id: people[name].id, scheme_admin: false, create_at: 1 });
        if (left) await l.db.knex('team_members').where({ team_id: team.id, user_id: people[name].id }).update({ delete_at: left });
      }
      const c = await channelWithMembers(l.stores, makeChannel({ team_id: t.id }), [people.ann.id, people.cat.id, people.fay.id]);
      const d = await channelWithMembers(l.stores, makeChannel({ team_id: u.id }), [people.bob.id, people.cat.id]);
      Object.assign(ids, { t: t.id, u: u.id, c: c.id, d: d.id });
    });

    test.each<[string, (i: typeof ids) => Partial<UserFilter>, string[]]>([
      ['no filter: everyone, by username', () => ({}), ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus']],
      ['inTeam: live members only', (i) => ({ inTeam: i.t }), ['ann', 'fay']],
      ['notInTeam: those who left count as not in it', (i) => ({ notInTeam: i.t }), ['bob', 'cat', 'dan', 'eve', 'gus']],
      ['inTeam, another team', (i) => ({ inTeam: i.u }), ['bob', 'cat']],
      ['inChannel', (i) => ({ inChannel: i.c }), ['ann', 'cat', 'fay']],
      ['notInChannel', (i) => ({ notInChannel: i.c }), ['bob', 'dan', 'eve', 'gus']],
      ['inTeam and notInChannel', (i) => ({ inTeam: i.u, notInChannel: i.c }), ['bob']],
      ['inChannel and notInTeam', (i) => ({ inChannel: i.d, notInTeam: i.t }), ['bob', 'cat']],
      ['active', () => ({ active: true }), ['ann', 'bob', 'cat', 'eve', 'fay', 'gus']],
      ['inactive', () => ({ active: false }), ['dan']],
      ['withoutTeam: no live team membership', () => ({ withoutTeam: true }), ['dan', 'eve', 'gus']],
      ['withoutTeam and active', () => ({ withoutTeam: true, active: true }), ['eve', 'gus']],
      ['role: whole words anywhere in the list, nothing that merely looks alike', () => ({ role: 'system_admin' }), ['bob', 'cat', 'dan', 'gus']],
      ['role system_user', () => ({ role: 'system_user' }), ['ann', 'bob', 'cat', 'eve', 'fay', 'gus']],
      ['role system_guest', () => ({ role: 'system_guest' }), ['gus']],
      ['role in capitals: the same role', () => ({ role: 'SYSTEM_ADMIN' }), ['bob', 'cat', 'dan', 'gus']],
      ['role: part of a word is no match', () => ({ role: 'system' }), []],
      ['role: LIKE wildcards match nothing', () => ({ role: '%' }), []],
      ['role: a single-character wildcard matches nothing', () => ({ role: 'system_use_' }), []],
      ['role and inTeam', (i) => ({ role: 'system_admin', inTeam: i.u }), ['bob', 'cat']],
      ['sort by last activity, newest first, ties by username', () => ({ sort: 'last_activity_at' }), ['dan', 'ann', 'fay', 'cat', 'bob', 'gus', 'eve']],
      ['sort by creation, newest first', () => ({ sort: 'create_at' }), ['gus', 'fay', 'bob', 'dan', 'eve', 'cat', 'ann']],
      ['sort by username', () => ({ sort: 'username' }), ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus']],
      ['page and perPage', () => ({ page: 1, perPage: 2 }), ['cat', 'dan']],
      ['the last, short page', () => ({ page: 3, perPage: 2 }), ['gus']],
      ['past the end', () => ({ page: 4, perPage: 2 }), []],
      ['paging a sorted, filtered list', () => ({ sort: 'last_activity_at', active: true, page: 1, perPage: 3 }), ['bob', 'gus', 'eve']],
    ])('%s', async (_case, filter, want) => {
      expect(usernames(await l.stores.users.list({ ...page, ...filter(ids) }))).toEqual(want);
    });

    test('cursorId pages by id, after the cursor, ignoring page and sort; filters still apply', async () => {
      const byId = Object.values(people).sort((a, b) => (a.id < b.id ? -1 : 1));
      const list = (filter: Partial<UserFilter>) => l.stores.users.list({ ...page, ...filter }).then(usernames);
      expect(await list({ cursorId: '', perPage: 3 })).toEqual(usernames(byId.slice(0, 3)));
      expect(await list({ cursorId: byId[2].id, perPage: 3, page: 5, sort: 'create_at' })).toEqual(usernames(byId.slice(3, 6)));
      expect(await list({ cursorId: byId[5].id, perPage: 3 })).toEqual(usernames(byId.slice(6)));
      expect(await list({ cursorId: byId[6].id, perPage: 3 })).toEqual([]);
      // Walking the whole list with a cursor sees every active user once.
      const seen: string[] = [];
      for (let cursor = ''; ; ) {
        const batch = await l.stores.users.list({ ...page, perPage: 2, active: true, cursorId: cursor });
        if (batch.length === 0) break;
        seen.push(...usernames(batch));
        cursor = batch[batch.length - 1].id;
      }
      expect(seen).toEqual(usernames(byId.filter((u) => u.delete_at === 0)));
    });
  });

  describe('login attempt counters (login_attempts)', () => {
    const next = () => randomBytes(32).toString('hex');

    test('insert, compare-and-set by version, clear', async () => {
      const id = next();
      expect(await h.stores.users.getLoginAttempts(id)).toBeUndefined();
      expect(await h.stores.users.saveLoginAttempts(id, { failures: 1, lockedUntil: 0, lockouts: 0, lastFailureAt: 5 }, undefined)).toBe(true);
      expect(await h.stores.users.getLoginAttempts(id)).toEqual({ failures: 1, lockedUntil: 0, lockouts: 0, lastFailureAt: 5, version: 0 });
      // A write from a stale read (version 1 does not exist yet) changes nothing.
      expect(await h.stores.users.saveLoginAttempts(id, { failures: 9, lockedUntil: 0, lockouts: 0, lastFailureAt: 6 }, 1)).toBe(false);
      const at = 1_700_000_000_000 + 24 * 3600 * 1000;
      expect(await h.stores.users.saveLoginAttempts(id, { failures: 2, lockedUntil: at, lockouts: 1, lastFailureAt: 6 }, 0)).toBe(true);
      expect(await h.stores.users.getLoginAttempts(id)).toEqual({ failures: 2, lockedUntil: at, lockouts: 1, lastFailureAt: 6, version: 1 });
      await h.stores.users.clearLoginAttempts(id);
      expect(await h.stores.users.getLoginAttempts(id)).toBeUndefined();
    });

    test('a second insert of the same key is a duplicate (the caller reads again)', async () => {
      const id = next();
      await h.stores.users.saveLoginAttempts(id, { failures: 1, lockedUntil: 0, lockouts: 0, lastFailureAt: 5 }, undefined);
      await expect(h.stores.users.saveLoginAttempts(id, { failures: 1, lockedUntil: 0, lockouts: 0, lastFailureAt: 5 }, undefined)).rejects.toMatchObject({ kind: 'duplicate' });
    });

    test('purge deletes the counters with neither a failure nor a lock after the cut-off', async () => {
      const [old, recent, locked] = [next(), next(), next()];
      await h.stores.users.saveLoginAttempts(old, { failures: 3, lockedUntil: 100, lockouts: 1, lastFailureAt: 90 }, undefined);
      await h.stores.users.saveLoginAttempts(recent, { failures: 1, lockedUntil: 0, lockouts: 0, lastFailureAt: 200 }, undefined);
      await h.stores.users.saveLoginAttempts(locked, { failures: 3, lockedUntil: 300, lockouts: 2, lastFailureAt: 90 }, undefined);
      expect(await h.stores.users.purgeLoginAttempts(150)).toBeGreaterThanOrEqual(1);
      expect(await h.stores.users.getLoginAttempts(old)).toBeUndefined();
      expect((await h.stores.users.getLoginAttempts(recent))?.failures).toBe(1);
      expect((await h.stores.users.getLoginAttempts(locked))?.lockouts).toBe(2);
    });
  });
});
