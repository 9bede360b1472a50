// What one user's sockets can make the server hold or send, and whose roles they carry (review round 3: H2, L9, M2),
// against a real server over loopback: connections per user, replay rings bounded in size, typing throttled per user
// across their sockets, and a demoted admin's socket losing what only admins get at once. Runs on SQLite and MariaDB.
import { createChannel, createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { eventually } from '../support/eventually';
import { connect, postOf, type Frame, type Socket } from '../support/ws';

let server: TestServer;
let world: World;
const open: Socket[] = [];

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterEach(async () => {
  for (const s of open.splice(0)) {
    expect(s.problems).toEqual([]);
    await s.close();
  }
});
afterAll(() => server.close());

async function socket(opts: Parameters<typeof connect>[1]): Promise<Socket> {
  const s = await connect(server.url, opts);
  open.push(s);
  return s;
}

const patchConfig = (patch: Record<string, unknown>) => world.admin.api.put('/api/v4/config/patch', patch).expect(200);
const posted = (message: string) => (f: Frame) => f.event === 'posted' && postOf(f).message === message;

/** A user on the world's team (so in town-square). */
async function teammate(): Promise<Actor> {
  const user = await createUser(server, world.admin);
  await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: user.id }).expect(201);
  return user;
}

describe('connections per user (WebSocketSettings.MaxConnectionsPerUser)', () => {
  test('past the cap, the live socket opened longest ago is closed (1008); the newest ones, and other users, carry on', async () => {
    await patchConfig({ WebSocketSettings: { MaxConnectionsPerUser: 3 } });
    try {
      const user = await teammate();
      const first = await socket({ token: user.token });
      const rest = [await socket({ token: user.token }), await socket({ token: user.token })];
      const bystander = await socket({ token: world.member.token });
      const fourth = await socket({ token: user.token });
      expect((await first.closed).code).toBe(1008);
      await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'after the cap' }).expect(201);
      for (const s of [...rest, fourth, bystander]) await s.next(posted('after the cap'));
      // The connection closed for the cap is forgotten: coming back with its id gets a new hello.
      const again = await socket({ token: user.token, connectionId: first.connectionId(), sequenceNumber: first.nextSeq() });
      expect(again.events[0]).toMatchObject({ event: 'hello', seq: 0 });
      expect(again.connectionId()).not.toBe(first.connectionId());
    } finally {
      await patchConfig({ WebSocketSettings: { MaxConnectionsPerUser: 16 } });
    }
  });

  test('connections waiting to be resumed count too, and give way before any live socket', async () => {
    await patchConfig({ WebSocketSettings: { MaxConnectionsPerUser: 2 } });
    try {
      const user = await teammate();
      const live = await socket({ token: user.token });
      // Dropped right after hello, as the review's reproduction does: each stays resumable (and recording).
      const dropped = await connect(server.url, { token: user.token });
      await dropped.close();
      const newest = await socket({ token: user.token });
      // The live one stayed; the dropped one gave way (its resume gets a new hello).
      await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'both live' }).expect(201);
      await live.next(posted('both live'));
      await newest.next(posted('both live'));
      expect(live.ws.readyState).toBe(live.ws.OPEN);
      const back = await socket({ token: user.token, connectionId: dropped.connectionId(), sequenceNumber: dropped.nextSeq() });
      expect(back.events[0]).toMatchObject({ event: 'hello', seq: 0 });
    } finally {
      await patchConfig({ WebSocketSettings: { MaxConnectionsPerUser: 16 } });
    }
  });

  test('with the default cap (16), 20 sockets of one user leave 16 open', async () => {
    const user = await teammate();
    const all: Socket[] = [];
    for (let i = 0; i < 20; i++) all.push(await socket({ token: user.token }));
    await eventually(() => expect(all.filter((s) => s.ws.readyState === s.ws.OPEN)).toHaveLength(16));
    expect(all.slice(0, 4).every((s) => s.ws.readyState !== s.ws.OPEN)).toBe(true);
  });
});

