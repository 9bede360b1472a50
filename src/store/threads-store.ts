import type { Knex } from 'knex';
import type { FollowedThread, ThreadListQuery, ThreadMembership, ThreadRecord, ThreadTotals } from '../model';
import { Executor, Row, bool, json, num, str } from './rows';

const TABLE = 'threads';
const MEMBERSHIPS = 'thread_memberships';

function mapRow(r: Row): ThreadRecord {
  return {
    post_id: str(r.post_id),
    channel_id: str(r.channel_id),
    team_id: str(r.team_id),
    reply_count: num(r.reply_count),
    last_reply_at: num(r.last_reply_at),
    participants: json<string[]>(r.participants, []),
    delete_at: num(r.delete_at),
    is_urgent: bool(r.is_urgent),
  };
}

function mapMembership(r: Row): ThreadMembership {
  return {
    post_id: str(r.post_id),
    user_id: str(r.user_id),
    following: bool(r.following),
    last_viewed: num(r.last_viewed),
    last_updated: num(r.last_updated),
    unread_mentions: num(r.unread_mentions),
  };
}

/** A new thread's row: its counters start at zero and move with each reply (addReplies). */
export interface NewThread {
  post_id: string;
  channel_id: string;
  team_id: string;
  is_urgent: boolean;
}

/** A new thread's row, its counters at zero. */
function toRow(t: NewThread): Row {
  return { ...t, reply_count: 0, last_reply_at: 0, participants: '[]', delete_at: 0 };
}

/** Live replies of the thread newer than the membership's last view (a correlated count on the posts' root index). */
function unreadReplies(db: Executor): Knex.Raw {
  return db.raw('(SELECT COUNT(*) FROM posts p WHERE p.root_id = m.post_id AND p.create_at > m.last_viewed AND p.delete_at = 0) AS unread_replies');
}

export class ThreadsStore {
  constructor(private readonly db: Executor) {}

  /**
   * The followed threads of a user in a team (and in direct and group channels), in channels the user is still a
   * member of: a thread of a channel they left (a private one among them) is not theirs to read any more.
   */
  private followed(userId: string, teamId: string, deleted: boolean): Knex.QueryBuilder {
    const q = this.db(`${MEMBERSHIPS} as m`)
      .join(`${TABLE} as t`, 't.post_id', 'm.post_id')
      .join('channel_members as cm', (j) => j.on('cm.channel_id', 't.channel_id').andOn('cm.user_id', 'm.user_id'))
      .where('m.user_id', userId)
      .where('m.following', true)
      .where((w) => w.where('t.team_id', teamId).orWhere('t.team_id', ''));
    return deleted ? q : q.where('t.delete_at', 0);
  }

  async get(postId: string): Promise<ThreadRecord | undefined> {
    const r = (await this.db(TABLE).where({ post_id: postId }).first()) as Row | undefined;
    return r ? mapRow(r) : undefined;
  }

  async getMany(postIds: string[]): Promise<Map<string, ThreadRecord>> {
    if (postIds.length === 0) return new Map();
    const rows = (await this.db(TABLE).whereIn('post_id', postIds)) as Row[];
    return new Map(rows.map((r) => [str(r.post_id), mapRow(r)]));
  }

  async membership(userId: string, postId: string): Promise<ThreadMembership | undefined> {
    const r = (await this.db(MEMBERSHIPS).where({ post_id: postId, user_id: userId }).first()) as Row | undefined;
    return r ? mapMembership(r) : undefined;
  }

  /** The user's memberships of these threads (for posts' is_following). */
  async memberships(userId: string, postIds: string[]): Promise<Map<string, ThreadMembership>> {
    if (postIds.length === 0) return new Map();
    const rows = (await this.db(MEMBERSHIPS).where('user_id', userId).whereIn('post_id', postIds)) as Row[];
    return new Map(rows.map((r) => [str(r.post_id), mapMembership(r)]));
  }

