// Collapsed reply threads (GetUserThreads, GetUserThread, StartFollowingThread, StopFollowingThread,
// UpdateThreadReadForUser, UpdateThreadsReadForUser, SetThreadUnreadByPostId) over real HTTP through Client4, who
// follows a thread as replies are written and deleted, and the events to the user's own sockets.
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createChannel, createPost, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { connect, type Frame } from '../support/ws';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let carol: Actor;
let teamId: string;
let otherTeamId: string;
let channelId: string;

const reply = (as: Actor, rootId: string, message = 'reply', channel = channelId) => createPost(as, channel, message, { root_id: rootId });
const threadsOf = (as: Actor, query = '', team = teamId) => as.api.get(`/api/v4/users/me/teams/${team}/threads${query}`);

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
  carol = await createUser(server, admin);
  teamId = await createTeam(admin, `threads${process.pid}`, [alice, bob, carol]);
  otherTeamId = await createTeam(admin, `threadsother${process.pid}`, [alice]);
  channelId = await createChannel(admin, teamId, 'O', [alice, bob, carol], 'threads');
});
afterAll(() => server.close());

describe('who follows a thread, and its read state', () => {
  test("the root's author, each replier and each user a reply mentions follow it; unread replies and mentions as Mattermost counts them", async () => {
    const root = await createPost(alice, channelId, 'a question');
    // No thread before the first reply.
    expectAppError(await alice.api.get(`/api/v4/users/me/teams/${teamId}/threads/${root.id}`), 404, 'app.user.get_thread_membership_for_user.not_found');
    const r1 = await reply(bob, root.id, `an answer for @${carol.username}`);
    const r2 = await reply(bob, root.id, 'more');

    const a = client4For(server, alice);
    const aliceThread = await a.getUserThread(alice.id, teamId, root.id);
    expect(aliceThread).toMatchObject({ id: root.id, reply_count: 2, last_reply_at: r2.create_at, last_viewed_at: 0, unread_replies: 2, unread_mentions: 0, is_urgent: false, delete_at: 0 });
    expect(aliceThread.participants).toEqual([{ id: bob.id }]);
    expect(aliceThread.post).toMatchObject({ id: root.id, message: 'a question', reply_count: 2, last_reply_at: r2.create_at });

    // The replier has read up to their reply; the mentioned user has one unread mention.
    expect(await client4For(server, bob).getUserThread(bob.id, teamId, root.id)).toMatchObject({ unread_replies: 0, unread_mentions: 0, last_viewed_at: r2.create_at });
    expect(await client4For(server, carol).getUserThread(carol.id, teamId, root.id)).toMatchObject({ unread_replies: 2, unread_mentions: 1 });

    // Extended: participants are whole (sanitized) users.
    const extended = await a.getUserThread(alice.id, teamId, root.id, true);
    expect(extended.participants).toEqual([expect.objectContaining({ id: bob.id, username: bob.username })]);
    expect((extended.participants[0] as Record<string, unknown>).password).toBeUndefined();

    // A reply by alice moves her to the end of the participants and reads the thread for her.
    const r3 = await reply(alice, root.id, 'thanks');
    expect(await a.getUserThread(alice.id, teamId, root.id)).toMatchObject({ reply_count: 3, unread_replies: 0, last_viewed_at: r3.create_at, participants: [{ id: bob.id }, { id: alice.id }] });

    // Deleting a reply counts the thread again; its mention is taken back from a user who had not read it.
    await bob.api.delete(`/api/v4/posts/${r1.id}`).expect(200);
    expect(await client4For(server, carol).getUserThread(carol.id, teamId, root.id)).toMatchObject({ reply_count: 2, unread_replies: 2, unread_mentions: 0 });
  });

  test('GetUserThreads: the page and the totals; unread, since, before/after, totalsOnly, threadsOnly', async () => {
    const user = await createUser(server, admin);
    await admin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: user.id }).expect(201);
    await admin.api.post(`/api/v4/channels/${channelId}/members`, { user_id: user.id }).expect(201);
    const roots = [];
    for (let i = 0; i < 3; i++) {
      const root = await createPost(user, channelId, `topic ${i}`);
      await reply(bob, root.id, i === 0 ? `@${user.username} look` : 'ok');
      roots.push(root.id);
    }
    const c = client4For(server, user);
    const all = await c.getUserThreads(user.id, teamId, { perPage: 60 });
    expect(all.threads.map((t) => t.id)).toEqual([...roots].reverse());
    expect(all).toMatchObject({ total: 3, total_unread_threads: 3, total_unread_mentions: 1, total_unread_urgent_mentions: 0 });

    const [newest, middle, oldest] = [...roots].reverse();
    expect((await c.getUserThreads(user.id, teamId, { before: newest, perPage: 1 })).threads.map((t) => t.id)).toEqual([middle]);
    expect((await c.getUserThreads(user.id, teamId, { after: oldest })).threads.map((t) => t.id)).toEqual([middle, newest]);

    await c.updateThreadReadForUser(user.id, teamId, middle, Date.now());
    const unread = await c.getUserThreads(user.id, teamId, { unread: true });
    expect(unread.threads.map((t) => t.id).sort()).toEqual([newest, oldest].sort());
    expect(unread.total).toBe(2);

    const totals = await c.getUserThreads(user.id, teamId, { totalsOnly: true });
    expect(totals).toMatchObject({ threads: [], total: 3, total_unread_threads: 2, total_unread_mentions: 1 });
    const only = await c.getUserThreads(user.id, teamId, { threadsOnly: true });
    expect(only).toMatchObject({ total: 0, total_unread_threads: 0 });
    expect(only.threads).toHaveLength(3);

    const later = Date.now() + 1;
    await new Promise((r) => setTimeout(r, 5));
    await reply(bob, oldest, 'bump');
    expect((await c.getUserThreads(user.id, teamId, { since: later })).threads.map((t) => t.id)).toEqual([oldest]);

    expectAppError(await threadsOf(user, `?before=${newest}&after=${oldest}`), 400, 'api.getThreadsForUser.bad_params');
    expectAppError(await threadsOf(user, '?totalsOnly=true&threadsOnly=true'), 400, 'api.getThreadsForUser.bad_only_params');
    // per_page is bounded (at most 200) and 0 reads as Mattermost's 30.
    expect((await threadsOf(user, '?per_page=1000').expect(200)).body.threads).toHaveLength(3);
    expect((await threadsOf(user, '?per_page=0').expect(200)).body.threads).toHaveLength(3);

    // Read all: no unread threads or mentions left.
    await c.updateThreadsReadForUser(user.id, teamId);
    expect(await c.getUserThreads(user.id, teamId, { totalsOnly: true })).toMatchObject({ total: 3, total_unread_threads: 0, total_unread_mentions: 0 });
  });

  test('unfollowing hides the thread and new replies do not bring it back, a mention does; following reads it', async () => {
    const root = await createPost(carol, channelId, 'follow me');
    await reply(bob, root.id);
    const c = client4For(server, carol);
    await c.updateThreadFollowForUser(carol.id, teamId, root.id, false);
    expectAppError(await carol.api.get(`/api/v4/users/me/teams/${teamId}/threads/${root.id}`), 404, 'app.user.get_threads_for_user.not_found');
    expect((await c.getUserThreads(carol.id, teamId, {})).threads.map((t) => t.id)).not.toContain(root.id);
    await reply(bob, root.id, 'still there?');
    expectAppError(await carol.api.get(`/api/v4/users/me/teams/${teamId}/threads/${root.id}`), 404, 'app.user.get_threads_for_user.not_found');
    await reply(bob, root.id, `@${carol.username} ping`);
    expect(await c.getUserThread(carol.id, teamId, root.id)).toMatchObject({ unread_mentions: 1 });

    // Following a thread never followed makes a membership, read as of now.
    const other = await createPost(bob, channelId, 'not yours');
    await reply(bob, other.id);
    const a = client4For(server, alice);
    await a.updateThreadFollowForUser(alice.id, teamId, other.id, true);
    expect(await a.getUserThread(alice.id, teamId, other.id)).toMatchObject({ unread_replies: 0, reply_count: 1 });
  });

  test('SetThreadUnreadByPostId: unread from that post on; a post of another thread is 400, an unknown one 404', async () => {
    const root = await createPost(alice, channelId, 'unread me');
    const first = await reply(bob, root.id, 'one');
    await reply(bob, root.id, 'two');
    const a = client4For(server, alice);
    await a.updateThreadReadForUser(alice.id, teamId, root.id, Date.now());
    expect(await a.getUserThread(alice.id, teamId, root.id)).toMatchObject({ unread_replies: 0 });
    const marked = await a.markThreadAsUnreadForUser(alice.id, teamId, root.id, first.id);
    expect(marked).toMatchObject({ id: root.id, unread_replies: 2, last_viewed_at: first.create_at - 1 });
    const elsewhere = await createPost(alice, channelId, 'elsewhere');
    await expectClientError(a.markThreadAsUnreadForUser(alice.id, teamId, root.id, elsewhere.id), 400, 'app.user.update_thread_read_for_user_by_post.app_error');
    expectAppError(await alice.api.post(`/api/v4/users/me/teams/${teamId}/threads/${root.id}/set_unread/${'x'.repeat(26)}`), 404, 'app.post.get.app_error');
  });
});

