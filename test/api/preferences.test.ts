// Preferences (GetPreferences, UpdatePreferences, DeletePreferences, GetPreferencesByCategory,
// GetPreferencesByCategoryByName) and saved posts (GetFlaggedPostsForUser) over real HTTP, through Client4 where it has
// a method, with the events they send to the user's own sockets.
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createChannel, createPost, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { connect, type Frame } from '../support/ws';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let teamId: string;
let otherTeamId: string;
let publicId: string;
let privateId: string;

type Pref = { user_id: string; category: string; name: string; value: string };
const pref = (user: Actor, category: string, name: string, value = 'true'): Pref => ({ user_id: user.id, category, name, value });
const save = (as: Actor, prefs: unknown, userId = 'me') => as.api.put(`/api/v4/users/${userId}/preferences`, prefs);
const remove = (as: Actor, prefs: unknown, userId = 'me') => as.api.post(`/api/v4/users/${userId}/preferences/delete`, prefs);
const sorted = (list: Pref[]) => [...list].sort((a, b) => `${a.category}/${a.name}`.localeCompare(`${b.category}/${b.name}`));

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
  teamId = await createTeam(admin, `prefs${process.pid}`, [alice, bob]);
  otherTeamId = await createTeam(admin, `prefsother${process.pid}`, [alice]);
  publicId = await createChannel(admin, teamId, 'O', [alice, bob], 'prefs');
  privateId = await createChannel(admin, teamId, 'P', [alice], 'prefs');
});
afterAll(() => server.close());

describe('saving, reading and deleting, through Client4', () => {
  test('savePreferences stores them; getMyPreferences and getUserPreferences list them; deletePreferences removes them', async () => {
    const user = await createUser(server, admin);
    const c = client4For(server, user);
    const theme = JSON.stringify({ sidebarBg: '#1e325c', type: 'Denim' });
    const mine = [pref(user, 'display_settings', 'use_military_time'), pref(user, 'theme', '', theme), pref(user, 'tutorial_step', user.id, '999')];
    expect(await c.savePreferences(user.id, mine)).toEqual({ status: 'OK' });
    expect(sorted((await c.getMyPreferences()) as unknown as Pref[])).toEqual(sorted(mine));
    expect(sorted(await c.getUserPreferences(user.id))).toEqual(sorted(mine));
    expect(await c.deletePreferences(user.id, [mine[0]])).toEqual({ status: 'OK' });
    expect(sorted(await c.getUserPreferences(user.id))).toEqual(sorted(mine.slice(1)));
  });

  test('saving again replaces the value; by category and by name read what is stored; a missing one is 400 by name (as Mattermost), 404 by category', async () => {
    const user = await createUser(server, admin);
    await save(user, [pref(user, 'display_settings', 'name_format', 'username'), pref(user, 'display_settings', 'collapse_previews', 'false')]).expect(200);
    await save(user, [pref(user, 'display_settings', 'name_format', 'full_name')]).expect(200);
    const byCategory = (await user.api.get('/api/v4/users/me/preferences/display_settings').expect(200)).body;
    expect(sorted(byCategory)).toEqual(sorted([pref(user, 'display_settings', 'name_format', 'full_name'), pref(user, 'display_settings', 'collapse_previews', 'false')]));
    expect((await user.api.get(`/api/v4/users/${user.id}/preferences/display_settings/name/name_format`).expect(200)).body).toEqual(pref(user, 'display_settings', 'name_format', 'full_name'));
    expectAppError(await user.api.get('/api/v4/users/me/preferences/display_settings/name/nothing_here'), 400, 'app.preference.get.app_error');
    expectAppError(await user.api.get('/api/v4/users/me/preferences/no_such_category'), 404, 'api.preference.preferences_category.get.app_error');
    // Deleting a preference that is not there is no error.
    await remove(user, [pref(user, 'display_settings', 'never_saved')]).expect(200);
  });

  test("a theme's entries that are not colours become #ffffff, as Mattermost's PreUpdate makes them (image, type, codeTheme kept)", async () => {
    const user = await createUser(server, admin);
    const sent = { type: 'Custom', sidebarBg: 'red', centerChannelBg: '#fff', linkColor: '#12345G', codeTheme: 'monokai', image: 'x.png', mentionBg: '#abcdef' };
    await save(user, [pref(user, 'theme', '', JSON.stringify(sent))]).expect(200);
    const [stored] = (await user.api.get('/api/v4/users/me/preferences/theme').expect(200)).body;
    // Written again as Go writes a map: keys sorted.
    expect(stored.value).toBe(JSON.stringify({ centerChannelBg: '#fff', codeTheme: 'monokai', image: 'x.png', linkColor: '#ffffff', mentionBg: '#abcdef', sidebarBg: '#ffffff', type: 'Custom' }));
  });
});

