import * as crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/settings';
import type { RateDecision, RateStore } from '../lib/gcra';
import { AppError } from '../model';
import { findToken } from './auth';

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

export const apiRateLimited = () => new AppError('api.context.rate_limit.app_error', 'Too many requests. Please wait and try again.', 429);
export const hookRateLimited = (retryAfterMs: number) =>
  new AppError('web.incoming_webhook.rate_limit.app_error', `This webhook is posting too fast. Wait ${seconds(retryAfterMs)} s (Retry-After) and send again.`, 429);

// crypto.hash (Node 20.12+): the same digest in one call, without a Hash object per request.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** A key's stand-in: tokens and hook keys are secrets and never kept as keys, in memory or in Redis. */
function digest(secret: string): string {
  return (oneShot ? oneShot('sha256', secret, 'base64url') : crypto.createHash('sha256').update(secret).digest('base64url')).slice(0, 22);
}

/** A decision now (the in-memory store) or later (Redis): the hot paths take the first without a promise. */
type Maybe<T> = T | Promise<T>;

const then = <T, U>(value: Maybe<T>, f: (v: T) => U): Maybe<U> => (value instanceof Promise ? value.then(f) : f(value));

/**
 * The rate limits of RateLimitSettings, as Mattermost applies them: the API limit (off by default) covers every
 * request, keyed by the client's address and/or session and/or a header; the per-webhook limit (Parley's own, on by
 * default) covers `POST /hooks/{id}`, keyed by the hook. Settings are read per request, so a PatchConfig applies at
 * once. Decisions come from `store`: this process's memory, or Redis shared by every process.
 */
export class RateLimits {
  constructor(
    private readonly config: () => Config,
    private readonly apiStore: RateStore,
    private readonly hookStore: RateStore,
  ) {}

  /**
   * Checks a request against the API limit and stamps the X-RateLimit headers; an AppError (429, Retry-After set)
   * when over it, undefined otherwise (also when the limit is off). Answers at once (no promise) when the store does.
   */
  checkRequest(req: IncomingMessage, res: ServerResponse): Maybe<AppError | undefined> {
    const s = this.config().RateLimitSettings;
    if (!s.Enable) return undefined;
    return then(this.apiStore.take(this.requestKey(req, s), { perSec: s.PerSec, burst: s.MaxBurst }), (decision) => {
      res.setHeader('X-RateLimit-Limit', String(decision.limit));
      res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
      res.setHeader('X-RateLimit-Reset', String(seconds(decision.resetMs)));
      if (decision.allowed) return undefined;
      res.setHeader('Retry-After', String(seconds(decision.retryAfterMs)));
      return apiRateLimited();
    });
  }

  private requestKey(req: IncomingMessage, s: Config['RateLimitSettings']): string {
    let key = '';
    const token = s.VaryByUser ? findToken(req)?.token : undefined;
    if (token) key = `u:${digest(token)}`;
    else if (s.VaryByRemoteAddr) key = `a:${req.socket.remoteAddress ?? ''}`;
    if (s.VaryByHeader) {
      const value = req.headers[s.VaryByHeader.toLowerCase()];
      key += `|h:${Array.isArray(value) ? value.join(',') : (value ?? '')}`;
    }
    return `api|${key}`;
  }

  /**
   * Checks one post request against its hook's limit; an AppError (429, with Retry-After set) when over it. Answers
   * at once (no promise) when the store does.
   */
  checkHook(hookId: string, res: ServerResponse): Maybe<AppError | undefined> {
    const s = this.config().RateLimitSettings;
    if (!(s.WebhookPerSec > 0)) return undefined;
    return then(this.hookStore.take(`hook|${digest(hookId)}`, { perSec: s.WebhookPerSec, burst: s.WebhookMaxBurst }), (decision: RateDecision) => {
      if (decision.allowed) return undefined;
      res.setHeader('Retry-After', String(seconds(decision.retryAfterMs)));
      return hookRateLimited(decision.retryAfterMs);
    });
  }
}
