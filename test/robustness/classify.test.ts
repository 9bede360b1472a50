// The small pieces the robustness fixes rest on: how the store translates driver errors into the kinds the layers
// above know (store/driver-errors.ts), what the writer answers for each, and the nesting limit of request bodies.
import { errorBody } from '../../src/http/writer';
import { MAX_JSON_DEPTH, nestingExceeds } from '../../src/lib/json-depth';
import { AppError, DatabaseError } from '../../src/model';
import { translateDriverError } from '../../src/store/driver-errors';

const withCode = (code: string) => Object.assign(new Error('x'), { code });
const kindOf = (err: unknown) => {
  const t = translateDriverError(err);
  return t instanceof DatabaseError ? t.kind : undefined;
};

test.each([
  'ECONNREFUSED',
  'ECONNRESET',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CONNECTION_KILLED',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_ACCESS_DENIED_ERROR',
  'ER_ACCOUNT_HAS_BEEN_LOCKED',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_BAD_DB_ERROR',
  'SQLITE_BUSY',
  'SQLITE_IOERR_FSYNC',
  'SQLITE_READONLY',
])('%s is "unavailable": 503 without internals', (code) => {
  expect(kindOf(withCode(code))).toBe('unavailable');
  expect(errorBody(translateDriverError(withCode(code)), 'rid', false)).toEqual({
    id: 'api.context.database_unavailable.app_error',
    message: 'The database is unavailable. Please try again shortly.',
    detailed_error: '',
    request_id: 'rid',
    status_code: 503,
  });
});

test.each([
  ['a fatal mysql2 error', Object.assign(new Error('Connection lost'), { fatal: true })],
  ['a pool that is gone', new Error('Unable to acquire a connection')],
  ['a query on a connection the server killed', new Error("Can't add new command when connection is in closed state")],
  ['a failure whose cause is a lost connection', new Error('rollback failed', { cause: Object.assign(new Error('x'), { code: 'PROTOCOL_CONNECTION_LOST' }) })],
])('%s is "unavailable"', (_name, err) => {
  expect(kindOf(err)).toBe('unavailable');
});

// A timeout (the database hung) is never waited out twice for one request: the group commit neither retries nor checks.
test.each([
  ['a statement past the query timeout', new DatabaseError('timeout', 'The database did not answer within 3 s.'), 'timeout'],
  ['a Knex acquire timeout', Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }), 'timeout'],
  ['a connect that timed out', withCode('ETIMEDOUT'), 'timeout'],
  ['a rollback failure caused by a timeout', new Error('rollback failed', { cause: new DatabaseError('timeout', 'x') }), 'timeout'],
  ['a killed connection', withCode('ER_CONNECTION_KILLED'), 'unavailable'],
  ['a deadlock', withCode('ER_LOCK_DEADLOCK'), 'unavailable'],
  ['a MySQL duplicate key', withCode('ER_DUP_ENTRY'), 'duplicate'],
  ['an SQLite unique constraint', withCode('SQLITE_CONSTRAINT_UNIQUE'), 'duplicate'],
  ['an SQLite primary key', withCode('SQLITE_CONSTRAINT_PRIMARYKEY'), 'duplicate'],
])('%s is of kind %s', (_name, err, kind) => {
  expect(kindOf(err)).toBe(kind);
});

test.each([
  ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'x')")],
  ['a string', 'boom'],
  ['null', null],
  ['a non-string code', { code: 42 }],
  ['an AppError', new AppError('a.b', 'm', 400)],
])('%s is not a database error: passed through untouched', (_name, err) => {
  expect(translateDriverError(err)).toBe(err);
});

test.each([
  ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'x')")],
  ['a string', 'boom'],
  ['an unexpected duplicate', new DatabaseError('duplicate', 'Duplicate entry')],
])('%s is an internal error: 500, and says nothing about it', (_name, err) => {
  expect(errorBody(err, 'rid', false)).toEqual({ id: 'api.context.internal.app_error', message: 'An internal error occurred.', detailed_error: '', request_id: 'rid', status_code: 500 });
});

test('an AppError keeps its id and status; a 5xx AppError hides its detail outside developer mode', () => {
  expect(errorBody(new AppError('a.b', 'm', 400, 'why'), 'r', false)).toMatchObject({ status_code: 400, detailed_error: 'why' });
  expect(errorBody(new AppError('a.b', 'm', 501, 'why'), 'r', false)).toMatchObject({ status_code: 501, detailed_error: '' });
  expect(errorBody(new AppError('a.b', 'm', 501, 'why'), 'r', true)).toMatchObject({ status_code: 501, detailed_error: 'why' });
});

test('nesting depth: up to the limit is fine, one more level is not, and very deep values do not overflow the stack', () => {
  const nest = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n));
  expect(nestingExceeds(nest(MAX_JSON_DEPTH))).toBe(false);
  expect(nestingExceeds(nest(MAX_JSON_DEPTH + 1))).toBe(true);
  expect(nestingExceeds(nest(200000))).toBe(true);
  expect(nestingExceeds({ a: [1, { b: 'x' }], c: null })).toBe(false);
  expect(nestingExceeds('x')).toBe(false);
});

test.each([
  ['ER_DATA_TOO_LONG', "Data too long for column 'pending_post_id' at row 1", 'pending_post_id'],
  ['ER_WARN_DATA_OUT_OF_RANGE', "Out of range value for column 'create_at' at row 1", 'create_at'],
  ['ER_TRUNCATED_WRONG_VALUE_FOR_FIELD', "Incorrect string value: '\\xF0\\x9F' for column `parley`.`posts`.`message` at row 1", 'message'],
])("%s is the client's value: a 400 naming the column, no internals", (code, sqlMessage, column) => {
  const err = Object.assign(new Error(`insert into posts ... - ${sqlMessage}`), { code, sqlMessage });
  for (const e of [err, new Error('wrapped', { cause: err })]) {
    const t = translateDriverError(e) as DatabaseError;
    expect([t.kind, t.column]).toEqual(['too_long', column]);
  }
  expect(errorBody(translateDriverError(err), 'rid', true)).toEqual({
    id: 'api.context.invalid_body_param.app_error',
    message: `A value is too long (or out of range) to be stored: ${column}.`,
    detailed_error: '',
    request_id: 'rid',
    status_code: 400,
  });
});

test('a too-long value whose message names no column still reads as one', () => {
  const t = translateDriverError(withCode('ER_DATA_TOO_LONG')) as DatabaseError;
  expect([t.kind, t.column]).toEqual(['too_long', 'unknown']);
});
