// The sidebar store (categories and the channels placed in them) on every database, with the two additions the
// sidebar made to other stores: ChannelsStore.setMarkUnread and PreferencesStore.deleteNames.
import type { SidebarCategoryRecord, SidebarCategoryType } from '../../src/model';
import { DUPLICATE, channelWithMembers, forEachDatabase, makeChannel, makeTeam, makeUser, rejection } from './fixtures';

forEachDatabase((h) => {
  let alice: string;
  let bob: string;
  let teamId: string;
  let otherTeamId: string;
  /** Channels of the team, alice in all of them, named so that display-name order is b, c, a. */
  let a: string;
  let b: string;
  let c: string;
  let archived: string;
  let notMine: string;
  let direct: string;
  let otherTeamChannel: string;

  const category = (id: string, type: SidebarCategoryType, sortOrder: number, team = teamId, user = alice): SidebarCategoryRecord => ({
    id,
    user_id: user,
    team_id: team,
    sort_order: sortOrder,
    sorting: '',
    type,
    display_name: id,
    muted: false,
    collapsed: false,
  });
  const ids = {
    favorites: () => `favorites_${alice}_${teamId}`,
    channels: () => `channels_${alice}_${teamId}`,
    directs: () => `direct_messages_${alice}_${teamId}`,
  };

  beforeAll(async () => {
    const team = makeTeam();
    const other = makeTeam();
    await h.stores.teams.insert(team);
    await h.stores.teams.insert(other);
    teamId = team.id;
    otherTeamId = other.id;
    const ua = makeUser();
    const ub = makeUser();
    await h.stores.users.insert(ua);
    await h.stores.users.insert(ub);
    alice = ua.id;
    bob = ub.id;
    const channel = async (display: string, members: string[], fields: Record<string, unknown> = {}) =>
      (await channelWithMembers(h.stores, makeChannel({ team_id: teamId, display_name: display, ...fields }), members)).id;
    a = await channel('zulu', [alice, bob]);
    b = await channel('alpha', [alice]);
    c = await channel('mike', [alice]);
    archived = await channel('archived', [alice]);
    await h.stores.channels.setDeleteAt(archived, 5, 5);
    notMine = await channel('bob only', [bob]);
    direct = (await channelWithMembers(h.stores, makeChannel({ team_id: '', type: 'D', display_name: '' }), [alice, bob])).id;
    otherTeamChannel = (await channelWithMembers(h.stores, makeChannel({ team_id: otherTeamId }), [alice])).id;
    await h.stores.sidebar.insertCategories([category(ids.favorites(), 'favorites', 0), category(ids.channels(), 'channels', 10), category(ids.directs(), 'direct_messages', 20)]);
  });

  afterEach(async () => {
    await h.db.knex('sidebar_channels').delete();
    await h.db.knex('sidebar_categories').whereNotIn('id', [ids.favorites(), ids.channels(), ids.directs()]).delete();
  });

  test('categories come in sort order; inserting an existing id is skipped; a lookup matches the exact id only', async () => {
    await h.stores.sidebar.insertCategories([category('c'.repeat(26), 'custom', 5), { ...category(ids.channels(), 'channels', 99), display_name: 'changed' }]);
    expect((await h.stores.sidebar.categories(alice, teamId)).map((x) => [x.id, x.sort_order])).toEqual([
      [ids.favorites(), 0],
      ['c'.repeat(26), 5],
      [ids.channels(), 10],
      [ids.directs(), 20],
    ]);
    expect(await h.stores.sidebar.category(ids.channels())).toEqual(category(ids.channels(), 'channels', 10));
    expect(await h.stores.sidebar.category('C'.repeat(26))).toBeUndefined();
    expect(await h.stores.sidebar.categories(bob, teamId)).toEqual([]);
    expect(await h.stores.sidebar.countCustom(alice, teamId)).toBe(1);
  });

  test('unplaced: the member channels of the team and the direct ones not placed on that team, not archived, by display name', async () => {
    expect(await h.stores.sidebar.unplaced(alice, teamId)).toEqual([
      { channelId: direct, type: 'D' },
      { channelId: b, type: 'O' },
      { channelId: c, type: 'O' },
      { channelId: a, type: 'O' },
    ]);
    await h.stores.transaction((tx) => tx.sidebar.place(alice, teamId, [], [{ categoryId: ids.favorites(), channelIds: [direct, c] }]));
    expect((await h.stores.sidebar.unplaced(alice, teamId)).map((u) => u.channelId)).toEqual([b, a]);
    // Placed on one team, a direct channel is still unplaced on another.
    expect((await h.stores.sidebar.unplaced(alice, otherTeamId)).map((u) => u.channelId).sort()).toEqual([direct, otherTeamChannel].sort());
  });

  test('place: channels in order (0, 10, ...), moved out of any other category, the cleared ones emptied first', async () => {
    const custom = 'k'.repeat(26);
    await h.stores.sidebar.insertCategories([category(custom, 'custom', 5)]);
    await h.stores.transaction((tx) => tx.sidebar.place(alice, teamId, [], [{ categoryId: ids.favorites(), channelIds: [a, b, archived] }]));
    expect(await h.stores.sidebar.placed(alice, teamId)).toEqual([a, b, archived].map((channelId) => ({ categoryId: ids.favorites(), channelId })));
    const rows = await h.db.knex('sidebar_channels').where({ category_id: ids.favorites() }).orderBy('sort_order').select('channel_id', 'sort_order');
    expect(rows.map((r) => [r.channel_id, Number(r.sort_order)])).toEqual([[a, 0], [b, 10], [archived, 20]]);

    // b moves to the custom category although favorites is not cleared; c is placed; favorites keeps a and archived.
    await h.stores.transaction((tx) => tx.sidebar.place(alice, teamId, [custom], [{ categoryId: custom, channelIds: [c, b] }]));
    expect(await h.stores.sidebar.placed(alice, teamId, custom)).toEqual([c, b].map((channelId) => ({ categoryId: custom, channelId })));
    expect((await h.stores.sidebar.placed(alice, teamId, ids.favorites())).map((p) => p.channelId)).toEqual([a, archived]);

    // Clearing without placing empties it.
    await h.stores.transaction((tx) => tx.sidebar.place(alice, teamId, [custom], []));
    expect(await h.stores.sidebar.placed(alice, teamId, custom)).toEqual([]);
  });

  test('the key keeps a channel in one category per user and team', async () => {
    await h.stores.transaction((tx) => tx.sidebar.place(alice, teamId, [], [{ categoryId: ids.favorites(), channelIds: [a] }]));
    const twice = h.db.knex('sidebar_channels').insert({ user_id: alice, team_id: teamId, channel_id: a, category_id: ids.channels(), sort_order: 0 });
    expect(await rejection(twice)).toMatch(DUPLICATE);
  });

  test('placed leaves out channels the user is no longer a member of', async () => {
    await h.stores.transaction((tx) => tx.sidebar.place(alice, teamId, [], [{ categoryId: ids.favorites(), channelIds: [notMine, a] }]));
    expect((await h.stores.sidebar.placed(alice, teamId)).map((p) => p.channelId)).toEqual([a]);
  });

  test('placeFirst puts a channel before the lowest, moving it; seed skips channels already placed', async () => {
    await h.stores.transaction((tx) => tx.sidebar.place(alice, teamId, [], [{ categoryId: ids.favorites(), channelIds: [a, b] }, { categoryId: ids.channels(), channelIds: [c] }]));
    await h.stores.sidebar.placeFirst(alice, teamId, ids.favorites(), c);
    expect((await h.stores.sidebar.placed(alice, teamId, ids.favorites())).map((p) => p.channelId)).toEqual([c, a, b]);
    expect(await h.stores.sidebar.placed(alice, teamId, ids.channels())).toEqual([]);
    await h.stores.sidebar.placeFirst(alice, teamId, ids.favorites(), a);
    expect((await h.stores.sidebar.placed(alice, teamId, ids.favorites())).map((p) => p.channelId)).toEqual([c, a, b]);
    // Into an empty category: sort order 0.
    await h.stores.sidebar.placeFirst(alice, teamId, ids.channels(), b);
    expect((await h.stores.sidebar.placed(alice, teamId, ids.channels())).map((p) => p.channelId)).toEqual([b]);

    await h.stores.sidebar.seed(alice, teamId, ids.favorites(), [b, direct]);
    expect((await h.stores.sidebar.placed(alice, teamId)).map((p) => `${p.categoryId === ids.favorites() ? 'f' : 'c'}:${p.channelId}`).sort()).toEqual(
      [`f:${c}`, `f:${a}`, `c:${b}`, `f:${direct}`].sort(),
    );
  });

  test('unplaceFromType, removeChannel and clearTeam forget placements; deleteCategory takes its placements', async () => {
    const custom = 'd'.repeat(26);
    await h.stores.sidebar.insertCategories([category(custom, 'custom', 5), category(`favorites_${alice}_${otherTeamId}`, 'favorites', 0, otherTeamId)]);
    await h.stores.transaction((tx) => tx.sidebar.place(alice, teamId, [], [{ categoryId: ids.favorites(), channelIds: [a, direct] }, { categoryId: custom, channelIds: [b] }]));
    await h.stores.transaction((tx) => tx.sidebar.place(alice, otherTeamId, [], [{ categoryId: `favorites_${alice}_${otherTeamId}`, channelIds: [direct, otherTeamChannel] }]));

    await h.stores.sidebar.unplaceFromType(alice, direct, 'favorites');
    expect((await h.stores.sidebar.placed(alice, teamId)).map((p) => p.channelId).sort()).toEqual([a, b].sort());
    expect((await h.stores.sidebar.placed(alice, otherTeamId)).map((p) => p.channelId)).toEqual([otherTeamChannel]);
    expect((await h.stores.sidebar.categoriesOfType(alice, 'favorites')).map((x) => x.team_id).sort()).toEqual([teamId, otherTeamId].sort());
    expect((await h.stores.sidebar.categoriesOfType(alice, 'favorites', otherTeamId)).map((x) => x.id)).toEqual([`favorites_${alice}_${otherTeamId}`]);

    await h.stores.sidebar.removeChannel(a, [alice]);
    expect((await h.stores.sidebar.placed(alice, teamId)).map((p) => p.channelId)).toEqual([b]);

    await h.stores.sidebar.deleteCategory(custom);
    expect(await h.stores.sidebar.category(custom)).toBeUndefined();
    expect(await h.db.knex('sidebar_channels').where({ category_id: custom })).toEqual([]);

    await h.stores.sidebar.clearTeam(alice, otherTeamId);
    expect(await h.stores.sidebar.categories(alice, otherTeamId)).toEqual([]);
    expect(await h.db.knex('sidebar_channels').where({ user_id: alice, team_id: otherTeamId })).toEqual([]);
    expect((await h.stores.sidebar.categories(alice, teamId)).length).toBe(3);
  });

  test('setOrder numbers categories 0, 10, 20 in the order given', async () => {
    await h.stores.transaction((tx) => tx.sidebar.setOrder([ids.directs(), ids.favorites(), ids.channels()]));
    expect((await h.stores.sidebar.categories(alice, teamId)).map((x) => [x.id, x.sort_order])).toEqual([
      [ids.directs(), 0],
      [ids.favorites(), 10],
      [ids.channels(), 20],
    ]);
    await h.stores.transaction((tx) => tx.sidebar.setOrder([ids.favorites(), ids.channels(), ids.directs()]));
  });

  test('updateCategory writes the settings only', async () => {
    const custom = 'e'.repeat(26);
    await h.stores.sidebar.insertCategories([category(custom, 'custom', 5)]);
    await h.stores.sidebar.updateCategory({ ...category(custom, 'custom', 5), display_name: 'Renamed 😀', sorting: 'alpha', muted: true, collapsed: true, sort_order: 999, type: 'favorites' });
    expect(await h.stores.sidebar.category(custom)).toEqual({ ...category(custom, 'custom', 5), display_name: 'Renamed 😀', sorting: 'alpha', muted: true, collapsed: true });
  });

  test('favoritesFromPreferences: "true" favourites of channels the user is in, on the team or direct, by display name', async () => {
    const fav = (name: string, value = 'true') => ({ user_id: alice, category: 'favorite_channel', name, value });
    await h.stores.transaction((tx) => tx.preferences.save([fav(a), fav(b), fav(c, 'false'), fav(notMine), fav(direct), fav(otherTeamChannel), fav('x'.repeat(26))]));
    expect(await h.stores.sidebar.favoritesFromPreferences(alice, teamId)).toEqual([direct, b, a]);
    await h.stores.transaction((tx) => tx.preferences.deleteNames(alice, 'favorite_channel', [a, b, c, notMine, direct, otherTeamChannel, 'x'.repeat(26)]));
    expect(await h.stores.preferences.category(alice, 'favorite_channel')).toEqual([]);
  });

  test('setMarkUnread mutes and unmutes the memberships named, answering those it changed', async () => {
    const muted = await h.stores.transaction((tx) => tx.channels.setMarkUnread(alice, [a, b, notMine], 'mention', 77));
    expect(muted.map((m) => m.channel_id).sort()).toEqual([a, b].sort());
    expect((await h.stores.channels.getMember(a, alice))?.notify_props).toMatchObject({ mark_unread: 'mention', desktop: 'default' });
    expect((await h.stores.channels.getMember(a, bob))?.notify_props.mark_unread).toBe('all');
    expect(await h.stores.transaction((tx) => tx.channels.setMarkUnread(alice, [a], 'mention', 78))).toEqual([]);
    const unmuted = await h.stores.transaction((tx) => tx.channels.setMarkUnread(alice, [a, b], 'all', 79));
    expect(unmuted.map((m) => [m.channel_id, m.notify_props.mark_unread, m.last_update_at]).sort()).toEqual([[a, 'all', 79], [b, 'all', 79]].sort());
  });
});
