import { createUser, startTestServer, type Actor, type TestServer, atTime as atServerTime, createTeam } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let alice: Actor;
let bob: Actor;
let carol: Actor;
let dave: Actor; // on the team, but in none of the test channels
let teamId: string;
let seq = 0;

const FIVE_MINUTES = 5 * 60 * 1000;

async function channelWith(members: Actor[], type: 'O' | 'P' = 'O'): Promise<string> {
  const name = `mentions-${++seq}`;
  const res = await alice.api.post('/api/v4/channels', { team_id: teamId, name, display_name: name, type }).expect(201);
  const others = members.filter((m) => m.id !== alice.id);
  if (others.length) await alice.api.post(`/api/v4/channels/${res.body.id}/members`, { user_ids: others.map((m) => m.id) }).expect(201);
  return res.body.id;
}

async function say(as: Actor, channelId: string, message: string, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
  return (await as.api.post('/api/v4/posts', { channel_id: channelId, message, ...extra }).expect(201)).body;
}

/**
 * A user's membership as stored, read without a request of theirs (a request would make them active for @here) and
 * without the API, which shows another user's counts as -1 to everyone, system admins included.
 */
async function memberOf(channelId: string, userId: string): Promise<Record<string, unknown>> {
  const member = await server.parley.app.deps.stores.channels.getMember(channelId, userId);
  if (!member) throw new Error(`${userId} is not a member of ${channelId}`);
  return member as unknown as Record<string, unknown>;
}

/** mention_count of each user in the channel. */
async function mentionCounts(channelId: string, users: Actor[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const u of users) out[u.username] = (await memberOf(channelId, u.id)).mention_count as number;
  return out;
}

const counts = (entries: Array<[Actor, number]>) => Object.fromEntries(entries.map(([u, n]) => [u.username, n]));

async function setLastActivity(user: Actor, at: number): Promise<void> {
  await server.parley.db.knex('users').where({ id: user.id }).update({ last_activity_at: at });
}

const atTime = <T>(ms: number, fn: () => Promise<T>): Promise<T> => atServerTime(server, ms, fn);

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  alice = await createUser(server, sysadmin);
  bob = await createUser(server, sysadmin);
  carol = await createUser(server, sysadmin);
  dave = await createUser(server, sysadmin);
  teamId = await createTeam(alice, 'mention-team', [bob, carol, dave]);
});
afterAll(() => server.close());

