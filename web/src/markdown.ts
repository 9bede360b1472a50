import DOMPurify from 'dompurify';
import { Marked, Tokenizer, type Token, type Tokens } from 'marked';
import { emojiFor } from './emoji';

/**
 * Markdown of posts, cards and attachments → a sanitised DOM fragment. Three layers, each enough on its own for
 * the usual payloads:
 * 1. marked renders raw HTML in the text as escaped text (Mattermost shows `<b>` literally too), so markup typed in
 *    a message never becomes markup;
 * 2. DOMPurify then keeps only an allow-list of the tags Markdown produces, drops every event-handler attribute,
 *    and drops URLs whose scheme is not http(s)/mailto (no `javascript:`, `data:`, `vbscript:`);
 * 3. the page's CSP (`script-src 'self'`) refuses to run any inline script that might still get through.
 * The result is built as DOM nodes, never assigned through innerHTML of a live element, and mentions/emoji are
 * added by splitting text nodes, so no user text is ever parsed as HTML after sanitising.
 *
 * Each render also has a bounded cost, because any channel member chooses the text every viewer's page renders:
 * `marked` and DOMPurify are superlinear on some shapes (`a_a_…` is quadratic to lex, and every level of `> - 1. …`
 * or `**…**` nesting multiplies the work; past ~2,700 levels marked overflows the stack), and a 16,000-character post
 * of them cost 100-700 ms, a channel of 42 of them seconds of frozen page. So:
 * - nesting (lists, quotes, emphasis, strike-through, links) stops at MARKDOWN_LIMITS.nesting levels: deeper markers
 *   stay literal text, so no input reaches marked's deep recursion or DOMPurify's cost on deep trees;
 * - a post, card or attachment is first shown as a preview: at most `previewChars` characters, `previewLines` lines
 *   and `previewDelimiters` span delimiters (`*_~\`[]`) of its text, at most `previewTokens` Markdown tokens
 *   (≈ elements) of output, with "Show more" rendering the whole text on request (the reader asked for that one, and
 *   it is still bounded: `fullChars` of it as Markdown, the rest as plain text);
 * - anything that still throws is shown as plain text, never breaking the list around it.
 * Normal posts (under the preview bounds) render exactly as before.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** What one render may cost (see above). Chosen so that a preview costs a few ms in the worst shapes found. */
export const MARKDOWN_LIMITS = {
  nesting: 12,
  previewChars: 3000,
  previewLines: 50,
  previewTokens: 800,
  previewDelimiters: 300,
  fullChars: 32768,
} as const;

/**
 * marked's tokenizer with a depth count on every construct that lexes its content recursively: past the limit the
 * construct is not recognised (its markers stay text), so the lexer's recursion, and the output's depth, are bounded.
 */
class NestingBoundTokenizer extends Tokenizer {
  private depth = 0;

  private nested<T>(inner: () => T): T | undefined {
    if (this.depth >= MARKDOWN_LIMITS.nesting) return undefined;
    this.depth++;
    try {
      return inner();
    } finally {
      this.depth--;
    }
  }

  override blockquote(src: string) {
    return this.nested(() => super.blockquote(src));
  }
  override list(src: string) {
    return this.nested(() => super.list(src));
  }
  override emStrong(src: string, maskedSrc: string, prevChar?: string) {
    return this.nested(() => super.emStrong(src, maskedSrc, prevChar));
  }
  override del(src: string, maskedSrc: string, prevChar?: string) {
    return this.nested(() => super.del(src, maskedSrc, prevChar));
  }
  override link(src: string) {
    return this.nested(() => super.link(src));
  }
  override reflink(src: string, links: Parameters<Tokenizer['reflink']>[1]) {
    return this.nested(() => super.reflink(src, links));
  }
}

const marked = new Marked({ gfm: true, breaks: true, async: false });
marked.use({
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      const text = escapeHtml(token.text);
      return token.block ? `<p>${text.replace(/\n+$/, '').replace(/\n/g, '<br>')}</p>` : text;
    },
  },
});
// Set as an option, not through use(): use() copies an extension's own fields onto marked's tokenizer, where this is
// a subclass whose methods wrap the originals.
marked.setOptions({ tokenizer: new NestingBoundTokenizer() });

const ALLOWED_TAGS = ['p', 'br', 'strong', 'b', 'em', 'i', 'del', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'img', 'input'];
const ALLOWED_ATTR = ['href', 'title', 'alt', 'src', 'align', 'start', 'type', 'checked', 'disabled', 'class'];

