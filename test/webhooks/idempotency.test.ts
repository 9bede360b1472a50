// Exactly-once webhooks: an Idempotency-Key makes a retry safe (one post, the first answer again), within 24 hours,
// under concurrency, on another server process, and after a kill -9 restart. Every `ok` names its posts in X-Post-Ids.
import { expectAppError } from '../support/assertions';
import { IncomingWebhook } from '@slack/webhook';
import { atTime, createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { spawnServer } from '../support/process';
import { createTestDatabase } from '../support/database';
import type { RawAnswer } from '../support/http';
import { channelPosts, createHook, expectOk, postJson, rawPost } from './hooks-support';

let a: TestServer;
let b: TestServer;
let world: World;

beforeAll(async () => {
  a = await startTestServer();
  b = await startTestServer({}, a.db);
  world = await createWorld(a);
});
afterAll(async () => {
  await b.close();
  await a.close();
});

const keyed = (server: TestServer, hook: string, key: string, payload: unknown) =>
  rawPost(server.url, `/hooks/${hook}`, JSON.stringify(payload), { 'Content-Type': 'application/json', 'Idempotency-Key': key });
const ids = (res: RawAnswer) => String(res.headers['x-post-ids'] ?? '').split(',').filter(Boolean);
const newHook = async () => (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'idem' })).id as string;
const messages = async () => (await channelPosts(world.admin, world.townSquareId)).map((p) => p.message);

test('every ok names the posts it made in X-Post-Ids, one per part of a split message, in order', async () => {
  const hook = await newHook();
  const one = await postJson(a, hook, { text: 'single' });
  expectOk(one);
  expect(ids(one)).toHaveLength(1);
  const read = await world.admin.api.get(`/api/v4/posts/${ids(one)[0]}`).expect(200);
  expect(read.body.message).toBe('single');
  const long = await postJson(a, hook, { text: 'x'.repeat(16383 * 2 + 5) });
  expectOk(long);
  const parts = ids(long);
  expect(parts).toHaveLength(3);
  const bodies = await Promise.all(parts.map((id) => world.admin.api.get(`/api/v4/posts/${id}`).expect(200)));
  expect(bodies.map((r) => [...r.body.message].length)).toEqual([16383, 16383, 5]);
});

test('a repeat with the same key posts nothing and gets the first answer again; another key posts', async () => {
  const hook = await newHook();
  const first = await keyed(a, hook, 'build-4711', { text: 'deployed 4711' });
  expectOk(first);
  const again = await keyed(a, hook, 'build-4711', { text: 'deployed 4711' });
  expectOk(again);
  expect(ids(again)).toEqual(ids(first));
  const other = await keyed(a, hook, 'build-4712', { text: 'deployed 4712' });
  expect(ids(other)).not.toEqual(ids(first));
  const all = await messages();
  expect(all.filter((m) => m === 'deployed 4711')).toHaveLength(1);
  expect(all.filter((m) => m === 'deployed 4712')).toHaveLength(1);
});

test('keys are per hook: the same key on another hook posts', async () => {
  const [h1, h2] = [await newHook(), await newHook()];
  const r1 = await keyed(a, h1, 'same-key', { text: 'per hook' });
  const r2 = await keyed(a, h2, 'same-key', { text: 'per hook' });
  expect(ids(r1)).not.toEqual(ids(r2));
  expect((await messages()).filter((m) => m === 'per hook')).toHaveLength(2);
});

test('50 concurrent requests with one key, half on each of two processes: exactly one post, one answer for all', async () => {
  const hook = await newHook();
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => keyed(i % 2 ? a : b, hook, 'concurrent-key', { text: 'exactly once' })));
  for (const res of answers) expectOk(res);
  expect(new Set(answers.map((r) => ids(r).join(','))).size).toBe(1);
  expect((await messages()).filter((m) => m === 'exactly once')).toHaveLength(1);
});

test('a key posted on one process is replayed by the other', async () => {
  const hook = await newHook();
  const first = await keyed(a, hook, 'cross-process', { text: 'from A' });
  const replay = await keyed(b, hook, 'cross-process', { text: 'from A' });
  expect(ids(replay)).toEqual(ids(first));
  expect((await messages()).filter((m) => m === 'from A')).toHaveLength(1);
});

test('after 24 hours a key is forgotten: the same key posts again', async () => {
  const hook = await newHook();
  const t0 = Date.now();
  const first = await atTime(a, t0, () => keyed(a, hook, 'daily', { text: 'day one' }));
  const within = await atTime(a, t0 + 24 * 3600 * 1000 - 1, () => keyed(a, hook, 'daily', { text: 'day one' }));
  expect(ids(within)).toEqual(ids(first));
  const after = await atTime(a, t0 + 24 * 3600 * 1000 + 1, () => keyed(a, hook, 'daily', { text: 'day one' }));
  expectOk(after);
  expect(ids(after)).not.toEqual(ids(first));
  // The expired answer is purged by the periodic job.
  expect(await atTime(a, t0 + 48 * 3600 * 1000, () => a.parley.app.hookExecution.purgeExpiredKeys())).toBeGreaterThanOrEqual(1);
});

