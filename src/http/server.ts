import type http from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type OpenAPIBackend from 'openapi-backend';
import type { App } from '../app';
import { createPayloadValidator } from '../webhook/validate';
import { createApiRouter } from './api';
import { routeNotFound, undecodableParam } from './request-input';
import { createDocs } from './docs';
import type { Logger } from './logger';
import { loggablePath } from './logger';
import { stampResponse } from './stamp';
import { createWebClient } from './web-client';
import type { RateLimits } from './rate-limits';
import { createWebhookEndpoint, hookIdFromUrl } from './webhook-endpoint';
import { commandHookIdFromUrl, createCommandWebhookEndpoint } from './command-webhook-endpoint';
import { writeError } from './writer';
import { AppError } from '../model';

export interface ServerOptions {
  spec: Record<string, unknown>;
  /** The spec as openapi-backend holds it (openContract in ./validation). */
  contract: OpenAPIBackend;
  validateResponses: boolean;
  logger: Logger;
  limits: RateLimits;
}

/**
 * The request listener. Every request is stamped, logged and (when on) rate-limited first; then Express's router
 * routes it: POST /hooks/{id} to the webhook endpoint, the published docs and the API's operations to their routes,
 * any other GET to the web client, and what is left is a 404 AppError.
 */
export function createRequestListener(app: App, options: ServerOptions): http.RequestListener {
  const api = createApiRouter(app, { spec: options.spec, contract: options.contract, validateResponses: options.validateResponses });
  const docs = createDocs(options.spec);
  const webhook = createWebhookEndpoint(app, createPayloadValidator(options.spec), options.limits);
  const commandWebhook = createCommandWebhookEndpoint(app);
  const webClient = createWebClient();
  const requestIdOf = (res: http.ServerResponse) => String(res.locals?.requestId ?? '');

  // Express's router, used on its own: an Express application (express()) would also swap the prototypes of every
  // request and response for its own (Object.setPrototypeOf), which makes Node's HTTP code slower on them for the
  // rest of the request; measured on the webhook path, that cost more CPU per request than everything else Express
  // does (BENCHMARKS.md, "Express"). The router needs none of it: its routes get Node's own req and res.
  const router = express.Router({ strict: true, caseSensitive: true });
  // A slash command's response URL (its body is JSON or plain text, as Mattermost takes it), before incoming hooks.
  router.post(/^\/hooks\/commands\/.*/s, (req: Request, res: Response) => void commandWebhook(req, res, commandHookIdFromUrl(req.originalUrl ?? req.url), requestIdOf(res)));
  // Everything after /hooks/ is the hook's id (the webhook endpoint answers an empty or malformed one itself).
  router.post(/^\/hooks\/.*/s, (req: Request, res: Response) => void webhook(req, res, hookIdFromUrl(req.originalUrl ?? req.url), requestIdOf(res)));
  router.get(['/api/v4/openapi.json', '/api/v4/docs', '/api/v4/docs/redoc.standalone.js'], (req: Request, res: Response, next: NextFunction) => (docs(req, res) ? undefined : next()));
  router.use(api);
  router.use((req: Request, res: Response) => {
    if (!webClient(req, res)) writeError(res, routeNotFound(), requestIdOf(res));
  });
  // What reaches the router's error path: a path parameter it could not decode (a malformed %-escape).
  const done = (res: http.ServerResponse) => (err?: unknown) => writeError(res, err === undefined ? routeNotFound() : err instanceof URIError ? undecodableParam() : err, requestIdOf(res));
  const dispatch = (req: http.IncomingMessage, res: http.ServerResponse) => router(req as Request, res as Response, done(res));

  return (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = stampResponse(res);
    res.locals = { requestId };
    res.on('finish', () => {
      const line = { request_id: requestId, method: req.method, path: loggablePath(req.url), status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 };
      const err = res.locals?.error;
      // A 503 is an outage the operator already sees elsewhere; a 500 is a bug and must be findable with its stack;
      // a 400 with an error attached is a value the database refused (a length check the API lacks).
      if (err === undefined) options.logger.info(line);
      else if (res.statusCode === 503) options.logger.warn({ ...line, err }, 'database unavailable');
      else if (res.statusCode < 500) options.logger.warn({ ...line, err }, 'value the database could not store');
      else options.logger.error({ ...line, err }, 'request failed');
    });
    // The API rate limit (off by default) covers every request, as Mattermost's does; checked only when on, so the
    // hot paths pay nothing for it otherwise.
    if (!app.deps.config.get().RateLimitSettings.Enable) {
      dispatch(req, res);
      return;
    }
    const admitted = (limited: AppError | undefined) => (limited ? writeError(res, limited, requestId) : dispatch(req, res));
    // The in-memory store answers at once: no promise on the hot path. Redis answers later.
    let limited: ReturnType<RateLimits['checkRequest']>;
    try {
      limited = options.limits.checkRequest(req, res);
    } catch (err) {
      writeError(res, err, requestId);
      return;
    }
    if (limited instanceof Promise) limited.then(admitted, (err: unknown) => writeError(res, err, requestId));
    else admitted(limited);
  };
}

declare module 'node:http' {
  interface ServerResponse {
    locals?: Record<string, unknown>;
  }
}
