import type { Executor, Row } from './rows';

/** Ids per statement: lists of ids go into IN (...) a few hundred at a time, far below every dialect's limits. */
export const CHUNK = 200;

/**
 * A durable work queue that several processes share by leases (the email outbox, the outgoing webhook calls): a row
 * is free while its lease column is at or before now; a worker takes it by writing its token and the lease's end,
 * then removes it when done or releases it (token cleared) with the time of its next attempt.
 *
 * The take is a conditional UPDATE by primary key that re-checks the lease: of two workers racing for a row the
 * database lets exactly one change it (on MariaDB the row lock makes the check and the change one step; SQLite runs
 * one writer at a time), and locking only those rows, no index range, never makes a writer inserting rows for the
 * same keys wait for or deadlock with a claim. Removal and release only touch rows the token still holds, so a
 * row another worker took after a lease ran out is left alone.
 */
export class LeasedQueue {
  /**
   * @param table the queue's table, keyed by `id`
   * @param tokenColumn who holds a row ('' when nobody does)
   * @param leaseColumn when a row is free again: claimable while it is <= now, set to the lease's end by a claim
   */
  constructor(
    readonly table: string,
    private readonly tokenColumn: string,
    private readonly leaseColumn: string,
  ) {}

  /** Takes the rows of `ids` that are free at `now` for `token` until `until`; returns the rows this token holds. */
  async claim(db: Executor, ids: string[], token: string, now: number, until: number): Promise<Row[]> {
    const held: Row[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      await db(this.table).whereIn('id', chunk).where(this.leaseColumn, '<=', now).update({ [this.tokenColumn]: token, [this.leaseColumn]: until });
      for (const r of (await db(this.table).whereIn('id', chunk).where(this.tokenColumn, token)) as Row[]) held.push(r);
    }
    return held;
  }

  /** Done (or given up): the rows still held by `token` are deleted. */
  async remove(db: Executor, ids: string[], token: string): Promise<void> {
    for (let i = 0; i < ids.length; i += CHUNK) await db(this.table).whereIn('id', ids.slice(i, i + CHUNK)).where(this.tokenColumn, token).delete();
  }

  /** Gives back the rows still held by `token`, writing `next` (the next attempt's time, counters) with the token cleared. */
  async release(db: Executor, ids: string[], token: string, next: Row): Promise<void> {
    for (let i = 0; i < ids.length; i += CHUNK) {
      await db(this.table).whereIn('id', ids.slice(i, i + CHUNK)).where(this.tokenColumn, token).update({ [this.tokenColumn]: '', ...next });
    }
  }
}
