// No request stalls the others (security review round 3: H1, H2, H3, L4, L9, L14, and inputs of our own).
//
// Each case runs one attack for a few seconds against a server in this process while a bystander times cheap
// requests (GET /system/ping, and a 5-post page of a channel, which goes to the database), and the event loop's
// longest delay is recorded. The case fails on a stall (see STALL in support/stall.ts): a loop blocked for hundreds
// of ms, a bystander's request waiting as long, or a bystander's p90 far above an idle server's. Attacks that need data
// today's limits refuse (240 KB props, a large index) seed it straight into the database, as old data would be.
// Figures of each run are printed (console.log) so a CI log shows how close a run came to the bounds; the figures of
// the code before the fixes and after them are in the note of the change that added this suite.
import {
  badAnswers,
  boundsFor,
  describeReport,
  expectCall,
  leanSocket,
  liveHeap,
  manyKeyProps,
  measure,
  mulberry32,
  newId,
  seedPosts,
  send,
  stalls,
  startStallServer,
  type Answer,
  type LeanSocket,
  type Probe,
  type StallServer,
} from './support/stall';

const PASSWORD = 'Passw0rd!';
/** Posts in the search index: the review measured 295 ms per search at 20k and 713 ms at 40k (SQLite, before). */
const INDEX_POSTS = 40_000;
/** Old posts with ~240 KB props each: one page of them (the web client's page size). */
const FAT_POSTS = 60;
const FAT_PROPS = JSON.stringify(manyKeyProps(19_500));
const ATTACK_MS = 3000;

jest.setTimeout(180_000);

interface User {
  id: string;
  username: string;
  token: string;
}

let server: StallServer;
let url: string;
let admin: User;
let searcher: User;
let reader: User;
let bystander: User;
let holder: User;
let poster: User;
let teamId: string;
let visibleId: string;
let fatId: string;
let threadRootId: string;
let fatIds: string[] = [];
let probes: Probe[];
/** The probes on the idle server, measured before the attacks: the bounds add its noise (boundsFor). */
let idle: Awaited<ReturnType<typeof measure>> | undefined;
const log: string[] = [];

async function signUp(name: string, as?: User): Promise<User> {
  const username = `${name}${process.pid % 10000}`;
  const created = await expectCall<{ id: string }>(201, url, 'POST', '/api/v4/users', as?.token, { username, email: `${username}@example.com`, password: PASSWORD });
  const res = await fetch(`${url}/api/v4/users/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ login_id: username, password: PASSWORD }) });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status}`);
  return { id: created.id, username, token: res.headers.get('token') as string };
}

async function channel(owner: User, name: string, type: 'O' | 'P', members: User[]): Promise<string> {
  const c = await expectCall<{ id: string }>(201, url, 'POST', '/api/v4/channels', owner.token, { team_id: teamId, name, display_name: name, type });
  if (members.length) await expectCall(201, url, 'POST', `/api/v4/channels/${c.id}/members`, owner.token, { user_ids: members.map((m) => m.id) });
  return c.id;
}

/** Words for every first letter, so each of `a*` … `z*` matches thousands of posts. */
const VOCABULARY = 'abcdefghijklmnopqrstuvwxyz'
  .split('')
  .flatMap((l) => ['ar', 'en', 'ol', 'ust', 'ime', 'ork'].map((tail) => `${l}${tail}`));
const HASHTAGS = ['#deploy', '#build', '#incident', '#release', '#hotfix'];

function corpusMessage(rand: () => number, hidden: boolean): { message: string; hashtags: string } {
  const words: string[] = [];
  for (let i = 0; i < 12; i++) words.push(VOCABULARY[Math.floor(rand() * VOCABULARY.length)]);
  // A word found only where the searcher cannot read (review L4: the cost of a search grew with such matches).
  if (hidden) words.push('confidential');
  const tags = HASHTAGS.filter(() => rand() < 0.1);
  return { message: [...words, ...tags].join(' '), hashtags: tags.join(' ') };
}

