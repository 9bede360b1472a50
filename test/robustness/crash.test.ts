// Crash safety (issue "Measure and harden"; docs/webhook-rules.md rule 11: an ok means committed): 20 parallel webhook senders, each
// post with a unique text; the server process is killed with SIGKILL mid-load, restarted on the same database, and
// killed again, three times. Afterwards every post that was answered `ok` is stored exactly once, nothing is stored
// twice, and a message split into several posts is stored whole or not at all. Runs on the database
// PARLEY_TEST_DATABASE selects (SQLite file by default, MariaDB with a mysql:// URL).
import { createTestDatabase, testDialect, type TestDatabase } from '../support/database';
import { buildServer, spawnServer, type Build, type ServerProcess } from '../support/process';
import { channelMessages, createRemoteWorld, postHook, type RemoteWorld } from './support/world';

let build: Build;
let db: TestDatabase;
let proc: ServerProcess | undefined;
let world: RemoteWorld;

beforeAll(async () => {
  build = buildServer();
  db = await createTestDatabase();
}, 120000);
afterAll(async () => {
  await proc?.kill();
  await db?.drop();
  build?.remove();
});

// These suites load one hook far past its default rate limit on purpose (the limiter has its own tests).
const env = () => ({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource, MM_RATELIMITSETTINGS_WEBHOOKPERSEC: '0' });
const SENDERS = 20;
const CYCLES = 3;
// Every 7th message is longer than one post (16383 code points): it is stored as two posts, all or nothing.
const LONG = 16383 + 500;

type Outcome = 'ok' | 'refused' | 'error';

interface Sent {
  text: string;
  outcome: Outcome;
  detail: string;
}

function messageFor(sender: number, cycle: number, i: number): string {
  const tag = `crash-c${cycle}-s${sender}-n${i}`;
  // The tag at both ends keeps both parts of a long message unique.
  return i % 7 === 6 ? tag + 'L'.repeat(LONG - 2 * tag.length) + tag : tag;
}

/** One sender: posts until its first network error (the server is gone) or until told to stop. */
async function sender(url: string, key: string, id: number, cycle: number, sent: Sent[], stop: { now: boolean }): Promise<void> {
  for (let i = 0; !stop.now; i++) {
    const text = messageFor(id, cycle, i);
    const res = await postHook(url, key, { text }, 20000);
    if ('error' in res) {
      sent.push({ text, outcome: 'error', detail: res.error });
      return;
    }
    const ok = res.status === 200 && res.text === 'ok' && res.contentType === 'text/plain';
    sent.push({ text, outcome: ok ? 'ok' : 'refused', detail: `${res.status} ${res.text.slice(0, 200)}` });
    // A refusal while the server is up is a failure of its own; it is reported below.
  }
}

test(`kill -9 under concurrent webhook load, ${CYCLES} times (${testDialect()}): every acknowledged post is stored exactly once`, async () => {
  proc = await spawnServer(env(), { entry: build.entry });
  world = await createRemoteWorld(proc.url);
  const all: Sent[] = [];
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    if (cycle > 0) proc = await spawnServer(env(), { entry: build.entry });
    const sent: Sent[] = [];
    const stop = { now: false };
    const running = Array.from({ length: SENDERS }, (_, s) => sender(proc!.url, world.hookKey, s, cycle, sent, stop));
    // Kill mid-load: after a random number of acknowledged posts (or a time limit), never between requests.
    const target = 100 + Math.floor(Math.random() * 300);
    const deadline = Date.now() + 4000;
    while (sent.filter((s) => s.outcome === 'ok').length < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await proc.kill();
    await Promise.all(running);
    stop.now = true;
    all.push(...sent);
    const oks = sent.filter((s) => s.outcome === 'ok').length;
    const errors = sent.filter((s) => s.outcome === 'error').length;
    console.log(`cycle ${cycle}: ${oks} acknowledged, ${errors} cut off by the kill`);
    // Requests answered while the server was up are all ok; the kill only ever shows as connection errors.
    expect(sent.filter((s) => s.outcome === 'refused').map((s) => s.detail)).toEqual([]);
    expect(oks).toBeGreaterThan(0);
  }

  // Restart once more and read everything back through the API.
  proc = await spawnServer(env(), { entry: build.entry });
  const stored = await channelMessages(proc.url, world.token, world.channelId);
  const counts = new Map<string, number>();
  for (const m of stored) counts.set(m, (counts.get(m) ?? 0) + 1);

  // The long messages come back as two posts: the first 16383 code points and the rest.
  const parts = (text: string) => (text.length > 16383 ? [text.slice(0, 16383), text.slice(16383)] : [text]);
  const lost: string[] = [];
  const duplicated: string[] = [];
  const partial: string[] = [];
  for (const s of all) {
    const n = parts(s.text).map((p) => counts.get(p) ?? 0);
    if (n.some((c) => c > 1)) duplicated.push(s.text.slice(0, 40));
    if (n.some((c) => c !== n[0])) partial.push(s.text.slice(0, 40));
    if (s.outcome === 'ok' && n.some((c) => c === 0)) lost.push(s.text.slice(0, 40));
  }
  const acknowledged = all.filter((s) => s.outcome === 'ok').length;
  const unacknowledgedStored = all.filter((s) => s.outcome === 'error' && (counts.get(parts(s.text)[0]) ?? 0) > 0).length;
  console.log(`${acknowledged} acknowledged posts, all checked; ${unacknowledgedStored} cut-off requests had committed anyway (allowed)`);
  expect({ lost, duplicated, partial }).toEqual({ lost: [], duplicated: [], partial: [] });
  // Nothing appears that no one sent.
  const sentParts = new Set(all.flatMap((s) => parts(s.text)));
  expect(stored.filter((m) => m.startsWith('crash-') && !sentParts.has(m)).length).toBe(0);

  // And the restarted server takes posts as before.
  const after = await postHook(proc.url, world.hookKey, { text: 'after the crashes' });
  expect(after).toMatchObject({ status: 200, text: 'ok' });
}, 180000);
