import type { IncomingMessage } from 'node:http';
import { AppError, type Session } from '../model';
import { AUTH_COOKIE } from './cookies';

/**
 * Finds the session token: `Authorization: Bearer <t>` or `Token <t>` (the scheme in any case; Client4 sends
 * "BEARER"), else the MMAUTHTOKEN cookie.
 */
export function tokenFromRequest(req: IncomingMessage): string | null {
  return findToken(req)?.token ?? null;
}

/**
 * The session token and where it came from: a cookie-borne token must pass the CSRF check on a state change.
 *
 * A token in the Authorization header decides, whatever cookies come with it. Mattermost reads the cookie first, but
 * it sets cookies only on a browser login; HTTP clients that keep cookies (python's requests, under
 * mattermostdriver) would otherwise have their Bearer requests judged by a cookie, and refused by the CSRF rule or
 * by a stale session. A header is also the stronger proof: another site can make a browser send the cookie, never
 * the header (no CORS here).
 */
export function findToken(req: IncomingMessage): { token: string; fromCookie: boolean } | null {
  const header = req.headers.authorization;
  if (header) {
    const match = /^(bearer|token)\s+(\S+)\s*$/i.exec(header);
    if (match) return { token: match[2], fromCookie: false };
  }
  const cookie = req.headers.cookie;
  if (cookie) {
    for (const part of cookie.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === AUTH_COOKIE) {
        const value = decodeCookieValue(part.slice(eq + 1).trim());
        if (value) return { token: value, fromCookie: true };
      }
    }
  }
  return null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Mattermost's CSRF guard: a request that changes something and is authenticated by the session cookie (which a
 * browser attaches to requests from any site) must prove it comes from a page of this server, by sending the
 * session's CSRF token in X-CSRF-Token (the web app reads it from the MMCSRF cookie) or the X-Requested-With header
 * that only a script of the same origin can set without a preflight. With `strict`
 * (ServiceSettings.ExperimentalStrictCSRFEnforcement) only the token passes, as in Mattermost: X-Requested-With is a
 * weaker proof (it relies on the browser's CORS rules alone). Tokens sent in a header need neither: another site
 * cannot make a browser send them.
 */
export function passesCsrfCheck(req: IncomingMessage, session: Session, fromCookie: boolean, strict: boolean): boolean {
  if (!fromCookie || SAFE_METHODS.has(req.method ?? 'GET')) return true;
  const sent = req.headers['x-csrf-token'];
  if (typeof sent === 'string' && session.csrfToken !== '' && sent === session.csrfToken) return true;
  return !strict && req.headers['x-requested-with'] === 'XMLHttpRequest';
}

export function csrfError(): AppError {
  return new AppError('api.context.session_expired.app_error', 'Invalid or expired session, please login again.', 401, 'Appears to be a CSRF attempt.');
}

// A malformed %-escape is the client's problem, not a 500: the raw value is used (and will not match a session).
function decodeCookieValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
