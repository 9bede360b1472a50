import pino from 'pino';

/** Structured JSON lines; silent under test unless LOG_LEVEL asks otherwise. */
export function createLogger(): pino.Logger {
  const level = process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info');
  return pino({ level, base: undefined });
}

export type Logger = pino.Logger;

/** Paths as they may be logged: a hook key is a secret, so it never reaches a log line. */
export function loggablePath(url: string | undefined): string {
  const path = (url ?? '').split('?')[0];
  return path.startsWith('/hooks/') ? '/hooks/{hook_id}' : path;
}
