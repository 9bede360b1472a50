// The one place that knows the database drivers' error codes: every error a store call or transaction rejects with
// goes through translateDriverError, so the layers above see DatabaseError kinds (model/store-errors.ts) or their
// own errors, never MySQL's or SQLite's codes.
import { DatabaseError } from '../model/store-errors';

// The database cannot be reached, refused or dropped the connection, or asks to be retried: nothing was wrong with
// the request itself. Access denied and a locked account are here too: the server's credentials, not the client's.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_QUERY_INTERRUPTED',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_ACCOUNT_HAS_BEEN_LOCKED',
  'ER_HOST_IS_BLOCKED',
  'ER_HOST_NOT_PRIVILEGED',
  'ER_BAD_DB_ERROR',
  'ER_OUT_OF_RESOURCES',
  'ER_CANT_CREATE_THREAD',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_NOMEM',
]);

// The server gave up waiting: the database is hung or unreachable.
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'PROTOCOL_SEQUENCE_TIMEOUT']);

// MySQL refuses a value its column cannot hold (strict mode). SQLite holds anything, so these come from MySQL only.
const TOO_LONG_CODES = new Set(['ER_DATA_TOO_LONG', 'ER_WARN_DATA_OUT_OF_RANGE', 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD']);

const DUPLICATE_CODES = new Set(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE']);

// Knex, when the pool is gone (shutting down) or a connection could not be made; mysql2, when a query is sent on a
// connection the server just killed (a plain Error, no code).
const UNAVAILABLE_MESSAGE = /^(Unable to acquire a connection|Connection terminated|Can't add new command when connection is in closed state|Connection lost)/;

interface DriverError {
  code?: unknown;
  name?: string;
  fatal?: boolean;
  message?: unknown;
  sqlMessage?: unknown;
  cause?: unknown;
}

function kindOf(err: unknown, depth = 0): { kind: DatabaseError['kind']; column?: string } | undefined {
  if (!err || typeof err !== 'object' || depth > 5) return undefined;
  if (err instanceof DatabaseError) return { kind: err.kind, column: err.column };
  const e = err as DriverError;
  const code = typeof e.code === 'string' ? e.code : '';
  if (TIMEOUT_CODES.has(code) || e.name === 'KnexTimeoutError') return { kind: 'timeout' };
  if (TOO_LONG_CODES.has(code)) return { kind: 'too_long', column: columnOf(e) };
  if (DUPLICATE_CODES.has(code)) return { kind: 'duplicate' };
  if (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_IOERR') || e.fatal === true) return { kind: 'unavailable' };
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return { kind: 'unavailable' };
  // Wrapped errors (a failed rollback after a lost connection) carry the original as their cause.
  return kindOf(e.cause, depth + 1);
}

// "for column 'type'", or qualified as "for column `db`.`posts`.`message`": the last name is the column's.
function columnOf(e: DriverError): string {
  const text = typeof e.sqlMessage === 'string' ? e.sqlMessage : String(e.message ?? '');
  return /column (\S+)/.exec(text)?.[1].split('.').pop()?.replace(/[`']/g, '') || 'unknown';
}

/** A driver's error as a DatabaseError of its kind; anything else (an AppError thrown inside a transaction) as is. */
export function translateDriverError(err: unknown): unknown {
  if (err instanceof DatabaseError) return err;
  const found = kindOf(err);
  if (!found) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new DatabaseError(found.kind, message, found.column, { cause: err });
}
