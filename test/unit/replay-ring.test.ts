// The replay ring: what a resuming client is sent again, as the ring fills, wraps and changes size.
import { ReplayRing } from '../../src/http/replay-ring';

/** A ring fed events 0 … n−1 (each prefix names its seq), as a connection that sent n events would have it. */
function fed(n: number, capacity: number): ReplayRing {
  const ring = new ReplayRing();
  for (let seq = 0; seq < n; seq++) ring.push(`e${seq}`, capacity);
  return ring;
}
const seqs = (ring: ReplayRing, from: number, next: number) => ring.since(from, next)?.map((e) => `${e.seq}:${e.prefix}`);

test('before it is full, everything sent can be replayed from any point', () => {
  const ring = fed(3, 5);
  expect(seqs(ring, 0, 3)).toEqual(['0:e0', '1:e1', '2:e2']);
  expect(seqs(ring, 2, 3)).toEqual(['2:e2']);
  expect(seqs(ring, 3, 3)).toEqual([]);
});

test('once it wraps, only the last `capacity` events are kept, in order', () => {
  const ring = fed(12, 5);
  expect(seqs(ring, 7, 12)).toEqual(['7:e7', '8:e8', '9:e9', '10:e10', '11:e11']);
  expect(seqs(ring, 10, 12)).toEqual(['10:e10', '11:e11']);
  expect(ring.since(6, 12)).toBeUndefined();
  expect(ring.since(0, 12)).toBeUndefined();
  // A seq never sent cannot be resumed from.
  expect(ring.since(13, 12)).toBeUndefined();
});

test('a smaller capacity keeps the newest events; a larger one keeps what it had and grows', () => {
  const ring = fed(12, 5);
  ring.push('e12', 3);
  expect(seqs(ring, 10, 13)).toEqual(['10:e10', '11:e11', '12:e12']);
  expect(ring.since(9, 13)).toBeUndefined();
  ring.push('e13', 6);
  ring.push('e14', 6);
  ring.push('e15', 6);
  expect(seqs(ring, 10, 16)).toEqual(['10:e10', '11:e11', '12:e12', '13:e13', '14:e14', '15:e15']);
  ring.push('e16', 6);
  expect(seqs(ring, 11, 17)?.[0]).toBe('11:e11');
  expect(ring.since(10, 17)).toBeUndefined();
});

test('capacity 0 keeps nothing: only an up-to-date client can resume', () => {
  const ring = fed(4, 0);
  expect(ring.since(4, 4)).toEqual([]);
  expect(ring.since(3, 4)).toBeUndefined();
});

test('dropping to capacity 0 forgets everything; growing again keeps only what is sent from then on', () => {
  const ring = fed(7, 3);
  ring.push('e7', 0);
  expect(ring.since(7, 8)).toBeUndefined();
  expect(ring.since(8, 8)).toEqual([]);
  ring.push('e8', 3);
  ring.push('e9', 3);
  expect(seqs(ring, 8, 10)).toEqual(['8:e8', '9:e9']);
  expect(ring.since(7, 10)).toBeUndefined();
  expect(ring.since(-1, 10)).toBeUndefined();
});