export function safeUrl(url: string | undefined | null, schemes: string[] = ['http:', 'https:', 'mailto:']): string | undefined {
  if (!url) return undefined;
  const trimmed = url.trim();
  if (trimmed.startsWith('/') && !trimmed.startsWith('//')) return trimmed;
  try {
    const parsed = new URL(trimmed);
    return schemes.includes(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** An image URL the page may load: http(s) only. */
export function safeImageUrl(url: unknown): string | undefined {
  return typeof url === 'string' ? safeUrl(url, ['http:', 'https:']) : undefined;
}

// Set once: a config passed to every sanitize() call is parsed again on every call.
DOMPurify.setConfig({ ALLOWED_TAGS, ALLOWED_ATTR, RETURN_DOM_FRAGMENT: true, ALLOW_DATA_ATTR: false });

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  const el = node as Element;
  if (el.tagName === 'A') {
    const href = safeUrl(el.getAttribute('href'));
    if (!href) el.removeAttribute('href');
    else {
      el.setAttribute('href', href);
      if (!href.startsWith('/')) {
        el.setAttribute('target', '_blank');
        el.setAttribute('rel', 'noopener noreferrer nofollow');
      }
    }
  }
  if (el.hasAttribute?.('class') && !(el.tagName === 'CODE' && /^language-[\w-]+$/.test(el.getAttribute('class') ?? ''))) el.removeAttribute('class');
  if (el.tagName === 'INPUT') {
    if (el.getAttribute('type') !== 'checkbox') el.setAttribute('type', 'checkbox');
    el.setAttribute('disabled', '');
  }
});

const SKIP_INSIDE = new Set(['CODE', 'PRE', 'A']);
const TOKEN = /(\B@[a-z0-9][a-z0-9._-]*)|(:[a-z0-9_+-]+:)/gi;
const SPECIAL_MENTIONS = new Set(['channel', 'all', 'here']);

/** Splits text nodes to wrap `@mentions` (the viewer's own, and @channel/@all/@here, marked) and known `:emoji:`. */
function decorate(root: DocumentFragment, me: string): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    let inside = false;
    for (let p = n.parentElement; p; p = p.parentElement) {
      if (SKIP_INSIDE.has(p.tagName)) {
        inside = true;
        break;
      }
    }
    if (!inside && /[@:]/.test(n.nodeValue ?? '')) texts.push(n as Text);
  }
  for (const text of texts) {
    const value = text.nodeValue ?? '';
    const out = document.createDocumentFragment();
    let last = 0;
    let changed = false;
    for (const m of value.matchAll(TOKEN)) {
      const index = m.index ?? 0;
      let node: Node | undefined;
      let length = m[0].length;
      if (m[1]) {
        const name = m[1].slice(1).replace(/[._-]+$/, '');
        length = name.length + 1;
        const span = document.createElement('span');
        const mine = name.toLowerCase() === me.toLowerCase() || SPECIAL_MENTIONS.has(name.toLowerCase());
        span.className = mine ? 'mention mention--me' : 'mention';
        span.textContent = `@${name}`;
        node = span;
      } else {
        const glyph = emojiFor(m[2]);
        if (glyph) {
          const span = document.createElement('span');
          span.className = 'emoji';
          span.setAttribute('role', 'img');
          span.setAttribute('aria-label', m[2]);
          span.title = m[2];
          span.textContent = glyph;
          node = span;
        }
      }
      if (!node) continue;
      out.append(value.slice(last, index), node);
      last = index + length;
      changed = true;
    }
    if (!changed) continue;
    out.append(value.slice(last));
    text.replaceWith(out);
  }
}

function finishImages(root: DocumentFragment): void {
  for (const img of Array.from(root.querySelectorAll('img'))) {
    const src = safeImageUrl(img.getAttribute('src'));
    if (!src) {
      img.replaceWith(document.createTextNode(img.getAttribute('alt') ?? ''));
      continue;
    }
    img.setAttribute('loading', 'lazy');
    img.setAttribute('referrerpolicy', 'no-referrer');
    img.className = 'md-image';
  }
  for (const table of Array.from(root.querySelectorAll('table'))) {
    // Wide tables scroll inside the post instead of widening the page.
    const wrap = document.createElement('div');
    wrap.className = 'md-table';
    table.replaceWith(wrap);
    wrap.append(table);
  }
}

