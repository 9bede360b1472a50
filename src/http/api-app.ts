import express, { NextFunction, Request, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import OpenAPIBackend, { type Context, type Operation, type OpenAPIRouter, type Request as RouterRequest } from 'openapi-backend';
import type { App } from '../app';
import { AppError } from '../app/errors';
import type { Session } from '../app/model';
import { sessionFirst } from './auth';
import { docsRouter } from './docs';
import { parseJsonBody, readBody } from './body';
import { handlers } from './handlers';
import type { Input, OperationId, Reply } from './operation';
import { writeError, writeJson } from './writer';
import { routerErrorHandlers } from './router-errors';
import { cacheRouteLookups, memoizeValidatorRoutes } from './validator-tuning';

export interface ApiOptions {
  /** The bundled spec (generated/openapi.json). */
  spec: Record<string, unknown>;
  /** Validate responses against the spec too (on under NODE_ENV=test: every API test is a contract test). */
  validateResponses: boolean;
  /** Validate requests against the spec (default on; see requestValidationEnabled). */
  validateRequests?: boolean;
}

/**
 * PARLEY_VALIDATE_REQUESTS=false turns request validation off, for API requests and webhook payloads alike. It is a
 * benchmarking switch (`npm run bench` measures what validation costs), not a production setting: without it,
 * malformed input reaches the handlers unchecked.
 */
export function requestValidationEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PARLEY_VALIDATE_REQUESTS ?? '').trim().toLowerCase() !== 'false';
}

interface QueryParameter {
  in?: string;
  name?: string;
  schema?: { type?: string };
}

/** Without the validator nothing coerces query strings, so the few typed parameters are converted here. */
function coerceQuery(query: Record<string, unknown>, parameters: unknown): Record<string, unknown> {
  const out = { ...query };
  for (const p of (parameters ?? []) as QueryParameter[]) {
    if (p.in !== 'query' || !p.name || typeof out[p.name] !== 'string') continue;
    const value = out[p.name] as string;
    const type = p.schema?.type;
    if ((type === 'integer' || type === 'number') && value.trim() !== '' && Number.isFinite(Number(value))) out[p.name] = Number(value);
    else if (type === 'boolean' && (value === 'true' || value === 'false')) out[p.name] = value === 'true';
  }
  return out;
}

interface Locals {
  requestId: string;
  session: Session | null;
  token: string | null;
}

/** Maps the validator's and router's errors to AppErrors with Mattermost's ids. */
function validatorError(err: { status?: number; message?: string; errors?: Array<{ path?: string; message?: string }> }): AppError {
  const status = err.status ?? 500;
  const detail = (err.errors ?? []).map((e) => `${e.path ?? ''} ${e.message ?? ''}`.trim()).join('; ') || (err.message ?? '');
  if (status === 404) return AppError.notFound('api.context.404.app_error', 'Sorry, we could not find the page.');
  if (status === 405) return new AppError('api.context.405.app_error', 'Method not allowed.', 405);
  if (status === 413) return new AppError('api.context.request_body_too_large.app_error', 'The request body is too large.', 413);
  if (status === 415) return new AppError('api.context.invalid_body_param.app_error', 'Unsupported request content type.', 415, detail);
  if (status >= 400 && status < 500) {
    return new AppError('api.context.invalid_param.app_error', `Invalid or missing parameters: ${detail}`.slice(0, 500), status, detail);
  }
  return new AppError('api.context.response_invalid.app_error', 'The response does not match the API specification.', 500, detail);
}