function report(label: string, r: Awaited<ReturnType<typeof measure>>): void {
  const line = describeReport(label, r);
  log.push(line);
  // eslint-disable-next-line no-console
  console.log(line);
}

function expectNoStall(label: string, r: Awaited<ReturnType<typeof measure>>, o: { allowErrors?: boolean } = {}): void {
  report(label, r);
  expect({ label, stalls: stalls(r, boundsFor(idle)), badAnswers: badAnswers(r, o.allowErrors) }).toEqual({ label, stalls: [], badAnswers: [] });
}

beforeAll(async () => {
  server = await startStallServer();
  url = server.url;
  admin = await signUp('stalladmin');
  searcher = await signUp('searcher', admin);
  reader = await signUp('reader', admin);
  bystander = await signUp('bystander', admin);
  holder = await signUp('holder', admin);
  poster = await signUp('poster', admin);
  teamId = (await expectCall<{ id: string }>(201, url, 'POST', '/api/v4/teams', admin.token, { name: `stall${process.pid % 10000}`, display_name: 'Stall', type: 'O' })).id;
  for (const u of [searcher, reader, bystander, holder, poster]) await expectCall(201, url, 'POST', `/api/v4/teams/${teamId}/members`, admin.token, { team_id: teamId, user_id: u.id });
  visibleId = await channel(admin, 'visible', 'O', [searcher, bystander, holder, poster]);
  const hiddenId = await channel(admin, 'hidden', 'P', []);
  fatId = await channel(admin, 'fat', 'O', [reader, poster]);
  const threadId = await channel(admin, 'thread', 'O', [reader]);
  for (let i = 0; i < 5; i++) await expectCall(201, url, 'POST', '/api/v4/posts', bystander.token, { channel_id: visibleId, message: `hello ${i}` });

  // The search index: most posts where the searcher cannot read them.
  const rand = mulberry32(42);
  const start = Date.now() - 30 * 86_400_000;
  const corpus = Array.from({ length: INDEX_POSTS }, (_, i) => {
    const hidden = i % 20 !== 0;
    const { message, hashtags } = corpusMessage(rand, hidden);
    return { channelId: hidden ? hiddenId : visibleId, userId: admin.id, message, hashtags, createAt: start + i * 10 };
  });
  const seedStart = performance.now();
  await seedPosts(server.parley, corpus);
  log.push(`seeded ${INDEX_POSTS} posts in ${Math.round(performance.now() - seedStart)} ms`);

  // Old posts with fat props: a page of them, and a thread of as many fat replies.
  const fatAt = Date.now() - 86_400_000;
  fatIds = await seedPosts(
    server.parley,
    Array.from({ length: FAT_POSTS }, (_, i) => ({ channelId: fatId, userId: poster.id, message: `fat ${i}`, props: FAT_PROPS, createAt: fatAt + i })),
    5,
    FAT_POSTS,
  );
  threadRootId = (await expectCall<{ id: string }>(201, url, 'POST', '/api/v4/posts', admin.token, { channel_id: threadId, message: 'a thread' })).id;
  const replyIds = await seedPosts(
    server.parley,
    Array.from({ length: FAT_POSTS }, (_, i) => ({ channelId: threadId, userId: admin.id, message: `fat reply ${i}`, props: FAT_PROPS, rootId: threadRootId, createAt: Date.now() + i })),
    5,
    FAT_POSTS,
  );
  fatIds = [...fatIds, ...replyIds];

  probes = [
    { name: 'ping', run: () => send(url, 'GET', '/api/v4/system/ping') },
    { name: 'page', run: () => send(url, 'GET', `/api/v4/channels/${visibleId}/posts?per_page=5`, { token: bystander.token }) },
  ];
}, 600_000);

afterAll(async () => {
  // eslint-disable-next-line no-console
  console.log(`stall figures (${server?.db.driver}):\n${log.join('\n')}`);
  await server?.close();
});

