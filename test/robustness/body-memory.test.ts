// Memory stays bounded under oversized uploads (issue "Measure and harden"): against a server running as its own
// process, 50 concurrent 50 MB chunked uploads (and 50 with a declared 50 MB Content-Length) raise its resident
// memory by far less than the bytes offered, every one is answered 413, and the server still answers afterwards.
import { createTestDatabase, type TestDatabase } from '../support/database';
import { buildServer, spawnServer, type Build, type ServerProcess } from '../support/process';
import { upload, type UploadResult } from './support/upload';
import { createRemoteWorld, postHook, type RemoteWorld } from './support/world';

let build: Build;
let db: TestDatabase;
let proc: ServerProcess;
let world: RemoteWorld;

const MB = 1024 * 1024;
const BOUND = 200 * MB;

beforeAll(async () => {
  build = buildServer();
  db = await createTestDatabase();
  proc = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource, MM_RATELIMITSETTINGS_WEBHOOKPERSEC: '0' }, { entry: build.entry });
  world = await createRemoteWorld(proc.url);
}, 120000);
afterAll(async () => {
  await proc?.stop();
  await db?.drop();
  build?.remove();
});

async function underLoad(run: () => Promise<UploadResult[]>): Promise<{ results: UploadResult[]; baseline: number; peak: number }> {
  // Warm the paths first, so JIT and pools are not counted as growth.
  for (let i = 0; i < 20; i++) await postHook(proc.url, world.hookKey, { text: `warm ${i}` });
  const baseline = proc.memory().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, proc.memory().rss);
  }, 20);
  try {
    const results = await run();
    return { results, baseline, peak: Math.max(peak, proc.memory().rss) };
  } finally {
    clearInterval(sampler);
  }
}

function check(results: UploadResult[], baseline: number, peak: number, label: string): void {
  const offered = results.length * 50 * MB;
  console.log(`${label}: ${results.length} uploads offering ${offered / MB} MB; RSS ${Math.round(baseline / MB)} MB → peak ${Math.round(peak / MB)} MB (+${Math.round((peak - baseline) / MB)} MB)`);
  for (const r of results) {
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text).id).toBe('api.context.request_body_too_large.app_error');
  }
  expect(peak - baseline).toBeLessThan(BOUND);
}

async function stillServing(): Promise<void> {
  const res = await postHook(proc.url, world.hookKey, { text: 'after the flood' });
  expect(res).toMatchObject({ status: 200, text: 'ok' });
  const ping = await fetch(`${proc.url}/api/v4/system/ping?get_server_status=true`);
  expect(ping.status).toBe(200);
}

test('50 concurrent 50 MB chunked uploads: all 413, RSS grows by less than 200 MB, the server still answers', async () => {
  const { results, baseline, peak } = await underLoad(() =>
    Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        upload(proc.url, {
          path: i % 2 ? `/hooks/${world.hookKey}` : '/api/v4/posts',
          headers: i % 2 ? {} : { Authorization: `Bearer ${world.token}` },
          total: 50 * MB,
          chunk: 256 * 1024,
          timeoutMs: 60000,
        }),
      ),
    ),
  );
  check(results, baseline, peak, 'chunked');
  await stillServing();
}, 120000);

test('50 concurrent uploads declaring 50 MB: all 413 before the body is sent, RSS bounded, the server still answers', async () => {
  const { results, baseline, peak } = await underLoad(() =>
    Promise.all(
      Array.from({ length: 50 }, () => upload(proc.url, { path: `/hooks/${world.hookKey}`, total: 50 * MB, declareLength: true, chunk: 256 * 1024, timeoutMs: 60000 })),
    ),
  );
  check(results, baseline, peak, 'declared length');
  await stillServing();
}, 120000);

test('200 concurrent bodies just under the limit are all read and answered, with memory bounded', async () => {
  // Legitimate large bodies are held whole (up to the limit each): the bound is connections × limit, not more.
  for (let i = 0; i < 5; i++) await postHook(proc.url, world.hookKey, { text: `warm ${i}` });
  const baseline = proc.memory().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, proc.memory().rss)), 20);
  const body = { text: 'y'.repeat(290000) };
  const results = await Promise.all(Array.from({ length: 200 }, () => postHook(proc.url, world.hookKey, body, 60000)));
  clearInterval(sampler);
  console.log(`200 × 290 kB bodies: RSS ${Math.round(baseline / MB)} MB → peak ${Math.round(peak / MB)} MB`);
  for (const r of results) expect(r).toMatchObject({ status: 200, text: 'ok' });
  expect(peak - baseline).toBeLessThan(BOUND);
  await stillServing();
}, 120000);
