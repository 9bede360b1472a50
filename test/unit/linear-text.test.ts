// Every pass over user text is linear in its length (docs/limits.md): adversarial inputs at the size
// limits, each checked for its answer and for finishing within a budget far above what linear code needs. The
// quadratic code these replaced took 10 s to minutes on the same inputs, so the budget cannot flake on a slow machine
// and still catches a regression.
import { parseMentions, type MentionKeys } from '../../src/app/mentions';
import { isValidChannelName, isValidTeamName } from '../../src/app/rules';
import { convertAttachment, convertSlackLinks, convertSlackMentions, referencedUserIds } from '../../src/app/slack';

/** Linear code answers these in a few milliseconds; the old code took at least ten seconds on each failing row. */
const BUDGET_MS = 1000;
/** A webhook text before it is split into posts: the default MaximumPayloadSizeBytes. */
const TEXT = 300_000;
/** An attachment text of the size older posts may still hold (the props limit before security round 3; now 64 KiB): the linear bound must hold far past today's limit. */
const PROPS = 760_000;

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

describe('Slack links are linear', () => {
  test.each<[string, string, boolean, string]>([
    // The finding: the attachment pattern re-read the rest of the text from every "<" when no ">" follows.
    ['attachment: "<a|" repeated', run('', '<a|', PROPS), true, run('', '<a|', PROPS)],
    ['attachment: "<a|" then "<" repeated', run('<a|', '<', PROPS), true, run('<a|', '<', PROPS)],
    ['attachment: "|<a" repeated', run('', '|<a', PROPS), true, run('', '|<a', PROPS)],
    ['attachment: "<a|b\\n" repeated', run('', '<a|b\n', PROPS), true, run('', '<a|b\n', PROPS)],
    ['attachment: "<" repeated', '<'.repeat(PROPS), true, '<'.repeat(PROPS)],
    ['attachment: "<a|" repeated, one ">" at the end: one link', run('', '<a|', PROPS, '>'), true, `[${run('', '<a|', PROPS - 1).slice(3)}](a)`],
    ['attachment: "<a|b>" repeated: every one a link', run('', '<a|b>', PROPS), true, run('', '[b](a)', (PROPS / 5) * 6)],
    ['message: "<a|" repeated', run('', '<a|', TEXT), false, run('', '<a|', TEXT)],
    ['message: "<a|" then "<" repeated', run('<a|', '<', TEXT), false, run('<a|', '<', TEXT)],
    ['message: "<a|b" repeated', run('', '<a|b', TEXT), false, run('', '<a|b', TEXT)],
    ['message: "<a|b>" repeated: every one a link', run('', '<a|b>', TEXT), false, run('', '[b](a)', (TEXT / 5) * 6)],
  ])('%s', (_name, input, forAttachment, want) => {
    const { value, ms } = timed(() => convertSlackLinks(input, forAttachment));
    expect(value).toBe(want);
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  test('convertAttachment: every converted part of a 760 000-character attachment', () => {
    const text = run('', '<a|', PROPS);
    const { value, ms } = timed(() => convertAttachment({ pretext: text, text, title: text, fields: [{ value: text }] }, new Map()));
    expect(value).toEqual({ pretext: text, text, title: text, fields: [{ value: text }] });
    expect(ms).toBeLessThan(BUDGET_MS);
  });
});

describe('Slack mentions are linear', () => {
  const ALICE = 'a1b2c3d4e5f6g7h8i9j0k1l2m3';
  test.each<[string, string]>([
    ['"<@" repeated', '<@'.repeat(TEXT / 2)],
    ['"<@" and 25 id characters, repeated', run('', `<@${'a'.repeat(25)}`, TEXT)],
    ['"<!" repeated', '<!'.repeat(TEXT / 2)],
    ['"<!channel" repeated', run('', '<!channel', TEXT)],
  ])('%s', (_name, input) => {
    const { value, ms } = timed(() => [convertSlackMentions(input, new Map([[ALICE, 'alice']])), referencedUserIds([input])] as const);
    expect(value).toEqual([input, []]);
    expect(ms).toBeLessThan(BUDGET_MS);
  });
});

// The rewritten team and channel name patterns must accept exactly what Mattermost's do: every string up to seven
// characters over letters, digits, the two separators and a character neither allows.
describe('name patterns accept what Mattermost accepts', () => {
  const MATTERMOST_TEAM_NAME = /^[a-z0-9]+([a-z\-0-9]+|(__)?)[a-z0-9]+$/;
  const MATTERMOST_CHANNEL_NAME = /^[a-z0-9]+([a-z\-_0-9]+|(__)?)[a-z0-9]*$/;
  function* strings(alphabet: string[], maxLength: number, prefix = ''): Generator<string> {
    yield prefix;
    if (prefix.length < maxLength) for (const c of alphabet) yield* strings(alphabet, maxLength, prefix + c);
  }
  const alphabet = ['a', '0', '-', '_', '.'];

  test('team names', () => {
    const differ: string[] = [];
    for (const s of strings(alphabet, 7)) {
      // Reserved prefixes are not the pattern's business; "a" is not one of them.
      const want = s.length >= 2 && MATTERMOST_TEAM_NAME.test(s);
      if (isValidTeamName(s) !== want) differ.push(s);
    }
    expect(differ).toEqual([]);
  });

  test('channel names', () => {
    const differ: string[] = [];
    for (const s of strings(alphabet, 7)) if (isValidChannelName(s) !== MATTERMOST_CHANNEL_NAME.test(s)) differ.push(s);
    expect(differ).toEqual([]);
  });
});
