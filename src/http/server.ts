import http from 'node:http';
import type { App } from '../app';
import { createPayloadValidator } from '../webhook/validate';
import { createApiApp, requestValidationEnabled } from './api-app';
import type { Logger } from './logger';
import { loggablePath } from './logger';
import { stampResponse } from './stamp';
import { createWebClient } from './web-client';
import { createWebhookEndpoint, hookIdFromUrl } from './webhook-endpoint';

export interface ServerOptions {
  spec: Record<string, unknown>;
  validateResponses: boolean;
  logger: Logger;
}

/** The request listener: POST /hooks/{id} to the webhook endpoint, everything else to the API app. */
export async function createRequestListener(app: App, options: ServerOptions): Promise<http.RequestListener> {
  const validateRequests = requestValidationEnabled();
  const web = await createApiApp(app, { spec: options.spec, validateResponses: options.validateResponses, validateRequests });
  // With validation off (a benchmarking switch) payloads go straight to the app's own checks.
  const webhook = createWebhookEndpoint(app, validateRequests ? createPayloadValidator(options.spec) : () => []);
  const webClient = createWebClient();
  return (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = stampResponse(res);
    res.locals = { requestId };
    const logLine = () => {
      const line = { request_id: requestId, method: req.method, path: loggablePath(req.url), status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 };
      const err = res.locals?.error;
      // 503 is an outage the operator already sees elsewhere; a 500 is a bug and must be findable with its stack.
      if (err === undefined) options.logger.info(line);
      else if (res.statusCode === 503) options.logger.warn({ ...line, err }, 'database unavailable');
      else if (res.statusCode < 500) options.logger.warn({ ...line, err }, 'value the database could not store');
      else options.logger.error({ ...line, err }, 'request failed');
    };
    res.on('finish', logLine);
    const url = req.url ?? '/';
    if (req.method === 'POST' && url.startsWith('/hooks/')) {
      void webhook(req, res, hookIdFromUrl(url), requestId);
      return;
    }
    if (!url.startsWith('/api/') && webClient(req, res)) return;
    web(req as never, res as never);
  };
}

declare module 'node:http' {
  interface ServerResponse {
    locals?: Record<string, unknown>;
  }
}
