import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';
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
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
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

const cache = new Map<string, DocumentFragment>();
const CACHE_SIZE = 600;

/** The Markdown as a sanitised fragment (a fresh copy each call). `me` is the viewer's username. */
export function renderMarkdown(text: string, me: string): DocumentFragment {
  const key = `${me}\u0000${text}`;
  let frag = cache.get(key);
  if (frag) {
    cache.delete(key);
  } else {
    const html = marked.parse(text, { async: false });
    frag = DOMPurify.sanitize(html) as unknown as DocumentFragment;
    finishImages(frag);
    decorate(frag, me);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, frag);
  return frag.cloneNode(true) as DocumentFragment;
}

/** Plain text with only `:emoji:` replaced (titles, names): the result is text, never markup. */
export function emojify(text: string): string {
  return text.replace(/:([a-z0-9_+-]+):/gi, (all) => emojiFor(all) ?? all);
}
