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
  driver: 'sqlite' | 'mysql';
  dataSource: string;
  drop(): Promise<void>;
}

export function testDialect(): 'sqlite' | 'mysql' {
  return (process.env.PARLEY_TEST_DATABASE ?? '').startsWith('mysql://') ? 'mysql' : 'sqlite';
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const url = process.env.PARLEY_TEST_DATABASE ?? '';
  if (url.startsWith('mysql://')) {
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
