// A 5xx tells the client nothing about internals, so the operator must learn everything from the log: every 500 is
// logged at error level with the error itself and the request id the client was given; a 503 (database
// unavailable) at warn level. Faults are real: a table dropped under the server, then the pool closed.
import pino from 'pino';
import { Writable } from 'node:stream';
import { startParley, type Parley } from '../../src/parley';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/database';

let db: TestDatabase;
let parley: Parley;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  parley = await startParley({
    env: { MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource },
    listen: '127.0.0.1:0',
    validateResponses: false,
    logger: pino({ level: 'info', base: undefined }, sink),
  });
});
afterAll(async () => {
  await parley.close();
  await db.drop();
});

const logOf = (requestId: string | null) => lines.find((l) => l.request_id === requestId);

// MySQL only: SQLite stores any length. The column is narrowed under the server, so a value the API accepts no
// longer fits: the backstop for a length check the API might lack.
(testDialect() === 'mysql' ? test : test.skip)('a value the database refuses as too long is a 400 naming the column, logged at warn', async () => {
  await parley.db.knex.raw('ALTER TABLE users MODIFY first_name VARCHAR(2) NOT NULL DEFAULT ""');
  const res = await fetch(`${parley.url}/api/v4/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'narrow@example.com', username: 'narrow', password: 'Passw0rd!', first_name: 'Ada' }),
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ id: 'api.context.invalid_body_param.app_error', message: expect.stringMatching(/first_name/), status_code: 400 });
  const line = logOf(res.headers.get('X-Request-Id'));
  expect(line).toMatchObject({ level: 40, msg: 'value the database could not store', status: 400 });
  expect((line?.err as { message: string }).message).toMatch(/Data too long/);
});

test('a 500 is logged at error level with its error and request id; the client gets the bare AppError', async () => {
  await parley.db.knex.schema.dropTable('users');
  const res = await fetch(`${parley.url}/api/v4/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'first@example.com', username: 'first', password: 'Passw0rd!' }),
  });
  expect(res.status).toBe(500);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ id: 'api.context.internal.app_error', detailed_error: '', status_code: 500 });
  expect(JSON.stringify(body)).not.toMatch(/users/);
  const line = logOf(res.headers.get('X-Request-Id'));
  expect(line).toMatchObject({ level: 50, msg: 'request failed', status: 500, method: 'POST', path: '/api/v4/users' });
  const err = line?.err as { message: string; stack: string };
  expect(err.message).toMatch(/users/);
  expect(err.stack).toMatch(/\n\s+at /);
});

test('a 503 while the database is unavailable is logged at warn level with its cause', async () => {
  await parley.db.knex.destroy();
  // Any token: looking the session up needs the database.
  const res = await fetch(`${parley.url}/api/v4/users/me`, { headers: { Authorization: 'Bearer 9nq3hd8xcfbqiyu3zhbzj4bqdw' } });
  expect(res.status).toBe(503);
  const line = logOf(res.headers.get('X-Request-Id'));
  expect(line).toMatchObject({ level: 40, msg: 'database unavailable', status: 503 });
  expect((line?.err as { message: string }).message).not.toBe('');
});

test('an ordinary request is one info line with no error', async () => {
  const before = lines.length;
  const res = await fetch(`${parley.url}/api/v4/system/ping`);
  expect(res.status).toBe(200);
  const line = logOf(res.headers.get('X-Request-Id'));
  expect(line).toMatchObject({ level: 30, status: 200, path: '/api/v4/system/ping' });
  expect(line).not.toHaveProperty('err');
  expect(lines.length).toBe(before + 1);
});