  /** Which of these users have a membership of the thread (following or not). */
  async members(postId: string, userIds: string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = (await this.db(MEMBERSHIPS).where('post_id', postId).whereIn('user_id', userIds).select('user_id')) as Row[];
    return new Set(rows.map((r) => str(r.user_id)));
  }

  /** Creates the threads not there yet (a concurrent writer's row wins; counters move with addReplies either way). */
  async ensure(threads: NewThread[]): Promise<void> {
    if (threads.length === 0) return;
    await this.db(TABLE).insert(threads.map(toRow)).onConflict('post_id').ignore();
  }

  /**
   * Counts new replies of one thread and moves their authors to the end of its participants (newest replier last).
   * The counter UPDATE comes first: it locks the row, so the participants read next are the latest (MySQL) and two
   * transactions never interleave their read-modify-write. Must run inside a transaction.
   */
  async addReplies(rootId: string, replies: Array<{ userId: string; createAt: number }>): Promise<void> {
    if (replies.length === 0) return;
    const db = this.db;
    const last = Math.max(...replies.map((r) => r.createAt));
    await db(TABLE)
      .where({ post_id: rootId })
      .update({
        reply_count: db.raw('reply_count + ?', [replies.length]),
        last_reply_at: db.raw('CASE WHEN last_reply_at < ? THEN ? ELSE last_reply_at END', [last, last]),
      });
    const row = (await db(TABLE).where({ post_id: rootId }).first('participants')) as Row | undefined;
    if (!row) return;
    let participants = json<string[]>(row.participants, []);
    for (const r of [...replies].sort((a, b) => a.createAt - b.createAt)) participants = [...participants.filter((id) => id !== r.userId), r.userId];
    await db(TABLE).where({ post_id: rootId }).update({ participants: JSON.stringify(participants) });
  }

  /** Users who follow the thread from now on unless they had a membership already (an unfollow stays). */
  async follow(postId: string, userIds: string[], now: number): Promise<void> {
    if (userIds.length === 0) return;
    const rows = [...new Set(userIds)].sort().map((user_id) => ({ post_id: postId, user_id, following: true, last_viewed: 0, last_updated: now, unread_mentions: 0 }));
    for (let i = 0; i < rows.length; i += 500) await this.db(MEMBERSHIPS).insert(rows.slice(i, i + 500)).onConflict(['post_id', 'user_id']).ignore();
  }

  /** Mentioned users follow the thread (again) and have that many more unread mentions in it. */
  async addMentions(postId: string, counts: Map<string, number>, now: number): Promise<void> {
    const byCount = new Map<number, string[]>();
    for (const [userId, n] of counts) byCount.set(n, [...(byCount.get(n) ?? []), userId]);
    for (const [n, userIds] of byCount) {
      await this.db(MEMBERSHIPS)
        .where('post_id', postId)
        .whereIn('user_id', userIds.sort())
        .update({ following: true, unread_mentions: this.db.raw('unread_mentions + ?', [n]), last_updated: now });
    }
  }

  /** The replier has read the thread up to their reply (if they follow it). */
  async markViewedByReplier(postId: string, userId: string, at: number, now: number): Promise<void> {
    await this.db(MEMBERSHIPS).where({ post_id: postId, user_id: userId, following: true }).update({ last_viewed: at, unread_mentions: 0, last_updated: now });
  }

  /** Writes a membership whole (made if missing). */
  async saveMembership(m: ThreadMembership): Promise<void> {
    await this.db(MEMBERSHIPS)
      .insert({ ...m })
      .onConflict(['post_id', 'user_id'])
      .merge(['following', 'last_viewed', 'last_updated', 'unread_mentions']);
  }

  /** Every membership of the user in the team's threads (and direct and group ones) read as of `now`. */
  async readAll(userId: string, teamId: string, now: number): Promise<void> {
    await this.db(MEMBERSHIPS)
      .where('user_id', userId)
      .whereExists((q) => q.select(this.db.raw('1')).from(`${TABLE} as t`).whereRaw(`t.post_id = ${MEMBERSHIPS}.post_id`).whereIn('t.team_id', [teamId, '']))
      .update({ last_viewed: now, unread_mentions: 0, last_updated: now });
  }

