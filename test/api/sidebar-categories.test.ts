// Sidebar categories (GetSidebarCategoriesForTeamForUser, CreateSidebarCategoryForTeamForUser,
// UpdateSidebarCategoriesForTeamForUser, Get/UpdateSidebarCategoryOrderForTeamForUser, Get/Update/
// RemoveSidebarCategoryForTeamForUser) over real HTTP through Client4, kept consistent with joins, leaves, archives,
// direct channels and favorite_channel preferences, with the events they send to the user's own sockets.
import type { ChannelCategory } from '@mattermost/types/channel_categories';
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createChannel, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { connect, type Frame } from '../support/ws';

let server: TestServer;
let admin: Actor;
let bob: Actor;
let teamId: string;
let otherTeamId: string;
let publicId: string;
let privateId: string;

const base = (userId: string, team = teamId) => `/api/v4/users/${userId}/teams/${team}/channels/categories`;
const byType = (list: ChannelCategory[], type: string) => list.find((c) => c.type === type) as ChannelCategory;

/** A new user on the team (and the other team), in the public and private channels, with a direct channel with bob. */
async function newUser(): Promise<{ user: Actor; directId: string; townSquareId: string; offTopicId: string }> {
  const user = await createUser(server, admin);
  for (const t of [teamId, otherTeamId]) await admin.api.post(`/api/v4/teams/${t}/members`, { team_id: t, user_id: user.id }).expect(201);
  for (const c of [publicId, privateId]) await admin.api.post(`/api/v4/channels/${c}/members`, { user_id: user.id }).expect(201);
  const directId = (await user.api.post('/api/v4/channels/direct', [user.id, bob.id]).expect(201)).body.id as string;
  const townSquareId = (await user.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id as string;
  const offTopicId = (await user.api.get(`/api/v4/teams/${teamId}/channels/name/off-topic`).expect(200)).body.id as string;
  return { user, directId, townSquareId, offTopicId };
}

async function categoriesOf(user: Actor, team = teamId): Promise<{ categories: ChannelCategory[]; order: string[] }> {
  return client4For(server, user).getChannelCategories(user.id, team);
}

/**
 * Every channel of the user on the team that is not archived, and their direct channels, each in exactly one category
 * (with `placedArchived`, archived channels the user placed, which stay where they are).
 */
async function expectEachChannelOnce(user: Actor, team = teamId, placedArchived: string[] = []): Promise<void> {
  const channels = (await user.api.get(`/api/v4/users/me/teams/${team}/channels`).expect(200)).body as Array<{ id: string }>;
  const listed = (await categoriesOf(user, team)).categories.flatMap((c) => c.channel_ids);
  expect([...listed].sort()).toEqual([...channels.map((c) => c.id), ...placedArchived].sort());
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  bob = await createUser(server, admin);
  teamId = await createTeam(admin, `side${process.pid}`, [bob]);
  otherTeamId = await createTeam(admin, `sideother${process.pid}`, [bob]);
  publicId = await createChannel(admin, teamId, 'O', [bob], 'side-pub');
  privateId = await createChannel(admin, teamId, 'P', [], 'side-priv');
});
afterAll(() => server.close());

