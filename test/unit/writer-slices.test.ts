// writeJson writes a large answer slice by slice (the event loop free between slices): the bytes on the wire must be
// exactly the JSON of the body, whatever falls on a slice boundary (a surrogate pair, a multi-byte character, a stored
// props text), and Content-Length must be their count.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { lazyJsonObject } from '../../src/lib/raw-json';
import { writeJson } from '../../src/http/writer';

async function served(body: unknown): Promise<{ text: string; length: number }> {
  const server = http.createServer((_req, res) => writeJson(res, 200, body));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
    return { text, length: Number(res.headers.get('content-length')) };
  } finally {
    server.close();
  }
}

const SLICE = 256 * 1024;

test.each([
  ['a surrogate pair across every slice boundary', 'x'.repeat(SLICE - 13) + '😀'.repeat(SLICE)],
  ['three-byte characters', 'é€'.repeat(SLICE)],
  ['plain ASCII, several slices', 'a'.repeat(3 * SLICE + 7)],
])('%s: the answer is exactly the JSON, with its byte count', async (_label, message) => {
  const props = JSON.stringify({ big: message.slice(0, SLICE + 3), n: [1, 2, 3] });
  const body = { order: ['p1'], posts: { p1: { message, props: lazyJsonObject(props) } } };
  const { text, length } = await served(body);
  expect(text).toBe(JSON.stringify({ order: ['p1'], posts: { p1: { message, props: JSON.parse(props) } } }));
  expect(length).toBe(Buffer.byteLength(text));
});

test('a small answer is one write; a large one is written in slices, with the event loop free between them', async () => {
  const observe = async (body: unknown) => {
    const seen = { writes: [] as number[], endedAtOnce: false, endedNextTurn: false };
    const server = http.createServer((_req, res) => {
      const write = res.write.bind(res) as (chunk: Buffer) => boolean;
      res.write = ((chunk: Buffer) => {
        seen.writes.push(chunk.length);
        return write(chunk);
      }) as typeof res.write;
      writeJson(res, 200, body);
      seen.endedAtOnce = res.writableEnded;
      setImmediate(() => (seen.endedNextTurn = res.writableEnded));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).arrayBuffer();
    } finally {
      server.close();
    }
    return seen;
  };
  const small = await observe({ a: 'b' });
  expect(small).toMatchObject({ writes: [], endedAtOnce: true });
  const large = await observe({ m: 'y'.repeat(8 * SLICE) });
  expect(large.endedAtOnce).toBe(false);
  expect(large.endedNextTurn).toBe(false);
  expect(large.writes.length).toBeGreaterThanOrEqual(8);
  expect(Math.max(...large.writes)).toBeLessThanOrEqual(2 * SLICE);
});
