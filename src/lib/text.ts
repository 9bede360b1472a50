/** Length in Unicode code points (Go's rune count), which is how Mattermost measures every text limit. */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low surrogate is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Splits text into chunks of at most `max` code points, never cutting a surrogate pair. */
export function splitByCodePoints(text: string, max: number): string[] {
  if (codePointLength(text) <= max) return [text];
  const parts: string[] = [];
  let start = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let width = 1;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) width = 2;
    }
    if (count === max) {
      parts.push(text.slice(start, i));
      start = i;
      count = 0;
    }
    count++;
    i += width - 1;
  }
  parts.push(text.slice(start));
  return parts;
}