describe('the default categories', () => {
  test('created on first read: favorites, channels, direct_messages, ids {type}_{user}_{team}, sort orders 0/10/20', async () => {
    const { user, directId, townSquareId, offTopicId } = await newUser();
    const c = client4For(server, user);
    const { categories, order } = await c.getChannelCategories(user.id, teamId);
    const ids = ['favorites', 'channels', 'direct_messages'].map((t) => `${t}_${user.id}_${teamId}`);
    expect(order).toEqual(ids);
    expect(categories.map((x) => [x.id, x.type, (x as ChannelCategory & { sort_order: number }).sort_order, x.sorting, x.display_name, x.muted, x.collapsed])).toEqual([
      [ids[0], 'favorites', 0, '', 'Favorites', false, false],
      [ids[1], 'channels', 10, '', 'Channels', false, false],
      [ids[2], 'direct_messages', 20, 'recent', 'Direct Messages', false, false],
    ]);
    expect(categories[0].channel_ids).toEqual([]);
    expect([...categories[1].channel_ids].sort()).toEqual([townSquareId, offTopicId, publicId, privateId].sort());
    expect(categories[2].channel_ids).toEqual([directId]);
    await expectEachChannelOnce(user);
    expect(await c.getChannelCategoryOrder(user.id, teamId)).toEqual(ids);
    expect(await c.getChannelCategory(user.id, teamId, ids[2])).toEqual(categories[2]);
    // The direct channel is in direct_messages on every team.
    expect(byType((await categoriesOf(user, otherTeamId)).categories, 'direct_messages').channel_ids).toEqual([directId]);
  });

  test('a first read that races another creates each default once', async () => {
    const { user } = await newUser();
    const results = await Promise.all([1, 2, 3].map(() => categoriesOf(user)));
    for (const r of results) expect(r.order).toEqual(results[0].order);
    expect((await categoriesOf(user)).categories).toHaveLength(3);
  });

  test('default categories cannot be deleted, and are not renamed', async () => {
    const { user } = await newUser();
    const c = client4For(server, user);
    const channels = byType((await categoriesOf(user)).categories, 'channels');
    await expectClientError(c.deleteChannelCategory(user.id, teamId, channels.id), 400, 'app.channel.sidebar_categories.app_error');
    const updated = await c.updateChannelCategory(user.id, teamId, { ...channels, display_name: 'Renamed', collapsed: true });
    expect(updated).toMatchObject({ id: channels.id, display_name: 'Channels', collapsed: true, type: 'channels' });
  });
});

