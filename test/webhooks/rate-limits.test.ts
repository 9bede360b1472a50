// Rate limits: the per-hook limit (on by default: RateLimitSettings.WebhookPerSec / WebhookMaxBurst) and the API limit
// (RateLimitSettings.Enable, off by default), in one process. Rates are set so low during a test that the allowance
// does not refill while it runs: the counts are exact, not timing-dependent.
import request from 'supertest';
import { atTime, createUser, createWorld, login, startTestServer, type TestServer, type World } from '../support/server';
import { expectAppError } from '../support/assertions';
import { channelPosts, createHook, expectOk, patchConfig, postJson } from './hooks-support';

let server: TestServer;
let world: World;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterAll(() => server.close());

const newHook = async () => (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'limited' })).id as string;
const count = async (text: string) => (await channelPosts(world.admin, world.townSquareId)).filter((p) => p.message === text).length;

describe('per hook', () => {
  test('the default allows 10 posts a second with bursts of 100: 101 at once pass, the next is 429 with Retry-After, and posts nothing', async () => {
    const hook = await newHook();
    const other = await newHook();
    // The clock stands still, so the allowance does not refill while the 101 requests are served.
    await atTime(server, Date.now(), async () => {
      const burst = await Promise.all(Array.from({ length: 101 }, () => postJson(server, hook, { text: 'burst' })));
      expect(burst.map((r) => r.status)).toEqual(Array(101).fill(200));
      const over = await postJson(server, hook, { text: 'over the limit' });
      expectAppError(over, 429, 'web.incoming_webhook.rate_limit.app_error', { notContaining: hook });
      // 10 a second: the next post is allowed in 100 ms, which Retry-After rounds up to 1 s.
      expect(over.headers['retry-after']).toBe('1');
      // Each hook has its own allowance.
      expectOk(await postJson(server, other, { text: 'another hook' }));
    });
    expect(await count('over the limit')).toBe(0);
    expect(await count('burst')).toBe(101);
  });

  test('past the limit a client that waits Retry-After gets through', async () => {
    await patchConfig(server, world.admin, { RateLimitSettings: { WebhookPerSec: 2, WebhookMaxBurst: 0 } });
    try {
      const hook = await newHook();
      expectOk(await postJson(server, hook, { text: 'first' }));
      const limited = await postJson(server, hook, { text: 'second' });
      expectAppError(limited, 429, 'web.incoming_webhook.rate_limit.app_error');
      // One post per 500 ms: Retry-After rounds up to 1 s.
      expect(limited.headers['retry-after']).toBe('1');
      // Time passing is the behaviour: after Retry-After the allowance has refilled.
      await new Promise((r) => setTimeout(r, Number(limited.headers['retry-after']) * 1000));
      expectOk(await postJson(server, hook, { text: 'second' }));
      expect(await count('second')).toBe(1);
    } finally {
      await patchConfig(server, world.admin, { RateLimitSettings: { WebhookPerSec: 10, WebhookMaxBurst: 100 } });
    }
  });

  test('the limit is patchable at runtime; WebhookPerSec 0 turns it off', async () => {
    const hook = await newHook();
    await patchConfig(server, world.admin, { RateLimitSettings: { WebhookPerSec: 0.001, WebhookMaxBurst: 2 } });
    try {
      const three = await Promise.all([1, 2, 3].map(() => postJson(server, hook, { text: 'patched' })));
      expect(three.map((r) => r.status)).toEqual([200, 200, 200]);
      expect((await postJson(server, hook, { text: 'patched' })).status).toBe(429);
      await patchConfig(server, world.admin, { RateLimitSettings: { WebhookPerSec: 0 } });
      const free = await Promise.all(Array.from({ length: 20 }, () => postJson(server, hook, { text: 'unlimited' })));
      expect(free.every((r) => r.status === 200)).toBe(true);
    } finally {
      await patchConfig(server, world.admin, { RateLimitSettings: { WebhookPerSec: 10, WebhookMaxBurst: 100 } });
    }
  });
});

