// Property-based fuzzing of the JSON API (issue "Measure and harden"). Every operation of generated/openapi.json
// that takes a JSON body gets schema-derived bodies (with real fixture ids where ids go), the same bodies with
// fields replaced by values of any type, nested hostile values and arbitrary JSON; every operation gets random
// path and query parameters. Properties: never a 5xx (responses are also validated against the spec under test,
// so a response that breaks the contract is a 500 here), every error a well-formed AppError, the server stays up.
import fc from 'fast-check';
import { loadSpec } from '../../src/spec';
import type { Config } from '../../src/config/settings';
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { createHook } from '../webhooks/hooks-support';
import { send, type RawAnswer } from '../support/http';
import { assertAnswer, ping } from './support/answers';
import { bodyFor, type Hints } from './support/schema-arb';

const spec = loadSpec() as Record<string, any>;
// FUZZ_RUNS sets the runs per property; FUZZ_SCALE multiplies the default (scripts/ci-extra.sh runs a deeper pass).
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const RUNS = Number(process.env.FUZZ_RUNS ?? 100 * SCALE);
const TIMEOUT = 120000 * Math.max(1, SCALE, RUNS / 100);

let server: TestServer;
let world: World;
let victim: Actor;
let privateId: string;
let offTopicId: string;
let postId: string;
let hookId: string;
let original: Config;
const seen = new Map<string, number>();

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  victim = await createUser(server, world.admin);
  privateId = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: 'fuzz-private', display_name: 'P', type: 'P' }).expect(201)).body.id;
  offTopicId = (await world.admin.api.get(`/api/v4/teams/${world.teamId}/channels/name/off-topic`).expect(200)).body.id;
  postId = (await world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'root' }).expect(201)).body.id;
  hookId = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'fuzz' })).id;
  // Tokens can be created (more code is reached), and the restore below puts everything back after PatchConfig.
  await world.admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableUserAccessTokens: true } }).expect(200);
  original = structuredClone(server.parley.config.get());
});
afterAll(async () => {
  if (process.env.FUZZ_STATS) console.log([...seen].sort().map(([k, n]) => `${n}\t${k}`).join('\n'));
  await server.close();
});

interface Operation {
  operationId: string;
  method: string;
  path: string;
  op: Record<string, any>;
}

const operations: Operation[] = Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method, op]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method) && op?.operationId)
    .map(([method, op]) => ({ operationId: op.operationId as string, method: method.toUpperCase(), path, op })),
);

const jsonBodyOps = operations.filter((o) => o.op.requestBody?.content?.['application/json'] && o.operationId !== 'ExecuteIncomingWebhook');

let seq = 0;
const ids = () => fc.constantFrom(world.admin.id, world.member.id, victim.id);
const hints = (): Hints => ({
  channel_id: fc.constantFrom(world.townSquareId, privateId, offTopicId, ''),
  prev_channel_id: fc.constantFrom(world.townSquareId, offTopicId, ''),
  team_id: fc.constant(world.teamId),
  user_id: ids(),
  user_ids: fc.array(ids(), { minLength: 1, maxLength: 3 }),
  root_id: fc.constantFrom(postId, ''),
  post_root_id: fc.constantFrom(postId, ''),
  id: fc.constantFrom(hookId, postId),
  username: fc.constantFrom('u').map(() => `fz${process.pid}x${++seq}`),
  email: fc.constantFrom('e').map(() => `fz${process.pid}x${++seq}@example.com`),
  password: fc.oneof({ weight: 4, arbitrary: fc.constant('Passw0rd!') }, { weight: 1, arbitrary: fc.constantFrom('short', 'x'.repeat(73), '') }),
  login_id: fc.constantFrom(world.admin.username, world.member.username, victim.username, 'nobody'),
  name: fc.constantFrom('n').map(() => `fz${process.pid}x${++seq}`),
  display_name: fc.constantFrom('Display', ''),
  type: fc.constantFrom('O', 'P', 'I', 'D', ''),
  message: fc.string({ maxLength: 40 }),
  description: fc.string({ maxLength: 40 }),
  locale: fc.constantFrom('en', 'de', 'pt-BR', 'x'.repeat(6)),
});

