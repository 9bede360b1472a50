// Mattermost's search syntax (model.ParseSearchParams), as a pure function: the terms string of a search becomes words,
// phrases, hashtags and filters. One pass over the input, no backtracking pattern: linear in its length.
import { SEARCH_LIMITS, type SearchTerm } from '../model';

export interface ParsedSearch {
  terms: SearchTerm[];
  excludedTerms: SearchTerm[];
  /** `from:` usernames (lower case, without `@`). */
  fromUsers: string[];
  excludedUsers: string[];
  /** `in:` / `channel:` values (lower case, without `~`): channel names, or `@username` for a direct channel. */
  inChannels: string[];
  excludedChannels: string[];
  /** `YYYY-MM-DD` as typed (checked when turned into times); '' when absent. The last of each kind wins. */
  afterDate: string;
  beforeDate: string;
  onDate: string;
  excludedAfterDate: string;
  excludedBeforeDate: string;
  excludedDate: string;
  /** How many words, phrases and filters the input held (the app bounds it). */
  parts: number;
}

const FLAGS = new Set(['from', 'in', 'channel', 'before', 'after', 'on', 'ext']);

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const SPACE = /\s/u;
// A hashtag as Mattermost recognises one: a letter after the "#", then letters, digits, "-", "_" or ".", ending on a
// letter or digit. Anchored and without nested repetition: one pass.
const HASHTAG = /^#\p{L}[\p{L}\p{N}\-_.]*[\p{L}\p{N}]$/u;

/** Whitespace-separated fields (Go's strings.Fields). */
function fields(text: string): string[] {
  return text.split(/\s+/u).filter((w) => w !== '');
}

/**
 * Splits on whitespace, except that a double-quoted segment stays one word (with its quotes, and with a `-` right
 * before the opening quote, which excludes the phrase). A quote that never closes leaves the rest split as usual.
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let inQuote = false;
  let location = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    if (inQuote) {
      words.push(text.slice(location, i + 1));
      inQuote = false;
      location = i + 1;
    } else {
      const start = i - 1 >= location && text[i - 1] === '-' ? i - 1 : i;
      words.push(...fields(text.slice(location, start)));
      inQuote = true;
      location = start;
    }
  }
  words.push(...fields(text.slice(location)));
  return words;
}

/** Code points of `word` as an array (surrogate pairs kept whole), so trimming never cuts one in two. */
function chars(word: string): string[] {
  return Array.from(word);
}

/**
 * Mattermost's trimming: leading characters that are not letters, digits, spaces, `#` or `"`, and trailing ones that
 * are not letters, digits, spaces, `*` or `"`, go. Two index walks instead of Mattermost's anchored patterns, whose
 * `[...]+$` form retries from every character of a long punctuation run.
 */
function trimPunctuation(word: string): string {
  const cs = chars(word);
  let start = 0;
  while (start < cs.length && !(LETTER_OR_DIGIT.test(cs[start]) || SPACE.test(cs[start]) || cs[start] === '#' || cs[start] === '"')) start++;
  let end = cs.length;
  while (end > start && !(LETTER_OR_DIGIT.test(cs[end - 1]) || SPACE.test(cs[end - 1]) || cs[end - 1] === '*' || cs[end - 1] === '"')) end--;
  let out = cs.slice(start, end).join('');
  // "##tag" is "#tag".
  if (out.startsWith('##')) {
    let hashes = 0;
    while (out[hashes] === '#') hashes++;
    out = `#${out.slice(hashes)}`;
  }
  return out;
}

/** Removes trailing `*`s; says whether there were any. */
function stripStars(text: string): { text: string; prefix: boolean } {
  let end = text.length;
  while (end > 0 && text[end - 1] === '*') end--;
  return { text: text.slice(0, end), prefix: end < text.length };
}

function hasLetterOrDigit(text: string): boolean {
  for (const c of text) if (LETTER_OR_DIGIT.test(c)) return true;
  return false;
}

/** A word (already trimmed) as a term, or null when nothing searchable is left of it ("*", "#", "--"). */
function toTerm(word: string): SearchTerm | null {
  if (word.length >= 2 && word.startsWith('"') && word.endsWith('"')) {
    const { text, prefix } = stripStars(word.slice(1, -1).trim());
    return hasLetterOrDigit(text) ? { text, phrase: true, prefix, hashtag: false } : null;
  }
  if (HASHTAG.test(word)) return { text: word.slice(1).toLowerCase(), phrase: false, prefix: false, hashtag: true };
  // A stray quote (one that never closed) is not part of the word.
  const { text, prefix } = stripStars(word.split('"').join(''));
  return hasLetterOrDigit(text) ? { text, phrase: false, prefix, hashtag: false } : null;
}

