import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app';
import { AppError, type WebhookPayload } from '../model';
import { decodeWebhookBody } from '../webhook/decode';
import { PayloadValidator, payloadError } from '../webhook/validate';
import { discardRest, readBody } from './body';
import { scrubSecret } from './logger';
import type { RateLimits } from './rate-limits';
import { writeError } from './writer';

const OK = Buffer.from('ok');
const HOOK_ID = /^[A-Za-z0-9]+$/;

const invalidHook = () => AppError.notFound('web.incoming_webhook.invalid.app_error', 'Invalid webhook.');
const disabled = () => AppError.notImplemented('web.incoming_webhook.disabled.app_error', 'Incoming webhooks have been disabled by the system admin.');

export interface PayloadIntake {
  maximumPayloadSizeBytes: number;
  /** Asked after the body is read, so a PatchConfig that lands while a large body streams in applies to it. */
  incomingWebhooksEnabled: () => boolean;
  validatePayload: PayloadValidator;
  /**
   * Runs right after the key syntax check (server only): whether the hook exists. An unknown key is refused before
   * the rate limit (no bucket for a made-up key) and before a byte of the body is read or decoded. True or false
   * at once when it can (a cached hook), else a promise.
   */
  hookExists?: () => boolean | Promise<boolean>;
  /**
   * Runs once the key is well-formed, before the body is read: the per-hook rate limit (429, nothing read or posted).
   * Throws, or rejects, to refuse; answers at once when it can (the in-memory limit), so nothing waits on a promise.
   */
  admit?: () => void | Promise<void>;
}

/**
 * Everything before the payload becomes posts, in the order the server answers errors: key syntax (404) → unknown
 * hook (404, or 501 while hooks are disabled, as any key then gets; server only) → rate limit (429, server only) →
 * read (413) → decode (400) → disabled (501) → validate (400). The mock server runs this same function, so an
 * integration tested against the mock gets the server's status and error id for any payload.
 */
export async function receivePayload(req: IncomingMessage, hookId: string, intake: PayloadIntake): Promise<WebhookPayload> {
  if (!HOOK_ID.test(hookId)) throw invalidHook();
  if (intake.hookExists) {
    let exists: boolean;
    try {
      const answer = intake.hookExists();
      exists = answer === true || (answer !== false && (await answer));
    } catch (err) {
      discardRest(req);
      throw err;
    }
    if (!exists) {
      // Dropped unread (and the connection closed if it keeps sending): the body of a made-up key costs nothing.
      discardRest(req);
      throw intake.incomingWebhooksEnabled() ? invalidHook() : disabled();
    }
  }
  const admitted = intake.admit?.();
  if (admitted) await admitted;
  const body = await readBody(req, intake.maximumPayloadSizeBytes);
  const payload = await decodeWebhookBody(req.headers['content-type'], body);
  if (!intake.incomingWebhooksEnabled()) throw disabled();
  const problems = intake.validatePayload(payload);
  if (problems.length > 0) throw payloadError(problems);
  return payload as WebhookPayload;
}

/** The hook key of a `/hooks/{hook_id}` request URL; a malformed escape is kept as is (it is then not a key: 404). */
export function hookIdFromUrl(url: string): string {
  const hookId = url.slice('/hooks/'.length).split('?')[0];
  try {
    return decodeURIComponent(hookId);
  } catch {
    return hookId;
  }
}

/** Success: 200 `text/plain` "ok" (docs/webhook-rules.md, rule 14). */
export function writeOk(res: ServerResponse): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('Content-Length', OK.length);
  res.end(OK);
}

/**
 * POST /hooks/{hook_id}, served beside the API stage rather than through it: the payload must be decoded from one
 * of three encodings before the spec's schema can check it, and this is the path integrations hit hardest.
 * "ok" is written only after the posts are committed.
 */
export function createWebhookEndpoint(app: App, validatePayload: PayloadValidator, limits: RateLimits) {
  return async (req: IncomingMessage, res: ServerResponse, hookId: string, requestId: string): Promise<number> => {
    try {
      const payload = await receivePayload(req, hookId, {
        maximumPayloadSizeBytes: app.deps.config.get().ServiceSettings.MaximumPayloadSizeBytes,
        incomingWebhooksEnabled: () => app.deps.config.get().ServiceSettings.EnableIncomingWebhooks,
        validatePayload,
        hookExists: () => app.hookExecution.hookExists(hookId),
        admit: () => {
          const limited = limits.checkHook(hookId, res);
          if (!(limited instanceof Promise)) {
            if (limited) throw limited;
            return undefined;
          }
          return limited.then((refused) => {
            if (refused) throw refused;
          });
        },
      });
      const key = req.headers['idempotency-key'];
      const postIds = await app.hookExecution.execute(hookId, payload, Array.isArray(key) ? key.join(', ') : key);
      // The body stays "ok" for Slack clients; the ids let an integration edit, thread on or delete what it posted.
      res.setHeader('X-Post-Ids', postIds.join(','));
      writeOk(res);
      return 200;
    } catch (err) {
      return writeError(res, scrubSecret(err, hookId), requestId, app.deps.config.get().ServiceSettings.EnableDeveloper).status_code;
    }
  };
}
