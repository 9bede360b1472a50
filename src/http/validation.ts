// Request and response validators, compiled once per operation from the spec (the only source of the rules).
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { AppError } from '../model/app-error';
import type { Route, Spec, SpecParameter } from './spec-routes';

export interface OperationValidators {
  /** Checks and coerces (query strings to numbers and booleans) the path and query parameters in place. */
  params(path: Record<string, unknown>, query: Record<string, unknown>): AppError | undefined;
  /** Checks a JSON body as sent: no coercion ("123" is not a number), unknown fields allowed where the spec does. */
  body?: (body: unknown) => AppError | undefined;
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

function describe(where: string, errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => {
      const at = `${where}${e.instancePath}`;
      const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty?: string }).additionalProperty})` : '';
      return `${at} ${e.message ?? 'is invalid'}${extra}`;
    })
    .join('; ');
}

export function invalidParams(detail: string): AppError {
  return new AppError('api.context.invalid_param.app_error', `Invalid or missing parameters: ${detail}`.slice(0, 500), 400, detail);
}

function paramsSchema(parameters: SpecParameter[], location: 'path' | 'query'): Record<string, unknown> {
  const own = parameters.filter((p) => p.in === location);
  return {
    type: 'object',
    properties: Object.fromEntries(own.map((p) => [p.name, rebase(p.schema ?? {})])),
    required: own.filter((p) => p.required || location === 'path').map((p) => p.name),
  };
}

/** Compiles every operation's request validators once, at start-up (its response validators on first use). */
export class Validators {
  private readonly strict: Ajv;
  private readonly coercing: Ajv;
  private readonly byOperation = new Map<string, OperationValidators>();

  constructor(private readonly spec: Spec, routes: Route[]) {
    this.strict = newAjv(false, spec);
    this.coercing = newAjv(true, spec);
    for (const route of routes) this.byOperation.set(route.operationId, this.compile(route));
  }

  for(operationId: string): OperationValidators {
    return this.byOperation.get(operationId) as OperationValidators;
  }

  private compile(route: Route): OperationValidators {
    const path = this.coercing.compile(paramsSchema(route.parameters, 'path'));
    const query = this.coercing.compile(paramsSchema(route.parameters, 'query'));
    const content = route.operation.requestBody?.content ?? {};
    const json = content['application/json'];
    const body = json ? this.strict.compile(rebase(json.schema) as object) : undefined;
    // Responses are validated only under test: their validators (most of the compile time) are built on first use,
    // so a production start does not pay for them.
    let responses: Map<number, ValidateFunction> | undefined;
    const responseValidators = () => {
      if (responses) return responses;
      responses = new Map();
      for (const [code, response] of Object.entries(route.operation.responses ?? {})) {
        const resolved = '$ref' in response ? (this.spec.components?.responses?.[response.$ref.split('/').pop() as string] as { content?: Record<string, { schema?: unknown }> }) : response;
        const schema = resolved?.content?.['application/json']?.schema;
        if (schema && /^\d{3}$/.test(code)) responses.set(Number(code), this.strict.compile(rebase(schema) as object));
      }
      return responses;
    };
    return {
      params: (p, q) => {
        if (!path(p)) return invalidParams(describe('path', path.errors));
        if (!query(q)) return invalidParams(describe('query', query.errors));
        return undefined;
      },
      body: body && ((value) => (body(value) ? undefined : invalidParams(describe('body', body.errors)))),
      bodyTypes: Object.keys(content).map((t) => t.toLowerCase()),
      bodyRequired: route.operation.requestBody?.required === true,
      response: (status, value) => {
        const declared = responseValidators();
        const validate = declared.get(status);
        if (!validate) return declared.size > 0 && value !== undefined ? `no JSON response is declared for status ${status}` : undefined;
        return validate(value) ? undefined : describe('response', validate.errors);
      },
    };
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
      return `event ${String(name)}: ${describe('', own.length ? own.slice(0, 5) : event.errors)}`;
    }
    return response(value) ? undefined : `reply: ${describe('', response.errors)}`;
  };
}
