// House rules every operation and schema of the published spec must follow (DESIGN.md, "Conventions"), checked on
// the bundle clients actually receive. Each rule lists every offender, so one run shows everything to fix.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { handlers } from '../../src/http/handlers';

type Json = Record<string, any>;

const spec: Json = JSON.parse(readFileSync(join(__dirname, '../../generated/openapi.json'), 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const APP_ERROR = '#/components/schemas/AppError';
/** Operations that cannot fail on the client's side: Logout answers 200 even without a session, as Mattermost does. */
const NO_4XX = new Set<string>([]);
/**
 * Error answers that are deliberately not an AppError, with the schema they use instead. GetPing: with
 * use_rest_semantics an unhealthy server answers 500 with its status report, as Mattermost does.
 */
const NOT_APP_ERROR: Record<string, string> = { 'GetPing 500': '#/components/schemas/SystemStatusResponse' };
/**
 * Statuses a rule below asks for that an operation does not declare, each with its reason: the spec declares what the
 * server answers and never a status it cannot send. A stale exemption (the operation is gone, or it declares the
 * status after all) fails 'every status exemption is still needed'.
 *
 * None is needed for 429, 500 or 503. The API rate limit (RateLimitSettings.Enable) is checked in the listener for
 * every request before it is dispatched (src/http/server.ts; the WebSocket upgrade checks it too), GetPing and
 * POST /hooks/{hook_id} included. Any handler can meet a bug (500), and every operation can meet the database (503):
 * the API stage looks up the session of any token sent, also to a public operation such as GetPing (src/http/api.ts),
 * the webhook endpoint its hook. The documents served beside the API (/api/v4/openapi.json, /api/v4/docs) are not
 * operations of the spec.
 */
const UNDECLARED: Record<string, string> = {
  'ExecuteIncomingWebhook 415':
    'the webhook endpoint refuses no media type (docs/webhook-rules.md rules 1-3, as Mattermost): any type other than ' +
    'form-encoded or multipart is read as JSON (text/plain senders exist), and a Content-Type that cannot be parsed is ' +
    '400 web.incoming_webhook.media_type.app_error, which its 400 documents',
  'ExecuteCommandWebhook 415':
    "a slash command's response URL refuses no media type, as Mattermost's: application/json is a CommandResponse and " +
    'any other type (text/plain and none included) is the text of the reply',
};
/** Methods whose body the API stage never reads (BODILESS in src/http/api.ts): any other request's body is read. */
const BODILESS = new Set(['get', 'head']);

interface Op {
  name: string;
  method: string;
  operationId: string;
  op: Json;
}

const operations: Op[] = Object.entries(spec.paths as Json).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, method: m, operationId: item[m].operationId, op: item[m] })),
);

function resolve(node: Json): Json {
  let out = node;
  for (let hops = 0; out && typeof out.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${node.$ref}`);
    out = (out.$ref as string)
      .slice(2)
      .split('/')
      .reduce((at: Json, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
    if (out === undefined) throw new Error(`unresolved $ref ${node.$ref}`);
  }
  return out;
}

/**
 * Visits a schema and every schema nested in it (properties, items, additionalProperties, allOf/anyOf/oneOf/not),
 * with a readable location. With `follow`, $refs are followed too (each named schema once).
 */
function walkSchema(schema: Json, where: string, visit: (schema: Json, where: string) => void, follow: boolean, seen = new Set<string>()): void {
  if (!schema || typeof schema !== 'object') return;
  if (typeof schema.$ref === 'string') {
    if (!follow || seen.has(schema.$ref)) return;
    seen.add(schema.$ref);
    walkSchema(resolve(schema), where, visit, follow, seen);
    return;
  }
  visit(schema, where);
  const walk = (child: Json, at: string) => walkSchema(child, at, visit, follow, seen);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) walk(property, `${where}.${name}`);
  if (schema.items) walk(schema.items, `${where}[]`);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${where}{}`);
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    ((schema[keyword] ?? []) as Json[]).forEach((branch, i) => walk(branch, `${where}/${keyword}/${i}`));
  }
  if (schema.not) walk(schema.not, `${where}/not`);
}

