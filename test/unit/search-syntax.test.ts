// The search syntax (src/app/search-syntax.ts) and its translation into each database's query (src/store/search-text.ts),
// table-driven: input → exactly what comes out.
import { dateBounds, parseDay, parseSearchTerms, prefixLength, searchLimitViolation, splitWords, type ParsedSearch } from '../../src/app/search-syntax';
import { SEARCH_LIMITS } from '../../src/model';
import type { SearchTerm } from '../../src/model';
import { SQLITE_CHANNEL_TERMS, ftsString, hasHashtag, innodbTokens, mysqlPlan, sqlitePlan, sqliteWalk, termPattern, type MysqlPlan } from '../../src/store/search-text';

const word = (text: string, extra: Partial<SearchTerm> = {}): SearchTerm => ({ text, phrase: false, prefix: false, hashtag: false, ...extra });
const phrase = (text: string, extra: Partial<SearchTerm> = {}): SearchTerm => word(text, { phrase: true, ...extra });
const prefix = (text: string): SearchTerm => word(text, { prefix: true });
const tag = (text: string): SearchTerm => word(text, { hashtag: true });

const EMPTY: Omit<ParsedSearch, 'parts'> = {
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
};

describe('splitWords', () => {
  test.each<[string, string[]]>([
    ['a b  c', ['a', 'b', 'c']],
    ['  ', []],
    ['say "hello world" now', ['say', '"hello world"', 'now']],
    ['-"left out" in', ['-"left out"', 'in']],
    ['x-"y z"', ['x', '-"y z"']],
    ['"a""b"', ['"a"', '"b"']],
    ['"never closed phrase', ['"never', 'closed', 'phrase']],
    ['tab\tand\nnewline', ['tab', 'and', 'newline']],
  ])('%j', (input, want) => {
    expect(splitWords(input)).toEqual(want);
  });
});

describe('parseSearchTerms', () => {
  test.each<[string, Partial<ParsedSearch>]>([
    ['deploy', { terms: [word('deploy')], parts: 1 }],
    ['deploy service', { terms: [word('deploy'), word('service')], parts: 2 }],
    ['"quick brown fox"', { terms: [phrase('quick brown fox')], parts: 1 }],
    ['"quick bro*"', { terms: [phrase('quick bro', { prefix: true })], parts: 1 }],
    ['deplo*', { terms: [prefix('deplo')], parts: 1 }],
    ['deplo**', { terms: [prefix('deplo')], parts: 1 }],
    ['-staging deploy', { terms: [word('deploy')], excludedTerms: [word('staging')], parts: 2 }],
    ['-"went well"', { excludedTerms: [phrase('went well')], parts: 1 }],
    ['#release', { terms: [tag('release')], parts: 1 }],
    ['##Release', { terms: [tag('release')], parts: 1 }],
    ['-#release', { excludedTerms: [tag('release')], parts: 1 }],
    ['#v2.1-rc', { terms: [tag('v2.1-rc')], parts: 1 }],
    // Not hashtags: a digit first, or a bare "#"; the word is searched without it.
    ['#123', { terms: [word('#123')], parts: 1 }],
    ['#', { parts: 1 }],
    // Surrounding punctuation goes; a trailing star stays (a prefix); inner punctuation stays (the index splits it).
    ['(deploy),', { terms: [word('deploy')], parts: 1 }],
    ['service-12.', { terms: [word('service-12')], parts: 1 }],
    ['...wow!!!', { terms: [word('wow')], parts: 1 }],
    ['*', { parts: 1 }],
    ['* *', { parts: 2 }],
    ['"', { parts: 1 }],
    ['""', { parts: 1 }],
    ['"never closed', { terms: [word('never'), word('closed')], parts: 2 }],
    ['Café', { terms: [word('Café')], parts: 1 }],
    ['日本語', { terms: [word('日本語')], parts: 1 }],
    ['😀 ok', { terms: [word('ok')], parts: 2 }],
    ['from:alice', { fromUsers: ['alice'], parts: 1 }],
    ['FROM:@Alice', { fromUsers: ['alice'], parts: 1 }],
    ['from: alice deploy', { fromUsers: ['alice'], terms: [word('deploy')], parts: 2 }],
    ['-from:bob', { excludedUsers: ['bob'], parts: 1 }],
    ['from:', { parts: 1 }],
    ['in:town-square', { inChannels: ['town-square'], parts: 1 }],
    ['in:~Town-Square channel:off-topic', { inChannels: ['town-square', 'off-topic'], parts: 2 }],
    ['in:@bob', { inChannels: ['@bob'], parts: 1 }],
    ['-in:random', { excludedChannels: ['random'], parts: 1 }],
    ['on:2024-03-10', { onDate: '2024-03-10', parts: 1 }],
    ['after:2024-1-5 before:2024-02-01', { afterDate: '2024-1-5', beforeDate: '2024-02-01', parts: 2 }],
    ['-on:2024-03-10 -after:2024-04-01 -before:2024-01-01', { excludedDate: '2024-03-10', excludedAfterDate: '2024-04-01', excludedBeforeDate: '2024-01-01', parts: 3 }],
    ['on:2024-01-01 on:2024-01-02', { onDate: '2024-01-02', parts: 2 }],
    ['ext:pdf report', { terms: [word('report')], parts: 2 }],
    // A colon that does not name a flag is part of a word.
    ['http://example.com', { terms: [word('http://example.com')], parts: 1 }],
    ['note: deploy', { terms: [word('note'), word('deploy')], parts: 2 }],
    ['"from:alice"', { terms: [phrase('from:alice')], parts: 1 }],
    ['deploy from:alice in:ops -staging "went well" after:2024-01-31', {
      terms: [word('deploy'), phrase('went well')],
      excludedTerms: [word('staging')],
      fromUsers: ['alice'],
      inChannels: ['ops'],
      afterDate: '2024-01-31',
      parts: 6,
    }],
  ])('%j', (input, want) => {
    expect(parseSearchTerms(input)).toEqual({ ...EMPTY, parts: 0, ...want });
  });
});

