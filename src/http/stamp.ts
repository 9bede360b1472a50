import type { ServerResponse } from 'node:http';
import { newId } from '../lib/ids';
import { BUILD_NUMBER, MATTERMOST_COMPAT_VERSION } from '../app/system';

// Mattermost's shape: <version>.<build>.<config hash>.<licensed>. Client4 stores it as the server version.
export const VERSION_ID = `${MATTERMOST_COMPAT_VERSION}.${BUILD_NUMBER}.0.false`;

/** Every response carries a request id (also in any AppError body) and the version id. */
export function stampResponse(res: ServerResponse): string {
  const requestId = newId();
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('X-Version-Id', VERSION_ID);
  return requestId;
}
