// Property-based fuzzing of POST /hooks/{key} (issue "Measure and harden"): random and mutated payloads in every
// encoding, odd Content-Types and raw bytes. Whatever arrives, the answer is 200 text/plain "ok" or a well-formed
// 4xx AppError, never a 5xx, and the server keeps answering.
import fc from 'fast-check';
import { createWorld, startTestServer, type TestServer, type World } from '../support/server';
import { isSendableHeaderValue, send, type RawAnswer } from '../support/http';
import { assertAnswer, ping } from './support/answers';
import { createHook } from '../webhooks/hooks-support';

let server: TestServer;
let world: World;
let hookKey: string;
let lockedKey: string;

beforeAll(async () => {
  // Thousands of posts to one hook: far past its default rate limit, which has its own tests.
  server = await startTestServer({ MM_RATELIMITSETTINGS_WEBHOOKPERSEC: '0' });
  world = await createWorld(server);
  hookKey = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Fuzz' })).id;
  lockedKey = (await createHook(world.admin, { channel_id: world.townSquareId, display_name: 'Locked', channel_locked: true })).id;
  await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: 'fuzz-private', display_name: 'P', type: 'P' }).expect(201);
});
afterAll(() => server.close());

// FUZZ_RUNS sets the runs per property; FUZZ_SCALE multiplies the default (scripts/ci-extra.sh runs a deeper pass).
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000 * SCALE);
const TIMEOUT = 120000 * Math.max(1, SCALE, RUNS / 1000);
const FIELDS = ['text', 'channel', 'username', 'icon_url', 'icon_emoji', 'attachments', 'type', 'props', 'root_id', 'priority'];

/** Answers seen per status and error id: printed, and checked so a generator that never gets past parsing fails. */
const seen = new Map<string, number>();

async function post(body: string | Buffer, contentType: string | null, key = hookKey): Promise<RawAnswer> {
  const res = await send(server.url, { path: `/hooks/${key}`, body, headers: contentType === null ? {} : { 'Content-Type': contentType } });
  const label = (expect.getState().currentTestName ?? '').slice(0, 12) + ': ' + (res.status === 200 ? '200 ok' : `${res.status} ${res.headers['content-type'] === 'application/json' ? (JSON.parse(res.text).id as string) : '?'}`);
  seen.set(label, (seen.get(label) ?? 0) + 1);
  return res;
}

