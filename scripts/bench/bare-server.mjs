// The baselines of `npm run bench`: a bare node:http server doing the least a webhook endpoint must do.
//   http         read the body, JSON.parse it, answer "ok" (the HTTP ceiling)
//   sqlite       ... plus one durable INSERT with better-sqlite3 (WAL, synchronous=FULL, as the server opens it)
//   mysql-pool   ... plus one autocommit INSERT with mysql2 through a pool of 10 connections (knex's default max)
//   mysql-naive  ... plus one autocommit INSERT on a single mysql2 connection (no pooling, no batching)
//   upload       stream the body, as it is, to a new file in the directory given as datasource (the upload ceiling)
// Usage: PORT=8080 node scripts/bench/bare-server.mjs <mode> [datasource]; GET /ready answers 200 when listening.
// The posts table comes from the project's own migrations (the bench migrates the database before starting this).
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const [mode, dataSource] = process.argv.slice(2);
const port = Number(process.env.PORT);

const ALPHABET = 'ybndrfg8ejkmcpqxot1uwisza345h769';
function newId() {
  const bytes = randomBytes(26);
  let out = '';
  for (let i = 0; i < 26; i++) out += ALPHABET[bytes[i] & 31];
  return out;
}

const COLUMNS = ['id', 'create_at', 'update_at', 'edit_at', 'delete_at', 'is_pinned', 'user_id', 'channel_id', 'root_id', 'original_id', 'message', 'type', 'props', 'hashtags', 'file_ids', 'pending_post_id', 'metadata'];
const INSERT = `INSERT INTO posts (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;
const USER = newId();
const CHANNEL = newId();

function row(payload) {
  const now = Date.now();
  return [newId(), now, now, 0, 0, 0, USER, CHANNEL, '', '', String(payload.text ?? ''), '', '{"from_webhook":"true"}', '', '[]', '', null];
}

let insert;
if (mode === 'sqlite') {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(dataSource);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  const stmt = db.prepare(INSERT);
  insert = async (payload) => {
    stmt.run(row(payload));
  };
} else if (mode === 'mysql-pool' || mode === 'mysql-naive') {
  const mysql = await import('mysql2/promise');
  const url = new URL(dataSource);
  const connection = {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
    charset: 'utf8mb4',
  };
  const db = mode === 'mysql-pool' ? mysql.createPool({ ...connection, connectionLimit: 10 }) : await mysql.createConnection(connection);
  // mysql2 queues commands on a connection, so concurrent requests wait their turn on the single one.
  insert = async (payload) => {
    await db.execute(INSERT, row(payload));
  };
} else if (mode === 'http' || mode === 'upload') {
  insert = async () => {};
} else {
  throw new Error(`unknown mode ${mode}`);
}

const OK = Buffer.from('ok');
http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/ready') {
      res.end('ready');
      return;
    }
    if (mode === 'upload') {
      pipeline(req, createWriteStream(join(dataSource, newId()))).then(
        () => res.end(OK),
        () => res.destroy(),
      );
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      try {
        const payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        await insert(payload);
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': OK.length });
        res.end(OK);
      } catch (err) {
        res.writeHead(500);
        res.end(String(err));
      }
    });
  })
  .listen(port, '127.0.0.1');