describe('moving channels, favourites', () => {
  test('moveChannelToCategory (both categories sent) into favorites sets favorite_channel; moving it back clears it', async () => {
    const { user } = await newUser();
    const c = client4For(server, user);
    const { categories } = await categoriesOf(user);
    const favorites = byType(categories, 'favorites');
    const channels = byType(categories, 'channels');
    const moved = await c.updateChannelCategories(user.id, teamId, [
      { ...favorites, sorting: 'manual' as ChannelCategory['sorting'], channel_ids: [publicId] },
      { ...channels, channel_ids: channels.channel_ids.filter((id) => id !== publicId) },
    ]);
    expect(moved.map((x: ChannelCategory) => x.id)).toEqual([favorites.id, channels.id]);
    expect(moved[0]).toMatchObject({ channel_ids: [publicId], sorting: 'manual' });
    expect(moved[1].channel_ids).not.toContain(publicId);
    expect((await user.api.get(`/api/v4/users/me/preferences/favorite_channel/name/${publicId}`).expect(200)).body.value).toBe('true');
    await expectEachChannelOnce(user);

    await c.updateChannelCategories(user.id, teamId, [{ ...moved[0], channel_ids: [] }]);
    const after = (await categoriesOf(user)).categories;
    expect(byType(after, 'favorites').channel_ids).toEqual([]);
    expect(byType(after, 'channels').channel_ids).toContain(publicId);
    expectAppError(await user.api.get(`/api/v4/users/me/preferences/favorite_channel/name/${publicId}`), 400, 'app.preference.get.app_error');
  });

  test('a channel listed while it sits in a category the request leaves out stays there (a stale list): never in two', async () => {
    const { user } = await newUser();
    const c = client4For(server, user);
    const stale = (await categoriesOf(user)).categories;
    // Created with a channel: it leaves Channels.
    const custom = await c.createChannelCategory(user.id, teamId, { user_id: user.id, team_id: teamId, display_name: 'Work', channel_ids: [privateId] });
    expect(byType((await categoriesOf(user)).categories, 'channels').channel_ids).not.toContain(privateId);
    // What redux's moveChannelToCategory sends from a store that has not seen the new category: favorites with the
    // public channel, and Channels as it was (private channel included).
    const channels = byType(stale, 'channels');
    await c.updateChannelCategories(user.id, teamId, [
      { ...byType(stale, 'favorites'), channel_ids: [publicId] },
      { ...channels, channel_ids: channels.channel_ids.filter((id) => id !== publicId) },
    ]);
    const after = (await categoriesOf(user)).categories;
    expect(after.find((x) => x.id === custom.id)?.channel_ids).toEqual([privateId]);
    expect(byType(after, 'favorites').channel_ids).toEqual([publicId]);
    expect(byType(after, 'channels').channel_ids).not.toContain(privateId);
    await expectEachChannelOnce(user);
    // A move naming both categories moves it.
    await c.updateChannelCategories(user.id, teamId, [
      { ...byType(after, 'favorites'), channel_ids: [privateId, publicId] },
      { ...after.find((x) => x.id === custom.id)!, channel_ids: [] },
    ]);
    expect(byType((await categoriesOf(user)).categories, 'favorites').channel_ids).toEqual([privateId, publicId]);
    await expectEachChannelOnce(user);
  });

  test('favorite_channel preferences: saved before the first read they seed favorites; saved later they move the channel first, "false" or deleted back', async () => {
    const { user, offTopicId, directId } = await newUser();
    const fav = (name: string, value = 'true') => ({ user_id: user.id, category: 'favorite_channel', name, value });
    await user.api.put('/api/v4/users/me/preferences', [fav(publicId), fav(directId), fav(privateId, 'false')]).expect(200);
    let favorites = byType((await categoriesOf(user)).categories, 'favorites');
    expect([...favorites.channel_ids].sort()).toEqual([publicId, directId].sort());
    expect(byType((await categoriesOf(user)).categories, 'direct_messages').channel_ids).toEqual([]);

    await user.api.put('/api/v4/users/me/preferences', [fav(offTopicId)]).expect(200);
    favorites = byType((await categoriesOf(user)).categories, 'favorites');
    expect(favorites.channel_ids[0]).toBe(offTopicId);
    await expectEachChannelOnce(user);

    await user.api.put('/api/v4/users/me/preferences', [fav(offTopicId, 'false')]).expect(200);
    await user.api.post('/api/v4/users/me/preferences/delete', [fav(publicId)]).expect(200);
    const after = (await categoriesOf(user)).categories;
    expect(byType(after, 'favorites').channel_ids).toEqual([directId]);
    expect(byType(after, 'channels').channel_ids).toEqual(expect.arrayContaining([offTopicId, publicId]));
    await expectEachChannelOnce(user);
    // A favourite of a channel the user is not in, or of no channel, changes nothing.
    await user.api.put('/api/v4/users/me/preferences', [fav((await createChannel(admin, teamId, 'O', [], 'side-x')) as string), fav('z'.repeat(26))]).expect(200);
    await expectEachChannelOnce(user);
  });

  test('muting a category mutes its channels for the user; a channel moved into a muted one is muted', async () => {
    const { user, offTopicId } = await newUser();
    const c = client4For(server, user);
    const custom = await c.createChannelCategory(user.id, teamId, { user_id: user.id, team_id: teamId, display_name: 'Quiet', channel_ids: [publicId] });
    const markUnread = async (channelId: string) => (await user.api.get(`/api/v4/channels/${channelId}/members/me`).expect(200)).body.notify_props.mark_unread;
    await c.updateChannelCategory(user.id, teamId, { ...custom, muted: true });
    expect(await markUnread(publicId)).toBe('mention');
    expect(await markUnread(offTopicId)).toBe('all');
    const current = await c.getChannelCategory(user.id, teamId, custom.id);
    await c.updateChannelCategories(user.id, teamId, [{ ...current, channel_ids: [publicId, offTopicId] }]);
    expect(await markUnread(offTopicId)).toBe('mention');
    await c.updateChannelCategory(user.id, teamId, { ...current, channel_ids: [publicId, offTopicId], muted: false });
    expect([await markUnread(publicId), await markUnread(offTopicId)]).toEqual(['all', 'all']);
    // Direct Messages cannot be muted.
    const directs = byType((await categoriesOf(user)).categories, 'direct_messages');
    expect(await c.updateChannelCategory(user.id, teamId, { ...directs, muted: true, channel_ids: [publicId] })).toMatchObject({ muted: false, channel_ids: directs.channel_ids });
  });
});