  /**
   * A reply was deleted: the thread's counters are counted again from its live replies, and the reply's author leaves
   * the participants when it was their last live reply (as Mattermost). Must run inside the deletion's transaction.
   */
  async replyDeleted(rootId: string, userId: string): Promise<void> {
    const db = this.db;
    const live = () => db('posts').where({ root_id: rootId, delete_at: 0 });
    const [{ c, m }] = (await live().count({ c: '*' }).max({ m: 'create_at' })) as Row[];
    const [{ mine }] = (await live().where('user_id', userId).count({ mine: '*' })) as Row[];
    const row = (await db(TABLE).where({ post_id: rootId }).first('participants')) as Row | undefined;
    if (!row) return;
    let participants = json<string[]>(row.participants, []);
    if (num(mine) === 0) participants = participants.filter((id) => id !== userId);
    await db(TABLE)
      .where({ post_id: rootId })
      .update({ reply_count: num(c), last_reply_at: num(m), participants: JSON.stringify(participants) });
  }

  /** Unread mentions taken back from users who had not read the thread past a deleted reply. */
  async removeMentions(postId: string, userIds: string[], createAt: number, now: number): Promise<void> {
    if (userIds.length === 0) return;
    await this.db(MEMBERSHIPS)
      .where('post_id', postId)
      .whereIn('user_id', userIds)
      .where('last_viewed', '<=', createAt)
      .where('unread_mentions', '>', 0)
      .update({ unread_mentions: this.db.raw('unread_mentions - 1'), last_updated: now });
  }

  /**
   * The thread's live replies created after `after`, oldest first, at most `limit` of them: what a read state counts
   * mentions in. Only what mention detection reads (author, message, props).
   */
  async repliesAfter(rootId: string, after: number, limit: number): Promise<Array<{ user_id: string; message: string; props: Record<string, unknown>; create_at: number }>> {
    const rows = (await this.db('posts')
      .where({ root_id: rootId, delete_at: 0 })
      .where('create_at', '>', after)
      .orderBy([{ column: 'create_at' }, { column: 'id' }])
      .limit(limit)
      .select('user_id', 'message', 'props', 'create_at')) as Row[];
    return rows.map((r) => ({ user_id: str(r.user_id), message: str(r.message), props: json<Record<string, unknown>>(r.props, {}), create_at: num(r.create_at) }));
  }

  /** The root post was deleted (or restored with 0): its thread leaves (or rejoins) the lists. */
  async setDeleted(postId: string, deleteAt: number): Promise<void> {
    await this.db(TABLE).where({ post_id: postId }).update({ delete_at: deleteAt });
  }

  /** One page of the user's followed threads with their read state, newest reply first (oldest first after `after`). */
  async list(userId: string, q: ThreadListQuery): Promise<FollowedThread[]> {
    const query = this.followed(userId, q.teamId, q.deleted).select('t.*', 'm.last_viewed', 'm.unread_mentions', unreadReplies(this.db));
    if (q.since > 0) query.where((w) => w.where('m.last_updated', '>=', q.since).orWhere('t.last_reply_at', '>=', q.since));
    if (q.unread) query.whereRaw('m.last_viewed < t.last_reply_at');
    const cursorId = q.before || q.after;
    const order = q.after ? 'asc' : 'desc';
    if (cursorId) {
      const cursor = await this.get(cursorId);
      // An unknown cursor is past every thread, as Mattermost's subquery comparing with NULL.
      if (!cursor) return [];
      const op = q.after ? '>' : '<';
      // (last_reply_at, post_id) beyond the cursor: threads replied in the same millisecond are neither lost nor repeated.
      query.where((w) => w.where('t.last_reply_at', op, cursor.last_reply_at).orWhere((x) => x.where('t.last_reply_at', cursor.last_reply_at).where('t.post_id', op, cursor.post_id)));
    }
    const rows = (await query
      .orderBy([
        { column: 't.last_reply_at', order },
        { column: 't.post_id', order },
      ])
      .limit(q.perPage)) as Row[];
    return rows.map((r) => ({ ...mapRow(r), last_viewed: num(r.last_viewed), unread_mentions: num(r.unread_mentions), unread_replies: num(r.unread_replies) }));
  }

