#!/usr/bin/env node
// Builds generated/ from the hand-written spec in openapi/:
//   generated/openapi.json  the spec bundled into one file by @redocly/cli
//   generated/api.d.ts      TypeScript types derived from that bundle by openapi-typescript
//   generated/docs.html     the HTML API reference the server serves at /api/v4/docs (Redoc, loaded from the
//                           server itself, never from a CDN, with a plain operation index for no-script readers)
//
//   node scripts/gen.mjs           write both files
//   node scripts/gen.mjs --check   write nothing; exit 1 naming every file that differs from what the spec
//                                  produces (CI uses this to catch a spec change committed without `npm run gen`)
//
// Output must be byte-for-byte reproducible, so the check can compare files exactly: no timestamps, no absolute
// paths, fixed key order, fixed formatting.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import openapiTS, { astToString } from 'openapi-typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const specEntry = join(root, 'openapi', 'openapi.yaml');
const outDir = join(root, 'generated');
const bundlePath = join(outDir, 'openapi.json');
const typesPath = join(outDir, 'api.d.ts');
const docsPath = join(outDir, 'docs.html');

const GENERATED_NOTE = 'DO NOT EDIT: generated from openapi/ by npm run gen';
const TYPES_BANNER = `/* ${GENERATED_NOTE}. */\n`;

function fail(message) {
  process.stderr.write(`gen: ${message}\n`);
  process.exit(2);
}

// Resolve the CLI through its package.json: the package is ESM-only and exports no "main", so the bin path is
// the stable entry point. Running it with the current node avoids npx and its network look-ups.
function redoclyBin() {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('@redocly/cli/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.redocly;
  return join(dirname(pkgPath), bin);
}

function bundleSpec() {
  const tmp = mkdtempSync(join(tmpdir(), 'parley-gen-'));
  try {
    const out = join(tmp, 'openapi.json');
    const result = spawnSync(
      process.execPath,
      [redoclyBin(), 'bundle', relative(root, specEntry), '--output', out, '--ext', 'json'],
      { cwd: root, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    if (result.status !== 0 || !existsSync(out)) {
      process.stderr.write(result.stdout ?? '');
      process.stderr.write(result.stderr ?? '');
      fail(`redocly bundle failed (exit ${result.status})`);
    }
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The marker goes first so that anyone opening the file sees it before anything else.
function markBundle(bundle) {
  const { openapi, ...rest } = bundle;
  return { openapi, 'x-generated': GENERATED_NOTE, ...rest };
}

async function renderTypes(bundle) {
  // The bundle has no external $refs left, so openapi-typescript resolves nothing from disk.
  const ast = await openapiTS(structuredClone(bundle), { silent: true });
  return TYPES_BANNER + astToString(ast);
}

const escapeHtml = (text) =>
  String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

// The viewer script and the spec are served by Parley itself (see src/http/docs.ts), so the page works offline.
function renderDocs(bundle) {
  const rows = [];
  for (const [path, item] of Object.entries(bundle.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method];
      if (!op) continue;
      rows.push(
        `      <tr><td>${method.toUpperCase()}</td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(op.operationId)}</td><td>${escapeHtml(op.summary)}</td></tr>`,
      );
    }
  }
  const title = escapeHtml(bundle.info?.title ?? 'API reference');
  return `<!DOCTYPE html>
<!-- ${GENERATED_NOTE}. -->
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title} reference</title>
  <style>body { margin: 0; font-family: sans-serif; } noscript table { border-collapse: collapse; margin: 1em; } noscript td { border: 1px solid #ccc; padding: 4px 8px; }</style>
</head>
<body>
  <redoc spec-url="/api/v4/openapi.json"></redoc>
  <noscript>
    <h1>${title} ${escapeHtml(bundle.info?.version)}</h1>
    <p>The machine-readable spec is at <a href="/api/v4/openapi.json">/api/v4/openapi.json</a>.</p>
    <table>
      <tr><th>Method</th><th>Path</th><th>operationId</th><th>Summary</th></tr>
${rows.join('\n')}
    </table>
  </noscript>
  <script src="/api/v4/docs/redoc.standalone.js"></script>
</body>
</html>
`;
}

async function build() {
  const bundle = markBundle(bundleSpec());
  return new Map([
    [bundlePath, `${JSON.stringify(bundle, null, 2)}\n`],
    [typesPath, await renderTypes(bundle)],
    [docsPath, renderDocs(bundle)],
  ]);
}

async function main() {
  const check = process.argv.includes('--check');
  const unknown = process.argv.slice(2).filter((arg) => arg !== '--check');
  if (unknown.length > 0) fail(`unknown argument(s): ${unknown.join(' ')}`);

  const files = await build();

  if (check) {
    const stale = [];
    for (const [path, content] of files) {
      const current = existsSync(path) ? readFileSync(path, 'utf8') : null;
      if (current !== content) stale.push(relative(root, path) + (current === null ? ' (missing)' : ''));
    }
    if (stale.length > 0) {
      process.stderr.write(`gen: stale generated file(s), run \`npm run gen\`:\n${stale.map((s) => `  ${s}\n`).join('')}`);
      process.exit(1);
    }
    process.stdout.write('gen: generated/ is up to date\n');
    return;
  }

  mkdirSync(outDir, { recursive: true });
  for (const [path, content] of files) {
    writeFileSync(path, content);
    process.stdout.write(`gen: wrote ${relative(root, path)}\n`);
  }
}

main().catch((error) => fail(error?.stack ?? String(error)));