test('the bystander is quick when nothing else runs (the noise the bounds allow for)', async () => {
  const r = await measure({ attack: async () => (await new Promise((res) => setTimeout(res, 100)), { status: 200, ms: 0, bytes: 0 }), attackers: 1, durationMs: 1500, probes });
  report('idle', r);
  idle = r;
  // An idle server answers at once: a run whose idle figures are already a stall measures nothing.
  expect(stalls(r)).toEqual([]);
});

// ---------------------------------------------------------------------------------------------------- search (H1, L4)

const PREFIXES = 'abcdefghijklmnopqrstuvwxyz'.split('').map((l) => `${l}*`);

describe('search', () => {
  const shapes: Array<[string, { terms: string; is_or_search?: boolean }]> = [
    ['a* b* … z* (OR)', { terms: PREFIXES.join(' '), is_or_search: true }],
    ['one 1,024-char a*a*a*… word', { terms: 'a*'.repeat(512) }],
    ['a* … z* and 5 hashtags (OR)', { terms: [...PREFIXES, ...HASHTAGS].join(' '), is_or_search: true }],
    ['a word found only in channels the searcher cannot read', { terms: 'confidential' }],
    // Our own: the most terms a search may hold, each a frequent word (AND: every word's posting list is read).
    ['32 frequent words (AND)', { terms: VOCABULARY.slice(0, 32).join(' ') }],
    ['16 frequent words (AND)', { terms: VOCABULARY.slice(0, 16).join(' ') }],
    // The most a search may still ask for: 3 two-letter prefixes (each matching a sixth of a letter's words) and words.
    ['3 two-letter prefixes and 20 frequent words (OR)', { terms: [...['ba*', 'ce*', 'do*'], ...VOCABULARY.slice(40, 60)].join(' '), is_or_search: true }],
    ['26 two-letter prefixes (OR)', { terms: VOCABULARY.slice(0, 32 * 6).filter((_, i) => i % 6 === 0).slice(0, 26).map((w) => `${w.slice(0, 2)}*`).join(' '), is_or_search: true }],
  ];
  test.each(shapes)('%s: no stall, and a quick answer or a refusal (never 5xx)', async (label, body) => {
    const payload = Buffer.from(JSON.stringify({ ...body, page: 0, per_page: 60 }));
    const r = await measure({
      attack: () => send(url, 'POST', `/api/v4/teams/${teamId}/posts/search`, { token: searcher.token, body: payload }),
      attackers: 2,
      durationMs: ATTACK_MS,
      probes,
    });
    expectNoStall(`search ${label}`, r);
  });
});

// ---------------------------------------------------------------------------------------------------- fat props (H3)

/**
 * The largest props CreatePost accepts now, tried from the largest body the server takes down: for each size, many
 * small keys first (the costliest shape to parse), then a few long strings. Posted in a scratch channel.
 */
let largest: { props: Record<string, unknown>; bytes: number } | undefined;
async function largestProps(): Promise<{ props: Record<string, unknown>; bytes: number }> {
  if (largest) return largest;
  const scratch = await channel(poster, 'scratch', 'O', []);
  for (const target of [240_000, 160_000, 120_000, 60_000, 30_000, 15_000, 8_000, 4_000]) {
    const keys = manyKeyProps(Math.floor(target / 12.3));
    const strings = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`s${i}`, 'x'.repeat(Math.floor(target / 16) - 12)]));
    for (const props of [keys, strings]) {
      const res = await send(url, 'POST', '/api/v4/posts', { token: poster.token, body: JSON.stringify({ channel_id: scratch, message: 'probe', props }) });
      if (res.status === 201) return (largest = { props, bytes: JSON.stringify(props).length });
    }
  }
  throw new Error('no props accepted at all');
}

