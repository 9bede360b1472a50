// SetPostUnread (POST /api/v4/users/{user_id}/posts/{post_id}/set_unread): "Mark as Unread" on a post, through
// Client4's markPostAsUnread, with posts placed in time so the counts are known exactly.
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { connect } from '../support/ws';
import { atTime, createChannel, createPost, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let carol: Actor;
let teamId: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
  carol = await createUser(server, admin);
  teamId = await createTeam(admin, `setunread${process.pid}`, [alice, bob, carol]);
});
afterAll(() => server.close());

let clock = Date.now() - 10_000_000;

/** A channel with alice's posts one second apart (the messages given); bob has read them all. */
async function readChannel(messages: string[]): Promise<{ channelId: string; ids: string[]; times: number[] }> {
  const channelId = await createChannel(admin, teamId, 'O', [alice, bob], 'unread');
  const ids: string[] = [];
  const times: number[] = [];
  for (const m of messages) {
    clock += 1000;
    ids.push((await atTime(server, clock, () => createPost(alice, channelId, m))).id);
    times.push(clock);
  }
  clock += 1000;
  await atTime(server, clock, () => bob.api.post('/api/v4/channels/members/me/view', { channel_id: channelId }).expect(200));
  return { channelId, ids, times };
}

test('the post and every later one become unread; the mentions among them count again; the sidebar reads it as unread', async () => {
  const bobName = (await bob.api.get('/api/v4/users/me').expect(200)).body.username as string;
  const { channelId, ids, times } = await readChannel(['one', `hi @${bobName}`, 'three', `@${bobName} again`, 'five']);
  const before = (await bob.api.get(`/api/v4/channels/${channelId}/members/me`).expect(200)).body;
  expect(before.mention_count).toBe(0);
  const answer = (await client4For(server, bob).markPostAsUnread(bob.id, ids[1])) as unknown as Record<string, unknown>;
  expect(answer).toMatchObject({ team_id: teamId, channel_id: channelId, user_id: bob.id, last_viewed_at: times[1] - 1, mention_count: 2, mention_count_root: 2, urgent_mention_count: 0 });
  const member = (await bob.api.get(`/api/v4/channels/${channelId}/members/me`).expect(200)).body;
  const channel = (await bob.api.get(`/api/v4/channels/${channelId}`).expect(200)).body;
  // Four posts (from the second on) are unread, whatever else the channel counts.
  expect(channel.total_msg_count - member.msg_count).toBe(4);
  expect(member).toMatchObject({ last_viewed_at: times[1] - 1, mention_count: 2, msg_count: answer.msg_count });
  // The apps open the channel at the first unread post: it is the one marked.
  const around = await client4For(server, bob).getPostsUnread(channelId, bob.id, 1, 1);
  expect(around.order).toEqual([ids[1], ids[0]]);
});

test('the user hears post_unread on their own connections only, with the new counts and the channel in the broadcast', async () => {
  const { channelId, ids, times } = await readChannel(['a', 'b', 'c']);
  const mine = await connect(server.url, { token: bob.token });
  const theirs = await connect(server.url, { token: alice.token });
  try {
    await bob.api.post(`/api/v4/users/me/posts/${ids[2]}/set_unread`, {}).expect(200);
    const frame = await mine.next((f) => f.event === 'post_unread');
    expect(frame.broadcast).toMatchObject({ user_id: bob.id, channel_id: channelId, team_id: teamId });
    expect(frame.data).toMatchObject({ post_id: ids[2], last_viewed_at: times[2] - 1, mention_count: 0, urgent_mention_count: 0 });
    expect(typeof frame.data?.msg_count).toBe('number');
    await theirs.none((f) => f.event === 'post_unread', 300);
    expect(mine.problems).toEqual([]);
  } finally {
    await mine.close();
    await theirs.close();
  }
});

test('in a direct channel every later post by the other user is a mention', async () => {
  const dm = (await bob.api.post('/api/v4/channels/direct', [bob.id, alice.id]).expect(201)).body.id as string;
  const ids: string[] = [];
  for (const m of ['x', 'y', 'z']) {
    clock += 1000;
    ids.push((await atTime(server, clock, () => createPost(alice, dm, m))).id);
  }
  clock += 1000;
  await atTime(server, clock, () => bob.api.post('/api/v4/channels/members/me/view', { channel_id: dm }).expect(200));
  const answer = await bob.api.post(`/api/v4/users/${bob.id}/posts/${ids[1]}/set_unread`, { collapsed_threads_supported: true }).expect(200);
  expect(answer.body).toMatchObject({ team_id: '', mention_count: 2 });
});

test('refusals: another user (403), a post they cannot read (403), a deleted post (404), not a member (404), an unknown post (403)', async () => {
  const { ids } = await readChannel(['p']);
  expectAppError(await bob.api.post(`/api/v4/users/${alice.id}/posts/${ids[0]}/set_unread`, {}), 403);
  const hidden = await createChannel(admin, teamId, 'P', [alice], 'hidden');
  const hiddenPost = (await createPost(alice, hidden, 'secret')).id as string;
  expectAppError(await bob.api.post(`/api/v4/users/me/posts/${hiddenPost}/set_unread`, {}), 403);
  const gone = (await createPost(alice, (await readChannel(['q'])).channelId, 'gone')).id as string;
  await alice.api.delete(`/api/v4/posts/${gone}`).expect(200);
  expectAppError(await bob.api.post(`/api/v4/users/me/posts/${gone}/set_unread`, {}), 404, 'app.post.get.app_error');
  // Carol may read the public channel (she is on the team) but is not a member of it.
  expectAppError(await carol.api.post(`/api/v4/users/me/posts/${ids[0]}/set_unread`, {}), 404, 'app.channel.get_member.missing.app_error');
  await expectClientError(client4For(server, bob).markPostAsUnread(bob.id, 'a'.repeat(26)), 403);
});