test('the replay ring is bounded in size (WebSocketSettings.ReplayBufferBytes): a client that missed more than it holds gets a new hello', async () => {
  await patchConfig({ WebSocketSettings: { ReplayBufferBytes: 4000 } });
  try {
    const user = await teammate();
    // A live socket of the same user: what it receives has been handed to the closed connections' rings too (one
    // delivery), so it tells when the rings hold a post, without a fixed wait.
    const observer = await socket({ token: user.token });
    const first = await connect(server.url, { token: user.token });
    const id = first.connectionId();
    const expected = first.nextSeq();
    await first.close();
    // Three posts of ~1,800 characters each: fewer than ReplayBufferSize (128) events, more than 4,000 characters.
    for (let i = 0; i < 3; i++) await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: `big ${i} ${'x'.repeat(1800)}` }).expect(201);
    await observer.next((f) => f.event === 'posted' && postOf(f).message.startsWith('big 2 '));
    const again = await socket({ token: user.token, connectionId: id, sequenceNumber: expected });
    expect(again.events[0]).toMatchObject({ event: 'hello', seq: 0 });
    // One such post fits: a client that missed only that one resumes.
    const second = await connect(server.url, { token: user.token });
    const id2 = second.connectionId();
    const expected2 = second.nextSeq();
    await second.close();
    await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: `fits ${'y'.repeat(1800)}` }).expect(201);
    await observer.next((f) => f.event === 'posted' && postOf(f).message.startsWith('fits '));
    const resumed = await socket({ token: user.token, connectionId: id2, sequenceNumber: expected2, waitHello: false });
    const got = await resumed.next((f) => f.event === 'posted' && postOf(f).message.startsWith('fits '));
    // The replay starts exactly where the client left off (an event such as a status change may come first), and no
    // new hello: the client resumed.
    expect(resumed.events[0].seq).toBe(expected2);
    expect(got.seq).toBeGreaterThanOrEqual(expected2);
    expect(resumed.events.some((e) => e.event === 'hello')).toBe(false);
  } finally {
    await patchConfig({ WebSocketSettings: { ReplayBufferBytes: 1048576 } });
  }
});

test('typing is throttled per user, not per socket: one user_typing on each of 10 sockets puts one typing event on a member (review round 3, L9)', async () => {
  const typist = await teammate();
  const sockets: Socket[] = [];
  for (let i = 0; i < 10; i++) sockets.push(await socket({ token: typist.token }));
  const watcher = await socket({ token: world.member.token });
  const seqs = sockets.map((s) => s.send('user_typing', { channel_id: world.townSquareId }));
  await Promise.all(sockets.map(async (s, i) => expect((await s.reply(seqs[i])).status).toBe('OK')));
  await watcher.next((f) => f.event === 'typing' && f.data?.user_id === typist.id);
  // A fixed grace on purpose: the claim is that no second typing event comes, so time has to pass.
  await new Promise((r) => setTimeout(r, 300));
  expect(watcher.events.filter((e) => e.event === 'typing' && e.data?.user_id === typist.id)).toHaveLength(1);
});