describe('dates', () => {
  test.each<[string, number | null]>([
    ['2024-03-10', Date.UTC(2024, 2, 10) / 86400000],
    ['2024-3-1', Date.UTC(2024, 2, 1) / 86400000],
    ['2024-02-29', Date.UTC(2024, 1, 29) / 86400000],
    ['2023-02-29', null],
    ['2024-13-01', null],
    ['2024-00-10', null],
    ['24-03-10', null],
    ['2024/03/10', null],
    ['yesterday', null],
  ])('parseDay(%j)', (input, want) => {
    expect(parseDay(input)).toBe(want);
  });

  const utc = (iso: string) => Date.parse(`${iso}Z`);
  test.each<[string, number, { since: number | null; until: number | null; excludedRange: [number, number] | null; empty: boolean }]>([
    ['on:2024-03-10', 0, { since: utc('2024-03-10T00:00'), until: utc('2024-03-11T00:00'), excludedRange: null, empty: false }],
    ['on:2024-03-10', 7200, { since: utc('2024-03-09T22:00'), until: utc('2024-03-10T22:00'), excludedRange: null, empty: false }],
    ['on:2024-03-10', -18000, { since: utc('2024-03-10T05:00'), until: utc('2024-03-11T05:00'), excludedRange: null, empty: false }],
    ['after:2024-03-10', 0, { since: utc('2024-03-11T00:00'), until: null, excludedRange: null, empty: false }],
    ['before:2024-03-10', 3600, { since: null, until: utc('2024-03-09T23:00'), excludedRange: null, empty: false }],
    ['after:2024-03-10 before:2024-03-12', 0, { since: utc('2024-03-11T00:00'), until: utc('2024-03-12T00:00'), excludedRange: null, empty: false }],
    ['after:2024-03-10 before:2024-03-11', 0, { since: utc('2024-03-11T00:00'), until: utc('2024-03-11T00:00'), excludedRange: null, empty: true }],
    // on: wins over after: and before:, as in Mattermost.
    ['on:2024-03-10 after:2024-05-01', 0, { since: utc('2024-03-10T00:00'), until: utc('2024-03-11T00:00'), excludedRange: null, empty: false }],
    ['-after:2024-03-10', 0, { since: null, until: utc('2024-03-11T00:00'), excludedRange: null, empty: false }],
    ['-before:2024-03-10', 0, { since: utc('2024-03-10T00:00'), until: null, excludedRange: null, empty: false }],
    ['-on:2024-03-10', 0, { since: null, until: null, excludedRange: [utc('2024-03-10T00:00'), utc('2024-03-11T00:00')], empty: false }],
    ['after:never', 0, { since: null, until: null, excludedRange: null, empty: true }],
    ['before:never on:never', 0, { since: null, until: null, excludedRange: null, empty: false }],
  ])('%j at offset %i', (input, offset, want) => {
    expect(dateBounds(parseSearchTerms(input), offset)).toEqual(want);
  });
});

