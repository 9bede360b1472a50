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

/** The user a session token authenticates, or undefined (an invented, expired or revoked token). */
export type UserOfToken = (token: string) => Promise<string | undefined>;

/** How long a token's user is remembered for keying: a revoked token keeps its user's key this long at most. */
const USER_KEY_TTL_MS = 60 * 1000;

/**
 * The client's address as the trusted proxies saw it: the X-Forwarded-For entry `hops` from the right. Each proxy
 * appends the address it was connected from; everything left of what the first trusted proxy appended came from the
 * client, who can write anything there (a new value per request, a fresh allowance each time).
 */
export function forwardedFor(header: string, hops: number): string {
  const entries = header.split(',');
  return (entries[Math.max(0, entries.length - hops)] ?? '').trim();
}

/**
 * The rate limits of RateLimitSettings, as Mattermost applies them: the API limit (off by default) covers every
 * request, keyed by the client's address and/or user and/or a header; the per-webhook limit (Parley's own, on by
 * default) covers `POST /hooks/{id}`, keyed by the hook. Settings are read per request, so a PatchConfig applies at
 * once. Decisions come from `store`: this process's memory, or Redis shared by every process.
 */
export class RateLimits {
  /** Token digest → its user and until when that is remembered, least recently added first (bounded). */
  private readonly users = new Map<string, { userId: string; until: number }>();

  constructor(
    private readonly config: () => Config,
    private readonly apiStore: RateStore,
    private readonly hookStore: RateStore,
    /** Resolves VaryByUser's tokens; without it every request is keyed as if it had no token. */
    private readonly userOfToken?: UserOfToken,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Checks a request against the API limit and stamps the X-RateLimit headers; an AppError (429, Retry-After set)
   * when over it, undefined otherwise (also when the limit is off). Answers at once (no promise) when the store does.
   */
  checkRequest(req: IncomingMessage, res: ServerResponse): Maybe<AppError | undefined> {
    const s = this.config().RateLimitSettings;
    if (!s.Enable) return undefined;
    const decide = (key: string) =>
      then(this.apiStore.take(key, { perSec: s.PerSec, burst: s.MaxBurst }), (decision) => {
        res.setHeader('X-RateLimit-Limit', String(decision.limit));
        res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
        res.setHeader('X-RateLimit-Reset', String(seconds(decision.resetMs)));
        if (decision.allowed) return undefined;
        res.setHeader('Retry-After', String(seconds(decision.retryAfterMs)));
        return apiRateLimited();
      });
    const key = this.requestKey(req, s);
    return key instanceof Promise ? key.then(decide) : decide(key);
  }

  /**
   * The key of a request, never chosen by the client: VaryByUser keys by the user the token authenticates (a token
   * that authenticates nobody is keyed like no token: by the address), so invented tokens do not each get a fresh
   * allowance; a forwarded address is the entry the trusted proxy added.
   */
  private requestKey(req: IncomingMessage, s: Config['RateLimitSettings']): Maybe<string> {
    let suffix = '';
    if (s.VaryByHeader) {
      const name = s.VaryByHeader.toLowerCase();
      const raw = req.headers[name];
      const value = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
      suffix = `|h:${name === 'x-forwarded-for' ? forwardedFor(value, s.TrustedProxyHops) : value}`;
    }
    const byAddress = () => `api|${s.VaryByRemoteAddr ? `a:${req.socket.remoteAddress ?? ''}` : ''}${suffix}`;
    const token = s.VaryByUser ? findToken(req)?.token : undefined;
    if (!token) return byAddress();
    return then(this.userOf(token, s.MemoryStoreSize), (userId) => (userId ? `api|u:${userId}${suffix}` : byAddress()));
  }

  /** The token's user: remembered for a minute (answers at once), else looked up; unknown tokens are not remembered. */
  private userOf(token: string, capacity: number): Maybe<string | undefined> {
    if (!this.userOfToken) return undefined;
    const id = digest(token);
    const known = this.users.get(id);
    const now = this.now();
    if (known && known.until > now) return known.userId;
    // A failed lookup (the database is down) keys the request by its address: the limiter fails open, never shut.
    return this.userOfToken(token).catch(() => undefined).then((userId) => {
      this.users.delete(id);
      if (userId) {
        while (this.users.size >= Math.max(1, capacity)) this.users.delete(this.users.keys().next().value as string);
        this.users.set(id, { userId, until: now + USER_KEY_TTL_MS });
      }
      return userId;
    });
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
