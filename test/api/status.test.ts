// Presence through @mattermost/client's Client4 (getStatus, getStatusesByIds, updateStatus), as the apps drive it,
// against a real server and a real WebSocket on the run's database: online by activity, away after a quiet spell,
// offline when the last socket closes, a chosen status kept until changed, a timed dnd that ends by itself.
import type { Client4 } from '@mattermost/client';
import { expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { eventually } from '../support/eventually';
import { PASSWORD, atTime, createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { connect, type Socket } from '../support/ws';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;
const sockets: Socket[] = [];

async function client(as: Actor): Promise<Client4> {
  const c = client4For(server);
  await c.login(as.username, PASSWORD);
  return c;
}

async function socketOf(as: Actor): Promise<Socket> {
  const s = await connect(server.url, { token: as.token });
  sockets.push(s);
  return s;
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
});
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await server.close();
});

/** The away timeout (TeamSettings.UserStatusAwayTimeout, 300 s by default) in milliseconds. */
const awayAfterMs = () => server.parley.app.deps.config.get().TeamSettings.UserStatusAwayTimeout * 1000;

test('a user never seen is offline; a socket makes them online, a quiet spell away, closing it offline', async () => {
  const al = await client(alice);
  // Logging in through REST is not presence in Mattermost: only activity that says the user is here.
  expect(await al.getStatus(bob.id)).toEqual({ user_id: bob.id, status: 'offline', manual: false, last_activity_at: 0, dnd_end_time: 0 });

  const s = await socketOf(bob);
  const online = await eventually(async () => {
    const st = await al.getStatus(bob.id);
    expect(st.status).toBe('online');
    return st;
  });
  expect(online.manual).toBe(false);
  expect(online.last_activity_at).toBeGreaterThan(Date.now() - 60_000);

  // Away is worked out when the status is read: nothing is written for it.
  const later = (online.last_activity_at ?? 0) + awayAfterMs() + 1;
  expect((await atTime(server, later, () => al.getStatus(bob.id))).status).toBe('away');

  await s.close();
  await eventually(async () => expect((await al.getStatus(bob.id)).status).toBe('offline'));
});

test('a chosen status stays through activity and when the socket closes; a timed dnd ends by itself', async () => {
  const b = await client(bob);
  const al = await client(alice);
  const s = await socketOf(bob);
  await eventually(async () => expect((await al.getStatus(bob.id)).status).toBe('online'));

  const end = Math.floor(Date.now() / 1000) + 3600;
  const dnd = await b.updateStatus({ user_id: bob.id, status: 'dnd', dnd_end_time: end } as never);
  expect(dnd).toMatchObject({ user_id: bob.id, status: 'dnd', manual: true, dnd_end_time: end });

  // More activity (a second socket, a post that sets online) does not replace a status the user chose.
  const s2 = await socketOf(bob);
  const team = await (await client(admin)).createTeam({ name: `st${process.pid}x${Date.now()}`, display_name: 'Status', type: 'O' } as never);
  await (await client(admin)).addToTeam(team.id, bob.id);
  const town = await b.getChannelByName(team.id, 'town-square');
  await b.createPost({ channel_id: town.id, message: 'still here' } as never);
  expect((await al.getStatus(bob.id)).status).toBe('dnd');

  // The dnd ends at its end time: the status it replaced (online) comes back, unchosen.
  const after = await atTime(server, (end + 1) * 1000, () => al.getStatus(bob.id));
  expect(after).toMatchObject({ status: 'online', manual: false, dnd_end_time: 0 });

  // Away chosen by hand survives the last socket closing (only an unchosen status goes offline).
  await b.updateStatus({ user_id: bob.id, status: 'away' } as never);
  // The server handles the last close after the socket is gone: wait for that handling itself, then look.
  const disconnected = jest.spyOn(server.parley.app.status, 'disconnected');
  try {
    await s.close();
    await s2.close();
    await eventually(() => expect(disconnected).toHaveBeenCalledWith(bob.id));
    await disconnected.mock.results[0].value;
  } finally {
    disconnected.mockRestore();
  }
  expect(await al.getStatus(bob.id)).toMatchObject({ status: 'away', manual: true });

  // Online is never "chosen": activity keeps it and the last socket closing ends it.
  const o = await b.updateStatus({ user_id: bob.id, status: 'online' } as never);
  expect(o).toMatchObject({ status: 'online', manual: false });
});

