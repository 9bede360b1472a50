// How a parsed search becomes each database's full-text query: pure functions, table-tested in test/unit.
//
// SQLite (FTS5): every term is handed to FTS5 as a quoted string, which FTS5 splits with the index's own tokenizer,
// so a search word is cut into tokens exactly as the messages were (`service-12` is the phrase "service 12").
//
// MySQL/MariaDB (InnoDB FULLTEXT, boolean mode): InnoDB indexes runs of letters, digits and `_` of
// innodb_ft_min_token_size (3) to innodb_ft_max_token_size (84) characters. A term made only of such words is asked
// of the index as it is. Any other term (one with a shorter word, a hashtag) is narrowed by the index through its
// indexable words and then checked exactly with REGEXP on the rows the index found. A term with no indexable word at
// all cannot be looked up: in an AND search (every word must match) it still narrows the others exactly; a search in
// which no term has an indexable word finds nothing on MariaDB (as on Mattermost with MySQL), and in an OR search such
// a term adds nothing. Lowering innodb_ft_min_token_size (and rebuilding the index) lifts this.
import type { SearchTerm } from '../model';

const WORD_CLASS = '[\\p{L}\\p{N}_]';
const NOT_WORD = '[^\\p{L}\\p{N}_]';

// ---------------------------------------------------------------------------------------------------------- SQLite

/** A term as an FTS5 string: quoted (quotes doubled), `*` after it for a prefix. */
export function ftsString(term: SearchTerm): string {
  return `${quoted(term.text)}${term.prefix ? ' *' : ''}`;
}

/**
 * Channels a SQLite search names in its MATCH (`channel : ("id" OR …)`, migration 012), so FTS5 hands back only posts
 * the caller may read. Past this many, opening that many posting lists per statement would cost more than it saves
 * (a caller in that many channels reads much of the index anyway): the channel is checked after the MATCH instead.
 */
export const SQLITE_CHANNEL_TERMS = 500;

/** A string as an FTS5 string literal. */
const quoted = (text: string) => `"${text.split('"').join('""')}"`;

/** An FTS5 expression restricted to the message column (a channel id typed as a word must not match the channel). */
export function inMessage(expression: string): string {
  return `{message} : (${expression})`;
}

/**
 * What a SQLite search walks newest first: its words in the message and the caller's channels in the channel column
 * (both in FTS5, so the index skips what the caller cannot read), or only the channels for a search by filters; null
 * for a search by filters with too many channels to name (it walks the doc table).
 */
export function sqliteWalk(match: string | null, channelIds: string[]): string | null {
  const channels = channelIds.length <= SQLITE_CHANNEL_TERMS ? `{channel} : (${channelIds.map(quoted).join(' OR ')})` : null;
  if (match === null) return channels;
  return channels ? `${inMessage(match)} AND ${channels}` : inMessage(match);
}

export interface SqlitePlan {
  /** The FTS5 expression the search walks (null: a search by filters only). */
  match: string | null;
  /** Filters only, with excluded words: posts matching this are left out. */
  exclude: string | null;
  /** Hashtags every result must carry (AND search). */
  hashtags: string[];
  /** OR search with hashtags: a result carries one of these, or matches `anyOf`. */
  anyHashtags: string[];
  anyOf: string | null;
  excludedHashtags: string[];
}

export function sqlitePlan(terms: SearchTerm[], excluded: SearchTerm[], orSearch: boolean): SqlitePlan {
  const plan: SqlitePlan = { match: null, exclude: null, hashtags: [], anyHashtags: [], anyOf: null, excludedHashtags: [] };
  const excludedWords = excluded.filter((t) => !t.hashtag).map(ftsString);
  plan.excludedHashtags = excluded.filter((t) => t.hashtag).map((t) => t.text);
  const exclusion = excludedWords.length > 0 ? excludedWords.join(' OR ') : null;
  if (terms.length === 0) {
    plan.exclude = exclusion;
    return plan;
  }
  const include = terms.map(ftsString).join(orSearch ? ' OR ' : ' AND ');
  plan.match = exclusion ? `(${include}) NOT (${exclusion})` : include;
  const tags = terms.filter((t) => t.hashtag).map((t) => t.text);
  if (!orSearch) plan.hashtags = tags;
  else if (tags.length > 0) {
    // The word of a hashtag matched, but the post must carry the hashtag, unless another term matched it.
    plan.anyHashtags = tags;
    const others = terms.filter((t) => !t.hashtag).map(ftsString);
    plan.anyOf = others.length > 0 ? others.join(' OR ') : null;
  }
  return plan;
}

// ----------------------------------------------------------------------------------------------------------- MySQL

export interface TokenSizes {
  min: number;
  max: number;
}

/** Words as InnoDB's full-text parser cuts them: runs of letters, digits and `_`. */
export function innodbTokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

function runes(s: string): number {
  return Array.from(s).length;
}

