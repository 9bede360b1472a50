import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Router } from 'express';
import type { HandlerMap, OpenAPIBackend } from 'openapi-backend';
import type { App } from '../app';
import { AppError, type Session } from '../model';
import { csrfError, findToken, passesCsrfCheck } from './auth';
import { discardRest } from './body';
import { writeFile } from './file-response';
import { handlers } from './handlers';
import type { Handler, Input, OperationId, Reply } from './operation';
import { expressPath, specRoutes, type Route, type Spec } from './spec-routes';
import { methodNotAllowed, readCheckedInput } from './request-input';
import { Validators, invalidParams } from './validation';
import { scrubSecret } from './logger';
import { errorBody, writeError, writeJson, writeJsonBytes } from './writer';
import { BoundedCache } from '../lib/bounded-cache';

/**
 * Bounds of the kept shared answers: Mattermost keeps up to 20,000 channels' newest pages; here a count and a byte
 * budget bound the memory instead (a page is some tens of KB; one over the entry bound is not kept).
 */
const SHARED_ANSWERS = { entries: 2000, bytes: 64 * 1024 * 1024, entryBytes: 1024 * 1024 };

export interface ApiOptions {
  /** The bundled spec (generated/openapi.json). */
  spec: Record<string, unknown>;
  /** The spec as openapi-backend holds it (openContract): its registry and validators. */
  contract: OpenAPIBackend;
  /** Check every answer against the spec too (on under NODE_ENV=test: every API test is a contract test). */
  validateResponses: boolean;
}

/**
 * The API: an Express router with one route per operation of the spec, so that Express's matching is the one match
 * a request gets. Each route runs the operation's stage: the session (the spec's `security` decides the 401) → the
 * parameters and body, checked by openapi-backend's validateRequest with that route's operation → the handler
 * openapi-backend's registry binds to the operationId → one writer.
 */
