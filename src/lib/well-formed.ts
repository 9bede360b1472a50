/**
 * Lone UTF-16 surrogates (JSON's "\ud800" with no partner) are not text: stored, they become invalid UTF-8, which
 * reads back as three U+FFFD each, so a message at its length limit would read back over it. Go's JSON decoder,
 * and so Mattermost, replaces each with U+FFFD while decoding; this does the same to a parsed JSON value, before
 * anything measures or validates it.
 *
 * Only a "\u" escape can produce a lone surrogate (decoding bytes as UTF-8 never does), so bodies without one of
 * D800-DFFF are returned untouched after one linear scan of the raw text.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

export function mayHoldLoneSurrogates(rawJson: string): boolean {
  return rawJson.includes('\\u') && SURROGATE_ESCAPE.test(rawJson);
}

/** The value with every string (keys included) made well-formed; walks iteratively, so depth cannot overflow. */
export function wellFormedJson<T>(value: T): T {
  const fix = (s: string) => (s.isWellFormed() ? s : s.toWellFormed());
  if (typeof value === 'string') return fix(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const stack: Array<Record<string, unknown> | unknown[]> = [value as Record<string, unknown>];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (typeof v === 'string') node[i] = fix(v);
        else if (v !== null && typeof v === 'object') stack.push(v as Record<string, unknown>);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const v = node[key];
      const k = fix(key);
      if (k !== key) {
        delete node[key];
        node[k] = v;
      }
      if (typeof v === 'string') node[k] = fix(v);
      else if (v !== null && typeof v === 'object') stack.push(v as Record<string, unknown>);
    }
  }
  return value;
}
