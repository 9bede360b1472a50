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

describe('bounded by size as well as by count (review round 3, H2)', () => {
  test('past the size bound the oldest frames go first; the count bound still applies', () => {
    const ring = new ReplayRing();
    // Frames of 10 characters, at most 35 characters kept: three fit, the fourth pushes the oldest out.
    for (let seq = 0; seq < 5; seq++) ring.push(`f${seq}`.padEnd(10, '.'), 100, 35);
    expect(ring.size).toBe(3);
    expect(ring.length).toBe(30);
    expect(ring.since(2, 5)?.map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(ring.since(1, 5)).toBeUndefined();
    // One large frame makes room by pushing out as many small ones as it needs.
    ring.push('L'.repeat(25), 100, 35);
    expect(ring.since(4, 6)?.map((e) => `${e.seq}:${e.prefix.length}`)).toEqual(['4:10', '5:25']);
    expect(ring.since(3, 6)).toBeUndefined();
  });

  test('a frame larger than the bound on its own empties the ring: only an up-to-date client can resume', () => {
    const ring = fed(3, 10);
    ring.push('x'.repeat(50), 10, 40);
    expect(ring.size).toBe(0);
    expect(ring.length).toBe(0);
    expect(ring.since(4, 4)).toEqual([]);
    expect(ring.since(3, 4)).toBeUndefined();
    ring.push('e4', 10, 40);
    expect(seqs(ring, 4, 5)).toEqual(['4:e4']);
  });

  test('many large frames: what a connection holds stays under the bound whatever it is sent', () => {
    const ring = new ReplayRing();
    const big = 'p'.repeat(300_000);
    for (let seq = 0; seq < 128; seq++) ring.push(`${seq}${big}`, 128, 1024 * 1024);
    expect(ring.length).toBeLessThanOrEqual(1024 * 1024);
    expect(ring.size).toBe(3);
    expect(ring.since(125, 128)?.map((e) => e.seq)).toEqual([125, 126, 127]);
  });

  test('the slots of frames let go no longer hold them (nothing large stays reachable past the bound)', () => {
    const ring = new ReplayRing();
    for (let seq = 0; seq < 4; seq++) ring.push('y'.repeat(100) + seq, 10, 250);
    const held = (ring as unknown as { items: string[] }).items.reduce((n, s) => n + s.length, 0);
    expect(held).toBe(ring.length);
    expect(held).toBeLessThanOrEqual(250);
  });

  test('wrapping with both bounds keeps the order and the seqs right', () => {
    const ring = new ReplayRing();
    const sizes = [5, 1, 7, 3, 2, 9, 4, 4, 1, 6, 8, 2, 3];
    sizes.forEach((n, seq) => ring.push(`${seq}:`.padEnd(n + 3, '-'), 4, 20));
    // Rebuild what should be kept from the newest back: at most 4 frames, at most 20 characters.
    const want: number[] = [];
    let total = 0;
    for (let seq = sizes.length - 1; seq >= 0 && want.length < 4; seq--) {
      const len = Math.max(`${seq}:`.length, sizes[seq] + 3);
      if (total + len > 20) break;
      total += len;
      want.unshift(seq);
    }
    expect(ring.since(want[0], sizes.length)?.map((e) => e.seq)).toEqual(want);
    expect(ring.since(want[0] - 1, sizes.length)).toBeUndefined();
    expect(ring.length).toBe(total);
  });
});