/**
 * Operations that end a user's sessions or lock them out (a user made a bot loses its password sessions). Aimed at the fixture's own actors they would turn every
 * later case into a 401: only the victim is fair game (its 401s are still well-formed answers).
 */
const LOCKS_OUT = new Set(['UpdateUserActive', 'DeleteUser', 'RevokeAllSessionsForUser', 'RevokeSession', 'UpdatePassword', 'ConvertUserToBot']);

/** Path parameter values: mostly real ids of the fixture, sometimes ids of nothing, the literal `me`, or junk. */
function pathValue(name: string, method: string, operationId: string): fc.Arbitrary<string> {
  const real: Record<string, () => string[]> = {
    user_id: () => (LOCKS_OUT.has(operationId) ? [victim.id] : ['me', world.admin.id, world.member.id, victim.id]),
    team_id: () => [world.teamId],
    channel_id: () => [world.townSquareId, privateId, offTopicId],
    post_id: () => [postId],
    hook_id: () => [hookId],
    username: () => [world.admin.username, world.member.username, 'nobody'],
    name: () => [`team`, 'nope'],
    channel_name: () => ['town-square', 'off-topic', 'fuzz-private', 'nope'],
  };
  // Deleting the fixture's own objects would only make later cases less interesting.
  const fixture = method === 'DELETE' ? [] : (real[name]?.() ?? []);
  // Raw escapes (malformed ones too) as they are, anything else percent-encoded as a client would.
  const me = name === 'user_id' && LOCKS_OUT.has(operationId) ? [] : ['me'];
  const encoded = fc.oneof(
    fc.oneof(fc.stringMatching(/^[a-z0-9]{26}$/), fc.string({ maxLength: 30 }).filter((v) => v !== 'me'), fc.constantFrom(...me, '', '..', 'a'.repeat(300))).map(encodeURIComponent),
    fc.constantFrom('%00', '%E0%A4%A', '%ff', '%', '%zz', '%2F', '%2e%2e'),
  );
  return fixture.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fixture) }, { weight: 1, arbitrary: encoded }) : encoded;
}

function queryString(op: Record<string, any>): fc.Arbitrary<string> {
  const params = ((op.parameters ?? []) as Array<Record<string, any>>)
    .map((p) => (p.$ref ? spec.components.parameters[p.$ref.split('/').pop()] : p))
    .filter((p) => p.in === 'query')
    .map((p) => p.name as string);
  const value = fc.oneof(
    fc.constantFrom('0', '1', '-1', '200', '201', 'true', 'false', '', '1e3', '9007199254740993', '99999999999999999999', 'null', '[]', 'old', 'a%zz'),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom('u').map(() => world.teamId),
  );
  const name = params.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...params) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encodeURIComponent) }) : fc.string({ maxLength: 8 }).map(encodeURIComponent);
  const pair = fc.tuple(name, value, fc.constantFrom('plain', 'array', 'object')).map(([n, v, shape]) => (shape === 'array' ? `${n}[]=${v}` : shape === 'object' ? `${n}[x]=${v}` : `${n}=${v}`));
  return fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

function fillPath(o: Operation, values: Record<string, string>): string {
  return o.path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name]);
}

