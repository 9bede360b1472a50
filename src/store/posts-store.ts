import type { Knex } from 'knex';
import type { Post } from '../app/model';
import { Executor, Row, bool, json, num, str } from './rows';

function mapPost(r: Row): Post {
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
    props: json(r.props, {}),
    hashtags: str(r.hashtags),
    file_ids: json(r.file_ids, []),
    pending_post_id: str(r.pending_post_id),
    reply_count: 0,
    last_reply_at: 0,
    metadata: json(r.metadata, {}),
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
}

export class PostsStore {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): PostsStore {
    return new PostsStore(trx);
  }

  /** Must run inside a transaction: the posts and every counter they move commit together or not at all. */
  async write(w: PostWrite): Promise<void> {
    const db = this.db;
    const rows = w.posts.map(toRow);
    // Chunked so a split webhook message never exceeds a driver's placeholder limit.
    for (let i = 0; i < rows.length; i += 50) await db('posts').insert(rows.slice(i, i + 50));
    const rootPosts = w.posts.filter((p) => p.root_id === '');
    const roots = rootPosts.length;
    const last = Math.max(...w.posts.map((p) => p.create_at));
    // Replies must not move last_root_post_at: it is the time of the newest thread start.
    const lastRoot = Math.max(...rootPosts.map((p) => p.create_at));
    const channelUpdate: Record<string, unknown> = {
      total_msg_count: db.raw('total_msg_count + ?', [w.posts.length]),
      total_msg_count_root: db.raw('total_msg_count_root + ?', [roots]),
      last_post_at: db.raw('CASE WHEN last_post_at < ? THEN ? ELSE last_post_at END', [last, last]),
    };
    if (roots > 0) channelUpdate.last_root_post_at = db.raw('CASE WHEN last_root_post_at < ? THEN ? ELSE last_root_post_at END', [lastRoot, lastRoot]);
    await db('channels').where({ id: w.channelId }).update(channelUpdate);
    // Group users by identical increments so a post mentioning many members is one UPDATE, not one per member.
    const groups = new Map<string, string[]>();
    for (const [userId, n] of w.mentions) {
      const key = `${n.all}:${n.root}`;
      groups.set(key, [...(groups.get(key) ?? []), userId]);
    }
    for (const [key, userIds] of groups) {
      const [all, root] = key.split(':').map(Number);
      await db('channel_members')
        .where('channel_id', w.channelId)
        .whereIn('user_id', userIds)
        .update({
          mention_count: db.raw('mention_count + ?', [all]),
          mention_count_root: db.raw('mention_count_root + ?', [root]),
        });
    }
    if (w.viewedBy) {
      await db('channel_members')
        .where({ channel_id: w.channelId, user_id: w.viewedBy })
        .update({
          last_viewed_at: last,
          last_update_at: last,
          // Posting in a channel reads it, as in Mattermost: the poster's unread mentions are cleared too.
          mention_count: 0,
          mention_count_root: 0,
          msg_count: db.raw('(SELECT total_msg_count FROM channels WHERE channels.id = channel_members.channel_id)'),
          msg_count_root: db.raw('(SELECT total_msg_count_root FROM channels WHERE channels.id = channel_members.channel_id)'),
        });
    }
  }

  async get(id: string): Promise<Post | undefined> {
    const r = await this.db('posts').where({ id }).first();
    return r ? mapPost(r) : undefined;
  }

  async update(id: string, fields: Partial<Post>): Promise<void> {
    const row: Row = {};
    for (const [k, v] of Object.entries(fields)) {
      row[k] = k === 'props' || k === 'file_ids' ? JSON.stringify(v) : k === 'metadata' ? JSON.stringify(v) : v;
    }
    await this.db('posts').where({ id }).update(row);
  }

  /** Soft-deletes a post and, for a root post, its replies, as Mattermost does. */
  async softDelete(post: Post, now: number): Promise<void> {
    await this.db('posts').where({ id: post.id }).update({ delete_at: now, update_at: now });
    if (post.root_id === '') await this.db('posts').where({ root_id: post.id, delete_at: 0 }).update({ delete_at: now, update_at: now });
  }

  private live(q: Knex.QueryBuilder, includeDeleted: boolean): Knex.QueryBuilder {
    return includeDeleted ? q : q.where('delete_at', 0);
  }

  /** Newest first, by (create_at, id) so posts sharing a millisecond still have one stable order. */
  async page(q: CursorQuery): Promise<Post[]> {
    const rows = await this.live(this.db('posts').where('channel_id', q.channelId), q.includeDeleted)
      .orderBy([{ column: 'create_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .offset(q.page * q.perPage)
      .limit(q.perPage);
    return rows.map(mapPost);
  }

  /** Posts strictly older than the anchor (newest first), or strictly newer (oldest first). */
  async around(q: CursorQuery, anchor: { create_at: number; id: string }, direction: 'before' | 'after'): Promise<Post[]> {
    const op = direction === 'before' ? '<' : '>';
    const order = direction === 'before' ? 'desc' : 'asc';
    const rows = await this.live(this.db('posts').where('channel_id', q.channelId), q.includeDeleted)
      .where((w) => w.where('create_at', op, anchor.create_at).orWhere((x) => x.where('create_at', anchor.create_at).where('id', op, anchor.id)))
      .orderBy([{ column: 'create_at', order }, { column: 'id', order }])
      .offset(q.page * q.perPage)
      .limit(q.perPage);
    return rows.map(mapPost);
  }

  /** Every post changed after `since` (deleted ones too, so clients learn of deletions), oldest first, capped. */
  async since(channelId: string, since: number, limit: number): Promise<Post[]> {
    const rows = await this.db('posts')
      .where('channel_id', channelId)
      .where('update_at', '>', since)
      .orderBy([{ column: 'create_at', order: 'asc' }, { column: 'id', order: 'asc' }])
      .limit(limit);
    return rows.map(mapPost);
  }

  /** The id of the next live post beyond the anchor in the given direction, or '' at either end. */
  async neighbourId(channelId: string, anchor: { create_at: number; id: string }, direction: 'before' | 'after'): Promise<string> {
    const [post] = await this.around({ channelId, perPage: 1, page: 0, includeDeleted: false }, anchor, direction);
    return post?.id ?? '';
  }

  /** The channel's last change time: cheap on the (channel_id, update_at) index, and the basis of its ETag. */
  async lastUpdateAt(channelId: string): Promise<number> {
    const r = await this.db('posts').where('channel_id', channelId).max({ m: 'update_at' }).first();
    return num(r?.m);
  }

  async thread(rootId: string, includeDeleted: boolean): Promise<Post[]> {
    const q = this.db('posts').where((w) => w.where('id', rootId).orWhere('root_id', rootId));
    const rows = await this.live(q, includeDeleted).orderBy([{ column: 'create_at', order: 'asc' }, { column: 'id', order: 'asc' }]);
    return rows.map(mapPost);
  }

  async getMany(ids: string[]): Promise<Post[]> {
    if (ids.length === 0) return [];
    return (await this.db('posts').whereIn('id', ids)).map(mapPost);
  }

  /** Reply counts and last reply times of the given root posts, in one grouped query. */
  async replyStats(rootIds: string[]): Promise<Map<string, { count: number; last: number }>> {
    const out = new Map<string, { count: number; last: number }>();
    if (rootIds.length === 0) return out;
    const rows = await this.db('posts')
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
