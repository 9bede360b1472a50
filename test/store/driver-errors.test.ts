// Driver errors as the layers above see them, from a real database: each store call that a unique key refuses rejects
// with a DatabaseError of kind 'duplicate' (the app turns it into its own 400/409), whatever the driver's own code.
import { DatabaseError, isDatabaseError } from '../../src/model';
import { newId } from '../../src/lib/ids';
import { channelWithMembers, forEachDatabase, makeChannel, makePost, makeTeam, makeUser, makeWebhook, type StoreHarness } from './fixtures';

// What each driver says underneath: kept as the DatabaseError's cause, for the logs.
const DRIVER_CODES = { sqlite: ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'], mysql: ['ER_DUP_ENTRY'] };

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/** Each case stores a row, then returns the call that collides with it and a read of the row that must be unchanged. */
type Case = (h: StoreHarness) => Promise<{ collide: () => Promise<unknown>; read: () => Promise<unknown> }>;

const cases: Array<[string, Case]> = [
  ['users.insert: the same id', async (h) => {
    const u = makeUser();
    await h.stores.users.insert(u);
    return { collide: () => h.stores.users.insert(makeUser({ id: u.id })), read: () => h.stores.users.get(u.id) };
  }],
  ['users.insert: a username taken', async (h) => {
    const u = makeUser();
    await h.stores.users.insert(u);
    return { collide: () => h.stores.users.insert(makeUser({ username: u.username })), read: () => h.stores.users.getByUsername(u.username) };
  }],
  ['users.insert: an email taken', async (h) => {
    const u = makeUser();
    await h.stores.users.insert(u);
    return { collide: () => h.stores.users.insert(makeUser({ email: u.email })), read: () => h.stores.users.getByEmail(u.email) };
  }],
  ['users.update: to a username taken', async (h) => {
    const [u, v] = [makeUser(), makeUser()];
    await h.stores.users.insert(u);
    await h.stores.users.insert(v);
    return { collide: () => h.stores.users.update(v.id, { username: u.username }), read: () => h.stores.users.getMany([u.id, v.id]) };
  }],
  ['teams.insert: a name taken', async (h) => {
    const t = makeTeam();
    await h.stores.teams.insert(t);
    return { collide: () => h.stores.teams.insert(makeTeam({ name: t.name })), read: () => h.stores.teams.getByName(t.name) };
  }],
  ['teams.insertMember: already a member', async (h) => {
    const [t, u] = [makeTeam(), makeUser()];
    await h.stores.teams.insert(t);
    await h.stores.users.insert(u);
    await h.stores.teams.insertMember({ team_id: t.id, user_id: u.id, scheme_admin: true, create_at: 1 });
    return {
      collide: () => h.stores.teams.insertMember({ team_id: t.id, user_id: u.id, scheme_admin: false, create_at: 2 }),
      read: () => h.stores.teams.getMember(t.id, u.id),
    };
  }],
  ['channels.insert: a name taken in the team', async (h) => {
    const c = makeChannel({ team_id: newId() });
    await h.stores.channels.insert(c);
    return { collide: () => h.stores.channels.insert(makeChannel({ team_id: c.team_id, name: c.name })), read: () => h.stores.channels.getByName(c.team_id, c.name, true) };
  }],
  ['channels.insertMember: already a member', async (h) => {
    const u = makeUser();
    await h.stores.users.insert(u);
    const c = await channelWithMembers(h.stores, makeChannel({ team_id: newId() }), [u.id]);
    return {
      collide: () => h.stores.channels.insertMember({ channel_id: c.id, user_id: u.id, scheme_admin: true, now: 5, msg_count: 9, msg_count_root: 9 }),
      read: () => h.stores.channels.getMember(c.id, u.id),
    };
  }],
  ['sessions.createSession: a token digest taken', async (h) => {
    const u = makeUser();
    await h.stores.users.insert(u);
    const s = { tokenHash: 'd'.repeat(64 - 26) + newId(), userId: u.id, createAt: 1, expiresAt: 0, csrfToken: newId() };
    await h.stores.sessions.createSession({ id: newId(), ...s });
    return { collide: () => h.stores.sessions.createSession({ ...s, id: newId(), csrfToken: newId() }), read: () => h.stores.sessions.findByTokenHash(s.tokenHash, 2) };
  }],
  ['sessions.createAccessToken: the same id', async (h) => {
    const u = makeUser();
    await h.stores.users.insert(u);
    const t = { id: newId(), user_id: u.id, description: 'first', is_active: true, expires_at: 0 };
    await h.stores.sessions.createAccessToken({ ...t, tokenHash: 'e'.repeat(64 - 26) + newId() });
    return {
      collide: () => h.stores.sessions.createAccessToken({ ...t, description: 'second', tokenHash: 'e'.repeat(64 - 26) + newId() }),
      read: () => h.stores.sessions.getAccessToken(t.id),
    };
  }],
  ['webhooks.insert: the same id', async (h) => {
    const w = makeWebhook({ channel_id: newId(), team_id: newId(), user_id: newId() });
    await h.stores.webhooks.insert(w);
    return { collide: () => h.stores.webhooks.insert({ ...w, display_name: 'second' }), read: () => h.stores.webhooks.get(w.id) };
  }],
  ['posts.write in a transaction: a post id taken (the whole transaction rolls back)', async (h) => {
    const u = makeUser();
    await h.stores.users.insert(u);
    const c = await channelWithMembers(h.stores, makeChannel({ team_id: newId() }), [u.id]);
    const p = makePost({ channel_id: c.id, user_id: u.id, create_at: 10 });
    await h.stores.transaction((tx) => tx.posts.write({ channelId: c.id, posts: [p], mentions: new Map() }));
    const fresh = makePost({ channel_id: c.id, user_id: u.id, create_at: 11 });
    return {
      collide: () => h.stores.transaction((tx) => tx.posts.write({ channelId: c.id, posts: [fresh, { ...p, message: 'second' }], mentions: new Map() })),
      read: async () => [await h.stores.posts.getMany([p.id, fresh.id]), (await h.stores.channels.get(c.id))?.total_msg_count],
    };
  }],
];

forEachDatabase((h) => {
  test.each(cases)('%s: a DatabaseError of kind duplicate, and nothing changed', async (_case, setup) => {
    const { collide, read } = await setup(h);
    const before = await read();
    const err = await failure(collide());
    expect(err).toBeInstanceOf(DatabaseError);
    expect(isDatabaseError(err, 'duplicate')).toBe(true);
    expect(DRIVER_CODES[h.dialect]).toContain(((err as DatabaseError).cause as { code?: string }).code);
    expect(await read()).toEqual(before);
  });

  test('a row refused for another reason (NOT NULL) is not taken for a duplicate', async () => {
    const err = await failure(h.stores.users.insert(makeUser({ username: null as unknown as string })));
    expect(err).toBeDefined();
    expect(isDatabaseError(err, 'duplicate')).toBe(false);
  });

  test('a value too long for its column: too_long naming the column on MySQL; SQLite stores any length', async () => {
    const u = makeUser();
    await h.stores.users.insert(u);
    const err = await failure(h.stores.users.update(u.id, { nickname: 'n'.repeat(65) }));
    if (h.dialect === 'sqlite') {
      expect(err).toBeUndefined();
      return;
    }
    expect(err).toBeInstanceOf(DatabaseError);
    expect([(err as DatabaseError).kind, (err as DatabaseError).column]).toEqual(['too_long', 'nickname']);
    expect((await h.stores.users.get(u.id))?.nickname).toBe(u.nickname);
  });
});
