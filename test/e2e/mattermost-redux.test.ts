// Issue #21: Mattermost's own web app data layer (mattermost-redux 11.9.0 with its Client4) against Parley, unchanged:
// the page-load sequence, the team page, opening a channel and the everyday interactions, dispatched as the web app
// dispatches them, asserting on the Redux state they leave and on every request being served (no 404, no 5xx).
import { mkdirSync, writeFileSync } from 'node:fs';
import * as general from 'mattermost-redux/actions/general';
import * as posts from 'mattermost-redux/actions/posts';
import * as preferences from 'mattermost-redux/actions/preferences';
import * as teams from 'mattermost-redux/actions/teams';
import * as users from 'mattermost-redux/actions/users';
import * as channels from 'mattermost-redux/actions/channels';
import * as categories from 'mattermost-redux/actions/channel_categories';
import * as roles from 'mattermost-redux/actions/roles';
import * as threads from 'mattermost-redux/actions/threads';
import { haveIChannelPermission, haveISystemPermission, haveITeamPermission } from 'mattermost-redux/selectors/entities/roles';
import { PASSWORD, createChannel, createPost, createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { reduxClientFor, type ReduxClient } from '../support/redux';

/** Polls until `fn` returns something truthy (a thunk the action fired without awaiting it), for at most 5 s. */
async function waitFor<T>(fn: () => T): Promise<T> {
  for (let i = 0; ; i++) {
    const value = fn();
    if (value) return value;
    if (i >= 500) throw new Error('waitFor: gave up after 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs fn once the clock has moved past the current millisecond (read state is compared in milliseconds). */
async function atLeastOneMsLater<T>(fn: () => Promise<T>): Promise<T> {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((r) => setImmediate(r));
  return fn();
}

let server: TestServer;
let world: World;
let web: ReduxClient;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  projectId = await createChannel(world.admin, world.teamId, 'O', [world.member], 'project');
  web = await reduxClientFor(server, world.member.username, PASSWORD);
});
// Every endpoint the flows called, kept for the record (test-output/mattermost-redux-requests.json).
const called = new Map<string, number>();
afterAll(async () => {
  mkdirSync('test-output', { recursive: true });
  writeFileSync('test-output/mattermost-redux-requests.json', JSON.stringify(Object.fromEntries([...called].sort()), null, 1));
  web?.close();
  await server?.close();
});
beforeEach(() => {
  web.requests.length = 0;
});
afterEach(() => {
  // Whatever a flow dispatched, the web app found every endpoint it called (the raw 404 checked above is not its).
  for (const r of web.requests) {
    const key = `${r.method} ${r.path.split('?')[0].replace(/[a-z0-9]{26}/g, '{id}')} ${r.status}`;
    called.set(key, (called.get(key) ?? 0) + 1);
  }
  expect(web.failures()).toEqual([]);
});

describe('page load (loadMe and what runs before anything renders)', () => {
  test('config, license, me, preferences, teams, team members, unreads and limits land in the store', async () => {
    const result = await web.dispatch(users.loadMe());
    expect(result).toEqual({ data: true });
    const s = web.state();
    expect(s.entities.users.currentUserId).toBe(world.member.id);
    expect(s.entities.users.profiles[world.member.id].username).toBe(world.member.username);
    expect(s.entities.general.config.Version).toBeDefined();
    expect(s.entities.general.license.IsLicensed).toBe('false');
    expect(Object.keys(s.entities.teams.teams)).toEqual([world.teamId]);
    expect(s.entities.teams.myMembers[world.teamId]).toMatchObject({ team_id: world.teamId, user_id: world.member.id });
    expect(s.entities.limits.serverLimits).toMatchObject({ maxUsersLimit: 0 });
    const paths = web.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /api/v4/config/client',
        'GET /api/v4/license/client',
        'GET /api/v4/users/me',
        'GET /api/v4/users/me/preferences',
        'GET /api/v4/users/me/teams',
        'GET /api/v4/users/me/teams/members',
        'GET /api/v4/users/me/teams/unread',
        'GET /api/v4/limits/server',
      ]),
    );
  });
});

