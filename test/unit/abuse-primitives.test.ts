// The small pieces the abuse defences rest on: GCRA decisions, the hash-slot semaphore, one run per key, and what a
// logged path may show.
import { MemoryRateStore, gcra } from '../../src/lib/gcra';
import { Semaphore } from '../../src/lib/semaphore';
import { SingleFlight } from '../../src/lib/single-flight';
import { loggablePath, scrubSecret } from '../../src/http/logger';

describe('GCRA', () => {
  test('a fresh key may make burst + 1 at once, then one per interval', () => {
    const q = { perSec: 10, burst: 4 };
    let tat: number | undefined;
    const at = (now: number) => {
      const r = gcra(tat, now, q);
      tat = r.tat;
      return r.decision;
    };
    const first = [0, 0, 0, 0, 0].map(() => at(1000));
    expect(first.map((d) => [d.allowed, d.remaining])).toEqual([[true, 4], [true, 3], [true, 2], [true, 1], [true, 0]]);
    const over = at(1000);
    expect(over).toMatchObject({ allowed: false, limit: 5, remaining: 0, retryAfterMs: 100 });
    // A refused request changes nothing: after the interval exactly one more passes.
    expect(at(1099).allowed).toBe(false);
    expect(at(1100).allowed).toBe(true);
    expect(at(1100).allowed).toBe(false);
    // Idle long enough, the whole burst is back.
    expect(at(5000)).toMatchObject({ allowed: true, remaining: 4 });
  });

  test('sending 10× the rate for 10 s accepts rate × t + burst (± 1)', () => {
    const q = { perSec: 5, burst: 20 };
    let tat: number | undefined;
    let accepted = 0;
    for (let t = 0; t < 10000; t += 20) {
      const r = gcra(tat, t, q);
      tat = r.tat;
      if (r.decision.allowed) accepted++;
    }
    expect(Math.abs(accepted - (5 * 10 + 21))).toBeLessThanOrEqual(1);
  });

  test('the memory store forgets the least recently used keys beyond its capacity, and keys do not bleed', () => {
    let now = 0;
    const store = new MemoryRateStore(() => 3, () => now);
    const q = { perSec: 1, burst: 0 };
    expect(store.take('a', q).allowed).toBe(true);
    expect(store.take('a', q).allowed).toBe(false);
    expect(store.take('b', q).allowed).toBe(true);
    store.take('c', q);
    store.take('d', q);
    expect(store.size).toBe(3);
    // "a" was the least recently used: forgotten, so it starts afresh.
    expect(store.take('a', q).allowed).toBe(true);
    now = 1000;
    expect(store.take('d', q).allowed).toBe(true);
  });

  test('a key used again and again (updated in place) stays the most recently used, and still counts', () => {
    let now = 0;
    const store = new MemoryRateStore(() => 2, () => now);
    const q = { perSec: 1, burst: 1 };
    store.take('a', q);
    store.take('b', q);
    expect(store.take('b', q).allowed).toBe(true);
    expect(store.take('b', q).allowed).toBe(false);
    // "a" is the least recently used: "c" evicts it, not the busy "b".
    store.take('c', q);
    expect(store.size).toBe(2);
    expect(store.take('b', q).allowed).toBe(false);
    now = 1000;
    expect(store.take('b', q).allowed).toBe(true);
    expect(store.take('b', q).allowed).toBe(false);
    // "c" then "b" again: "c" is now the oldest and goes when "a" returns (afresh: it was forgotten).
    expect(store.take('a', q).allowed).toBe(true);
    expect(store.take('a', q).allowed).toBe(true);
    expect(store.take('b', q).allowed).toBe(false);
    // A key used again after another moves back to the end: "b" again (re-inserted), then "d" evicts "a".
    store.take('b', q);
    store.take('d', q);
    expect(store.take('a', q).allowed).toBe(true);
    expect(store.take('a', q).allowed).toBe(true);
    expect(store.take('a', q).allowed).toBe(false);
  });
});

test('the semaphore runs at most N at once, queues up to M more in order, and refuses beyond', async () => {
  const slots = new Semaphore(2, 2);
  const started: number[] = [];
  const releases = new Map<number, () => void>();
  const job = (i: number) =>
    slots.run(
      () =>
        new Promise<number>((resolve) => {
          started.push(i);
          releases.set(i, () => resolve(i));
        }),
      () => new Error('busy'),
    );
  const tick = () => new Promise((r) => setImmediate(r));
  const runs = [0, 1, 2, 3].map(job);
  await tick();
  expect(started).toEqual([0, 1]);
  expect(slots.stats).toEqual({ active: 2, waiting: 2 });
  await expect(job(4)).rejects.toThrow('busy');
  releases.get(1)?.();
  await tick();
  expect(started).toEqual([0, 1, 2]);
  releases.get(0)?.();
  await tick();
  expect(started).toEqual([0, 1, 2, 3]);
  releases.get(2)?.();
  releases.get(3)?.();
  expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
  expect(slots.stats).toEqual({ active: 0, waiting: 0 });
});

test('one run per key: callers arriving while it runs share its outcome; after a failure the next caller runs', async () => {
  const flight = new SingleFlight<string>();
  let runs = 0;
  let release!: (v: string) => void;
  const slow = () => {
    runs++;
    return new Promise<string>((resolve) => (release = resolve));
  };
  const all = Promise.all([flight.run('k', slow), flight.run('k', slow), flight.run('k', slow)]);
  await new Promise((r) => setImmediate(r));
  release('first');
  expect(await all).toEqual(['first', 'first', 'first']);
  expect(runs).toBe(1);
  const failing = flight.run('k', () => Promise.reject(new Error('boom')));
  const waiter = flight.run('k', async () => 'second');
  await expect(failing).rejects.toThrow('boom');
  expect(await waiter).toBe('second');
  expect(flight.size).toBe(0);
});

describe('loggable paths', () => {
  const key = 'abcdefghijklmnopqrstuvwxyz';
  test.each([
    [`/hooks/${key}`, '/hooks/{hook_id}'],
    [`//hooks/${key}`, '//hooks/{hook_id}'],
    [`/hooks//${key}/`, '/hooks//{hook_id}/'],
    [`/HOOKS/${key}?x=${key}`, '/HOOKS/{hook_id}'],
    [`/%68ooks/${key}`, '/hooks/{hook_id}'],
    [`/hooks%2F${key}`, '/hooks/{hook_id}'],
    [`/hooks%252F${key}`, '/hooks/{hook_id}'],
    [`/api/v4/hooks/incoming/${key}`, '/api/v4/hooks/incoming/{hook_id}'],
    [`/api/v4//hooks/INCOMING/${key}/`, '/api/v4//hooks/INCOMING/{hook_id}/'],
    ['/api/v4/hooks/incoming', '/api/v4/hooks/incoming'],
    [`/api/v4/users/${key}`, `/api/v4/users/${key}`],
  ])('%s → %s', (url, logged) => {
    expect(loggablePath(url)).toBe(logged);
  });

  test('an error is scrubbed of the key down its chain of causes, keeping its class', () => {
    class DriverError extends Error {}
    const cause = Object.assign(new DriverError(`select * from incoming_webhooks where id = '${key}'`), { sql: `... '${key}'` });
    const err = new TypeError('wrapped', { cause });
    const scrubbed = scrubSecret(err, key);
    expect(scrubbed).toBe(err);
    expect(JSON.stringify({ m: err.message, s: err.stack, c: cause.message, q: cause.sql, cs: cause.stack })).not.toContain(key);
    expect(cause).toBeInstanceOf(DriverError);
  });
});
