import type { IncomingMessage } from 'node:http';
import { directChannelName, isValidChannelName, isValidEmail, isValidTeamName, isValidUsername } from '../../src/app/rules';
import { parseMentions, type MentionKeys } from '../../src/app/mentions';
import { codePointLength, splitByCodePoints } from '../../src/lib/text';
import { isValidId, newId, sortableId } from '../../src/lib/ids';
import { newPost } from '../../src/app/records';
import { tokenFromRequest } from '../../src/http/auth';

const ID_A = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
const ID_B = 'bbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('isValidUsername', () => {
  test.each<[string, boolean]>([
    ['alice', true],
    ['a', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['', false],
    ['alice.smith', true],
    ['alice-smith', true],
    ['alice_smith', true],
    ['1alice', true],
    ['.', true],
    ['Alice', false],
    ['alice smith', false],
    ['alice@example', false],
    ['alice:remote', false],
    ['alicé', false],
    ['all', false],
    ['channel', false],
    ['matterbot', false],
    ['system', false],
    ['here', true],
    ['allison', true],
    ['systems', true],
  ])('%j → %s', (name, want) => {
    expect(isValidUsername(name)).toBe(want);
  });
});

describe('isValidTeamName', () => {
  test.each<[string, boolean]>([
    ['ab', true],
    ['a', false],
    ['my-team', true],
    ['team2', true],
    ['a__b', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['-team', false],
    ['team-', false],
    ['my_team', false],
    ['My-team', false],
    ['my team', false],
    ['', false],
    ['admin', false],
    ['administrators', false],
    ['api2', false],
    ['signupteam', false],
    ['postal', false],
    ['boards', false],
    ['playbooks-x', false],
    ['myadmin', true],
    ['chan', true],
  ])('%j → %s', (name, want) => {
    expect(isValidTeamName(name)).toBe(want);
  });
});

describe('isValidChannelName', () => {
  test.each<[string, boolean]>([
    ['town-square', true],
    ['a', true],
    ['off_topic', true],
    ['a-', true],
    ['1', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['', false],
    ['-a', false],
    ['_a', false],
    ['Town', false],
    ['town square', false],
    ['town.square', false],
    [`${ID_A}__${ID_B}`, false],
    ['0123456789abcdef0123456789abcdef01234567', false],
    ['0123456789abcdef0123456789abcdef0123456', true],
  ])('%j → %s', (name, want) => {
    expect(isValidChannelName(name)).toBe(want);
  });
});

describe('isValidEmail', () => {
  test.each<[string, boolean]>([
    ['alice@example.com', true],
    ['alice.smith+tag@mail.example.co.uk', true],
    ['a@b.c', true],
    ['alice@localhost', false],
    ['alice', false],
    ['@example.com', false],
    ['alice@', false],
    ['alice@@example.com', false],
    ['al ice@example.com', false],
    ['alice@exa mple.com', false],
    ['alice@example..com', false],
    ['alice@.example.com', false],
    ['alice@example.com.', false],
    ['"alice"@example.com', false],
    ['Alice <alice@example.com>', false],
    ['alice@example.com\n', false],
    ['ali\u0000ce@example.com', false],
    [`${'a'.repeat(116)}@example.com`, true],
    [`${'a'.repeat(117)}@example.com`, false],
  ])('%j → %s', (email, want) => {
    expect(isValidEmail(email)).toBe(want);
  });
});

describe('directChannelName', () => {
  test.each<[string, string, string]>([
    [ID_A, ID_B, `${ID_A}__${ID_B}`],
    [ID_B, ID_A, `${ID_A}__${ID_B}`],
    [ID_A, ID_A, `${ID_A}__${ID_A}`],
  ])('(%s, %s) → %s', (a, b, want) => {
    expect(directChannelName(a, b)).toBe(want);
  });
});

describe('codePointLength', () => {
  test.each<[string, string, number]>([
    ['empty', '', 0],
    ['ascii', 'hello', 5],
    ['latin accents (one UTF-16 unit each)', 'héllo', 5],
    ['emoji (surrogate pair)', '😀', 1],
    ['emoji run', '😀😀😀', 3],
    ['combining mark counts as its own code point', 'e\u0301', 2],
    ['ZWJ family (several code points)', '👨‍👩‍👧', 5],
    ['lone high surrogate', '\ud83d', 1],
    ['lone low surrogate', '\ude00', 1],
    ['high surrogate then ascii', '\ud83dx', 2],
    ['CJK', '漢字', 2],
  ])('%s', (_name, text, want) => {
    expect(codePointLength(text)).toBe(want);
  });
});

describe('splitByCodePoints', () => {
  test.each<[string, string, number, string[]]>([
    ['fits', 'abc', 3, ['abc']],
    ['empty', '', 5, ['']],
    ['exact multiple', 'abcdef', 3, ['abc', 'def']],
    ['remainder', 'abcdefg', 3, ['abc', 'def', 'g']],
    ['one per part', 'abc', 1, ['a', 'b', 'c']],
    ['emoji are never cut', '😀😀😀', 2, ['😀😀', '😀']],
    ['mixed emoji and ascii', 'a😀b😀c', 2, ['a😀', 'b😀', 'c']],
    ['emoji fits by code points, not UTF-16 units', '😀😀', 2, ['😀😀']],
    ['lone surrogate is one code point', 'a\ud83db', 2, ['a\ud83d', 'b']],
  ])('%s', (_name, text, max, want) => {
    const parts = splitByCodePoints(text, max);
    expect(parts).toEqual(want);
    expect(parts.join('')).toBe(text);
    for (const part of parts) expect(codePointLength(part)).toBeLessThanOrEqual(max);
  });

  test('a 16383-code-point limit splits a long emoji message into whole parts', () => {
    const text = '😀'.repeat(16383 * 2 + 5);
    const parts = splitByCodePoints(text, 16383);
    expect(parts.map(codePointLength)).toEqual([16383, 16383, 5]);
    expect(parts.join('')).toBe(text);
  });
});

describe('newId and isValidId', () => {
  test('newId gives 26 characters of the Mattermost alphabet, valid by isValidId, never repeating', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newId();
      expect(id).toMatch(/^[ybndrfg8ejkmcpqxot1uwisza345h769]{26}$/);
      expect(isValidId(id)).toBe(true);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });

  // 128 bits = 25 full characters + 3 bits, shifted left by 2: only alphabet indexes 0, 4, ..., 28 can end an id.
  test('the last character carries only 3 bits, as in base32 of 16 bytes', () => {
    const last = new Set<string>();
    for (let i = 0; i < 2000; i++) last.add(newId()[25]);
    for (const c of last) expect('yrecowah').toContain(c);
  });

  test('sortableId is a valid id that sorts by its time as a string, and differs within one millisecond', () => {
    const times = [0, 1, 31, 32, 1_000_000, 1_764_300_000_000, 1_764_300_000_001, 2 ** 49];
    const ids = times.map((t) => sortableId(t));
    for (const id of ids) expect(isValidId(id)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 500 }, () => sortableId(7))).size).toBe(500);
  });

  test('a new post’s id is valid and sorts by its create_at (posts append to the id index)', () => {
    const posts = Array.from({ length: 20 }, (_, i) => newPost({ user_id: ID_A, channel_id: ID_B, message: 'hi' }, 1_764_300_000_000 + i * i * 997));
    for (const p of posts) expect(isValidId(p.id)).toBe(true);
    expect(posts.map((p) => p.id).sort()).toEqual(posts.map((p) => p.id));
  });

  test.each<[unknown, boolean]>([
    [ID_A, true],
    ['0123456789abcdefghijklmnop', true],
    ['a'.repeat(25), false],
    ['a'.repeat(27), false],
    ['A'.repeat(26), false],
    [`${'a'.repeat(25)}-`, false],
    [`${'a'.repeat(25)}é`, false],
    ['', false],
    ['me', false],
    [undefined, false],
    [null, false],
    [12345678901234567890123456, false],
  ])('isValidId(%j) → %s', (value, want) => {
    expect(isValidId(value)).toBe(want);
  });
});