function pathTemplateToPattern(path: string): RegExp {
  const literal = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('[^/]+')}$`);
}

/**
 * openapi-backend's router rebuilds its list of operations (through lodash) and compiles a RegExp per operation on
 * every request, which costs more than the rest of a small request. This installs the same matching rules (an exact
 * path first, then path templates by literal length; 404 when no path matches, 405 when no method does) over tables
 * built once.
 */
function precompileRouter(router: OpenAPIRouter): void {
  const operations = router.getOperations();
  router.getOperations = () => operations;
  const exact = new Map<string, Operation[]>();
  for (const op of operations) exact.set(op.path, [...(exact.get(op.path) ?? []), op]);
  const templates = operations
    .map((op, index) => ({ op, index, pattern: pathTemplateToPattern(op.path), literal: op.path.replace(/\{.*?\}/g, '').length }))
    .sort((a, b) => b.literal - a.literal || a.index - b.index);
  const match = (req: RouterRequest, strict?: boolean): Operation | undefined => {
    const normalized = router.normalizeRequest(req);
    const path = router.normalizePath(normalized.path);
    const found = exact.get(path)?.find((op) => op.method === normalized.method);
    if (found) return found;
    let pathMatched = false;
    for (const t of templates) {
      if (!t.pattern.test(path)) continue;
      pathMatched = true;
      if (t.op.method === normalized.method) return t.op;
    }
    if (strict) throw Error(pathMatched ? '405-methodNotAllowed: this method is not registered for the route' : '404-notFound: no route matches request');
    return undefined;
  };
  router.matchOperation = match as OpenAPIRouter['matchOperation'];
}

/** Express app for /api/v4: body → spec validation → session → operationId handler → one writer. */
export async function createApiApp(app: App, options: ApiOptions): Promise<express.Express> {
  const validateRequests = options.validateRequests ?? requestValidationEnabled();
  const api = new OpenAPIBackend({ definition: options.spec as never, validate: false, quick: true });
  const dispatch = async (c: Context, req: Request, res: Response): Promise<void> => {
    const operationId = c.operation.operationId as OperationId;
    const locals = res.locals as Locals;
    // A schema without required properties lets an empty body through the validator; handlers expect a body.
    if (req.body === undefined && (c.operation.requestBody as { required?: boolean } | undefined)?.required) {
      throw AppError.badRequest('api.context.invalid_body_param.app_error', 'The request body is missing.');
    }
    const input: Input<OperationId> = {
      path: c.request.params as never,
      query: (validateRequests ? req.query : coerceQuery(req.query as Record<string, unknown>, c.operation.parameters)) as never,
      body: req.body as never,
      headers: req.headers,
      token: locals.token,
      session: locals.session,
      app,
    };
    const reply: Reply = await (handlers[operationId] as (i: typeof input) => Promise<Reply>)(input);
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.etag) {
      res.setHeader('ETag', reply.etag);
      if (reply.status === 304 || req.headers['if-none-match'] === reply.etag) {
        res.status(304).end();
        return;
      }
    }
    // res.json goes through the response validator (in tests), then our exact-Content-Type writer.
    res.status(reply.status).json(reply.body);
  };
  const register: Record<string, typeof dispatch> = {};
  for (const operationId of Object.keys(handlers)) register[operationId] = dispatch;
  api.register({
    ...register,
    ...routerErrorHandlers,
  });
  api.registerSecurityHandler('bearerAuth', (_c: Context, _req: Request, res: Response) => (res.locals as Locals).session !== null);
  await api.init();
  precompileRouter(api.router);

  const web = express();
  web.disable('x-powered-by');
  web.set('etag', false);
  web.set('query parser', 'extended');

  web.use((req: Request, res: Response, next: NextFunction) => {
    // Swap res.json before the validator wraps it, so validated bodies are still written with the exact type.
    res.json = (body: unknown) => {
      writeJson(res, res.statusCode, body);
      return res;
    };
    if (req.method === 'GET') res.setHeader('Expires', '0');
    next();
  });

  // Served beside the API, outside the spec it publishes.
  web.use(docsRouter(options.spec));

  // The session, and a 401 for an operation that needs one, before the body is read or validated (as Mattermost).
  web.use(sessionFirst((token) => app.users.authenticate(token), (r) => api.matchOperation(r as never), options.spec));

  // Bodies are read with the live MaximumPayloadSizeBytes: a change by PatchConfig applies to the next request.
  web.use(async (req: Request, _res: Response, next: NextFunction) => {
    try {
      if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return next();
      const raw = await readBody(req, app.deps.config.get().ServiceSettings.MaximumPayloadSizeBytes);
      if (raw.length === 0) return next();
      // Mattermost reads every API body as JSON whatever its Content-Type (curl -d sends form-urlencoded), so we
      // do too, and tell the validator it is JSON.
      req.body = parseJsonBody(raw);
      req.headers['content-type'] = 'application/json';
      next();
    } catch (err) {
      next(err);
    }
  });

  if (validateRequests || options.validateResponses) {
    memoizeValidatorRoutes();
    const validator = OpenApiValidator.middleware({
      apiSpec: options.spec as never,
      validateRequests: validateRequests ? { allowUnknownQueryParameters: true, coerceTypes: true, removeAdditional: false } : false,
      validateResponses: options.validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      // API bodies are always read as JSON before this point (only the webhook, served outside Express, takes
      // multipart), so the per-request multipart middleware would never find anything to do.
      fileUploader: false,
      validateFormats: true,
      // ajv-formats' int64 accepts any integer (1e308 too), which the database then refuses (a 500 on MySQL):
      // an int64 must be a whole number JavaScript holds exactly.
      formats: { int64: { type: 'number', validate: (v: number) => Number.isSafeInteger(v) } },
      ignoreUndocumented: false,
    });
    // With validateSecurity off its middleware only hands the request on: one router layer and promise hop less.
    web.use(cacheRouteLookups(validator.filter((middleware) => middleware.name !== 'securityMiddleware')));
  }

  web.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      await api.handleRequest({ method: req.method, path: req.path, query: req.query as never, headers: req.headers as never, body: req.body }, req, res);
    } catch (err) {
      next(err);
    }
  });

  web.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const locals = res.locals as Locals;
    const mapped = err instanceof AppError || !(err && typeof err === 'object' && 'status' in err) ? err : validatorError(err as never);
    const developer = app.deps.config.get().ServiceSettings.EnableDeveloper || options.validateResponses;
    writeError(res, mapped, locals.requestId ?? (res.getHeader('X-Request-Id') as string), developer);
  });

  return web;
}