function flagValue(name: string, value: string): string {
  const v = value.toLowerCase();
  if (name === 'from') return v.startsWith('@') ? v.slice(1) : v;
  if (name === 'in' || name === 'channel') return v.startsWith('~') ? v.slice(1) : v;
  return v;
}

/** Parses the `terms` of a search request. */
export function parseSearchTerms(input: string): ParsedSearch {
  const out: ParsedSearch = {
    terms: [],
    excludedTerms: [],
    fromUsers: [],
    excludedUsers: [],
    inChannels: [],
    excludedChannels: [],
    afterDate: '',
    beforeDate: '',
    onDate: '',
    excludedAfterDate: '',
    excludedBeforeDate: '',
    excludedDate: '',
    parts: 0,
  };
  const words = splitWords(input);
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    out.parts++;
    const colon = word.indexOf(':');
    if (colon !== -1) {
      const exclude = word.startsWith('-');
      const name = word.slice(exclude ? 1 : 0, colon).toLowerCase();
      if (FLAGS.has(name)) {
        // The value follows the colon, or is the next word ("from: alice"); a flag with no value at all is dropped.
        let value = word.slice(colon + 1);
        if (value === '' && i + 1 < words.length) value = words[++i];
        if (value !== '') addFlag(out, name, flagValue(name, value), exclude);
        continue;
      }
    }
    const exclude = word.startsWith('-');
    const term = toTerm(trimPunctuation(word));
    if (term) (exclude ? out.excludedTerms : out.terms).push(term);
  }
  return out;
}

function addFlag(out: ParsedSearch, name: string, value: string, exclude: boolean): void {
  switch (name) {
    case 'from':
      (exclude ? out.excludedUsers : out.fromUsers).push(value);
      break;
    case 'in':
    case 'channel':
      (exclude ? out.excludedChannels : out.inChannels).push(value);
      break;
    case 'after':
      if (exclude) out.excludedAfterDate = value;
      else out.afterDate = value;
      break;
    case 'before':
      if (exclude) out.excludedBeforeDate = value;
      else out.beforeDate = value;
      break;
    case 'on':
      if (exclude) out.excludedDate = value;
      else out.onDate = value;
      break;
    default:
      // ext: narrows file searches; posts have none to narrow by.
      break;
  }
}

/**
 * Control characters other than the whitespace that separates words (tab, line feed, vertical tab, form feed, carriage
 * return): nothing a person types into a search box, and a NUL cut the full-text expression short (a 500).
 */
const CONTROL = /(?![\t\n\v\f\r])\p{Cc}/u;

/** Words as both indexes cut a term into them (FTS5's unicode61 splits on everything but letters, digits and marks). */
const INDEX_WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const LETTER_DIGIT_OR_PRIVATE = /[\p{L}\p{N}\p{Co}]/u;

export function indexWords(term: SearchTerm): string[] {
  return term.text.match(INDEX_WORD) ?? [];
}

/** Letters and digits of the word a prefix term's `*` follows (its last word; combining marks do not count). */
export function prefixLength(term: SearchTerm): number {
  const words = indexWords(term);
  const last = words.length > 0 ? words[words.length - 1] : '';
  let n = 0;
  for (const c of last) if (LETTER_DIGIT_OR_PRIVATE.test(c)) n++;
  return n;
}

export interface SearchLimitViolation {
  id: string;
  message: string;
}

/**
 * What makes a search too costly (or unreadable) to run, as the error to answer, or null. The bounds keep every search
 * cheap whatever the index holds: a one-letter prefix reads every word of the index, and each prefix term or word of a
 * phrase adds a pass over its posting lists (see SEARCH_LIMITS).
 */