describe('tokenFromRequest', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  test.each<[string, Record<string, string>, string | null]>([
    ['no headers', {}, null],
    ['Bearer', { authorization: 'Bearer abc' }, 'abc'],
    ['BEARER (Client4)', { authorization: 'BEARER abc' }, 'abc'],
    ['bearer', { authorization: 'bearer abc' }, 'abc'],
    ['Token (OAuth style)', { authorization: 'Token abc' }, 'abc'],
    ['token lower case', { authorization: 'token abc' }, 'abc'],
    ['extra spaces', { authorization: 'Bearer    abc   ' }, 'abc'],
    ['tab separator', { authorization: 'Bearer\tabc' }, 'abc'],
    ['Basic is not a token', { authorization: 'Basic abc' }, null],
    ['scheme only', { authorization: 'Bearer' }, null],
    ['scheme and space only', { authorization: 'Bearer ' }, null],
    ['glued scheme', { authorization: 'Bearerabc' }, null],
    ['two words after the scheme', { authorization: 'Bearer abc def' }, null],
    ['bare token', { authorization: 'abc' }, null],
    ['cookie', { cookie: 'MMAUTHTOKEN=xyz' }, 'xyz'],
    ['cookie among others', { cookie: 'MMUSERID=u; MMAUTHTOKEN=xyz; MMCSRF=c' }, 'xyz'],
    // Unlike Mattermost (cookie first): a client that keeps cookies must still be judged by the token it sends.
    ['header wins over cookie', { cookie: 'MMAUTHTOKEN=xyz', authorization: 'Bearer abc' }, 'abc'],
    ['a header that carries no token leaves the cookie', { cookie: 'MMAUTHTOKEN=xyz', authorization: 'Basic abc' }, 'xyz'],
    ['empty cookie falls back to the header', { cookie: 'MMAUTHTOKEN=', authorization: 'Bearer abc' }, 'abc'],
    ['other cookies only', { cookie: 'MMUSERID=u; other=1', authorization: 'Bearer abc' }, 'abc'],
    ['similar cookie name is not it', { cookie: 'XMMAUTHTOKEN=xyz' }, null],
    ['percent-encoded cookie is decoded', { cookie: 'MMAUTHTOKEN=a%20b' }, 'a b'],
    ['malformed percent-encoding does not throw', { cookie: 'MMAUTHTOKEN=%E0%A4%A' }, '%E0%A4%A'],
  ])('%s', (_name, headers, want) => {
    expect(tokenFromRequest(req(headers))).toBe(want);
  });
});

