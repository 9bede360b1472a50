// The mock server built from the spec alone (`npm run mock`): every operation answers a response valid for its
// schema, and POST /hooks/{hook_id} answers every payload exactly as the real server does (checked side by side).
import Ajv, { type ValidateFunction } from 'ajv';
import { loadSpec } from '../../src/spec';
import { startMock, type MockServer } from '../../src/tools/mock';
import { RESERVED_PROPS } from '../../src/webhook/reserved-props';
import { expectAppError } from '../support/assertions';
import { send, type RawAnswer } from '../support/http';
import { createWorld, startTestServer, type TestServer, type World } from '../support/server';

type Json = Record<string, any>;

const spec = loadSpec() as Json;
const ID = 'abcdefghijkmnopqrstuwxyz12';

/** Raw requests (the shared raw client): fetch would add a Content-Type of its own, and the webhook rules depend on its absence. */
const call = (base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawAnswer> =>
  send(base, { method, path, headers, body });

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addFormat('int32', true);
ajv.addFormat('int64', true);
ajv.addSchema(spec, 'spec');
const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
/** A node of the bundle with its $refs followed. */
const deref = (node: Json): Json =>
  typeof node?.$ref === 'string' ? deref((node.$ref as string).slice(2).split('/').reduce((at: Json, key) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec)) : node;

/** Ajv validator for the JSON body of a response, pointing into the bundle so its internal $refs resolve. */
function responseValidator(path: string, method: string, code: string): ValidateFunction {
  const response = spec.paths[path][method].responses[code];
  const at = typeof response.$ref === 'string' ? response.$ref.slice(1) : `/paths/${escape(path)}/${method}/responses/${code}`;
  return ajv.compile({ $ref: `spec#${at}/content/application~1json/schema` });
}

/** A path with its parameters filled in: an id, or a number where the parameter is one (a timestamp). */
function fillPath(path: string, op: Json): string {
  const params = [...(spec.paths[path].parameters ?? []), ...(op.parameters ?? [])].map(deref);
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const type = params.find((p) => p.in === 'path' && p.name === name)?.schema?.type;
    return type === 'integer' || type === 'number' ? '1' : ID;
  });
}

let mock: MockServer;
const mockLog: string[] = [];
beforeAll(async () => {
  mock = await startMock({ listen: '127.0.0.1:0', env: {}, log: (line) => mockLog.push(line) });
});
afterAll(() => mock.close());