/**
 * Properties without a description; a property that is only a $ref takes the referenced schema's description.
 * Named schemas are not entered: each is checked once, under its own name.
 */
function undescribedProperties(root: Json, where: string): string[] {
  const out: string[] = [];
  walkSchema(root, where, (schema, at) => {
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) {
      const described = typeof property.description === 'string' && property.description.trim() !== '';
      const viaRef = typeof property.$ref === 'string' && typeof resolve(property).description === 'string';
      if (!described && !viaRef) out.push(`${at}.${name}`);
    }
  }, false);
  return out;
}

function offenders(rule: (op: Op) => boolean): string[] {
  return operations.filter((o) => !rule(o)).map((o) => `${o.name} (${o.operationId ?? 'no operationId'})`);
}

test('the spec has operations to check', () => {
  expect(operations.length).toBeGreaterThan(30);
});

test('every operation has a PascalCase operationId, unique across the spec', () => {
  expect(offenders((o) => typeof o.operationId === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(o.operationId))).toEqual([]);
  const ids = operations.map((o) => o.operationId);
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
});

test('every operation has exactly one tag, declared at the top level', () => {
  const declared = new Set(((spec.tags ?? []) as Json[]).map((t) => t.name));
  expect(offenders((o) => Array.isArray(o.op.tags) && o.op.tags.length === 1 && declared.has(o.op.tags[0]))).toEqual([]);
});

test('every operation has a summary and a description naming its permissions', () => {
  expect(offenders((o) => typeof o.op.summary === 'string' && o.op.summary.trim() !== '')).toEqual([]);
  expect(offenders((o) => typeof o.op.description === 'string' && o.op.description.includes('Permissions:'))).toEqual([]);
});

test('every operation declares a 4xx answer', () => {
  expect(offenders((o) => NO_4XX.has(o.operationId) || Object.keys(o.op.responses ?? {}).some((code) => /^4\d\d$/.test(code)))).toEqual([]);
  // An exemption that no longer applies is dropped, not kept around.
  for (const id of NO_4XX) {
    const op = operations.find((o) => o.operationId === id);
    expect(op && Object.keys(op.op.responses).some((code) => /^4\d\d$/.test(code))).toBe(false);
  }
});

/** The request body's media types and their entries (empty without a body). */
function requestMedia(o: Op): Array<[string, Json]> {
  return Object.entries(((o.op.requestBody ? resolve(o.op.requestBody) : {}).content ?? {}) as Json);
}

/** `codes` the operation neither declares nor is exempted from (UNDECLARED), each named with the operation and why it is asked for. */
function undeclaredStatuses(o: Op, codes: string[], why: string): string[] {
  return codes
    .filter((code) => !Object.hasOwn(o.op.responses ?? {}, code) && !Object.hasOwn(UNDECLARED, `${o.operationId} ${code}`))
    .map((code) => `${o.operationId} (${o.name}) declares no ${code}: ${why}`);
}

test('every request body has an example for each of its media types (on the media type or its schema): the mock test sends it', () => {
  const missing: string[] = [];
  for (const o of operations) {
    for (const [type, media] of requestMedia(o)) {
      const onMedia = media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;
      const onSchema = media.schema !== undefined && resolve(media.schema).example !== undefined;
      if (!onMedia && !onSchema) missing.push(`${o.operationId} (${o.name}) has no request body example for ${type}`);
    }
  }
  expect(missing).toEqual([]);
});

test('an operation that takes a body declares 413 and 415; one sent by a method with a body declares 413', () => {
  const missing = operations.flatMap((o) => {
    if (requestMedia(o).length > 0) {
      return undeclaredStatuses(o, ['413', '415'], 'it takes a request body (413: over the size limit; 415: a media type it does not read)');
    }
    // src/http/api.ts reads the body of every request but a GET or HEAD up to MaximumPayloadSizeBytes, also where the
    // operation takes none: an oversized one is 413 there too. Such a body is never parsed, so never 415.
    return BODILESS.has(o.method) ? [] : undeclaredStatuses(o, ['413'], `a ${o.method.toUpperCase()} body over MaximumPayloadSizeBytes is read and refused although the operation takes none`);
  });
  expect(missing).toEqual([]);
});

