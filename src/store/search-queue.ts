import type { Knex } from 'knex';
import { SQLITE_DOC_SLOTS, SQLITE_MAX_CREATE_AT, docIdFor, indexable } from './migrations/008-post-search';
import type { Executor } from './rows';

// SQLite: the posts the insert trigger queued (migration 023), indexed in batches after their commit. One batch is one
// transaction of a few set-based statements: doc ids for the whole batch (the next free slots of each millisecond, as
// the old trigger gave them one by one), the docs rows, the FTS5 entries in doc id order. MySQL/MariaDB keep no queue.

/**
 * Posts indexed per transaction: about 12 ms of the one connection (measured 20–25 µs a post with the statements'
 * overhead, 2,000 took 40–58 ms), then others go first.
 */
export const SEARCH_QUEUE_BATCH = 500;

const queued = (seqBound: string) => `(SELECT DISTINCT post_id FROM post_search_queue WHERE seq <= ${seqBound})`;

/**
 * Indexes up to `batch` queued posts, oldest in the queue first, in one transaction; answers how many queue entries it
 * took (0: the queue was empty). Posts deleted, turned into system messages or already indexed (an edit indexes a
 * queued post at once) are dropped from the queue without an entry.
 */
export async function indexQueuedPosts(db: Executor, batch = SEARCH_QUEUE_BATCH): Promise<number> {
  return db.transaction(async (trx) => {
    const [head] = (await trx.raw('SELECT MAX(seq) AS last, COUNT(*) AS n FROM (SELECT seq FROM post_search_queue ORDER BY seq LIMIT ?)', [batch])) as Array<{ last: number | null; n: number }>;
    if (head.last === null) return 0;
    const last = Number(head.last);
    await trx.raw('CREATE TEMP TABLE IF NOT EXISTS search_batch (doc_id INTEGER PRIMARY KEY, post_id TEXT NOT NULL, channel_id TEXT NOT NULL)');
    // The next free slot of each post's millisecond (after the entries already there), then one per post in id order;
    // a millisecond with more than SQLITE_DOC_SLOTS posts leaves the rest to the one-by-one path below.
    await trx.raw(
      `INSERT INTO temp.search_batch (doc_id, post_id, channel_id)
       SELECT doc, id, channel_id FROM (
         SELECT id, channel_id, base,
           COALESCE((SELECT MAX(d.doc_id) + 1 FROM post_search_docs d WHERE d.doc_id BETWEEN base AND base + ${SQLITE_DOC_SLOTS - 1}), base)
             + ROW_NUMBER() OVER (PARTITION BY base ORDER BY id) - 1 AS doc
         FROM (
           SELECT p.id, p.channel_id, MIN(MAX(p.create_at, 0), ${SQLITE_MAX_CREATE_AT}) * ${SQLITE_DOC_SLOTS} AS base
           FROM ${queued('?')} q JOIN posts p ON p.id = q.post_id
           WHERE ${indexable('p')} AND NOT EXISTS (SELECT 1 FROM post_search_docs x WHERE x.post_id = p.id)
         )
       ) WHERE doc < base + ${SQLITE_DOC_SLOTS}`,
      [last],
    );
    await trx.raw(
      `INSERT INTO post_search_docs (doc_id, post_id, channel_id, user_id)
       SELECT b.doc_id, b.post_id, b.channel_id, p.user_id FROM temp.search_batch b JOIN posts p ON p.id = b.post_id ORDER BY b.doc_id`,
    );
    await trx.raw(
      'INSERT INTO post_search (rowid, message, channel) SELECT b.doc_id, p.message, b.channel_id FROM temp.search_batch b JOIN posts p ON p.id = b.post_id ORDER BY b.doc_id',
    );
    await trx.raw('DELETE FROM temp.search_batch');
    // A millisecond's slots all taken: one at a time after the others, as the old trigger placed them.
    const crowded = (await trx.raw(
      `SELECT p.id FROM ${queued('?')} q JOIN posts p ON p.id = q.post_id
       WHERE ${indexable('p')} AND NOT EXISTS (SELECT 1 FROM post_search_docs x WHERE x.post_id = p.id) ORDER BY p.create_at, p.id`,
      [last],
    )) as Array<{ id: string }>;
    for (const { id } of crowded) {
      await trx.raw(`INSERT INTO post_search_docs (doc_id, post_id, channel_id, user_id) SELECT ${docIdFor('p')}, p.id, p.channel_id, p.user_id FROM posts p WHERE p.id = ?`, [id]);
      await trx.raw('INSERT INTO post_search (rowid, message, channel) SELECT d.doc_id, p.message, d.channel_id FROM post_search_docs d JOIN posts p ON p.id = d.post_id WHERE d.post_id = ?', [id]);
    }
    await trx.raw('DELETE FROM post_search_queue WHERE seq <= ?', [last]);
    return Number(head.n);
  });
}

/** Whether anything waits in the queue (a search indexes it first). */
export async function searchQueueEmpty(db: Executor): Promise<boolean> {
  const rows = (await db.raw('SELECT 1 AS x FROM post_search_queue LIMIT 1')) as unknown[];
  return rows.length === 0;
}

/**
 * Indexes the queue soon after each commit (SQLite): `committed()` schedules a run within `delayMs` (one timer however
 * many commits), and a run takes batches until the queue is empty, yielding between them so requests go on. Failures
 * (the database closing under it) leave the queue as it is, for the next run or the next search.
 */
export class SearchIndexer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly knex: Knex,
    private readonly delayMs = 100,
  ) {}

  committed(): void {
    // A commit during a run may land after the run's last look at the queue: another run follows that one.
    if (this.running) this.again = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, this.delayMs);
    // Never what keeps a process alive: what is queued is indexed by the next start or search.
    this.timer.unref();
  }

  /**
   * Indexes what is queued now; one run at a time. A batch short of full ends the run: what commits after it waits
   * for the next run (within `delayMs`), so under a steady stream of posts each run indexes a delay's worth at once
   * rather than one group commit's (a batch's fixed cost is ~0.6 ms: run after every commit, it was a sixth of the
   * webhook path's CPU). A full batch means a backlog (a restart after a crash, posts written straight into the
   * database): the run then pauses as long as each batch took, so it holds the connection at most half the time and
   * requests keep going while it catches up (without the pause, every query of a request waited behind a batch:
   * GetPostsForChannel went from ~700 to 118 req/s, p99 1.8 s, while 1M seeded posts were indexed).
   */
  run(): Promise<void> {
    this.running ??= (async () => {
      try {
        for (;;) {
          this.again = false;
          const started = performance.now();
          const n = await indexQueuedPosts(this.knex);
          if (n < SEARCH_QUEUE_BATCH) break;
          await new Promise<void>((resolve) => setTimeout(resolve, performance.now() - started).unref());
        }
      } catch {
        // Left queued: the next commit, start or search indexes it.
      } finally {
        this.running = undefined;
        if (this.again) this.committed();
      }
    })();
    return this.running;
  }
}
