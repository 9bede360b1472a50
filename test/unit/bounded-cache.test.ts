// The bounded least-recently-used cache behind the kept shared answers (src/lib/bounded-cache.ts).
import { BoundedCache } from '../../src/lib/bounded-cache';

const cache = () => new BoundedCache<string>({ maxEntries: 3, maxSize: 10, maxEntrySize: 6, sizeOf: (v) => v.length });

test.each([
  // operations ('+k=v' sets, '?k' reads), then the keys kept (least recently used first) and their total size
  [['+a=1', '+b=22', '+c=333'], ['a', 'b', 'c'], 6],
  // A fourth entry drops the least recently used one; a read makes an entry recent.
  [['+a=1', '+b=22', '+c=333', '+d=4'], ['b', 'c', 'd'], 6],
  [['+a=1', '+b=22', '+c=333', '?a', '+d=4'], ['c', 'a', 'd'], 5],
  // The size bound drops as many as it takes.
  [['+a=1', '+b=22', '+c=333', '+d=55555'], ['b', 'c', 'd'], 10],
  [['+a=1', '+b=22', '+c=333', '+d=666666'], ['c', 'd'], 9],
  // A value over the entry bound is not kept, and the key's old value goes (it is no longer current).
  [['+a=1', '+b=22', '+b=7777777'], ['a'], 1],
  // Setting a key again replaces its value and size.
  [['+a=1', '+a=4444'], ['a'], 4],
])('%j', (ops, keys, total) => {
  const c = cache();
  for (const op of ops) {
    if (op.startsWith('+')) {
      const [k, v] = op.slice(1).split('=');
      c.set(k, v);
    } else c.get(op.slice(1));
  }
  const kept = ['a', 'b', 'c', 'd'].filter((k) => c.get(k) !== undefined);
  expect(new Set(kept)).toEqual(new Set(keys));
  expect(c.size).toBe(keys.length);
  expect(c.totalSize).toBe(total);
});

test('the order of use decides what goes', () => {
  const c = cache();
  c.set('a', '1');
  c.set('b', '2');
  c.set('c', '3');
  expect(c.get('a')).toBe('1');
  c.set('d', '4');
  expect(c.get('b')).toBeUndefined();
  expect(c.get('a')).toBe('1');
  c.delete('a');
  expect(c.get('a')).toBeUndefined();
  expect(c.totalSize).toBe(2);
});
