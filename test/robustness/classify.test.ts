// The small pieces the robustness fixes rest on: which errors are "database unavailable" (503), what the writer
// makes of them, and the nesting limit of request bodies.
import { AppError } from '../../src/app/errors';
import { DatabaseUnavailableError, isDatabaseTimeout, isDatabaseUnavailable, unstorableColumn } from '../../src/lib/db-errors';
import { MAX_JSON_DEPTH, nestingExceeds } from '../../src/lib/json-depth';
import { errorBody } from '../../src/http/writer';

const withCode = (code: string) => Object.assign(new Error('x'), { code });

test.each([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CONNECTION_KILLED',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_IOERR_FSYNC',
])('%s is "database unavailable": 503 without internals', (code) => {
  expect(isDatabaseUnavailable(withCode(code))).toBe(true);
  expect(errorBody(withCode(code), 'rid', false)).toEqual({
    id: 'api.context.database_unavailable.app_error',
    message: 'The database is unavailable. Please try again shortly.',
    detailed_error: '',
    request_id: 'rid',
    status_code: 503,
  });
});

test.each([
  ['a Knex acquire timeout', Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })],
  ['a fatal mysql2 error', Object.assign(new Error('Connection lost'), { fatal: true })],
  ['a queued write given up on', new DatabaseUnavailableError()],
  ['a pool that is gone', new Error('Unable to acquire a connection')],
  ['a query on a connection the server killed', new Error("Can't add new command when connection is in closed state")],
  ['a failure whose cause is a lost connection', new Error('rollback failed', { cause: Object.assign(new Error('x'), { code: 'PROTOCOL_CONNECTION_LOST' }) })],
])('%s is "database unavailable"', (_name, err) => {
  expect(isDatabaseUnavailable(err)).toBe(true);
});

// A timeout (the database hung) is never waited out twice for one request: the group commit neither retries nor checks.
test.each([
  ['a statement past the query timeout', new DatabaseUnavailableError('The database did not answer within 3 s.'), true],
  ['a Knex acquire timeout', Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }), true],
  ['a connect that timed out', withCode('ETIMEDOUT'), true],
  ['a rollback failure caused by a timeout', new Error('rollback failed', { cause: new DatabaseUnavailableError() }), true],
  ['a killed connection', withCode('ER_CONNECTION_KILLED'), false],
  ['a deadlock', withCode('ER_LOCK_DEADLOCK'), false],
  ['a duplicate key', withCode('ER_DUP_ENTRY'), false],
])('%s: a database timeout? %s', (_name, err, timeout) => {
  expect(isDatabaseTimeout(err)).toBe(timeout);
});

test.each([
  ['a duplicate key', withCode('ER_DUP_ENTRY')],
  ['a constraint', withCode('SQLITE_CONSTRAINT_UNIQUE')],
  ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'x')")],
  ['a string', 'boom'],
  ['null', null],
  ['a non-string code', { code: 42 }],
])('%s is an internal error: 500, and says nothing about it', (_name, err) => {
  expect(isDatabaseUnavailable(err)).toBe(false);
  expect(errorBody(err, 'rid', false)).toEqual({ id: 'api.context.internal.app_error', message: 'An internal error occurred.', detailed_error: '', request_id: 'rid', status_code: 500 });
});

test('an AppError keeps its id and status; a 5xx AppError hides its detail outside developer mode', () => {
  expect(errorBody(new AppError('a.b', 'm', 400, 'why'), 'r', false)).toMatchObject({ status_code: 400, detailed_error: 'why' });
  expect(errorBody(new AppError('a.b', 'm', 501, 'why'), 'r', false)).toMatchObject({ status_code: 501, detailed_error: '' });
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
])('%s is the client\'s value: a 400 naming the column, no internals', (code, sqlMessage, column) => {
  const err = Object.assign(new Error(`insert into posts ... - ${sqlMessage}`), { code, sqlMessage });
  expect(unstorableColumn(err)).toBe(column);
  expect(unstorableColumn(new Error('wrapped', { cause: err }))).toBe(column);
  expect(isDatabaseUnavailable(err)).toBe(false);
  expect(errorBody(err, 'rid', true)).toEqual({
    id: 'api.context.invalid_body_param.app_error',
    message: `A value is too long (or out of range) to be stored: ${column}.`,
    detailed_error: '',
    request_id: 'rid',
    status_code: 400,
  });
});

test('other database errors name no column', () => {
  expect(unstorableColumn(withCode('ER_DUP_ENTRY'))).toBeUndefined();
  expect(unstorableColumn(withCode('ECONNRESET'))).toBeUndefined();
  expect(unstorableColumn(new Error('Data too long for column x'))).toBeUndefined();
});