/** A regular expression (PCRE, as MariaDB's REGEXP reads it) for a term's words as whole words, in order. */
export function termPattern(term: SearchTerm): string {
  const tokens = innodbTokens(term.text);
  return `(?<!${WORD_CLASS})${tokens.join(`${NOT_WORD}+`)}${term.prefix ? '' : `(?!${WORD_CLASS})`}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `#tag` as a hashtag in a message (JavaScript and PCRE alike): not inside a longer word or hashtag, and not followed
 * by more of a hashtag (`#tag.x` and `#tag-x` are other hashtags; a sentence's full stop is not).
 */
export function hashtagPattern(tag: string): string {
  return `(?<![\\p{L}\\p{N}_#])#${escapeRegExp(tag)}(?!${WORD_CLASS}|[-.][\\p{L}\\p{N}])`;
}

export interface MysqlPlan {
  /** Nothing can match (no term has a word the index holds). */
  impossible: boolean;
  /** The boolean-mode expression that drives the FULLTEXT index (null: a search by filters only). */
  against: string | null;
  /** Patterns (PCRE, case-insensitive) every result matches. */
  patterns: string[];
  /** OR search: a result matches `anyAgainst` or one of `anyPatterns` (both absent: no such check). */
  anyAgainst: string | null;
  anyPatterns: string[];
  /** Patterns no result matches. */
  notPatterns: string[];
  /** Filters only, with excluded words: posts matching this are left out. */
  notAgainst: string | null;
}

const ci = (pattern: string) => `(?i)${pattern}`;

/** The boolean-mode expression of a term, if the index can answer it exactly. */
function exactExpression(term: SearchTerm, sizes: TokenSizes): string | null {
  if (term.hashtag) return null;
  const tokens = innodbTokens(term.text);
  if (tokens.length === 0) return null;
  const fits = (t: string) => runes(t) >= sizes.min && runes(t) <= sizes.max;
  if (tokens.length === 1) {
    // InnoDB keeps a truncated word whatever its length.
    if (term.prefix) return `${tokens[0]}*`;
    return fits(tokens[0]) ? tokens[0] : null;
  }
  if (term.prefix || !tokens.every(fits)) return null;
  return `"${tokens.join(' ')}"`;
}

/** The words of a term the index can narrow by (the last one truncated for a prefix term). */
function indexableWords(term: SearchTerm, sizes: TokenSizes): string[] {
  const tokens = innodbTokens(term.text);
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (term.prefix && i === tokens.length - 1) out.push(`${t}*`);
    else if (runes(t) >= sizes.min && runes(t) <= sizes.max) out.push(t);
  });
  return out;
}

/** What a term needs checked beyond the index: its words in order, or its hashtag. */
function termCheck(term: SearchTerm): string {
  return ci(term.hashtag ? hashtagPattern(term.text) : termPattern(term));
}

export function mysqlPlan(terms: SearchTerm[], excluded: SearchTerm[], orSearch: boolean, sizes: TokenSizes): MysqlPlan {
  const plan: MysqlPlan = { impossible: false, against: null, patterns: [], anyAgainst: null, anyPatterns: [], notPatterns: [], notAgainst: null };
  const impossible: MysqlPlan = { ...plan, patterns: [], impossible: true };
  const excludedExact: string[] = [];
  for (const t of excluded) {
    const exact = exactExpression(t, sizes);
    if (exact) excludedExact.push(exact);
    else if (innodbTokens(t.text).length > 0) plan.notPatterns.push(termCheck(t));
  }
  const withExclusions = (positive: string[]) => [...positive, ...excludedExact.map((e) => `-${e}`)].join(' ');
  if (terms.length === 0) {
    if (excludedExact.length > 0) plan.notAgainst = excludedExact.join(' ');
    return plan;
  }
  if (!orSearch) {
    const required: string[] = [];
    for (const t of terms) {
      const exact = exactExpression(t, sizes);
      if (exact) {
        required.push(`+${exact}`);
      } else {
        required.push(...indexableWords(t, sizes).map((w) => `+${w}`));
        plan.patterns.push(termCheck(t));
      }
    }
    if (required.length === 0) return impossible;
    plan.against = withExclusions(required);
    return plan;
  }
  const exact: string[] = [];
  const narrowing: string[] = [];
  for (const t of terms) {
    const e = exactExpression(t, sizes);
    if (e) {
      exact.push(e);
      continue;
    }
    const words = indexableWords(t, sizes);
    // A term the index cannot find at all adds nothing to an OR search.
    if (words.length === 0) continue;
    narrowing.push(...words);
    plan.anyPatterns.push(termCheck(t));
  }
  if (exact.length === 0 && narrowing.length === 0) return impossible;
  plan.against = withExclusions([...exact, ...narrowing]);
  if (plan.anyPatterns.length > 0) plan.anyAgainst = exact.length > 0 ? exact.join(' ') : null;
  return plan;
}

// ------------------------------------------------------------------------------------------- SQLite's REGEXP twin

const compiled = new Map<string, RegExp>();

/** Whether a message carries `#tag` (the SQLite function parley_has_hashtag; MariaDB runs hashtagPattern itself). */
export function hasHashtag(message: string, tag: string): boolean {
  let re = compiled.get(tag);
  if (!re) {
    re = new RegExp(hashtagPattern(tag), 'iu');
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(tag, re);
  }
  return re.test(message);
}
