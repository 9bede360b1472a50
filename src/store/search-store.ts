import type { PostSearchQuery } from '../model';
import { SQLITE_DOC_SLOTS, SQLITE_MAX_CREATE_AT, rebuildSqlite } from './migrations/008-post-search';
import { Executor, Row, num, str } from './rows';
import { mysqlPlan, sqlitePlan, type MysqlPlan, type SqlitePlan, type TokenSizes } from './search-text';

/** One past the largest doc id (see migration 008): the top of an open-ended search. */
const DOC_END = (SQLITE_MAX_CREATE_AT + 1) * SQLITE_DOC_SLOTS;

/**
 * SQLite answers a search in windows of index entries, newest first. Each statement takes the next window of entries
 * that match the words (or, for filters alone, of all entries), checks them against the filters and returns the hits
 * with where the window ended. The first window is small (most searches fill their page from it); each next one is
 * four times larger, up to MAX_WINDOW, so a search that finds little in a large index never holds the one connection
 * long (other requests' queries run between its windows), and SEARCH_SCAN_BUDGET bounds the whole search.
 */
const MIN_WINDOW = 128;
const MAX_WINDOW = 16384;
/** Index entries one search may look at: the newest million entries that match its words. */
export const SEARCH_SCAN_BUDGET = 1_000_000;

/** A time as the first doc id of its millisecond (create_at >= t ⇔ doc >= docAt(t)). */
function docAt(time: number): number {
  return Math.min(Math.max(Math.floor(time), 0), SQLITE_MAX_CREATE_AT + 1) * SQLITE_DOC_SLOTS;
}