describe('permissions', () => {
  test("another user's threads need edit_other_users; a team not joined, view_team; a thread's channel, read_channel", async () => {
    const root = await createPost(alice, channelId, 'mine');
    await reply(alice, root.id);
    await expectClientError(client4For(server, bob).getUserThreads(alice.id, teamId, {}), 403);
    expectAppError(await threadsOf(bob, '', otherTeamId), 403);
    const privateId = await createChannel(admin, teamId, 'P', [alice], 'threadspriv');
    const secret = await createPost(alice, privateId, 'secret');
    await reply(alice, secret.id, 'shh', privateId);
    expectAppError(await bob.api.put(`/api/v4/users/me/teams/${teamId}/threads/${secret.id}/following`), 403);
    expectAppError(await bob.api.get(`/api/v4/users/me/teams/${teamId}/threads/${secret.id}`), 403);
    // The system admin may read another user's threads.
    expect((await admin.api.get(`/api/v4/users/${alice.id}/teams/${teamId}/threads`).expect(200)).body.threads.length).toBeGreaterThan(0);
  });

  test("a channel left takes its threads out of the list", async () => {
    const user = await createUser(server, admin);
    await admin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: user.id }).expect(201);
    const ch = await createChannel(admin, teamId, 'P', [user, bob], 'leave');
    const root = await createPost(user, ch, 'here');
    await reply(bob, root.id, 'yes', ch);
    expect((await threadsOf(user).expect(200)).body.threads.map((t: { id: string }) => t.id)).toEqual([root.id]);
    await admin.api.delete(`/api/v4/channels/${ch}/members/${user.id}`).expect(200);
    expect((await threadsOf(user).expect(200)).body).toMatchObject({ threads: [], total: 0 });
  });
});