describe('operations', () => {
  const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
  const operations = Object.entries(spec.paths as Json)
    .flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as Json })))
    // The webhook has its own tests below; the WebSocket upgrade (101) is not an HTTP answer a mock can give.
    .filter(({ op }) => op.operationId !== 'ExecuteIncomingWebhook' && op.operationId !== 'ConnectWebSocket');

  test.each(operations.map((o) => [o.op.operationId as string, o] as const))('%s answers its first 2xx with a body valid for its schema', async (_id, { path, method, op }) => {
    const code = Object.keys(op.responses).filter((c) => /^2\d\d$/.test(c)).sort()[0];
    const media = op.requestBody?.content?.['application/json'];
    // An upload is a multipart form: one field and one small file.
    const form = op.requestBody?.content?.['multipart/form-data']
      ? `--b\r\nContent-Disposition: form-data; name="channel_id"\r\n\r\n${ID}\r\n--b\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nhello\r\n--b--\r\n`
      : undefined;
    // The spec's example (test/contract/spec-rules.test.ts requires one, on the media type or its schema).
    const body = media?.example ?? (media?.schema ? deref(media.schema).example : undefined);
    if (op.requestBody?.required && !form) expect(body).toBeDefined();
    const answer = await call(
      mock.url,
      method.toUpperCase(),
      fillPath(path, op),
      { Authorization: 'Bearer mock', ...(form ? { 'Content-Type': 'multipart/form-data; boundary=b' } : body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      form ?? (body === undefined ? undefined : JSON.stringify(body)),
    );
    expect(answer.headers['x-request-id']).toMatch(/^[a-z0-9]{26}$/);
    expect(answer.headers['x-version-id']).toBeTruthy();
    // A success that is not JSON (a file, a picture) is bytes of its declared media type (octet-stream for any).
    const declared = Object.keys(op.responses[code].content ?? {});
    if (!declared.includes('application/json')) {
      const type = declared[0].includes('*') ? 'application/octet-stream' : declared[0];
      expect({ status: answer.status, type: answer.headers['content-type'] }).toEqual({ status: Number(code), type });
      expect(answer.text.length).toBeGreaterThan(0);
      return;
    }
    expect({ status: answer.status, type: answer.headers['content-type'] }).toEqual({ status: Number(code), type: 'application/json' });
    const validate = responseValidator(path, method, code);
    expect(validate(answer.json) ? [] : validate.errors).toEqual([]);
  });

  test('login hands out a Token header, as the real server does', async () => {
    const answer = await call(mock.url, 'POST', '/api/v4/users/login', { 'Content-Type': 'application/json' }, JSON.stringify({ login_id: 'a', password: 'b' }));
    expect(answer.status).toBe(200);
    expect(answer.headers.token).toMatch(/^[a-z0-9]{26}$/);
  });

  test('requests are held to the spec: session, parameters, body', async () => {
    expectAppError(await call(mock.url, 'GET', '/api/v4/users/me'), 401, 'api.context.session_expired.app_error');
    const auth = { Authorization: 'BEARER any', 'Content-Type': 'application/json' };
    expectAppError(await call(mock.url, 'GET', '/api/v4/channels/not-an-id', auth), 400, 'api.context.invalid_param.app_error');
    expectAppError(await call(mock.url, 'POST', '/api/v4/posts', auth, JSON.stringify({ message: 'no channel' })), 400, 'api.context.invalid_param.app_error');
    expectAppError(await call(mock.url, 'POST', '/api/v4/posts', auth, '{"message":'), 400, 'api.context.invalid_body_param.app_error');
    // Unknown query parameters and body fields are ignored, as by the server (Client4 sends both).
    const extra = await call(mock.url, 'POST', '/api/v4/posts?set_online=true&unknown=1', auth, JSON.stringify({ channel_id: ID, message: 'hi', extra: 1 }));
    expect(extra.status).toBe(201);
  });

  test('unknown routes and methods answer AppError JSON', async () => {
    expectAppError(await call(mock.url, 'GET', '/api/v4/nothing/here'), 404, 'api.context.404.app_error');
    expectAppError(await call(mock.url, 'DELETE', '/api/v4/system/ping'), 405, 'api.context.405.app_error');
  });

  test('the listen address comes from MM_SERVICESETTINGS_LISTENADDRESS', async () => {
    const configured = await startMock({ env: { MM_SERVICESETTINGS_LISTENADDRESS: '127.0.0.1:0' } });
    try {
      expect(configured.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await call(configured.url, 'GET', '/api/v4/system/ping')).status).toBe(200);
    } finally {
      await configured.close();
    }
  });
});

// The real server beside the mock: the same requests to both get the same answers.
let server: TestServer;
let world: World;
beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterAll(() => server.close());

