import express, { NextFunction, Request, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import OpenAPIBackend, { type Context } from 'openapi-backend';
import type { App } from '../app';
import { AppError } from '../app/errors';
import type { Session } from '../app/model';
import { tokenFromRequest } from './auth';
import { docsRouter } from './docs';
import { readBody } from './body';
import { handlers } from './handlers';
import type { Input, OperationId, Reply } from './operation';
import { writeError, writeJson } from './writer';

export interface ApiOptions {
  /** The bundled spec (generated/openapi.json). */
  spec: Record<string, unknown>;
  /** Validate responses against the spec too (on under NODE_ENV=test: every API test is a contract test). */
  validateResponses: boolean;
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

/** Express app for /api/v4: body → spec validation → session → operationId handler → one writer. */
export async function createApiApp(app: App, options: ApiOptions): Promise<express.Express> {
  const api = new OpenAPIBackend({ definition: options.spec as never, validate: false, quick: true });
  const dispatch = async (c: Context, req: Request, res: Response): Promise<void> => {
    const operationId = c.operation.operationId as OperationId;
    const locals = res.locals as Locals;
    const input: Input<OperationId> = {
      path: c.request.params as never,
      query: req.query as never,
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
    notFound: async () => {
      throw AppError.notFound('api.context.404.app_error', 'Sorry, we could not find the page.');
    },
    methodNotAllowed: async () => {
      throw new AppError('api.context.405.app_error', 'Method not allowed.', 405);
    },
    // The spec's `security` decides which operations need a session: bearerAuth is met by a resolved session.
    unauthorizedHandler: async () => {
      throw AppError.unauthorized();
    },
  });
  api.registerSecurityHandler('bearerAuth', (_c: Context, _req: Request, res: Response) => (res.locals as Locals).session !== null);
  await api.init();

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

  // Bodies are read with the live MaximumPayloadSizeBytes: a change by PatchConfig applies to the next request.
  web.use(async (req: Request, _res: Response, next: NextFunction) => {
    try {
      if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return next();
      const raw = await readBody(req, app.deps.config.get().ServiceSettings.MaximumPayloadSizeBytes);
      if (raw.length === 0) return next();
      // Mattermost reads every API body as JSON whatever its Content-Type (curl -d sends form-urlencoded), so we
      // do too, and tell the validator it is JSON.
      try {
        req.body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        throw AppError.badRequest('api.context.invalid_body_param.app_error', 'The request body is not valid JSON.', (err as Error).message);
      }
      req.headers['content-type'] = 'application/json';
      next();
    } catch (err) {
      next(err);
    }
  });

  web.use(
    OpenApiValidator.middleware({
      apiSpec: options.spec as never,
      validateRequests: { allowUnknownQueryParameters: true, coerceTypes: true, removeAdditional: false },
      validateResponses: options.validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      validateFormats: true,
      ignoreUndocumented: false,
    }),
  );

  web.use(async (req: Request, res: Response, next: NextFunction) => {
    const locals = res.locals as Locals;
    locals.token = tokenFromRequest(req);
    locals.session = null;
    try {
      if (locals.token) {
        locals.session = (await app.users.authenticate(locals.token)) ?? null;
        // A token that resolves to nothing is an error only where a session is required (the handler says so).
      }
      next();
    } catch (err) {
      next(err);
    }
  });

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