export function createApiRouter(app: App, options: ApiOptions): Router {
  const spec = options.spec as unknown as Spec;
  const routes = specRoutes(spec);
  const validators = new Validators(options.contract, routes);
  // strict: registering a handler for an operation the spec lacks throws here, at start-up.
  options.contract.register(handlers as unknown as HandlerMap);
  const byOperation = options.contract.handlers as unknown as Record<string, Handler<OperationId>>;
  for (const route of routes) {
    const handler = byOperation[route.operationId];
    if (!handler) throw new Error(`no handler for operation ${route.operationId}`);
    if ((handler.needsSession === true) !== route.needsSession) {
      throw new Error(`${route.operationId}: the spec says a session is ${route.needsSession ? '' : 'not '}required, its handler the opposite`);
    }
  }
  const developer = () => app.deps.config.get().ServiceSettings.EnableDeveloper || options.validateResponses;
  // Shared answers (Versioned.shared: a channel's newest page) as encoded, by operation and ETag. An ETag read from
  // the database on every request decides whether a copy is current, so copies stay right with several processes
  // writing; stale ones simply stop being asked for and age out.
  const sharedAnswers = new BoundedCache<Buffer>({ maxEntries: SHARED_ANSWERS.entries, maxSize: SHARED_ANSWERS.bytes, maxEntrySize: SHARED_ANSWERS.entryBytes, sizeOf: (b) => b.length });

  const run = async (req: IncomingMessage, res: ServerResponse, route: Route, params: Record<string, string>, search: string): Promise<void> => {
    // The session, and a 401 where the spec requires one, before the body is read or checked (as Mattermost): a
    // caller without a session learns nothing about the operation, not even what its body should look like.
    const found = findToken(req);
    const session: Session | null = found ? ((await app.sessions.authenticate(found.token)) ?? null) : null;
    if (!session && route.needsSession) throw AppError.unauthorized();
    if (session && found && !passesCsrfCheck(req, session, found.fromCookie, app.deps.config.get().ServiceSettings.ExperimentalStrictCSRFEnforcement)) throw csrfError();
    // `me` stands for the caller's id wherever a {user_id} appears (as in Mattermost).
    if (params.user_id === 'me' && session) params.user_id = session.userId;

    const check = validators.for(route.operationId);
    const maxBody = app.deps.config.get().ServiceSettings.MaximumPayloadSizeBytes;
    const { query, body } = await readCheckedInput(req, check, params, search, maxBody);

    const input: Input<OperationId> = {
      path: params as never,
      query: query as never,
      body: body as never,
      headers: req.headers,
      request: req,
      token: found?.token ?? null,
      session,
      app,
    };
    const reply: Reply = await byOperation[route.operationId](input);
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.file) {
      await writeFile(req, res, reply.file.download, reply.file.forceDownload);
      return;
    }
    if (reply.etag) {
      res.setHeader('ETag', reply.etag);
      // The handler's `conditional` decided it (src/http/operation.ts): no body was built.
      if (reply.status === 304) {
        res.statusCode = 304;
        res.end();
        return;
      }
    }
    // A binary answer (a picture): written as it is, with the Content-Type its handler set.
    if (Buffer.isBuffer(reply.body)) {
      const type = String(res.getHeader('Content-Type') ?? '');
      if (options.validateResponses && !declaresMedia(route, reply.status, type)) {
        throw new AppError('api.context.response_invalid.app_error', 'The response does not match the API specification.', 500, `${route.operationId} answered ${reply.status} ${type}, which its spec does not declare`);
      }
      res.statusCode = reply.status;
      res.setHeader('Content-Length', reply.body.length);
      res.end(reply.body);
      return;
    }
    let answer = reply.body;
    const sharedKey = reply.build && reply.etag ? `${route.operationId} ${reply.etag}` : undefined;
    if (reply.build) {
      const kept = sharedKey === undefined ? undefined : sharedAnswers.get(sharedKey);
      if (kept) {
        writeJsonBytes(res, reply.status, kept);
        return;
      }
      answer = await reply.build();
    }
    if (options.validateResponses) {
      const problem = check.response(reply.status, answer);
      if (problem) throw new AppError('api.context.response_invalid.app_error', 'The response does not match the API specification.', 500, problem);
    }
    const written = writeJson(res, reply.status, answer);
    if (sharedKey !== undefined && written) sharedAnswers.set(sharedKey, written);
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, route: Route, params: Record<string, string>): Promise<void> => {
    const requestId = String(res.locals?.requestId ?? '');
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if (req.method === 'GET') res.setHeader('Expires', '0');
    try {
      await run(req, res, route, params, q < 0 ? '' : url.slice(q + 1));
    } catch (caught) {
      // A hook key in the path is a secret: it must not reach the log through the error either.
      const err = params.hook_id ? scrubSecret(caught, params.hook_id) : caught;
      // An upload refused before its handler read the body (401, a bad parameter): the rest is dropped, not read.
      if (!req.complete && req.listenerCount('data') === 0 && route.operation.requestBody?.content?.['multipart/form-data']) discardRest(req);
      writeError(res, options.validateResponses ? (undeclared(route, err) ?? err) : err, requestId, developer());
    }
  };

  const router = express.Router({ strict: true, caseSensitive: true });
  for (const route of routes) {
    router[route.method.toLowerCase() as 'get'](expressPath(route.path), (req, res) => void serve(req, res, route, { ...req.params } as Record<string, string>));
  }
  // A path of the spec asked with a method it lacks is a 405. These come after every operation's route, so a
  // parameter route that takes the method (DELETE /users/{user_id} for DELETE /users/login) is found first.
  for (const path of new Set(routes.map((r) => r.path))) {
    router.all(expressPath(path), (_req, res) => writeError(res, methodNotAllowed(), String(res.locals?.requestId ?? ''), developer()));
  }
  return router;
}

/** Whether the operation declares a response of this status with this media type (for binary answers). */
function declaresMedia(route: Route, status: number, type: string): boolean {
  const response = route.operation.responses?.[String(status)] as { content?: Record<string, unknown> } | undefined;
  return type !== '' && Object.hasOwn(response?.content ?? {}, type);
}

/** Under test, an error status the operation does not declare is a contract violation, answered as one (500). */
function undeclared(route: Route, err: unknown): AppError | undefined {
  const status = errorBody(err, '', false).status_code;
  if (Object.hasOwn(route.operation.responses ?? {}, String(status))) return undefined;
  return new AppError('api.context.response_invalid.app_error', 'The response does not match the API specification.', 500, `${route.operationId} answered ${status}, which its spec does not declare: ${err instanceof Error ? err.message : String(err)}`);
}


export { invalidParams };
