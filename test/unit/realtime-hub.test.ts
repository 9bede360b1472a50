// The hub's delivery rules on fake sockets: numbering, the bounded replay buffer, slow consumers dropped, audience
// filters (users, omitted users, admins only), revocation, presence, and what one user can make the process hold
// (connections per user, the mentioned copy of a post shared by a user's connections), the typing throttle per user,
// and roles changed while connected.
import { broadcast, type RealtimeEvent } from '../../src/app/events';
import { Hub } from '../../src/http/realtime-hub';
import type { Session } from '../../src/model';

class FakeSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  terminated = false;
  send(frame: string) {
    this.sent.push(frame);
  }
  terminate() {
    this.terminated = true;
    this.readyState = 3;
  }
  close() {
    this.terminate();
  }
  ping() {
    return undefined;
  }
}

const session = (userId: string, roles = 'system_user', id = `s-${userId}`): Session => ({ id, userId, roles, isAccessToken: false, csrfToken: '' });
const event = (fields: Partial<RealtimeEvent> = {}): RealtimeEvent => ({ event: 'posted', data: { post: '{}' }, broadcast: broadcast(), audience: { kind: 'users', userIds: ['u1', 'u2'] }, ...fields });

function setup(opts: { replay?: number; maxBytes?: number; replayBytes?: number; perUser?: number } = {}) {
  const presence: string[] = [];
  let now = 1000;
  const hub = new Hub({
    replayEvents: () => opts.replay ?? 3,
    replayBytes: () => opts.replayBytes ?? 1024 * 1024,
    maxConnectionsPerUser: () => opts.perUser ?? 16,
    replayWindowMs: () => 60_000,
    maxBufferedBytes: opts.maxBytes ?? 1000,
    now: () => now,
    presence: { connected: (u) => presence.push(`+${u}`), disconnected: (u) => presence.push(`-${u}`) },
  });
  const open = (userId: string, roles?: string, sid?: string) => {
    const socket = new FakeSocket();
    const conn = hub.open(session(userId, roles, sid), socket as never);
    return { socket, conn };
  };
  return { hub, open, presence, advance: (ms: number) => (now += ms) };
}

const seqs = (socket: FakeSocket) => socket.sent.map((f) => JSON.parse(f).seq);

test('each connection numbers its own events from 0 and keeps only the last N for replay', () => {
  const { hub, open } = setup({ replay: 3 });
  const a = open('u1');
  const b = open('u2');
  hub.deliver(event());
  hub.deliver(event());
  hub.deliver(event({ audience: { kind: 'users', userIds: ['u1'] } }));
  hub.deliver(event({ audience: { kind: 'users', userIds: ['u1'] } }));
  expect(seqs(a.socket)).toEqual([0, 1, 2, 3]);
  expect(seqs(b.socket)).toEqual([0, 1]);
  expect(hub.missedSince(a.conn, 1)?.map((f) => JSON.parse(f).seq)).toEqual([1, 2, 3]);
  expect(hub.missedSince(a.conn, 2)?.map((f) => JSON.parse(f).seq)).toEqual([2, 3]);
  expect(hub.missedSince(a.conn, 4)).toEqual([]);
  // Seq 0 fell out of the buffer, and 5 was never sent: neither can be resumed.
  expect(hub.missedSince(a.conn, 0)).toBeUndefined();
  expect(hub.missedSince(a.conn, 5)).toBeUndefined();
});

test('a dropped connection still records what it misses (within its buffer); a resume replays it', () => {
  const { hub, open } = setup({ replay: 10 });
  const a = open('u1');
  hub.detach(a.conn, a.socket as never);
  expect(hub.active()).toBe(true);
  hub.deliver(event());
  hub.deliver(event());
  const fresh = new FakeSocket();
  const missed = hub.missedSince(a.conn, 0);
  expect(missed?.map((f) => JSON.parse(f).seq)).toEqual([0, 1]);
  hub.reattach(a.conn, fresh as never, session('u1'));
  hub.deliver(event());
  expect(seqs(fresh)).toEqual([2]);
});

test('a socket too far behind (its send buffer over the bound) is dropped, not buffered further; others carry on', () => {
  const { hub, open } = setup({ maxBytes: 1000 });
  const slow = open('u1');
  const fast = open('u2');
  slow.socket.bufferedAmount = 5000;
  hub.deliver(event());
  expect(slow.socket.terminated).toBe(true);
  expect(slow.socket.sent).toEqual([]);
  expect(seqs(fast.socket)).toEqual([0]);
});

