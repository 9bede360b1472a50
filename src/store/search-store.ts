import type { Knex } from 'knex';
import type { PostSearchQuery } from '../model';
import { SQLITE_DOC_SLOTS, SQLITE_MAX_CREATE_AT, rebuildSqlite } from './migrations/008-post-search';
import { Executor, Row, num, str } from './rows';
import { indexQueuedPosts, searchQueueEmpty } from './search-queue';
import { inMessage, mysqlPlan, sqlitePlan, sqliteWalk, type MysqlPlan, type SqlitePlan, type TokenSizes } from './search-text';

/** One past the largest doc id (see migration 008): the top of an open-ended search. */
const DOC_END = (SQLITE_MAX_CREATE_AT + 1) * SQLITE_DOC_SLOTS;

/**
 * SQLite answers a search in windows, newest first. Each statement takes the next window of entries that match the
 * words in the caller's channels (or, for filters alone, the caller's channels' entries: migration 012 put the channel
 * in the index), checks them against the other filters and returns the hits with where the window ended. A window is
 * bounded twice: by matching entries (the first twice the page, each next one four times more, up to MAX_WINDOW: most
 * searches fill their page from the first), and by a span of the index (the FIRST_SPAN newest entries below it, each
 * next span four times more, up to MAX_SPAN), so a statement whose words match little or nothing in the caller's
 * channels still reads a bounded slice of the index, not all of it. better-sqlite3 runs a statement on the event loop,
 * so a window is the longest a search holds it: between windows the search yields (other requests run), and it stops
 * at SEARCH_TIME_BUDGET_MS or SEARCH_SCAN_BUDGET.
 */
const MIN_WINDOW = 128;
const MAX_WINDOW = 16384;
const FIRST_SPAN = 8192;
const MAX_SPAN = 65536;
/** Index entries one search may look at: the newest million entries that match its words. */
export const SEARCH_SCAN_BUDGET = 1_000_000;
/**
 * How long one search may run. Past it the search stops (SQLite: before its next window; MariaDB/MySQL: the running
 * statement is cut by the server, max_statement_time / MAX_EXECUTION_TIME) and answers the matches found by then,
 * newest first: fewer than a page, or none. A search that needs longer finds more with narrower terms or filters.
 */
export const SEARCH_TIME_BUDGET_MS = 1000;

export interface SearchOptions {
  /** SEARCH_TIME_BUDGET_MS unless given (tests). */
  budgetMs?: number;
}

/** The server cut a statement at its time limit: MariaDB's ER_STATEMENT_TIMEOUT, MySQL's ER_QUERY_TIMEOUT. */
const STATEMENT_TIMEOUT_ERRNOS = new Set([1969, 3024]);

class OutOfTime extends Error {}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** MariaDB (see searchMysql): the first window of time. */
const MYSQL_FIRST_SPAN = 3_600_000;

const AGAINST = 'MATCH (p.message) AGAINST (? IN BOOLEAN MODE)';

/** A time as the first doc id of its millisecond (create_at >= t ⇔ doc >= docAt(t)). */
function docAt(time: number): number {
  return Math.min(Math.max(Math.floor(time), 0), SQLITE_MAX_CREATE_AT + 1) * SQLITE_DOC_SLOTS;
}

interface MysqlServer {
  sizes: TokenSizes;
  /** MariaDB (SET STATEMENT max_statement_time) rather than MySQL (the MAX_EXECUTION_TIME hint). */
  mariadb: boolean;
}

const mysqlServers = new WeakMap<object, Promise<MysqlServer>>();

/** Runs a statement of a search within its time budget (SearchStore.bounded). */
type Run = (query: Knex.QueryBuilder) => Promise<Row[]>;

interface Statement {
  sql: string;
  bindings: unknown[];
}

/** Post search over each database's full-text index (migration 008). Answers post ids, newest first. */
export class SearchStore {
  constructor(private readonly db: Executor) {}

  private get mysql(): boolean {
    return this.db.client.config.client === 'mysql2';
  }