describe('custom categories and the order', () => {
  test('created after favorites (renumbered), renamed, deleted: its channels go back to their default categories', async () => {
    const { user, directId } = await newUser();
    const c = client4For(server, user);
    const made = await c.createChannelCategory(user.id, teamId, { user_id: user.id, team_id: teamId, display_name: 'Projects 😀', channel_ids: [publicId, directId, 'x'.repeat(26), publicId] });
    expect(made).toMatchObject({ user_id: user.id, team_id: teamId, type: 'custom', display_name: 'Projects 😀', sorting: '', sort_order: 10, muted: false, collapsed: false, channel_ids: [publicId, directId] });
    expect(made.id).toMatch(/^[a-z0-9]{26}$/);
    const { categories, order } = await categoriesOf(user);
    expect(order).toEqual([`favorites_${user.id}_${teamId}`, made.id, `channels_${user.id}_${teamId}`, `direct_messages_${user.id}_${teamId}`]);
    expect(categories.map((x) => (x as ChannelCategory & { sort_order: number }).sort_order)).toEqual([0, 10, 20, 30]);
    expect(byType(categories, 'direct_messages').channel_ids).toEqual([]);
    await expectEachChannelOnce(user);

    const renamed = await c.updateChannelCategory(user.id, teamId, { ...made, display_name: 'Renamed', sorting: 'alpha' as ChannelCategory['sorting'] });
    expect(renamed).toMatchObject({ display_name: 'Renamed', sorting: 'alpha', channel_ids: [publicId, directId], sort_order: 10 });

    // Favorites not first: a new category goes first.
    await c.updateChannelCategoryOrder(user.id, teamId, [order[2], order[0], order[1], order[3]]);
    const second = await c.createChannelCategory(user.id, teamId, { user_id: user.id, team_id: teamId, display_name: 'First' });
    expect(second).toMatchObject({ sort_order: 0 });
    expect(await c.getChannelCategoryOrder(user.id, teamId)).toEqual([second.id, order[2], order[0], order[1], order[3]]);

    expect(await c.deleteChannelCategory(user.id, teamId, made.id)).toEqual({ status: 'OK' });
    const after = (await categoriesOf(user)).categories;
    expect(after.map((x) => x.id)).not.toContain(made.id);
    expect(byType(after, 'channels').channel_ids).toContain(publicId);
    expect(byType(after, 'direct_messages').channel_ids).toEqual([directId]);
    await expectEachChannelOnce(user);
    await expectClientError(c.getChannelCategory(user.id, teamId, made.id), 403);
  });

  test('the order must list every category once', async () => {
    const { user } = await newUser();
    const c = client4For(server, user);
    const { order } = await categoriesOf(user);
    const reversed = [...order].reverse();
    expect(await c.updateChannelCategoryOrder(user.id, teamId, reversed)).toEqual(reversed);
    expect((await categoriesOf(user)).order).toEqual(reversed);
    await expectClientError(c.updateChannelCategoryOrder(user.id, teamId, reversed.slice(1)), 400, 'app.channel.sidebar_categories.app_error');
    await expectClientError(c.updateChannelCategoryOrder(user.id, teamId, [reversed[0], ...reversed]), 400, 'app.channel.sidebar_categories.app_error');
    await expectClientError(c.updateChannelCategoryOrder(user.id, teamId, [...reversed.slice(1), `favorites_${bob.id}_${teamId}`]), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.put(`${base('me')}/order`, [1, 2]), 400);
  });

  test('at most 100 custom categories per team', async () => {
    const { user } = await newUser();
    for (let i = 0; i < 100; i++) await user.api.post(base(user.id), { user_id: user.id, team_id: teamId, display_name: `c${i}` }).expect(200);
    expectAppError(await user.api.post(base(user.id), { user_id: user.id, team_id: teamId, display_name: 'one more' }), 400, 'app.channel.sidebar_categories.app_error');
    await user.api.post(base(user.id, otherTeamId), { user_id: user.id, team_id: otherTeamId, display_name: 'elsewhere' }).expect(200);
    expect((await categoriesOf(user)).categories).toHaveLength(103);
  });
});

