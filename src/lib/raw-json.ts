import { randomBytes } from 'node:crypto';

// A post's props are stored as JSON text and may be large (older posts: up to 760,000 characters). Parsing them on
// every read and serialising them again for the answer cost seconds of blocked event loop for one page of such posts
// (review round 3, H3). So a read gives them as a lazy object: it behaves as the parsed object wherever code looks
// into it (parsed on first use), and the one writer of answers (stringifyWithRaw) copies the stored text as it is.

const RAW = Symbol('raw-json');

/**
 * The serialisation in progress in stringifyWithRaw (JSON.stringify is synchronous: one at a time). Its tag is drawn
 * when the first stored text is met: most answers hold none.
 */
let sink: { raws: string[]; tag: string } | undefined;

/**
 * Stored texts up to this length are parsed at once (stored JSON object columns): a proxy per small object costs more
 * than the parse, and an answer without proxies is one JSON.stringify and one write. A page of 60 posts with small
 * props went from ~1,550 to ~1,300 µs of CPU.
 */
const EAGER_CHARS = 1024;

/** A stored JSON object as a plain object (an unparsable or non-object text is an empty one, as before). */
function parseObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A JSON object stored as text, as an object that parses it on first use. Until then (and as long as nobody looked
 * into it or changed it) stringifyWithRaw writes the text itself. The text must come from JSON.stringify of an object
 * (every stored props value does); anything else is parsed at once, like before.
 */
export function lazyJsonObject(text: string): Record<string, unknown> {
  if (text.length < 2 || text.charCodeAt(0) !== 0x7b || text.charCodeAt(text.length - 1) !== 0x7d) return parseObject(text);
  const target: Record<string, unknown> = {};
  let raw: string | undefined = text;
  const parsed = (): Record<string, unknown> => {
    if (raw !== undefined) {
      // Own data properties, one by one: assigning would let a "__proto__" key replace the object's prototype.
      for (const [key, value] of Object.entries(parseObject(raw))) {
        Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
      }
      raw = undefined;
    }
    return target;
  };
  function toJSON(): unknown {
    if (raw === undefined) return parsed();
    if (!sink) return parsed();
    if (sink.raws.length === 0) sink.tag = `\u0000${randomBytes(12).toString('hex')}:`;
    sink.raws.push(raw);
    return `${sink.tag}${sink.raws.length - 1}`;
  }
  return new Proxy(target, {
    get: (_t, key) => (key === RAW ? raw : key === 'toJSON' && raw !== undefined ? toJSON : Reflect.get(parsed(), key)),
    set: (_t, key, value) => Reflect.set(parsed(), key, value),
    has: (_t, key) => Reflect.has(parsed(), key),
    ownKeys: () => Reflect.ownKeys(parsed()),
    getOwnPropertyDescriptor: (_t, key) => Reflect.getOwnPropertyDescriptor(parsed(), key),
    defineProperty: (_t, key, descriptor) => Reflect.defineProperty(parsed(), key, descriptor),
    deleteProperty: (_t, key) => Reflect.deleteProperty(parsed(), key),
  });
}

/**
 * A stored JSON object column as read: small texts parsed at once (EAGER_CHARS), larger ones as a lazy object.
 * Either way an unparsable or non-object text is an empty object.
 */
export function storedJsonObject(text: string): Record<string, unknown> {
  return text.length <= EAGER_CHARS ? parseObject(text) : lazyJsonObject(text);
}

/** The length in UTF-16 units of a value as JSON; a lazy object's stored text is measured without parsing it. */
export function jsonLength(value: unknown): number {
  const raw = value !== null && typeof value === 'object' ? (value as { [RAW]?: string })[RAW] : undefined;
  return raw !== undefined ? raw.length : (JSON.stringify(value) ?? '').length;
}

/**
 * JSON.stringify, with every untouched lazy object written as its stored text. Each one is first written as a marker
 * string carrying a random tag made for this call, then replaced in one linear pass; a string a user wrote cannot be
 * taken for a marker (it would have to hold the tag, which never leaves the process).
 */
export function stringifyWithRaw(value: unknown): string {
  return stringifyParts(value).join('');
}

/**
 * stringifyWithRaw as the pieces whose concatenation it is (the JSON around the stored texts, and the stored texts),
 * so a large answer can be written piece by piece without first building it as one string.
 */
export function stringifyParts(value: unknown): string[] {
  const current = { raws: [] as string[], tag: '' };
  sink = current;
  let out: string;
  try {
    out = JSON.stringify(value) ?? '';
  } finally {
    sink = undefined;
  }
  if (current.raws.length === 0) return [out];
  // The marker as JSON.stringify writes it: quoted, with U+0000 escaped as \u0000.
  const marker = new RegExp(`"\\\\u0000${current.tag.slice(1)}(\\d+)"`, 'g');
  const parts: string[] = [];
  let from = 0;
  for (const m of out.matchAll(marker)) {
    parts.push(out.slice(from, m.index), current.raws[Number(m[1])]);
    from = (m.index ?? 0) + m[0].length;
  }
  parts.push(out.slice(from));
  return parts;
}
