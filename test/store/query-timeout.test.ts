// SqlSettings.QueryTimeout on MySQL/MariaDB: a statement the database does not answer in time fails with a
// 503-class error, its connection is dropped (never handed out again to hang the next query), and the pool goes on
// with fresh connections. Migrations run unbounded. Real MariaDB, real slow statements (SLEEP).
import { DatabaseError } from '../../src/model';
import { translateDriverError } from '../../src/store/driver-errors';

const kindOf = (err: unknown) => {
  const t = translateDriverError(err);
  return t instanceof DatabaseError ? t.kind : undefined;
};
import { openDatabase, type Database } from '../../src/store/db';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { storeDialects } from './fixtures';
import { eventually } from '../support/eventually';

// Like every store suite, it runs whenever a MySQL server is known (PARLEY_TEST_DATABASE or PARLEY_MYSQL_URL).
const onMysql = storeDialects().includes('mysql') ? describe : describe.skip;

onMysql('query timeout (MySQL)', () => {
  let tdb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    tdb = await createTestDatabase('mysql');
    db = openDatabase({ driverName: 'mysql', dataSource: tdb.dataSource, queryTimeoutMs: 400, maxConnections: 1 });
  });
  afterAll(async () => {
    await db.close();
    await tdb.drop();
  });

  const threadId = async () => Number(((await db.knex.raw('SELECT CONNECTION_ID() AS id')) as [Array<{ id: number }>])[0][0].id);

  test('every connection runs in strict mode whatever the server default: a value too long is refused, never cut', async () => {
    const [[row]] = (await db.knex.raw('SELECT @@SESSION.sql_mode AS mode')) as [Array<{ mode: string }>];
    expect(row.mode.split(',')).toContain('STRICT_ALL_TABLES');
  });

  test('a statement slower than the timeout fails fast as a timeout; the next query runs on a new connection', async () => {
    const before = await threadId();
    const started = Date.now();
    const err = await db.knex.raw('SELECT SLEEP(3)').then(
      () => undefined,
      (e: unknown) => e,
    );
    const took = Date.now() - started;
    expect(kindOf(err)).toBe('timeout');
    // Generous bounds on purpose: cut near the timeout, far from the 3 s the statement asked for.
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(2500);
    // One pooled connection: had the dropped one been handed out again, this query would wait out the SLEEP.
    const next = Date.now();
    const after = await threadId();
    // A generous bound: waiting out the SLEEP would take seconds.
    expect(Date.now() - next).toBeLessThan(1500);
    expect(after).not.toBe(before);
  });

  test('a timed-out statement inside a transaction fails the transaction; its writes are not committed', async () => {
    await db.knex.schema.createTable('qt_probe', (t) => t.integer('n'));
    const err = await db.knex
      .transaction(async (trx) => {
        await trx('qt_probe').insert({ n: 1 });
        await trx.raw('SELECT SLEEP(3)');
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    // Still known as a timeout after the transaction's rollback on the dropped connection: the group commit must not
    // retry it (another full wait on a hung database).
    expect(kindOf(err)).toBe('timeout');
    // The server rolls back what the dropped connection left open.
    await eventually(async () => expect(await db.knex('qt_probe').select('n')).toEqual([]), 2000, 100);
  });

  test('statements faster than the timeout and SQL errors are untouched', async () => {
    expect(((await db.knex.raw('SELECT SLEEP(0.1) AS s')) as [Array<{ s: number }>])[0][0].s).toBe(0);
    const err = (await db.knex.raw('SELEKT 1').then(
      () => undefined,
      (e: unknown) => e,
    )) as { code?: string };
    expect(err.code).toBe('ER_PARSE_ERROR');
    expect(kindOf(err)).toBeUndefined();
  });

  test('work run unbounded (migrations) may take longer than the timeout', async () => {
    const rows = (await db.unbounded(() => db.knex.raw('SELECT SLEEP(0.8) AS s'))) as [Array<{ s: number }>];
    expect(rows[0][0].s).toBe(0);
  });
});

if (!storeDialects().includes('mysql')) test.skip('query timeout: MySQL only (SQLite statements run in-process)', () => undefined);
