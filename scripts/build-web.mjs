// Builds the browser client (web/) into dist/web: one hashed, minified ES module bundle and its CSS, index.html
// pointing at them, and the favicon. Part of `npm run build`; the server serves dist/web at `/`.
//
//   node scripts/build-web.mjs [--quiet] [--out=DIR]   (DIR defaults to dist/web)
//
// Hashed names (app-XXXXXXXX.js) are cached immutably by the server; index.html is always revalidated. No type
// check here (esbuild strips types): `npm run typecheck` checks web/ against generated/api.d.ts.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.find((a) => a.startsWith('--out='));
const OUT = outArg ? join(ROOT, outArg.slice('--out='.length)) : join(ROOT, 'dist', 'web');
const quiet = process.argv.includes('--quiet');

const started = performance.now();
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { app: 'web/src/main.tsx' },
  outdir: OUT,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  splitting: false,
  minify: process.env.PARLEY_WEB_MINIFY !== "0",
  sourcemap: 'linked',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
  tsconfig: 'web/tsconfig.json',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => /^app-[A-Z0-9]+\.js$/.test(f));
const css = outputs.find((f) => /^app-[A-Z0-9]+\.css$/.test(f));
if (!js || !css) throw new Error(`build-web: missing outputs in ${outputs.join(', ')}`);

const html = readFileSync(join(ROOT, 'web', 'index.html'), 'utf8')
  .replace('<!-- APP_CSS -->', `<link rel="stylesheet" href="/${css}" />`)
  .replace('<!-- APP_JS -->', `<script type="module" src="/${js}"></script>`);
writeFileSync(join(OUT, 'index.html'), html);
// The second icon is the tab's while anything is unread (web/src/notify.ts): a file, as the CSP wants no data: icons.
for (const icon of ['favicon.svg', 'favicon-unread.svg']) copyFileSync(join(ROOT, 'web', icon), join(OUT, icon));

const size = (f) => {
  const body = readFileSync(join(OUT, f));
  return { raw: body.length, gz: gzipSync(body, { level: 9 }).length };
};
const s = { js: size(js), css: size(css) };
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
writeFileSync(join(OUT, 'build-info.json'), JSON.stringify({ js, css, bytes: s }, null, 2) + '\n');
if (!quiet) {
  console.log(
    `web client: ${js} ${kb(s.js.raw)} (${kb(s.js.gz)} gzipped), ${css} ${kb(s.css.raw)} (${kb(s.css.gz)} gzipped); ` +
      `total ${kb(s.js.gz + s.css.gz)} gzipped, built in ${Math.round(performance.now() - started)} ms`,
  );
}
