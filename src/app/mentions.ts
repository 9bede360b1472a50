// What a message's text can mention, following Mattermost's rules: @username, @channel, @all, @here and the words
// that users' own mention keys and first names are matched against. Who that reaches is decided in notify-rules.ts.

export interface MentionKeys {
  usernames: Set<string>;
  channel: boolean;
  all: boolean;
  here: boolean;
}

/** A text's words for mention keys: lower-cased (keys match whatever the case) and as written (first names). */
export interface TextWords {
  lower: Set<string>;
  exact: Set<string>;
}

// "@name" counts only at a word start, so "mail@example.com" mentions nobody. Usernames may contain ".-_",
// which also end sentences ("thanks @alice."), so a trailing run of them is tried both kept and trimmed.
// Linear (as every pass over user text must be): the name is one greedy run with nothing after it to backtrack for.
const MENTION = /(?:^|[^a-z0-9_.\-@])@([a-z0-9][a-z0-9._\-]*)/gi;

// Mattermost's word split for mention keys: anything but letters, digits and ":.-_@" separates words. One greedy
// class run, so linear.
const WORD = /[\p{L}\p{N}_.:@-]+/gu;

// A fence opens with 3+ backticks or tildes after at most three spaces (a backtick fence's info string holds no
// backtick) and closes with at least as many of the same character and nothing else on the line (CommonMark).
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/**
 * The text without code: fenced blocks, indented blocks (four spaces or a tab, after a blank line, as CommonMark; a
 * list item's indented continuation is taken for code too) and code spans. Code is quoted, not addressed, so
 * Mattermost finds no mentions in it. One pass over the lines, then one over the backtick runs: linear.
 */
export function withoutCode(text: string): string {
  const blocks = text.includes('```') || text.includes('~~~') || text.includes('    ') || text.includes('\t');
  const noBlocks = blocks ? withoutCodeBlocks(text) : text;
  if (!noBlocks.includes('`')) return noBlocks;
  // Spans are taken within a line, as Mattermost's server did before CommonMark let them run over line ends.
  return noBlocks
    .split('\n')
    .map((line) => (line.includes('`') ? withoutCodeSpans(line) : line))
    .join('\n');
}

function withoutCodeBlocks(text: string): string {
  const out: string[] = [];
  let fence: { ch: string; len: number } | undefined;
  let afterBlank = true;
  let inIndented = false;
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (fence) {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[1][0] === fence.ch && close[1].length >= fence.len) fence = undefined;
      out.push('');
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    // An opener on the last line, with nothing after it, is text (as Mattermost's server reads it).
    if (open && i < lines.length - 1 && !(open[1][0] === '`' && open[2].includes('`'))) {
      fence = { ch: open[1][0], len: open[1].length };
      out.push('');
      afterBlank = false;
      inIndented = false;
      continue;
    }
    const blank = line.trim() === '';
    if (blank) {
      // A blank line neither ends an indented block nor belongs to a paragraph.
      afterBlank = true;
      out.push(line);
      continue;
    }
    if ((afterBlank || inIndented) && (line.startsWith('    ') || line.startsWith('\t') || /^ {1,3}\t/.test(line))) {
      inIndented = true;
      afterBlank = false;
      out.push('');
      continue;
    }
    inIndented = false;
    afterBlank = false;
    out.push(line);
  }
  return out.join('\n');
}

/**
 * Code spans of one line: a run of N backticks up to the next run of exactly N (CommonMark); a run with no partner
 * is literal.
 * The partner of each run is found with one pointer per run length that only moves forward, so the whole pass is
 * linear in the number of runs (a naive search from every unmatched run would be quadratic).
 */
function withoutCodeSpans(text: string): string {
  const runs: Array<{ start: number; len: number }> = [];
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) !== 0x60) {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && text.charCodeAt(j) === 0x60) j++;
    runs.push({ start: i, len: j - i });
    i = j;
  }
  const byLength = new Map<number, number[]>();
  runs.forEach((r, index) => {
    const list = byLength.get(r.len);
    if (list) list.push(index);
    else byLength.set(r.len, [index]);
  });
  const next = new Map<number, number>();
  let out = '';
  let copied = 0;
  for (let k = 0; k < runs.length; ) {
    const { start, len } = runs[k];
    const list = byLength.get(len)!;
    let p = next.get(len) ?? 0;
    while (p < list.length && list[p] <= k) p++;
    next.set(len, p);
    if (p === list.length) {
      k++;
      continue;
    }
    const close = runs[list[p]];
    out += text.slice(copied, start) + ' ';
    copied = close.start + close.len;
    k = list[p] + 1;
  }
  return out + text.slice(copied);
}

// By hand, not /[._\-]+$/: that regex retries from every character of a run of ".-_" that does not reach the
// end ("@a....b"), which is quadratic in the run; a 150 KB one froze the server for half a minute.
function withoutTrailing(word: string, isPunctuation: (c: number) => boolean): string {
  let end = word.length;
  while (end > 0 && isPunctuation(word.charCodeAt(end - 1))) end--;
  return word.slice(0, end);
}

const isNamePunctuation = (c: number) => c === 0x2e /* . */ || c === 0x5f /* _ */ || c === 0x2d /* - */;
const isWordPunctuation = (c: number) => isNamePunctuation(c) || c === 0x3a /* : */;

/** The @-mentions of texts (code left out). */
export function parseMentions(texts: string[]): MentionKeys {
  const keys: MentionKeys = { usernames: new Set(), channel: false, all: false, here: false };
  for (const raw of texts) {
    if (!raw || !raw.includes('@')) continue;
    const text = withoutCode(raw);
    for (const match of text.matchAll(MENTION)) {
      const word = match[1].toLowerCase();
      const trimmed = withoutTrailing(word, isNamePunctuation);
      for (const name of new Set([word, trimmed])) {
        if (name === 'channel') keys.channel = true;
        else if (name === 'all') keys.all = true;
        else if (name === 'here') keys.here = true;
        else if (name) keys.usernames.add(name);
      }
    }
  }
  return keys;
}

/**
 * The words of texts (code left out) that mention keys and first names are looked up in, as Mattermost splits them:
 * each word as written, without its trailing ".-_:", and its parts between ".-:" ("project-x" holds "project").
 * Emoji names (":word:") are not words. Each character lands in a bounded number of entries: linear.
 */
export function textWords(texts: string[]): TextWords {
  const words: TextWords = { lower: new Set(), exact: new Set() };
  const add = (w: string) => {
    if (!w) return;
    words.exact.add(w);
    words.lower.add(w.toLowerCase());
  };
  for (const raw of texts) {
    if (!raw) continue;
    for (const match of withoutCode(raw).matchAll(WORD)) {
      const word = match[0];
      if (word.length > 2 && word.startsWith(':') && word.endsWith(':') && !word.slice(1, -1).includes(':')) continue;
      add(word);
      add(withoutTrailing(word, isWordPunctuation));
      if (/[.:-]/.test(word)) for (const part of word.split(/[.:-]/)) add(part);
    }
  }
  return words;
}
