import type { ServerResponse } from 'node:http';
import { BUILD_NUMBER, MATTERMOST_COMPAT_VERSION } from '../app/system';
import { newId } from '../lib/ids';

// Mattermost's shape: <version>.<build>.<config hash>.<licensed>. Client4 stores it as the server version.
export const VERSION_ID = `${MATTERMOST_COMPAT_VERSION}.${BUILD_NUMBER}.0.false`;

/**
 * Every response carries a request id (also in any AppError body), the version id, and the headers that keep a
 * browser from guessing a type (a JSON answer is never run as a script or page) or leaking our URLs (hook keys) in
 * a Referer. HTML pages add their own framing and content policies.
 */
export function stampResponse(res: ServerResponse): string {
  const requestId = newId();
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('X-Version-Id', VERSION_ID);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  return requestId;
}
