// Which database errors mean "unavailable, try again" rather than "your request was wrong". Kept free of any
// driver import, so the HTTP writer (also used by the mock server) can classify errors without loading Knex.

// Connection-level and transient failures: the request did not fail because of what it asked for, and may be retried.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_QUERY_INTERRUPTED',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
]);

/**
 * Whether an error means the database is unavailable (down, unreachable, its connection lost or killed, the pool
 * exhausted, a transient deadlock) rather than that the request was wrong: the HTTP layer answers these 503.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; name?: string; fatal?: boolean; message?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('SQLITE_IOERR'))) return true;
  if (e.name === 'KnexTimeoutError' || e.name === 'DatabaseUnavailableError' || e.fatal === true) return true;
  // Knex, when the pool is gone (shutting down) or a connection could not be made; mysql2, when a query is sent on a
  // connection the server just killed (a plain Error, no code).
  if (typeof e.message === 'string' && /^(Unable to acquire a connection|Connection terminated|Knex: Timeout acquiring|Can't add new command when connection is in closed state|Connection lost)/.test(e.message)) return true;
  // Wrapped errors (a failed rollback after a lost connection) carry the original as their cause.
  return isDatabaseUnavailable((err as { cause?: unknown }).cause);
}

/**
 * Whether the server gave up waiting on the database: a statement past SqlSettings.QueryTimeout, no pooled connection
 * in time, a connect that timed out. The database is hung (or unreachable), so asking it again on behalf of the same
 * request would only make that client wait another full bound before its 503.
 */
export function isDatabaseTimeout(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; name?: string };
  if (e.code === 'ETIMEDOUT' || e.code === 'PROTOCOL_SEQUENCE_TIMEOUT') return true;
  if (e.name === 'KnexTimeoutError' || e.name === 'DatabaseUnavailableError') return true;
  return isDatabaseTimeout((err as { cause?: unknown }).cause);
}

/** A unique or primary key refused a row: on a retried write, the sign that an earlier attempt committed after all. */
export function isDuplicateKey(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

// MySQL refuses a value its column cannot hold (strict mode). SQLite holds anything, so these come from MySQL only.
const UNSTORABLE_CODES = new Set(['ER_DATA_TOO_LONG', 'ER_WARN_DATA_OUT_OF_RANGE', 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD']);

/**
 * The column a value did not fit, when the database refused it as too long or out of range; undefined otherwise.
 * The API checks every stored field's length first, so this is the backstop that keeps a missed one a 400, not a 500.
 */
export function unstorableColumn(err: unknown): string | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; sqlMessage?: unknown; message?: unknown };
  if (typeof e.code !== 'string' || !UNSTORABLE_CODES.has(e.code)) return unstorableColumn((err as { cause?: unknown }).cause);
  const text = typeof e.sqlMessage === 'string' ? e.sqlMessage : String(e.message ?? '');
  // "for column 'type'", or qualified as "for column `db`.`posts`.`message`": the last name is the column's.
  const named = /column (\S+)/.exec(text)?.[1].split('.').pop()?.replace(/[`']/g, '');
  return named || 'unknown';
}

/** Thrown where the server gives up waiting for the database (a statement past its time, a queued write never taken). */
export class DatabaseUnavailableError extends Error {
  constructor(message = 'The database did not answer in time.') {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}
