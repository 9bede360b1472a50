import type { Stores, TxStores } from '.';
import { DatabaseError, isDatabaseError } from '../model/store-errors';

/** See GroupCommit.maxWaitMs. */
export const QUEUE_TIMEOUT_MS = 5000;

interface Pending<I, R> {
  item: I;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/**
 * Group commit: writes that arrive while a transaction is in flight share the next one, so one commit (one fsync,
 * one round of statements) serves many callers. An idle queue starts at once; under load the batch is whatever
 * queued up during the previous commit (and, with `spacingMs`, until the next is due).
 *
 * Each caller's promise settles only after the transaction holding its item has committed (or failed), so "ok"
 * still means "on disk". If a shared transaction fails, its items are retried one per transaction: one bad item
 * gets its own error and never fails the others. If no transaction can begin at all (the database is unreachable)
 * or the database does not answer in time (hung), every item of the transaction gets that error at once instead of
 * one wait each: a write waits at most its time in the queue plus one attempt. If the connection dies during COMMIT,
 * the database is asked whether the items are stored (see `attempt`), so a commit whose answer was lost is not
 * retried into duplicates nor reported as a failure.
 */
export class GroupCommit<I, R> {
  private queue: Array<Pending<I, R>> = [];
  private running = 0;
  /** Transactions run and items written so far (items / transactions is the mean batch size). */
  readonly stats = { transactions: 0, items: 0, retriedAlone: 0, recovered: 0 };

  constructor(
    private readonly stores: Stores,
    /** Writes the items inside `tx` and returns one result per item, in order. */
    private readonly apply: (tx: TxStores, items: I[]) => Promise<R[]>,
    private readonly options: {
      concurrency?: number;
      maxItems?: number;
      maxWaitMs?: number;
      /**
       * After a transaction failed where it may have committed anyway: the items' results if their writes are in the
       * database, undefined if they are not (then the failure stands, or the items are retried one by one).
       */
      recover?: (items: I[]) => Promise<R[] | undefined>;
      /**
       * For background writes that arrive one by one (each after awaits of its own, so few are ever queued at once):
       * a transaction starts at least this long after the previous one started, and takes everything that queued
       * meanwhile. On SQLite a commit's fsync blocks the event loop, so nothing can queue during it; without a spacing,
       * a trickle of writes is a transaction each. An idle queue still starts at once. 0 (the default): no spacing.
       */
      spacingMs?: number;
    } = {},
  ) {}

  /** When the last transaction started (performance.now()), for spacingMs. */
  private lastStart = -Infinity;

  /** How long until the next transaction may start (0: now). */
  private untilNextStart(): number {
    const spacing = this.options.spacingMs ?? 0;
    return spacing > 0 ? Math.max(0, this.lastStart + spacing - performance.now()) : 0;
  }

  /** Transactions in flight at once: 1 where there is one connection (SQLite), more where commits can overlap. */
  private get concurrency(): number {
    return this.options.concurrency ?? 1;
  }

  private get maxItems(): number {
    return this.options.maxItems ?? 100;
  }

  /** How long an item may wait in the queue for a transaction to take it (the database hung: 503, not a hang). */
  private get maxWaitMs(): number {
    return this.options.maxWaitMs ?? QUEUE_TIMEOUT_MS;
  }

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      // Only an item still queued is given up on: it is then never written. Once in a transaction, it waits for it.
      const timer = setTimeout(() => {
        const at = this.queue.indexOf(pending);
        if (at >= 0) {
          this.queue.splice(at, 1);
          reject(new DatabaseError('timeout', 'A write waited too long for the database.'));
        }
      }, this.maxWaitMs);
      const pending: Pending<I, R> = {
        item,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.queue.push(pending);
      if (this.running < this.concurrency) {
        this.running++;
        // Requests parsed in the same turn of the event loop join the first batch (and, with a spacing, those that
        // arrive until it is due).
        const wait = this.untilNextStart();
        if (wait > 0) setTimeout(() => void this.drain(), wait);
        else setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const wait = this.untilNextStart();
        if (wait > 0) {
          // Then look again: another drain (concurrency > 1) or the queue's timeout may have taken the items meanwhile.
          await new Promise((resolve) => setTimeout(resolve, wait));
          continue;
        }
        this.lastStart = performance.now();
        await this.run(this.queue.splice(0, this.maxItems));
      }
    } finally {
      this.running--;
    }
  }

  private async run(batch: Array<Pending<I, R>>): Promise<void> {
    if (batch.length === 1) {
      await this.runAlone(batch[0]);
      return;
    }
    const attempt = await this.attempt(batch.map((p) => p.item));
    if ('results' in attempt) {
      batch.forEach((p, i) => p.resolve(attempt.results[i]));
      return;
    }
    // No transaction could even begin (database down, pool exhausted), or the database did not answer in time: one
    // by one would fail the same way, each after its own wait, so everyone gets this error now.
    if (hopeless(attempt)) {
      for (const p of batch) p.reject(attempt.err);
      return;
    }
    this.stats.retriedAlone += batch.length;
    for (let i = 0; i < batch.length; i++) {
      const failure = await this.runAlone(batch[i]);
      if (failure) {
        for (const p of batch.slice(i + 1)) p.reject(failure.err);
        return;
      }
    }
  }

  /** Runs one item in its own transaction; returns the error if retrying the others is hopeless (their cue). */
  private async runAlone(p: Pending<I, R>): Promise<{ err: unknown } | undefined> {
    const attempt = await this.attempt([p.item]);
    if ('results' in attempt) {
      p.resolve(attempt.results[0]);
      return undefined;
    }
    p.reject(attempt.err);
    return hopeless(attempt) ? { err: attempt.err } : undefined;
  }

  /**
   * One transaction over `items`. When it fails where it may have committed all the same, the database is asked:
   * a connection that dies during COMMIT leaves the outcome unknown to us (the server may have committed and lost
   * only its answer), and a retry that finds its own rows already stored means an earlier attempt did commit. Either
   * way the items are answered by what is in the database, never written twice and never reported lost when stored.
   */
  private async attempt(items: I[]): Promise<{ results: R[] } | { err: unknown; started: boolean }> {
    let started = false;
    let applied = false;
    try {
      this.stats.transactions++;
      const results = await this.stores.transaction(async (tx) => {
        started = true;
        const r = await this.apply(tx, items);
        applied = true;
        return r;
      });
      this.stats.items += items.length;
      return { results };
    } catch (err) {
      // A batch that failed before COMMIT was rolled back: its items are retried alone, and only there does a
      // duplicate key hint at an earlier attempt's commit. After a timeout the database is not asked: it is not
      // answering, and the callers' 503 promises nothing either way.
      const mayHaveCommitted = applied || (items.length === 1 && isDatabaseError(err, 'duplicate'));
      if (started && this.options.recover && mayHaveCommitted && !isDatabaseError(err, 'timeout')) {
        const recovered = await this.options.recover(items).catch(() => undefined);
        if (recovered) {
          this.stats.recovered += items.length;
          this.stats.items += items.length;
          return { results: recovered };
        }
      }
      return { err, started };
    }
  }
}

/**
 * Whether retrying a failed transaction's items is pointless: none could begin, or the database did not answer in
 * time. Either way each retry would wait out the same bound again (a hung database: one 503 after one wait, not one
 * wait per item or per retry).
 */
function hopeless(attempt: { err: unknown; started: boolean }): boolean {
  return !attempt.started || isDatabaseError(attempt.err, 'timeout');
}
