import pino from 'pino';

/** Structured JSON lines; silent under test unless LOG_LEVEL asks otherwise. */
export function createLogger(): pino.Logger {
  const level = process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info');
  return pino({ level, base: undefined });
}

export type Logger = pino.Logger;

export const MASKED_HOOK_ID = '{hook_id}';

function decoded(path: string): string {
  let out = path;
  // Up to three rounds: "%252F" is a "/" sent twice encoded; a key hidden that way is still a key.
  for (let i = 0; i < 3 && out.includes('%'); i++) {
    try {
      out = decodeURIComponent(out);
    } catch {
      break;
    }
  }
  return out;
}

/**
 * Paths as they may be logged: a hook key is a secret (whoever has it can post), so the segment after `hooks` (or
 * after `hooks/incoming`) never reaches a log line, however the path is spelled: doubled or trailing slashes, any
 * letter case, percent-encoding (of the key, the slashes or the word itself), the API's management paths included.
 */
export function loggablePath(url: string | undefined): string {
  const path = decoded((url ?? '').split('?')[0].split('#')[0]);
  let state: 'none' | 'hooks' | 'incoming' = 'none';
  return path
    .split('/')
    .map((segment) => {
      if (segment === '') return segment;
      const word = segment.toLowerCase();
      if (state === 'hooks' && word === 'incoming') {
        state = 'incoming';
        return segment;
      }
      if (state !== 'none') {
        state = 'none';
        return MASKED_HOOK_ID;
      }
      if (word === 'hooks') state = 'hooks';
      return segment;
    })
    .join('/');
}

/**
 * Scrubs a secret out of an error before it is logged: a database error's message quotes the statement with its
 * values, so an outage during a webhook request would otherwise write the hook key to the log. The error keeps its
 * class and fields (the writer still classifies it); only text changes, down its chain of causes.
 */
export function scrubSecret<E>(err: E, secret: string): E {
  if (!secret) return err;
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as Record<string, unknown>;
    for (const field of ['message', 'stack', 'sql', 'sqlMessage', 'detailedError']) {
      const value = e[field];
      if (typeof value === 'string' && value.includes(secret)) {
        try {
          e[field] = value.split(secret).join(MASKED_HOOK_ID);
        } catch {
          // A read-only field (AppError's readonly detailedError is writable at run time; others may not be).
        }
      }
    }
    current = e.cause;
  }
  return err;
}
