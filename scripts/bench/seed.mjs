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

/**
 * SQLite indexes new posts for search after their commit (migration 023: the insert trigger only queues them), so
 * seeded posts are indexed here, with the server's own batch code, before anything is measured: the database is then
 * what a server that wrote those posts leaves, and no figure pays for a catch-up of the seeding.
 */
async function indexSeededSqlite(dataSource) {
  const { openDatabase } = await import('../../dist/src/store/db.js');
  const { indexQueuedPosts } = await import('../../dist/src/store/search-queue.js');
  const db = openDatabase({ driverName: 'sqlite', dataSource });
  try {
    for (;;) {
      try {
        if ((await indexQueuedPosts(db.knex, 5000)) === 0) break;
      } catch (err) {
        // The running server's own indexer may hold the write lock for a moment: try again.
        if (!/SQLITE_BUSY|locked/.test(String(err?.message))) throw err;
      }
    }
    await db.knex.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await db.close();
  }
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
    db.close();
    await indexSeededSqlite(dataSource);
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

// ---- the search corpus ---------------------------------------------------------------------------------------
//
// Chat-like messages from a fixed vocabulary with Zipf-distributed word frequencies (a few words in most posts, a
// long tail of rare ones), deterministic per post index, so every run (and both databases) searches the same text.
// Posts are inserted straight into the posts table like seedPosts: on SQLite the insert trigger queues each row and
// the seeding indexes the queue with the server's batch code before it returns (indexSeededSqlite); on MariaDB InnoDB
// maintains the FULLTEXT index. Either way the seeded posts are searchable before anything is measured.

const HEAD = (
  'the to and a of is in it for on that this you with we be are at not have was but can just so will if from ' +
  'deploy build test staging prod release fix bug issue merge review branch pipeline service server error ' +
  'failed passed logs check please thanks update config api client team meeting today tomorrow yesterday ' +
  'deployed deployment deploying rollback hotfix latency database cache queue worker cluster node memory disk ' +
  'alert monitor dashboard metrics ticket sprint standup retro design spec docs question answer lunch coffee'
).split(' ');
const SYLLABLES = 'ka lo mi nu pe ra si to vu xe ba de fi go hu ja ke li mo ny'.split(' ');
/** Words of the tail: two to four syllables, 8000 of them, after the head words in rank order. */
const TAIL = [];
for (let a = 0; TAIL.length < 8000; a++) {
  const n = 2 + (a % 3);
  let w = '';
  let x = a * 7919 + 17;
  for (let i = 0; i < n; i++) {
    w += SYLLABLES[x % SYLLABLES.length];
    x = Math.floor(x / SYLLABLES.length) + 31 * (i + 1);
  }
  if (!HEAD.includes(w) && !TAIL.includes(w)) TAIL.push(w);
}
export const SEARCH_VOCABULARY = [...HEAD, ...TAIL];
// Cumulative Zipf (s = 1) weights over the vocabulary, for sampling by binary search.
const CUMULATIVE = [];
{
  let sum = 0;
  for (let r = 1; r <= SEARCH_VOCABULARY.length; r++) CUMULATIVE.push((sum += 1 / r));
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function zipfWord(rand) {
  const x = rand() * CUMULATIVE[CUMULATIVE.length - 1];
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return SEARCH_VOCABULARY[lo];
}

/**
 * Post `i` of the search corpus: its message, channel and author. `hidden` channels (the searcher is not a member)
 * get every third post and are the only ones that say "confidential"; 2 % of posts say "the build failed on
 * staging", 1 % carry #incident.
 */
export function searchPost(i, { channels, hidden, users }) {
  const rand = mulberry32(i * 2654435761);
  const inHidden = i % 3 === 0;
  const channelId = inHidden ? hidden[i % hidden.length] : channels[i % channels.length];
  const words = [];
  const n = 6 + Math.floor(rand() * 18);
  for (let k = 0; k < n; k++) words.push(zipfWord(rand));
  if (rand() < 0.02) words.splice(Math.floor(rand() * words.length), 0, 'the build failed on staging');
  if (rand() < 0.01) words.push('#incident');
  if (inHidden && rand() < 0.3) words.splice(1, 0, 'confidential');
  return { message: words.join(' '), channelId, userId: users[i % users.length] };
}

/** One post every 15 s, post 0 the oldest: a million posts cover about 174 days, ending a minute ago. */
export function searchPostTime(i, total) {
  return Date.now() - 60000 - (total - i) * 15000;
}

/** Inserts posts [from, to) of the search corpus (of `total` posts overall) straight into the posts table. */
export async function seedSearchPosts({ driver, dataSource, from, to, total, corpus, label }) {
  const started = performance.now();
  const end0 = Date.now();
  const rowAt = (i) => {
    const p = searchPost(i, corpus);
    const t = end0 - 60000 - (total - i) * 15000;
    return [newId(), t, t, 0, 0, 0, p.userId, p.channelId, '', '', p.message, '', '{}', '', '[]', '', null];
  };
  let lastReport = performance.now();
  const progress = (done) => {
    if (performance.now() - lastReport > 5000 || done === to - from) {
      lastReport = performance.now();
      const s = (performance.now() - started) / 1000;
      log(`  seeding ${label}: ${done.toLocaleString('en-US')} / ${(to - from).toLocaleString('en-US')} posts, ${s.toFixed(1)} s, ${Math.round(done / s).toLocaleString('en-US')} rows/s`);
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
    const chunk = db.transaction((a, b) => {
      let i = a;
      for (; i + PER_STATEMENT <= b; i += PER_STATEMENT) {
        const params = [];
        for (let j = i; j < i + PER_STATEMENT; j++) params.push(...rowAt(j));
        many.run(params);
      }
      for (; i < b; i++) single.run(rowAt(i));
    });
    for (let a = from; a < to; a += 50000) {
      chunk(a, Math.min(to, a + 50000));
      progress(Math.min(to, a + 50000) - from);
    }
    db.close();
    await indexSeededSqlite(dataSource);
  } else {
    const mysql = await import('mysql2/promise');
    const PER_STATEMENT = 1000;
    const PER_TRANSACTION = 20000;
    let done = 0;
    const worker = async (ranges) => {
      const conn = await mysql.createConnection(mysqlConfig(dataSource));
      for (const [a, b] of ranges) {
        await conn.beginTransaction();
        for (let i = a; i < b; i += PER_STATEMENT) {
          const rows = [];
          for (let j = i; j < Math.min(b, i + PER_STATEMENT); j++) rows.push(rowAt(j));
          await conn.query(`INSERT INTO posts (${COLUMNS.join(',')}) VALUES ?`, [rows]);
        }
        await conn.commit();
        done += b - a;
        progress(done);
      }
      await conn.end();
    };
    const WORKERS = Number(process.env.PARLEY_BENCH_SEED_WORKERS ?? 3);
    const ranges = Array.from({ length: WORKERS }, () => []);
    for (let a = from, k = 0; a < to; a += PER_TRANSACTION, k++) ranges[k % WORKERS].push([a, Math.min(to, a + PER_TRANSACTION)]);
    await Promise.all(ranges.map(worker));
  }
  return { seconds: (performance.now() - started) / 1000 };
}
