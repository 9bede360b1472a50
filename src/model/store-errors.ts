/**
 * What the stores throw when the database refuses or fails a statement, translated from the drivers' own errors so
 * that nothing above the store knows MySQL's or SQLite's error codes:
 * - `unavailable`: the database cannot be reached or refused the connection (down, refused, access denied, too many
 *   connections, shutting down, a lost connection, a deadlock to retry): try again later (503);
 * - `timeout`: the server gave up waiting (a statement past SqlSettings.QueryTimeout, no pooled connection in time):
 *   the database is hung; asking it again for the same request only doubles the wait (503);
 * - `too_long`: a value did not fit its column (400, naming the column);
 * - `duplicate`: a unique key refused a row.
 */
export type DatabaseErrorKind = 'unavailable' | 'timeout' | 'too_long' | 'duplicate';

export class DatabaseError extends Error {
  constructor(
    readonly kind: DatabaseErrorKind,
    message: string,
    /** The column a too-long value was meant for, when the database named it. */
    readonly column?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseError';
  }
}

export function isDatabaseError(err: unknown, kind?: DatabaseErrorKind): err is DatabaseError {
  return err instanceof DatabaseError && (kind === undefined || err.kind === kind);
}