describe('validation: Mattermost-style 400s', () => {
  test('bodies', async () => {
    const { user } = await newUser();
    const body = (fields: Record<string, unknown>) => ({ user_id: user.id, team_id: teamId, display_name: 'ok', ...fields });
    const cases: Array<[string, Record<string, unknown>]> = [
      ['an empty name', body({ display_name: '' })],
      ['no name', body({ display_name: null })],
      ['a name of 256 characters', body({ display_name: 'é'.repeat(256) })],
      ['an unknown sorting', body({ sorting: 'random' })],
      ["another user's id", body({ user_id: bob.id })],
      ["another team's id", body({ team_id: otherTeamId })],
    ];
    for (const [name, b] of cases) {
      const res = await user.api.post(base('me'), b);
      expect([name, res.status, res.body.id]).toEqual([name, 400, 'api.context.invalid_param.app_error']);
    }
    // At the edge: 255 four-byte characters; nulls read as not given.
    const edge = (await user.api.post(base('me'), body({ display_name: '😀'.repeat(255), sorting: null, muted: null, channel_ids: null })).expect(200)).body;
    expect(edge).toMatchObject({ display_name: '😀'.repeat(255), sorting: '', muted: false, channel_ids: [] });

    const { categories } = await categoriesOf(user);
    const favorites = byType(categories, 'favorites');
    const channels = byType(categories, 'channels');
    expectAppError(await user.api.put(base('me'), [{ ...favorites, channel_ids: [publicId] }, { ...channels, channel_ids: [publicId] }]), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.put(base('me'), [favorites, favorites]), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.put(base('me'), [{ ...favorites, id: 'nope' }]), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.put(base('me'), [{ ...favorites, id: `favorites_${bob.id}_${teamId}` }]), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.put(base('me'), [{ ...edge, display_name: '' }]), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.put(`${base('me')}/${favorites.id}`, { ...favorites, team_id: otherTeamId }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await user.api.get(`${base('me')}/not-an-id`), 400);
    // Nothing changed by the refusals.
    expect((await categoriesOf(user)).categories).toEqual(categories);
    // Channels that are not the user's are dropped, as Mattermost drops them; an empty list is answered empty.
    const hidden = await createChannel(admin, teamId, 'P', [], 'side-hidden');
    expect((await user.api.put(base('me'), [{ ...favorites, channel_ids: [hidden, publicId] }]).expect(200)).body[0].channel_ids).toEqual([publicId]);
    expect((await user.api.put(base('me'), []).expect(200)).body).toEqual([]);
  });
});

describe('kept consistent with memberships', () => {
  test('join, leave (placement forgotten), archive, a new direct channel, leaving the team', async () => {
    const { user } = await newUser();
    const c = client4For(server, user);
    const joined = await createChannel(admin, teamId, 'O', [], 'side-join');
    await user.api.post(`/api/v4/channels/${joined}/members`, { user_id: user.id }).expect(201);
    expect(byType((await categoriesOf(user)).categories, 'channels').channel_ids).toContain(joined);

    const custom = await c.createChannelCategory(user.id, teamId, { user_id: user.id, team_id: teamId, display_name: 'Kept', channel_ids: [joined] });
    await user.api.delete(`/api/v4/channels/${joined}/members/${user.id}`).expect(200);
    await expectEachChannelOnce(user);
    expect((await c.getChannelCategory(user.id, teamId, custom.id)).channel_ids).toEqual([]);
    await user.api.post(`/api/v4/channels/${joined}/members`, { user_id: user.id }).expect(201);
    expect(byType((await categoriesOf(user)).categories, 'channels').channel_ids).toContain(joined);

    // Archived: one never placed leaves the sidebar; one placed stays where the user put it.
    const placedArchived = await createChannel(admin, teamId, 'O', [user], 'side-arch');
    await c.updateChannelCategory(user.id, teamId, { ...custom, channel_ids: [placedArchived] });
    await admin.api.delete(`/api/v4/channels/${joined}`).expect(200);
    await admin.api.delete(`/api/v4/channels/${placedArchived}`).expect(200);
    const afterArchive = (await categoriesOf(user)).categories;
    expect(afterArchive.flatMap((x) => x.channel_ids)).not.toContain(joined);
    expect(afterArchive.find((x) => x.id === custom.id)?.channel_ids).toEqual([placedArchived]);
    await expectEachChannelOnce(user, teamId, [placedArchived]);

    const other = await createUser(server, admin);
    const direct = (await user.api.post('/api/v4/channels/direct', [user.id, other.id]).expect(201)).body.id;
    for (const t of [teamId, otherTeamId]) expect(byType((await categoriesOf(user, t)).categories, 'direct_messages').channel_ids).toContain(direct);

    await user.api.delete(`/api/v4/teams/${otherTeamId}/members/${user.id}`).expect(200);
    expectAppError(await user.api.get(base('me', otherTeamId)), 403, 'api.context.permissions.app_error');
    await admin.api.post(`/api/v4/teams/${otherTeamId}/members`, { team_id: otherTeamId, user_id: user.id }).expect(201);
    expect((await categoriesOf(user, otherTeamId)).categories.map((x) => x.type)).toEqual(['favorites', 'channels', 'direct_messages']);
  });
});

describe('permissions: oneself or edit_other_users, view_team, and the user on the team', () => {
  test("another user's categories: 403 for a member, allowed for a system admin; not on the team: 403 or 404", async () => {
    const { user } = await newUser();
    const mine = await categoriesOf(user);
    const favorites = byType(mine.categories, 'favorites');
    expectAppError(await bob.api.get(base(user.id)), 403, 'api.context.permissions.app_error');
    expectAppError(await bob.api.get(`${base(user.id)}/order`), 403, 'api.context.permissions.app_error');
    expectAppError(await bob.api.get(`${base(user.id)}/${favorites.id}`), 403, 'api.context.permissions.app_error');
    // Bob's own path with someone else's category.
    expectAppError(await bob.api.get(`${base(bob.id)}/${favorites.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await bob.api.delete(`${base(bob.id)}/${favorites.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await bob.api.put(base(bob.id), [favorites]), 400, 'api.context.invalid_param.app_error');
    await expectClientError(client4For(server, bob).getChannelCategories(user.id, teamId), 403);

    expect((await admin.api.get(base(user.id)).expect(200)).body).toEqual(mine);
    expect((await admin.api.get(`${base(user.id)}/${favorites.id}`).expect(200)).body).toEqual(favorites);
    // Through another user's path, a category is not found, for admins too.
    expectAppError(await admin.api.get(`${base(bob.id)}/${favorites.id}`), 404, 'app.channel.sidebar_categories.app_error');
    const outsider = await createUser(server, admin);
    expectAppError(await outsider.api.get(base('me')), 403, 'api.context.permissions.app_error');
    expectAppError(await admin.api.get(base(outsider.id)), 404, 'app.team.get_member.missing.app_error');
    expectAppError(await server.http().get(base(user.id)), 401);
  });
});

describe("events, to the user's own sockets", () => {
  test('created, updated (with the categories that changed), order updated, deleted; favourites saved: updated without data', async () => {
    const { user } = await newUser();
    const c = client4For(server, user);
    const mine = await connect(server.url, { token: user.token });
    const bobs = await connect(server.url, { token: bob.token });
    try {
      const isEvent = (event: string) => (f: Frame) => f.event === event;
      const made = await c.createChannelCategory(user.id, teamId, { user_id: user.id, team_id: teamId, display_name: 'Evented' });
      const created = await mine.next(isEvent('sidebar_category_created'));
      expect(created.data).toEqual({ category_id: made.id });
      expect(created.broadcast).toMatchObject({ user_id: user.id, team_id: teamId, channel_id: '' });

      const channels = byType((await categoriesOf(user)).categories, 'channels');
      await c.updateChannelCategories(user.id, teamId, [{ ...made, channel_ids: [publicId] }]);
      const updated = await mine.next(isEvent('sidebar_category_updated'));
      const sent = JSON.parse(updated.data?.updatedCategories as string) as ChannelCategory[];
      // The category given, and Channels, which the channel left.
      expect(sent.map((x) => x.id).sort()).toEqual([made.id, channels.id].sort());
      expect(sent.find((x) => x.id === made.id)?.channel_ids).toEqual([publicId]);
      expect(sent.find((x) => x.id === channels.id)?.channel_ids).not.toContain(publicId);

      const order = [...(await c.getChannelCategoryOrder(user.id, teamId))].reverse();
      await c.updateChannelCategoryOrder(user.id, teamId, order);
      expect((await mine.next(isEvent('sidebar_category_order_updated'))).data).toEqual({ order });

      await c.deleteChannelCategory(user.id, teamId, made.id);
      expect((await mine.next(isEvent('sidebar_category_deleted'))).data).toEqual({ category_id: made.id });

      const from = mine.events.length;
      await user.api.put('/api/v4/users/me/preferences', [{ user_id: user.id, category: 'favorite_channel', name: publicId, value: 'true' }]).expect(200);
      const plain = await mine.next(isEvent('sidebar_category_updated'), { from });
      expect(plain.data).toEqual({});
      expect(plain.broadcast).toMatchObject({ user_id: user.id, team_id: '' });

      await bobs.none((f) => (f.event ?? '').startsWith('sidebar_category'), 200);
      expect(mine.problems).toEqual([]);
      expect(bobs.problems).toEqual([]);
    } finally {
      await mine.close();
      await bobs.close();
    }
  });
});
