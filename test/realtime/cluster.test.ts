// Several processes on one database (MariaDB in CI's second pass) with Redis (ClusterSettings): an event raised on one
// process reaches sockets on the other; a membership removed on one stops delivery on the other at once; with Redis
// gone, sockets stay up and each process goes on delivering to its own.
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { describeWithRedis, startRedis, type RedisServer } from '../support/redis';
import { eventually } from '../support/eventually';
import { connect, postOf, type Frame, type Socket } from '../support/ws';

describeWithRedis('two processes sharing Redis', () => {
  let redis: RedisServer;
  let a: TestServer;
  let b: TestServer;
  let world: World;
  let carl: Actor;
  let privateId: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const env = { MM_CLUSTERSETTINGS_ENABLE: 'true', MM_CLUSTERSETTINGS_REDISURL: redis.url };
    a = await startTestServer(env);
    b = await startTestServer(env, a.db);
    world = await createWorld(a);
    carl = await createUser(a, world.admin);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: carl.id }).expect(201);
    privateId = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: `cluster${process.pid}`, display_name: 'C', type: 'P' }).expect(201)).body.id;
    await world.admin.api.post(`/api/v4/channels/${privateId}/members`, { user_ids: [world.member.id, carl.id] }).expect(201);
  });
  afterAll(async () => {
    for (const s of sockets) await s.close();
    await b?.close();
    await a?.close();
    await redis?.stop();
  });

  async function socketOn(server: TestServer, actor: Actor): Promise<Socket> {
    const s = await connect(server.url, { token: actor.token });
    sockets.push(s);
    return s;
  }

  const postOn = (server: TestServer, actor: Actor, channelId: string, message: string) =>
    server.http(actor.token).post('/api/v4/posts', { channel_id: channelId, message }).expect(201);
  const posted = (message: string) => (f: Frame) => f.event === 'posted' && postOf(f).message === message;

  test('a post through A reaches a socket on B, and one on A', async () => {
    const onB = await socketOn(b, world.member);
    const onA = await socketOn(a, carl);
    await postOn(a, world.admin, privateId, 'from A');
    await onB.next(posted('from A'));
    await onA.next(posted('from A'));
    // A webhook post too.
    const hook = (await world.admin.api.post('/api/v4/hooks/incoming', { channel_id: privateId, display_name: 'x' }).expect(201)).body.id;
    const res = await fetch(`${a.url}/hooks/${hook}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"text":"hook on A"}' });
    expect(res.status).toBe(200);
    await onB.next(posted('hook on A'));
    expect(onB.problems).toEqual([]);
  });

  test('a membership removed on B stops delivery on A at once', async () => {
    const carlOnA = await socketOn(a, carl);
    await postOn(a, world.admin, privateId, 'carl sees this');
    await carlOnA.next(posted('carl sees this'));
    await b.http(world.admin.token).delete(`/api/v4/channels/${privateId}/members/${carl.id}`).expect(200);
    await carlOnA.next((f) => f.event === 'user_removed' && f.data?.channel_id === privateId);
    const mark = carlOnA.events.length;
    await postOn(a, world.admin, privateId, 'carl must not see this');
    const memberOnB = await socketOn(b, world.member);
    await postOn(a, world.admin, privateId, 'marker');
    await memberOnB.next(posted('marker'));
    await carlOnA.none(posted('carl must not see this'), 200, mark);
  });

  test("a session revoked on B closes the user's socket on A", async () => {
    const user = await createUser(a, world.admin);
    const s = await connect(a.url, { token: user.token });
    await b.http(user.token).post('/api/v4/users/logout').expect(200);
    await s.closed;
  });

  test("a user demoted through A loses the admin copies on B at once (their socket's roles follow the user's)", async () => {
    const x = await createUser(a, world.admin);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: x.id }).expect(201);
    await a.http(world.admin.token).put(`/api/v4/users/${x.id}/roles`, { roles: 'system_user system_admin' }).expect(200);
    const onB = await socketOn(b, x);
    const adminOnB = await socketOn(b, world.admin);
    await a.http(world.admin.token).put('/api/v4/config/patch', { TeamSettings: { MaxNotificationsPerChannel: 990 } }).expect(200);
    await onB.next((f) => f.event === 'config_changed');
    await a.http(world.admin.token).put(`/api/v4/users/${x.id}/roles`, { roles: 'system_user' }).expect(200);
    await onB.next((f) => f.event === 'user_role_updated' && f.data?.roles === 'system_user');
    const mark = onB.events.length;
    const adminMark = adminOnB.events.length;
    await a.http(world.admin.token).put('/api/v4/config/patch', { TeamSettings: { MaxNotificationsPerChannel: 991 } }).expect(200);
    await adminOnB.next((f) => f.event === 'config_changed', { from: adminMark });
    const post = (await postOn(a, world.admin, world.townSquareId, 'deleted on A')).body;
    await a.http(world.admin.token).delete(`/api/v4/posts/${post.id}`).expect(200);
    const deleted = await onB.next((f) => f.event === 'post_deleted' && postOf(f).id === post.id, { from: mark });
    expect(deleted.data).not.toHaveProperty('delete_by');
    expect(onB.events.slice(mark).filter((f) => f.event === 'config_changed')).toEqual([]);
    // Typing into a private channel they are not in is refused on B too.
    const typed = onB.send('user_typing', { channel_id: privateId });
    expect((await onB.reply(typed)).error).toMatchObject({ status_code: 403 });
    expect(onB.problems).toEqual([]);
  });

  test('with Redis gone, sockets stay up and each process delivers to its own; nothing crashes', async () => {
    const memberOnA = await socketOn(a, world.member);
    const adminOnA = await socketOn(a, world.admin);
    await redis.stop();
    await postOn(a, world.admin, world.townSquareId, 'redis is down');
    await memberOnA.next(posted('redis is down'));
    await adminOnA.next(posted('redis is down'));
    expect(memberOnA.ws.readyState).toBe(memberOnA.ws.OPEN);
    await eventually(async () => {
      const ping = await b.http().get('/api/v4/system/ping');
      expect(ping.status).toBe(200);
    });
    // Redis back (same port): the processes reconnect and share events again.
    redis = await startRedis(redis.port);
    const memberOnB = await socketOn(b, world.member);
    await eventually(
      async () => {
        const m = `after recovery ${Date.now()}`;
        await postOn(a, world.admin, world.townSquareId, m);
        await memberOnB.next(posted(m), { timeoutMs: 500 });
      },
      15000,
      200,
    );
  }, 30000);
});
