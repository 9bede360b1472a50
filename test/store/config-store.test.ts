// The shared configuration row: every process seeds it at start (the first one wins) and patches it by
// compare-and-swap on its version, so concurrent patches from several processes never overwrite one another.
import { openDatabase } from '../../src/store/db';
import { createStores, type Stores } from '../../src/store';
import { forEachDatabase, rejection } from './fixtures';

// Versions are Date.now() values in the app: past 2^32, so they must come back as exact numbers.
const V1 = 1_700_000_000_001;
const V2 = 1_700_000_000_002;
const V3 = 1_700_000_000_003;

forEachDatabase((h) => {
  beforeEach(async () => {
    await h.db.knex('configurations').delete();
  });

  test('an empty database has no config: load is undefined, version 0', async () => {
    expect(await h.stores.config.load()).toBeUndefined();
    expect(await h.stores.config.version()).toBe(0);
  });

  test('seed stores the first config; a second seed loses quietly and changes nothing', async () => {
    await h.stores.config.seed('{"first":true}', V1);
    expect(await h.stores.config.load()).toEqual({ value: '{"first":true}', version: V1 });
    expect(await h.stores.config.version()).toBe(V1);
    await h.stores.config.seed('{"second":true}', V2);
    expect(await h.stores.config.load()).toEqual({ value: '{"first":true}', version: V1 });
  });

  test('seeds racing (processes starting together): none fails, exactly one stands', async () => {
    const values = ['a', 'b', 'c', 'd'].map((x) => JSON.stringify({ x }));
    // All settled before anything is asserted: a failed seed must not leave others running into the next test.
    const results = await Promise.allSettled(values.map((v, i) => h.stores.config.seed(v, V1 + i)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const stored = await h.stores.config.load();
    expect(values).toContain(stored?.value);
    expect(stored?.version).toBe(V1 + values.indexOf(stored!.value));
  });

  test('a seed the database refuses for another reason than a lost race fails', async () => {
    // NOT NULL: refused by both databases (MySQL in strict mode), and not a duplicate.
    expect(await rejection(h.stores.config.seed(null as unknown as string, V1))).not.toBe('');
    expect(await h.stores.config.load()).toBeUndefined();
  });

  describe('save is a compare-and-swap on the version', () => {
    test.each([
      ['the current version: saved', V1, true],
      ['an older version: refused', V1 - 1, false],
      ['a version never stored: refused', V3, false],
      ['0 (nothing loaded yet): refused', 0, false],
    ])('expected %s', async (_case, expected, saved) => {
      await h.stores.config.seed('{"v":1}', V1);
      expect(await h.stores.config.save('{"v":2}', V2, expected)).toBe(saved);
      expect(await h.stores.config.load()).toEqual(saved ? { value: '{"v":2}', version: V2 } : { value: '{"v":1}', version: V1 });
      expect(await h.stores.config.version()).toBe(saved ? V2 : V1);
    });

    test('nothing seeded: refused, and nothing is created', async () => {
      expect(await h.stores.config.save('{"v":2}', V2, 0)).toBe(false);
      expect(await h.stores.config.load()).toBeUndefined();
    });

    test('successive saves each from the version the previous one stored', async () => {
      await h.stores.config.seed('{"v":1}', V1);
      expect(await h.stores.config.save('{"v":2}', V2, V1)).toBe(true);
      expect(await h.stores.config.save('{"stale":true}', V3, V1)).toBe(false);
      expect(await h.stores.config.save('{"v":3}', V3, V2)).toBe(true);
      expect(await h.stores.config.load()).toEqual({ value: '{"v":3}', version: V3 });
    });

    async function race(stores: Stores[]): Promise<void> {
      await h.stores.config.seed('{"v":1}', V1);
      // Every writer read V1 and saves its own value under its own new version.
      const writes = stores.map((s, i) => ({ s, value: JSON.stringify({ writer: i }), version: V2 + i }));
      const won = await Promise.all(writes.map((w) => w.s.config.save(w.value, w.version, V1)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = writes[won.indexOf(true)];
      expect(await h.stores.config.load()).toEqual({ value: winner.value, version: winner.version });
    }

    test('concurrent saves from the same version through one pool: exactly one wins', async () => {
      await race([h.stores, h.stores, h.stores, h.stores, h.stores]);
    });

    test('concurrent saves from the same version by separate processes (connections): exactly one wins', async () => {
      const others = [0, 1, 2].map(() => openDatabase({ driverName: h.dialect, dataSource: h.testDb.dataSource }));
      try {
        await race([h.stores, ...others.map(createStores)]);
      } finally {
        for (const db of others) await db.close();
      }
    });
  });
});