describe('validation: Mattermost-style 400s, nothing stored', () => {
  const cases: Array<[string, (u: Actor) => unknown, string]> = [
    ['an empty list', () => [], 'api.context.invalid_param.app_error'],
    ['101 preferences', (u) => Array.from({ length: 101 }, (_, i) => pref(u, 'many', `n${i}`)), 'api.context.invalid_param.app_error'],
    ['an empty category', (u) => [pref(u, '', 'x')], 'model.preference.is_valid.category.app_error'],
    ['a category of 33 bytes', (u) => [pref(u, 'c'.repeat(33), 'x')], 'model.preference.is_valid.category.app_error'],
    ['a name of 33 bytes (17 two-byte characters)', (u) => [pref(u, 'cat', 'é'.repeat(17))], 'model.preference.is_valid.name.app_error'],
    ['a value of 20001 characters', (u) => [pref(u, 'cat', 'long', 'v'.repeat(20001))], 'model.preference.is_valid.value.app_error'],
    ['a theme that is not a JSON object', (u) => [pref(u, 'theme', '', '["#fff"]')], 'model.preference.is_valid.theme.app_error'],
    ['a theme that is not JSON', (u) => [pref(u, 'theme', '', '{"sidebarBg":')], 'model.preference.is_valid.theme.app_error'],
    ['limit_visible_dms_gms of 41', (u) => [pref(u, 'sidebar_settings', 'limit_visible_dms_gms', '41')], 'model.preference.is_valid.limit_visible_dms_gms.app_error'],
    ['a saved post that does not exist', (u) => [pref(u, 'flagged_post', 'a'.repeat(26))], 'api.context.invalid_param.app_error'],
    ['a valid one then an invalid one (all or nothing)', (u) => [pref(u, 'cat', 'ok'), pref(u, 'cat', 'x'.repeat(33))], 'model.preference.is_valid.name.app_error'],
  ];
  test.each(cases)('%s', async (_name, body, id) => {
    const user = await createUser(server, admin);
    expectAppError(await save(user, body(user)), 400, id);
    expect((await user.api.get('/api/v4/users/me/preferences').expect(200)).body).toEqual([]);
  });

  test('limits hold at their edge: 100 preferences, 32-byte keys, 20000 four-byte characters, an empty name', async () => {
    const user = await createUser(server, admin);
    await save(user, Array.from({ length: 100 }, (_, i) => pref(user, 'many', `n${i}`))).expect(200);
    const edge = [pref(user, 'c'.repeat(32), 'n'.repeat(32)), pref(user, 'big', 'value', '😀'.repeat(20000)), pref(user, 'theme', '', '{}')];
    await save(user, edge).expect(200);
    expect((await user.api.get(`/api/v4/users/me/preferences/${'c'.repeat(32)}/name/${'n'.repeat(32)}`).expect(200)).body.value).toBe('true');
    expect((await user.api.get('/api/v4/users/me/preferences/big/name/value').expect(200)).body.value).toBe('😀'.repeat(20000));
  });

  test("a preference in another user's name: 403, for admins too", async () => {
    expectAppError(await save(alice, [pref(bob, 'cat', 'x')]), 403, 'api.preference.update_preferences.set.app_error');
    expectAppError(await save(admin, [pref(bob, 'cat', 'x')], alice.id), 403, 'api.preference.update_preferences.set.app_error');
    expectAppError(await remove(alice, [pref(bob, 'cat', 'x')]), 403, 'api.preference.delete_preferences.delete.app_error');
  });
});

