// Conditional GET in one shape (issue #22): `conditional` answers 304 to a matching If-None-Match before the answer is
// built, and the answer with its ETag otherwise. Every operation with an ETag goes through it.
import { conditional } from '../../src/http/operation';
import type { Versioned } from '../../src/model';

function answer(etag: string | undefined): Versioned<{ n: number }> & { builds: number } {
  const a = { etag, builds: 0, build: async () => ({ n: ++a.builds }) };
  return a;
}

test.each([
  // If-None-Match sent, the answer's ETag, what comes back, whether the answer was built
  ['"v1"', '"v1"', { status: 304, body: undefined, etag: '"v1"' }, 0],
  ['"v0"', '"v1"', { status: 200, body: { n: 1 }, etag: '"v1"' }, 1],
  [undefined, '"v1"', { status: 200, body: { n: 1 }, etag: '"v1"' }, 1],
  // No ETag (a `since` read): always built, never 304, no ETag header.
  ['"v1"', undefined, { status: 200, body: { n: 1 } }, 1],
  [undefined, undefined, { status: 200, body: { n: 1 } }, 1],
])('If-None-Match %s, ETag %s', async (sent, etag, want, builds) => {
  const a = answer(etag);
  const reply = await conditional(sent === undefined ? {} : { 'if-none-match': sent }, a);
  expect(reply).toEqual(want);
  expect(a.builds).toBe(builds);
});

test('extra reply fields (a picture\'s headers) come with the 304 and with the answer', async () => {
  const headers = { 'Content-Type': 'image/png' };
  expect(await conditional({ 'if-none-match': 'x' }, answer('x'), { headers })).toEqual({ status: 304, body: undefined, etag: 'x', headers });
  expect(await conditional({}, answer('x'), { headers })).toEqual({ status: 200, body: { n: 1 }, etag: 'x', headers });
});

test('a shared answer (Versioned.shared) is left to the pipeline: not built here, its build handed on; a match is still 304', async () => {
  const a = { ...answer('x'), shared: true };
  const reply = await conditional({}, a);
  expect(reply).toMatchObject({ status: 200, body: undefined, etag: 'x' });
  expect(a.builds).toBe(0);
  await expect(reply.build?.()).resolves.toEqual({ n: 1 });
  expect(await conditional({ 'if-none-match': 'x' }, a)).toEqual({ status: 304, body: undefined, etag: 'x' });
  // Without an ETag nothing can tell a copy is current: built here, as any other answer.
  const unversioned = { ...answer(undefined), shared: true };
  expect(await conditional({}, unversioned)).toEqual({ status: 200, body: { n: 1 } });
});