describe("a socket's roles follow the user's (review round 3, M2)", () => {
  let x: Actor;
  let privateId: string;

  beforeAll(async () => {
    x = await teammate();
    privateId = await createChannel(world.admin, world.teamId, 'P', [world.member], 'not-x');
  });

  test('a system admin demoted while connected stops getting config_changed, the admin copy of user_updated and post_deleted, and may no longer type where they are not a member', async () => {
    await world.admin.api.put(`/api/v4/users/${x.id}/roles`, { roles: 'system_user system_admin' }).expect(200);
    await patchConfig({ PrivacySettings: { ShowEmailAddress: false, ShowFullName: false } });
    try {
      const s = await socket({ token: x.token });
      const admin = await socket({ token: world.admin.token });

      // While an admin: the admin copies, and typing anywhere (the test's claims below can fail).
      await patchConfig({ TeamSettings: { MaxNotificationsPerChannel: 998 } });
      await s.next((f) => f.event === 'config_changed');
      const typedAsAdmin = s.send('user_typing', { channel_id: privateId });
      expect((await s.reply(typedAsAdmin)).status).toBe('OK');

      await world.admin.api.put(`/api/v4/users/${x.id}/roles`, { roles: 'system_user' }).expect(200);
      await s.next((f) => f.event === 'user_role_updated' && f.data?.roles === 'system_user');
      const mark = s.events.length;

      const adminMark = admin.events.length;
      await patchConfig({ TeamSettings: { MaxNotificationsPerChannel: 997 } });
      // The admin next to them does get it (by then, so would X's socket).
      await admin.next((f) => f.event === 'config_changed', { from: adminMark });

      const nick = `n${Date.now()}`;
      await world.member.api.put('/api/v4/users/me/patch', { nickname: nick, last_name: 'Secret' }).expect(200);
      const updated = await s.next((f) => f.event === 'user_updated' && f.data?.user?.nickname === nick, { from: mark });
      expect(updated.data?.user).toMatchObject({ id: world.member.id, email: '', last_name: '' });
      expect(updated.broadcast).toMatchObject({ contains_sanitized_data: true });

      const post = (await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'to delete' }).expect(201)).body;
      await world.admin.api.delete(`/api/v4/posts/${post.id}`).expect(200);
      const deleted = await s.next((f) => f.event === 'post_deleted' && postOf(f).id === post.id, { from: mark });
      expect(deleted.data).not.toHaveProperty('delete_by');
      const adminCopy = await admin.next((f) => f.event === 'post_deleted' && postOf(f).id === post.id);
      expect(adminCopy.data?.delete_by).toBe(world.admin.id);

      // The typing slot of that channel is taken for a second by the OK above: wait it out.
      await new Promise((r) => setTimeout(r, 1100));
      const typed = s.send('user_typing', { channel_id: privateId });
      expect((await s.reply(typed)).error).toMatchObject({ id: 'api.context.permissions.app_error', status_code: 403 });

      expect(s.events.slice(mark).filter((f) => f.event === 'config_changed')).toEqual([]);
    } finally {
      await patchConfig({ PrivacySettings: { ShowEmailAddress: true, ShowFullName: true } });
    }
  });

  test('a user promoted while connected gets the admin copies from then on', async () => {
    const y = await teammate();
    const s = await socket({ token: y.token });
    await world.admin.api.put(`/api/v4/users/${y.id}/roles`, { roles: 'system_user system_admin' }).expect(200);
    await s.next((f) => f.event === 'user_role_updated');
    await patchConfig({ TeamSettings: { MaxNotificationsPerChannel: 996 } });
    await s.next((f) => f.event === 'config_changed');
    await world.admin.api.put(`/api/v4/users/${y.id}/roles`, { roles: 'system_user' }).expect(200);
  });

  test('a socket that dropped while its user was demoted replays only what the demoted user may see', async () => {
    const z = await teammate();
    await world.admin.api.put(`/api/v4/users/${z.id}/roles`, { roles: 'system_user system_admin' }).expect(200);
    const first = await connect(server.url, { token: z.token });
    const id = first.connectionId();
    const expected = first.nextSeq();
    await first.close();
    await world.admin.api.put(`/api/v4/users/${z.id}/roles`, { roles: 'system_user' }).expect(200);
    await patchConfig({ TeamSettings: { MaxNotificationsPerChannel: 995 } });
    await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'marker after demotion' }).expect(201);
    await new Promise((r) => setTimeout(r, 100));
    const again = await socket({ token: z.token, connectionId: id, sequenceNumber: expected, waitHello: false });
    await again.next(posted('marker after demotion'));
    expect(again.events.map((e) => e.event)).toContain('user_role_updated');
    expect(again.events.filter((e) => e.event === 'config_changed')).toEqual([]);
  });
});
