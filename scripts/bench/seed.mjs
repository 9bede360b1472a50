// Databases for the bench: created and migrated with the project's own migrations (dist/src/store), and channel
// history seeded straight into the posts table with multi-row INSERTs in transactions.
import { newId, log } from './lib.mjs';

const COLUMNS = ['id', 'create_at', 'update_at', 'edit_at', 'delete_at', 'is_pinned', 'user_id', 'channel_id', 'root_id', 'original_id', 'message', 'type', 'props', 'hashtags', 'file_ids', 'pending_post_id', 'metadata'];

function mysqlConfig(dataSource, withDatabase = true) {
  const url = new URL(dataSource);
  return {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    ...(withDatabase ? { database: url.pathname.slice(1) } : {}),
    charset: 'utf8mb4',
  };
}

/** Creates an empty MariaDB database named `name` on the server of `serverUrl`; returns its URL and a dropper. */
export async function createMysqlDatabase(serverUrl, name) {
  const mysql = await import('mysql2/promise');
  const admin = await mysql.createConnection(mysqlConfig(serverUrl, false));
  await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    dataSource: url.toString(),
    async drop() {
      const c = await mysql.createConnection(mysqlConfig(serverUrl, false));
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    },
  };
}

/** Runs the project's migrations on a database (what the server does at start), for the bare baselines. */
export async function migrateDatabase(driver, dataSource) {
  const { openDatabase, migrate } = await import('../../dist/src/store/db.js');
  const db = openDatabase({ driverName: driver, dataSource });
  await migrate(db);
  await db.close();
}

function messageFor(i) {
  return `Seeded message ${i}: deploy of service-${i % 97} finished in ${(i % 600) + 12}s, see the pipeline for details`;
}

/**
 * Inserts `count` posts by `userId` into `channelId`, oldest first, 10 ms apart and ending a minute ago, then moves
 * the channel's counters as the server would have. Returns the ids of the oldest posts (cursor anchors).
 */
export async function seedPosts({ driver, dataSource, channelId, userId, count, label }) {
  const started = performance.now();
  const end = Date.now() - 60000;
  const first = end - count * 10;
  const anchors = [];
  const rowAt = (i) => {
    const id = newId();
    if (i < 200) anchors[i] = id;
    const t = first + i * 10;
    return [id, t, t, 0, 0, 0, userId, channelId, '', '', messageFor(i), '', '{}', '', '[]', '', null];
  };
  let lastReport = performance.now();
  const progress = (done) => {
    if (performance.now() - lastReport > 5000 || done === count) {
      lastReport = performance.now();
      const s = (performance.now() - started) / 1000;
      log(`  seeding ${label}: ${done.toLocaleString('en-US')} / ${count.toLocaleString('en-US')} posts, ${s.toFixed(1)} s, ${Math.round(done / s).toLocaleString('en-US')} rows/s`);
    }
  };
  if (driver === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(dataSource);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 10000');
    const PER_STATEMENT = 100;
    const one = `(${COLUMNS.map(() => '?').join(',')})`;
    const many = db.prepare(`INSERT INTO posts (${COLUMNS.join(',')}) VALUES ${Array(PER_STATEMENT).fill(one).join(',')}`);
    const single = db.prepare(`INSERT INTO posts (${COLUMNS.join(',')}) VALUES ${one}`);
    const PER_TRANSACTION = 50000;
    const chunk = db.transaction((from, to) => {
      let i = from;
      for (; i + PER_STATEMENT <= to; i += PER_STATEMENT) {
        const params = [];
        for (let j = i; j < i + PER_STATEMENT; j++) params.push(...rowAt(j));
        many.run(params);
      }
      for (; i < to; i++) single.run(rowAt(i));
    });
    for (let from = 0; from < count; from += PER_TRANSACTION) {
      chunk(from, Math.min(count, from + PER_TRANSACTION));
      progress(Math.min(count, from + PER_TRANSACTION));
    }
    db.prepare(
      'UPDATE channels SET total_msg_count = total_msg_count + ?, total_msg_count_root = total_msg_count_root + ?, last_post_at = MAX(last_post_at, ?), last_root_post_at = MAX(last_root_post_at, ?) WHERE id = ?',
    ).run(count, count, end - 10, end - 10, channelId);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  } else {
    const mysql = await import('mysql2/promise');
    const PER_STATEMENT = 1000;
    const PER_TRANSACTION = 20000;
    // Several connections each fill their own ranges, so the database's cores all work on index maintenance (and
    // one waits on the disk while another inserts).
    const worker = async (ranges) => {
      const conn = await mysql.createConnection(mysqlConfig(dataSource));
      for (const [from, to] of ranges) {
        await conn.beginTransaction();
        for (let i = from; i < to; i += PER_STATEMENT) {
          const rows = [];
          for (let j = i; j < Math.min(to, i + PER_STATEMENT); j++) rows.push(rowAt(j));
          await conn.query(`INSERT INTO posts (${COLUMNS.join(',')}) VALUES ?`, [rows]);
        }
        await conn.commit();
        done += to - from;
        progress(done);
      }
      await conn.end();
    };
    let done = 0;
    const WORKERS = Number(process.env.PARLEY_BENCH_SEED_WORKERS ?? 3);
    const ranges = Array.from({ length: WORKERS }, () => []);
    for (let from = 0, k = 0; from < count; from += PER_TRANSACTION, k++) ranges[k % WORKERS].push([from, Math.min(count, from + PER_TRANSACTION)]);
    await Promise.all(ranges.map(worker));
    const conn = await mysql.createConnection(mysqlConfig(dataSource));
    await conn.query(
      'UPDATE channels SET total_msg_count = total_msg_count + ?, total_msg_count_root = total_msg_count_root + ?, last_post_at = GREATEST(last_post_at, ?), last_root_post_at = GREATEST(last_root_post_at, ?) WHERE id = ?',
      [count, count, end - 10, end - 10, channelId],
    );
    await conn.end();
  }
  return { anchors, seconds: (performance.now() - started) / 1000 };
}
