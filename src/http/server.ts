import type http from 'node:http';
import type { App } from '../app';
import { createPayloadValidator } from '../webhook/validate';
import { createApi, requestValidationEnabled } from './api';
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
 * The request listener: POST /hooks/{id} to the webhook endpoint, /api/v4/... to the API stage (after the docs it
 * publishes), anything else to the web client. One log line per request, at the level its outcome deserves.
 */
export function createRequestListener(app: App, options: ServerOptions): http.RequestListener {
  const validateRequests = requestValidationEnabled();
  const api = createApi(app, { spec: options.spec, validateResponses: options.validateResponses, validateRequests });
  const docs = createDocs(options.spec);
  // With validation off (a benchmarking switch) payloads go straight to the app's own checks.
  const webhook = createWebhookEndpoint(app, validateRequests ? createPayloadValidator(options.spec) : () => [], options.limits);
  const webClient = createWebClient();
  const dispatch = (req: http.IncomingMessage, res: http.ServerResponse, requestId: string) => {
    const url = req.url ?? '/';
    if (req.method === 'POST' && url.startsWith('/hooks/')) {
      void webhook(req, res, hookIdFromUrl(url), requestId);
      return;
    }
    if (url.startsWith('/api/')) {
      if (docs(req, res)) return;
      void api(req, res, requestId);
      return;
    }
    if (webClient(req, res)) return;
    writeError(res, AppError.notFound('api.context.404.app_error', 'Sorry, we could not find the page.'), requestId);
  };
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
      dispatch(req, res, requestId);
      return;
    }
    const admitted = (limited: AppError | undefined) => (limited ? writeError(res, limited, requestId) : dispatch(req, res, requestId));
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