function pathArbitrary(o: Operation): fc.Arbitrary<string> {
  const names = [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  return fc.record(Object.fromEntries(names.map((n) => [n, pathValue(n, o.method, o.operationId)]))).map((v) => fillPath(o, v as Record<string, string>));
}

/** Mostly the admin (reaches the most code), sometimes a plain member, another user or no one at all. */
const token = () => fc.oneof({ weight: 5, arbitrary: fc.constant(world.admin.token) }, { weight: 2, arbitrary: fc.constant(world.member.token) }, { weight: 1, arbitrary: fc.constant(victim.token) }, { weight: 1, arbitrary: fc.constant('') });

async function call(o: Operation, path: string, tok: string, body: string | undefined, contentType = 'application/json'): Promise<RawAnswer> {
  const headers: Record<string, string> = {};
  if (tok) headers.Authorization = `Bearer ${tok}`;
  if (body !== undefined) headers['Content-Type'] = contentType;
  const res = await send(server.url, { method: o.method, path, headers, body });
  const id = res.status >= 400 && res.headers['content-type'] === 'application/json' ? (JSON.parse(res.text).id as string) : '';
  const detail = process.env.FUZZ_STATS === 'detail' && id ? ` ${(JSON.parse(res.text).detailed_error as string).slice(0, 90)}` : '';
  const label = `${o.operationId} ${res.status} ${id}${detail}`;
  seen.set(label, (seen.get(label) ?? 0) + 1);
  return res;
}

/** Undoes what a fuzzed PatchConfig changed, so later cases still run with webhooks and tokens on. */
async function restoreConfig(): Promise<void> {
  await server.parley.config.patch(original);
}

const params = () => ({ numRuns: RUNS, interruptAfterTimeLimit: TIMEOUT - 30000, markInterruptAsFailure: true });

describe('JSON bodies', () => {
  test.each(jsonBodyOps.map((o) => [o.operationId, o] as const))('%s', async (_id, o) => {
    const schema = o.op.requestBody.content['application/json'].schema;
    // Sometimes the text is not the JSON of a value: broken, truncated, empty, with a BOM or invalid UTF-8.
    const raw = fc.oneof(
      { weight: 8, arbitrary: bodyFor(spec, schema, hints()).map((v) => JSON.stringify(v) ?? 'null') },
      { weight: 1, arbitrary: fc.constantFrom('', '{', '{"a":', '[1,2', 'nul', '\ufeff{}', '{"a":1}{"b":2}', '1e99999', '"\\ud800"', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{}}}') },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')) },
    );
    const contentType = fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'garbage') });
    await fc.assert(
      fc.asyncProperty(pathArbitrary(o), fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString(o.op) }), token(), raw, contentType, async (path, query, tok, body, type) => {
        try {
          assertAnswer(await call(o, path + query, tok, body, type));
        } finally {
          if (o.operationId === 'PatchConfig') await restoreConfig();
        }
      }),
      params(),
    );
    await ping(server.url);
  }, TIMEOUT);
});

test('every operation: random path and query parameters, with and without a session', async () => {
  const usable = operations.filter((o) => o.operationId !== 'Logout' && o.operationId !== 'ExecuteIncomingWebhook');
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...usable).chain((o) => fc.tuple(fc.constant(o), pathArbitrary(o), fc.oneof({ weight: 2, arbitrary: fc.constant('') }, { weight: 3, arbitrary: queryString(o.op) }), token())), async ([o, path, query, tok]) => {
      const body = o.op.requestBody ? '{}' : undefined;
      assertAnswer(await call(o, path + query, tok, body));
    }),
    { ...params(), numRuns: RUNS * 4 },
  );
  await ping(server.url);
}, TIMEOUT);

test('methods, paths and headers the spec does not have', async () => {
  const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'HEAD');
  const path = fc.oneof(
    fc.constantFrom(...operations.map((o) => o.path)).map((p) => p.replace(/\{[^}]+\}/g, 'x')),
    fc.constantFrom('/', '*', '//hooks/x', '/HOOKS/x', '/Hooks/x', '/api/v4', '/api/v4/', '/api/v4/users/', '/api/v4/users//patch', '/API/V4/USERS', '/api/v4/%zz', '/api/v5/users', '/api/v4/users/me/../me', '/api/v4/docs/x', '/api/v4/openapi.json'),
    fc.string({ maxLength: 30 }).map((s) => `/api/v4/${encodeURIComponent(s)}`),
  );
  const headers = fc.record(
    {
      Authorization: fc.constantFrom('Bearer', 'Bearer ', 'BEARER x', 'Token', 'Basic Zm9vOmJhcg==', 'Bearer ' + 'a'.repeat(5000), 'bearer %zz'),
      Cookie: fc.constantFrom('MMAUTHTOKEN=%zz', 'MMAUTHTOKEN=', 'MMAUTHTOKEN', '=;=;', 'a=b; MMAUTHTOKEN=x'.repeat(50)),
      'If-None-Match': fc.constantFrom('*', '"x"', '', 'W/"1"'),
      'Content-Type': fc.constantFrom('application/json', 'text/plain', 'garbage', 'multipart/form-data'),
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(method, path, headers, fc.option(fc.constantFrom('{}', '[]', '{"a":1}', 'x'), { nil: undefined }), async (m, p, h, body) => {
      const res = await send(server.url, { method: m, path: p, headers: h as Record<string, string>, body: m === 'GET' || m === 'HEAD' ? undefined : body });
      if (m === 'HEAD') {
        // No body to check; 501 is an AppError the GET answers too (GetClientConfig without format=old).
        if (res.status >= 500 && res.status !== 501) throw new Error(`HEAD ${p}: ${res.status}`);
        return;
      }
      if (p.startsWith('/api/v4/docs') || p === '/api/v4/openapi.json') {
        if (res.status >= 500) throw new Error(`${m} ${p}: ${res.status}`);
        return;
      }
      assertAnswer(res);
    }),
    params(),
  );
  await ping(server.url);
}, TIMEOUT);

