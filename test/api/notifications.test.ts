// Who is notified of what (issue #24), through the API: the user's notify_props (PatchUser) and a membership's
// (UpdateChannelNotifyProps, through Client4 as the apps call it), and the one rule (notify-rules.ts) deciding the
// mention counts and the `posted` event's `mentions` for API posts and webhook posts alike.
import { client4For } from '../support/client4';
import { createUser, createTeam, startTestServer, type Actor, type TestServer } from '../support/server';
import { connect, postOf, type Socket } from '../support/ws';
import { createHook, expectOk, postJson } from '../webhooks/hooks-support';

let server: TestServer;
let sysadmin: Actor;
let alice: Actor;
let bob: Actor;
let carol: Actor;
let teamId: string;
let seq = 0;

async function channelWith(members: Actor[]): Promise<string> {
  const name = `notify-${++seq}`;
  const res = await alice.api.post('/api/v4/channels', { team_id: teamId, name, display_name: name, type: 'O' }).expect(201);
  const others = members.filter((m) => m.id !== alice.id);
  if (others.length) await alice.api.post(`/api/v4/channels/${res.body.id}/members`, { user_ids: others.map((m) => m.id) }).expect(201);
  return res.body.id;
}

async function say(as: Actor, channelId: string, message: string, rootId = ''): Promise<{ id: string }> {
  return (await as.api.post('/api/v4/posts', { channel_id: channelId, message, root_id: rootId }).expect(201)).body;
}

/** mention_count per user, read from the store (the API hides other users' counts). */
async function mentionCounts(channelId: string, users: Actor[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const u of users) out[u.username] = (await server.parley.app.deps.stores.channels.getMember(channelId, u.id))?.mention_count ?? -1;
  return out;
}
const counts = (entries: Array<[Actor, number]>) => Object.fromEntries(entries.map(([u, n]) => [u.username, n]));

const setNotifyProps = (who: Actor, props: Record<string, string>) => who.api.put(`/api/v4/users/${who.id}/patch`, { notify_props: props }).expect(200);
const setConfig = (patch: Record<string, unknown>) => sysadmin.api.put('/api/v4/config/patch', patch).expect(200);

/** Posts through an incoming webhook of `creator` into the channel. */
async function hookSay(creator: Actor, channelId: string, text: string): Promise<void> {
  const hook = await createHook(creator, { channel_id: channelId });
  expectOk(await postJson(server, hook.id, { text }));
}

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  alice = await createUser(server, sysadmin);
  bob = await createUser(server, sysadmin);
  carol = await createUser(server, sysadmin);
  teamId = await createTeam(alice, 'notify-team', [bob, carol, sysadmin]);
});
afterAll(() => server.close());