describe("events to the user's own sockets", () => {
  test('thread_updated on a reply, thread_follow_changed, thread_read_changed', async () => {
    const aliceSocket = await connect(server.url, { token: alice.token });
    const carolSocket = await connect(server.url, { token: carol.token });
    try {
      const root = await createPost(alice, channelId, 'evented');
      const r = await reply(bob, root.id, 'hello');
      const updated = await aliceSocket.next((f: Frame) => f.event === 'thread_updated' && JSON.parse(f.data?.thread as string).id === root.id);
      expect(JSON.parse(updated.data?.thread as string)).toMatchObject({ id: root.id, reply_count: 1, unread_replies: 1, participants: [expect.objectContaining({ id: bob.id })] });
      expect(updated.data).toMatchObject({ previous_unread_replies: 0, previous_unread_mentions: 0 });
      expect(updated.broadcast).toMatchObject({ user_id: alice.id, team_id: teamId });
      // Carol does not follow it: nothing for her.
      await carolSocket.none((f) => f.event === 'thread_updated' && JSON.parse(f.data?.thread as string).id === root.id, 200);

      await client4For(server, alice).updateThreadFollowForUser(alice.id, teamId, root.id, false);
      const follow = await aliceSocket.next((f) => f.event === 'thread_follow_changed');
      expect(follow.data).toEqual({ thread_id: root.id, state: false, reply_count: 1 });

      await client4For(server, alice).updateThreadReadForUser(alice.id, teamId, root.id, r.create_at);
      const read = await aliceSocket.next((f) => f.event === 'thread_read_changed');
      expect(read.data).toEqual({ thread_id: root.id, timestamp: r.create_at, unread_mentions: 0, unread_replies: 0, previous_unread_mentions: 0, previous_unread_replies: 1, channel_id: channelId });
      expect(aliceSocket.problems).toEqual([]);
      expect(carolSocket.problems).toEqual([]);
    } finally {
      await aliceSocket.close();
      await carolSocket.close();
    }
  });
});

describe('client config and team unreads', () => {
  test('CollapsedThreads is in the client config; include_collapsed_threads counts unread followed threads', async () => {
    const config = (await alice.api.get('/api/v4/config/client?format=old').expect(200)).body;
    expect(['disabled', 'default_on', 'default_off', 'always_on']).toContain(config.CollapsedThreads);
    const user = await createUser(server, admin);
    await admin.api.post(`/api/v4/teams/${teamId}/members`, { team_id: teamId, user_id: user.id }).expect(201);
    await admin.api.post(`/api/v4/channels/${channelId}/members`, { user_id: user.id }).expect(201);
    const root = await createPost(user, channelId, 'count me');
    await reply(bob, root.id, `@${user.username}`);
    const unread = (await user.api.get('/api/v4/users/me/teams/unread?include_collapsed_threads=true').expect(200)).body as Array<Record<string, number | string>>;
    expect(unread.find((u) => u.team_id === teamId)).toMatchObject({ thread_count: 1, thread_mention_count: 1 });
  });
});
