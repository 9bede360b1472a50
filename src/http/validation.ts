// Request and response checks against the spec (the only source of the rules), through openapi-backend.
import type { IncomingHttpHeaders } from 'node:http';
import Ajv, { type ErrorObject } from 'ajv';
import OpenAPIBackend, { type Document } from 'openapi-backend';
import { AppError } from '../model/app-error';
import type { Route, Spec } from './spec-routes';

export interface RequestToCheck {
  /** Path parameters as the router decoded them; converted in place where the spec types them (integer). */
  params: Record<string, string>;
  /** The whole query (a repeated name is an array); its declared parameters come back converted. */
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when none was sent (and for a streamed operation). */
  body: unknown;
}

export interface OperationValidators {
  /**
   * Checks the parameters (path, query, headers) and the JSON body against the operation's spec: openapi-backend's
   * validateRequest with the operation the router already found. Query strings come back converted (page=2 is a
   * number); a JSON body is checked as sent (no coercion: "123" is not a number).
   */
  request(input: RequestToCheck): { query: Record<string, unknown> } | AppError;
  /** Request body media types the operation takes (lower-case, without parameters). */
  bodyTypes: string[];
  bodyRequired: boolean;
  /** Response schemas by status code (tests validate every answer against them). */
  response(status: number, body: unknown): string | undefined;
}

// OpenAPI's int64 is a size hint to JSON Schema validators; here it means a whole number JavaScript holds exactly
// (a larger one would reach the database as a float or be refused there: a 500 on MySQL).
const formats = { int64: { type: 'number' as const, validate: (v: number) => Number.isSafeInteger(v) }, int32: { type: 'number' as const, validate: (v: number) => Number.isInteger(v) && Math.abs(v) <= 2 ** 31 } };

function newAjv(coerceTypes: boolean, spec: Spec): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes, formats });
  ajv.addSchema({ $id: 'spec', components: rebase(spec.components ?? {}) });
  return ajv;
}

/**
 * The contract as openapi-backend holds it: the spec dereferenced once, each operation's validators compiled on its
 * first request and kept (quick mode: a start-up compiles nothing, so a server starts in milliseconds), query and
 * path strings converted, and the project's meaning of int64/int32. Its registry binds the server's handlers to
 * their operationIds (strict: a handler for an operation the spec lacks stops the start). Its own router is not
 * used: Express's router finds the operation, once.
 */
export async function openContract(spec: Spec): Promise<OpenAPIBackend> {
  const backend = new OpenAPIBackend({
    definition: structuredClone(spec) as unknown as Document,
    quick: true,
    strict: true,
    coerceTypes: true,
    customizeAjv: (ajv) => {
      for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
      return ajv;
    },
  });
  await backend.init();
  return backend;
}

/**
 * A spec schema as JSON Schema for Ajv: `#/components/...` references made to point into the schema registered as
 * "spec", and OpenAPI 3.0's boolean exclusiveMinimum/exclusiveMaximum (draft 4) turned into the numeric form.
 */
function rebase(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema ?? {}).replace(/"\$ref":"#\//g, '"$ref":"spec#/'), (_key, value: unknown) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    const v = value as Record<string, unknown>;
    for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      if (typeof v[flag] !== 'boolean') continue;
      if (v[flag] && typeof v[bound] === 'number') {
        v[flag] = v[bound];
        delete v[bound];
      } else delete v[flag];
    }
    return v;
  });
}

/** openapi-backend's places (`/path/x`, `/query/x`, `/header/x`, `/requestBody/x`) as this API words them. */
function placeOf(instancePath: string): string {
  const [, where = '', ...rest] = instancePath.split('/');
  const name = where === 'requestBody' ? 'body' : where === '' ? 'request' : where;
  return rest.length ? `${name}/${rest.join('/')}` : name;
}