describe('permissions: oneself, or edit_other_users', () => {
  test("another user's preferences: 403 for a member, allowed for a system admin", async () => {
    await save(bob, [pref(bob, 'secret', 'x', 'bob')]).expect(200);
    expectAppError(await alice.api.get(`/api/v4/users/${bob.id}/preferences`), 403, 'api.context.permissions.app_error');
    expectAppError(await alice.api.get(`/api/v4/users/${bob.id}/preferences/secret`), 403, 'api.context.permissions.app_error');
    expectAppError(await alice.api.get(`/api/v4/users/${bob.id}/preferences/secret/name/x`), 403, 'api.context.permissions.app_error');
    expectAppError(await save(alice, [pref(bob, 'secret', 'x', 'alice')], bob.id), 403, 'api.context.permissions.app_error');
    expectAppError(await remove(alice, [pref(bob, 'secret', 'x')], bob.id), 403, 'api.context.permissions.app_error');
    expectAppError(await alice.api.get(`/api/v4/users/${bob.id}/posts/flagged`), 403, 'api.context.permissions.app_error');
    await expectClientError(client4For(server, alice).getUserPreferences(bob.id), 403);
    expect((await bob.api.get('/api/v4/users/me/preferences/secret/name/x').expect(200)).body.value).toBe('bob');

    await save(admin, [pref(bob, 'secret', 'x', 'admin')], bob.id).expect(200);
    expect((await admin.api.get(`/api/v4/users/${bob.id}/preferences/secret/name/x`).expect(200)).body.value).toBe('admin');
    await remove(admin, [pref(bob, 'secret', 'x')], bob.id).expect(200);
    expect((await admin.api.get(`/api/v4/users/${bob.id}/preferences`).expect(200)).body.some((p: Pref) => p.category === 'secret')).toBe(false);
  });

  test('without a session: 401', async () => {
    expectAppError(await server.http().get(`/api/v4/users/${alice.id}/preferences`), 401);
  });
});

describe("events: preferences_changed and preferences_deleted, to the user's own sockets only", () => {
  test("saving and deleting (also by an admin) reach the user's sockets, not another user's", async () => {
    const aliceSocket = await connect(server.url, { token: alice.token });
    const bobSocket = await connect(server.url, { token: bob.token });
    const parsed = (f: Frame) => JSON.parse(f.data?.preferences as string) as Pref[];
    const isEvent = (event: string, name: string) => (f: Frame) => f.event === event && parsed(f).some((p) => p.name === name);
    try {
      const saved = [pref(alice, 'display_settings', 'events_test', 'on')];
      await save(alice, saved).expect(200);
      const changed = await aliceSocket.next(isEvent('preferences_changed', 'events_test'));
      expect(parsed(changed)).toEqual(saved);
      expect(changed.broadcast).toMatchObject({ user_id: alice.id, channel_id: '', team_id: '' });

      await save(admin, [pref(alice, 'display_settings', 'by_admin', 'x')], alice.id).expect(200);
      await aliceSocket.next(isEvent('preferences_changed', 'by_admin'));

      await remove(alice, [pref(alice, 'display_settings', 'events_test')]).expect(200);
      const deleted = await aliceSocket.next(isEvent('preferences_deleted', 'events_test'));
      expect(parsed(deleted)).toEqual([pref(alice, 'display_settings', 'events_test')]);

      await bobSocket.none((f) => f.event === 'preferences_changed' || f.event === 'preferences_deleted', 200);
      expect(aliceSocket.problems).toEqual([]);
      expect(bobSocket.problems).toEqual([]);
    } finally {
      await aliceSocket.close();
      await bobSocket.close();
    }
  });
});