describe('UpdateChannelNotifyProps', () => {
  test('Client4 changes the given keys, keeps the others, and the member reads them back', async () => {
    const ch = await channelWith([alice, bob]);
    const client = client4For(server, bob);
    await expect(client.updateChannelNotifyProps({ channel_id: ch, user_id: bob.id, desktop: 'none', mark_unread: 'mention' })).resolves.toEqual({ status: 'OK' });
    const member = (await bob.api.get(`/api/v4/channels/${ch}/members/${bob.id}`).expect(200)).body;
    expect(member.notify_props).toEqual({ desktop: 'none', push: 'default', email: 'default', mark_unread: 'mention', ignore_channel_mentions: 'default', channel_auto_follow_threads: 'off' });
    await client.updateChannelNotifyProps({ channel_id: ch, user_id: bob.id, ignore_channel_mentions: 'on', email: 'false' });
    const again = (await bob.api.get(`/api/v4/channels/${ch}/members/${bob.id}`).expect(200)).body;
    expect(again.notify_props).toMatchObject({ desktop: 'none', mark_unread: 'mention', ignore_channel_mentions: 'on', email: 'false' });
    expect(again.last_update_at).toBeGreaterThanOrEqual(member.last_update_at);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['desktop', { desktop: 'loud' }, 'model.channel_member.is_valid.notify_level.app_error'],
    ['push', { push: 'yes' }, 'model.channel_member.is_valid.push_level.app_error'],
    ['email', { email: 'mention' }, 'model.channel_member.is_valid.email_value.app_error'],
    ['mark_unread', { mark_unread: 'none' }, 'model.channel_member.is_valid.unread_level.app_error'],
    ['ignore_channel_mentions', { ignore_channel_mentions: 'true' }, 'model.channel_member.is_valid.ignore_channel_mentions_value.app_error'],
    ['channel_auto_follow_threads', { channel_auto_follow_threads: 'yes' }, 'model.channel_member.is_valid.channel_auto_follow_threads_value.app_error'],
    ['a long sound name', { desktop_notification_sound: 'x'.repeat(21) }, 'model.channel_member.is_valid.notify_props.app_error'],
  ])('a bad %s is 400 with its id, and nothing changes', async (_name, body, id) => {
    const ch = await channelWith([alice, bob]);
    const res = await bob.api.put(`/api/v4/channels/${ch}/members/${bob.id}/notify_props`, { desktop: 'all', ...body }).expect(400);
    expect(res.body.id).toBe(id);
    const member = (await bob.api.get(`/api/v4/channels/${ch}/members/${bob.id}`).expect(200)).body;
    expect(member.notify_props.desktop).toBe('default');
  });

  test('keys named like Object.prototype members (valueOf, constructor, toString) are ignored, not a 500', async () => {
    const ch = await channelWith([alice, bob]);
    for (const raw of ['{"valueOf":""}', '{"constructor":"x","toString":"y","desktop":"none"}']) {
      await bob.api.put(`/api/v4/channels/${ch}/members/${bob.id}/notify_props`).set('Content-Type', 'application/json').send(raw).expect(200);
    }
    const member = (await bob.api.get(`/api/v4/channels/${ch}/members/${bob.id}`).expect(200)).body;
    expect(member.notify_props.desktop).toBe('none');
    expect(member.notify_props).not.toHaveProperty('valueOf', '');
  });

  test("another user's settings: 403 for a member, allowed for a system admin; no membership: 404", async () => {
    const ch = await channelWith([alice, bob]);
    const res = await alice.api.put(`/api/v4/channels/${ch}/members/${bob.id}/notify_props`, { desktop: 'none' }).expect(403);
    expect(res.body.id).toBe('api.context.permissions.app_error');
    await sysadmin.api.put(`/api/v4/channels/${ch}/members/${bob.id}/notify_props`, { desktop: 'all' }).expect(200);
    expect((await bob.api.get(`/api/v4/channels/${ch}/members/${bob.id}`).expect(200)).body.notify_props.desktop).toBe('all');
    const missing = await carol.api.put(`/api/v4/channels/${ch}/members/${carol.id}/notify_props`, { desktop: 'none' }).expect(404);
    expect(missing.body.id).toBe('app.channel.get_member.missing.app_error');
  });

  test('the member gets channel_member_updated with the new settings', async () => {
    const ch = await channelWith([alice, bob]);
    const socket = await connect(server.url, { token: bob.token });
    try {
      await bob.api.put(`/api/v4/channels/${ch}/members/${bob.id}/notify_props`, { mark_unread: 'mention' }).expect(200);
      const frame = await socket.next((f) => f.event === 'channel_member_updated');
      const member = JSON.parse(frame.data!.channelMember);
      expect(member).toMatchObject({ channel_id: ch, user_id: bob.id, notify_props: { mark_unread: 'mention' } });
      expect(socket.problems).toEqual([]);
    } finally {
      await socket.close();
    }
  });
});

