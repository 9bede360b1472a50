// The contract proxy's checker: one exchange (a request and the answer it got) held against the spec by
// express-openapi-validator, through its public middleware and options, in an Express app of its own. The client's
// exchange is never touched: the checker sees a copy of it, after the fact.
import http, { type IncomingHttpHeaders } from 'node:http';
import { Socket } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { findToken } from '../http/auth';
import { mediaType } from '../http/request-input';
import { specRoutes, type Route, type Spec } from '../http/spec-routes';
import { MAX_JSON_DEPTH, nestingExceeds } from '../lib/json-depth';

/**
 * A body as the proxy kept it for the check: nothing sent; its bytes (JSON or a form, up to the cap); a body of
 * such a type that was larger than the cap; a body of another type (a file, a picture, multipart), never kept.
 */
export type BodySample =
  | { kind: 'none' }
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'skipped'; reason: string }
  | { kind: 'opaque'; type: string; size: number };

export interface ExchangeRecord {
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  headers: IncomingHttpHeaders;
  requestBody: BodySample;
  status: number;
  responseHeaders: IncomingHttpHeaders;
  responseBody: BodySample;
  /** A WebSocket upgrade: only the handshake is checked, the frames pass through. */
  upgrade?: boolean;
}

export interface Finding {
  direction: 'request' | 'response';
  /** Where in the request or the response: /body/channel_id, /query/page, /params/user_id, /headers/content-type, /status. */
  path: string;
  message: string;
}

export interface Verdict {
  /** The operation the request matched, if any. */
  operationId?: string;
  /** Contract violations. */
  findings: Finding[];
  /** What was not checked, and things worth knowing that break no rule (a query parameter the server ignores). */
  notes: string[];
  /** The path is not in the spec (404 from the validator), or the path is but not with this method (405). */
  unknown?: 'path' | 'method';
}

/**
 * Paths outside the contract: the web client and its assets, and the published contract itself (the spec and its
 * HTML reference). express-openapi-validator leaves them alone (its `ignorePaths`).
 */
const OUTSIDE_CONTRACT = /^(?!\/api\/v4\/|\/hooks\/)|^\/api\/v4\/(openapi\.json|docs)(\/|$)/;

const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');

interface CheckState {
  exchange: ExchangeRecord;
  verdict: Verdict;
  phase: 'request' | 'response';
  /** The validator refused the request, so the answer is checked in a second pass (response checks only). */
  requestRefused: boolean;
  /** Body findings are dropped when the body was not given to the validator (too large, multipart, not parsed). */
  bodyUnchecked: boolean;
  done(): void;
}

interface OpenApiMatch {
  openapi?: { openApiRoute: string; schema: { operationId?: string } };
}

interface ValidatorError {
  status?: number;
  message?: string;
  path?: string;
  errors?: Array<{ path?: string; message?: string }>;
  headers?: Record<string, string>;
}

/** A validator's error path as the report shows it: the request's /body/..., the response's /body/... */
function findingPath(path: string | undefined, direction: Finding['direction']): string {
  if (!path) return '';
  if (direction === 'response') return path.replace(/^\/response(?=\/|$)/, '/body') || '/body';
  return path;
}

export class ContractChecker {
  private readonly full: Express;
  private readonly responsesOnly: Express;
  private readonly routes = new Map<string, Route>();
  private readonly states = new WeakMap<object, CheckState>();
  private readonly socket = new Socket();

  constructor(private readonly spec: Record<string, unknown>) {
    for (const route of specRoutes(spec as unknown as Spec, '/')) this.routes.set(route.operationId, route);
    this.full = this.validatorApp(true);
    this.responsesOnly = this.validatorApp(false);
  }