test('every operation declares 429 (TooManyRequests), 500 and 503', () => {
  const missing = operations.flatMap((o) => [
    ...undeclaredStatuses(o, ['429'], 'the API rate limit covers every request'),
    ...undeclaredStatuses(o, ['500', '503'], 'any operation can meet a bug (500) and the database (503)'),
  ]);
  expect(missing).toEqual([]);
});

test('every status exemption is still needed: its operation exists and does not declare the status', () => {
  const stale = Object.keys(UNDECLARED).filter((key) => {
    const [operationId, code] = key.split(' ');
    const o = operations.find((x) => x.operationId === operationId);
    return !o || Object.hasOwn(o.op.responses ?? {}, code);
  });
  expect(stale).toEqual([]);
});

test('every 4xx and 5xx answer is an AppError (listed exemptions excepted)', () => {
  const bad: string[] = [];
  for (const o of operations) {
    for (const [code, ref] of Object.entries((o.op.responses ?? {}) as Json)) {
      if (!/^[45]\d\d$/.test(code)) continue;
      const content = resolve(ref).content ?? {};
      const types = Object.keys(content);
      const want = NOT_APP_ERROR[`${o.operationId} ${code}`] ?? APP_ERROR;
      if (types.length !== 1 || types[0] !== 'application/json' || content['application/json'].schema?.$ref !== want) {
        bad.push(`${o.operationId} ${code}: ${JSON.stringify(types.map((t) => [t, content[t].schema?.$ref ?? 'inline schema']))}`);
      }
    }
  }
  expect(bad).toEqual([]);
  // Every exemption names an error answer that exists (a stale one is dropped, not kept around).
  const declared = operations.flatMap((o) => Object.keys(o.op.responses ?? {}).map((code) => `${o.operationId} ${code}`));
  expect(Object.keys(NOT_APP_ERROR).filter((key) => !declared.includes(key))).toEqual([]);
});

test('every schema property has a description', () => {
  const missing = Object.entries(spec.components.schemas as Json).flatMap(([name, schema]) => undescribedProperties(schema, name));
  expect(missing).toEqual([]);
});

test('every inline request and response schema property has a description', () => {
  const missing: string[] = [];
  for (const o of operations) {
    const body = o.op.requestBody ? resolve(o.op.requestBody) : undefined;
    for (const [type, media] of Object.entries((body?.content ?? {}) as Json)) {
      if (media.schema && !media.schema.$ref) missing.push(...undescribedProperties(media.schema, `${o.operationId} request ${type}`));
    }
    for (const [code, ref] of Object.entries((o.op.responses ?? {}) as Json)) {
      for (const [type, media] of Object.entries((resolve(ref).content ?? {}) as Json)) {
        if (media.schema && !media.schema.$ref) missing.push(...undescribedProperties(media.schema, `${o.operationId} ${code} ${type}`));
      }
    }
  }
  expect(missing).toEqual([]);
});

test('no request body forbids unknown fields (clients send extras; the server ignores them)', () => {
  const closed: string[] = [];
  for (const o of operations) {
    const body = o.op.requestBody ? resolve(o.op.requestBody) : undefined;
    for (const [type, media] of Object.entries((body?.content ?? {}) as Json)) {
      walkSchema(media.schema, `${o.operationId} ${type}`, (schema, at) => {
        if (schema.additionalProperties === false) closed.push(at);
      }, true);
    }
  }
  expect(closed).toEqual([]);
});

test('the operations of the spec are exactly the operations the server handles', () => {
  expect(operations.map((o) => o.operationId).sort()).toEqual(Object.keys(handlers).sort());
});
