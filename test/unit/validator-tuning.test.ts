// The route-lookup cache in front of express-openapi-validator's metadata middleware: a request whose method and path
// were seen before gets exactly what the validator would have found, in objects of its own; errors and unmatched
// paths are never remembered; the map stays bounded. Driven through the real validator over the real spec.
import express, { type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { loadSpec } from '../../src/spec';
import { cacheRouteLookups } from '../../src/http/validator-tuning';

const app = express();

function validatorChain(): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: loadSpec() as never,
    validateRequests: { allowUnknownQueryParameters: true, coerceTypes: true, removeAdditional: false },
    validateResponses: false,
    validateSecurity: false,
    fileUploader: false,
  }).filter((m) => m.name !== 'securityMiddleware');
}

type Req = Request & { openapi?: Record<string, unknown> };

function request(method: string, url: string, body?: unknown): Req {
  const headers: Record<string, string> = { 'content-type': 'application/json', host: 'localhost' };
  const path = url.split('?')[0];
  return {
    method,
    url,
    originalUrl: url,
    path,
    baseUrl: '',
    headers,
    query: {},
    params: {},
    body,
    app,
    get: (name: string) => headers[name.toLowerCase()],
    header: (name: string) => headers[name.toLowerCase()],
  } as unknown as Req;
}

/** Runs the chain on one request: undefined when it passed, else the error's status. */
function run(chain: RequestHandler[], req: Req): Promise<number | undefined> {
  return new Promise((resolve) => {
    let i = 0;
    const next = (err?: unknown) => {
      if (err) return resolve((err as { status?: number }).status ?? -1);
      if (i === chain.length) return resolve(undefined);
      void chain[i++](req, {} as never, next);
    };
    next();
  });
}

/** The metadata middleware, counted: how often the validator itself looked the route up. */
function counted(chain: RequestHandler[]): { chain: RequestHandler[]; lookups: () => number } {
  let n = 0;
  const wrapped = chain.map((mw) => {
    if (mw.name !== 'metadataMiddleware') return mw;
    const inner: RequestHandler = (req, res, next) => {
      n++;
      return mw(req, res, next);
    };
    Object.defineProperty(inner, 'name', { value: 'metadataMiddleware' });
    return inner;
  });
  return { chain: wrapped, lookups: () => n };
}

const userId = 'a'.repeat(26);

test('a repeated method + path gets what the validator finds, without its lookup; path parameters are per request', async () => {
  const plain = validatorChain();
  const { chain, lookups } = counted(validatorChain());
  const cached = cacheRouteLookups(chain);

  const expected = request('GET', `/api/v4/users/${userId}`);
  expect(await run(plain, expected)).toBeUndefined();
  const first = request('GET', `/api/v4/users/${userId}`);
  const second = request('GET', `/api/v4/users/${userId}?x=1`);
  expect(await run(cached, first)).toBeUndefined();
  const found = { ...first.openapi, pathParams: { ...(first.openapi?.pathParams as object) } };
  // Apart from the serial number of its validator instance, what the plain validator finds.
  expect({ ...found, serial: 0 }).toEqual({ ...expected.openapi, serial: 0 });
  // The first request mutates its own parameters (as a handler may); the second must not see it.
  (first.params as Record<string, string>).user_id = 'changed';
  expect(await run(cached, second)).toBeUndefined();
  expect(lookups()).toBe(1);
  expect(second.openapi).toEqual(found);
  expect(second.params).toEqual({ user_id: userId });
  expect(second.params).toBe((second.openapi as { pathParams: unknown }).pathParams);
  // A request served from the map mutates its parameters too; the next one still gets the path's own.
  (second.params as Record<string, string>).user_id = 'changed';
  const third = request('GET', `/api/v4/users/${userId}`);
  expect(await run(cached, third)).toBeUndefined();
  expect(third.params).toEqual({ user_id: userId });
  expect(third.openapi).toEqual(found);
  expect(lookups()).toBe(1);
  // Another path of the same route is its own entry, with its own parameters.
  const other = request('GET', `/api/v4/users/${'b'.repeat(26)}`);
  expect(await run(cached, other)).toBeUndefined();
  expect(lookups()).toBe(2);
  expect(other.params).toEqual({ user_id: 'b'.repeat(26) });
});

test('request validation still runs on every request: a cached route with a bad body is a 400', async () => {
  const cached = cacheRouteLookups(validatorChain());
  expect(await run(cached, request('POST', '/api/v4/posts', { channel_id: userId, message: 'hello' }))).toBeUndefined();
  expect(await run(cached, request('POST', '/api/v4/posts', { channel_id: userId, message: 'hello', props: 'not an object' }))).toBe(400);
  expect(await run(cached, request('POST', '/api/v4/posts', { channel_id: userId, message: 'again' }))).toBeUndefined();
});

test('404 and 405 are never remembered: every such request goes through the validator and gets its error', async () => {
  const { chain, lookups } = counted(validatorChain());
  const cached = cacheRouteLookups(chain);
  for (let i = 0; i < 3; i++) {
    expect(await run(cached, request('GET', '/api/v4/no/such/route'))).toBe(404);
    expect(await run(cached, request('DELETE', '/api/v4/posts'))).toBe(405);
  }
  expect(lookups()).toBe(6);
});

test('the map is bounded: beyond its size the oldest entry is looked up again', async () => {
  const { chain, lookups } = counted(validatorChain());
  const cached = cacheRouteLookups(chain, 2);
  const path = (c: string) => `/api/v4/users/${c.repeat(26)}`;
  for (const c of ['a', 'b', 'c']) await run(cached, request('GET', path(c)));
  expect(lookups()).toBe(3);
  await run(cached, request('GET', path('c')));
  await run(cached, request('GET', path('b')));
  expect(lookups()).toBe(3);
  await run(cached, request('GET', path('a')));
  expect(lookups()).toBe(4);
});
