// The WebSocket protocol of GET /api/v4/websocket, against a real server over loopback: authentication (header,
// cookie, authentication_challenge, none), hello and numbering, replies, replay on resume, the Origin check,
// revocation, and bad input (garbage, oversized frames, unknown actions, a typing flood).
import request from 'supertest';
import { PASSWORD, createWorld, login, startTestServer, type TestServer, type World } from '../support/server';
import { eventually } from '../support/eventually';
import { connect, postOf, type Socket } from '../support/ws';

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

const post = (message: string, who = world.member) => who.api.post('/api/v4/posts', { channel_id: world.townSquareId, message }).expect(201);

describe('authentication', () => {
  test('a token in the Authorization header: hello at seq 0 with a connection id and the server version', async () => {
    const s = await socket({ token: world.member.token });
    const hello = s.events[0];
    expect(hello).toMatchObject({ event: 'hello', seq: 0, broadcast: { user_id: world.member.id } });
    expect(hello.data).toMatchObject({ server_version: expect.stringMatching(/^\d+\.\d+\.\d+\./), connection_id: expect.stringMatching(/^[a-z0-9]{26}$/) });
  });

  test('the session cookie on the upgrade', async () => {
    const s = await socket({ cookie: `MMAUTHTOKEN=${world.member.token}` });
    expect(s.events[0].event).toBe('hello');
  });

  test('authentication_challenge after an anonymous upgrade: hello, then OK to the challenge', async () => {
    const s = await socket({ waitHello: false });
    const seq = s.send('authentication_challenge', { token: world.member.token });
    const ok = await s.reply(seq);
    expect(ok).toEqual({ status: 'OK', seq_reply: seq });
    expect(s.events[0]).toMatchObject({ event: 'hello', seq: 0 });
    // A second challenge on an authenticated socket gets no answer at all (as in Mattermost).
    const again = s.send('authentication_challenge', { token: world.member.token });
    await expect(s.reply(again, 300)).rejects.toThrow(/timed out/);
  });

  test('a wrong token in the challenge closes the socket; a bad token on the upgrade leaves it unauthenticated', async () => {
    const s = await connect(server.url, { waitHello: false });
    s.send('authentication_challenge', { token: 'x'.repeat(26) });
    expect((await s.closed).code).toBe(1008);
    const anonymous = await connect(server.url, { token: 'garbage', waitHello: false });
    const seq = anonymous.send('ping');
    expect((await anonymous.reply(seq)).error).toMatchObject({ id: 'api.web_socket_router.not_authenticated.app_error', status_code: 401 });
    await anonymous.close();
  });

  test('a socket that never authenticates is closed after 5 seconds', async () => {
    const s = await connect(server.url, { waitHello: false });
    const started = Date.now();
    const { code } = await s.closed;
    expect(code).toBe(1008);
    // Time passing is the behaviour: a lower bound only (not closed early), with a second of slack for the timer.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    expect(s.events).toEqual([]);
  }, 15000);

  test("a page of another site cannot open a socket with the user's cookie (Origin check); the server's own page can", async () => {
    await expect(connect(server.url, { cookie: `MMAUTHTOKEN=${world.member.token}`, origin: 'https://evil.example' })).rejects.toMatchObject({ status: 400 });
    await expect(connect(server.url, { cookie: `MMAUTHTOKEN=${world.member.token}`, origin: 'null' })).rejects.toMatchObject({ status: 400 });
    const own = await socket({ cookie: `MMAUTHTOKEN=${world.member.token}`, origin: server.url });
    expect(own.events[0].event).toBe('hello');
  });

  test('a plain GET (no upgrade) is 400', async () => {
    const res = await request(server.url).get('/api/v4/websocket').set('Authorization', `Bearer ${world.member.token}`);
    expect(res.status).toBe(400);
    expect(res.body.id).toBe('api.web_socket.connect.upgrade.app_error');
  });
});