describe('bad requests: the mock answers as the real server does', () => {
  const deep = (levels: number) => `{"channel_id":"${ID}","message":"deep","props":{"x":${'['.repeat(levels)}${']'.repeat(levels)}}}`;
  interface BadRequest {
    name: string;
    method: string;
    path: string;
    /** Sent with a session (the server's token, any token for the mock), as JSON unless headers say otherwise. */
    session?: 'header' | 'cookie' | 'none';
    headers?: Record<string, string>;
    body?: string;
    status: number;
    id: string;
    /** The message differs (see the case). */
    sameMessage?: false;
  }
  const cases: BadRequest[] = [
    { name: 'no session where the spec requires one', method: 'GET', path: '/api/v4/users/me', session: 'none', status: 401, id: 'api.context.session_expired.app_error' },
    { name: 'no session, and a bad body: the 401 comes first', method: 'POST', path: '/api/v4/posts', session: 'none', body: '{"message":', status: 401, id: 'api.context.session_expired.app_error' },
    { name: 'a cookie session without the CSRF header', method: 'POST', path: '/api/v4/posts', session: 'cookie', body: JSON.stringify({ channel_id: ID, message: 'hi' }), status: 401, id: 'api.context.session_expired.app_error' },
    { name: 'a path parameter that is not an id', method: 'GET', path: '/api/v4/channels/not-an-id', status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'a literal path without the method falls back to a parameter', method: 'GET', path: '/api/v4/users/login', status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'a query parameter of the wrong type', method: 'GET', path: `/api/v4/channels/${ID}/posts?page=abc`, status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'a query parameter below its minimum', method: 'GET', path: `/api/v4/channels/${ID}/posts?per_page=-1`, status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'an int64 beyond what JavaScript holds exactly', method: 'GET', path: `/api/v4/channels/${ID}/posts?since=99999999999999999999`, status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'a required body field missing', method: 'POST', path: '/api/v4/posts', body: JSON.stringify({ message: 'no channel' }), status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'a body field of the wrong type', method: 'POST', path: '/api/v4/posts', body: JSON.stringify({ channel_id: ID, message: 5 }), status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'a body that is not an object', method: 'POST', path: '/api/v4/posts', body: '["hi"]', status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'a body that is not JSON', method: 'POST', path: '/api/v4/posts', body: '{"message":', status: 400, id: 'api.context.invalid_body_param.app_error' },
    { name: 'a body nested deeper than 256 levels', method: 'POST', path: '/api/v4/posts', body: deep(300), status: 400, id: 'api.context.invalid_body_param.app_error' },
    { name: 'no body where one is required', method: 'POST', path: '/api/v4/posts', status: 400, id: 'api.context.invalid_body_param.app_error' },
    { name: 'a text/plain body', method: 'POST', path: '/api/v4/posts', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ channel_id: ID, message: 'hi' }), status: 415, id: 'api.context.invalid_body_param.app_error' },
    { name: 'a form body', method: 'POST', path: '/api/v4/posts', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'message=hi', status: 415, id: 'api.context.invalid_body_param.app_error' },
    { name: 'a body over MaximumPayloadSizeBytes', method: 'POST', path: '/api/v4/posts', body: JSON.stringify({ channel_id: ID, message: 'x'.repeat(300_001) }), status: 413, id: 'api.context.request_body_too_large.app_error' },
    { name: 'an unknown path', method: 'GET', path: '/api/v4/nothing/here', status: 404, id: 'api.context.404.app_error' },
    { name: 'a trailing slash', method: 'GET', path: '/api/v4/system/ping/', status: 404, id: 'api.context.404.app_error' },
    { name: 'a path in another case', method: 'GET', path: '/api/v4/System/ping', status: 404, id: 'api.context.404.app_error' },
    { name: 'a method the path does not have', method: 'DELETE', path: '/api/v4/system/ping', status: 405, id: 'api.context.405.app_error' },
    // Express decodes path parameters, in the server and the mock alike: a malformed escape is a bad URL.
    { name: 'a malformed %-escape in a path parameter', method: 'GET', path: '/api/v4/channels/%zz', status: 400, id: 'api.context.invalid_url_param.app_error' },
  ];

  test.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const ask = (base: string, token: string) => {
      const session = c.session ?? 'header';
      const headers: Record<string, string> = {
        ...(c.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(session === 'header' ? { Authorization: `Bearer ${token}` } : session === 'cookie' ? { Cookie: `MMAUTHTOKEN=${token}` } : {}),
        ...c.headers,
      };
      return call(base, c.method, c.path, headers, c.body);
    };
    const answers = { real: await ask(server.url, world.member.token), mock: await ask(mock.url, 'anytoken') };
    for (const answer of Object.values(answers)) expectAppError(answer, c.status, c.id);
    const summary = (a: RawAnswer) => ({ status: a.status, type: a.headers['content-type'], id: a.json.id, ...(c.sameMessage === false ? {} : { message: a.json.message }) });
    expect(summary(answers.mock)).toEqual(summary(answers.real));
  });
});

