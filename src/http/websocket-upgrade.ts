// The upgrade to GET /api/v4/websocket: the path, the Origin check, the rate limit and the session from the cookie or
// Authorization header, in that order. A refusal is an AppError written through the one error writer (writer.ts) as
// the HTTP response on the upgrading socket; an upgrade without a session is accepted (the client may still answer
// with authentication_challenge).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { App } from '../app';
import { AppError, type Session } from '../model';
import { findToken } from './auth';
import type { RateLimits } from './rate-limits';
import { writeUpgradeError } from './writer';

/** Every refusal says the same; its id and status say why. */
const refused = (id: string, status: number) => new AppError(id, 'The WebSocket connection was refused.', status);

/** An upgrade accepted: who it authenticated as (null: nobody yet), with the token, and the query it came with. */
export interface Upgraded {
  session: Session | null;
  token: string;
  params: URLSearchParams;
}

export interface UpgradeOptions {
  limits: RateLimits;
  /** Where the server is reached from, for the Origin check: ServiceSettings.SiteURL when set. */
  siteUrl: () => string;
  onError: (err: unknown, what: string) => void;
}

/**
 * The `upgrade` listener: checks the request and calls `accept` with what it found, or answers the refusal. Accepting
 * is the caller's (it completes the WebSocket handshake).
 */
export function upgradeHandler(app: App, options: UpgradeOptions, accept: (req: IncomingMessage, socket: Duplex, head: Buffer, upgraded: Upgraded) => void) {
  const refuse = (socket: Duplex, id: string, status: number) => writeUpgradeError(socket, refused(id, status), '');
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://parley.invalid');
    if (url.pathname !== '/api/v4/websocket' && url.pathname !== '/api/v4/websocket/') return void refuse(socket, 'api.context.404.app_error', 404);
    if (!originAllowed(req, options.siteUrl())) return void refuse(socket, 'api.web_socket.connect.upgrade.app_error', 400);
    void (async () => {
      try {
        const limited = app.deps.config.get().RateLimitSettings.Enable ? await options.limits.checkRequest(req, fakeResponse()) : undefined;
        if (limited) return void refuse(socket, 'api.context.rate_limit.app_error', 429);
        const found = findToken(req);
        const session = found ? ((await app.sessions.authenticate(found.token)) ?? null) : null;
        accept(req, socket, head, { session, token: found?.token ?? '', params: url.searchParams });
      } catch (err) {
        options.onError(err, 'websocket upgrade failed');
        refuse(socket, 'api.context.database_unavailable.app_error', 503);
      }
    })();
  };
}

/**
 * Cross-site WebSocket hijacking: a page elsewhere may open a socket here and the browser would send the session
 * cookie along. Mattermost's rule: no Origin (not a browser) is fine, `null` is not; otherwise the origin must be
 * the server itself (SiteURL when set, else the Host the request was sent to).
 */
export function originAllowed(req: IncomingMessage, siteUrl: string): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (origin === 'null') return false;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (siteUrl) {
    try {
      const site = new URL(siteUrl);
      return o.protocol === site.protocol && o.host === site.host;
    } catch {
      return false;
    }
  }
  return o.host === req.headers.host;
}

/** The limiter stamps headers on a response; an upgrade has none to carry them. */
function fakeResponse() {
  return { setHeader: () => undefined } as never;
}
