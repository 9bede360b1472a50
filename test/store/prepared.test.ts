// prepared(): a read compiled by Knex once per database and re-sent with each call's values. It must answer exactly
// what the same query built by Knex answers, for every call's values (not the first call's), on each database.
import { prepared } from '../../src/store/prepared';
import { forEachDatabase, makeUser } from './fixtures';

forEachDatabase((h) => {
  const byRole = prepared((db, role: string, limit: number) => db('users').where('roles', role).orderBy('username').select('username').limit(limit));

  test('each call gets its own values; the answers are those of the query built by Knex', async () => {
    const tag = `r${Date.now()}`;
    for (const [i, role] of [`${tag}a`, `${tag}a`, `${tag}a`, `${tag}b`].entries()) await h.stores.users.insert(makeUser({ username: `p${tag}${i}`, roles: role }));
    const knexRows = async (role: string, limit: number) => (await h.db.knex('users').where('roles', role).orderBy('username').select('username').limit(limit)).map((r: { username: string }) => r.username);
    for (const [role, limit] of [
      [`${tag}a`, 2],
      [`${tag}a`, 10],
      [`${tag}b`, 10],
      ['nobody', 5],
    ] as const) {
      const got = (await byRole(h.db.knex, role, limit)).map((r) => r.username);
      expect(got).toEqual(await knexRows(role, limit));
    }
    expect((await byRole(h.db.knex, `${tag}a`, 2)).length).toBe(2);
    // Inside a transaction too (the same SQL on the transaction's connection).
    await h.db.knex.transaction(async (tx) => expect((await byRole(tx, `${tag}b`, 10)).map((r) => r.username)).toEqual([`p${tag}3`]));
  });

  test('a builder that does not bind an argument as a value is refused, not cached wrong', async () => {
    const broken = prepared((db, _unused: string) => db('users').select('id').limit(1));
    await expect(broken(h.db.knex, 'x')).rejects.toThrow(/not a bound value/);
  });
});
