// The baselines of `npm run bench`: a bare node:http server doing the least a webhook endpoint must do.
//   http         read the body, JSON.parse it, answer "ok" (the HTTP ceiling)
//   sqlite       ... plus one durable INSERT with better-sqlite3 (WAL, synchronous=FULL, as the server opens it)
//   sqlite-normal ... one INSERT and nothing else, with synchronous=NORMAL (WAL): no fsync per commit, only at
//                checkpoints, so a crash of the machine may lose the last commits; and the search index's triggers
//                dropped, so the INSERT writes the one row (mode sqlite keeps them, as its figures always had). The
//                server keeps FULL and its index; issue #22 measures Parley against this one. Its ids are random,
//                as Mattermost's NewId and as Parley's posts had them until 2026-11-29
//   sqlite-normal-sortable ... the same with ids that sort by time, as Parley's posts now have (shown beside it)
//   mysql-pool   ... plus one autocommit INSERT with mysql2 through a pool of 10 connections (knex's default max)
//   mysql-naive  ... plus one autocommit INSERT on a single mysql2 connection (no pooling, no batching)
//   sqlite-read  GET /api/v4/channels/{id}/posts?per_page=N: the least a channel history read must do, with
//                better-sqlite3 prepared statements on the server's own database: the session (token digest → user),
//                the caller's membership of the channel, one index range scan for the page, rows to Posts, JSON
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

/** Parley's sortableId: the milliseconds in base 32 (10 characters, sorting as strings), then 16 random characters. */
function sortableId(now) {
  return now.toString(32).padStart(10, '0').slice(-10) + newId().slice(0, 16);
}

const postId = mode === 'sqlite-normal-sortable' ? sortableId : () => newId();

function row(payload) {
  const now = Date.now();
  return [postId(now), now, now, 0, 0, 0, USER, CHANNEL, '', '', String(payload.text ?? ''), '', '{"from_webhook":"true"}', '', '[]', '', null];
}

let insert;
const normal = mode === 'sqlite-normal' || mode === 'sqlite-normal-sortable';
if (mode === 'sqlite' || normal) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(dataSource);
  db.pragma('journal_mode = WAL');
  db.pragma(mode === 'sqlite' ? 'synchronous = FULL' : 'synchronous = NORMAL');
  if (normal) for (const trigger of ['post_search_insert', 'post_search_update', 'post_search_delete']) db.exec(`DROP TRIGGER IF EXISTS ${trigger}`);
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
} else if (mode === 'sqlite-read') {
  // Served below, by the request handler (GET).
} else if (mode === 'http' || mode === 'upload') {
  insert = async () => {};
} else {
  throw new Error(`unknown mode ${mode}`);
}

/** The channel history read of mode sqlite-read, over the server's database (read-only). */
async function historyReader(file) {
  const { default: Database } = await import('better-sqlite3');
  const { createHash } = await import('node:crypto');
  const db = new Database(file, { readonly: true });
  const session = db.prepare('SELECT s.user_id AS user_id, s.expires_at AS expires_at FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND u.delete_at = 0');
  const member = db.prepare('SELECT 1 AS ok FROM channel_members WHERE channel_id = ? AND user_id = ?');
  const page = db.prepare('SELECT * FROM posts WHERE channel_id = ? AND delete_at = 0 ORDER BY create_at DESC, id DESC LIMIT ?');
  const toPost = (r) => ({
    id: r.id, create_at: r.create_at, update_at: r.update_at, edit_at: r.edit_at, delete_at: r.delete_at, is_pinned: r.is_pinned === 1,
    user_id: r.user_id, channel_id: r.channel_id, root_id: r.root_id, original_id: r.original_id, message: r.message, type: r.type,
    props: JSON.parse(r.props || '{}'), hashtags: r.hashtags, file_ids: JSON.parse(r.file_ids || '[]'), pending_post_id: r.pending_post_id,
    reply_count: 0, last_reply_at: 0, metadata: r.metadata ? JSON.parse(r.metadata) : {},
  });
  return (req, res) => {
    const url = new URL(req.url, 'http://x');
    const m = /^\/api\/v4\/channels\/([a-z0-9]{26})\/posts$/.exec(url.pathname);
    const token = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const s = token ? session.get(createHash('sha256').update(token).digest('hex')) : undefined;
    if (!m || !s || (s.expires_at && s.expires_at < Date.now())) {
      res.writeHead(m ? 401 : 404);
      res.end();
      return;
    }
    if (!member.get(m[1], s.user_id)) {
      res.writeHead(403);
      res.end();
      return;
    }
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 60), 200);
    const rows = page.all(m[1], perPage + 1);
    const list = { order: [], posts: {}, next_post_id: '', prev_post_id: rows.length > perPage ? rows[perPage].id : '', has_next: rows.length > perPage };
    for (const r of rows.slice(0, perPage)) {
      list.order.push(r.id);
      list.posts[r.id] = toPost(r);
    }
    const body = Buffer.from(JSON.stringify(list));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  };
}
const readHistory = mode === 'sqlite-read' ? await historyReader(dataSource) : undefined;

const OK = Buffer.from('ok');
http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/ready') {
      res.end('ready');
      return;
    }
    if (readHistory && req.method === 'GET') {
      readHistory(req, res);
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
