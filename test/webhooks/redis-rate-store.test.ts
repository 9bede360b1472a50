// The Redis rate store on its own, against a private redis-server: the requests of a key that arrive in one turn of
// the event loop share one script call, and are decided exactly as the in-memory store decides the same requests one
// by one; batches of later turns carry on from the stored TAT; an unreachable Redis lets every request of a batch
// through (fail open) and is reported once.
import type Redis from 'ioredis';
import { connectRedis, closeRedis } from '../../src/infra/redis';
import { RedisRateStore } from '../../src/infra/redis-rate-store';
import { MemoryRateStore, type RateDecision, type RateQuota } from '../../src/lib/gcra';
import { freePort } from '../support/process';
import { describeWithRedis, startRedis, type RedisServer } from '../support/redis';

describeWithRedis('RedisRateStore', () => {
  let server: RedisServer;
  let client: Redis;
  let admin: Redis;
  let n = 0;
  const key = () => `k${++n}`;

  beforeAll(async () => {
    server = await startRedis();
    client = connectRedis(server.url, () => {});
    admin = connectRedis(server.url, () => {});
    await Promise.all([client, admin].map((c) => new Promise((resolve) => c.once('ready', resolve))));
  });
  afterAll(async () => {
    await Promise.all([client && closeRedis(client), admin && closeRedis(admin)]);
    await server?.stop();
  });

  /** Script calls (EVALSHA and EVAL) Redis has run since the last reset. */
  async function scriptCalls(): Promise<number> {
    const info = await admin.info('commandstats');
    return [...info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)].reduce((a, m) => a + Number(m[1]), 0);
  }

  test('requests of one key in one turn: one script call, the decisions of the in-memory store taking them one by one', async () => {
    const store = new RedisRateStore(client, 'test:', () => {});
    // 4 a second: interval 250 ms and tolerance 1250 ms are exact doubles, so every figure compares exactly.
    const q: RateQuota = { perSec: 4, burst: 4 };
    await store.take(key(), q); // loads the script (a first EVALSHA answered NOSCRIPT, then EVAL)
    await admin.config('RESETSTAT');
    const fresh = key();
    const got = await Promise.all(Array.from({ length: 8 }, () => store.take(fresh, q)));
    expect(await scriptCalls()).toBe(1);
    const memory = new MemoryRateStore(() => 10, () => 1_700_000_000_000);
    const expected: RateDecision[] = Array.from({ length: 8 }, () => memory.take('x', q));
    expect(got).toEqual(expected);
    expect(got.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
  });

  test('batches of later turns carry on from the stored TAT; keys and quotas are batched apart', async () => {
    const store = new RedisRateStore(client, 'test:', () => {});
    // Practically no refill while the test runs.
    const q: RateQuota = { perSec: 0.001, burst: 2 };
    const a = key();
    const b = key();
    await admin.config('RESETSTAT');
    const first = await Promise.all([store.take(a, q), store.take(a, q), store.take(b, q), store.take(b, { perSec: 0.001, burst: 0 })]);
    // a; b at burst 2; b at burst 0 (a PatchConfig within the turn), sent after the other batch of b.
    expect(await scriptCalls()).toBe(3);
    expect(first.map((d) => d.allowed)).toEqual([true, true, true, false]);
    const second = await Promise.all([store.take(a, q), store.take(a, q), store.take(b, q)]);
    expect(second.map((d) => d.allowed)).toEqual([true, false, true]);
    expect(second[1].remaining).toBe(0);
    // The next request is allowed once one interval (1000 s) has passed, less what already has.
    expect(second[1].retryAfterMs).toBeGreaterThan(990_000);
    expect(second[1].retryAfterMs).toBeLessThanOrEqual(1_000_000);
  });

  test('an unreachable Redis: every request of the batch is allowed, the failure reported once', async () => {
    const down = connectRedis(`redis://127.0.0.1:${await freePort()}`, () => {});
    const failures: unknown[] = [];
    try {
      const store = new RedisRateStore(down, 'test:', (err) => failures.push(err));
      const q: RateQuota = { perSec: 0.001, burst: 0 };
      const got = await Promise.all(Array.from({ length: 5 }, () => store.take('k', q)));
      expect(got.every((d) => d.allowed)).toBe(true);
      expect((await store.take('k', q)).allowed).toBe(true);
      expect(failures).toHaveLength(1);
    } finally {
      down.disconnect();
    }
  });
});