describe('PatchUser notify_props', () => {
  test('valid settings are stored and read back; the others are kept', async () => {
    const user = await createUser(server, sysadmin);
    const me = await client4For(server, user).patchMe({ notify_props: { desktop: 'all', comments: 'any', mention_keys: 'deploy,release' } as never });
    expect(me.notify_props).toMatchObject({ desktop: 'all', comments: 'any', mention_keys: 'deploy,release', email: 'true', channel: 'true' });
  });

  test.each<[string, Record<string, string>]>([
    ['desktop', { desktop: 'loud' }],
    ['email', { email: 'sometimes' }],
    ['comments', { comments: 'all' }],
    ['first_name', { first_name: 'yes' }],
    ['channel', { channel: 'on' }],
    ['too many mention keys', { mention_keys: Array.from({ length: 101 }, (_, i) => `k${i}`).join(',') }],
    ['a mention key too long', { mention_keys: 'x'.repeat(65) }],
  ])('a bad %s is 400 and changes nothing', async (_name, props) => {
    const user = await createUser(server, sysadmin);
    const res = await user.api.put(`/api/v4/users/${user.id}/patch`, { notify_props: props, nickname: 'changed' }).expect(400);
    expect(res.body.id).toBe('model.user.is_valid.notify_props.app_error');
    const me = (await user.api.get('/api/v4/users/me').expect(200)).body;
    expect(me.nickname).toBe('');
    expect(me.notify_props.desktop).toBe('mention');
  });
});

