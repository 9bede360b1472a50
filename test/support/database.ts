import knexFactory from 'knex';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * A fresh, empty database for one test file. SQLite by default; MariaDB/MySQL when PARLEY_TEST_DATABASE is a
 * mysql:// URL (its user may create databases): each test file gets its own database, dropped afterwards.
 */
export interface TestDatabase {
  driver: TestDialect;
  dataSource: string;
  drop(): Promise<void>;
}

export type TestDialect = 'sqlite' | 'mysql';

/** The database the whole run is on (the app, API and e2e suites): MySQL when PARLEY_TEST_DATABASE names a server. */
export function testDialect(): TestDialect {
  return (process.env.PARLEY_TEST_DATABASE ?? '').startsWith('mysql://') ? 'mysql' : 'sqlite';
}

/**
 * The MySQL/MariaDB server tests may create databases on, if any: PARLEY_TEST_DATABASE when it names one (the run is
 * on MySQL), else PARLEY_MYSQL_URL (set by CI, and by anyone with a server at hand, for the suites that run on every
 * database: test/store).
 */
export function mysqlTestUrl(): string | undefined {
  for (const url of [process.env.PARLEY_TEST_DATABASE, process.env.PARLEY_MYSQL_URL]) {
    if (url?.startsWith('mysql://')) return url;
  }
  return undefined;
}

/** A fresh database of `dialect` (by default the run's): on MySQL, one database of its own on the test server. */
export async function createTestDatabase(dialect: TestDialect = testDialect()): Promise<TestDatabase> {
  if (dialect === 'mysql') {
    const url = mysqlTestUrl();
    if (!url) throw new Error('A MySQL test database needs PARLEY_TEST_DATABASE or PARLEY_MYSQL_URL (mysql://user:pass@host:port/db)');
    const name = `parley_t_${randomBytes(6).toString('hex')}`;
    const server = new URL(url);
    const admin = knexFactory({
      client: 'mysql2',
      connection: {
        host: server.hostname,
        port: Number(server.port || 3306),
        user: decodeURIComponent(server.username),
        password: decodeURIComponent(server.password),
      },
      pool: { min: 0, max: 1 },
    });
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    server.pathname = `/${name}`;
    return {
      driver: 'mysql',
      dataSource: server.toString(),
      drop: async () => {
        await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
        await admin.destroy();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  return {
    driver: 'sqlite',
    dataSource: join(dir, 'parley.db'),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
