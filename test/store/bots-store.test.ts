// The bots store on every database: a bot row joined with its user (name, display name, description), listed in
// creation order by owner, with disabled ones and orphans (owner deactivated or gone) filtered as GetBots asks.
import { newId } from '../../src/lib/ids';
import { forEachDatabase, makeUser } from './fixtures';

forEachDatabase((h) => {
  let owner: string;
  let other: string;

  /** A bot user and its row, created at `at`. */
  async function bot(ownerId: string, at: number, fields: { first_name?: string; bot_description?: string; delete_at?: number } = {}): Promise<string> {
    const user = makeUser({ is_bot: true, first_name: fields.first_name ?? '', bot_description: fields.bot_description ?? '', delete_at: fields.delete_at ?? 0, create_at: at });
    await h.stores.transaction(async (tx) => {
      await tx.users.insert(user);
      await tx.bots.insert({ user_id: user.id, owner_id: ownerId, last_icon_update: 0, create_at: at, update_at: at, delete_at: fields.delete_at ?? 0 });
    });
    return user.id;
  }

  beforeAll(async () => {
    const a = makeUser();
    const b = makeUser();
    await h.stores.users.insert(a);
    await h.stores.users.insert(b);
    owner = a.id;
    other = b.id;
  });

  test('get joins the user: username, first name as display name, bot_description as description; disabled only when asked', async () => {
    const id = await bot(owner, 100, { first_name: 'Deploy', bot_description: 'ships 🚀' });
    const user = await h.stores.users.get(id);
    expect(user).toMatchObject({ is_bot: true, bot_description: 'ships 🚀' });
    expect(await h.stores.bots.get(id, false)).toEqual({
      user_id: id, username: user!.username, display_name: 'Deploy', description: 'ships 🚀', owner_id: owner, last_icon_update: 0, create_at: 100, update_at: 100, delete_at: 0,
    });
    await h.stores.bots.update(id, { delete_at: 150, update_at: 150 });
    expect(await h.stores.bots.get(id, false)).toBeUndefined();
    expect((await h.stores.bots.get(id, true))?.delete_at).toBe(150);
    expect(await h.stores.bots.get(newId(), true)).toBeUndefined();
    // A user without a bot row is no bot.
    expect(await h.stores.bots.get(owner, true)).toBeUndefined();
  });

  test('list: creation order, paged; by owner; disabled left out unless asked; orphans are bots whose owner is deactivated or gone', async () => {
    const ownerB = makeUser();
    await h.stores.users.insert(ownerB);
    const first = await bot(ownerB.id, 1000);
    const second = await bot(ownerB.id, 1001);
    const disabled = await bot(ownerB.id, 1002, { delete_at: 5 });
    const others = await bot(other, 1003);
    const gone = await bot(newId(), 1004);
    const mine = await h.stores.bots.list({ ownerId: ownerB.id, includeDeleted: false, onlyOrphaned: false, page: 0, perPage: 60 });
    expect(mine.map((b) => b.user_id)).toEqual([first, second]);
    const withDisabled = await h.stores.bots.list({ ownerId: ownerB.id, includeDeleted: true, onlyOrphaned: false, page: 0, perPage: 60 });
    expect(withDisabled.map((b) => b.user_id)).toEqual([first, second, disabled]);
    const page1 = await h.stores.bots.list({ ownerId: ownerB.id, includeDeleted: true, onlyOrphaned: false, page: 1, perPage: 2 });
    expect(page1.map((b) => b.user_id)).toEqual([disabled]);
    const all = (await h.stores.bots.list({ includeDeleted: false, onlyOrphaned: false, page: 0, perPage: 200 })).map((b) => b.user_id);
    expect(all).toEqual(expect.arrayContaining([first, second, others, gone]));
    expect(all.indexOf(first)).toBeLessThan(all.indexOf(others));

    let orphans = (await h.stores.bots.list({ includeDeleted: true, onlyOrphaned: true, page: 0, perPage: 200 })).map((b) => b.user_id);
    expect(orphans).toContain(gone);
    expect(orphans).not.toContain(first);
    await h.stores.users.update(ownerB.id, { delete_at: 9 });
    orphans = (await h.stores.bots.list({ includeDeleted: false, onlyOrphaned: true, page: 0, perPage: 200 })).map((b) => b.user_id);
    expect(orphans).toEqual(expect.arrayContaining([first, second, gone]));
    expect(orphans).not.toContain(disabled);
    expect(orphans).not.toContain(others);
  });

  test('delete removes the bot row and leaves the user', async () => {
    const id = await bot(owner, 2000);
    await h.stores.bots.delete(id);
    expect(await h.stores.bots.get(id, true)).toBeUndefined();
    expect(await h.stores.users.get(id)).toBeDefined();
  });
});