afterAll(() => {
  if (process.env.FUZZ_STATS) console.log([...seen].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n}\t${k}`).join('\n'));
});

// ---- arbitraries -----------------------------------------------------------------------------------------------

const json = fc.jsonValue({ maxDepth: 4 });
/** Mostly what a real sender puts there, sometimes anything. */
const mostly = <T, U>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<U>, weight = 4) =>
  fc.oneof({ weight, arbitrary: usual }, { weight: 1, arbitrary: other });
const text = mostly(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('<!channel> hi', '<!here>', '<!all>', '<@nobody>', '<http://x|label>', '@all', '@channel', ':tada:', '', ' ', '\u0000', '\ud800', '\u202e'),
  ),
);
const channel = mostly(
  fc.constantFrom('town-square', '#town-square', 'off-topic', '#off-topic'),
  fc.oneof(fc.constantFrom('fuzz-private', '@nobody', '@', '#', '', 'TOWN-SQUARE', '#town-square ', '@@x'), fc.string({ maxLength: 30 })),
);
const attachment = mostly(
  fc.record(
    {
      fallback: text,
      color: mostly(fc.constantFrom('good', '#ff0000'), fc.string()),
      pretext: text,
      text,
      title: text,
      title_link: fc.string(),
      author_name: text,
      fields: fc.array(mostly(fc.record({ title: text, value: json, short: mostly(fc.boolean(), json) }, { requiredKeys: [] }), fc.constant(null)), { maxLength: 4 }),
      actions: json,
      image_url: fc.string(),
    },
    { requiredKeys: [] },
  ),
  fc.oneof(fc.constant(null), json),
);
const optional = {
  channel,
  username: mostly(fc.constantFrom('bot', 'ci-bot'), fc.string({ maxLength: 70 })),
  icon_url: mostly(fc.constant('http://example.com/i.png'), fc.string()),
  icon_emoji: mostly(fc.constantFrom(':tada:', 'tada', ''), fc.string()),
  attachments: mostly(fc.array(attachment, { maxLength: 4 }), fc.constant(null)),
  type: mostly(fc.constantFrom('', 'custom_x'), fc.oneof(fc.constantFrom(' ', 'system_join_channel', 'slack_attachment'), fc.string({ maxLength: 20 }))),
  props: mostly(
    fc.dictionary(fc.oneof(fc.constantFrom('from_webhook', 'card', 'attachments', 'override_username', 'webhook_display_name'), fc.string({ maxLength: 10 })), json, { maxKeys: 5 }),
    fc.constant(null),
  ),
  root_id: fc.oneof(fc.constant(''), fc.string({ maxLength: 30 }), fc.stringMatching(/^[a-z0-9]{26}$/)),
  priority: fc.oneof(fc.constant(null), fc.record({ priority: mostly(fc.constantFrom('', 'important', 'urgent'), fc.string()), requested_ack: json, persistent_notifications: json }, { requiredKeys: [] }), json),
};
/** A payload a real sender could send: text, plus a few optional fields, mostly sensible. */
const validPayload = fc
  .tuple(text, fc.subarray(Object.keys(optional) as Array<keyof typeof optional>, { maxLength: 3 }))
  .chain(([t, keys]) => fc.record(Object.fromEntries(keys.map((k) => [k, optional[k] as fc.Arbitrary<unknown>]))).map((rest) => ({ text: t, ...rest })));

/** Deeply nested arrays/objects, at depths JSON.parse accepts but recursive code would not. */
const deep = fc.tuple(fc.integer({ min: 1, max: 60000 }), fc.boolean()).map(([depth, objects]) =>
  objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth),
);

/** A valid payload with some fields replaced by values of any type, or by hostile ones. */
const mutatedPayloadJson = fc
  .tuple(
    validPayload,
    fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...FIELDS), fc.constantFrom('TEXT', 'Text', 'Channel', 'ATTACHMENTS', '__proto__', 'constructor', 'toString'), fc.string({ maxLength: 8 })),
        fc.oneof(
          json.map((v) => JSON.stringify(v)),
          deep,
          fc.integer({ min: 0, max: 250000 }).map((n) => JSON.stringify('x'.repeat(n))),
          fc.integer({ min: 1, max: 30000 }).map((n) => JSON.stringify('é😀'.repeat(n))),
          fc.constantFrom('1e400', '-0', '123456789012345678901234567890', 'true', '[null]', '[null,null]', '{}', '[]', '""', '[{}]', '[[]]', '{"__proto__":{"x":1}}'),
        ),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  )
  .map(([payload, replacements]) => {
    // Built as text so deep values and duplicate keys reach the server exactly.
    const members = Object.entries(payload).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    for (const [k, v] of replacements) members.push(`${JSON.stringify(k)}:${v}`);
    return `{${members.join(',')}}`;
  });

const payloadJson = fc.oneof(
  { weight: 4, arbitrary: validPayload.map((p) => JSON.stringify(p)) },
  { weight: 3, arbitrary: mutatedPayloadJson },
  { weight: 1, arbitrary: json.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: deep },
);

/** Damage to the bytes of a JSON text: truncation, invalid UTF-8, raw control characters, random bytes. */
const damaged = fc
  .tuple(
    payloadJson,
    fc.oneof({ weight: 6, arbitrary: fc.constant('none') }, { weight: 5, arbitrary: fc.constantFrom('truncate', 'invalid-utf8', 'control', 'random-bytes', 'overlong') }),
    fc.nat(),
    fc.uint8Array({ minLength: 1, maxLength: 16 }),
  )
  .map(([jsonText, how, at, bytes]) => {
    const buf = Buffer.from(jsonText, 'utf8');
    const pos = buf.length === 0 ? 0 : at % buf.length;
    switch (how) {
      case 'truncate':
        return buf.subarray(0, pos);
      case 'invalid-utf8':
        return Buffer.concat([buf.subarray(0, pos), Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf8]), buf.subarray(pos)]);
      case 'control':
        return Buffer.concat([buf.subarray(0, pos), Buffer.from([0, 10, 13, 9, 8, 0x1b]), buf.subarray(pos)]);
      case 'random-bytes':
        return Buffer.concat([buf.subarray(0, pos), Buffer.from(bytes), buf.subarray(pos)]);
      case 'overlong':
        return Buffer.concat([buf.subarray(0, pos), Buffer.from([0xc0, 0xaf, 0xe0, 0x80, 0xaf]), buf.subarray(pos)]);
      default:
        return buf;
    }
  });

const jsonTypes = fc.constantFrom('application/json', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/json;charset=latin1', 'text/plain', '\t application/json \t');
const odd = fc.constantFrom(
  'application/json; boundary=x',
  'application/x-www-form-urlencoded',
  'Application/X-WWW-Form-URLEncoded; charset=utf-8',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary="a b"',
  'multipart/form-data; boundary=' + 'x'.repeat(200),
  'multipart/mixed; boundary=x',
  'text/html',
  'application/octet-stream',
  '*/*',
  'application/*',
  'json',
  'application/',
  '/json',
  ';',
  ' ',
  'application/json wrongtext',
  'application/json;;;',
  'application/json; charset',
  'application/json; =x',
  'application/x-www-form-urlencoded,application/json',
  'a/b/c',
);
const contentType = fc.oneof(
  { weight: 8, arbitrary: jsonTypes },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: odd },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).filter(isSendableHeaderValue) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).filter(isSendableHeaderValue) },
);

// ---- properties ------------------------------------------------------------------------------------------------

// Shrinking is kept (it gives the smallest failing request) but bounded, so a failure cannot stall the suite.
const params = () => ({ numRuns: RUNS, interruptAfterTimeLimit: TIMEOUT - 30000, markInterruptAsFailure: true });

test('JSON bodies: random, mutated, deeply nested, huge and damaged payloads under any Content-Type', async () => {
  await fc.assert(
    fc.asyncProperty(damaged, contentType, async (body, type) => {
      assertAnswer(await post(body, type), { hook: true });
    }),
    params(),
  );
  await ping(server.url);
  // The generators reach every stage: posts are made, and payloads are refused at parse and at validation.
  const count = (label: string) => seen.get(`JSON bodies:: ${label}`) ?? 0;
  expect(count('200 ok')).toBeGreaterThan(RUNS / 20);
  expect(count('400 web.incoming_webhook.parse.app_error')).toBeGreaterThan(0);
  expect(count('400 api.context.invalid_param.app_error')).toBeGreaterThan(0);
}, TIMEOUT);

test('form bodies: payload= with random content, encoded or not, with and without a Content-Type', async () => {
  const field = fc.oneof(payloadJson.map((p) => encodeURIComponent(p)), payloadJson, fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('%', '%zz', '%E0%A4%A', '%ff%fe', '%00', '+', '&&&', '=', '%C0%AF'));
  const body = fc.oneof(
    field.map((f) => `payload=${f}`),
    fc.tuple(fc.array(fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 30 })), { maxLength: 4 }), field).map(
      ([pairs, f]) => [...pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), `payload=${f}`, ...pairs.map(([k]) => k)].join('&'),
    ),
    fc.string({ unit: 'binary', maxLength: 300 }),
  );
  const type = fc.constantFrom(null, 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=ISO-8859-1', 'application/json', 'text/plain');
  await fc.assert(
    fc.asyncProperty(body, type, async (b, t) => {
      assertAnswer(await post(b, t), { hook: true });
    }),
    params(),
  );
  await ping(server.url);
}, TIMEOUT);

test('multipart bodies: payload parts, field parts, file parts, broken boundaries and random content', async () => {
  const partName = mostly(fc.constantFrom('payload', 'text', 'text', 'channel', 'username', 'icon_url', 'icon_emoji', 'type', 'root_id', 'attachments', 'props'), fc.string({ maxLength: 10 }));
  const partValue = fc.oneof({ weight: 3, arbitrary: payloadJson }, { weight: 3, arbitrary: text }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b).toString('latin1')) });
  const part = fc.record({
    name: partName,
    value: partValue,
    file: fc.boolean(),
    headers: mostly(fc.constant(''), fc.constantFrom('Content-Type: text/plain\r\n', 'Content-Transfer-Encoding: base64\r\n', 'Content-Type: application/json; charset=utf-16\r\n', 'X: \u0000\r\n')),
    quote: fc.boolean(),
  });
  const boundary = fc.oneof(fc.constant('XyZBoundary123'), fc.stringMatching(/^[A-Za-z0-9'()+_,.\-]{1,70}$/));
  const damage = fc.oneof({ weight: 3, arbitrary: fc.constant('none') }, { weight: 2, arbitrary: fc.constantFrom('no-close', 'no-crlf', 'wrong-boundary', 'truncate', 'garbage-before', 'no-boundary-param') });
  await fc.assert(
    fc.asyncProperty(fc.array(part, { maxLength: 5 }), boundary, damage, fc.nat(), async (parts, b, how, cut) => {
      let body = '';
      for (const p of parts) {
        const name = p.quote ? `"${p.name.replace(/["\r\n]/g, '')}"` : p.name;
        body += `--${b}\r\nContent-Disposition: form-data; name=${name}${p.file ? '; filename="f.txt"' : ''}\r\n${p.headers}\r\n${p.value}\r\n`;
      }
      body += how === 'no-close' ? '' : `--${b}--\r\n`;
      if (how === 'no-crlf') body = body.replace(/\r\n/g, '\n');
      if (how === 'truncate') body = body.slice(0, body.length === 0 ? 0 : cut % body.length);
      if (how === 'garbage-before') body = `garbage\r\n${body}`;
      const header = how === 'no-boundary-param' ? 'multipart/form-data' : `multipart/form-data; boundary=${how === 'wrong-boundary' ? `${b}x` : b}`;
      assertAnswer(await post(Buffer.from(body, 'latin1'), header), { hook: true });
    }),
    params(),
  );
  await ping(server.url);
}, TIMEOUT);

