// What one Markdown render may cost (web/src/markdown.ts): the client's renderer, bundled as it is for the page, run
// in Chromium (DOMPurify needs a real DOM) on the review's adversarial payloads (finding L8) and on shapes of the
// same family. Asserted on the output, not on time: a preview is truncated, its elements and depth stay under the
// bounds, nothing throws; normal text renders exactly as marked + DOMPurify always rendered it; "Show more" (the
// full render) shows the whole text.
import type { Page } from 'playwright-core';
import { describeBrowser } from '../support/browser';
import { useProbePage } from '../support/web-render';

let page: () => Page;

interface Shape {
  truncated: boolean;
  elements: number;
  depth: number;
  text: string;
  html: string;
}

const N = 16000;
/** The review's three payloads, then shapes found while fixing it (nesting made marked overflow its stack past ~2,700 levels). */
const ADVERSARIAL: Record<string, string> = {
  'a_ (quadratic emphasis scan)': 'a_'.repeat(N / 2),
  '1. (nested ordered lists)': '1. '.repeat(5333),
  '*a (emphasis delimiters)': '*a'.repeat(N / 2),
  '- * + (nested bullet lists)': '- * + '.repeat(N / 6),
  '> (nested quotes)': '> '.repeat(N / 2),
  '> - 1. (mixed nesting)': '> - 1. '.repeat(N / 7),
  '** (nested strong)': `${'**'.repeat(N / 4)}a${'**'.repeat(N / 4)}`,
  '*_ (nested emphasis)': `${'*_'.repeat(N / 4)}a${'_*'.repeat(N / 4)}`,
  '~~* (nested strike-through)': `${'~~*'.repeat(N / 6)}a${'*~~'.repeat(N / 6)}`,
  '[ (nested link text)': `${'['.repeat(N / 2 - 10)}a](b)`,
  'a wide table': `${'|a'.repeat(N / 4)}\n${'|-'.repeat(N / 4)}\n${'|b'.repeat(N / 4)}`,
  'a long table': `|a|b|\n|-|-|\n${'|x|y|\n'.repeat(2500)}`,
  'many lines': 'a\n'.repeat(N / 2),
  'indented lists': (() => {
    let s = '';
    for (let i = 0; s.length < N; i++) s += `${' '.repeat(i * 2)}- x\n`;
    return s;
  })(),
};

/** Elements one preview may hold, and how deep any render may nest (two elements per level: <ol><li>, <blockquote><p>). */
const MAX_PREVIEW_ELEMENTS = 1000;
const MAX_DEPTH = 32;

async function shape(text: string, mode: 'preview' | 'full' = 'preview'): Promise<Shape> {
  return page().evaluate(([t, m]) => (globalThis as unknown as { shape(t: string, m: string): Shape }).shape(t, m), [text, mode] as const);
}

async function limits(): Promise<{ nesting: number; previewChars: number; previewLines: number; previewTokens: number; fullChars: number }> {
  return page().evaluate('window.limits');
}

