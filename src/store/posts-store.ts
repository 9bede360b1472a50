import type { Knex } from 'knex';
import type { Post } from '../model';
import { Executor, Row, bool, json, lazyJson, num, str } from './rows';
import { prepared } from './prepared';

const TABLE = 'posts';

function mapRow(r: Row): Post {
  return {
    id: str(r.id),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    edit_at: num(r.edit_at),
    delete_at: num(r.delete_at),
    is_pinned: bool(r.is_pinned),
    user_id: str(r.user_id),
    channel_id: str(r.channel_id),
    root_id: str(r.root_id),
    original_id: str(r.original_id),
    message: str(r.message),
    type: str(r.type),
    // Served as stored, unparsed (props may be large: reading a page of them must not parse and re-serialise them).
    props: lazyJson(r.props),
    hashtags: str(r.hashtags),
    file_ids: json(r.file_ids, []),
    pending_post_id: str(r.pending_post_id),
    reply_count: 0,
    last_reply_at: 0,
    metadata: json(r.metadata, {}),
    // Only when true, as Mattermost's JSON omits it otherwise.
    ...(bool(r.has_reactions) ? { has_reactions: true } : {}),
  };
}

function toRow(p: Post): Row {
  return {
    id: p.id,
    create_at: p.create_at,
    update_at: p.update_at,
    edit_at: p.edit_at,
    delete_at: p.delete_at,
    is_pinned: p.is_pinned,
    user_id: p.user_id,
    channel_id: p.channel_id,
    root_id: p.root_id,
    original_id: p.original_id,
    message: p.message,
    type: p.type,
    props: JSON.stringify(p.props),
    hashtags: p.hashtags,
    file_ids: JSON.stringify(p.file_ids),
    pending_post_id: p.pending_post_id,
    metadata: Object.keys(p.metadata).length ? JSON.stringify(p.metadata) : null,
  };
}

/** The columns stored as JSON text. */
const JSON_COLUMNS: ReadonlySet<string> = new Set(['props', 'file_ids', 'metadata']);

// Multi-row INSERTs stay under every driver's limits: SQLite's 32766 variables (17 per row) and MySQL's
// max_allowed_packet (16 MB by default; a post's props alone may reach about 3 MB).
const MAX_ROWS_PER_INSERT = 200;
const MAX_CHARS_PER_INSERT = 1_000_000;