describe('team page', () => {
  test("fetchChannelsAndMembers: the team's channels and my memberships", async () => {
    await web.dispatch(channels.fetchChannelsAndMembers(world.teamId));
    const s = web.state();
    expect(s.entities.channels.channels[world.townSquareId].name).toBe('town-square');
    expect(s.entities.channels.channels[projectId]).toBeDefined();
    expect(s.entities.channels.myMembers[projectId]).toMatchObject({ channel_id: projectId, user_id: world.member.id });
  });

  test('fetchAllMyChannelMembers (page -1) and fetchAllMyTeamsChannels: every team, and the roles they name', async () => {
    const otherTeam = (await world.admin.api.post('/api/v4/teams', { name: `redux${process.pid}`, display_name: 'Redux', type: 'O' }).expect(201)).body.id;
    await world.admin.api.post(`/api/v4/teams/${otherTeam}/members`, { team_id: otherTeam, user_id: world.member.id }).expect(201);
    const dm = (await world.admin.api.post('/api/v4/channels/direct', [world.admin.id, world.member.id]).expect(201)).body.id;
    await web.dispatch(channels.fetchAllMyChannelMembers());
    await web.dispatch(channels.fetchAllMyTeamsChannels());
    const s = web.state();
    const otherTown = Object.values<any>(s.entities.channels.channels).find((c) => c.team_id === otherTeam && c.name === 'town-square');
    expect(otherTown).toBeDefined();
    expect(s.entities.channels.channels[dm]).toMatchObject({ type: 'D' });
    for (const id of [world.townSquareId, projectId, otherTown.id, dm]) expect(s.entities.channels.myMembers[id]).toMatchObject({ channel_id: id, user_id: world.member.id });
    // The members' roles were loaded through POST /roles/names (loadRolesIfNeeded).
    await waitFor(() => web.state().entities.roles.roles.channel_user);
    expect(web.state().entities.roles.roles.channel_user.permissions).toContain('create_post');
  });

  test("roles: getRolesByNames lights up exactly what Parley lets a member do", async () => {
    await web.dispatch(roles.getRolesByNames(['system_user', 'team_user', 'channel_user', 'system_admin']));
    const byName = web.state().entities.roles.roles;
    expect(byName.system_admin.permissions).toContain('manage_system');
    const s = web.state();
    expect(haveIChannelPermission(s, world.teamId, projectId, 'create_post')).toBe(true);
    expect(haveITeamPermission(s, world.teamId, 'create_public_channel')).toBe(true);
    expect(haveISystemPermission(s, { permission: 'manage_system' })).toBe(false);
    // What the permission says, the server does: the member can post in the channel…
    await web.dispatch(posts.createPost({ channel_id: projectId, user_id: world.member.id, message: 'allowed by channel_user' } as any));
    expect((await web.answered('POST', '/api/v4/posts')).status).toBe(201);
    // …and cannot manage the system.
    await world.member.api.get('/api/v4/config').expect(403);
    const single = await web.dispatch(roles.getRoleByName('team_admin'));
    expect(single.data).toMatchObject({ name: 'team_admin', built_in: true });
    const byId = await web.dispatch(roles.getRole(single.data.id));
    expect(byId.data.name).toBe('team_admin');
  });

  test('sidebar categories: fetch the defaults, create one, move a channel, favourite one; the server keeps it', async () => {
    await web.dispatch(teams.selectTeam(world.teamId));
    await web.dispatch(categories.fetchMyCategories(world.teamId));
    const state = () => web.state().entities.channelCategories;
    const order: string[] = state().orderByTeam[world.teamId];
    expect(order.map((id) => state().byId[id].type)).toEqual(['favorites', 'channels', 'direct_messages']);
    const channelsCategory = state().byId[order[1]];
    expect(channelsCategory.channel_ids).toEqual(expect.arrayContaining([world.townSquareId, projectId]));

    const made = await web.dispatch(categories.createCategory(world.teamId, 'Work', [projectId]));
    expect(made.error).toBeUndefined();
    const work = made.data;
    expect(work).toMatchObject({ type: 'custom', display_name: 'Work', channel_ids: [projectId] });
    await web.dispatch(channels.favoriteChannel(world.townSquareId));

    // A fresh read from the server agrees with what the actions left in the store.
    const server = (await world.member.api.get(`/api/v4/users/me/teams/${world.teamId}/channels/categories`).expect(200)).body;
    const byType = (type: string) => server.categories.find((c: any) => c.type === type);
    expect(byType('favorites').channel_ids).toEqual([world.townSquareId]);
    expect(server.categories.find((c: any) => c.id === work.id).channel_ids).toEqual([projectId]);
    expect(byType('channels').channel_ids).not.toContain(projectId);
    expect(byType('channels').channel_ids).not.toContain(world.townSquareId);
    await web.dispatch(categories.fetchMyCategories(world.teamId));
    expect(state().byId[work.id].channel_ids).toEqual([projectId]);

    const removed = await web.dispatch(categories.deleteCategory(work.id));
    expect(removed.error).toBeUndefined();
    const after = (await world.member.api.get(`/api/v4/users/me/teams/${world.teamId}/channels/categories`).expect(200)).body;
    expect(after.categories.find((c: any) => c.type === 'channels').channel_ids).toContain(projectId);
  });

  test('getStatusesByIds and setStatus', async () => {
    await web.dispatch(users.setStatus({ user_id: world.member.id, status: 'dnd' }));
    await web.dispatch(users.getStatusesByIds([world.member.id, world.admin.id]));
    const statuses = web.state().entities.users.statuses;
    expect(statuses[world.member.id]).toBe('dnd');
    expect(statuses[world.admin.id]).toBeDefined();
  });
});