describe('saved posts: GetFlaggedPostsForUser', () => {
  test('newest first; deleted posts and posts of channels no longer readable are left out; filters by channel and team', async () => {
    const user = await createUser(server, admin);
    await admin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: user.id }).expect(201);
    await admin.api.post(`/api/v4/teams/${otherTeamId}/members`, { team_id: otherTeamId, user_id: user.id }).expect(201);
    const privateChannel = await createChannel(admin, teamId, 'P', [user], 'saved');
    const otherTeamChannel = await createChannel(admin, otherTeamId, 'O', [user], 'saved');
    await admin.api.post(`/api/v4/channels/${publicId}/members`, { user_id: user.id }).expect(201);
    const first = await createPost(user, publicId, 'first');
    const inPrivate = await createPost(admin, privateChannel, 'private');
    const elsewhere = await createPost(user, otherTeamChannel, 'other team');
    const doomed = await createPost(user, publicId, 'deleted later');
    const last = await createPost(admin, publicId, 'last');
    const c = client4For(server, user);
    await c.savePreferences(user.id, [first, inPrivate, elsewhere, doomed, last].map((p) => pref(user, 'flagged_post', p.id)));

    const all = await c.getFlaggedPosts(user.id);
    expect(all.order).toEqual([last.id, doomed.id, elsewhere.id, inPrivate.id, first.id]);
    expect(all.posts[last.id]).toMatchObject({ id: last.id, message: 'last', channel_id: publicId });

    await user.api.delete(`/api/v4/posts/${doomed.id}`).expect(200);
    await admin.api.delete(`/api/v4/channels/${privateChannel}/members/${user.id}`).expect(200);
    const after = (await user.api.get(`/api/v4/users/${user.id}/posts/flagged`).expect(200)).body;
    expect(after.order).toEqual([last.id, elsewhere.id, first.id]);
    expect(Object.keys(after.posts).sort()).toEqual([last.id, elsewhere.id, first.id].sort());

    expect((await c.getFlaggedPosts(user.id, publicId)).order).toEqual([last.id, first.id]);
    expect((await c.getFlaggedPosts(user.id, '', otherTeamId)).order).toEqual([elsewhere.id]);
    expect((await c.getFlaggedPosts(user.id, '', '', 1, 1)).order).toEqual([elsewhere.id]);
    // Unsaving ("false", or deleting the preference) takes a post out of the list.
    await save(user, [pref(user, 'flagged_post', first.id, 'false')]).expect(200);
    await remove(user, [pref(user, 'flagged_post', last.id)]).expect(200);
    expect((await c.getFlaggedPosts(user.id)).order).toEqual([elsewhere.id]);
    // An admin may list them too: the list is what the caller may read (the private channel's post is back).
    expect((await admin.api.get(`/api/v4/users/${user.id}/posts/flagged`).expect(200)).body.order).toEqual([elsewhere.id, inPrivate.id]);
  });

  test('saving a post of a channel the user cannot read: 403; of a deleted post: 400', async () => {
    const hidden = await createPost(admin, privateId, 'hidden');
    expectAppError(await save(bob, [pref(bob, 'flagged_post', hidden.id)]), 403, 'api.context.permissions.app_error');
    const gone = await createPost(alice, publicId, 'gone');
    await alice.api.delete(`/api/v4/posts/${gone.id}`).expect(200);
    expectAppError(await save(alice, [pref(alice, 'flagged_post', gone.id)]), 400, 'api.context.invalid_param.app_error');
  });

  test('bad filters are 400; none saved is an empty list', async () => {
    expectAppError(await alice.api.get('/api/v4/users/me/posts/flagged?team_id=nope'), 400);
    const user = await createUser(server, admin);
    expect((await user.api.get('/api/v4/users/me/posts/flagged').expect(200)).body).toMatchObject({ order: [], posts: {} });
  });
});
