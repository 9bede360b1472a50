import { CHUNK, LeasedQueue } from './leased-queue';
import { Executor, Row, num, str } from './rows';

const TABLE = 'outgoing_queue';

/** A call is held by `claim`; due_at is both when it is due and, while held, when its lease ends. */
const queue = new LeasedQueue(TABLE, 'claim', 'due_at');

/** One call still to be made: a post sent to one callback URL of one hook. */
export interface QueuedCall {
  id: string;
  hook_id: string;
  post_id: string;
  callback_url: string;
  trigger_word: string;
  /** Attempts made so far. */
  attempt: number;
  due_at: number;
  create_at: number;
}

function mapRow(r: Row): QueuedCall {
  return {
    id: str(r.id),
    hook_id: str(r.hook_id),
    post_id: str(r.post_id),
    callback_url: str(r.callback_url),
    trigger_word: str(r.trigger_word),
    attempt: num(r.attempt),
    due_at: num(r.due_at),
    create_at: num(r.create_at),
  };
}

/** A new call: nobody holds it. */
function toRow(c: QueuedCall): Row {
  return { ...c, claim: '' };
}

/**
 * The durable queue of outgoing webhook calls. Several processes may share it: a call is taken by a conditional
 * UPDATE (only a row still due changes hands), so each attempt is made by exactly one of them.
 */
export class OutgoingQueueStore {
  constructor(private readonly db: Executor) {}

  /** Queues calls; callers run it in the transaction of the posts that made them. */
  async insertMany(calls: QueuedCall[]): Promise<void> {
    for (let i = 0; i < calls.length; i += CHUNK) await this.db(TABLE).insert(calls.slice(i, i + CHUNK).map(toRow));
  }

  /**
   * Takes up to `limit` calls due at `now` for the holder `claim` until `leaseUntil` (when they become due again,
   * should the holder never finish them). A row another process took in between is not taken: the UPDATE re-checks
   * that it is still due, and the row lock makes the check and the change one step.
   */
  async claimDue(now: number, limit: number, claim: string, leaseUntil: number): Promise<QueuedCall[]> {
    const due = (await this.db(TABLE).where('due_at', '<=', now).orderBy('due_at').limit(limit).select('id')) as Row[];
    if (due.length === 0) return [];
    return (await queue.claim(this.db, due.map((r) => str(r.id)), claim, now, leaseUntil)).map(mapRow);
  }

  /** When the next call is due (undefined: the queue is empty). */
  async nextDue(): Promise<number | undefined> {
    const r = (await this.db(TABLE).min({ at: 'due_at' }).first()) as Row | undefined;
    return r && r.at !== null && r.at !== undefined ? num(r.at) : undefined;
  }

  /** Removes a call its holder finished (or dropped). */
  async finish(id: string, claim: string): Promise<void> {
    await queue.remove(this.db, [id], claim);
  }

  /** Gives a call back for its next attempt at `dueAt`, having made `attempt` attempts. */
  async retryAt(id: string, claim: string, attempt: number, dueAt: number): Promise<void> {
    await queue.release(this.db, [id], claim, { attempt, due_at: dueAt });
  }
}
