// Two server processes sharing one database (MariaDB in CI's second pass): both take calls from the one durable queue
// (each wakes on its own commits and takes whatever is due, the other's included), and every call is made once.
import { eventually } from '../support/eventually';
import { createPost, createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { callsDone, startIntegration, type Integration } from './outgoing-support';

let a: TestServer;
let b: TestServer;
let world: World;
let integration: Integration;

beforeAll(async () => {
  const env = { MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1' };
  a = await startTestServer(env);
  b = await startTestServer(env, a.db);
  world = await createWorld(a);
  integration = await startIntegration();
});
afterAll(async () => {
  await integration.close();
  await b.close();
  await a.close();
});

test('posts made on both processes at once: each call is made exactly once, and logged once', async () => {
  const word = `both${process.pid}`;
  const hook = (
    await world.admin.api
      .post('/api/v4/hooks/outgoing', { team_id: world.teamId, trigger_words: [word], callback_urls: [`${integration.url}/a`, `${integration.url}/b`] })
      .expect(201)
  ).body;
  const posts = await Promise.all(
    Array.from({ length: 30 }, (_, i) => {
      const on = i % 2 === 0 ? a : b;
      const actor = { ...world.member, api: on.http(world.member.token) };
      return createPost(actor, world.townSquareId, `${word} ${i}`);
    }),
  );
  const ids = posts.map((p) => p.id as string);
  await eventually(async () => {
    for (const id of ids) expect(await callsDone(a, id)).toBe(true);
  }, 20_000);
  const byCall = new Map<string, number>();
  for (const r of integration.received) {
    const key = `${r.fields.post_id}${r.path}`;
    byCall.set(key, (byCall.get(key) ?? 0) + 1);
  }
  expect(byCall.size).toBe(60);
  expect([...byCall.values()].every((n) => n === 1)).toBe(true);
  expect(ids.every((id) => byCall.get(`${id}/a`) === 1 && byCall.get(`${id}/b`) === 1)).toBe(true);
  const log = (await world.admin.api.get(`/api/v4/hooks/outgoing/${hook.id}/deliveries`).expect(200)).body as Array<{ attempt: number }>;
  expect(log).toHaveLength(60);
  expect(log.every((d) => d.attempt === 1)).toBe(true);
});