// ---- regressions: cases fuzzing found (kept so they stay fixed) --------------------------------------------------

describe('regressions', () => {
  const as = (o: { method?: string; path: string; body?: string; token?: string }) =>
    send(server.url, { method: o.method ?? 'POST', path: o.path, headers: { Authorization: `Bearer ${o.token ?? world.admin.token}`, 'Content-Type': 'application/json' }, body: o.body });
  const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

  test('CreatePost with props nested 20000 deep: 400, not a stack overflow (500)', async () => {
    const res = await as({ path: '/api/v4/posts', body: `{"channel_id":"${world.townSquareId}","message":"x","props":${deep(20000)}}` });
    assertAnswer(res);
    expect(res.status).toBe(400);
  });

  test('PatchConfig with a section nested 20000 deep: 400', async () => {
    const res = await as({ method: 'PUT', path: '/api/v4/config/patch', body: `{"ServiceSettings":${'['.repeat(20000)}${']'.repeat(20000)}}` });
    assertAnswer(res);
    expect(res.status).toBe(400);
  });

  // applyPatch took "constructor" and "__proto__" for config sections (the `in` operator sees inherited keys) and
  // wrote through to Object: a TypeError, 500.
  test.each(['{"constructor":{"prototype":{}}}', '{"constructor":{"name":"x"}}', '{"__proto__":{"__proto__":{}}}', '{"ServiceSettings":{"constructor":{}}}', '{"ServiceSettings":{"__proto__":{"x":1}}}'])(
    'PatchConfig %s: 200, ignored like any unknown key, and nothing polluted',
    async (body) => {
      const res = await as({ method: 'PUT', path: '/api/v4/config/patch', body });
      assertAnswer(res);
      expect(res.status).toBe(200);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
      await restoreConfig();
    },
  );

  // The validator lets an empty body through when the schema has no required property; the handlers read body.x.
  test.each([
    ['AddChannelMember', 'POST', () => `/api/v4/channels/${world.townSquareId}/members`],
    ['PatchPost', 'PUT', () => `/api/v4/posts/${postId}/patch`],
    ['PatchUser', 'PUT', () => `/api/v4/users/me/patch`],
  ])('%s with an empty body: 400, not a TypeError (500)', async (_id, method, path) => {
    const res = await as({ method, path: path() });
    assertAnswer(res);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).id).toBe('api.context.invalid_body_param.app_error');
  });

  // ajv-formats' int64 accepts 1e308; MariaDB's BIGINT column refused it: a 500 on MySQL only.
  test.each(['1e308', '9223372036854775807', '9007199254740993'])('CreateUserAccessToken with expires_at %s: 400', async (n) => {
    const res = await as({ path: '/api/v4/users/me/tokens', body: `{"description":"big","expires_at":${n}}` });
    assertAnswer(res);
    expect(res.status).toBe(400);
  });

  test.each(['since=1e300', 'since=99999999999999999999'])('GetPostsForChannel with %s: 400', async (q) => {
    const res = await as({ method: 'GET', path: `/api/v4/channels/${world.townSquareId}/posts?${q}` });
    assertAnswer(res);
    expect(res.status).toBe(400);
  });
});