function insertChunks(rows: Row[]): Row[][] {
  const chunks: Row[][] = [];
  let chunk: Row[] = [];
  let chars = 0;
  for (const row of rows) {
    const size = String(row.message).length + String(row.props).length + String(row.metadata ?? '').length + 200;
    if (chunk.length > 0 && (chunk.length >= MAX_ROWS_PER_INSERT || chars + size > MAX_CHARS_PER_INSERT)) {
      chunks.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(row);
    chars += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** What one post write changes besides the posts: channel counters, mention counts, the poster's read state. */
export interface PostWrite {
  channelId: string;
  posts: Post[];
  /** user id → number of the posts that mention them (and how many of those are root posts). */
  mentions: Map<string, { all: number; root: number }>;
  /** The poster's membership is marked read up to these posts (ordinary posts; not webhook posts). */
  viewedBy?: string;
}

export interface CursorQuery {
  channelId: string;
  perPage: number;
  page: number;
  includeDeleted: boolean;
  /** Rows to read past the page (the page's neighbour comes with it, saving a query); 0 when absent. */
  lookahead?: number;
  /** Root posts only (collapsed reply threads): replies are neither read nor counted, nor neighbours. */
  rootsOnly?: boolean;
}

type Direction = 'before' | 'after';

/** Live posts only, unless deleted ones are asked for too. */
function live(q: Knex.QueryBuilder, includeDeleted: boolean): Knex.QueryBuilder {
  return includeDeleted ? q : q.where('delete_at', 0);
}

/** A channel's posts, or its root posts only (on the 016 index (channel_id, root_id, delete_at, create_at)). */
function inChannel(db: Executor, channelId: string, rootsOnly: boolean): Knex.QueryBuilder {
  const q = db(TABLE).where('channel_id', channelId);
  return rootsOnly ? q.where('root_id', '') : q;
}

/** A channel's posts (live ones only unless `includeDeleted`), newest first, by (create_at, id). */
function pageQuery(db: Executor, channelId: string, offset: number, limit: number, includeDeleted: boolean, rootsOnly = false): Knex.QueryBuilder {
  return live(inChannel(db, channelId, rootsOnly), includeDeleted)
    .orderBy([
      { column: 'create_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .offset(offset)
    .limit(limit);
}

/** A channel's posts beyond an anchor in (create_at, id) order, nearest first. */
function beyondQuery(
  db: Executor,
  channelId: string,
  createAt: number,
  id: string,
  offset: number,
  limit: number,
  direction: Direction,
  includeDeleted: boolean,
  rootsOnly = false,
): Knex.QueryBuilder {
  const op = direction === 'before' ? '<' : '>';
  const order = direction === 'before' ? 'desc' : 'asc';
  // (create_at, id) beyond the anchor, written with a plain bound on create_at first so both databases answer it
  // as an index range starting at the anchor: the cost does not grow with the posts between the anchor and the
  // newest one (an OR alone makes SQLite walk the channel from its newest post down).
  return live(inChannel(db, channelId, rootsOnly), includeDeleted)
    .where('create_at', `${op}=`, createAt)
    .where((w) => w.where('create_at', op, createAt).orWhere('id', op, id))
    .orderBy([
      { column: 'create_at', order },
      { column: 'id', order },
    ])
    .offset(offset)
    .limit(limit);
}

// GetPostsForChannel's reads of live posts (the page, the cursor pages), compiled once per database.
const livePage = prepared((db, channelId: string, offset: number, limit: number) => pageQuery(db, channelId, offset, limit, false));
const liveBeyond = (direction: Direction) =>
  prepared((db, channelId: string, createAt: number, id: string, offset: number, limit: number) => beyondQuery(db, channelId, createAt, id, offset, limit, direction, false));
const liveBefore = liveBeyond('before');
const liveAfter = liveBeyond('after');

/** Props up to this many bytes come with a page's rows; longer ones are read only for the posts the page keeps. */
const INLINE_PROPS_BYTES = 4096;
/** The most bytes of long props one statement reads (fillLargeProps): about 2 ms of event loop on SQLite. */
const LARGE_PROPS_BATCH_BYTES = 1024 * 1024;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The columns of a page sized before its large props are read: every column, props only when short, and the size of
 * props in bytes. Posts written before props were bounded hold up to 760000 characters: reading them all for a page
 * that keeps a few blocked the server (review round 3, H3). SQLite's octet_length reads the size from the row header
 * (its length() decodes the whole text: 40x slower on such posts); MySQL's LENGTH is the byte count.
 */
function sized(q: Knex.QueryBuilder, db: Executor): Knex.QueryBuilder {
  const bytes = db.client.config.client === 'mysql2' ? 'LENGTH(props)' : 'octet_length(props)';
  return q.select([
    ...['id', 'create_at', 'update_at', 'edit_at', 'delete_at', 'is_pinned', 'user_id', 'channel_id', 'root_id', 'original_id', 'message', 'type'],
    ...['hashtags', 'file_ids', 'pending_post_id', 'metadata', 'has_reactions'],
    db.raw(`CASE WHEN ${bytes} <= ${INLINE_PROPS_BYTES} THEN props END AS props`),
    db.raw(`${bytes} AS props_bytes`),
  ]);
}
const sizedLivePage = prepared((db, channelId: string, offset: number, limit: number) => sized(pageQuery(db, channelId, offset, limit, false), db));
const sizedLiveBeyond = (direction: Direction) =>
  prepared((db, channelId: string, createAt: number, id: string, offset: number, limit: number) =>
    sized(beyondQuery(db, channelId, createAt, id, offset, limit, direction, false), db),
  );
const sizedLiveBefore = sizedLiveBeyond('before');
const sizedLiveAfter = sizedLiveBeyond('after');
// The same reads of live root posts only (collapsed reply threads: the apps' channel pages when it is on).
const sizedLiveRootPage = prepared((db, channelId: string, offset: number, limit: number) => sized(pageQuery(db, channelId, offset, limit, false, true), db));
const sizedLiveRootBeyond = (direction: Direction) =>
  prepared((db, channelId: string, createAt: number, id: string, offset: number, limit: number) =>
    sized(beyondQuery(db, channelId, createAt, id, offset, limit, direction, false, true), db),
  );
const sizedLiveRootBefore = sizedLiveRootBeyond('before');
const sizedLiveRootAfter = sizedLiveRootBeyond('after');

/** A page cut to a size budget, and the row past it (only what a neighbour needs: its props are not read). */
export interface SizedPage {
  posts: Post[];
  beyond?: { id: string; delete_at: number };
}

export class PostsStore {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): PostsStore {
    return new PostsStore(trx);
  }

  /** Must run inside a transaction: the posts and every counter they move commit together or not at all. */
  async write(w: PostWrite): Promise<void> {
    await this.writeMany([w]);
  }

  /**
   * Several writes in one go (a group commit): every post in as few multi-row INSERTs as the size limits allow, then
   * one counter UPDATE per channel, one mention UPDATE per channel and increment, one read-state UPDATE per poster.
   * Must run inside a transaction.
   */
  async writeMany(writes: PostWrite[]): Promise<void> {
    const db = this.db;
    const posts = writes.flatMap((w) => w.posts);
    if (posts.length === 0) return;
    for (const chunk of insertChunks(posts.map(toRow))) await db(TABLE).insert(chunk);

    const channels = new Map<string, { count: number; roots: number; last: number; lastRoot: number }>();
    const mentions = new Map<string, Map<string, { all: number; root: number }>>();
    const viewed = new Map<string, { channelId: string; userId: string; last: number }>();
    for (const w of writes) {
      if (w.posts.length === 0) continue;
      const c = channels.get(w.channelId) ?? { count: 0, roots: 0, last: 0, lastRoot: 0 };
      let last = 0;
      for (const p of w.posts) {
        c.count++;
        last = Math.max(last, p.create_at);
        // Replies must not move last_root_post_at: it is the time of the newest thread start.
        if (p.root_id === '') {
          c.roots++;
          c.lastRoot = Math.max(c.lastRoot, p.create_at);
        }
      }
      c.last = Math.max(c.last, last);
      channels.set(w.channelId, c);
      const m = mentions.get(w.channelId) ?? new Map<string, { all: number; root: number }>();
      for (const [userId, n] of w.mentions) {
        const sum = m.get(userId) ?? { all: 0, root: 0 };
        m.set(userId, { all: sum.all + n.all, root: sum.root + n.root });
      }
      mentions.set(w.channelId, m);
      if (w.viewedBy) {
        const key = `${w.channelId}/${w.viewedBy}`;
        viewed.set(key, { channelId: w.channelId, userId: w.viewedBy, last: Math.max(last, viewed.get(key)?.last ?? 0) });
      }
    }
    // In id order, so concurrent batches (other processes) lock the channel rows in the same order: no deadlock.
    for (const channelId of [...channels.keys()].sort()) {
      const c = channels.get(channelId)!;
      const channelUpdate: Record<string, unknown> = {
        total_msg_count: db.raw('total_msg_count + ?', [c.count]),
        total_msg_count_root: db.raw('total_msg_count_root + ?', [c.roots]),
        last_post_at: db.raw('CASE WHEN last_post_at < ? THEN ? ELSE last_post_at END', [c.last, c.last]),
      };
      if (c.roots > 0) channelUpdate.last_root_post_at = db.raw('CASE WHEN last_root_post_at < ? THEN ? ELSE last_root_post_at END', [c.lastRoot, c.lastRoot]);
      await db('channels').where({ id: channelId }).update(channelUpdate);
    }
    for (const [channelId, byUser] of [...mentions].sort(([a], [b]) => (a < b ? -1 : 1))) {
      // Group users by identical increments so a post mentioning many members is one UPDATE, not one per member.
      const groups = new Map<string, string[]>();
      for (const [userId, n] of byUser) {
        const key = `${n.all}:${n.root}`;
        groups.set(key, [...(groups.get(key) ?? []), userId]);
      }
      // last_update_at moves with the counts (as Mattermost's IncrementMentionCount), to the newest post counted: a
      // membership read from then on says it already counts the posts created up to its last_update_at, so a client
      // whose `posted` event arrives after such a copy does not count the mention twice.
      const last = channels.get(channelId)?.last ?? 0;
      for (const [key, userIds] of groups) {
        const [all, root] = key.split(':').map(Number);
        await db('channel_members')
          .where('channel_id', channelId)
          .whereIn('user_id', userIds.sort())
          .update({
            mention_count: db.raw('mention_count + ?', [all]),
            mention_count_root: db.raw('mention_count_root + ?', [root]),
            last_update_at: db.raw('CASE WHEN last_update_at < ? THEN ? ELSE last_update_at END', [last, last]),
          });
      }
    }
    for (const v of [...viewed.values()].sort((a, b) => (a.channelId + a.userId < b.channelId + b.userId ? -1 : 1))) {
      await db('channel_members')
        .where({ channel_id: v.channelId, user_id: v.userId })
        .update({
          last_viewed_at: v.last,
          last_update_at: v.last,
          // Posting in a channel reads it, as in Mattermost: the poster's unread mentions are cleared too.
          mention_count: 0,
          mention_count_root: 0,
          msg_count: db.raw('(SELECT total_msg_count FROM channels WHERE channels.id = channel_members.channel_id)'),
          msg_count_root: db.raw('(SELECT total_msg_count_root FROM channels WHERE channels.id = channel_members.channel_id)'),
        });
    }
  }

  async get(id: string): Promise<Post | undefined> {
    const r = await this.db(TABLE).where({ id }).first();
    return r ? mapRow(r) : undefined;
  }

  /** Writes the given fields only: toRow's conversions for the JSON columns, every other field as it is. */
  async update(id: string, fields: Partial<Post>): Promise<void> {
    const row: Row = {};
    for (const [k, v] of Object.entries(fields)) row[k] = JSON_COLUMNS.has(k) ? JSON.stringify(v) : v;
    await this.db(TABLE).where({ id }).update(row);
  }

  /** Soft-deletes a post and, for a root post, its replies, as Mattermost does. */
  async softDelete(post: Post, now: number): Promise<void> {
    await this.db(TABLE).where({ id: post.id }).update({ delete_at: now, update_at: now });
    if (post.root_id === '') await this.db(TABLE).where({ root_id: post.id, delete_at: 0 }).update({ delete_at: now, update_at: now });
  }

  /** Newest first, by (create_at, id) so posts sharing a millisecond still have one stable order. */
  async page(q: CursorQuery): Promise<Post[]> {
    const offset = q.page * q.perPage;
    const limit = q.perPage + (q.lookahead ?? 0);
    const rows = q.includeDeleted ? await pageQuery(this.db, q.channelId, offset, limit, true) : await livePage(this.db, q.channelId, offset, limit);
    return rows.map(mapRow);
  }

  /** Posts strictly older than the anchor (newest first), or strictly newer (oldest first). */
  async around(q: CursorQuery, anchor: { create_at: number; id: string }, direction: Direction): Promise<Post[]> {
    if (!q.includeDeleted) {
      const read = direction === 'before' ? liveBefore : liveAfter;
      return (await read(this.db, q.channelId, anchor.create_at, anchor.id, q.page * q.perPage, q.perPage + (q.lookahead ?? 0))).map(mapRow);
    }
    return (await this.beyond(q, anchor, direction)).map(mapRow);
  }

  /**
   * A page as page() reads it, cut where its messages (characters) and props (bytes) pass `maxChars` (at least one
   * post), with the row past the page; the props of the rows left out are never read.
   */
  async pageWithin(q: CursorQuery, maxChars: number): Promise<SizedPage> {
    const offset = q.page * q.perPage;
    const limit = q.perPage + 1;
    const rootsOnly = q.rootsOnly === true;
    const rows = q.includeDeleted
      ? await sized(pageQuery(this.db, q.channelId, offset, limit, true, rootsOnly), this.db)
      : await (rootsOnly ? sizedLiveRootPage : sizedLivePage)(this.db, q.channelId, offset, limit);
    return this.within(rows, q.perPage, maxChars);
  }

  /** around(), cut to `maxChars` as pageWithin() cuts a page. */
  async aroundWithin(q: CursorQuery, anchor: { create_at: number; id: string }, direction: Direction, maxChars: number): Promise<SizedPage> {
    const offset = q.page * q.perPage;
    const limit = q.perPage + 1;
    const rootsOnly = q.rootsOnly === true;
    const read = rootsOnly ? (direction === 'before' ? sizedLiveRootBefore : sizedLiveRootAfter) : direction === 'before' ? sizedLiveBefore : sizedLiveAfter;
    const rows = q.includeDeleted
      ? await sized(beyondQuery(this.db, q.channelId, anchor.create_at, anchor.id, offset, limit, direction, true, rootsOnly), this.db)
      : await read(this.db, q.channelId, anchor.create_at, anchor.id, offset, limit);
    return this.within(rows, q.perPage, maxChars);
  }

  private async within(rows: Row[], perPage: number, maxChars: number): Promise<SizedPage> {
    let n = Math.min(rows.length, perPage);
    let chars = 0;
    for (let i = 0; i < n; i++) {
      chars += str(rows[i].message).length + num(rows[i].props_bytes);
      if (i > 0 && chars > maxChars) {
        n = i;
        break;
      }
    }
    const kept = rows.slice(0, n);
    await this.fillLargeProps(kept);
    const past = rows[n];
    return { posts: kept.map(mapRow), beyond: past ? { id: str(past.id), delete_at: num(past.delete_at) } : undefined };
  }

  /**
   * Reads the props left out of rows read through sized(): in statements of at most LARGE_PROPS_BATCH_BYTES each,
   * yielding the event loop between them, so reads that must return every post asked for (a thread, posts by ids,
   * `since`, pins) cost other requests at most one batch at a time, however large the older posts' props are.
   */
  private async fillLargeProps(rows: Row[]): Promise<void> {
    const missing = rows.filter((r) => r.props === null || r.props === undefined);
    let batch: Row[] = [];
    let bytes = 0;
    const flush = async () => {
      const long = new Map((await this.db(TABLE).whereIn('id', batch.map((r) => str(r.id))).select('id', 'props')).map((r: Row) => [str(r.id), r.props] as const));
      for (const r of batch) r.props = long.get(str(r.id)) ?? null;
      batch = [];
      bytes = 0;
    };
    for (const r of missing) {
      if (batch.length > 0 && bytes + num(r.props_bytes) > LARGE_PROPS_BATCH_BYTES) {
        await flush();
        await yieldToEventLoop();
      }
      batch.push(r);
      bytes += num(r.props_bytes);
    }
    if (batch.length > 0) await flush();
  }

  /** Rows of the channel beyond the anchor in (create_at, id) order, nearest first. */
  private beyond(q: CursorQuery, anchor: { create_at: number; id: string }, direction: Direction): Knex.QueryBuilder {
    return beyondQuery(this.db, q.channelId, anchor.create_at, anchor.id, q.page * q.perPage, q.perPage + (q.lookahead ?? 0), direction, q.includeDeleted, q.rootsOnly === true);
  }

  /** Every post changed after `since` (deleted ones too, so clients learn of deletions), oldest first, capped. */
  async since(channelId: string, since: number, limit: number): Promise<Post[]> {
    const rows = (await sized(
      this.db(TABLE)
        .where('channel_id', channelId)
        .where('update_at', '>', since)
        .orderBy([{ column: 'create_at', order: 'asc' }, { column: 'id', order: 'asc' }])
        .limit(limit),
      this.db,
    )) as Row[];
    await this.fillLargeProps(rows);
    return rows.map(mapRow);
  }

  /**
   * The root posts changed after `since` (deleted ones too, so clients learn of deletions) or whose threads had a
   * reply after it (collapsed reply threads: the root is what the apps show of a thread, and Parley does not move a
   * root's update time with its replies), newest first, capped. Two bounded range reads, each on its own index (the
   * posts' (channel_id, update_at), the threads' (channel_id, last_reply_at)), then the posts by id: MariaDB answers
   * the same as one statement (`id IN (... UNION ...)`) by walking the whole posts table. The root test is written so
   * that no index serves it: with `root_id = ''` the planners take the (channel_id, root_id, ...) index, which holds
   * every root of the channel (statistics make '' look as selective as a thread id), and walk them all.
   */
  async rootsSince(channelId: string, since: number, limit: number): Promise<Post[]> {
    const db = this.db;
    const changed = (await db(TABLE)
      .where('channel_id', channelId)
      .where('update_at', '>', since)
      .whereRaw('LENGTH(root_id) = 0')
      .orderBy([{ column: 'create_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(limit)
      .select('id')) as Row[];
    const replied = (await db('threads').where('channel_id', channelId).where('last_reply_at', '>', since).orderBy('last_reply_at', 'desc').limit(limit).select('post_id')) as Row[];
    const ids = [...new Set([...changed.map((r) => str(r.id)), ...replied.map((r) => str(r.post_id))])];
    if (ids.length === 0) return [];
    const rows = (await sized(
      db(TABLE)
        .whereIn('id', ids)
        .orderBy([{ column: 'create_at', order: 'desc' }, { column: 'id', order: 'desc' }])
        .limit(limit),
      db,
    )) as Row[];
    await this.fillLargeProps(rows);
    return rows.map(mapRow);
  }

  /** The id of the next live post (root post with `rootsOnly`) beyond the anchor in the given direction, or '' at either end. */
  async neighbourId(channelId: string, anchor: { create_at: number; id: string }, direction: 'before' | 'after', rootsOnly = false): Promise<string> {
    const [row] = await this.beyond({ channelId, perPage: 1, page: 0, includeDeleted: false, rootsOnly }, anchor, direction).select('id');
    return row ? str(row.id) : '';
  }

  /**
   * The oldest live post (root post with `rootsOnly`) created after `time` (a member's last_viewed_at: their first
   * unread post), or undefined: one range probe on the (channel_id, delete_at, create_at) index (the 016 one for roots).
   */
  async firstAfter(channelId: string, time: number, rootsOnly = false): Promise<Post | undefined> {
    const [row] = await sized(
      inChannel(this.db, channelId, rootsOnly)
        .where({ delete_at: 0 })
        .where('create_at', '>', time)
        .orderBy([
          { column: 'create_at', order: 'asc' },
          { column: 'id', order: 'asc' },
        ])
        .limit(1),
      this.db,
    );
    if (!row) return undefined;
    await this.fillLargeProps([row as Row]);
    return mapRow(row as Row);
  }

  /** The channel's last change time: cheap on the (channel_id, update_at) index, and the basis of its ETag. */
  async lastUpdateAt(channelId: string): Promise<number> {
    const r = await this.db(TABLE).where('channel_id', channelId).max({ m: 'update_at' }).first();
    return num(r?.m);
  }

  async thread(rootId: string, includeDeleted: boolean): Promise<Post[]> {
    const q = this.db(TABLE).where((w) => w.where('id', rootId).orWhere('root_id', rootId));
    const rows = (await sized(live(q, includeDeleted).orderBy([{ column: 'create_at', order: 'asc' }, { column: 'id', order: 'asc' }]), this.db)) as Row[];
    await this.fillLargeProps(rows);
    return rows.map(mapRow);
  }

  /** The channel's pinned posts that are not deleted, oldest first (Mattermost's order for them). */
  async pinned(channelId: string): Promise<Post[]> {
    const rows = (await sized(
      this.db(TABLE)
        .where({ channel_id: channelId, delete_at: 0, is_pinned: true })
        .orderBy([{ column: 'create_at', order: 'asc' }, { column: 'id', order: 'asc' }]),
      this.db,
    )) as Row[];
    await this.fillLargeProps(rows);
    return rows.map(mapRow);
  }

  async getMany(ids: string[]): Promise<Post[]> {
    if (ids.length === 0) return [];
    const rows = (await sized(this.db(TABLE).whereIn('id', ids), this.db)) as Row[];
    await this.fillLargeProps(rows);
    return rows.map(mapRow);
  }

  /** Which of the given ids are stored posts (deleted or not): one indexed lookup, no row bodies. */
  async existing(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db(TABLE).whereIn('id', ids).select('id');
    return new Set((rows as Row[]).map((r) => str(r.id)));
  }

  /** Reply counts and last reply times of the given root posts, in one grouped query. */
  async replyStats(rootIds: string[]): Promise<Map<string, { count: number; last: number }>> {
    const out = new Map<string, { count: number; last: number }>();
    if (rootIds.length === 0) return out;
    const rows = await this.db(TABLE)
      .whereIn('root_id', rootIds)
      .where('delete_at', 0)
      .groupBy('root_id')
      .select('root_id')
      .count({ n: '*' })
      .max({ last: 'create_at' });
    for (const r of rows as Row[]) out.set(str(r.root_id), { count: num(r.n), last: num(r.last) });
    return out;
  }
}