function describe(errors: ErrorObject[] | null | undefined, place: (e: ErrorObject) => string): string {
  return (errors ?? [])
    .map((e) => {
      const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty?: string }).additionalProperty})` : '';
      return `${place(e)} ${e.message ?? 'is invalid'}${extra}`;
    })
    .join('; ');
}

export function invalidParams(detail: string): AppError {
  return new AppError('api.context.invalid_param.app_error', `Invalid or missing parameters: ${detail}`.slice(0, 500), 400, detail);
}

// Where a request's problem is reported first: the path, then the query, headers, the body (as a person reads it).
const ORDER = ['path', 'query', 'header', 'cookie', 'requestBody'];
const rank = (e: ErrorObject) => {
  const i = ORDER.indexOf(e.instancePath.split('/')[1] ?? '');
  return i < 0 ? ORDER.length : i;
};
const aboutBody = (e: ErrorObject) => e.instancePath.startsWith('/requestBody') || (e.instancePath === '' && (e.params as { missingProperty?: string }).missingProperty === 'requestBody');

/** Every operation's request and response checks, from openapi-backend's validators for it. */
export class Validators {
  private readonly byOperation = new Map<string, OperationValidators>();

  constructor(private readonly backend: OpenAPIBackend, routes: Route[]) {
    for (const route of routes) this.byOperation.set(route.operationId, this.bind(route));
  }

  for(operationId: string): OperationValidators {
    return this.byOperation.get(operationId) as OperationValidators;
  }

  private bind(route: Route): OperationValidators {
    const operation = this.backend.getOperation(route.operationId);
    if (!operation) throw new Error(`openapi-backend does not know the operation ${route.operationId}`);
    const content = route.operation.requestBody?.content ?? {};
    // A multipart body is streamed by its handler, which checks its parts; it is never in hand to validate here.
    const streamed = Object.hasOwn(content, 'multipart/form-data');
    const declared = new Set(route.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    const template = route.path;
    const jsonStatuses = new Set(
      Object.entries(route.operation.responses ?? {})
        .filter(([code, response]) => /^\d{3}$/.test(code) && this.jsonSchemaOf(response) !== undefined)
        .map(([code]) => Number(code)),
    );
    return {
      request: ({ params, query, headers, body }) => {
        // openapi-backend reads the path parameters out of the path (the template filled with what the router
        // decoded, encoded again, as it decodes them: a decoded `%` or `/` reaches it intact) and refuses query names the operation does not declare; clients send more (cache busters, other
        // servers' parameters), which this API ignores, as Mattermost does: only the declared ones are checked.
        const own: Record<string, unknown> = {};
        for (const name of declared) if (query[name] !== undefined) own[name] = query[name];
        const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
        let result: ReturnType<OpenAPIBackend['validateRequest']>;
        try {
          result = this.backend.validateRequest({ method: route.method, path, headers: headers as Record<string, string | string[]>, query: own as Record<string, string | string[]>, body }, operation);
        } catch (err) {
          // Whatever the library cannot read is a request it cannot check: the client's mistake, never a 500.
          return invalidParams(`request: ${(err as Error).message}`);
        }
        const errors = (result.errors ?? []).filter((e) => !(streamed && aboutBody(e))).sort((a, b) => rank(a) - rank(b));
        if (errors.length > 0) return invalidParams(describe(errors.slice(0, 1), (e) => placeOf(e.instancePath)));
        // Declared path parameters come back converted too (a {timestamp} is a number), in the router's object.
        Object.assign(params, result.coerced.params as Record<string, string> | undefined);
        return { query: { ...query, ...(result.coerced.query as Record<string, unknown> | undefined) } };
      },
      bodyTypes: Object.keys(content).map((t) => t.toLowerCase()),
      bodyRequired: route.operation.requestBody?.required === true,
      response: (status, value) => {
        if (!jsonStatuses.has(status)) return jsonStatuses.size > 0 && value !== undefined ? `no JSON response is declared for status ${status}` : undefined;
        const result = this.backend.validateResponse(value, operation, status);
        return result.valid ? undefined : describe(result.errors, (e) => `response${e.instancePath}`);
      },
    };
  }

  private jsonSchemaOf(response: unknown): unknown {
    const r = response as { $ref?: string; content?: Record<string, { schema?: unknown }> };
    const resolved = r.$ref ? ((this.backend.definition.components?.responses?.[r.$ref.split('/').pop() as string] ?? {}) as typeof r) : r;
    return resolved.content?.['application/json']?.schema;
  }
}

/**
 * A check of the frames the WebSocket sends (under test): every event against its schema in the spec (the envelope,
 * and the data of its event name), every reply against WebSocketResponse.
 */
export function frameValidator(spec: Spec): (frame: string) => string | undefined {
  const ajv = newAjv(false, spec);
  const event = ajv.compile({ $ref: 'spec#/components/schemas/WebSocketEvent' });
  const response = ajv.compile({ $ref: 'spec#/components/schemas/WebSocketResponse' });
  return (frame) => {
    let value: unknown;
    try {
      value = JSON.parse(frame);
    } catch (err) {
      return `not JSON: ${(err as Error).message}`;
    }
    if (value && typeof value === 'object' && 'event' in value) {
      if (event(value)) return undefined;
      // oneOf reports every branch: the branch of this event's name says what is wrong.
      const name = (value as { event: unknown }).event;
      const own = (event.errors ?? []).filter((e) => !e.schemaPath.includes('/enum') && !(e.keyword === 'oneOf'));
      return `event ${String(name)}: ${describe(own.length ? own.slice(0, 5) : event.errors, (e) => e.instancePath)}`;
    }
    return response(value) ? undefined : `reply: ${describe(response.errors, (e) => e.instancePath)}`;
  };
}