/** Characters that may open or close an inline span: marked looks for each one's partner in the rest of the text. */
const DELIMITER = /[*_~`[\]]/g;

/**
 * The start of `text` a preview renders: `previewChars` characters, `previewLines` lines and `previewDelimiters`
 * span delimiters at most (lexing costs up to delimiters × length: `a_a_…` is quadratic), cut at a line end when one
 * is near (a code block or list is then cut between its lines).
 */
export function previewSource(text: string): { source: string; cut: boolean } {
  const { previewChars, previewLines, previewDelimiters } = MARKDOWN_LIMITS;
  let end = Math.min(text.length, previewChars);
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    if (++lines >= previewLines) {
      end = i;
      break;
    }
  }
  let delimiters = 0;
  DELIMITER.lastIndex = 0;
  for (let m = DELIMITER.exec(text); m && m.index < end; m = DELIMITER.exec(text)) {
    if (++delimiters > previewDelimiters) {
      end = m.index;
      break;
    }
  }
  if (end >= text.length) return { source: text, cut: false };
  const lineEnd = text.lastIndexOf('\n', end);
  end = lineEnd >= end * 0.75 ? lineEnd : codePointBoundary(text, end);
  return { source: text.slice(0, end), cut: true };
}

/** `end`, or one less when it would split a surrogate pair. */
function codePointBoundary(text: string, end: number): number {
  const c = text.charCodeAt(end - 1);
  return c >= 0xd800 && c <= 0xdbff ? end - 1 : end;
}

/**
 * Keeps the first `budget.left` tokens of a token tree in document order (a parent before its children) and drops
 * the rest; true when something was dropped. Table cells and list items count as tokens.
 */
function prune(list: Token[], budget: { left: number }): boolean {
  for (let i = 0; i < list.length; i++) {
    if (budget.left <= 0) {
      list.length = i;
      return true;
    }
    budget.left--;
    if (pruneInside(list[i], budget)) {
      list.length = i + 1;
      return true;
    }
  }
  return false;
}

function pruneInside(token: Token, budget: { left: number }): boolean {
  if (token.type === 'list') return prune((token as Tokens.List).items, budget);
  if (token.type === 'table') {
    const table = token as Tokens.Table;
    const rows = [table.header, ...table.rows];
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      for (let c = 0; c < row.length; c++) {
        const out = budget.left <= 0;
        if (!out) budget.left--;
        if (out || prune(row[c].tokens, budget)) {
          row.length = out ? c : c + 1;
          table.rows = r === 0 ? [] : table.rows.slice(0, row.length ? r : r - 1);
          return true;
        }
      }
    }
    return false;
  }
  const children = (token as { tokens?: unknown }).tokens;
  return Array.isArray(children) ? prune(children as Token[], budget) : false;
}

function plainText(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  const p = document.createElement('p');
  p.className = 'markdown-plain';
  p.textContent = text;
  frag.append(p);
  return frag;
}

export type MarkdownMode = 'preview' | 'full';

export interface RenderedMarkdown {
  fragment: DocumentFragment;
  /** The preview left something out: the caller offers "Show more". */
  truncated: boolean;
}

function build(text: string, me: string, mode: MarkdownMode): { frag: DocumentFragment; truncated: boolean } {
  let source: string;
  let truncated = false;
  if (mode === 'preview') ({ source, cut: truncated } = previewSource(text));
  else source = text.length > MARKDOWN_LIMITS.fullChars ? text.slice(0, codePointBoundary(text, MARKDOWN_LIMITS.fullChars)) : text;
  let frag: DocumentFragment;
  try {
    const tokens = marked.lexer(source);
    if (mode === 'preview' && prune(tokens, { left: MARKDOWN_LIMITS.previewTokens })) truncated = true;
    frag = DOMPurify.sanitize(marked.parser(tokens)) as unknown as DocumentFragment;
    finishImages(frag);
    decorate(frag, me);
  } catch {
    // A shape the bounds above did not foresee must not take the post list down with it: its text, as text.
    frag = plainText(source);
  }
  // Longer than any message (a card or an attachment's props): the rest as plain text, costing one text node.
  if (source.length < text.length && mode === 'full') frag.append(plainText(text.slice(source.length)));
  return { frag, truncated };
}

const cache = new Map<string, { frag: DocumentFragment; truncated: boolean }>();
const CACHE_SIZE = 600;

/**
 * The Markdown as a sanitised fragment (a fresh copy each call), as a bounded preview or in full (see the bounds
 * above). `me` is the viewer's username.
 */
export function renderMarkdown(text: string, me: string, mode: MarkdownMode = 'preview'): RenderedMarkdown {
  const key = `${mode}\u0000${me}\u0000${text}`;
  let entry = cache.get(key);
  if (entry) {
    cache.delete(key);
  } else {
    entry = build(text, me, mode);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, entry);
  return { fragment: entry.frag.cloneNode(true) as DocumentFragment, truncated: entry.truncated };
}

/** Plain text with only `:emoji:` replaced (titles, names): the result is text, never markup. */
export function emojify(text: string): string {
  return text.replace(/:([a-z0-9_+-]+):/gi, (all) => emojiFor(all) ?? all);
}
