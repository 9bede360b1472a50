// Who receives each real-time event is a permission decision: event × audience, asserting both who gets it and who
// does not. Runs on SQLite and (in CI's second pass) on MariaDB: audiences are read from the database.
import { NAMES, audience, createAudienceWorld, type Name } from '../support/audience';
import { createUser, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { connect, postOf, type Frame, type Socket } from '../support/ws';

let server: TestServer;
let world: World;
let admin: Actor;
let alice: Actor;
let bob: Actor;
let carol: Actor;
let dave: Actor;
let privateId: string;
let dmId: string;
const { sockets, connectAll, expectAudience, expectNoProblems, closeAll } = audience();
let seq = 0;

beforeAll(async () => {
  server = await startTestServer();
  ({ world, admin, alice, bob, carol, dave } = await createAudienceWorld(server, `elsewhere${process.pid}`));
  privateId = (await admin.api.post('/api/v4/channels', { team_id: world.teamId, name: `secret${process.pid}`, display_name: 'Secret', type: 'P' }).expect(201)).body.id;
  await admin.api.post(`/api/v4/channels/${privateId}/members`, { user_id: alice.id }).expect(201);
  dmId = (await alice.api.post('/api/v4/channels/direct', [alice.id, dave.id]).expect(201)).body.id;
  await connectAll(server, { admin, alice, bob, carol, dave });
});
afterAll(async () => {
  await closeAll();
  await server.close();
});
afterEach(() => expectNoProblems());

const unique = (m: string) => `${m} ${++seq}`;
const posted = (message: string) => (f: Frame) => f.event === 'posted' && postOf(f).message === message;

describe('posts', () => {
  test('posted in a public channel: its members (everyone on the team), not another team', async () => {
    const m = unique('public');
    const got = await expectAudience(() => alice.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: m }).expect(201), posted(m), ['admin', 'alice', 'bob', 'dave']);
    expect(got.get('bob')?.data).toMatchObject({ channel_type: 'O', channel_name: 'town-square', team_id: world.teamId, sender_name: `@${alice.username}`, set_online: true });
  });

  test('posted in a private channel: its members only, not a team member outside it, not even... (a system admin who is a member gets it)', async () => {
    const m = unique('private');
    await expectAudience(() => alice.api.post('/api/v4/posts', { channel_id: privateId, message: m }).expect(201), posted(m), ['admin', 'alice']);
  });

  test('posted in a direct channel: its two members, not a system admin', async () => {
    const m = unique('dm');
    const got = await expectAudience(() => alice.api.post('/api/v4/posts', { channel_id: dmId, message: m }).expect(201), posted(m), ['alice', 'dave']);
    expect(got.get('dave')?.data).toMatchObject({ channel_type: 'D', team_id: '', channel_display_name: `@${alice.username}` });
  });

  test('a webhook post in a private channel: its members only; each part of a split message', async () => {
    const hook = (await admin.api.post('/api/v4/hooks/incoming', { channel_id: privateId, display_name: 'ci' }).expect(201)).body.id;
    const m = unique('split').padEnd(16383 + 10, 'x');
    const parts = (f: Frame) => f.event === 'posted' && postOf(f).channel_id === privateId && postOf(f).props?.from_webhook === 'true';
    const marks = new Map([...sockets].map(([n, s]) => [n, s.events.length]));
    const res = await fetch(`${server.url}/hooks/${hook}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: m }) });
    expect(res.status).toBe(200);
    for (const n of ['admin', 'alice'] as Name[]) {
      const s = sockets.get(n) as Socket;
      await s.next((f) => parts(f) && postOf(f).message.length === 10, { from: marks.get(n) });
      const received = s.events.slice(marks.get(n)).filter(parts);
      expect(received.map((f) => postOf(f).message.length)).toEqual([16383, 10]);
      expect(received[0].data?.set_online).toBe(false);
    }
    // A fixed grace on purpose: the claim is that nothing arrives elsewhere.
    await new Promise((r) => setTimeout(r, 100));
    for (const n of ['bob', 'carol', 'dave'] as Name[]) expect((sockets.get(n) as Socket).events.slice(marks.get(n)).some(parts)).toBe(false);
  });

  test('mentions: only a mentioned recipient is told, and only of itself', async () => {
    const m = unique(`hey @${bob.username} and @${dave.username}`);
    const got = await expectAudience(() => alice.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: m }).expect(201), posted(m), ['admin', 'alice', 'bob', 'dave']);
    expect(JSON.parse(got.get('bob')?.data?.mentions)).toEqual([bob.id]);
    expect(JSON.parse(got.get('dave')?.data?.mentions)).toEqual([dave.id]);
    expect(got.get('admin')?.data).not.toHaveProperty('mentions');
    expect(got.get('alice')?.data).not.toHaveProperty('mentions');
  });

  test('post_edited and post_deleted in a private channel: its members; who deleted it goes to system admins only', async () => {
    const m = unique('edit me');
    const id = (await alice.api.post('/api/v4/posts', { channel_id: privateId, message: m }).expect(201)).body.id;
    const edited = await expectAudience(() => alice.api.put(`/api/v4/posts/${id}/patch`, { message: `${m} (edited)` }).expect(200), (f) => f.event === 'post_edited' && postOf(f).id === id, ['admin', 'alice']);
    expect(postOf(edited.get('admin') as Frame).message).toBe(`${m} (edited)`);
    const marks = new Map([...sockets].map(([n, s]) => [n, s.events.length]));
    await alice.api.delete(`/api/v4/posts/${id}`).expect(200);
    const adminCopy = await (sockets.get('admin') as Socket).next((f) => f.event === 'post_deleted' && postOf(f).id === id, { from: marks.get('admin') });
    const aliceCopy = await (sockets.get('alice') as Socket).next((f) => f.event === 'post_deleted' && postOf(f).id === id, { from: marks.get('alice') });
    expect(adminCopy.data?.delete_by).toBe(alice.id);
    expect(adminCopy.broadcast?.contains_sensitive_data).toBe(true);
    expect(aliceCopy.data).not.toHaveProperty('delete_by');
    // A fixed grace on purpose: the claim is that no second copy and no other recipient comes.
    await new Promise((r) => setTimeout(r, 100));
    expect((sockets.get('admin') as Socket).events.slice(marks.get('admin')).filter((f) => f.event === 'post_deleted')).toHaveLength(1);
    for (const n of ['bob', 'carol', 'dave'] as Name[]) expect((sockets.get(n) as Socket).events.slice(marks.get(n)).some((f) => f.event === 'post_deleted')).toBe(false);
  });
});

describe('reactions, pins and updates', () => {
  const reactionOf = (f: Frame) => JSON.parse(f.data?.reaction as string) as Record<string, any>;

  test('reaction_added and reaction_removed in a private channel: its members, not a team member outside it', async () => {
    const id = (await alice.api.post('/api/v4/posts', { channel_id: privateId, message: unique('react to me') }).expect(201)).body.id;
    const added = await expectAudience(
      () => alice.api.post('/api/v4/reactions', { user_id: alice.id, post_id: id, emoji_name: '+1' }).expect(200),
      (f) => f.event === 'reaction_added' && reactionOf(f).post_id === id,
      ['admin', 'alice'],
    );
    const frame = added.get('admin') as Frame;
    expect(frame.broadcast).toMatchObject({ channel_id: privateId, user_id: '', team_id: '' });
    expect(reactionOf(frame)).toMatchObject({ user_id: alice.id, post_id: id, emoji_name: '+1', channel_id: privateId, delete_at: 0 });
    const removed = await expectAudience(
      () => alice.api.delete(`/api/v4/users/me/posts/${id}/reactions/+1`).expect(200),
      (f) => f.event === 'reaction_removed' && reactionOf(f).post_id === id,
      ['admin', 'alice'],
    );
    expect(reactionOf(removed.get('alice') as Frame)).toMatchObject({ user_id: alice.id, emoji_name: '+1', delete_at: expect.any(Number) });
    expect(reactionOf(removed.get('alice') as Frame).delete_at).toBeGreaterThan(0);
  });

  test('reactions in a direct channel: its two members only, not a system admin', async () => {
    const id = (await dave.api.post('/api/v4/posts', { channel_id: dmId, message: unique('dm') }).expect(201)).body.id;
    await expectAudience(
      () => alice.api.post('/api/v4/reactions', { user_id: alice.id, post_id: id, emoji_name: 'heart' }).expect(200),
      (f) => f.event === 'reaction_added' && reactionOf(f).post_id === id,
      ['alice', 'dave'],
    );
  });

  test('pin, unpin and UpdatePost publish post_edited to the channel: the post as it is now, with its reactions', async () => {
    const id = (await alice.api.post('/api/v4/posts', { channel_id: privateId, message: unique('pin me') }).expect(201)).body.id;
    await alice.api.post('/api/v4/reactions', { user_id: alice.id, post_id: id, emoji_name: 'pushpin' }).expect(200);
    const edited = (f: Frame) => f.event === 'post_edited' && postOf(f).id === id;
    const pinned = await expectAudience(() => admin.api.post(`/api/v4/posts/${id}/pin`).expect(200), (f) => edited(f) && postOf(f).is_pinned === true, ['admin', 'alice']);
    expect(postOf(pinned.get('alice') as Frame)).toMatchObject({ has_reactions: true, metadata: { reactions: [expect.objectContaining({ emoji_name: 'pushpin' })] } });
    await expectAudience(() => alice.api.post(`/api/v4/posts/${id}/unpin`).expect(200), (f) => edited(f) && postOf(f).is_pinned === false, ['admin', 'alice']);
    const m = unique('updated');
    await expectAudience(() => alice.api.put(`/api/v4/posts/${id}`, { id, message: m }).expect(200), (f) => edited(f) && postOf(f).message === m, ['admin', 'alice']);
  });
});

describe('channels and teams', () => {
  test('typing in a private channel: its other members, never the typer', async () => {
    const typing = (f: Frame) => f.event === 'typing' && f.data?.user_id === alice.id && f.broadcast?.channel_id === privateId;
    await expectAudience(async () => (sockets.get('alice') as Socket).send('user_typing', { channel_id: privateId, parent_id: '' }), typing, ['admin']);
  });

  test('viewing a channel: the viewer only (channel_viewed and multiple_channels_viewed)', async () => {
    const viewed = (f: Frame) => f.event === 'multiple_channels_viewed' && privateId in (f.data?.channel_times ?? {});
    await expectAudience(() => alice.api.post('/api/v4/channels/members/me/view', { channel_id: privateId }).expect(200), viewed, ['alice']);
    expect((sockets.get('alice') as Socket).events.some((f) => f.event === 'channel_viewed' && f.data?.channel_id === privateId)).toBe(true);
  });

  test('channel_created: the creator only', async () => {
    let id = '';
    await expectAudience(
      async () => (id = (await alice.api.post('/api/v4/channels', { team_id: world.teamId, name: `new${++seq}x${process.pid}`, display_name: 'N', type: 'O' }).expect(201)).body.id),
      (f) => f.event === 'channel_created' && f.data?.channel_id === id,
      ['alice'],
    );
  });

  test('direct_added: the two users of a new direct channel only', async () => {
    let id = '';
    await expectAudience(async () => (id = (await bob.api.post('/api/v4/channels/direct', [bob.id, dave.id]).expect(201)).body.id), (f) => f.event === 'direct_added' && f.broadcast?.channel_id === id, ['bob', 'dave']);
  });

  test("user_added and user_removed: the channel's members and the user; once removed, the user gets none of its events", async () => {
    const added = (f: Frame) => f.event === 'user_added' && f.data?.user_id === bob.id && f.data?.team_id === world.teamId;
    await expectAudience(() => admin.api.post(`/api/v4/channels/${privateId}/members`, { user_id: bob.id }).expect(201), added, ['admin', 'alice', 'bob']);
    const m1 = unique('bob can read this');
    await expectAudience(() => alice.api.post('/api/v4/posts', { channel_id: privateId, message: m1 }).expect(201), posted(m1), ['admin', 'alice', 'bob']);
    const removed = (f: Frame) => f.event === 'user_removed' && (f.data?.user_id === bob.id || f.data?.channel_id === privateId);
    const got = await expectAudience(() => admin.api.delete(`/api/v4/channels/${privateId}/members/${bob.id}`).expect(200), removed, ['admin', 'alice', 'bob']);
    expect(got.get('bob')?.data).toEqual({ channel_id: privateId, remover_id: admin.id });
    expect(got.get('alice')?.data).toEqual({ user_id: bob.id, remover_id: admin.id });
    // At once: the very next post in the channel is not delivered to the removed user.
    const m2 = unique('bob must not see this');
    await expectAudience(() => alice.api.post('/api/v4/posts', { channel_id: privateId, message: m2 }).expect(201), posted(m2), ['admin', 'alice']);
  });

  test('added_to_team: the added user only (and user_added for the default channels it joined, to their members)', async () => {
    const fresh = await createUser(server, admin);
    const s = await connect(server.url, { token: fresh.token });
    try {
      await admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: fresh.id }).expect(201);
      await s.next((f) => f.event === 'added_to_team' && f.data?.team_id === world.teamId);
      await (sockets.get('alice') as Socket).next((f) => f.event === 'user_added' && f.data?.user_id === fresh.id && f.broadcast?.channel_id === world.townSquareId);
      // A fixed grace on purpose: the claim is that the others get nothing.
      await new Promise((r) => setTimeout(r, 100));
      for (const n of NAMES) expect((sockets.get(n) as Socket).events.some((f) => f.event === 'added_to_team' && f.data?.user_id === fresh.id)).toBe(false);
      expect((sockets.get('carol') as Socket).events.some((f) => f.event === 'user_added' && f.data?.user_id === fresh.id)).toBe(false);
    } finally {
      await s.close();
    }
  });
});

describe('users and the server', () => {
  test('new_user: everyone connected', async () => {
    let id = '';
    await expectAudience(async () => (id = (await createUser(server, admin)).id), (f) => f.event === 'new_user' && f.data?.user_id === id, [...NAMES]);
  });

  test('user_updated: system admins see what admins see, others what privacy allows, the user their own profile', async () => {
    await admin.api.put('/api/v4/config/patch', { PrivacySettings: { ShowEmailAddress: false } }).expect(200);
    try {
      const nick = unique('nick').replace(' ', '');
      const updated = (f: Frame) => f.event === 'user_updated' && f.data?.user?.id === dave.id && f.data?.user?.nickname === nick;
      const got = await expectAudience(() => dave.api.put('/api/v4/users/me/patch', { nickname: nick }).expect(200), updated, [...NAMES]);
      expect(got.get('admin')?.data?.user.email).toBe(`${dave.username}@example.com`);
      expect(got.get('bob')?.data?.user.email).toBe('');
      expect(got.get('dave')?.data?.user.email).toBe(`${dave.username}@example.com`);
      expect(got.get('dave')?.data?.user.notify_props).not.toEqual({});
      expect(got.get('bob')?.data?.user.notify_props).toEqual({});
      for (const f of got.values()) expect(JSON.stringify(f)).not.toMatch(/argon2|"password"/);
    } finally {
      await admin.api.put('/api/v4/config/patch', { PrivacySettings: { ShowEmailAddress: true } }).expect(200);
    }
  });

  test('config_changed: system admins only', async () => {
    await expectAudience(() => admin.api.put('/api/v4/config/patch', { TeamSettings: { MaxNotificationsPerChannel: 999 } }).expect(200), (f) => f.event === 'config_changed', ['admin']);
    await admin.api.put('/api/v4/config/patch', { TeamSettings: { MaxNotificationsPerChannel: 1000 } }).expect(200);
  });

  test('status_change: the user only', async () => {
    await expectAudience(() => bob.api.put('/api/v4/users/me/status', { user_id: bob.id, status: 'dnd' }).expect(200), (f) => f.event === 'status_change' && f.data?.user_id === bob.id && f.data?.status === 'dnd', ['bob']);
    await bob.api.put('/api/v4/users/me/status', { status: 'online' }).expect(200);
  });
});

describe('preferences', () => {
  const about = (event: string, name: string) => (f: Frame) => f.event === event && (JSON.parse(f.data?.preferences as string) as Array<{ name: string }>).some((p) => p.name === name);

  test('preferences_changed and preferences_deleted: the user only, also when an admin changes them', async () => {
    const name = `aud${++seq}`;
    const body = [{ user_id: alice.id, category: 'display_settings', name, value: 'x' }];
    await expectAudience(() => admin.api.put(`/api/v4/users/${alice.id}/preferences`, body).expect(200), about('preferences_changed', name), ['alice']);
    await expectAudience(() => alice.api.post('/api/v4/users/me/preferences/delete', body).expect(200), about('preferences_deleted', name), ['alice']);
  });
});