test("the frames a socket gets in one turn of the event loop leave in one write: its TCP socket is corked until the next tick", async () => {
  const { hub, open } = setup({ replay: 10 });
  const log: string[] = [];
  const a = open('u1');
  const b = open('u2');
  for (const [name, s] of [['a', a.socket], ['b', b.socket]] as const) {
    // What ws's WebSocket has under it: the net.Socket its frames are written to.
    Object.assign(s, { _socket: { cork: () => log.push(`cork ${name}`), uncork: () => log.push(`uncork ${name}`) } });
    const send = s.send.bind(s);
    s.send = (frame: string) => {
      log.push(`send ${name}`);
      send(frame);
    };
  }
  hub.deliver(event());
  hub.deliver(event());
  expect(log).toEqual(['cork a', 'send a', 'cork b', 'send b', 'send a', 'send b']);
  await new Promise((resolve) => process.nextTick(resolve));
  expect(log.slice(6).sort()).toEqual(['uncork a', 'uncork b']);
  log.length = 0;
  hub.deliver(event({ audience: { kind: 'users', userIds: ['u1'] } }));
  await new Promise((resolve) => process.nextTick(resolve));
  expect(log).toEqual(['cork a', 'send a', 'uncork a']);
  expect(seqs(a.socket)).toEqual([0, 1, 2]);
});

test('audiences: only the users named, minus omitted users; admin-only and non-admin-only copies', () => {
  const { hub, open } = setup();
  const admin = open('admin', 'system_admin system_user');
  const u1 = open('u1');
  const u2 = open('u2');
  const u3 = open('u3');
  hub.deliver(event({ audience: { kind: 'users', userIds: ['u1', 'u2', 'admin'] }, omitUsers: ['u2'] }));
  expect([admin.socket.sent.length, u1.socket.sent.length, u2.socket.sent.length, u3.socket.sent.length]).toEqual([1, 1, 0, 0]);
  hub.deliver(event({ audience: { kind: 'all' }, admins: true }));
  hub.deliver(event({ audience: { kind: 'all' }, admins: false }));
  expect([admin.socket.sent.length, u1.socket.sent.length, u2.socket.sent.length, u3.socket.sent.length]).toEqual([2, 2, 1, 1]);
});

test("posted's mentions: each mentioned recipient gets its own id, the others none", () => {
  const { hub, open } = setup();
  const u1 = open('u1');
  const u2 = open('u2');
  hub.deliver(event({ perRecipient: { mentioned: ['u2'] } }));
  expect(JSON.parse(u1.socket.sent[0]).data).not.toHaveProperty('mentions');
  expect(JSON.parse(JSON.parse(u2.socket.sent[0]).data.mentions)).toEqual(['u2']);
});

test('revoking sessions closes exactly their connections; revoking a user closes all of theirs', () => {
  const { hub, open } = setup();
  const one = open('u1', undefined, 'sa');
  const two = open('u1', undefined, 'sb');
  const other = open('u2');
  hub.revoke({ userId: 'u1', sessionIds: ['sa'] });
  expect([one.socket.terminated, two.socket.terminated, other.socket.terminated]).toEqual([true, false, false]);
  hub.revoke({ userId: 'u1' });
  expect(two.socket.terminated).toBe(true);
  hub.deliver(event());
  expect(two.socket.sent).toEqual([]);
});

test("presence: a user's first socket connects them, their last one disconnects them", () => {
  const { hub, open, presence } = setup();
  const a = open('u1');
  const b = open('u1');
  hub.detach(a.conn, a.socket as never);
  expect(presence).toEqual(['+u1']);
  hub.detach(b.conn, b.socket as never);
  expect(presence).toEqual(['+u1', '-u1']);
});

test('dropped connections are forgotten once the replay window has passed', () => {
  const { hub, open, advance } = setup();
  const a = open('u1');
  hub.detach(a.conn, a.socket as never);
  advance(30_000);
  hub.reap();
  expect(hub.find(a.conn.id, 'u1')).toBe(a.conn);
  advance(31_000);
  hub.reap();
  expect(hub.find(a.conn.id, 'u1')).toBeUndefined();
  expect(hub.active()).toBe(false);
});

