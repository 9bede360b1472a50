import type http from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { App } from '../app';
import { createPayloadValidator } from '../webhook/validate';
import { createApiRouter, requestValidationEnabled } from './api';
import { routeNotFound, undecodableParam } from './request-input';
import { createDocs } from './docs';
import type { Logger } from './logger';
import { loggablePath } from './logger';
import { stampResponse } from './stamp';
import { createWebClient } from './web-client';
import type { RateLimits } from './rate-limits';
import { createWebhookEndpoint, hookIdFromUrl } from './webhook-endpoint';
import { writeError } from './writer';
import { AppError } from '../model';

export interface ServerOptions {
  spec: Record<string, unknown>;
  validateResponses: boolean;
  logger: Logger;
  limits: RateLimits;
}

/**
 * The server: an Express application. Every request is stamped, logged and (when on) rate-limited first; then
 * POST /hooks/{id} goes to the webhook endpoint, the published docs and the API's operations to their routes, any
 * other GET to the web client, and what is left is a 404 AppError.
 */
export function createRequestListener(app: App, options: ServerOptions): http.RequestListener {
  const validateRequests = requestValidationEnabled();
  const api = createApiRouter(app, { spec: options.spec, validateResponses: options.validateResponses, validateRequests });
  const docs = createDocs(options.spec);
  // With validation off (a benchmarking switch) payloads go straight to the app's own checks.
  const webhook = createWebhookEndpoint(app, validateRequests ? createPayloadValidator(options.spec) : () => [], options.limits);
  const webClient = createWebClient();
  const requestIdOf = (res: http.ServerResponse) => String(res.locals?.requestId ?? '');

  const server = express();
  server.disable('x-powered-by');
  // Parley parses query strings itself (after the route, against the operation's parameters) and writes its own
  // ETags: Express's are turned off so nothing is done twice.
  server.set('query parser', false);
  server.set('etag', false);
  server.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = stampResponse(res);
    res.locals.requestId = requestId;
    res.on('finish', () => {
      const line = { request_id: requestId, method: req.method, path: loggablePath(req.originalUrl), status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 };
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
    if (!app.deps.config.get().RateLimitSettings.Enable) return next();
    const admitted = (limited: AppError | undefined) => (limited ? writeError(res, limited, requestId) : next());
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
  });
  // Everything after /hooks/ is the hook's id (the webhook endpoint answers an empty or malformed one itself).
  server.post(/^\/hooks\/.*/s, (req: Request, res: Response) => void webhook(req, res, hookIdFromUrl(req.originalUrl), requestIdOf(res)));
  server.get(['/api/v4/openapi.json', '/api/v4/docs', '/api/v4/docs/redoc.standalone.js'], (req: Request, res: Response, next: NextFunction) => (docs(req, res) ? undefined : next()));
  server.use(api);
  server.use((req: Request, res: Response) => {
    if (!webClient(req, res)) writeError(res, routeNotFound(), requestIdOf(res));
  });
  // What reaches Express's error path: a path parameter it could not decode (a malformed %-escape).
  server.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    writeError(res, err instanceof URIError ? undecodableParam() : err, requestIdOf(res));
  });
  return server;
}

declare module 'node:http' {
  interface ServerResponse {
    locals?: Record<string, unknown>;
  }
}
