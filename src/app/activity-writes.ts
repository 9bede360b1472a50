import type { StatusRecord } from '../model';
import type { Stores, TxStores } from '../store';
import { GroupCommit } from '../store/group-commit';

/** One presence or activity write. */
export type ActivityWrite =
  | { kind: 'status'; status: StatusRecord }
  | { kind: 'status-activity'; userId: string; at: number }
  | { kind: 'user-activity'; userId: string; at: number }
  | { kind: 'session-activity'; sessionId: string; at: number };

/**
 * At most one presence/activity transaction starts per this many ms under load. Each socket open reaches its status
 * write after awaits of its own (the session, the status read), so writes trickle in one at a time; on SQLite a
 * commit's fsync blocks the event loop, so none queue during it either, and a reconnect storm was one transaction
 * (one fsync) per socket. Spaced, a storm's writes share a transaction per interval. A write waits at most this long
 * more; an idle queue starts at once.
 */
export const ACTIVITY_SPACING_MS = 20;

/**
 * Presence and activity writes (status rows, users' and sessions' last activity) through one group commit: when
 * thousands of sockets open at once (clients reconnecting after a restart), each sets its user online and records
 * activity, and one transaction per batch (one fsync on SQLite's single connection) serves all the writes that queued
 * meanwhile, instead of an autocommit each in front of the posts. Writes are applied in the order they were asked for
 * (one transaction at a time), so a status chosen through the API is never overwritten by an older write queued
 * before it; each caller's promise settles once its write has committed.
 */
export class ActivityWrites {
  private readonly group: GroupCommit<ActivityWrite, void>;

  constructor(stores: Stores) {
    this.group = new GroupCommit(stores, (tx, writes) => apply(tx, writes), { concurrency: 1, maxItems: 500, spacingMs: ACTIVITY_SPACING_MS });
  }

  /** Transactions run and writes made so far (for tests and the bench). */
  get stats(): Readonly<GroupCommit<ActivityWrite, void>['stats']> {
    return this.group.stats;
  }

  write(w: ActivityWrite): Promise<void> {
    return this.group.submit(w);
  }
}

async function apply(tx: TxStores, writes: ActivityWrite[]): Promise<void[]> {
  for (const w of writes) {
    switch (w.kind) {
      case 'status':
        await tx.status.save(w.status);
        break;
      case 'status-activity':
        await tx.status.touch(w.userId, w.at);
        break;
      case 'user-activity':
        await tx.users.touchActivity(w.userId, w.at);
        break;
      case 'session-activity':
        await tx.sessions.touch(w.sessionId, w.at);
        break;
    }
  }
  return writes.map(() => undefined);
}