describe('fat props', () => {
  test(`reading a page of ${FAT_POSTS} old posts with ~240 KB props each, in a loop`, async () => {
    const r = await measure({
      attack: () => send(url, 'GET', `/api/v4/channels/${fatId}/posts?page=0&per_page=${FAT_POSTS}`, { token: reader.token }),
      attackers: 2,
      durationMs: ATTACK_MS,
      probes,
    });
    expectNoStall('fat page', r);
  });

  test('creating posts with the largest props now allowed, in a loop', async () => {
    const { props, bytes } = await largestProps();
    // eslint-disable-next-line no-console
    console.log(`largest props accepted: ${bytes} bytes, ${Object.keys(props).length} keys`);
    const r = await measure({
      attack: (loop, i) => send(url, 'POST', '/api/v4/posts', { token: poster.token, body: JSON.stringify({ channel_id: fatId, message: `write ${loop}-${i}`, props }) }),
      attackers: 2,
      durationMs: ATTACK_MS,
      probes,
    });
    expectNoStall('fat write', r);
  });

  // Our own: the same stored posts through the other reads that return many of them.
  test(`GetPostsByIds with 1,000 ids, ${2 * FAT_POSTS} of them old fat posts`, async () => {
    const ids = [...fatIds, ...Array.from({ length: 1000 - fatIds.length }, () => newId())];
    const body = Buffer.from(JSON.stringify(ids));
    const r = await measure({ attack: () => send(url, 'POST', '/api/v4/posts/ids', { token: reader.token, body }), attackers: 2, durationMs: ATTACK_MS, probes });
    expectNoStall('fat by ids', r);
  });

  test(`a thread of ${FAT_POSTS} old fat replies`, async () => {
    const r = await measure({ attack: () => send(url, 'GET', `/api/v4/posts/${threadRootId}/thread`, { token: reader.token }), attackers: 2, durationMs: ATTACK_MS, probes });
    expectNoStall('fat thread', r);
  });
});

// ---------------------------------------------------------------------------------------------------- webhooks (L14)