test('getStatusesByIds answers one status per user asked, offline for those never seen', async () => {
  const al = await client(alice);
  const fresh = await createUser(server, admin);
  const s = await socketOf(fresh);
  await eventually(async () => expect((await al.getStatus(fresh.id)).status).toBe('online'));
  const list = await al.getStatusesByIds([fresh.id, admin.id]);
  expect(new Map(list.map((x) => [x.user_id, x.status]))).toEqual(
    new Map([
      [fresh.id, 'online'],
      [admin.id, 'offline'],
    ]),
  );
  await s.close();
  await expectClientError(al.getStatusesByIds(['not-an-id']), 400, 'api.context.invalid_param.app_error');
});

test('a user sets only their own status; an admin may set anyone’s; the status is one Mattermost knows', async () => {
  const al = await client(alice);
  const a = await client(admin);
  await expectClientError(al.updateStatus({ user_id: bob.id, status: 'dnd' } as never), 403);
  expect((await al.getStatus(bob.id)).status).not.toBe('dnd');
  await expectClientError(al.updateStatus({ user_id: alice.id, status: 'busy' } as never), 400);
  await expectClientError(al.updateStatus({ user_id: alice.id, status: 'dnd', dnd_end_time: -1 } as never), 400);
  const set = await a.updateStatus({ user_id: bob.id, status: 'offline' } as never);
  expect(set).toMatchObject({ user_id: bob.id, status: 'offline', manual: true });
  expect((await al.getStatus(bob.id)).status).toBe('offline');
});

test('a reconnect storm: every socket of many users sets its user online', async () => {
  const users = await Promise.all(Array.from({ length: 30 }, () => createUser(server, admin)));
  const opened = await Promise.all(users.map((u) => connect(server.url, { token: u.token })));
  sockets.push(...opened);
  const al = await client(alice);
  await eventually(async () => {
    const list = await al.getStatusesByIds(users.map((u) => u.id));
    expect(list.filter((x) => x.status === 'online')).toHaveLength(users.length);
  });
  await Promise.all(opened.map((s) => s.close()));
  await eventually(async () => {
    const list = await al.getStatusesByIds(users.map((u) => u.id));
    expect(list.filter((x) => x.status === 'offline')).toHaveLength(users.length);
  });
});

test('activity that arrives together is written together: one transaction serves many users, in the order asked', async () => {
  const users = await Promise.all(Array.from({ length: 40 }, () => createUser(server, admin)));
  const { status } = server.parley.app;
  const before = { ...status.writes.stats };
  await Promise.all(users.map((u) => status.activity(u.id, true)));
  const items = status.writes.stats.items - before.items;
  const transactions = status.writes.stats.transactions - before.transactions;
  expect(items).toBe(users.length);
  expect(transactions).toBeLessThan(users.length / 2);
  expect((await status.getMany(users.map((u) => u.id))).every((s) => s.status === 'online')).toBe(true);

  // A status chosen while activity is being written is the one that stays.
  const [u] = await Promise.all(Array.from({ length: 1 }, () => createUser(server, admin)));
  const session = { userId: u.id } as never;
  await Promise.all([status.activity(u.id, true), status.update(u.id, { status: 'dnd' }, session)]);
  expect((await status.get(u.id)).status).toBe('dnd');
});

test('a socket closing as another opens leaves the user online: one user’s status changes apply in order', async () => {
  const u = await createUser(server, admin);
  const al = await client(alice);
  const { status } = server.parley.app;
  let current = await socketOf(u);
  await eventually(async () => expect((await al.getStatus(u.id)).status).toBe('online'));
  const disconnected = jest.spyOn(status, 'disconnected');
  const activity = jest.spyOn(status, 'activity');
  try {
    for (let i = 0; i < 5; i++) {
      disconnected.mockClear();
      activity.mockClear();
      // The old socket goes and, while the server is still writing "offline", the new one comes.
      await current.close();
      await eventually(() => expect(disconnected).toHaveBeenCalledWith(u.id));
      current = await socketOf(u);
      await eventually(() => expect(activity).toHaveBeenCalledWith(u.id, true));
      await Promise.all([...disconnected.mock.results, ...activity.mock.results].map((r) => r.value));
      expect((await al.getStatus(u.id)).status).toBe('online');
    }
  } finally {
    disconnected.mockRestore();
    activity.mockRestore();
  }
});
