import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app';
import { AppError } from '../app/errors';
import type { WebhookPayload } from '../app/webhooks';
import { decodeWebhookBody } from '../webhook/decode';
import { PayloadValidator, payloadError } from '../webhook/validate';
import { readBody } from './body';
import { writeError } from './writer';

const OK = Buffer.from('ok');
const HOOK_ID = /^[A-Za-z0-9]+$/;

/**
 * POST /hooks/{hook_id}, served beside Express rather than through it: the payload must be decoded from one of
 * three encodings before the spec's schema can check it, and this is the path integrations hit hardest.
 * Order: read (413) → decode (400) → disabled (501) → validate (400) → post → "ok" after commit.
 */
export function createWebhookEndpoint(app: App, validatePayload: PayloadValidator) {
  return async (req: IncomingMessage, res: ServerResponse, hookId: string, requestId: string): Promise<number> => {
    try {
      if (!HOOK_ID.test(hookId)) throw AppError.notFound('web.incoming_webhook.invalid.app_error', 'Invalid webhook.');
      const config = app.deps.config.get();
      const body = await readBody(req, config.ServiceSettings.MaximumPayloadSizeBytes);
      const payload = await decodeWebhookBody(req.headers['content-type'], body);
      if (!config.ServiceSettings.EnableIncomingWebhooks) {
        throw AppError.notImplemented('web.incoming_webhook.disabled.app_error', 'Incoming webhooks have been disabled by the system admin.');
      }
      const problems = validatePayload(payload);
      if (problems.length > 0) throw payloadError(problems);
      await app.webhooks.execute(hookId, payload as WebhookPayload);
      res.statusCode = 200;
      res.setHeader('Content-Type', 'text/plain');
      res.setHeader('Content-Length', OK.length);
      res.end(OK);
      return 200;
    } catch (err) {
      return writeError(res, err, requestId, app.deps.config.get().ServiceSettings.EnableDeveloper).status_code;
    }
  };
}