  /**
   * Loads the spec into both validator apps (express-openapi-validator does it on its first request: seconds, with
   * the event loop held), so that the first exchange of a client is not the one that waits.
   */
  async ready(): Promise<void> {
    const refused = { method: 'GET', url: '/api/v4/system/ping?warm=up', headers: {}, requestBody: { kind: 'none' }, status: 200, responseHeaders: {}, responseBody: { kind: 'none' } } as const;
    await this.run(this.full, refused, { findings: [], notes: [] }, { value: undefined, unchecked: false });
    await this.run(this.responsesOnly, refused, { findings: [], notes: [] }, { value: undefined, unchecked: false });
  }

  /** Checks one exchange: the request against its operation, and the answer against the responses it declares. */
  async check(exchange: ExchangeRecord): Promise<Verdict> {
    const verdict: Verdict = { findings: [], notes: [] };
    const body = this.requestBody(exchange, verdict);
    const first = await this.run(this.full, exchange, verdict, body);
    // A refused request stops express-openapi-validator's chain before the answer is looked at; the answer still
    // deserves its check.
    if (first.requestRefused && !verdict.unknown) await this.run(this.responsesOnly, exchange, verdict, body);
    const route = verdict.operationId ? this.routes.get(verdict.operationId) : undefined;
    if (route) this.ownChecks(route, exchange, verdict);
    return verdict;
  }