describe('webhook bodies to unknown hooks', () => {
  const madeUp = () => newId();
  const bodies: Array<[string, Buffer]> = [
    ['~250 KB of props keys (the review)', Buffer.from(JSON.stringify({ text: 'x', props: manyKeyProps(20_000) }))],
    // Our own: attachments, the part of a Slack payload with the most structure to decode and validate.
    ['~250 KB of attachments with fields', Buffer.from(JSON.stringify({ text: 'x', attachments: Array.from({ length: 900 }, (_, i) => ({ text: `a${i}`, fields: Array.from({ length: 6 }, (_, j) => ({ title: `t${j}`, value: `v${j}`, short: true })) })) }))],
  ];
  test.each(bodies)('%s from 6 connections: refused without a stall', async (_label, body) => {
    expect(body.length).toBeGreaterThan(200_000);
    expect(body.length).toBeLessThan(300_000);
    const r = await measure({ attack: () => send(url, 'POST', `/hooks/${madeUp()}`, { body }), attackers: 6, durationMs: ATTACK_MS, probes });
    // A server may answer before reading the body and close the connection on the rest: the sender sees a reset.
    expectNoStall(`webhook ${_label}`, r, { allowErrors: true });
    const refused = Object.entries(r.attack.byStatus).filter(([k]) => k.startsWith('4')).reduce((s, [, n]) => s + n, 0);
    expect(refused).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------- our own

describe('inputs of our own', () => {
  test('a burst of logins with wrong passwords (hashing runs off the event loop)', async () => {
    const r = await measure({
      attack: (loop, i) => send(url, 'POST', '/api/v4/users/login', { body: JSON.stringify({ login_id: `ghost${loop}x${i}`, password: 'wrong-password' }) }),
      attackers: 12,
      durationMs: ATTACK_MS,
      probes,
    });
    expectNoStall('wrong logins', r);
  });

  test('posts whose props nest to the depth limit, in a loop', async () => {
    let nested: unknown = 1;
    for (let i = 0; i < 240; i++) nested = { n: nested };
    const body = Buffer.from(JSON.stringify({ channel_id: fatId, message: 'deep', props: { deep: nested, ...manyKeyProps(2000) } }));
    const r = await measure({ attack: () => send(url, 'POST', '/api/v4/posts', { token: poster.token, body }), attackers: 2, durationMs: ATTACK_MS, probes });
    expectNoStall('deep props', r);
  });
});

// ---------------------------------------------------------------------------------------------------- WebSocket (L9, H2)

async function openSockets(user: User, n: number): Promise<LeanSocket[]> {
  const sockets: LeanSocket[] = [];
  // In small batches, as a reconnecting client would: the cap is on what is open, not on the pace.
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, () => leanSocket(url, user.token));
    await Promise.all(batch.map((s) => s.hello));
    sockets.push(...batch);
  }
  return sockets;
}

/** Sockets one user may hold at once: far more than a person's tabs and devices; the review suggested 16. */
const SOCKETS_BOUND = 64;

describe('WebSocket', () => {
  test('one user opening 150 sockets and a typing flood from all of them', async () => {
    const observer = leanSocket(url, bystander.token);
    expect(await observer.hello).toBe(true);
    let sockets: LeanSocket[] = [];
    const r = await measure({
      attack: async (loop) => {
        const started = performance.now();
        if (loop === 0 && sockets.length === 0) sockets = await openSockets(holder, 150);
        await new Promise((res) => setTimeout(res, 100));
        for (const s of sockets) if (s.ws.readyState === s.ws.OPEN) s.ws.send(JSON.stringify({ seq: 1, action: 'user_typing', data: { channel_id: visibleId } }));
        return { status: 200, ms: performance.now() - started, bytes: 0 } as Answer;
      },
      attackers: 1,
      durationMs: ATTACK_MS,
      probes,
    });
    await new Promise((res) => setTimeout(res, 300));
    const open = sockets.filter((s) => s.ws.readyState === s.ws.OPEN).length;
    const typing = observer.typing.filter((t) => t.userId === holder.id);
    const spanS = typing.length > 1 ? (typing[typing.length - 1].at - typing[0].at) / 1000 : 0;
    const line = `sockets: ${open} of 150 open; observer got ${typing.length} typing events from the holder over ${spanS.toFixed(1)} s`;
    log.push(line);
    // eslint-disable-next-line no-console
    console.log(line);
    for (const s of sockets) s.close();
    observer.close();
    expectNoStall('sockets + typing', r);
    expect(open).toBeLessThanOrEqual(SOCKETS_BOUND);
    // One typing indicator per second per (user, channel), give or take the edges of the window.
    expect(typing.length).toBeLessThanOrEqual(Math.ceil(ATTACK_MS / 1000) + 3);
  });

  test('a mentioned user holding sockets: posts with the largest props mentioning them keep the heap bounded', async () => {
    const { props, bytes } = await largestProps();
    const before = await liveHeap();
    // The review's case: 20 sockets closed right after hello (resumable, still recording) and 10 kept open.
    const closedOnes = await openSockets(holder, 20);
    for (const s of closedOnes) s.close();
    const open = await openSockets(holder, 10);
    const K = 10;
    for (let k = 0; k < K; k++) {
      const res = await send(url, 'POST', '/api/v4/posts', { token: poster.token, body: JSON.stringify({ channel_id: visibleId, message: `@${holder.username} look ${k}`, props }) });
      expect(res.status).toBe(201);
    }
    await new Promise((res) => setTimeout(res, 1000));
    const after = await liveHeap();
    const growthMiB = (after - before) / 1048576;
    const received = open.reduce((s, x) => s + (x.counts.large ?? 0) + (x.counts.posted ?? 0), 0);
    const line = `mention memory: props ${bytes} bytes, ${K} posts, 30 sockets (${open.filter((s) => s.ws.readyState === s.ws.OPEN).length} open): heap +${growthMiB.toFixed(1)} MiB; open sockets received ${received} posted frames`;
    log.push(line);
    // eslint-disable-next-line no-console
    console.log(line);
    for (const s of open) s.close();
    // Holding every frame once (as the post itself is held) is a few MiB; a copy per connection was ~100 MiB.
    expect(growthMiB).toBeLessThan(32);
  });
});
