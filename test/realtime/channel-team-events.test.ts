// Who receives the events of channel, team and role changes (channel_updated, channel_deleted, channel_restored,
// channel_member_updated, user_role_updated, update_team, leave_team): both who gets each and who does not. Runs on
// SQLite and on MariaDB: audiences are read from the database.
import { NAMES, audience, createAudienceWorld } from '../support/audience';
import { createUser, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { connect, type Frame, type Socket } from '../support/ws';

let server: TestServer;
let world: World;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let carol: Actor;
let dave: Actor;
const { sockets, connectAll, expectAudience, expectNoProblems, closeAll } = audience();
let seq = 0;
const unique = (p: string) => `${p}${process.pid}e${++seq}`;

beforeAll(async () => {
  server = await startTestServer();
  ({ world, admin, alice, bob, carol, dave } = await createAudienceWorld(server, unique('elsewhere')));
  await connectAll(server, { admin, alice, bob, carol, dave });
});
afterAll(async () => {
  await closeAll();
  await server.close();
});
afterEach(() => expectNoProblems());

/** A channel of the world's team created by Alice, with `others` added. */
async function channel(type: 'O' | 'P', others: Actor[] = []): Promise<{ id: string; name: string }> {
  const c = (await alice.api.post('/api/v4/channels', { team_id: world.teamId, name: unique('c'), display_name: 'C', type }).expect(201)).body;
  for (const u of others) await alice.api.post(`/api/v4/channels/${c.id}/members`, { user_id: u.id }).expect(201);
  return c;
}

const channelOf = (f: Frame) => (typeof f.data?.channel === 'string' ? JSON.parse(f.data.channel) : undefined);

describe('channel_updated', () => {
  test('a private channel: its members (a system admin outside it does not get it)', async () => {
    const c = await channel('P', [bob]);
    const got = await expectAudience(
      () => alice.api.put(`/api/v4/channels/${c.id}/patch`, { header: 'new header' }).expect(200),
      (f) => f.event === 'channel_updated' && channelOf(f)?.id === c.id,
      ['alice', 'bob'],
    );
    expect(channelOf(got.get('bob') as Frame)).toMatchObject({ id: c.id, header: 'new header', type: 'P' });
    expect(got.get('bob')?.broadcast).toMatchObject({ channel_id: c.id, team_id: '', user_id: '' });
  });

  test('a public channel: its members only, not the team mates outside it (as Mattermost broadcasts it)', async () => {
    const c = await channel('O', [dave]);
    await expectAudience(
      () => alice.api.put(`/api/v4/channels/${c.id}`, { id: c.id, display_name: 'Renamed', header: '', purpose: '' }).expect(200),
      (f) => f.event === 'channel_updated' && channelOf(f)?.id === c.id && channelOf(f)?.display_name === 'Renamed',
      ['alice', 'dave'],
    );
  });
});

describe('channel_deleted and channel_restored', () => {
  test('a public channel: everyone on the team, members of the channel or not; not another team', async () => {
    const c = await channel('O');
    const got = await expectAudience(() => alice.api.delete(`/api/v4/channels/${c.id}`).expect(200), (f) => f.event === 'channel_deleted' && f.data?.channel_id === c.id, ['admin', 'alice', 'bob', 'dave']);
    const frame = got.get('bob') as Frame;
    expect(frame.data?.delete_at).toBeGreaterThan(0);
    expect(frame.broadcast).toMatchObject({ team_id: world.teamId, channel_id: '' });
    await expectAudience(() => admin.api.post(`/api/v4/channels/${c.id}/restore`).expect(200), (f) => f.event === 'channel_restored' && f.data?.channel_id === c.id, ['admin', 'alice', 'bob', 'dave']);
  });

  test('a private channel: its members only', async () => {
    const c = await channel('P', [dave]);
    const got = await expectAudience(() => alice.api.delete(`/api/v4/channels/${c.id}`).expect(200), (f) => f.event === 'channel_deleted' && f.data?.channel_id === c.id, ['alice', 'dave']);
    expect(got.get('dave')?.broadcast).toMatchObject({ channel_id: c.id, team_id: '' });
    await expectAudience(() => admin.api.post(`/api/v4/channels/${c.id}/restore`).expect(200), (f) => f.event === 'channel_restored' && f.data?.channel_id === c.id, ['alice', 'dave']);
  });

  test('a refused archive sends nothing', async () => {
    await expectAudience(() => bob.api.delete(`/api/v4/channels/${world.townSquareId}`).expect(400), (f) => f.event === 'channel_deleted', []);
  });
});

describe('channel_member_updated and user_role_updated', () => {
  test('channel_member_updated: the member whose roles changed, not who changed them', async () => {
    const c = await channel('P', [bob]);
    const got = await expectAudience(
      () => alice.api.put(`/api/v4/channels/${c.id}/members/${bob.id}/roles`, { roles: 'channel_user channel_admin' }).expect(200),
      (f) => f.event === 'channel_member_updated',
      ['bob'],
    );
    expect(JSON.parse(got.get('bob')?.data?.channelMember)).toMatchObject({ channel_id: c.id, user_id: bob.id, roles: 'channel_user channel_admin', scheme_admin: true });
    expect(got.get('bob')?.broadcast).toMatchObject({ user_id: bob.id });
  });

  test('user_role_updated: the user only', async () => {
    const got = await expectAudience(
      () => admin.api.put(`/api/v4/users/${dave.id}/roles`, { roles: 'system_user system_user_access_token' }).expect(200),
      (f) => f.event === 'user_role_updated',
      ['dave'],
    );
    expect(got.get('dave')?.data).toEqual({ user_id: dave.id, roles: 'system_user system_user_access_token' });
    await admin.api.put(`/api/v4/users/${dave.id}/roles`, { roles: 'system_user' }).expect(200);
  });
});

describe('update_team and leave_team', () => {
  test("update_team: the team's members, without its email and invite id (even for its admins); not another team", async () => {
    const got = await expectAudience(
      () => admin.api.put(`/api/v4/teams/${world.teamId}/patch`, { description: 'Our team' }).expect(200),
      (f) => f.event === 'update_team',
      ['admin', 'alice', 'bob', 'dave'],
    );
    for (const f of got.values()) {
      expect(JSON.parse(f.data?.team)).toMatchObject({ id: world.teamId, description: 'Our team', email: '', invite_id: '' });
      expect(f.broadcast).toMatchObject({ team_id: world.teamId });
    }
  });

  test('leave_team: the remaining members and the user who left; their channels send no user_removed', async () => {
    const fresh = await createUser(server, admin);
    await admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: fresh.id }).expect(201);
    const c = await channel('P', [fresh]);
    const s = await connect(server.url, { token: fresh.token });
    try {
      const mark = s.events.length;
      const isLeave = (f: Frame) => f.event === 'leave_team' && f.data?.user_id === fresh.id;
      const got = await expectAudience(() => fresh.api.delete(`/api/v4/teams/${world.teamId}/members/me`).expect(200), isLeave, ['admin', 'alice', 'bob', 'dave']);
      expect(got.get('alice')?.data).toEqual({ team_id: world.teamId, user_id: fresh.id });
      expect(got.get('alice')?.broadcast).toMatchObject({ team_id: world.teamId, omit_users: { [fresh.id]: true } });
      const own = await s.next(isLeave, { from: mark });
      expect(own.broadcast).toMatchObject({ user_id: fresh.id });
      await s.none((f) => f.event === 'user_removed', 200, mark);
      for (const n of NAMES) expect((sockets.get(n) as Socket).events.some((f) => f.event === 'user_removed' && f.data?.user_id === fresh.id)).toBe(false);
      // Gone from the channel at once: its next post does not reach them.
      const m = unique('after leaving');
      await alice.api.post('/api/v4/posts', { channel_id: c.id, message: m }).expect(201);
      await (sockets.get('alice') as Socket).next((f) => f.event === 'posted' && JSON.parse(f.data?.post).message === m);
      await s.none((f) => f.event === 'posted', 200, mark);
    } finally {
      await s.close();
    }
  });
});