describe('actions and replies', () => {
  test('ping answers pong with the version and the server time; replies carry seq_reply and no seq', async () => {
    const s = await socket({ token: world.member.token });
    const seq = s.send('ping');
    const pong = await s.reply(seq);
    expect(pong).toMatchObject({ status: 'OK', seq_reply: seq, data: { text: 'pong', server_time: expect.any(Number), node_id: '' } });
    expect(pong).not.toHaveProperty('seq');
  });

  test('an unknown action gets an error reply and the socket stays open', async () => {
    const s = await socket({ token: world.member.token });
    const seq = s.send('make_coffee');
    expect((await s.reply(seq)).error).toMatchObject({ id: 'api.web_socket_router.bad_action.app_error' });
    const ok = s.send('ping');
    expect((await s.reply(ok)).status).toBe('OK');
  });

  test('a missing action or a bad seq is an error reply, not a dropped socket', async () => {
    const s = await socket({ token: world.member.token });
    s.sendRaw(JSON.stringify({ seq: 7 }));
    expect((await s.reply(7)).error).toMatchObject({ id: 'api.web_socket_router.no_action.app_error', status_code: 400 });
    s.sendRaw(JSON.stringify({ seq: -3, action: 'ping' }));
    await eventually(() => expect(s.replies.some((r) => r.error?.id === 'api.web_socket_router.bad_seq.app_error')).toBe(true));
    expect((await s.reply(s.send('ping'))).status).toBe('OK');
  });

  test('get_statuses_by_ids: one status per user asked, offline for those never seen', async () => {
    const s = await socket({ token: world.member.token });
    // Connecting sets the user online (written right after the upgrade: asked until it shows).
    await eventually(async () => {
      const seq = s.send('get_statuses_by_ids', { user_ids: [world.member.id, world.admin.id] });
      expect((await s.reply(seq)).data).toEqual({ [world.member.id]: 'online', [world.admin.id]: 'offline' });
    });
    const bad = s.send('get_statuses_by_ids', { user_ids: [] });
    expect((await s.reply(bad)).error).toMatchObject({ id: 'api.websocket_handler.invalid_param.app_error' });
  });

  test('user_typing in a channel the user cannot post to is refused', async () => {
    const privateId = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: `ws-priv-${Date.now()}`, display_name: 'P', type: 'P' }).expect(201)).body.id;
    const s = await socket({ token: world.member.token });
    const seq = s.send('user_typing', { channel_id: privateId });
    expect((await s.reply(seq)).error).toMatchObject({ id: 'api.context.permissions.app_error', status_code: 403 });
  });
});

describe('bad input', () => {
  test('a frame that is not JSON closes the socket (as in Mattermost); the server stays up', async () => {
    const s = await connect(server.url, { token: world.member.token });
    s.sendRaw('this is not json{');
    expect((await s.closed).code).toBe(1003);
    await request(server.url).get('/api/v4/system/ping').expect(200);
  });

  test('a binary frame closes the socket', async () => {
    const s = await connect(server.url, { token: world.member.token });
    s.sendRaw(Buffer.from([0x81, 0xa4, 0x61]));
    expect((await s.closed).code).toBe(1003);
  });

  test('a frame over 8 KiB closes the socket without being read into memory', async () => {
    const s = await connect(server.url, { token: world.member.token });
    s.sendRaw(JSON.stringify({ seq: 1, action: 'ping', data: { pad: 'x'.repeat(64 * 1024) } }));
    expect((await s.closed).code).toBe(1009);
    await request(server.url).get('/api/v4/system/ping').expect(200);
  });

  test('a flood of user_typing is absorbed: every request answered, one typing event per second reaches others', async () => {
    const typer = await socket({ token: world.member.token });
    const watcher = await socket({ token: world.admin.token });
    Array.from({ length: 200 }, () => typer.send('user_typing', { channel_id: world.townSquareId }));
    // The first request waits on the database (its permission check); the others are answered at once.
    await eventually(() => expect(typer.replies.filter((r) => r.status === 'OK')).toHaveLength(200));
    // A fixed grace on purpose: the claim is that no second typing event comes, so time has to pass.
    await new Promise((r) => setTimeout(r, 300));
    expect(watcher.events.filter((e) => e.event === 'typing')).toHaveLength(1);
  });
});