describe('the API limit (RateLimitSettings.Enable)', () => {
  const me = (token: string) => request(server.url).get('/api/v4/users/me').set('Authorization', `Bearer ${token}`);

  test('is off by default: no X-RateLimit headers', async () => {
    const res = await me(world.member.token).expect(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  test('on: every answer carries X-RateLimit-*; past MaxBurst + 1 at once, 429 AppError with Retry-After', async () => {
    await patchConfig(server, world.admin, { RateLimitSettings: { Enable: true, PerSec: 1, MaxBurst: 2 } });
    try {
      const seen = await atTime(server, Date.now(), async () => {
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await me(world.member.token));
        return answers;
      });
      expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      expect(seen[0].headers['x-ratelimit-limit']).toBe('3');
      expect(seen.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
      expect(seen.map((r) => r.headers['x-ratelimit-reset'])).toEqual(['1', '2', '3', '3']);
      expectAppError(seen[3], 429, 'api.context.rate_limit.app_error');
      expect(seen[3].headers['retry-after']).toBe('1');
      // Hooks are requests too: over the API limit they get the same answer.
      const hookAnswer = await postJson(server, 'aaaaaaaaaaaaaaaaaaaaaaaaaa', { text: 'x' });
      expect(hookAnswer.status).toBe(429);
    } finally {
      // Let the allowance refill (time passing) before the limits go back to their defaults for the next test.
      await new Promise((r) => setTimeout(r, 1100));
      await server.parley.config.patch({ RateLimitSettings: { Enable: false, PerSec: 10, MaxBurst: 100 } });
    }
  });

  test('VaryByUser: each user has their own allowance (from one address)', async () => {
    const other = await createUser(server, world.admin);
    await server.parley.config.patch({ RateLimitSettings: { Enable: true, PerSec: 1, MaxBurst: 0, VaryByUser: true } });
    try {
      expect((await me(world.member.token)).status).toBe(200);
      expect((await me(world.member.token)).status).toBe(429);
      expect((await me(other.token)).status).toBe(200);
      expect((await me(other.token)).status).toBe(429);
    } finally {
      await server.parley.config.patch({ RateLimitSettings: { Enable: false, PerSec: 10, MaxBurst: 100, VaryByUser: false } });
    }
  });

  test('VaryByHeader: behind a proxy, each forwarded address has its own allowance', async () => {
    await server.parley.config.patch({ RateLimitSettings: { Enable: true, PerSec: 1, MaxBurst: 0, VaryByHeader: 'X-Forwarded-For' } });
    try {
      const from = (ip: string) => me(world.member.token).set('X-Forwarded-For', ip);
      expect((await from('10.0.0.1')).status).toBe(200);
      expect((await from('10.0.0.1')).status).toBe(429);
      expect((await from('10.0.0.2')).status).toBe(200);
    } finally {
      await server.parley.config.patch({ RateLimitSettings: { Enable: false, PerSec: 10, MaxBurst: 100, VaryByHeader: '' } });
    }
  });

  // The clock stands still in these (no refill while they run); an X-Probe header of their own keeps their keys apart
  // from the other tests' (VaryByHeader X-Probe adds it to the key).
  let probes = 0;
  const probe = () => `probe-${process.pid}-${++probes}-${Date.now()}`;

  test('L7: VaryByUser keys by the authenticated user: invented tokens share the address allowance', async () => {
    await server.parley.config.patch({ RateLimitSettings: { Enable: true, PerSec: 1, MaxBurst: 4, VaryByUser: true, VaryByHeader: 'X-Probe' } });
    try {
      const key = probe();
      const statuses = await atTime(server, Date.now(), async () => {
        const out: number[] = [];
        for (let i = 0; i < 12; i++) {
          out.push((await request(server.url).post('/api/v4/users/login').set('Authorization', `Bearer invented${i}x${key}`).set('X-Probe', key).send({ login_id: 'nobody', password: 'x' })).status);
        }
        return out;
      });
      expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
    } finally {
      await server.parley.config.patch({ RateLimitSettings: { Enable: false, PerSec: 10, MaxBurst: 100, VaryByUser: false, VaryByHeader: '' } });
    }
  });

  test("L7: VaryByUser: a user's sessions share one allowance (a new login is not a fresh one)", async () => {
    const user = await createUser(server, world.admin);
    const second = await login(server, user.id, user.username);
    await server.parley.config.patch({ RateLimitSettings: { Enable: true, PerSec: 1, MaxBurst: 0, VaryByUser: true, VaryByHeader: 'X-Probe' } });
    try {
      const key = probe();
      const [first, other] = await atTime(server, Date.now(), async () => [
        await me(user.token).set('X-Probe', key),
        await me(second.token).set('X-Probe', key),
      ]);
      expect(first.status).toBe(200);
      expectAppError(other, 429, 'api.context.rate_limit.app_error');
    } finally {
      await server.parley.config.patch({ RateLimitSettings: { Enable: false, PerSec: 10, MaxBurst: 100, VaryByUser: false, VaryByHeader: '' } });
    }
  });

  test('L7: VaryByHeader X-Forwarded-For keys by the entry the proxy added (the rightmost), not by what the client wrote', async () => {
    await server.parley.config.patch({ RateLimitSettings: { Enable: true, PerSec: 1, MaxBurst: 4, VaryByHeader: 'X-Forwarded-For' } });
    try {
      const proxy = `192.0.2.${1 + (probes++ % 250)}`;
      const ping = (xff: string) => request(server.url).get('/api/v4/system/ping').set('X-Forwarded-For', xff);
      const { spoofed, another } = await atTime(server, Date.now(), async () => {
        const out: number[] = [];
        for (let i = 0; i < 12; i++) out.push((await ping(`10.9.9.${i}, ${proxy}`)).status);
        return { spoofed: out, another: (await ping(`10.9.9.1, 198.51.100.${1 + (probes % 250)}`)).status };
      });
      expect(spoofed).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
      expect(another).toBe(200);
    } finally {
      await server.parley.config.patch({ RateLimitSettings: { Enable: false, PerSec: 10, MaxBurst: 100, VaryByHeader: '' } });
    }
  });

  test('L7: TrustedProxyHops 2: the entry the first of two proxies added is the key', async () => {
    await server.parley.config.patch({ RateLimitSettings: { Enable: true, PerSec: 1, MaxBurst: 1, VaryByHeader: 'X-Forwarded-For', TrustedProxyHops: 2 } });
    try {
      const client = `203.0.113.${1 + (probes++ % 250)}`;
      const ping = (xff: string) => request(server.url).get('/api/v4/system/ping').set('X-Forwarded-For', xff);
      const statuses = await atTime(server, Date.now(), async () => [
        (await ping(`a, ${client}, 10.0.0.1`)).status,
        (await ping(`b, ${client}, 10.0.0.2`)).status,
        (await ping(`c, ${client}, 10.0.0.1`)).status,
        (await ping(`c, ${client}0, 10.0.0.1`)).status,
      ]);
      expect(statuses).toEqual([200, 200, 429, 200]);
      expectAppError(await server.http(world.admin.token).put('/api/v4/config/patch', { RateLimitSettings: { TrustedProxyHops: 0 } }), 400, 'api.context.invalid_param.app_error');
    } finally {
      await server.parley.config.patch({ RateLimitSettings: { Enable: false, PerSec: 10, MaxBurst: 100, VaryByHeader: '', TrustedProxyHops: 1 } });
    }
  });
});
