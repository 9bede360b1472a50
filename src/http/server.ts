import http from 'node:http';
import type { App } from '../app';
import { createPayloadValidator } from '../webhook/validate';
import { createApiApp, requestValidationEnabled } from './api-app';
import type { Logger } from './logger';
import { loggablePath } from './logger';
import { stampResponse } from './stamp';
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
  return (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = stampResponse(res);
    res.locals = { requestId };
    res.on('finish', () => {
      options.logger.info({
        request_id: requestId,
        method: req.method,
        path: loggablePath(req.url),
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    const url = req.url ?? '/';
    if (req.method === 'POST' && url.startsWith('/hooks/')) {
      void webhook(req, res, hookIdFromUrl(url), requestId);
      return;
    }
    web(req as never, res as never);
  };
}

declare module 'node:http' {
  interface ServerResponse {
    locals?: Record<string, unknown>;
  }
}