describe('who is mentioned, for API and webhook posts alike', () => {
  const poster = {
    api: (as: Actor, ch: string, text: string) => say(as, ch, text),
    webhook: (as: Actor, ch: string, text: string) => hookSay(as, ch, text),
  };

  describe.each(Object.entries(poster))('%s posts', (_kind, post) => {
    test("mention keys (any case) and the first name when first_name is on; the posted event's mentions", async () => {
      const ch = await channelWith([alice, bob, carol]);
      await setNotifyProps(bob, { mention_keys: 'Deploy, release' });
      await setNotifyProps(carol, { first_name: 'true' });
      const name = `Carolina${++seq}`;
      await carol.api.put(`/api/v4/users/${carol.id}/patch`, { first_name: name }).expect(200);
      const socket = await connect(server.url, { token: bob.token });
      try {
        await post(alice, ch, `the DEPLOY is done, thanks ${name}!`);
        const frame = await socket.next((f) => f.event === 'posted' && postOf(f).channel_id === ch);
        expect(JSON.parse(frame.data!.mentions)).toEqual([bob.id]);
      } finally {
        await socket.close();
        await setNotifyProps(bob, { mention_keys: '' });
        await setNotifyProps(carol, { first_name: 'false' });
      }
      expect(await mentionCounts(ch, [bob, carol])).toEqual(counts([[bob, 1], [carol, 1]]));
    });

    test('@channel skips members who ignore channel mentions, or have `channel` off, or muted the channel at default', async () => {
      const ch = await channelWith([alice, bob, carol, sysadmin]);
      await bob.api.put(`/api/v4/channels/${ch}/members/${bob.id}/notify_props`, { ignore_channel_mentions: 'on' }).expect(200);
      await carol.api.put(`/api/v4/channels/${ch}/members/${carol.id}/notify_props`, { mark_unread: 'mention' }).expect(200);
      await setNotifyProps(sysadmin, { channel: 'false' });
      try {
        await post(alice, ch, '@channel standup');
        expect(await mentionCounts(ch, [bob, carol, sysadmin])).toEqual(counts([[bob, 0], [carol, 0], [sysadmin, 0]]));
        // A muted channel still counts a mention by name.
        await post(alice, ch, `@${carol.username} a question`);
        expect(await mentionCounts(ch, [bob, carol])).toEqual(counts([[bob, 0], [carol, 1]]));
      } finally {
        await setNotifyProps(sysadmin, { channel: 'true' });
      }
    });
  });

  test("a mention moves the member's last_update_at to the post's time (a copy read later says it counts the post); others' stay", async () => {
    const ch = await channelWith([alice, bob, carol]);
    const memberOf = async (who: Actor) => (await who.api.get(`/api/v4/channels/${ch}/members/me`).expect(200)).body as { last_update_at: number; mention_count: number };
    const [bobBefore, carolBefore] = [await memberOf(bob), await memberOf(carol)];
    const post = (await alice.api.post('/api/v4/posts', { channel_id: ch, message: `@${bob.username} look` }).expect(201)).body as { create_at: number };
    const [bobAfter, carolAfter] = [await memberOf(bob), await memberOf(carol)];
    expect(bobAfter.mention_count).toBe(bobBefore.mention_count + 1);
    expect(bobAfter.last_update_at).toBe(Math.max(post.create_at, bobBefore.last_update_at));
    expect(bobAfter.last_update_at).toBeGreaterThanOrEqual(post.create_at);
    expect(carolAfter).toEqual(carolBefore);
  });

  test('replies mention who started or took part in the thread, per `comments` (threads not collapsed)', async () => {
    await setConfig({ ServiceSettings: { CollapsedThreads: 'disabled' } });
    const ch = await channelWith([alice, bob, carol, sysadmin]);
    await setNotifyProps(bob, { comments: 'root' });
    await setNotifyProps(carol, { comments: 'any' });
    try {
      const root = await say(bob, ch, 'a thread of mine');
      await say(carol, ch, 'my reply', root.id);
      // sysadmin replies: bob started the thread (root), carol took part (any).
      await say(sysadmin, ch, 'another reply', root.id);
      expect(await mentionCounts(ch, [bob, carol])).toEqual(counts([[bob, 2], [carol, 1]]));
      // Nobody else: alice has `comments` at its default, never.
      expect(await mentionCounts(ch, [alice])).toEqual(counts([[alice, 0]]));
    } finally {
      await setNotifyProps(bob, { comments: 'never' });
      await setNotifyProps(carol, { comments: 'never' });
      await setConfig({ ServiceSettings: { CollapsedThreads: 'always_on' } });
    }
  });

  test('@channel in a channel above MaxNotificationsPerChannel reaches no one; the poster gets an ephemeral warning', async () => {
    const ch = await channelWith([alice, bob, carol]);
    await setConfig({ TeamSettings: { MaxNotificationsPerChannel: 2 } });
    const socket: Socket = await connect(server.url, { token: alice.token });
    try {
      await say(alice, ch, '@channel and @here, please');
      const frame = await socket.next((f) => f.event === 'ephemeral_message');
      const warning = postOf(frame);
      expect(warning).toMatchObject({ channel_id: ch, user_id: alice.id, type: 'system_ephemeral', message: '@here has been disabled because the channel has more than 2 users.' });
      expect(await mentionCounts(ch, [bob, carol])).toEqual(counts([[bob, 0], [carol, 0]]));
      // A name still counts, and no warning is sent without a channel-wide mention.
      const from = socket.events.length;
      await say(alice, ch, `@${bob.username} only`);
      expect(await mentionCounts(ch, [bob])).toEqual(counts([[bob, 1]]));
      await socket.none((f) => f.event === 'ephemeral_message', 500, from);
      // The webhook's creator is warned the same way.
      await hookSay(alice, ch, '@all');
      await socket.next((f) => f.event === 'ephemeral_message' && postOf(f).message.startsWith('@all has been disabled'), { from });
      expect(await mentionCounts(ch, [carol])).toEqual(counts([[carol, 0]]));
      expect(socket.problems).toEqual([]);
    } finally {
      await socket.close();
      await setConfig({ TeamSettings: { MaxNotificationsPerChannel: 1000 } });
    }
  });
});