describe('what one user can make the process hold (review round 3, H2)', () => {
  const bigPost = (n: number) => event({ data: { post: JSON.stringify({ message: `@u1 ${n}`, props: { pad: 'x'.repeat(50_000) } }) }, audience: { kind: 'users', userIds: ['u1', 'u2'] } });

  test("a mentioned user's copy of posted is built once per event, not once per connection, and its connections share it", () => {
    const { hub, open } = setup({ replay: 10 });
    const mine = Array.from({ length: 8 }, () => open('u1'));
    open('u2');
    open('u3');
    const stringify = jest.spyOn(JSON, 'stringify');
    const callsFor = (mentioned: string) => {
      stringify.mockClear();
      hub.deliver({ ...bigPost(1), audience: { kind: 'users', userIds: ['u1', 'u2', 'u3'] }, perRecipient: { mentioned: [mentioned] } });
      return stringify.mock.calls.length;
    };
    try {
      // Mentioning u1 (8 connections) costs what mentioning u3 (1 connection) costs: one variant per user.
      expect(callsFor('u1')).toBe(callsFor('u3'));
    } finally {
      stringify.mockRestore();
    }
    const frames = mine.map((m) => m.socket.sent[0]);
    expect(new Set(frames).size).toBe(1);
    expect(JSON.parse(JSON.parse(frames[0]).data.mentions)).toEqual(['u1']);
  });

  test('a replay ring is bounded in size: large events push the oldest out', () => {
    const { hub, open } = setup({ replay: 128, replayBytes: 200_000 });
    const a = open('u1');
    for (let i = 0; i < 20; i++) hub.deliver({ ...bigPost(i), perRecipient: { mentioned: ['u1'] } });
    expect(a.conn.sent.length).toBeLessThanOrEqual(200_000);
    expect(a.conn.sent.size).toBe(3);
    expect(hub.missedSince(a.conn, 17)?.map((f) => JSON.parse(f).seq)).toEqual([17, 18, 19]);
    expect(hub.missedSince(a.conn, 16)).toBeUndefined();
  });

  test('past the per-user cap, connections waiting to resume give way first (oldest first), then the live one attached longest ago', () => {
    const { hub, open, advance, presence } = setup({ perUser: 3 });
    const first = open('u1');
    const second = open('u1');
    const third = open('u1');
    const other = open('u2');
    hub.detach(second.conn, second.socket as never);
    advance(10);
    hub.detach(first.conn, first.socket as never);
    // second left first, so it goes first, although first was opened before it.
    const fourth = open('u1');
    expect(hub.find(second.conn.id, 'u1')).toBeUndefined();
    expect(hub.find(first.conn.id, 'u1')).toBe(first.conn);
    const fifth = open('u1');
    expect(hub.find(first.conn.id, 'u1')).toBeUndefined();
    // Now all three are live: the one attached longest ago (third) is closed, not the newcomer.
    const sixth = open('u1');
    expect(third.socket.terminated).toBe(true);
    expect(hub.find(third.conn.id, 'u1')).toBeUndefined();
    expect([fourth, fifth, sixth].map((c) => c.socket.terminated)).toEqual([false, false, false]);
    expect(hub.connectionsOf('u1')).toHaveLength(3);
    // Another user's connections are not touched, and the user never went offline meanwhile.
    expect(other.socket.terminated).toBe(false);
    expect(presence).toEqual(['+u1', '+u2']);
    // A resumed connection counts as recently attached: it is not the next to go.
    hub.detach(fourth.conn, fourth.socket as never);
    hub.reattach(fourth.conn, new FakeSocket() as never, session('u1'));
    open('u1');
    expect(fifth.socket.terminated).toBe(true);
    expect(hub.find(fourth.conn.id, 'u1')).toBe(fourth.conn);
  });

  test('a cap of 1: the new socket replaces the old one, and the user stays online', () => {
    const { hub, open, presence } = setup({ perUser: 1 });
    const a = open('u1');
    const b = open('u1');
    expect(a.socket.terminated).toBe(true);
    expect(b.socket.terminated).toBe(false);
    hub.deliver(event({ audience: { kind: 'users', userIds: ['u1'] } }));
    expect(b.socket.sent).toHaveLength(1);
    expect(presence).toEqual(['+u1']);
  });
});

test('typing is throttled per user and channel across all of their connections (review round 3, L9)', () => {
  const { hub, open } = setup();
  for (let i = 0; i < 50; i++) open('u1');
  open('u2');
  const claims = Array.from({ length: 50 }, () => hub.claimTyping('u1', 'c1', 5000, 1000));
  expect(claims.filter(Boolean)).toHaveLength(1);
  // Another channel, another user: their own slots.
  expect(hub.claimTyping('u1', 'c2', 5000, 1000)).toBe(true);
  expect(hub.claimTyping('u2', 'c1', 5000, 1000)).toBe(true);
  expect(hub.claimTyping('u1', 'c1', 5999, 1000)).toBe(false);
  expect(hub.claimTyping('u1', 'c1', 6000, 1000)).toBe(true);
  // A claim given back (the permission check failed) can be made again at once.
  hub.releaseTyping('u2', 'c1');
  expect(hub.claimTyping('u2', 'c1', 5001, 1000)).toBe(true);
  // A user with no connection here has nothing to claim with.
  expect(hub.claimTyping('nobody', 'c1', 5000, 1000)).toBe(false);
});

test('roles carried by an event apply to every connection of the user (live and resumable) before the event is sent (review round 3, M2)', () => {
  const { hub, open } = setup();
  const live = open('u1', 'system_admin system_user');
  const away = open('u1', 'system_admin system_user');
  hub.detach(away.conn, away.socket as never);
  const told: string[] = [];
  hub.onRolesChanged = (userId) => told.push(userId);
  hub.deliver(event({ event: 'user_role_updated', data: { user_id: 'u1', roles: 'system_user' }, audience: { kind: 'users', userIds: ['u1'] }, rolesChanged: { userId: 'u1', roles: 'system_user' } }));
  expect([live.conn.session.roles, away.conn.session.roles]).toEqual(['system_user', 'system_user']);
  expect(told).toEqual(['u1']);
  hub.deliver(event({ event: 'config_changed', audience: { kind: 'all' }, admins: true }));
  hub.deliver(event({ event: 'config_changed', audience: { kind: 'all' }, admins: false }));
  expect(live.socket.sent.map((f) => JSON.parse(f).event)).toEqual(['user_role_updated', 'config_changed']);
  // The resumable connection recorded the non-admin copy only.
  expect(hub.missedSince(away.conn, 0)?.length).toBe(2);
});
