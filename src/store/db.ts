import knexFactory, { Knex } from 'knex';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseError } from '../model/store-errors';
import { migrationConfig } from './migrations';
import { hasHashtag } from './search-text';

export type Dialect = 'sqlite' | 'mysql';

export interface Database {
  knex: Knex;
  dialect: Dialect;
  close(): Promise<void>;
  /** Runs `fn` with statements unbounded by the query timeout (migrations may rebuild large tables). */
  unbounded<T>(fn: () => Promise<T>): Promise<T>;
}

export interface DatabaseOptions {
  driverName: Dialect;
  dataSource: string;
  /** Upper bound of pooled MySQL connections. */
  maxConnections?: number;
  /** MySQL: how long one statement may take (SqlSettings.QueryTimeout, in ms); default 30 s. */
  queryTimeoutMs?: number;
}

function mysqlConnection(dataSource: string): Knex.MySql2ConnectionConfig {
  let url: URL;
  try {
    url = new URL(dataSource);
  } catch {
    throw new Error('SqlSettings.DataSource must look like mysql://user:pass@host:port/database');
  }
  if (url.protocol !== 'mysql:') throw new Error('SqlSettings.DataSource must use the mysql:// scheme');
  return {
    host: url.hostname || '127.0.0.1',
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
    charset: 'utf8mb4',
    supportBigNumbers: true,
    bigNumberStrings: false,
    timezone: 'Z',
  };
}

interface SqliteConnection {
  pragma(sql: string): unknown;
  prepare(sql: string): unknown;
  function(name: string, options: { deterministic: boolean }, fn: (...args: unknown[]) => unknown): unknown;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Knex prepares every query anew on better-sqlite3, which costs as much as running a small one. The connection keeps
 * its most recently used statements instead (Knex only ever runs them to completion, so sharing one is safe).
 */
function cacheStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement) {
      // Re-inserted so the map's order is least recently used first.
      cache.delete(sql);
    } else {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, statement);
    return statement;
  };
}

/**
 * How long a request waits for a pooled MySQL connection (all busy, or none can be opened) before it is answered
 * 503, and how long opening one may take. A hung or unreachable database then costs a client seconds, not minutes.
 */
export const ACQUIRE_TIMEOUT_MS = 5000;
export const CONNECT_TIMEOUT_MS = 5000;
/** Mattermost's SqlSettings.QueryTimeout default: 30 s. */
export const DEFAULT_QUERY_TIMEOUT_MS = 30000;

interface MysqlConnection {
  query(options: unknown, values: unknown, callback?: unknown): unknown;
  destroy(): void;
}

type QueryCallback = (err: Error | null, ...results: unknown[]) => void;

/**
 * Bounds every statement sent on a mysql2 connection. mysql2's own `timeout` option leaves the connection waiting for
 * the late answer, so the pool would hand out a connection that hangs the next query; here the connection is
 * destroyed instead (Knex's pool checks for that and never reuses it) and the caller gets a 503-class error at once.
 * A timed-out COMMIT has an unknown outcome, as with any lost connection (the caller gets a 503, which promises
 * nothing). Statements sent after the drop (a transaction's ROLLBACK) fail as timeouts too: Knex rejects a
 * transaction with its ROLLBACK's error, and the group commit must still see that the database did not answer.
 */
function boundQueries(conn: MysqlConnection, timeoutMs: () => number): void {
  const query = conn.query.bind(conn);
  let dropped: DatabaseError | undefined;
  conn.query = (options: unknown, values: unknown, callback?: unknown) => {
    const [vals, cb] = typeof values === 'function' ? [undefined, values as QueryCallback] : [values, callback as QueryCallback];
    const ms = timeoutMs();
    if (!cb || ms <= 0) return query(options, values, callback);
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      dropped = new DatabaseError('timeout', `The database did not answer within ${ms / 1000} s.`);
      conn.destroy();
      cb(dropped);
    }, ms);
    return query(options, vals, (err: Error | null, ...results: unknown[]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err && dropped) cb(new DatabaseError('timeout', `${dropped.message} (${err.message})`), ...results);
      else cb(err, ...results);
    });
  };
}

const STRICT_SESSION = "SET SESSION sql_mode = CONCAT_WS(',', NULLIF(@@SESSION.sql_mode, ''), 'STRICT_ALL_TABLES')";

export function openDatabase(options: DatabaseOptions): Database {
  let knex: Knex;
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  if (!(queryTimeoutMs > 0)) throw new Error('SqlSettings.QueryTimeout must be a positive number of seconds');
  let unboundedRuns = 0;
  if (options.driverName === 'mysql') {
    knex = knexFactory({
      client: 'mysql2',
      connection: { ...mysqlConnection(options.dataSource), connectTimeout: CONNECT_TIMEOUT_MS },
      pool: {
        min: 0,
        max: options.maxConnections ?? 10,
        afterCreate: (conn: MysqlConnection, done: (err: Error | null, conn: unknown) => void) => {
          boundQueries(conn, () => (unboundedRuns > 0 ? 0 : queryTimeoutMs));
          // Strict whatever the server's default: a value its column cannot hold is refused (a 400), never cut short.
          conn.query(STRICT_SESSION, (err: Error | null) => done(err, conn), undefined);
        },
      },
      // Knex's default is 60 s: with the database hung, every request would hang that long. Fail fast instead (503).
      acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    });
  } else {
    const filename = options.dataSource.replace(/^sqlite:(\/\/)?/, '');
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      // One connection: better-sqlite3 is synchronous, and a single writer avoids SQLITE_BUSY between our own queries.
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) => {
          cacheStatements(conn);
          conn.pragma('journal_mode = WAL');
          // FULL: a commit is on disk before we answer, so an acknowledged post survives power loss, not only a crash.
          conn.pragma('synchronous = FULL');
          conn.pragma('busy_timeout = 5000');
          conn.pragma('foreign_keys = ON');
          // Post search's hashtag check (MariaDB runs the same pattern with REGEXP).
          conn.function('parley_has_hashtag', { deterministic: true }, (message, tag) => (hasHashtag(String(message ?? ''), String(tag ?? '')) ? 1 : 0));
          done(null, conn);
        },
      },
      // The one connection is held by a running transaction; a request waiting longer than this is answered 503.
      acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    });
  }
  return {
    knex,
    dialect: options.driverName,
    close: () => knex.destroy(),
    unbounded: async (fn) => {
      unboundedRuns++;
      try {
        return await fn();
      } finally {
        unboundedRuns--;
      }
    },
  };
}

export async function migrate(db: Database): Promise<void> {
  await db.unbounded(() => db.knex.migrate.latest(migrationConfig));
}

export async function rollbackAll(db: Database): Promise<void> {
  await db.knex.migrate.rollback(migrationConfig, true);
}
