// Stored JSON objects read lazily and written as stored (src/lib/raw-json.ts): what a reader sees and what an answer
// holds are exactly what parsing would have given, whatever the text holds.
import { jsonLength, lazyJsonObject, storedJsonObject, stringifyWithRaw } from '../../src/lib/raw-json';

const texts: Array<[string, string]> = [
  ['empty', '{}'],
  ['nested', JSON.stringify({ a: [1, { b: null }], c: 'd', e: true, f: 1.5 })],
  ['spacing kept as stored', '{ "a" : 1 ,"b":[ 2 ] }'],
  ['a __proto__ key', '{"__proto__":{"polluted":true},"x":1}'],
  ['a toJSON key', '{"toJSON":"not a function","y":2}'],
  ['escapes and NUL', JSON.stringify({ s: '\u0000"\\\n\u2028😀', '\u0000k': 1 })],
  ['large', JSON.stringify({ blob: 'z'.repeat(300_000), k: Array.from({ length: 1000 }, (_, i) => i) })],
];

describe('lazyJsonObject', () => {
  test.each(texts)('%s: reads as the parsed object', (_name, text) => {
    const lazy = lazyJsonObject(text);
    const parsed = JSON.parse(text);
    expect(Object.keys(lazy)).toEqual(Object.keys(parsed));
    for (const key of Object.keys(parsed)) expect(lazy[key]).toEqual(parsed[key]);
    expect({ ...lazy }).toEqual({ ...parsed });
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(parsed));
    // A "__proto__" key is an own property; the object's prototype stays Object.prototype.
    expect(Object.getPrototypeOf(lazy)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test.each(texts)('%s: an answer holds the stored text, byte for byte', (_name, text) => {
    const body = { order: ['a'], posts: { a: { id: 'a', message: 'm', props: lazyJsonObject(text) } }, other: lazyJsonObject(text) };
    const out = stringifyWithRaw(body);
    expect(out).toBe(`{"order":["a"],"posts":{"a":{"id":"a","message":"m","props":${text}}},"other":${text}}`);
    expect(JSON.parse(out).posts.a.props).toEqual(JSON.parse(text));
  });

  test('once changed (or looked into), the answer holds the object as it is now', () => {
    const changed = lazyJsonObject('{"a":1}');
    changed.b = 2;
    const removed = lazyJsonObject('{"a":1,"c":3}');
    delete removed.c;
    const read = lazyJsonObject('{ "a" : 1 }');
    expect(read.a).toBe(1);
    expect(stringifyWithRaw([changed, removed, read])).toBe('[{"a":1,"b":2},{"a":1},{"a":1}]');
  });

  // Text shaped like an object is trusted to be JSON: the store writes the column with JSON.stringify only.
  test('text that is not an object is read as before: parsed, and an empty object when it does not parse', () => {
    for (const [text, want] of [
      ['[1,2]', {}],
      ['null', {}],
      ['not json', {}],
      ['', {}],
      ['"s"', {}],
    ] as const) {
      expect(JSON.parse(stringifyWithRaw({ p: lazyJsonObject(text) })).p).toEqual(want);
    }
  });

  test('a user string shaped like a marker is written as a string', () => {
    const marker = '\u00000123456789abcdef01234567:0';
    const out = stringifyWithRaw({ message: marker, props: lazyJsonObject('{"a":1}'), m2: '\u0000:0' });
    expect(JSON.parse(out)).toEqual({ message: marker, props: { a: 1 }, m2: '\u0000:0' });
  });

  test('jsonLength measures the stored text without parsing it, and anything else as JSON', () => {
    expect(jsonLength(lazyJsonObject('{ "a" : 1 }'))).toBe('{ "a" : 1 }'.length);
    expect(jsonLength({ a: 1 })).toBe(7);
    expect(jsonLength('x')).toBe(3);
  });

  test('storedJsonObject: a small text is a plain parsed object, a large one lazy and written as stored', () => {
    const small = storedJsonObject('{ "a" : 1 }');
    expect(small).toEqual({ a: 1 });
    expect(stringifyWithRaw({ p: small })).toBe('{"p":{"a":1}}');
    for (const text of ['[1]', 'null', 'nope', '{"__proto__":{"polluted":true}}']) {
      const v = storedJsonObject(text);
      expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    const bigText = `{ "blob" : ${JSON.stringify('y'.repeat(5000))} }`;
    const big = storedJsonObject(bigText);
    expect(stringifyWithRaw({ p: big })).toBe(`{"p":${bigText}}`);
    expect(big.blob).toBe('y'.repeat(5000));
  });

  test('linear: an answer with 60 props of 240 KB is written in well under a second', () => {
    const text = JSON.stringify(Object.fromEntries(Array.from({ length: 19500 }, (_, i) => [`k${i}`, [1]])));
    const body = { posts: Array.from({ length: 60 }, (_, i) => ({ id: String(i), props: lazyJsonObject(text) })) };
    const start = process.hrtime.bigint();
    const out = stringifyWithRaw(body);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    expect(out.length).toBeGreaterThan(60 * text.length);
    expect(ms).toBeLessThan(1000);
  });
});
