import { CHUNK, LeasedQueue } from './leased-queue';
import { Executor, Row, num, str } from './rows';

const TABLE = 'email_outbox';

/** Rows are claimed with a lease (claim_token until claimed_until); next_attempt_at says when a row is due. */
const queue = new LeasedQueue(TABLE, 'claim_token', 'claimed_until');

/**
 * Notification emails still to send to one recipient: the posts of one channel that one transaction wrote for them,
 * in post order (an email each, or their part of a batch).
 */
export interface OutboxRow {
  id: string;
  user_id: string;
  post_ids: string[];
  channel_id: string;
  team_id: string;
  create_at: number;
  next_attempt_at: number;
  attempts: number;
}

function mapRow(r: Row): OutboxRow {
  return {
    id: str(r.id),
    user_id: str(r.user_id),
    post_ids: str(r.post_ids).split(',').filter(Boolean),
    channel_id: str(r.channel_id),
    team_id: str(r.team_id),
    create_at: num(r.create_at),
    next_attempt_at: num(r.next_attempt_at),
    attempts: num(r.attempts),
  };
}

/** Claimed rows in the order they are sent: by recipient, then oldest first. */
function sortForSending(rows: OutboxRow[]): OutboxRow[] {
  return rows.sort((a, b) => a.user_id.localeCompare(b.user_id) || a.create_at - b.create_at || a.id.localeCompare(b.id));
}

/** A new row: nobody holds it. */
function toRow(r: OutboxRow): Row {
  return { ...r, post_ids: r.post_ids.join(','), claim_token: '', claimed_until: 0 };
}

export class EmailOutboxStore {
  constructor(private readonly db: Executor) {}

  async enqueue(rows: OutboxRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await this.db(TABLE).insert(rows.slice(i, i + CHUNK).map(toRow));
    }
  }

  /** Recipients with a row due by `now` that no live claim holds, the longest waiting first. */
  async dueUsers(now: number, limit: number): Promise<string[]> {
    const rows = (await this.db(TABLE)
      .where('next_attempt_at', '<=', now)
      .where('claimed_until', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit)
      .select('user_id')) as Row[];
    return [...new Set(rows.map((r) => str(r.user_id)))];
  }

  /**
   * Claims every unclaimed row of these users for `token` until `until` (batching: a user's batch is all of their rows),
   * and returns the rows this token holds. The
   * claim is LeasedQueue's conditional UPDATE by primary key: locking only those rows (no index range) never makes a
   * post's transaction, inserting rows for the same users, wait for or deadlock with a claim.
   */
  async claim(userIds: string[], token: string, now: number, until: number): Promise<OutboxRow[]> {
    const ids: string[] = [];
    for (let i = 0; i < userIds.length; i += CHUNK) {
      const rows = (await this.db(TABLE).whereIn('user_id', userIds.slice(i, i + CHUNK)).where('claimed_until', '<=', now).select('id')) as Row[];
      for (const r of rows) ids.push(str(r.id));
    }
    return sortForSending((await queue.claim(this.db, ids, token, now, until)).map(mapRow));
  }

  /**
   * Claims at most `limit` rows due by `now` that no live claim holds, the longest waiting first, whoever they are for
   * (each is an email of its own when batching is off). A bounded claim keeps every run of the worker short: a backlog
   * of thousands is worked through a page at a time, never read or rewritten in one go.
   */
  async claimDue(token: string, now: number, until: number, limit: number): Promise<OutboxRow[]> {
    const ids = ((await this.db(TABLE)
      .where('next_attempt_at', '<=', now)
      .where('claimed_until', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit)
      .select('id')) as Row[]).map((r) => str(r.id));
    return sortForSending((await queue.claim(this.db, ids, token, now, until)).map(mapRow));
  }

  /** Sent (or given up): gone. Only while the claim is still this token's, so a row another worker took is left alone. */
  async remove(ids: string[], token: string): Promise<void> {
    await queue.remove(this.db, ids, token);
  }

  /**
   * Records that the row's other posts were sent: it keeps only `postIds` (those still to send), while this token holds
   * it. Written after each email of a row, so a crash resends at most the one in flight.
   */
  async keep(id: string, token: string, postIds: string[]): Promise<void> {
    await this.db(TABLE).where({ id, claim_token: token }).update({ post_ids: postIds.join(',') });
  }

  /** Gives rows back, to be tried again at `nextAttemptAt`; `failed` counts an attempt. */
  async release(ids: string[], token: string, nextAttemptAt: number, failed: boolean): Promise<void> {
    const next: Row = { claimed_until: 0, next_attempt_at: nextAttemptAt };
    if (failed) next.attempts = this.db.raw('attempts + 1');
    await queue.release(this.db, ids, token, next);
  }

  /**
   * When the next unclaimed row falls due (undefined: none waiting). Asked after every run of the worker, so it walks
   * the due index from its start and stops at the first unclaimed row (a MIN() with this filter would read the whole
   * table, on SQLite in the event loop).
   */
  async nextDue(now: number): Promise<number | undefined> {
    const row = (await this.db(TABLE).where('claimed_until', '<=', now).orderBy('next_attempt_at').first('next_attempt_at')) as Row | undefined;
    return row ? num(row.next_attempt_at) : undefined;
  }

  /**
   * Whether the user viewed any channel of these teams ('' standing for direct and group channels) at or after
   * `since`: then the batch waiting for them is dropped, as Mattermost drops it.
   */
  async viewedSince(userId: string, teamIds: string[], since: number): Promise<boolean> {
    const row = await this.db('channel_members as m')
      .join('channels as c', 'c.id', 'm.channel_id')
      .where('m.user_id', userId)
      .whereIn('c.team_id', teamIds)
      .where('m.last_viewed_at', '>=', since)
      .first('m.channel_id');
    return row !== undefined;
  }

  /** Rows of one recipient (tests and diagnostics). */
  async forUser(userId: string): Promise<OutboxRow[]> {
    return ((await this.db(TABLE).where('user_id', userId).orderBy('create_at')) as Row[]).map(mapRow);
  }
}