test('a failed request stores nothing: its retry with the same key posts', async () => {
  const hook = await newHook();
  expectAppError(await keyed(a, hook, 'retry-after-400', { text: '' }), 400, 'web.incoming_webhook.text.app_error');
  const ok = await keyed(a, hook, 'retry-after-400', { text: 'fixed' });
  expectOk(ok);
  expect(ids(ok)).toHaveLength(1);
});

test('a deleted hook answers 404 even to a key it once answered', async () => {
  const hook = await newHook();
  expectOk(await keyed(a, hook, 'then-deleted', { text: 'before delete' }));
  await world.admin.api.delete(`/api/v4/hooks/incoming/${hook}`).expect(200);
  expectAppError(await keyed(a, hook, 'then-deleted', { text: 'before delete' }), 404, 'web.incoming_webhook.invalid.app_error', { notContaining: hook });
});

test.each([
  ['256 characters', 'k'.repeat(256)],
  ['a control character', 'bad\tkey'],
  ['non-ASCII', 'clé'],
])('a key of %s is 400 and posts nothing', async (_name, key) => {
  const hook = await newHook();
  const res = await rawPost(a.url, `/hooks/${hook}`, JSON.stringify({ text: 'bad key' }), { 'Content-Type': 'application/json', 'Idempotency-Key': key });
  expectAppError(res, 400, 'web.incoming_webhook.idempotency_key.app_error', { notContaining: hook });
  expect(await messages()).not.toContain('bad key');
});

test('a key of 255 printable characters is fine', async () => {
  const hook = await newHook();
  const key = Array.from({ length: 255 }, (_, i) => String.fromCharCode(0x20 + (i % 95))).join('');
  expectOk(await keyed(a, hook, key, { text: 'long key' }));
  expectOk(await keyed(a, hook, key, { text: 'long key' }));
  expect((await messages()).filter((m) => m === 'long key')).toHaveLength(1);
});

test('@slack/webhook retrying after a lost answer, with a key: the message is posted exactly once', async () => {
  const hook = await newHook();
  let calls = 0;
  // The first answer is lost on its way back (the post is committed): the client sees a network error and retries.
  const lossy: typeof fetch = async (input, init) => {
    calls++;
    const headers = { ...(init?.headers as Record<string, string>), 'Idempotency-Key': 'slack-retry-1' };
    const res = await fetch(input, { ...init, headers });
    if (calls === 1) throw new TypeError('fetch failed');
    return res;
  };
  const client = new IncomingWebhook(`${a.url}/hooks/${hook}`, { fetch: lossy, retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 20 } });
  expect(await client.send({ text: 'sent once, answered twice' })).toEqual({ text: 'ok' });
  expect(calls).toBe(2);
  expect((await messages()).filter((m) => m === 'sent once, answered twice')).toHaveLength(1);
});

test('after a kill -9 and a restart, a repeat is still recognised', async () => {
  const db = await createTestDatabase();
  const env = { MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource };
  let proc = await spawnServer(env);
  try {
    const json = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(`${proc.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
      return { headers: res.headers, body: (await res.json()) as Record<string, string> };
    };
    await json('/api/v4/users', { username: 'admin', email: 'admin@example.com', password: 'Passw0rd!' });
    const token = (await json('/api/v4/users/login', { login_id: 'admin', password: 'Passw0rd!' })).headers.get('token') as string;
    const team = (await json('/api/v4/teams', { name: 'crash', display_name: 'Crash', type: 'O' }, token)).body;
    const town = (await (await fetch(`${proc.url}/api/v4/teams/${team.id}/channels/name/town-square`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { id: string };
    const hook = (await json('/api/v4/hooks/incoming', { channel_id: town.id, display_name: 'crash' }, token)).body.id;
    const send = () => fetch(`${proc.url}/hooks/${hook}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'survives-restarts' }, body: '{"text":"once"}' });
    const first = (await send()).headers.get('x-post-ids');
    await proc.kill();
    proc = await spawnServer(env);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('x-post-ids')).toBe(first);
    const relogin = await json('/api/v4/users/login', { login_id: 'admin', password: 'Passw0rd!' });
    const posts = (await (await fetch(`${proc.url}/api/v4/channels/${town.id}/posts`, { headers: { Authorization: `Bearer ${relogin.headers.get('token')}` } })).json()) as { order: string[] };
    expect(posts.order).toEqual([first]);
  } finally {
    await proc.kill();
    await db.drop();
  }
});