describe('POST /hooks/{hook_id}: the mock answers as the real server does', () => {
  let hookKey: string;
  beforeAll(async () => {
    const hook = await world.admin.api.post('/api/v4/hooks/incoming', { channel_id: world.townSquareId, display_name: 'Parity' }).expect(201);
    hookKey = hook.body.id;
  });

  const json = { 'Content-Type': 'application/json' };
  const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const boundary = 'parleyboundary';
  const multipart = (fields: Record<string, string>) =>
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') + `--${boundary}--\r\n`;

  interface Case {
    name: string;
    headers?: Record<string, string>;
    body: string;
    /** Replaces the hook key in the path. */
    key?: string;
    status: number;
    id?: string;
  }
  // Ids as ExecuteIncomingWebhook's 400 documents them in the spec.
  const cases: Case[] = [
    { name: 'JSON', headers: json, body: '{"text":"hello"}', status: 200 },
    { name: 'form with payload=', headers: form, body: `payload=${encodeURIComponent('{"text":"hello"}')}`, status: 200 },
    { name: 'no Content-Type, payload= body', body: `payload=${encodeURIComponent('{"text":"hello"}')}`, status: 200 },
    { name: 'no Content-Type, JSON body', body: '{"text":"hello"}', status: 200 },
    { name: 'text/plain carrying JSON', headers: { 'Content-Type': 'text/plain' }, body: '{"text":"hello"}', status: 200 },
    { name: 'upper-case media type with charset', headers: { 'Content-Type': 'Application/JSON; charset=utf-8' }, body: '{"text":"hello"}', status: 200 },
    { name: 'multipart fields', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: multipart({ text: 'hello', username: 'bot' }), status: 200 },
    { name: 'attachments only', headers: json, body: '{"attachments":[{"text":"only an attachment"}]}', status: 200 },
    { name: 'raw newline in a string', headers: json, body: '{"text":"two\nlines"}', status: 200 },
    { name: 'reserved props (dropped, not refused)', headers: json, body: '{"text":"hi","props":{"from_webhook":"false","override_username":"ceo"}}', status: 200 },
    { name: 'blank type is an ordinary post', headers: json, body: '{"text":"hi","type":"  "}', status: 200 },
    { name: 'empty text', headers: json, body: '{"text":""}', status: 400, id: 'web.incoming_webhook.text.app_error' },
    { name: 'no text, null attachments', headers: json, body: '{"attachments":null}', status: 400, id: 'web.incoming_webhook.text.app_error' },
    { name: 'type not custom_', headers: json, body: '{"text":"hi","type":"foo"}', status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'a field of the wrong type', headers: json, body: '{"text":"hi","username":5}', status: 400, id: 'api.context.invalid_param.app_error' },
    { name: 'bad JSON', headers: json, body: '{"text":', status: 400, id: 'web.incoming_webhook.parse.app_error' },
    { name: 'JSON that is not an object', headers: json, body: '["hi"]', status: 400, id: 'web.incoming_webhook.parse.app_error' },
    { name: 'JSON content type with a payload= body', headers: json, body: 'payload=%7B%7D', status: 400, id: 'web.incoming_webhook.media_type.app_error' },
    { name: 'form without payload field', headers: form, body: 'text=hello', status: 400, id: 'web.incoming_webhook.parse.app_error' },
    { name: 'malformed Content-Type', headers: { 'Content-Type': 'not a media type' }, body: '{"text":"hi"}', status: 400, id: 'web.incoming_webhook.media_type.app_error' },
    { name: 'body over 300000 bytes', headers: json, body: JSON.stringify({ text: 'x'.repeat(300_001) }), status: 413, id: 'api.context.request_body_too_large.app_error' },
    { name: 'malformed hook key', key: 'not-a-key', headers: json, body: '{"text":"hi"}', status: 404, id: 'web.incoming_webhook.invalid.app_error' },
  ];

  test.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const answers = {
      mock: await call(mock.url, 'POST', `/hooks/${c.key ?? 'anyWellFormedKey42'}`, c.headers, c.body),
      real: await call(server.url, 'POST', `/hooks/${c.key ?? hookKey}`, c.headers, c.body),
    };
    for (const answer of Object.values(answers)) {
      expect(answer.headers['x-version-id']).toBeTruthy();
      if (c.status === 200) {
        expect({ status: answer.status, type: answer.headers['content-type'], text: answer.text }).toEqual({ status: 200, type: 'text/plain', text: 'ok' });
      } else {
        expectAppError(answer, c.status, c.id as string);
      }
    }
    const summary = (a: RawAnswer) => ({ status: a.status, id: a.status === 200 ? undefined : a.json.id, message: a.status === 200 ? a.text : a.json.message });
    expect(summary(answers.mock)).toEqual(summary(answers.real));
  });

  test('reserved props: the server overwrites or drops every one the checker names, and the mock warns', async () => {
    const reserved = Object.fromEntries(Object.keys(RESERVED_PROPS).map((key) => [key, key === 'attachments' ? [{ text: 'forged' }] : 'forged']));
    const body = JSON.stringify({ text: 'reserved check', props: { ...reserved, card: 'kept' } });
    mockLog.length = 0;
    expect((await call(mock.url, 'POST', '/hooks/anyWellFormedKey42', json, body)).status).toBe(200);
    expect(mockLog).toEqual(['POST /hooks/{hook_id} 200', ...Object.keys(RESERVED_PROPS).map((key) => expect.stringMatching(new RegExp(`^  warning: props\\.${key}: reserved key; `)))]);

    expect((await call(server.url, 'POST', `/hooks/${hookKey}`, json, body)).status).toBe(200);
    const posts = await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200);
    const post = posts.body.posts[posts.body.order[0]];
    expect(post.message).toBe('reserved check');
    // Overrides are off by default, so the server sets only the two it always sets; nothing forged survives.
    expect(post.props).toEqual({ from_webhook: 'true', webhook_display_name: 'Parity', card: 'kept' });
  });

  test('with incoming webhooks disabled the mock answers 501, as the server does', async () => {
    const disabled = await startMock({ listen: '127.0.0.1:0', env: { MM_SERVICESETTINGS_ENABLEINCOMINGWEBHOOKS: 'false' } });
    try {
      expectAppError(await call(disabled.url, 'POST', '/hooks/anyWellFormedKey42', json, '{"text":"hi"}'), 501, 'web.incoming_webhook.disabled.app_error');
    } finally {
      await disabled.close();
    }
  });
});
