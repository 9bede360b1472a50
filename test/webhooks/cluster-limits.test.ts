// Rate limits across processes: two servers on one database sharing Redis (ClusterSettings) share each hook's
// allowance. When Redis goes away, requests are allowed (fail open, as Mattermost's limiter) and nothing crashes.
import { expectAppError } from '../support/assertions';
import { createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { describeWithRedis, startRedis, type RedisServer } from '../support/redis';
import { createHook, expectOk, postJson } from './hooks-support';

describeWithRedis('shared rate limits', () => {
  let redis: RedisServer;
  let a: TestServer;
  let b: TestServer;
  let world: World;

  beforeAll(async () => {
    redis = await startRedis();
    const env = { MM_CLUSTERSETTINGS_ENABLE: 'true', MM_CLUSTERSETTINGS_REDISURL: redis.url };
    a = await startTestServer(env);
    b = await startTestServer(env, a.db);
    world = await createWorld(a);
    // Almost no refill while the test runs: the counts are exact.
    await a.parley.config.patch({ RateLimitSettings: { WebhookPerSec: 0.001, WebhookMaxBurst: 3 } });
    await b.parley.config.refresh();
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.stop();
  });

  test("a hook's allowance is one for both processes: 4 posts split over A and B pass, the 5th is refused on either", async () => {
    const hook = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'shared' })).id as string;
    for (const server of [a, b, a, b]) expectOk(await postJson(server, hook, { text: 'shared allowance' }));
    expectAppError(await postJson(b, hook, { text: 'fifth' }), 429, 'web.incoming_webhook.rate_limit.app_error');
    expectAppError(await postJson(a, hook, { text: 'fifth' }), 429, 'web.incoming_webhook.rate_limit.app_error');
  });

  test('with Redis gone, posts are allowed (fail open) and the servers stay up', async () => {
    const hook = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'open' })).id as string;
    for (let i = 0; i < 4; i++) expectOk(await postJson(a, hook, { text: 'before the outage' }));
    expectAppError(await postJson(a, hook, { text: 'limited' }), 429);
    await redis.stop();
    for (let i = 0; i < 5; i++) expectOk(await postJson(i % 2 ? a : b, hook, { text: 'during the outage' }));
    await a.http().get('/api/v4/system/ping').expect(200);
  });
});