test('random bytes under any Content-Type, to real, locked and made-up hook keys', async () => {
  const key = fc.oneof(fc.constantFrom(hookKey, lockedKey, 'abc123', 'x'.repeat(26), '', '..', '%2e%2e', 'a%00b', 'a/b', 'a?b=c', '%', '%zz'), fc.string({ maxLength: 40 }).map(encodeURIComponent));
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), contentType, key, async (bytes, type, k) => {
      assertAnswer(await post(Buffer.from(bytes), type, k), { hook: true });
    }),
    params(),
  );
  await ping(server.url);
}, TIMEOUT);

// ---- regressions: cases fuzzing found (kept so they stay fixed) --------------------------------------------------

describe('regressions', () => {
  const cases: Array<[string, string | Buffer, string | null]> = [
    ['props nested 20000 deep (JSON.stringify overflowed the stack: 500)', `{"text":"x","props":{"a":${'['.repeat(20000)}${']'.repeat(20000)}}}`, 'application/json'],
    ['attachments nested 20000 deep', `{"text":"x","attachments":[${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}]}`, 'application/json'],
    ['top-level array nested 100000 deep', `${'['.repeat(100000)}${']'.repeat(100000)}`, 'application/json'],
    ['priority nested deep', `{"text":"x","priority":${'{"p":'.repeat(20000)}1${'}'.repeat(20000)}}`, null],
    ['props nested 257 deep', `{"text":"x","props":${'{"a":'.repeat(256)}1${'}'.repeat(256)}}`, 'application/json'],
  ];
  test.each(cases)('%s', async (_name, body, type) => {
    const res = await post(body, type);
    assertAnswer(res, { hook: true });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).id).toBe('web.incoming_webhook.parse.app_error');
  });

  test('props nested 200 deep are kept', async () => {
    const res = await post(`{"text":"x","props":${'{"a":'.repeat(199)}1${'}'.repeat(199)}}`, 'application/json');
    assertAnswer(res, { hook: true });
    expect(res.status).toBe(200);
  });

  // A "__proto__" member became the payload's prototype, so fields hidden in it ({"__proto__":{"text":"x"}}) were
  // seen by the validator and the post builder. Now it is an unknown field like any other, and ignored.
  test('"__proto__" cannot smuggle fields into a payload', async () => {
    const res = await post('{"__proto__":{"text":"smuggled"}}', 'application/json');
    assertAnswer(res, { hook: true });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).id).toBe('web.incoming_webhook.text.app_error');
  });

  // An unhandled 'error' of busboy's file stream (form cut short inside a file part) killed the whole process.
  test.each([
    ['inside a file part', '--B\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhalf a fi'],
    ['after a file part header', '--B\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n'],
    ['inside a field part', '--B\r\nContent-Disposition: form-data; name="text"\r\n\r\nhalf'],
  ])('multipart cut short %s: 400, and the server is still up', async (_name, body) => {
    const res = await post(body, 'multipart/form-data; boundary=B');
    assertAnswer(res, { hook: true });
    expect(res.status).toBe(400);
    await ping(server.url);
  });
});