const tokenSizes = new WeakMap<object, Promise<TokenSizes>>();

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

  /** The ids of the posts on the requested page (up to q.limit), newest first. */
  async search(q: PostSearchQuery): Promise<string[]> {
    if (q.channelIds.length === 0 || q.limit <= 0) return [];
    return this.mysql ? this.searchMysql(q) : this.searchSqlite(q);
  }

  /** The database's plan for the search's main statement, one line per step (for tests and the bench). */
  async explain(q: PostSearchQuery): Promise<string[]> {
    if (this.mysql) {
      const plan = mysqlPlan(q.terms, q.excludedTerms, q.orSearch, await this.tokenSizes());
      const [rows] = (await this.db.raw(`EXPLAIN ${this.mysqlQuery(q, plan).toString()}`)) as [Row[]];
      return rows.map((r) => `table=${str(r.table)} type=${str(r.type)} key=${str(r.key)} rows=${str(r.rows)} extra=${str(r.Extra)}`);
    }
    const plan = sqlitePlan(q.terms, q.excludedTerms, q.orSearch);
    const { sql, bindings } = this.sqliteWindow(q, plan, this.upperDoc(q), this.lowerDoc(q), MIN_WINDOW, q.offset + q.limit);
    const rows = (await this.db.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as never[])) as Row[];
    return rows.map((r) => str(r.detail));
  }

  /**
   * Fills the SQLite index again from the posts table (run in a transaction). The triggers keep it current; this is
   * for data loaded around them. MySQL's FULLTEXT index needs no such step.
   */
  async rebuild(): Promise<void> {
    if (!this.mysql) await rebuildSqlite(this.db as never);
  }

  // ------------------------------------------------------------------------------------------------------ SQLite

  private upperDoc(q: PostSearchQuery): number {
    return q.until === null ? DOC_END : docAt(q.until);
  }

  private lowerDoc(q: PostSearchQuery): number {
    return q.since === null ? 0 : docAt(q.since);
  }

  private async searchSqlite(q: PostSearchQuery): Promise<string[]> {
    const plan = sqlitePlan(q.terms, q.excludedTerms, q.orSearch);
    const need = q.offset + q.limit;
    const lower = this.lowerDoc(q);
    let upper = this.upperDoc(q);
    const found: string[] = [];
    let window = Math.min(Math.max(2 * need, MIN_WINDOW), MAX_WINDOW);
    let scanned = 0;
    while (upper > lower && found.length < need && scanned < SEARCH_SCAN_BUDGET) {
      const { sql, bindings } = this.sqliteWindow(q, plan, upper, lower, window, need - found.length);
      let edge: Row | undefined;
      for (const r of (await this.db.raw(sql, bindings as never[])) as Row[]) {
        if (r.id === null) edge = r;
        else found.push(str(r.id));
      }
      // A window with fewer entries than asked for reached the bottom.
      if (!edge || num(edge.n) < window) break;
      scanned += window;
      upper = num(edge.doc);
      window = Math.min(window * 4, MAX_WINDOW);
    }
    return found.slice(q.offset, need);
  }

  /**
   * One window: the `window` newest entries below `upper` (and at or above `lower`) that match the words, then those
   * of them the filters keep, newest first, up to `limit`; and a last row (id NULL) with the window's lowest doc id and
   * its size.
   */
  private sqliteWindow(q: PostSearchQuery, plan: SqlitePlan, upper: number, lower: number, window: number, limit: number): Statement {
    const bindings: unknown[] = [];
    const entries = plan.match
      ? 'SELECT rowid AS doc FROM post_search WHERE post_search MATCH ? AND rowid < ? AND rowid >= ? ORDER BY rowid DESC LIMIT ?'
      : 'SELECT doc_id AS doc FROM post_search_docs WHERE doc_id < ? AND doc_id >= ? ORDER BY doc_id DESC LIMIT ?';
    if (plan.match) bindings.push(plan.match);
    bindings.push(upper, lower, window);

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
        bindings.push(plan.anyOf, upper, lower);
      }
      where.push(`(${any.join(' OR ')})`);
    }
    for (const tag of plan.excludedHashtags) {
      where.push('NOT parley_has_hashtag(p.message, ?)');
      bindings.push(tag);
    }
    if (plan.exclude) {
      where.push('w.doc NOT IN (SELECT rowid FROM post_search WHERE post_search MATCH ? AND rowid < ? AND rowid >= ?)');
      bindings.push(plan.exclude, upper, lower);
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

  /** innodb_ft_min_token_size and innodb_ft_max_token_size: which words the FULLTEXT index holds. Read once. */
  private tokenSizes(): Promise<TokenSizes> {
    const key = this.db.client as object;
    let sizes = tokenSizes.get(key);
    if (!sizes) {
      sizes = (async () => {
        const [[row]] = (await this.db.raw('SELECT @@innodb_ft_min_token_size AS min, @@innodb_ft_max_token_size AS max')) as [Row[]];
        return { min: num(row.min), max: num(row.max) };
      })();
      sizes.catch(() => tokenSizes.delete(key));
      tokenSizes.set(key, sizes);
    }
    return sizes;
  }

  private async searchMysql(q: PostSearchQuery): Promise<string[]> {
    const plan = mysqlPlan(q.terms, q.excludedTerms, q.orSearch, await this.tokenSizes());
    if (plan.impossible) return [];
    const rows = (await this.mysqlQuery(q, plan)) as Row[];
    return rows.map((r) => str(r.id));
  }

  private mysqlQuery(q: PostSearchQuery, plan: MysqlPlan) {
    const against = 'MATCH (p.message) AGAINST (? IN BOOLEAN MODE)';
    const query = this.db('posts as p')
      .select('p.id')
      .where('p.delete_at', 0)
      .whereRaw("SUBSTR(p.type, 1, 7) <> 'system_'")
      .whereIn('p.channel_id', q.channelIds);
    if (plan.against) query.whereRaw(against, [plan.against]);
    if (plan.anyPatterns.length > 0) {
      query.where((w) => {
        if (plan.anyAgainst) w.orWhereRaw(against, [plan.anyAgainst]);
        for (const p of plan.anyPatterns) w.orWhereRaw('p.message REGEXP ?', [p]);
      });
    }
    for (const p of plan.patterns) query.whereRaw('p.message REGEXP ?', [p]);
    for (const p of plan.notPatterns) query.whereRaw('NOT (p.message REGEXP ?)', [p]);
    if (plan.notAgainst) query.whereRaw(`NOT (${against})`, [plan.notAgainst]);
    if (q.userIds) query.whereIn('p.user_id', q.userIds);
    if (q.excludedUserIds.length > 0) query.whereNotIn('p.user_id', q.excludedUserIds);
    if (q.since !== null) query.where('p.create_at', '>=', q.since);
    if (q.until !== null) query.where('p.create_at', '<', q.until);
    if (q.excludedRange) {
      const [a, b] = q.excludedRange;
      query.where((w) => w.where('p.create_at', '<', a).orWhere('p.create_at', '>=', b));
    }
    return query
      .orderBy([
        { column: 'p.create_at', order: 'desc' },
        { column: 'p.id', order: 'desc' },
      ])
      .limit(q.limit)
      .offset(q.offset);
  }
}
