import pino from 'pino';

/** Structured JSON lines; silent under test unless LOG_LEVEL asks otherwise. */
export function createLogger(): pino.Logger {
  const level = process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info');
  return pino({ level, base: undefined });
}

export type Logger = pino.Logger;

export const MASKED_HOOK_ID = '{hook_id}';

// A run of percent-escapes, decoded as one (a multi-byte character spans several).
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

function decodeRun(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    // Not UTF-8 as a whole ("%68%6F%6F%6B%73%C3"): its ASCII escapes still decode, so no word hides behind a bad byte.
    return run.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

function decoded(path: string): string {
  let out = path;
  // Up to three rounds: "%252F" is a "/" sent twice encoded; a key hidden that way is still a key. Run by run, so
  // one malformed escape ("%ZZ", a lone "%C3") leaves the others decoded.
  for (let i = 0; i < 3 && out.includes('%'); i++) out = out.replace(ESCAPES, decodeRun);
  return out;
}

// Words that may follow `hooks` in a path and are no secret: the management paths' and dot segments.
const HOOK_PATH_WORDS = new Set(['', '.', '..', 'incoming', 'outgoing']);
// A key-like run inside a segment that only resembles `hooks` ("hooks;KEY", "hooks.KEY"): Parley's keys are 26
// letters and digits; any run of 20 or more is masked.
const KEY_LIKE = /[A-Za-z0-9]{20,}/g;
// `hooks`, also with something stuck to it ("hooks;x", " hooks", "hooks."), but not a word that merely ends in it.
const HOOKS_SEGMENT = /^[^a-z0-9]*hooks/;

/**
 * Paths as they may be logged: a hook key is a secret (whoever has it can post), so once a path reaches a `hooks`
 * segment every later segment is masked, except the fixed words of the management paths and `.`/`..`, however the
 * path is spelled: doubled or trailing slashes, `\` for `/`, dot segments (`/hooks/./KEY`, `/hooks/x/../KEY`), any
 * letter case, percent-encoding (of the key, the slashes or the word itself). A segment that starts with `hooks`
 * ("hooks;KEY") has its key-like runs masked and masks what follows it too. The query string is never logged.
 */
export function loggablePath(url: string | undefined): string {
  const path = decoded((url ?? '').split('?')[0].split('#')[0]).replace(/\\/g, '/');
  let underHooks = false;
  return path
    .split('/')
    .map((segment) => {
      const word = segment.toLowerCase();
      if (underHooks) return HOOK_PATH_WORDS.has(word) ? segment : MASKED_HOOK_ID;
      if (!HOOKS_SEGMENT.test(word)) return segment;
      underHooks = true;
      return word === 'hooks' ? segment : segment.replace(KEY_LIKE, MASKED_HOOK_ID);
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