  /**
   * The checks the validator leaves to its user: the session (the spec says `http bearer`, Parley also takes
   * `Token` and the MMAUTHTOKEN cookie, so express-openapi-validator's security check stays off and the server's
   * own rule is applied), and query parameters the spec does not declare (allowed, and ignored by the server).
   */
  private ownChecks(route: Route, exchange: ExchangeRecord, verdict: Verdict): void {
    if (route.needsSession && !findToken({ headers: exchange.headers } as http.IncomingMessage)) {
      verdict.findings.unshift({
        direction: 'request',
        path: '/headers/authorization',
        message: `${route.operationId} requires a session: send "Authorization: Bearer <token>" (or "Token <token>"), or the MMAUTHTOKEN cookie`,
      });
    }
    const q = exchange.url.indexOf('?');
    if (q < 0) return;
    const declared = new Set(route.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    for (const name of new Set(new URLSearchParams(exchange.url.slice(q + 1)).keys())) {
      if (!declared.has(name)) verdict.notes.push(`query parameter "${name}" is not in the spec; the server ignores it`);
    }
  }

  private validatorApp(checkRequests: boolean): Express {
    const app = express();
    app.disable('x-powered-by');
    app.disable('etag');
    // Matched as the server matches: a trailing slash or another case is another path.
    app.set('strict routing', true);
    app.set('case sensitive routing', true);
    // express-openapi-validator checks an answer when it goes through res.json. This app's answers go nowhere (the
    // client got the target's bytes already), so res.json ends in a sink: the check runs, nothing is serialised.
    app.use((_req: Request, res: Response, next: NextFunction) => {
      res.json = function sink(this: Response) {
        return this;
      } as Response['json'];
      next();
    });
    app.use(
      OpenApiValidator.middleware({
        apiSpec: structuredClone(this.spec) as never,
        // The spec is linted and tested on its own (npm run lint:spec, test/contract/spec-rules.test.ts).
        validateApiSpec: false,
        // Every problem of an exchange at once; unknown query parameters are notes, not violations (see ownChecks).
        validateRequests: checkRequests ? { allErrors: true, allowUnknownQueryParameters: true } : false,
        validateResponses: {
          allErrors: true,
          onError: (err, _body, req) => this.responseError(this.state(req), err as ValidatorError),
        },
        validateSecurity: false,
        // Uploads are streamed to the target, never parsed here.
        fileUploader: false,
        ignorePaths: OUTSIDE_CONTRACT,
        // References resolved once, at start: each operation's validators then compile from its own schemas, not
        // from the whole components section (about 3x faster to load and to compile).
        $refParser: { mode: 'dereference' },
      }),
    );
    app.use((req: Request, res: Response) => this.answer(this.state(req), req as Request & OpenApiMatch, res));
    app.use((err: unknown, req: Request, _res: Response, _next: NextFunction) => this.failed(this.state(req), req as Request & OpenApiMatch, err as ValidatorError));
    return app;
  }

  private state(req: object): CheckState {
    return this.states.get(req) as CheckState;
  }

  /** One pass of the exchange through a validator app, as a request of its own that answers nowhere. */
  private run(app: Express, exchange: ExchangeRecord, verdict: Verdict, body: RequestBody): Promise<CheckState> {
    return new Promise((resolve) => {
      const req = new http.IncomingMessage(this.socket);
      req.method = exchange.method;
      req.url = exchange.url;
      req.headers = { ...exchange.headers };
      const state: CheckState = { exchange, verdict, phase: 'request', requestRefused: false, bodyUnchecked: body.unchecked, done: () => resolve(state) };
      if (body.value !== undefined) (req as IncomingWithBody).body = body.value;
      this.states.set(req, state);
      const res = new http.ServerResponse(req);
      (app as unknown as (req: http.IncomingMessage, res: http.ServerResponse, next: (err?: unknown) => void) => void)(req, res, (err?: unknown) => {
        if (err) this.failed(state, req as unknown as Request & OpenApiMatch, err as ValidatorError);
        else state.done();
      });
    });
  }

  /**
   * The request body for the validator, read once per exchange: parsed JSON or form fields. Anything else (too
   * large, multipart, not JSON) is not given to it, and its body findings are dropped.
   */
  private requestBody(exchange: ExchangeRecord, verdict: Verdict): RequestBody {
    const sample = exchange.requestBody;
    const type = mediaType(exchange.headers['content-type']);
    if (sample.kind === 'none') return { value: undefined, unchecked: false };
    if (sample.kind === 'skipped') {
      verdict.notes.push(`request body not checked: ${sample.reason}`);
      return { value: undefined, unchecked: true };
    }
    if (sample.kind === 'opaque') {
      verdict.notes.push(`request body not checked: ${sample.type || 'no Content-Type'}, ${sample.size} bytes`);
      return { value: undefined, unchecked: true };
    }
    if (type === 'application/x-www-form-urlencoded') return { value: Object.fromEntries(new URLSearchParams(sample.bytes.toString('utf8'))), unchecked: false };
    if (type !== '' && !isJson(type)) return { value: undefined, unchecked: true };
    const value = parseJson(sample.bytes, 'request', verdict);
    return { value, unchecked: value === undefined };
  }

  /** The end of the validator's chain: the request passed (or was not checked); the answer goes through res.json. */
  private answer(state: CheckState, req: Request & OpenApiMatch, res: Response): void {
    state.phase = 'response';
    const { exchange, verdict } = state;
    if (!req.openapi) {
      verdict.notes.push('not checked: outside the API contract');
      state.done();
      return;
    }
    verdict.operationId = req.openapi.schema.operationId;
    const type = mediaType(exchange.responseHeaders['content-type']);
    const sample = exchange.responseBody;
    if (exchange.upgrade) {
      verdict.notes.push(exchange.status === 101 ? 'WebSocket: the frames are passed through, not checked' : 'WebSocket upgrade refused');
    } else if (exchange.status >= 500) {
      verdict.notes.push(`response not checked: a ${exchange.status} answer (express-openapi-validator checks 1xx-4xx answers)`);
    } else if (exchange.method === 'HEAD') {
      verdict.notes.push('response not checked: a HEAD answer has no body');
    } else if (sample.kind === 'skipped') {
      verdict.notes.push(`response body not checked: ${sample.reason}`);
    } else if (sample.kind === 'opaque' || (sample.kind === 'bytes' && !isJson(type))) {
      this.checkMedia(state, type);
    } else {
      const body = sample.kind === 'bytes' ? parseJson(sample.bytes, 'response', verdict) : undefined;
      if (sample.kind === 'none' || body !== undefined) {
        res.status(exchange.status);
        if (exchange.responseHeaders['content-type']) res.set('Content-Type', exchange.responseHeaders['content-type']);
        res.json(body);
      }
    }
    state.done();
  }

  /** A non-JSON answer (a file, a picture, the webhook's "ok"): its status and media type must be declared. */
  private checkMedia(state: CheckState, type: string): void {
    const route = this.routes.get(state.verdict.operationId ?? '');
    if (!route) return;
    const status = String(state.exchange.status);
    const responses = route.operation.responses ?? {};
    type Declared = { content?: Record<string, unknown> } | { $ref: string } | undefined;
    let declared: Declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (declared && '$ref' in declared) declared = (this.spec as { components?: { responses?: Record<string, Declared> } }).components?.responses?.[declared.$ref.split('/').pop() as string];
    if (!declared || '$ref' in declared) {
      state.verdict.findings.push({ direction: 'response', path: '/status', message: `no schema defined for status code '${status}' in the openapi spec` });
      return;
    }
    const types = Object.keys(declared.content ?? {});
    const fits = types.some((t) => t === type || t === '*/*' || (t.endsWith('/*') && type.startsWith(t.slice(0, -1))));
    if (types.length === 0) state.verdict.findings.push({ direction: 'response', path: '/body', message: 'response should NOT have a body' });
    else if (!fits) state.verdict.findings.push({ direction: 'response', path: '/headers/content-type', message: `${type || 'no Content-Type'} is not a media type declared for status ${status} (${types.join(', ')})` });
  }

  private responseError(state: CheckState, err: ValidatorError): void {
    const items = err.errors?.length ? err.errors : [{ path: err.path === state.exchange.url ? '/status' : err.path, message: err.message }];
    for (const item of items) {
      const path = item.path === state.exchange.url ? '/status' : findingPath(item.path, 'response');
      state.verdict.findings.push({ direction: 'response', path, message: item.message ?? 'invalid' });
    }
  }

  /** An error out of the validator's chain: the request refused (or, after the request, the answer). */
  private failed(state: CheckState, req: Request & OpenApiMatch, err: ValidatorError): void {
    const { verdict, exchange } = state;
    const direction = state.phase;
    if (req.openapi?.schema.operationId) verdict.operationId = req.openapi.schema.operationId;
    if (direction === 'request') state.requestRefused = true;
    const path = exchange.url.split('?')[0];
    if (err.status === 404) {
      verdict.unknown = 'path';
      verdict.findings.push({ direction: 'request', path: '(path)', message: `${path} is not a path of the spec` });
    } else if (err.status === 405) {
      verdict.unknown = 'method';
      const allowed = err.headers?.Allow ? ` (the spec has ${err.headers.Allow.toUpperCase()})` : '';
      verdict.findings.push({ direction: 'request', path: '(method)', message: `${exchange.method} is not an operation of ${path}${allowed}` });
    } else if (err.status === 415) {
      verdict.findings.push({ direction: 'request', path: '/headers/content-type', message: err.message ?? 'unsupported media type' });
    } else if (err.errors?.length) {
      for (const item of err.errors) {
        const at = findingPath(item.path, direction);
        if (state.bodyUnchecked && direction === 'request' && at.startsWith('/body')) continue;
        verdict.findings.push({ direction, path: at, message: item.message ?? 'invalid' });
      }
    } else {
      verdict.findings.push({ direction, path: findingPath(err.path, direction), message: err.message ?? String(err) });
    }
    state.done();
  }
}

type IncomingWithBody = http.IncomingMessage & { body?: unknown };

interface RequestBody {
  value: unknown;
  unchecked: boolean;
}

/** Parses a body the way the server reads one: JSON, at most MAX_JSON_DEPTH deep; a problem is a finding. */
function parseJson(bytes: Buffer, direction: Finding['direction'], verdict: Verdict): unknown {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    verdict.findings.push({ direction, path: '/body', message: `not valid JSON: ${(err as Error).message}` });
    return undefined;
  }
  if (nestingExceeds(value)) {
    verdict.findings.push({ direction, path: '/body', message: `nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep (the server refuses such a body)` });
    return undefined;
  }
  return value;
}