describeBrowser('web client: bounded Markdown rendering', () => {
  // The renderer as the client bundles it, plus a probe that measures what it produced.
  ({ page } = useProbePage(
    `
    import { renderMarkdown, MARKDOWN_LIMITS } from './web/src/markdown';
    window.limits = MARKDOWN_LIMITS;
    window.shape = (text, mode) => {
      const r = renderMarkdown(text, 'alice', mode);
      let elements = 0, depth = 0;
      const walker = document.createTreeWalker(r.fragment, NodeFilter.SHOW_ELEMENT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        elements++;
        let d = 0;
        for (let p = n; p && p !== r.fragment; p = p.parentNode) d++;
        depth = Math.max(depth, d);
      }
      const div = document.createElement('div');
      div.append(r.fragment);
      return { truncated: r.truncated, elements, depth, text: div.textContent, html: div.innerHTML };
    };
  `,
    'probe.ts',
  ));

  test.each(Object.entries(ADVERSARIAL))('%s: the preview is truncated and bounded, the full render bounded in depth', async (_name, payload) => {
    const preview = await shape(`${payload} END`);
    process.stderr.write(`BOUNDS ${_name} ${preview.elements} ${preview.depth}\n`);
    expect(preview.truncated).toBe(true);
    expect(preview.text).not.toContain('END');
    // What a post may put on the page before "Show more": fixed figures, not the module's constants, so that
    // loosening a bound fails here.
    expect(preview.elements).toBeLessThanOrEqual(MAX_PREVIEW_ELEMENTS);
    expect(preview.depth).toBeLessThanOrEqual(MAX_DEPTH);
    // The full render is Markdown (not the plain-text fallback for a render that threw), bounded in depth.
    const full = await shape(`${payload} END`, 'full');
    expect(full.truncated).toBe(false);
    expect(full.html.includes('markdown-plain')).toBe(false);
    expect(full.depth).toBeLessThanOrEqual(MAX_DEPTH);
    expect(full.text).toContain('END');
  });

  // Given/want: the HTML the renderer produced for these before the bounds (taken from the previous version).
  test('normal posts render exactly as before: no truncation, the same HTML', async () => {
    const cases: Array<[string, string]> = [
      ["Good morning! :wave: The **2.4 release** is planned for Thursday.\n\n1. Code freeze at noon\n2. QA sign-off\n3. Ship it :rocket:","<p>Good morning! <span class=\"emoji\" role=\"img\" aria-label=\":wave:\" title=\":wave:\">👋</span> The <strong>2.4 release</strong> is planned for Thursday.</p>\n<ol>\n<li>Code freeze at noon</li>\n<li>QA sign-off</li>\n<li>Ship it <span class=\"emoji\" role=\"img\" aria-label=\":rocket:\" title=\":rocket:\">🚀</span></li>\n</ol>\n"],
      ["@alice please read `docs/release.md` before then, and [the plan](https://example.com/plan) or [home](/team-a).","<p><span class=\"mention mention--me\">@alice</span> please read <code>docs/release.md</code> before then, and <a href=\"https://example.com/plan\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">the plan</a> or <a href=\"/team-a\">home</a>.</p>\n"],
      ["```sql\nSELECT count(*) FROM posts WHERE delete_at = 0;\n```","<pre><code class=\"language-sql\">SELECT count(*) FROM posts WHERE delete_at = 0;\n</code></pre>\n"],
      ["> quoted\n> - with a list\n>   - nested *twice*\n>     1. and ~~thrice~~ **_deep_**","<blockquote>\n<p>quoted</p>\n<ul>\n<li>with a list<ul>\n<li>nested <em>twice</em><ol>\n<li>and <del>thrice</del> <strong><em>deep</em></strong></li>\n</ol>\n</li>\n</ul>\n</li>\n</ul>\n</blockquote>\n"],
      ["| Service | Version |\n|---|---|\n| api | 2.4.0 |","<div class=\"md-table\"><table>\n<thead>\n<tr>\n<th>Service</th>\n<th>Version</th>\n</tr>\n</thead>\n<tbody><tr>\n<td>api</td>\n<td>2.4.0</td>\n</tr>\n</tbody></table></div>\n"],
      ["- [x] done\n- [ ] todo <b>raw</b>","<ul>\n<li><input checked=\"\" disabled=\"\" type=\"checkbox\"> done</li>\n<li><input disabled=\"\" type=\"checkbox\"> todo &lt;b&gt;raw&lt;/b&gt;</li>\n</ul>\n"],
    ];
    for (const [text, want] of cases) {
      const got = await shape(text);
      expect(got.truncated).toBe(false);
      expect(got.html).toBe(want);
    }
  });

  test('a preview stops at its character and line bounds, at a line end when one is near', async () => {
    const { previewChars, previewLines } = await limits();
    const lines = Array.from({ length: previewLines + 10 }, (_, i) => `line ${i}`).join('\n');
    const byLines = await shape(lines);
    expect(byLines.truncated).toBe(true);
    expect(byLines.text).toContain(`line ${previewLines - 1}`);
    expect(byLines.text).not.toContain(`line ${previewLines}`);
    const paragraph = `${'word '.repeat(previewChars / 5 - 10)}\n${'tail '.repeat(40)}`;
    const byChars = await shape(paragraph);
    expect(byChars.truncated).toBe(true);
    expect(byChars.text).not.toContain('tail');
    // Never half of a surrogate pair.
    const emoji = await shape('😀'.repeat(previewChars));
    expect(emoji.truncated).toBe(true);
    expect(emoji.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  test('a card longer than any message: the full render shows the rest as plain text', async () => {
    const { fullChars } = await limits();
    const card = `${'**bold** '.repeat(Math.ceil(fullChars / 9) + 100)}<b>END</b>`;
    const full = await shape(card, 'full');
    // The first fullChars characters as Markdown (bold text), the rest as typed (the markers and the tag as text).
    expect(full.html.startsWith('<p><strong>bold</strong> <strong>bold</strong>')).toBe(true);
    expect(full.text.endsWith('**bold** **bold** <b>END</b>')).toBe(true);
    expect(full.text.slice(0, 100).includes('**')).toBe(false);
  });
});
