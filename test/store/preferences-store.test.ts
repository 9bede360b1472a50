import { channelWithMembers, forEachDatabase, makeChannel, makePost, makeTeam, makeUser, writePosts } from './fixtures';

forEachDatabase((h) => {
  let alice: string;
  let bob: string;
  let teamId: string;
  let channelId: string;
  let otherTeamChannelId: string;
  let directId: string;

  beforeAll(async () => {
    const team = makeTeam();
    const other = makeTeam();
    await h.stores.teams.insert(team);
    await h.stores.teams.insert(other);
    teamId = team.id;
    const a = makeUser();
    const b = makeUser();
    await h.stores.users.insert(a);
    await h.stores.users.insert(b);
    alice = a.id;
    bob = b.id;
    channelId = (await channelWithMembers(h.stores, makeChannel({ team_id: team.id }), [alice, bob])).id;
    otherTeamChannelId = (await channelWithMembers(h.stores, makeChannel({ team_id: other.id }), [alice])).id;
    directId = (await channelWithMembers(h.stores, makeChannel({ team_id: '', type: 'D' }), [alice, bob])).id;
  });

  const pref = (user_id: string, category: string, name: string, value: string) => ({ user_id, category, name, value });

  async function post(inChannel: string, createAt: number): Promise<string> {
    const p = makePost({ channel_id: inChannel, user_id: alice, create_at: createAt });
    await writePosts(h.stores, inChannel, [p], new Map());
    return p.id;
  }

  test('save inserts, then replaces the value under the same key; reads by user, category and key', async () => {
    await h.stores.transaction((tx) => tx.preferences.save([pref(alice, 'display_settings', 'use_military_time', 'false'), pref(alice, 'theme', '', '{"a":"b"}')]));
    await h.stores.transaction((tx) => tx.preferences.save([pref(alice, 'display_settings', 'use_military_time', 'true'), pref(bob, 'display_settings', 'use_military_time', 'false')]));
    expect(await h.stores.preferences.all(alice)).toEqual([pref(alice, 'display_settings', 'use_military_time', 'true'), pref(alice, 'theme', '', '{"a":"b"}')]);
    expect(await h.stores.preferences.category(bob, 'display_settings')).toEqual([pref(bob, 'display_settings', 'use_military_time', 'false')]);
    expect(await h.stores.preferences.get(alice, 'theme', '')).toEqual(pref(alice, 'theme', '', '{"a":"b"}'));
    expect(await h.stores.preferences.get(alice, 'theme', 'nope')).toBeUndefined();
    const [{ n }] = await h.db.knex('preferences').where({ user_id: alice, category: 'display_settings' }).count({ n: '*' });
    expect(Number(n)).toBe(1);
  });

  test('a key repeated in one save: the last value wins', async () => {
    await h.stores.transaction((tx) => tx.preferences.save([pref(bob, 'repeat', 'x', '1'), pref(bob, 'repeat', 'x', '2')]));
    expect(await h.stores.preferences.category(bob, 'repeat')).toEqual([pref(bob, 'repeat', 'x', '2')]);
  });

  test('a value of 20000 four-byte characters is stored whole (MySQL: more than a TEXT column holds)', async () => {
    const value = '😀'.repeat(20000);
    await h.stores.transaction((tx) => tx.preferences.save([pref(bob, 'big', 'v', value)]));
    expect((await h.stores.preferences.get(bob, 'big', 'v'))?.value).toBe(value);
  });

  test('delete removes only the named keys of that user; a missing key is no error', async () => {
    await h.stores.transaction((tx) => tx.preferences.save([pref(alice, 'del', 'a', '1'), pref(alice, 'del', 'b', '2'), pref(bob, 'del', 'a', '3')]));
    await h.stores.transaction((tx) => tx.preferences.delete(alice, [{ category: 'del', name: 'a' }, { category: 'del', name: 'missing' }]));
    expect(await h.stores.preferences.category(alice, 'del')).toEqual([pref(alice, 'del', 'b', '2')]);
    expect(await h.stores.preferences.category(bob, 'del')).toEqual([pref(bob, 'del', 'a', '3')]);
  });

  test('flaggedPostIds: saved ("true"), not deleted, newest first, paged, scoped to a channel or a team (with DMs)', async () => {
    const old = await post(channelId, 1000);
    const mid = await post(directId, 2000);
    const elsewhere = await post(otherTeamChannelId, 3000);
    const deleted = await post(channelId, 4000);
    const unflagged = await post(channelId, 5000);
    const newest = await post(channelId, 6000);
    const stored = await h.stores.posts.get(deleted);
    await h.stores.posts.softDelete(stored!, 4500);
    const flag = (id: string, value = 'true') => pref(alice, 'flagged_post', id, value);
    await h.stores.transaction((tx) => tx.preferences.save([flag(old), flag(mid), flag(elsewhere), flag(deleted), flag(unflagged, 'false'), flag(newest), pref(bob, 'flagged_post', unflagged, 'true')]));

    expect(await h.stores.preferences.flaggedPostIds(alice, {}, 0, 60)).toEqual([newest, elsewhere, mid, old]);
    expect(await h.stores.preferences.flaggedPostIds(alice, {}, 1, 2)).toEqual([mid, old]);
    expect(await h.stores.preferences.flaggedPostIds(alice, { channelId }, 0, 60)).toEqual([newest, old]);
    expect(await h.stores.preferences.flaggedPostIds(alice, { teamId }, 0, 60)).toEqual([newest, mid, old]);
    expect(await h.stores.preferences.flaggedPostIds(bob, {}, 0, 60)).toEqual([unflagged]);
  });
});