// Review round 3, H1 and L5: what a search may ask of the index (a one-letter prefix read every word of it; a NUL cut
// the FTS5 expression short, a 500). Each row: the terms, and the error id they get (null: the search runs).
describe('search limits', () => {
  const TOO_SHORT = 'api.post.search_posts.prefix_too_short.app_error';
  const PREFIXES = 'api.post.search_posts.too_many_prefix_terms.app_error';
  const TERMS = 'api.post.search_posts.too_many_terms.app_error';
  const CONTROL = 'api.post.search_posts.invalid_characters.app_error';
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
  test.each<[string, string | null]>([
    ['deploy', null],
    ['de*', null],
    ['dé*', null],
    ['"quick br*"', null],
    ['ab* cd* ef*', null],
    ['a*', TOO_SHORT],
    ['-a*', TOO_SHORT],
    ['"quick b*"', TOO_SHORT],
    ['a_*', TOO_SHORT],
    ['日*', TOO_SHORT],
    ['日本*', null],
    ['1*', TOO_SHORT],
    ['12*', null],
    ['a*'.repeat(512), TOO_SHORT],
    ['ab* cd* ef* gh*', PREFIXES],
    ['ab* cd* ef* -gh*', PREFIXES],
    [Array.from('abcdefghijklmnopqrstuvwxyz', (l) => `${l}${l}*`).join(' '), PREFIXES],
    [words(16), null],
    [words(17), TERMS],
    [`"${words(16)}"`, null],
    [`"${words(17)}"`, TERMS],
    ['a*'.repeat(511) + 'a', TERMS],
    [`${words(8)} -"${words(9)}"`, TERMS],
    ['#v2.1-rc deploy', null],
    [words(33), TERMS],
    ['hel\u0000lo', CONTROL],
    ['#ta\u0000g', CONTROL],
    ['-ab\u0000c', CONTROL],
    ['bell\u0007 x', CONTROL],
    ['nel\u0085', CONTROL],
    ['del\u007f', CONTROL],
    ['tab\tand\nnew\rline\vand\fform', null],
    ['zero\u200dwidth joiner', null],
  ])('%j', (input, want) => {
    expect(searchLimitViolation(input, parseSearchTerms(input))?.id ?? null).toBe(want);
  });

  test('the limits are the documented ones', () => {
    expect(SEARCH_LIMITS).toMatchObject({ prefixMinChars: 2, prefixTerms: 3, indexWords: 16, parts: 32 });
  });

  test.each<[string, number]>([
    ['de*', 2],
    ['"quick br*"', 2],
    ['ab-c*', 1],
    ['e\u0301*', 1],
  ])('prefix length of %j', (input, n) => {
    expect(prefixLength(parseSearchTerms(input).terms[0])).toBe(n);
  });

  test('linear in the input: 1,024 characters of every shape in well under a second', () => {
    const shapes = ['a*'.repeat(512), '\u0001'.repeat(1024), 'x'.repeat(1023) + '\u0000', '"'.repeat(1024), 'é'.repeat(1024)];
    const started = Date.now();
    for (const input of shapes) {
      for (let i = 0; i < 20; i++) searchLimitViolation(input, parseSearchTerms(input));
    }
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('SQLite walk: the words in the message column, the caller\'s channels in the channel column (migration 012)', () => {
  test.each<[string | null, string[], string | null]>([
    ['"deploy"', ['c1'], '{message} : ("deploy") AND {channel} : ("c1")'],
    ['("a" OR "b") NOT ("c")', ['c1', 'c2'], '{message} : (("a" OR "b") NOT ("c")) AND {channel} : ("c1" OR "c2")'],
    [null, ['c1', 'c2'], '{channel} : ("c1" OR "c2")'],
  ])('%j in %j', (match, channels, want) => {
    expect(sqliteWalk(match, channels)).toBe(want);
  });

  test('past SQLITE_CHANNEL_TERMS channels the channel is checked after the MATCH instead', () => {
    const many = Array.from({ length: SQLITE_CHANNEL_TERMS + 1 }, (_, i) => `c${i}`);
    expect(sqliteWalk('"deploy"', many)).toBe('{message} : ("deploy")');
    expect(sqliteWalk(null, many)).toBeNull();
  });
});

describe('SQLite FTS5 expressions', () => {
  test.each<[string, boolean, string | null]>([
    ['deploy', false, '"deploy"'],
    ['deploy service', false, '"deploy" AND "service"'],
    ['deploy service', true, '"deploy" OR "service"'],
    ['"quick brown"', false, '"quick brown"'],
    ['deplo*', false, '"deplo" *'],
    ['say "he said ""no"""', false, '"say" AND "he said" AND "no"'],
    ['deploy -staging -"went well"', false, '("deploy") NOT ("staging" OR "went well")'],
    ['a b -c', true, '("a" OR "b") NOT ("c")'],
    ['-staging', false, null],
    ['#release', false, '"release"'],
    ['quote"inside', false, '"quote" AND "inside"'],
  ])('%j (or: %s)', (input, or, match) => {
    const p = parseSearchTerms(input);
    expect(sqlitePlan(p.terms, p.excludedTerms, or).match).toBe(match);
  });

  test('a term with quotes in it stays one quoted string', () => {
    expect(ftsString(word('say "hi"'))).toBe('"say ""hi"""');
  });

  test('hashtags are checked on the message; exclusions of filters-only searches are a separate expression', () => {
    const p = parseSearchTerms('#release deploy -#wip');
    expect(sqlitePlan(p.terms, p.excludedTerms, false)).toEqual({ match: '"release" AND "deploy"', exclude: null, hashtags: ['release'], anyHashtags: [], anyOf: null, excludedHashtags: ['wip'] });
    const or = parseSearchTerms('#release deploy');
    expect(sqlitePlan(or.terms, or.excludedTerms, true)).toMatchObject({ match: '"release" OR "deploy"', hashtags: [], anyHashtags: ['release'], anyOf: '"deploy"' });
    const filters = parseSearchTerms('-staging -"went well"');
    expect(sqlitePlan(filters.terms, filters.excludedTerms, false)).toMatchObject({ match: null, exclude: '"staging" OR "went well"' });
  });
});

describe('MariaDB boolean-mode expressions (innodb_ft_min_token_size 3)', () => {
  const sizes = { min: 3, max: 84 };
  const W = '[\\p{L}\\p{N}_]';
  const N = '[^\\p{L}\\p{N}_]';
  const none: MysqlPlan = { impossible: false, against: null, patterns: [], anyAgainst: null, anyPatterns: [], notPatterns: [], notAgainst: null };
  test.each<[string, boolean, Partial<MysqlPlan>]>([
    ['deploy', false, { against: '+deploy' }],
    ['deploy service', false, { against: '+deploy +service' }],
    ['deploy service', true, { against: 'deploy service' }],
    ['deplo*', false, { against: '+deplo*' }],
    ['d*', false, { against: '+d*' }],
    ['"quick brown"', false, { against: '+"quick brown"' }],
    ['service-12', false, { against: '+service', patterns: [`(?i)(?<!${W})service${N}+12(?!${W})`] }],
    ['"to the office"', false, { against: '+the +office', patterns: [`(?i)(?<!${W})to${N}+the${N}+office(?!${W})`] }],
    ['office go', false, { against: '+office', patterns: [`(?i)(?<!${W})go(?!${W})`] }],
    // Nothing the index holds: nothing can be found.
    ['go', false, { impossible: true }],
    ['go to', true, { impossible: true }],
    // OR: a short word adds nothing; a phrase with one is narrowed by its long words and checked.
    ['office go', true, { against: 'office' }],
    ['deploy "go home"', true, { against: 'deploy home', anyAgainst: 'deploy', anyPatterns: [`(?i)(?<!${W})go${N}+home(?!${W})`] }],
    ['deploy -staging -"went well"', false, { against: '+deploy -staging -"went well"' }],
    ['deploy -go', false, { against: '+deploy', notPatterns: [`(?i)(?<!${W})go(?!${W})`] }],
    ['-staging', false, { notAgainst: 'staging' }],
    ['#release', false, { against: '+release', patterns: [`(?i)(?<![\\p{L}\\p{N}_#])#release(?!${W}|[-.][\\p{L}\\p{N}])`] }],
    ['#v2.1', false, { impossible: true }],
    ['Café', false, { against: '+Café' }],
  ])('%j (or: %s)', (input, or, want) => {
    const p = parseSearchTerms(input);
    expect(mysqlPlan(p.terms, p.excludedTerms, or, sizes)).toEqual({ ...none, ...want });
  });

  test('a server indexing every word (innodb_ft_min_token_size=1) needs no pattern', () => {
    const p = parseSearchTerms('office go');
    expect(mysqlPlan(p.terms, p.excludedTerms, false, { min: 1, max: 84 })).toEqual({ ...none, against: '+office +go' });
  });

  test.each<[string, string[]]>([
    ["don't panic", ['don', 't', 'panic']],
    ['fix_it now', ['fix_it', 'now']],
    ['Café-crème', ['Café', 'crème']],
    ['--', []],
  ])('innodbTokens(%j)', (input, want) => {
    expect(innodbTokens(input)).toEqual(want);
  });

  test('term patterns are whole words, in order, the last one open for a prefix', () => {
    const re = (t: SearchTerm) => new RegExp(termPattern(t), 'iu');
    expect(re(phrase('to the office')).test('Go To the office!')).toBe(true);
    expect(re(phrase('to the office')).test('go into the office')).toBe(false);
    expect(re(phrase('to the off', { prefix: true })).test('to the offices')).toBe(true);
    expect(re(word('go')).test('ago')).toBe(false);
  });
});

describe('hashtags in a message', () => {
  test.each<[string, string, boolean]>([
    ['#release notes', 'release', true],
    ['notes #Release.', 'release', true],
    ['the #releases archive', 'release', false],
    ['#release-2 is out', 'release', false],
    ['#release. Next', 'release', true],
    ['a#release', 'release', false],
    ['##release', 'release', false],
    ['release', 'release', false],
    ['#v2.1-rc today', 'v2.1-rc', true],
    ['#v2x1-rc', 'v2.1-rc', false],
  ])('%j has #%s: %s', (message, t, want) => {
    expect(hasHashtag(message, t)).toBe(want);
  });
});

describe('linear in the input', () => {
  // A generous bound: linear code takes a few milliseconds, a quadratic one seconds.
  const BUDGET_MS = 1000;
  const timed = <T>(fn: () => T) => {
    const start = process.hrtime.bigint();
    const value = fn();
    return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
  };
  test.each<[string, string]>([
    ['300 KB of punctuation inside a word', `a${'!'.repeat(300_000)}b`],
    ['300 KB of quotes', '"'.repeat(300_000)],
    ['300 KB of "-"', '-'.repeat(300_000)],
    ['300 KB of "#"', '#'.repeat(300_000)],
    ['a 300 KB would-be hashtag that ends wrong', `#a${'-'.repeat(300_000)}.`],
    ['300 KB of colons', `from${':'.repeat(300_000)}`],
    ['300 KB of words', 'ab '.repeat(100_000)],
  ])('%s', (_name, input) => {
    const { ms } = timed(() => parseSearchTerms(input));
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  test('hashtag check over a 64 KB message of near-misses', () => {
    const { value, ms } = timed(() => hasHashtag('#releasx '.repeat(8000), 'release'));
    expect(value).toBe(false);
    expect(ms).toBeLessThan(BUDGET_MS);
  });
});