  /**
   * The ids of the posts on the requested page (up to q.limit), newest first; past the time budget, those found by
   * then.
   */
  async search(q: PostSearchQuery, options: SearchOptions = {}): Promise<string[]> {
    if (q.channelIds.length === 0 || q.limit <= 0) return [];
    const deadline = performance.now() + (options.budgetMs ?? SEARCH_TIME_BUDGET_MS);
    return this.mysql ? this.searchMysql(q, deadline) : this.searchSqlite(q, deadline);
  }

  /** The database's plan for the search's main statement, one line per step (for tests and the bench). */
  async explain(q: PostSearchQuery): Promise<string[]> {
    if (this.mysql) {
      const plan = mysqlPlan(q.terms, q.excludedTerms, q.orSearch, (await this.mysqlServer()).sizes);
      const lines = async (label: string, query: { toString(): string }) => {
        const [rows] = (await this.db.raw(`EXPLAIN ${query.toString()}`)) as [Row[]];
        return rows.map((r) => `${label}: table=${str(r.table)} type=${str(r.type)} key=${str(r.key)} rows=${str(r.rows)} extra=${str(r.Extra)}`);
      };
      // A search with words: a window (the last hour) and the statement driven by the FULLTEXT index (searchMysql).
      const hi = Date.now();
      const windowed = plan.against ? await lines('window', this.mysqlWindow(q, plan, hi - MYSQL_FIRST_SPAN, hi)) : [];
      return [...windowed, ...(await lines(plan.against ? 'index' : 'filters', this.mysqlQuery(q, plan)))];
    }
    const plan = sqlitePlan(q.terms, q.excludedTerms, q.orSearch);
    const { sql, bindings } = this.sqliteWindow(q, plan, this.upperDoc(q), this.lowerDoc(q), MIN_WINDOW, q.offset + q.limit);
    const rows = (await this.db.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as never[])) as Row[];
    return rows.map((r) => str(r.detail));
  }

  /**
   * Fills the SQLite index again from the posts table (run in a transaction). The triggers and the queue keep it
   * current; this is for data loaded around them. MySQL's FULLTEXT index needs no such step.
   */
  async rebuild(): Promise<void> {
    if (this.mysql) return;
    await rebuildSqlite(this.db as never, true);
    // Everything queued (migration 023) was indexed with the rest.
    await this.db.raw('DELETE FROM post_search_queue');
  }

  // ------------------------------------------------------------------------------------------------------ SQLite

  private upperDoc(q: PostSearchQuery): number {
    return q.until === null ? DOC_END : docAt(q.until);
  }

  private lowerDoc(q: PostSearchQuery): number {
    return q.since === null ? 0 : docAt(q.since);
  }

  private async searchSqlite(q: PostSearchQuery, deadline: number): Promise<string[]> {
    // Posts whose `ok` was sent before this search started are found: what their commits queued is indexed first.
    if (!(await searchQueueEmpty(this.db))) while ((await indexQueuedPosts(this.db)) > 0);
    const plan = sqlitePlan(q.terms, q.excludedTerms, q.orSearch);
    const need = q.offset + q.limit;
    const lower = this.lowerDoc(q);
    let upper = this.upperDoc(q);
    const found: string[] = [];
    let window = Math.min(Math.max(2 * need, MIN_WINDOW), MAX_WINDOW);
    let span = FIRST_SPAN;
    let scanned = 0;
    // A walk of the doc table (filters alone, too many channels to name) is bounded by its window already.
    const spanned = sqliteWalk(plan.match, q.channelIds) !== null;
    for (let first = true; upper > lower && found.length < need && scanned < SEARCH_SCAN_BUDGET; first = false) {
      if (!first) {
        await yieldToEventLoop();
        if (performance.now() >= deadline) break;
      }
      const bottom = spanned ? await this.sqliteSpanBottom(upper, lower, span) : lower;
      const { sql, bindings } = this.sqliteWindow(q, plan, upper, bottom, window, need - found.length);
      let edge: Row | undefined;
      for (const r of (await this.db.raw(sql, bindings as never[])) as Row[]) {
        if (r.id === null) edge = r;
        else found.push(str(r.id));
      }
      const n = edge ? num(edge.n) : 0;
      scanned += n;
      // A window with fewer entries than asked for covered its whole span; a full one ends at its oldest entry.
      upper = n < window ? bottom : num(edge?.doc);
      window = Math.min(window * 4, MAX_WINDOW);
      span = Math.min(span * 4, MAX_SPAN);
    }
    return found.slice(q.offset, need);
  }

  /** The doc id `span` entries of the index below `upper` (any channel, any words), or `lower` if fewer are left. */
  private async sqliteSpanBottom(upper: number, lower: number, span: number): Promise<number> {
    const [row] = (await this.db.raw('SELECT doc_id FROM post_search_docs WHERE doc_id < ? AND doc_id >= ? ORDER BY doc_id DESC LIMIT 1 OFFSET ?', [upper, lower, span - 1])) as Row[];
    return row ? num(row.doc_id) : lower;
  }

  /**
   * One window: the `window` newest entries below `upper` (and at or above `lower`) that match the words, then those
   * of them the filters keep, newest first, up to `limit`; and a last row (id NULL) with the window's lowest doc id and
   * its size.
   */
  private sqliteWindow(q: PostSearchQuery, plan: SqlitePlan, upper: number, lower: number, window: number, limit: number): Statement {
    const bindings: unknown[] = [];
    const walk = sqliteWalk(plan.match, q.channelIds);
    const entries = walk
      ? 'SELECT rowid AS doc FROM post_search WHERE post_search MATCH ? AND rowid < ? AND rowid >= ? ORDER BY rowid DESC LIMIT ?'
      : 'SELECT doc_id AS doc FROM post_search_docs WHERE doc_id < ? AND doc_id >= ? ORDER BY doc_id DESC LIMIT ?';
    if (walk) bindings.push(walk);
    bindings.push(upper, lower, window);

    // Also when the MATCH names the channels: one cheap check per entry, and the answer for callers with too many.
    const where: string[] = ['d.channel_id IN (SELECT value FROM json_each(?))'];
    bindings.push(JSON.stringify(q.channelIds));
    let from = 'w JOIN post_search_docs d ON d.doc_id = w.doc';
    if (plan.hashtags.length > 0 || plan.anyHashtags.length > 0 || plan.excludedHashtags.length > 0) from += ' JOIN posts p ON p.id = d.post_id';
    if (q.userIds) {
      where.push('d.user_id IN (SELECT value FROM json_each(?))');
      bindings.push(JSON.stringify(q.userIds));
    }
    if (q.excludedUserIds.length > 0) {
      where.push('d.user_id NOT IN (SELECT value FROM json_each(?))');
      bindings.push(JSON.stringify(q.excludedUserIds));
    }
    if (q.excludedRange) {
      where.push('NOT (w.doc >= ? AND w.doc < ?)');
      bindings.push(docAt(q.excludedRange[0]), docAt(q.excludedRange[1]));
    }
    for (const tag of plan.hashtags) {
      where.push('parley_has_hashtag(p.message, ?)');
      bindings.push(tag);
    }
    if (plan.anyHashtags.length > 0) {
      const any = plan.anyHashtags.map(() => 'parley_has_hashtag(p.message, ?)');
      bindings.push(...plan.anyHashtags);
      if (plan.anyOf) {
        any.push('w.doc IN (SELECT rowid FROM post_search WHERE post_search MATCH ? AND rowid < ? AND rowid >= ?)');
        bindings.push(inMessage(plan.anyOf), upper, lower);
      }
      where.push(`(${any.join(' OR ')})`);
    }
    for (const tag of plan.excludedHashtags) {
      where.push('NOT parley_has_hashtag(p.message, ?)');
      bindings.push(tag);
    }
    if (plan.exclude) {
      where.push('w.doc NOT IN (SELECT rowid FROM post_search WHERE post_search MATCH ? AND rowid < ? AND rowid >= ?)');
      bindings.push(inMessage(plan.exclude), upper, lower);
    }
    bindings.push(limit);
    return {
      sql:
        `WITH w AS MATERIALIZED (${entries}) ` +
        `SELECT doc, id, NULL AS n FROM (SELECT w.doc AS doc, d.post_id AS id FROM ${from} WHERE ${where.join(' AND ')} ORDER BY w.doc DESC LIMIT ?) ` +
        'UNION ALL SELECT MIN(doc), NULL, COUNT(*) FROM w',
      bindings,
    };
  }

  // ------------------------------------------------------------------------------------------------------- MySQL

  /**
   * innodb_ft_min_token_size and innodb_ft_max_token_size (which words the FULLTEXT index holds), and whether the
   * server is MariaDB (how a statement's time is limited). Read once.
   */
  private mysqlServer(): Promise<MysqlServer> {
    const key = this.db.client as object;
    let server = mysqlServers.get(key);
    if (!server) {
      server = (async () => {
        const [[row]] = (await this.db.raw('SELECT @@innodb_ft_min_token_size AS min, @@innodb_ft_max_token_size AS max, VERSION() AS version')) as [Row[]];
        return { sizes: { min: num(row.min), max: num(row.max) }, mariadb: /mariadb/i.test(str(row.version)) };
      })();
      server.catch(() => mysqlServers.delete(key));
      mysqlServers.set(key, server);
    }
    return server;
  }

  /**
   * Runs a search statement with the server cutting it at the search's deadline (MariaDB: SET STATEMENT
   * max_statement_time … FOR; MySQL: the MAX_EXECUTION_TIME hint, SELECT only, which these all are). A cut statement,
   * or no time left, is OutOfTime. The connection stays usable: the server ends the statement, not the session.
   */
  private async bounded(query: Knex.QueryBuilder, deadline: number): Promise<Row[]> {
    const left = Math.floor(deadline - performance.now());
    if (left <= 0) throw new OutOfTime();
    const { mariadb } = await this.mysqlServer();
    const { sql, bindings } = query.toSQL();
    const limited = mariadb ? `SET STATEMENT max_statement_time = ${(left / 1000).toFixed(3)} FOR ${sql}` : sql.replace(/^select /i, `select /*+ MAX_EXECUTION_TIME(${left}) */ `);
    try {
      const [rows] = (await this.db.raw(limited, bindings as never[])) as [Row[]];
      return rows;
    } catch (err) {
      if (STATEMENT_TIMEOUT_ERRNOS.has(Number((err as { errno?: unknown }).errno))) throw new OutOfTime();
      throw err;
    }
  }

  /**
   * InnoDB's FULLTEXT index cannot hand back its matches newest first or stop early: MATCH in boolean mode computes
   * the whole set of matching documents, and a query driven by the index then reads every matching row from the
   * table to check the channel, author and time and to sort them (`Using filesort`). That costs a row read per match
   * in the whole table: at 1,000,000 posts a word in 5 % of them took 6-16 s with the default 128 MB buffer pool.
   * Computing the set alone is cheap in comparison (about 0.1-0.2 s for that word); the row reads are the cost.
   *
   * So a search reads the searched channels newest first instead, through idx_posts_channel_create, in windows of
   * time: each window is one statement that reads the posts of those channels created in [lo, hi) and keeps those in
   * InnoDB's match set (MATCH as a filter, not the access path). The first window is the hour below the newest post
   * of those channels; each next one is sized from the posts and hits seen so far, at most 8 times longer. When the
   * windows seen so far predict that reading on would read more rows than the index path would (every match of the
   * main MATCH in the table, estimated from their share of the rows read times the posts of the searched channels),
   * the rest is one statement driven by the FULLTEXT index, below the last window: the path for rare words and for
   * words found mostly in channels the caller cannot read. So a search costs at most about what it did before plus a
   * window or two, and a common word costs a page's worth of rows instead of every match. The results are the same
   * either way: windows split the posts by create_at, each is ordered by create_at DESC, id DESC, and the page is
   * cut from the concatenation.
   */
  private async searchMysql(q: PostSearchQuery, deadline: number): Promise<string[]> {
    const plan = mysqlPlan(q.terms, q.excludedTerms, q.orSearch, (await this.mysqlServer()).sizes);
    if (plan.impossible) return [];
    const found: string[] = [];
    try {
      // A search by filters alone has no match set to compute: one statement, as before.
      if (!plan.against) return (await this.bounded(this.mysqlQuery(q, plan), deadline)).map((r) => str(r.id));
      await this.mysqlWindows(q, plan, deadline, found);
    } catch (err) {
      // Out of time: the matches found by then (see SEARCH_TIME_BUDGET_MS).
      if (!(err instanceof OutOfTime)) throw err;
    }
    return found.slice(q.offset, q.offset + q.limit);
  }

  /** The windows of time and the index path (see searchMysql), adding what they find to `found`, newest first. */
  private async mysqlWindows(q: PostSearchQuery, plan: MysqlPlan, deadline: number, found: string[]): Promise<void> {
    const run: Run = (query) => this.bounded(query, deadline);
    const ids = async (query: Knex.QueryBuilder) => (await run(query)).map((r) => str(r.id));
    const need = q.offset + q.limit;
    const floor = q.since ?? -Infinity;
    let top = await this.mysqlNewest(q, q.until, run);
    if (top === null || top < floor) return;
    let history: { oldest: number; newest: number } | undefined;
    let hi = top + 1;
    let span = MYSQL_FIRST_SPAN;
    let rows = 0;
    let matched = 0;
    let time = 0;
    while (found.length < need) {
      const lo = Math.max(hi - span, floor);
      const window = await run(this.mysqlWindow(q, plan, lo, hi));
      matched += window.length;
      for (const r of window) if (num(r.hit) === 1 && found.length < need) found.push(str(r.id));
      if (found.length >= need || lo <= floor) break;
      const read = await this.mysqlWindowRows(q, lo, hi, run);
      rows += read;
      time += hi - lo;
      hi = lo;
      if (read === 0) {
        // Nothing in the searched channels in this window: the next one starts at the next older post.
        top = await this.mysqlNewest(q, hi, run);
        if (top === null || top < floor) break;
        hi = top + 1;
        continue;
      }
      // Rows still to read at the hit rate seen so far (no hit yet counts as one) against the rows the index path
      // would read: every match of the main MATCH in the table, whatever the search's time bounds (they are checked
      // on the rows it reads), so at least the main MATCH's share of the rows read times all the posts of the
      // searched channels (their time span at the rate seen so far).
      history ??= await this.mysqlHistory(q, run);
      const left = need - found.length;
      const predicted = (left * rows) / Math.max(found.length, 1);
      const all = ((history.newest + 1 - history.oldest) * rows) / time;
      if (predicted > (matched / rows) * all) {
        found.push(...(await ids(this.mysqlQuery({ ...q, until: hi, offset: 0, limit: left }, plan))));
        break;
      }
      span = Math.max(1, Math.min(span * 8, Math.ceil((1.25 * predicted * time) / rows)));
    }
  }

  /** The create_at of the newest post below `until` in the searched channels (one index probe per channel). */
  private async mysqlNewest(q: PostSearchQuery, until: number | null, run: Run): Promise<number | null> {
    const query = this.db('posts').select('channel_id').max('create_at as top').whereIn('channel_id', q.channelIds).where('delete_at', 0).groupBy('channel_id');
    if (until !== null) query.where('create_at', '<', until);
    const tops = (await run(query)).map((r) => num(r.top));
    return tops.length === 0 ? null : Math.max(...tops);
  }

  /** The create_at of the oldest and the newest post of the searched channels (two index probes per channel). */
  private async mysqlHistory(q: PostSearchQuery, run: Run): Promise<{ oldest: number; newest: number }> {
    const rows = await run(
      this.db('posts').select('channel_id').min('create_at as oldest').max('create_at as newest').whereIn('channel_id', q.channelIds).where('delete_at', 0).groupBy('channel_id'),
    );
    return { oldest: Math.min(...rows.map((r) => num(r.oldest))), newest: Math.max(...rows.map((r) => num(r.newest))) };
  }

  /** How many posts of the searched channels a window read (from the index alone). */
  private async mysqlWindowRows(q: PostSearchQuery, lo: number, hi: number, run: Run): Promise<number> {
    const [row] = await run(this.db('posts').count('* as n').whereIn('channel_id', q.channelIds).where('delete_at', 0).where('create_at', '>=', lo).where('create_at', '<', hi));
    return num(row.n);
  }

  /** The search as one statement (filters alone, or driven by the FULLTEXT index). */
  private mysqlQuery(q: PostSearchQuery, plan: MysqlPlan) {
    const query = this.db('posts as p').select('p.id').where('p.delete_at', 0).whereIn('p.channel_id', q.channelIds);
    if (plan.against) query.whereRaw(AGAINST, [plan.against]);
    for (const f of this.mysqlFilters(q, plan)) query.whereRaw(f.sql, f.bindings as never[]);
    return query
      .orderBy([
        { column: 'p.create_at', order: 'desc' },
        { column: 'p.id', order: 'desc' },
      ])
      .limit(q.limit)
      .offset(q.offset);
  }

  /**
   * One window: the posts of the searched channels created in [lo, hi) within the search's time bounds that InnoDB's
   * match set holds, newest first, each with `hit`: whether it passes the search's other filters. MATCH is a filter
   * here (`<> 0`: a bare MATCH or MATCH > 0 in WHERE makes MariaDB drive the query by the FULLTEXT index, which reads
   * every match; InnoDB ranks every match above 0, so `<> 0` is the same test), the rows come from the channel index.
   */
  private mysqlWindow(q: PostSearchQuery, plan: MysqlPlan, lo: number, hi: number) {
    const filters = this.mysqlFilters(q, plan);
    const hit = filters.length > 0 ? filters.map((f) => `(${f.sql})`).join(' AND ') : '1';
    return this.db('posts as p')
      .select('p.id', this.db.raw(`${hit} AS hit`, filters.flatMap((f) => f.bindings) as never[]))
      .where('p.delete_at', 0)
      .whereIn('p.channel_id', q.channelIds)
      .where('p.create_at', '>=', lo)
      .where('p.create_at', '<', hi)
      .whereRaw(`${AGAINST} <> 0`, [plan.against])
      .orderBy([
        { column: 'p.create_at', order: 'desc' },
        { column: 'p.id', order: 'desc' },
      ]);
  }

  /** What a post must pass besides its channel, not being deleted and the main MATCH (see MysqlPlan). */
  private mysqlFilters(q: PostSearchQuery, plan: MysqlPlan): Statement[] {
    const out: Statement[] = [{ sql: "SUBSTR(p.type, 1, 7) <> 'system_'", bindings: [] }];
    const inList = (ids: string[]) => ids.map(() => '?').join(', ');
    if (plan.anyPatterns.length > 0) {
      const any: Statement[] = [];
      if (plan.anyAgainst) any.push({ sql: AGAINST, bindings: [plan.anyAgainst] });
      for (const p of plan.anyPatterns) any.push({ sql: 'p.message REGEXP ?', bindings: [p] });
      out.push({ sql: any.map((a) => a.sql).join(' OR '), bindings: any.flatMap((a) => a.bindings) });
    }
    for (const p of plan.patterns) out.push({ sql: 'p.message REGEXP ?', bindings: [p] });
    for (const p of plan.notPatterns) out.push({ sql: 'NOT (p.message REGEXP ?)', bindings: [p] });
    if (plan.notAgainst) out.push({ sql: `NOT (${AGAINST})`, bindings: [plan.notAgainst] });
    if (q.userIds) out.push(q.userIds.length > 0 ? { sql: `p.user_id IN (${inList(q.userIds)})`, bindings: [...q.userIds] } : { sql: '0', bindings: [] });
    if (q.excludedUserIds.length > 0) out.push({ sql: `p.user_id NOT IN (${inList(q.excludedUserIds)})`, bindings: [...q.excludedUserIds] });
    if (q.since !== null) out.push({ sql: 'p.create_at >= ?', bindings: [q.since] });
    if (q.until !== null) out.push({ sql: 'p.create_at < ?', bindings: [q.until] });
    if (q.excludedRange) out.push({ sql: '(p.create_at < ? OR p.create_at >= ?)', bindings: [...q.excludedRange] });
    return out;
  }
}
