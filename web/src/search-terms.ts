/**
 * The words of a search (Mattermost's syntax) that a result is highlighted with: words and quoted phrases, without
 * the filters (`from:`, `in:`, `channel:`, `on:`, `before:`, `after:`), the exclusions (`-word`) and the `*` of a
 * prefix search. No DOM here: unit-tested in Node.
 */
const FILTER = /^-?(from|in|channel|on|before|after):/i;

export interface Highlight {
  text: string;
  /** A prefix search (`deplo*`): any word beginning with the text. */
  prefix: boolean;
}

export function highlightTerms(terms: string): Highlight[] {
  const out: Highlight[] = [];
  const re = /(-?)"([^"]*)"|(\S+)/g;
  for (let m = re.exec(terms); m; m = re.exec(terms)) {
    if (m[2] !== undefined) {
      if (m[1] !== '-' && m[2].trim()) out.push({ text: m[2].trim(), prefix: false });
      continue;
    }
    const word = m[3];
    if (word.startsWith('-') || FILTER.test(word)) continue;
    const prefix = word.endsWith('*');
    const text = word.replace(/\*+$/, '').replace(/^#/, '#');
    if (text) out.push({ text, prefix });
  }
  return out;
}

/** Splits a text into the parts to show plain and the parts to mark, case-insensitively, for the highlights. */
export function markParts(text: string, highlights: Highlight[]): Array<{ text: string; mark: boolean }> {
  if (!highlights.length || !text) return [{ text, mark: false }];
  const escaped = highlights
    .map((h) => h.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+') + (h.prefix ? '[\\p{L}\\p{N}_]*' : ''))
    .sort((a, b) => b.length - a.length);
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${escaped.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  const parts: Array<{ text: string; mark: boolean }> = [];
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '') {
      re.lastIndex++;
      continue;
    }
    if (m.index > last) parts.push({ text: text.slice(last, m.index), mark: false });
    parts.push({ text: m[0], mark: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), mark: false });
  return parts;
}
