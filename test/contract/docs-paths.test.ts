// The documentation names files and links pages: every repository path it puts in backticks and every relative
// link it makes must exist, so a moved or deleted file shows up here instead of in a reader's dead end.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const pages = ['README.md', 'BENCHMARKS.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Top-level folders of the repository: a backticked word starting with one of them is a path. */
const TOP = ['src/', 'test/', 'web/', 'scripts/', 'openapi/', 'docs/', 'generated/', '.ci/', 'examples/'];

/** Backticked repository paths of a page, without placeholders (`<area>`, `*`, `{id}`) or line suffixes. */
function backtickedPaths(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    const word = match[1].trim();
    if (!TOP.some((t) => word.startsWith(t)) || /[<>*{}$\s|]/.test(word)) continue;
    found.push(word.replace(/:\d+(-\d+)?$/, '').replace(/#.*$/, ''));
  }
  return found;
}

/** Relative link targets of a page (not web addresses, not anchors within it). */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith('#')).map((t) => t.replace(/#.*$/, ''));
}

describe.each(pages)('%s', (page) => {
  const text = readFileSync(join(root, page), 'utf8');

  test('every backticked repository path exists', () => {
    const missing = backtickedPaths(text).filter((p) => !existsSync(join(root, p)));
    expect(missing).toEqual([]);
  });

  test('every relative link points at a file that exists', () => {
    const missing = relativeLinks(text).filter((t) => !existsSync(resolve(root, dirname(page), t)));
    expect(missing).toEqual([]);
  });

  test('every link to a heading of another page finds that heading', () => {
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)#\s]+\.md)#([a-z0-9-]+)\)/g)) {
      const target = resolve(root, dirname(page), m[1]);
      if (!existsSync(target)) continue;
      const slugs = [...readFileSync(target, 'utf8').matchAll(/^#+ (.+)$/gm)].map((h) => h[1].toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-'));
      if (!slugs.includes(m[2])) broken.push(`${m[1]}#${m[2]}`);
    }
    expect(broken).toEqual([]);
  });
});

test('the checks see paths at all (a page naming no file would pass vacuously)', () => {
  const all = pages.flatMap((p) => backtickedPaths(readFileSync(join(root, p), 'utf8')));
  expect(all.length).toBeGreaterThan(50);
  expect(backtickedPaths('see `src/nowhere.ts` and `src/<area>.ts`')).toEqual(['src/nowhere.ts']);
});