  /** One followed thread with the user's read state (following or not), or undefined without a thread or membership. */
  async followedOne(userId: string, postId: string): Promise<FollowedThread | undefined> {
    const r = (await this.db(`${MEMBERSHIPS} as m`)
      .join(`${TABLE} as t`, 't.post_id', 'm.post_id')
      .where({ 'm.user_id': userId, 'm.post_id': postId })
      .first('t.*', 'm.last_viewed', 'm.unread_mentions', unreadReplies(this.db))) as Row | undefined;
    return r ? { ...mapRow(r), last_viewed: num(r.last_viewed), unread_mentions: num(r.unread_mentions), unread_replies: num(r.unread_replies) } : undefined;
  }

  /** The totals of GetUserThreads, in one statement. */
  async totals(userId: string, teamId: string, deleted: boolean): Promise<ThreadTotals> {
    const db = this.db;
    const [r] = (await this.followed(userId, teamId, deleted).select(
      db.raw('COUNT(*) AS total'),
      db.raw('COALESCE(SUM(CASE WHEN m.last_viewed < t.last_reply_at THEN 1 ELSE 0 END), 0) AS unread_threads'),
      db.raw('COALESCE(SUM(m.unread_mentions), 0) AS unread_mentions'),
      db.raw('COALESCE(SUM(CASE WHEN t.is_urgent THEN m.unread_mentions ELSE 0 END), 0) AS urgent_mentions'),
    )) as Row[];
    return { total: num(r?.total), unreadThreads: num(r?.unread_threads), unreadMentions: num(r?.unread_mentions), unreadUrgentMentions: num(r?.urgent_mentions) };
  }

  /** The followers of a thread with their read state (the audience of thread_updated), one statement. */
  async followers(postId: string): Promise<Array<{ user_id: string; last_viewed: number; unread_mentions: number; unread_replies: number }>> {
    const rows = (await this.db(`${MEMBERSHIPS} as m`)
      .where({ 'm.post_id': postId, 'm.following': true })
      .select('m.user_id', 'm.last_viewed', 'm.unread_mentions', unreadReplies(this.db))) as Row[];
    return rows.map((r) => ({ user_id: str(r.user_id), last_viewed: num(r.last_viewed), unread_mentions: num(r.unread_mentions), unread_replies: num(r.unread_replies) }));
  }

  /** Unread followed threads and their mentions per team (GetTeamsUnreadForUser's thread counts; teams only, no DMs). */
  async teamUnreads(userId: string, teamIds: string[]): Promise<Map<string, { threads: number; mentions: number; urgent: number }>> {
    const out = new Map<string, { threads: number; mentions: number; urgent: number }>();
    if (teamIds.length === 0) return out;
    const db = this.db;
    const rows = (await db(`${MEMBERSHIPS} as m`)
      .join(`${TABLE} as t`, 't.post_id', 'm.post_id')
      .join('channel_members as cm', (j) => j.on('cm.channel_id', 't.channel_id').andOn('cm.user_id', 'm.user_id'))
      .where({ 'm.user_id': userId, 'm.following': true, 't.delete_at': 0 })
      .whereIn('t.team_id', teamIds)
      .groupBy('t.team_id')
      .select(
        't.team_id',
        db.raw('COALESCE(SUM(CASE WHEN m.last_viewed < t.last_reply_at THEN 1 ELSE 0 END), 0) AS threads'),
        db.raw('COALESCE(SUM(m.unread_mentions), 0) AS mentions'),
        db.raw('COALESCE(SUM(CASE WHEN t.is_urgent THEN m.unread_mentions ELSE 0 END), 0) AS urgent'),
      )) as Row[];
    for (const r of rows) out.set(str(r.team_id), { threads: num(r.threads), mentions: num(r.mentions), urgent: num(r.urgent) });
    return out;
  }
}