describe('sequence numbers and resuming', () => {
  test('events are numbered 0, 1, 2, … with no gaps', async () => {
    const s = await socket({ token: world.member.token });
    await post('one');
    await post('two');
    await s.next((f) => f.event === 'posted' && postOf(f).message === 'two');
    const seqs = s.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
  });

  test('a client that reconnects with its connection_id and the seq it expects gets what it missed, in order, then carries on', async () => {
    const first = await connect(server.url, { token: world.member.token });
    await post('before the drop', world.admin);
    await first.next((f) => f.event === 'posted' && postOf(f).message === 'before the drop');
    const id = first.connectionId();
    const expected = first.nextSeq();
    await first.close();
    await post('missed 1', world.admin);
    await post('missed 2', world.admin);
    // Give the server a moment to deliver the events into the dropped connection's replay buffer (a fixed pause: the
    // buffer of a closed connection cannot be observed from a client).
    await new Promise((r) => setTimeout(r, 100));
    const again = await socket({ token: world.member.token, connectionId: id, sequenceNumber: expected, waitHello: false });
    const m2 = await again.next((f) => f.event === 'posted' && postOf(f).message === 'missed 2');
    const messages = again.events.filter((e) => e.event === 'posted').map((e) => postOf(e).message);
    expect(messages).toEqual(['missed 1', 'missed 2']);
    expect(again.events.some((e) => e.event === 'hello')).toBe(false);
    expect(again.events[0].seq).toBe(expected);
    await post('after the resume', world.admin);
    const after = await again.next((f) => f.event === 'posted' && postOf(f).message === 'after the resume');
    // Numbering carries on where it was (a status_change may come between; the helper checks there are no gaps).
    expect(after.seq).toBeGreaterThan(m2.seq as number);
  });

  test('resuming with a seq the server no longer has, or an unknown connection, gets a new hello (refetch)', async () => {
    const first = await connect(server.url, { token: world.member.token });
    const id = first.connectionId();
    await first.close();
    const unknown = await socket({ token: world.member.token, connectionId: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', sequenceNumber: 5 });
    expect(unknown.events[0]).toMatchObject({ event: 'hello', seq: 0 });
    expect(unknown.connectionId()).not.toBe('aaaaaaaaaaaaaaaaaaaaaaaaaa');
    const ahead = await socket({ token: world.member.token, connectionId: id, sequenceNumber: 999 });
    expect(ahead.events[0]).toMatchObject({ event: 'hello', seq: 0 });
    expect(ahead.connectionId()).not.toBe(id);
  });

  test("another user's connection id is never resumed", async () => {
    const theirs = await connect(server.url, { token: world.admin.token });
    const id = theirs.connectionId();
    await theirs.close();
    const mine = await socket({ token: world.member.token, connectionId: id, sequenceNumber: 1 });
    expect(mine.events[0]).toMatchObject({ event: 'hello', seq: 0 });
    expect(mine.connectionId()).not.toBe(id);
  });

  test('the replay buffer is a setting: with room for 2 events, a client that missed 3 gets a new hello', async () => {
    await world.admin.api.put('/api/v4/config/patch', { WebSocketSettings: { ReplayBufferSize: 2 } }).expect(200);
    try {
      const first = await connect(server.url, { token: world.member.token });
      const id = first.connectionId();
      const expected = first.nextSeq();
      await first.close();
      for (const m of ['x1', 'x2', 'x3']) await post(m, world.admin);
      // As above: the replay buffer of a closed connection is not observable from a client.
      await new Promise((r) => setTimeout(r, 100));
      const again = await socket({ token: world.member.token, connectionId: id, sequenceNumber: expected });
      expect(again.events[0]).toMatchObject({ event: 'hello', seq: 0 });
    } finally {
      await world.admin.api.put('/api/v4/config/patch', { WebSocketSettings: { ReplayBufferSize: 128 } }).expect(200);
    }
  });
});

describe('revocation', () => {
  test("logging out closes that session's sockets, not the user's others", async () => {
    const other = await login(server, world.member.id, world.member.username);
    const doomed = await connect(server.url, { token: other.token });
    const kept = await socket({ token: world.member.token });
    await other.api.post('/api/v4/users/logout').expect(200);
    await doomed.closed;
    await post('still here', world.admin);
    await kept.next((f) => f.event === 'posted' && postOf(f).message === 'still here');
  });

  test("revoking a session (RevokeSession) or deactivating the user closes the sockets at once", async () => {
    const user = await (await import('../support/server')).createUser(server, world.admin);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: user.id }).expect(201);
    const s = await connect(server.url, { token: user.token });
    const sessions = (await user.api.get('/api/v4/users/me/sessions').expect(200)).body as Array<{ id: string }>;
    await world.admin.api.post(`/api/v4/users/${user.id}/sessions/revoke`, { session_id: sessions[0].id }).expect(200);
    await s.closed;
    const again = await login(server, user.id, user.username);
    const s2 = await connect(server.url, { token: again.token });
    await world.admin.api.put(`/api/v4/users/${user.id}/active`, { active: false }).expect(200);
    await s2.closed;
    expect(PASSWORD).toBeTruthy();
  });
});