// Threads collapsed (CollapsedThreads always_on, the server default): a reply's `posted` tells each follower of its
// thread that it follows it (`followers`, only its own id, in its own copy), as Mattermost's broadcast hook; the web
// client's desktop notification reads it instead of whatever part of the thread the page holds.
describe('posted `followers` (threads collapsed)', () => {
  const users = () => ({ alice, bob, carol, sysadmin });
  type Name = keyof ReturnType<typeof users>;

  /** Each user's copy of the `posted` of `postId`, through their own socket. */
  async function copies(sockets: Record<Name, Socket>, postId: string): Promise<Record<Name, Record<string, unknown>>> {
    const out = {} as Record<Name, Record<string, unknown>>;
    for (const [name, socket] of Object.entries(sockets) as Array<[Name, Socket]>) {
      out[name] = (await socket.next((f) => f.event === 'posted' && postOf(f).id === postId)).data ?? {};
    }
    return out;
  }
  const told = (got: Record<Name, Record<string, unknown>>) =>
    Object.fromEntries(Object.entries(got).filter(([, data]) => 'followers' in data).map(([name, data]) => [name, JSON.parse(data.followers as string)]));

  async function connectAll(): Promise<Record<Name, Socket>> {
    const out = {} as Record<Name, Socket>;
    for (const [name, who] of Object.entries(users()) as Array<[Name, Actor]>) out[name] = await connect(server.url, { token: who.token });
    return out;
  }
  async function closeAll(sockets: Record<Name, Socket>): Promise<void> {
    for (const s of Object.values(sockets)) {
      expect(s.problems).toEqual([]);
      await s.close();
    }
  }

  test('each follower is told with its own id only; not a non-follower, not the replier, not one who unfollowed', async () => {
    await setConfig({ ServiceSettings: { CollapsedThreads: 'always_on' } });
    const ch = await channelWith([alice, bob, carol, sysadmin]);
    const sockets = await connectAll();
    try {
      const root = await say(bob, ch, 'a thread of mine');
      // The first reply: the root's author follows the thread from it on and is told already; the replier is not.
      const r1 = await say(carol, ch, 'first reply', root.id);
      expect(told(await copies(sockets, r1.id))).toEqual({ bob: [bob.id] });
      const r2 = await say(sysadmin, ch, 'second reply', root.id);
      expect(told(await copies(sockets, r2.id))).toEqual({ bob: [bob.id], carol: [carol.id] });
      // Unfollowing stops it; a mention makes a follower (told and mentioned in the same copy).
      await client4For(server, bob).updateThreadFollowForUser(bob.id, teamId, root.id, false);
      const r3 = await say(carol, ch, `@${alice.username} have a look`, root.id);
      const got = await copies(sockets, r3.id);
      expect(told(got)).toEqual({ alice: [alice.id], sysadmin: [sysadmin.id] });
      expect(JSON.parse(got.alice.mentions as string)).toEqual([alice.id]);
      expect(got.sysadmin).not.toHaveProperty('mentions');
      // A root post tells nobody.
      const other = await say(carol, ch, 'a new thread');
      expect(told(await copies(sockets, other.id))).toEqual({});
    } finally {
      await closeAll(sockets);
    }
  });

  test('a webhook reply tells the followers (its creator too); with threads not collapsed nobody is told', async () => {
    const ch = await channelWith([alice, bob, carol, sysadmin]);
    const hook = await createHook(alice, { channel_id: ch });
    const sockets = await connectAll();
    try {
      const root = await say(alice, ch, 'alerts go here');
      const r1 = await say(bob, ch, 'watching', root.id);
      expect(told(await copies(sockets, r1.id))).toEqual({ alice: [alice.id] });
      const from = sockets.bob.events.length;
      expectOk(await postJson(server, hook.id, { text: 'build failed', root_id: root.id }));
      const hookReply = postOf(await sockets.bob.next((f) => f.event === 'posted' && postOf(f).message === 'build failed', { from }));
      expect(told(await copies(sockets, hookReply.id))).toEqual({ alice: [alice.id], bob: [bob.id] });

      await setConfig({ ServiceSettings: { CollapsedThreads: 'disabled' } });
      const r2 = await say(carol, ch, 'threads shown inline now', root.id);
      expect(told(await copies(sockets, r2.id))).toEqual({});
    } finally {
      await setConfig({ ServiceSettings: { CollapsedThreads: 'always_on' } });
      await closeAll(sockets);
    }
  });
});
