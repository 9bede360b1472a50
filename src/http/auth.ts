import type { IncomingMessage } from 'node:http';

/**
 * Finds the session token as Mattermost does: the MMAUTHTOKEN cookie first, then `Authorization: Bearer <t>` or
 * `Token <t>` with the scheme in any case (Client4 sends "BEARER").
 */
export function tokenFromRequest(req: IncomingMessage): string | null {
  const cookie = req.headers.cookie;
  if (cookie) {
    for (const part of cookie.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === 'MMAUTHTOKEN') {
        const value = decodeCookieValue(part.slice(eq + 1).trim());
        if (value) return value;
      }
    }
  }
  const header = req.headers.authorization;
  if (header) {
    const match = /^(bearer|token)\s+(\S+)\s*$/i.exec(header);
    if (match) return match[2];
  }
  return null;
}

// A malformed %-escape is the client's problem, not a 500: the raw value is used (and will not match a session).
function decodeCookieValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
