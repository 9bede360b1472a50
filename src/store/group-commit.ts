import type { Stores } from '.';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '../lib/db-errors';

/** See GroupCommit.maxWaitMs. */
export const QUEUE_TIMEOUT_MS = 5000;

interface Pending<I, R> {
  item: I;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/**
 * Group commit: writes that arrive while a transaction is in flight share the next one, so one commit (one fsync,
 * one round of statements) serves many callers. Nothing waits on a timer: an idle queue starts at once, and under
 * load the batch is whatever queued up during the previous commit.
 *
 * Each caller's promise settles only after the transaction holding its item has committed (or failed), so "ok"
 * still means "on disk". If a shared transaction fails, its items are retried one per transaction: one bad item
 * gets its own error and never fails the others. If no transaction can begin at all (the database is unreachable),
 * every waiting item gets that error at once instead of one wait each.
 */
export class GroupCommit<I, R> {
  private queue: Array<Pending<I, R>> = [];
  private running = 0;
  /** Transactions run and items written so far (items / transactions is the mean batch size). */
  readonly stats = { transactions: 0, items: 0, retriedAlone: 0 };

  constructor(
    private readonly stores: Stores,
    /** Writes the items inside `tx` and returns one result per item, in order. */
    private readonly apply: (tx: Stores, items: I[]) => Promise<R[]>,
    private readonly options: { concurrency?: number; maxItems?: number; maxWaitMs?: number } = {},
  ) {}

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
          reject(new DatabaseUnavailableError('A write waited too long for the database.'));
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
        // Requests parsed in the same turn of the event loop join the first batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.run(this.queue.splice(0, this.maxItems));
    } finally {
      this.running--;
    }
  }

  private async run(batch: Array<Pending<I, R>>): Promise<void> {
    if (batch.length === 1) {
      await this.runAlone(batch[0]);
      return;
    }
    let started = false;
    let results: R[];
    try {
      this.stats.transactions++;
      results = await this.stores.transaction((tx) => {
        started = true;
        return this.apply(tx, batch.map((p) => p.item));
      });
      this.stats.items += batch.length;
    } catch (err) {
      // No transaction could even begin (database down, pool exhausted): one by one would fail the same way, each
      // after its own wait, so everyone gets this error now.
      if (!started) {
        for (const p of batch) p.reject(err);
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
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]));
  }

  /** Runs one item in its own transaction; returns the error if no transaction could begin (the others' cue). */
  private async runAlone(p: Pending<I, R>): Promise<{ err: unknown } | undefined> {
    let started = false;
    try {
      this.stats.transactions++;
      const [result] = await this.stores.transaction((tx) => {
        started = true;
        return this.apply(tx, [p.item]);
      });
      this.stats.items++;
      p.resolve(result);
    } catch (err) {
      p.reject(err);
      if (!started) return { err };
    }
    return undefined;
  }
}