export function searchLimitViolation(input: string, p: ParsedSearch): SearchLimitViolation | null {
  if (CONTROL.test(input)) {
    return { id: 'api.post.search_posts.invalid_characters.app_error', message: 'Search terms may not hold control characters.' };
  }
  if (p.parts > SEARCH_LIMITS.parts) {
    return { id: 'api.post.search_posts.too_many_terms.app_error', message: `A search may hold at most ${SEARCH_LIMITS.parts} words, phrases and filters.` };
  }
  const all = [...p.terms, ...p.excludedTerms];
  const prefixes = all.filter((t) => t.prefix);
  for (const t of prefixes) {
    if (prefixLength(t) < SEARCH_LIMITS.prefixMinChars) {
      return {
        id: 'api.post.search_posts.prefix_too_short.app_error',
        message: `A word searched with * needs at least ${SEARCH_LIMITS.prefixMinChars} letters or digits before the *.`,
      };
    }
  }
  if (prefixes.length > SEARCH_LIMITS.prefixTerms) {
    return { id: 'api.post.search_posts.too_many_prefix_terms.app_error', message: `A search may hold at most ${SEARCH_LIMITS.prefixTerms} words with *.` };
  }
  const words = all.reduce((n, t) => n + indexWords(t).length, 0);
  if (words > SEARCH_LIMITS.indexWords) {
    return { id: 'api.post.search_posts.too_many_terms.app_error', message: `A search may hold at most ${SEARCH_LIMITS.indexWords} words, counting each word of a phrase.` };
  }
  return null;
}

/** Whether the search says anything: terms, exclusions or a filter. */
export function isEmptySearch(p: ParsedSearch): boolean {
  return (
    p.terms.length === 0 &&
    p.excludedTerms.length === 0 &&
    p.fromUsers.length === 0 &&
    p.excludedUsers.length === 0 &&
    p.inChannels.length === 0 &&
    p.excludedChannels.length === 0 &&
    !p.afterDate &&
    !p.beforeDate &&
    !p.onDate &&
    !p.excludedAfterDate &&
    !p.excludedBeforeDate &&
    !p.excludedDate
  );
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `YYYY-MM-DD` (month and day may have one digit, as Mattermost pads them) as a UTC day number, or null. */
export function parseDay(value: string): number | null {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  // Date.UTC rolls 2024-02-30 over into March; Mattermost's time.Parse refuses it.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return Math.floor(t / DAY_MS);
}

export interface DateBounds {
  /** create_at >= since */
  since: number | null;
  /** create_at < until */
  until: number | null;
  excludedRange: [number, number] | null;
  /** The dates leave nothing to find (an unreadable `after:`, or bounds that cross). */
  empty: boolean;
}

/**
 * The dates of a search as times, each day taken in the caller's time zone (`offsetSeconds` east of UTC), as
 * Mattermost does: `on:D` is that day, `after:D` starts the day after D, `before:D` ends the day before D; `-after:D`
 * keeps only posts up to the end of D, `-before:D` only posts from the start of D, `-on:D` leaves D out. With `on:`,
 * `after:` and `before:` are ignored. An unreadable `before:` or `on:` is ignored; an unreadable `after:` means "after
 * today" (Mattermost reads it as now), which nothing matches yet.
 */
export function dateBounds(p: ParsedSearch, offsetSeconds: number): DateBounds {
  const start = (day: number) => day * DAY_MS - offsetSeconds * 1000;
  let since: number | null = null;
  let until: number | null = null;
  let empty = false;
  const narrow = (from: number | null, to: number | null) => {
    if (from !== null) since = since === null ? from : Math.max(since, from);
    if (to !== null) until = until === null ? to : Math.min(until, to);
  };
  const on = p.onDate ? parseDay(p.onDate) : null;
  if (on !== null) {
    narrow(start(on), start(on + 1));
  } else {
    if (p.afterDate) {
      const day = parseDay(p.afterDate);
      if (day === null) empty = true;
      else narrow(start(day + 1), null);
    }
    const before = p.beforeDate ? parseDay(p.beforeDate) : null;
    if (before !== null) narrow(null, start(before));
  }
  const exAfter = p.excludedAfterDate ? parseDay(p.excludedAfterDate) : null;
  if (exAfter !== null) narrow(null, start(exAfter + 1));
  const exBefore = p.excludedBeforeDate ? parseDay(p.excludedBeforeDate) : null;
  if (exBefore !== null) narrow(start(exBefore), null);
  const exOn = p.excludedDate ? parseDay(p.excludedDate) : null;
  const excludedRange: [number, number] | null = exOn !== null ? [start(exOn), start(exOn + 1)] : null;
  if (since !== null && until !== null && since >= until) empty = true;
  return { since, until, excludedRange, empty };
}