describe('parseMentions', () => {
  const keys = (usernames: string[], flags: Partial<Omit<MentionKeys, 'usernames'>> = {}): MentionKeys => ({
    usernames: new Set(usernames),
    channel: false,
    all: false,
    here: false,
    ...flags,
  });

  test.each<[string, string[], MentionKeys]>([
    ['no @ at all', ['hello world'], keys([])],
    ['a username', ['hi @alice'], keys(['alice'])],
    ['at the start', ['@alice hi'], keys(['alice'])],
    ['case-insensitive', ['hi @Alice'], keys(['alice'])],
    ['several, across texts', ['@alice and @bob', 'also @carol'], keys(['alice', 'bob', 'carol'])],
    ['trailing sentence dot: both readings', ['thanks @alice.'], keys(['alice.', 'alice'])],
    ['trailing dash and underscore', ['@alice-_'], keys(['alice-_', 'alice'])],
    ['dots inside a username are kept', ['@alice.smith hi'], keys(['alice.smith'])],
    ['an e-mail address is not a mention', ['mail alice@example.com'], keys([])],
    ['apostrophe ends the name', ["@alice's idea"], keys(['alice'])],
    ['in parentheses', ['(@alice)'], keys(['alice'])],
    ['after a comma', ['hi,@alice'], keys(['alice'])],
    ['double @ is not a mention', ['@@alice'], keys([])],
    ['lone @', ['@ alice'], keys([])],
    ['@channel', ['@channel deploy done'], keys([], { channel: true })],
    ['@all', ['@all'], keys([], { all: true })],
    ['@here', ['ping @here!'], keys([], { here: true })],
    ['@here. with punctuation', ['@here.'], keys(['here.'], { here: true })],
    ['@Channel in capitals', ['@CHANNEL'], keys([], { channel: true })],
    ['@channelx is a username', ['@channelx'], keys(['channelx'])],
    ['empty texts', ['', ''], keys([])],
    ['inline code is not a mention', ['run `@alice` then ask @bob'], keys(['bob'])],
    ['a fenced code block is not a mention', ['```\n@alice @channel\n```\nthanks @bob'], keys(['bob'])],
    ['a tilde fence too, with a language', ['~~~sh\necho @alice\n~~~'], keys([])],
    ['an unclosed fence runs to the end', ['@bob\n```\n@alice'], keys(['bob'])],
  ])('%s', (_name, texts, want) => {
    expect(parseMentions(texts)).toEqual(want);
  });
});
