// Every pass over user text is linear in its length (PRODUCT.md, "Limits and abuse"): adversarial inputs at the size
// limits, each checked for its answer and for finishing within a budget far above what linear code needs. The
// quadratic code these replaced took 10 s to minutes on the same inputs, so the budget cannot flake on a slow machine
// and still catches a regression.
import { parseMentions, type MentionKeys } from '../../src/app/mentions';
import { MAX_USER_PROPS_RUNES } from '../../src/app/rules';

/** Linear code answers these in a few milliseconds; the old code took at least ten seconds on each failing row. */
const BUDGET_MS = 1000;
/** A webhook text before it is split into posts: the default MaximumPayloadSizeBytes. */
const TEXT = 300_000;
/** An attachment text inside a post's props. */
const PROPS = MAX_USER_PROPS_RUNES;

function timed<T>(run: () => T): { value: T; ms: number } {
  const start = process.hrtime.bigint();
  const value = run();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/** `unit` repeated up to `size` characters, between `before` and `after`. */
function run(before: string, unit: string, size: number, after = ''): string {
  return before + unit.repeat(Math.floor((size - before.length - after.length) / unit.length)) + after;
}

const keys = (usernames: string[], flags: Partial<Omit<MentionKeys, 'usernames'>> = {}): MentionKeys => ({
  usernames: new Set(usernames),
  channel: false,
  all: false,
  here: false,
  ...flags,
});

describe('parseMentions is linear', () => {
  const dots = run('@a', '.', TEXT, 'b');
  test.each<[string, string[], MentionKeys]>([
    // The finding: the trailing-punctuation trim retried from every character of a run that does not end the word.
    ['"@a", 300 KB of ".", "b"', [dots], keys([dots.slice(1)])],
    ['"@a", 300 KB of "-", "b"', [run('@a', '-', TEXT, 'b')], keys([run('a', '-', TEXT - 1, 'b')])],
    ['"@a", 300 KB of "_", "b"', [run('@a', '_', TEXT, 'b')], keys([run('a', '_', TEXT - 1, 'b')])],
    ['"@a", 300 KB of "._-", "b"', [run('@a', '._-', TEXT, 'b')], keys([run('a', '._-', TEXT - 1, 'b')])],
    ['an attachment text of 760 000 characters: "@a", ".", "b"', ['hi', run('@a', '.', PROPS, 'b')], keys([run('a', '.', PROPS - 1, 'b')])],
    ['a run that does end the word is trimmed', [run('@a', '.', TEXT)], keys([run('a', '.', TEXT - 1), 'a'])],
    ['"@" repeated', ['@'.repeat(TEXT)], keys([])],
    ['" @a" repeated', [run('', ' @a', TEXT)], keys(['a'])],
    ['"@a." repeated', [run('', '@a.', TEXT)], keys(['a.', 'a'])],
    ['a 300 KB username', [run('@', 'a', TEXT)], keys([run('', 'a', TEXT - 1)])],
    ['backticks repeated', [run('@b ', '`', TEXT)], keys(['b'])],
    ['inline code that never closes, repeated', [run('', '`@a\n', TEXT)], keys(['a'])],
    ['an unclosed fence over 300 KB', [run('@b\n```\n', '@a ', TEXT)], keys(['b'])],
    ['"\\n```" repeated', [run('@b', '\n```', TEXT)], keys(['b'])],
    ['"\\n~~~x" repeated', [run('@b', '\n~~~x', TEXT)], keys(['b'])],
    ['"\\n``" repeated', [run('@b', '\n``', TEXT)], keys(['b'])],
    ['a fence opener on the last line', [run('@b\n```', '@a', TEXT)], keys(['b', 'a'])],
  ])('%s', (_name, texts, want) => {
    const { value, ms } = timed(() => parseMentions(texts));
    expect(value).toEqual(want);
    expect(ms).toBeLessThan(BUDGET_MS);
  });
});
