// Bodies sent to hooks that do not exist: the key is looked up (cached) right after its syntax check, so a made-up
// key is refused before a byte of its body is read or decoded, and before the per-hook rate limit (which would
// otherwise hand every made-up key a bucket of its own).
import net from 'node:net';
import { expectAppError } from '../support/assertions';
import { createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { createHook, expectOk, patchConfig, postJson } from './hooks-support';

let server: TestServer;
let world: World;
let seq = 0;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterAll(() => server.close());

/** A well-formed key no hook has: 26 lower-case letters and digits. */
const madeUp = () => `zz${process.pid}x${++seq}`.padEnd(26, 'q').slice(0, 26);

/**
 * Sends only the request head of a POST that declares a body of `declared` bytes, and never sends the body. Resolves
 * with the status line if an answer arrives within `waitMs`, else with null (the server is waiting for the body).
 */
function headOnly(path: string, declared: number, waitMs: number): Promise<string | null> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
    });
    let received = '';
    const done = (answer: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(null), waitMs);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n')) done(received.slice(0, received.indexOf('\r\n')));
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

test('a made-up key gets its 404 before its body is sent: nothing of it is read or decoded', async () => {
  expect(await headOnly(`/hooks/${madeUp()}`, 250_000, 5000)).toBe('HTTP/1.1 404 Not Found');
  // Also a key that is no key at all (the wrong letter case of a real one), on every database.
  const real = (await createHook(world.admin, { channel_id: world.townSquareId })).id as string;
  expect(await headOnly(`/hooks/${real.toUpperCase()}`, 250_000, 5000)).toBe('HTTP/1.1 404 Not Found');
});

test('the answer to a made-up key is the usual 404, with the request body (a large one too) sent as clients send it', async () => {
  const props = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 'v'.repeat(20)]));
  const key = madeUp();
  const res = await postJson(server, key, { text: 'x', props });
  expectAppError(res, 404, 'web.incoming_webhook.invalid.app_error', { notContaining: key });
});

test('a real hook still reads its body (a head alone gets no answer yet) and posts', async () => {
  const key = (await createHook(world.admin, { channel_id: world.townSquareId })).id as string;
  expect(await headOnly(`/hooks/${key}`, 100, 300)).toBeNull();
  expectOk(await postJson(server, key, { text: 'known' }));
});

test('a deleted hook is refused unread at once (this process drops it from the cache on delete)', async () => {
  const key = (await createHook(world.admin, { channel_id: world.townSquareId })).id as string;
  expectOk(await postJson(server, key, { text: 'cached now' }));
  await world.admin.api.delete(`/api/v4/hooks/incoming/${key}`).expect(200);
  expect(await headOnly(`/hooks/${key}`, 250_000, 5000)).toBe('HTTP/1.1 404 Not Found');
});

test('made-up keys get no rate-limit bucket: they answer 404 every time, never 429; real hooks are still limited', async () => {
  await patchConfig(server, world.admin, { RateLimitSettings: { WebhookPerSec: 0.001, WebhookMaxBurst: 0 } });
  try {
    const key = madeUp();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await postJson(server, key, { text: 'x' })).status);
    expect(answers).toEqual([404, 404, 404]);
    const real = (await createHook(world.admin, { channel_id: world.townSquareId })).id as string;
    expectOk(await postJson(server, real, { text: 'first' }));
    expectAppError(await postJson(server, real, { text: 'second' }), 429, 'web.incoming_webhook.rate_limit.app_error');
  } finally {
    await patchConfig(server, world.admin, { RateLimitSettings: { WebhookPerSec: 10, WebhookMaxBurst: 100 } });
  }
});

test('while incoming webhooks are disabled a made-up key answers 501 as every key does, still unread', async () => {
  await patchConfig(server, world.admin, { ServiceSettings: { EnableIncomingWebhooks: false } });
  try {
    expect(await headOnly(`/hooks/${madeUp()}`, 250_000, 5000)).toBe('HTTP/1.1 501 Not Implemented');
    expectAppError(await postJson(server, madeUp(), { text: 'x' }), 501, 'web.incoming_webhook.disabled.app_error');
  } finally {
    await patchConfig(server, world.admin, { ServiceSettings: { EnableIncomingWebhooks: true } });
  }
});