describe('opening a channel and posting', () => {
  test('createPost, getPosts, getPostsSince and getPostThread fill the posts state', async () => {
    const since = Date.now() - 1;
    const root = await createPost(world.admin, projectId, 'root from the admin');
    // As the web app sends it: the author set, the rest filled by the action (a pending post shown at once).
    const created = await web.dispatch(posts.createPost({ channel_id: projectId, root_id: root.id, user_id: world.member.id, message: 'a reply from redux' } as any));
    expect(created.error).toBeUndefined();
    expect((await web.answered('POST', '/api/v4/posts')).status).toBe(201);
    await web.dispatch(posts.getPosts(projectId));
    const s = web.state();
    expect(s.entities.posts.posts[root.id].message).toBe('root from the admin');
    const reply = Object.values<any>(s.entities.posts.posts).find((p) => p.message === 'a reply from redux');
    expect(reply).toMatchObject({ root_id: root.id, user_id: world.member.id });
    // Collapsed reply threads are on (CollapsedThreads always_on, Mattermost's default): the app asks for root posts
    // only; the channel holds the root with its thread, the reply lives in the thread.
    expect(web.requests.find((r) => r.path.startsWith(`/api/v4/channels/${projectId}/posts?`))?.path).toContain('collapsedThreads=true');
    expect(s.entities.posts.postsInChannel[projectId][0].order).toContain(root.id);
    expect(s.entities.posts.postsInChannel[projectId][0].order).not.toContain(reply.id);
    expect(s.entities.posts.posts[root.id]).toMatchObject({ reply_count: 1, is_following: true, participants: [expect.objectContaining({ id: world.member.id })] });

    await web.dispatch(posts.getPostsSince(projectId, since));
    await web.dispatch(posts.getPostThread(root.id));
    expect(web.state().entities.posts.postsInThread[root.id]).toContain(reply.id);
  });

  test('flagPost saves the post as a preference; savePreferences and deletePreferences round-trip', async () => {
    const post = await createPost(world.admin, projectId, 'worth saving');
    await web.dispatch(posts.flagPost(post.id));
    expect((await web.answered('PUT', `/api/v4/users/${world.member.id}/preferences`)).status).toBe(200);
    web.requests.length = 0;
    await web.dispatch(preferences.getMyPreferences());
    expect(web.state().entities.preferences.myPreferences[`flagged_post--${post.id}`]).toMatchObject({ value: 'true' });

    const pref = { user_id: world.member.id, category: 'display_settings', name: 'use_military_time', value: 'true' };
    await web.dispatch(preferences.savePreferences(world.member.id, [pref]));
    expect((await web.answered('PUT', `/api/v4/users/${world.member.id}/preferences`)).status).toBe(200);
    await web.dispatch(preferences.getMyPreferences());
    expect(web.state().entities.preferences.myPreferences['display_settings--use_military_time'].value).toBe('true');
    await web.dispatch(preferences.deletePreferences(world.member.id, [pref]));
    expect((await web.answered('POST', `/api/v4/users/${world.member.id}/preferences/delete`)).status).toBe(200);
    await web.dispatch(preferences.getMyPreferences());
    expect(web.state().entities.preferences.myPreferences['display_settings--use_military_time']).toBeUndefined();
  });

  test('getPostsUnread: the first page of a channel opens around the first unread post', async () => {
    const unreadChannel = await createChannel(world.admin, world.teamId, 'O', [world.member], 'unread');
    const read = await createPost(world.admin, unreadChannel, 'already read');
    await world.member.api.post('/api/v4/channels/members/me/view', { channel_id: unreadChannel }).expect(200);
    const unread = await atLeastOneMsLater(() => createPost(world.admin, unreadChannel, 'not read yet'));
    const result = await web.dispatch(posts.getPostsUnread(unreadChannel));
    expect(result.error).toBeUndefined();
    expect(result.data.order).toEqual(expect.arrayContaining([unread.id, read.id]));
    const s = web.state();
    expect(s.entities.posts.posts[unread.id].message).toBe('not read yet');
    expect(s.entities.posts.postsInChannel[unreadChannel][0].order).toEqual(expect.arrayContaining([unread.id, read.id]));
  });

  test('channel autocomplete, search and the in: box', async () => {
    const found = await web.dispatch(channels.autocompleteChannels(world.teamId, 'proj'));
    expect(found.data.map((c: any) => c.id)).toContain(projectId);
    const searched = await web.dispatch(channels.searchChannels(world.teamId, 'proj'));
    expect(searched.data.map((c: any) => c.id)).toContain(projectId);
    const forSearch = await web.dispatch(channels.autocompleteChannelsForSearch(world.teamId, 'proj'));
    expect(forSearch.data.map((c: any) => c.id)).toContain(projectId);
    expect(web.state().entities.channels.channels[projectId].name).toMatch(/^project/);
  });

  test('collapsed threads: fetchThreads, getThreadCounts, read and follow state', async () => {
    const root = await createPost(world.member, projectId, 'a thread the member started');
    await createPost(world.admin, projectId, `a reply mentioning @${world.member.username}`, { root_id: root.id });
    // The threads view of the current team (selected by the team page above).
    const listed = await web.dispatch(threads.getThreadsForCurrentTeam({}));
    expect(listed.error).toBeUndefined();
    const thread = web.state().entities.threads.threads[root.id];
    expect(thread).toMatchObject({ id: root.id, reply_count: 1, is_following: true, unread_replies: 1, unread_mentions: 1 });

    await web.dispatch(threads.getThreadCounts(world.member.id, world.teamId));
    expect(web.state().entities.threads.countsIncludingDirect[world.teamId]).toMatchObject({ total_unread_threads: 1, total_unread_mentions: 1 });

    await web.dispatch(threads.updateThreadRead(world.member.id, world.teamId, root.id, Date.now()));
    await web.dispatch(threads.getThread(world.member.id, world.teamId, root.id));
    expect(web.state().entities.threads.threads[root.id]).toMatchObject({ unread_replies: 0, unread_mentions: 0 });

    await web.dispatch(threads.setThreadFollow(world.member.id, world.teamId, root.id, false));
    expect(web.state().entities.threads.threads[root.id].is_following).toBe(false);
    // The server agrees: as in Mattermost, a thread no longer followed is not the user's thread any more (404), and
    // the list of followed threads leaves it out.
    const single = await world.member.api.get(`/api/v4/users/me/teams/${world.teamId}/threads/${root.id}`);
    expect([single.status, single.body.id]).toEqual([404, 'app.user.get_threads_for_user.not_found']);
    const list = (await world.member.api.get(`/api/v4/users/me/teams/${world.teamId}/threads`).expect(200)).body;
    expect(list.threads.map((t: any) => t.id)).not.toContain(root.id);
  });

  test('getProfilesByIds and getTeamStats', async () => {
    await web.dispatch(users.getProfilesByIds([world.admin.id]));
    expect(web.state().entities.users.profiles[world.admin.id].username).toBe(world.admin.username);
    await web.dispatch(teams.getTeamStats(world.teamId));
    expect(web.state().entities.teams.stats[world.teamId].active_member_count).toBeGreaterThanOrEqual(2);
  });

  test('getClientConfig and getLicenseConfig on their own', async () => {
    await web.dispatch(general.getClientConfig());
    await web.dispatch(general.getLicenseConfig());
    expect(web.state().entities.general.license).toMatchObject({ IsLicensed: 'false' });
  });
});