describe('@username', () => {
  test("mentions a channel member: their mention_count goes up, nobody else's", async () => {
    const ch = await channelWith([alice, bob, carol]);
    await say(alice, ch, `hey @${bob.username}, look`);
    expect(await mentionCounts(ch, [alice, bob, carol])).toEqual(counts([[alice, 0], [bob, 1], [carol, 0]]));
    await say(alice, ch, `@${bob.username} again`);
    await say(carol, ch, `and @${bob.username} from carol, cc @${alice.username}`);
    expect(await mentionCounts(ch, [alice, bob, carol])).toEqual(counts([[alice, 1], [bob, 3], [carol, 0]]));
  });

  test('one post mentioning someone twice counts once; the poster never mentions themself', async () => {
    const ch = await channelWith([alice, bob]);
    await say(alice, ch, `@${bob.username} @${bob.username} and me, @${alice.username}`);
    expect(await mentionCounts(ch, [alice, bob])).toEqual(counts([[alice, 0], [bob, 1]]));
  });

  test('is matched case-insensitively and with trailing punctuation, but not inside words or e-mail addresses', async () => {
    const ch = await channelWith([alice, bob, carol]);
    await say(alice, ch, `thanks @${bob.username.toUpperCase()}.`);
    await say(alice, ch, `mail ${carol.username}@example.com or x@${carol.username}`);
    expect(await mentionCounts(ch, [bob, carol])).toEqual(counts([[bob, 1], [carol, 0]]));
  });

  test('a user who is not in the channel is not counted anywhere', async () => {
    const ch = await channelWith([alice, bob]);
    const town = (await sysadmin.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
    const before = await mentionCounts(town, [dave]);
    await say(alice, ch, `@${dave.username} are you here?`);
    expect(await mentionCounts(town, [dave])).toEqual(before);
    const res = await sysadmin.api.get(`/api/v4/channels/${ch}/members/${dave.id}`);
    expect(res.status).toBe(404);
  });

  test('a reply counts in mention_count but not in mention_count_root', async () => {
    const ch = await channelWith([alice, bob]);
    const root = await say(alice, ch, `@${bob.username} root`);
    await say(alice, ch, `@${bob.username} reply`, { root_id: root.id });
    expect(await memberOf(ch, bob.id)).toMatchObject({ mention_count: 2, mention_count_root: 1 });
  });

  test("posting in the channel clears the poster's own mentions, as viewing it does", async () => {
    const ch = await channelWith([alice, bob]);
    await say(alice, ch, `@${bob.username} ping`);
    expect(await mentionCounts(ch, [bob])).toEqual(counts([[bob, 1]]));
    await say(bob, ch, 'pong');
    expect(await mentionCounts(ch, [alice, bob])).toEqual(counts([[alice, 0], [bob, 0]]));
    expect(await memberOf(ch, bob.id)).toMatchObject({ msg_count: 2, mention_count_root: 0 });
  });

  test('ViewChannel clears the mentions', async () => {
    const ch = await channelWith([alice, bob]);
    await say(alice, ch, `@${bob.username}`);
    await bob.api.post('/api/v4/channels/members/me/view', { channel_id: ch }).expect(200);
    expect(await mentionCounts(ch, [bob])).toEqual(counts([[bob, 0]]));
  });
});

describe('@channel and @all', () => {
  test.each(['@channel', '@all', 'Hello @ALL!'])('"%s" mentions every member but the poster', async (text) => {
    const ch = await channelWith([alice, bob, carol]);
    await say(bob, ch, text);
    expect(await mentionCounts(ch, [alice, bob, carol])).toEqual(counts([[alice, 1], [bob, 0], [carol, 1]]));
  });

  test('naming someone and @channel in one post counts once for them', async () => {
    const ch = await channelWith([alice, bob, carol]);
    await say(alice, ch, `@channel and especially @${bob.username}`);
    expect(await mentionCounts(ch, [alice, bob, carol])).toEqual(counts([[alice, 0], [bob, 1], [carol, 1]]));
  });

  test('inactive members are mentioned by @channel too', async () => {
    const ch = await channelWith([alice, bob, carol]);
    await setLastActivity(carol, Date.now() - 60 * 60 * 1000);
    await say(alice, ch, '@all');
    expect(await mentionCounts(ch, [bob, carol])).toEqual(counts([[bob, 1], [carol, 1]]));
  });
});

describe('@here', () => {
  test('mentions only members active in the last five minutes', async () => {
    const ch = await channelWith([alice, bob, carol]);
    const now = Date.now();
    await setLastActivity(bob, now - 60 * 1000);
    await setLastActivity(carol, now - FIVE_MINUTES - 60 * 1000);
    await say(alice, ch, '@here standup');
    expect(await mentionCounts(ch, [alice, bob, carol])).toEqual(counts([[alice, 0], [bob, 1], [carol, 0]]));
  });

  test('a member who never made a request is not active', async () => {
    const ch = await channelWith([alice, bob, carol]);
    await setLastActivity(bob, 0);
    await setLastActivity(carol, Date.now());
    await say(alice, ch, 'anyone @here?');
    expect(await mentionCounts(ch, [bob, carol])).toEqual(counts([[bob, 0], [carol, 1]]));
  });

  test('an authenticated request makes a member active again', async () => {
    const ch = await channelWith([alice, bob, carol]);
    const later = Date.now() + 2 * 60 * 1000; // past the once-a-minute activity write throttle
    await setLastActivity(bob, later - 60 * 60 * 1000);
    await setLastActivity(carol, later - 60 * 60 * 1000);
    await atTime(later, async () => {
      await bob.api.get('/api/v4/users/me').expect(200);
      await say(alice, ch, '@here');
    });
    expect(await mentionCounts(ch, [bob, carol])).toEqual(counts([[bob, 1], [carol, 0]]));
  });
});

describe('direct channels', () => {
  test('every DM post mentions the other member, whatever it says', async () => {
    const dm = (await alice.api.post('/api/v4/channels/direct', [alice.id, bob.id]).expect(201)).body.id;
    await say(alice, dm, 'no at-sign here');
    await say(alice, dm, `and @${bob.username} once`);
    expect(await mentionCounts(dm, [alice, bob])).toEqual(counts([[alice, 0], [bob, 2]]));
    await say(bob, dm, 'reply');
    // Replying reads the DM for bob (his mentions clear) and mentions alice.
    expect(await mentionCounts(dm, [alice, bob])).toEqual(counts([[alice, 1], [bob, 0]]));
  });

  test('a self-DM mentions nobody', async () => {
    const dm = (await carol.api.post('/api/v4/channels/direct', [carol.id, carol.id]).expect(201)).body.id;
    await say(carol, dm, 'note to self');
    expect(await mentionCounts(dm, [carol])).toEqual(counts([[carol, 0]]));
  });
});

describe('private channels', () => {
  test('mentions work the same in a private channel', async () => {
    const ch = await channelWith([alice, bob, carol], 'P');
    await say(carol, ch, `@${bob.username} @channel`);
    expect(await mentionCounts(ch, [alice, bob, carol])).toEqual(counts([[alice, 1], [bob, 1], [carol, 0]]));
  });
});
