// The layering of src/, checked: data flows down, and no layer imports one above it (docs/architecture.md).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const SRC = resolve(__dirname, '..', '..', 'src');

/** What each layer may import besides itself; `generated` is the spec's types, `spec` the bundle loader. */
const ALLOWED: Record<string, string[]> = {
  lib: [],
  model: ['generated'],
  store: ['model', 'lib'],
  config: ['model', 'lib', 'store'],
  app: ['model', 'lib', 'store', 'config'],
  webhook: ['model', 'lib'],
  infra: ['app', 'model', 'lib', 'config'],
  http: ['app', 'model', 'lib', 'config', 'webhook', 'infra', 'spec', 'generated'],
  tools: ['http', 'app', 'model', 'lib', 'config', 'webhook', 'store', 'spec'],
  // The composition roots (src/parley.ts, src/main.ts) wire everything together.
  root: ['http', 'app', 'model', 'lib', 'config', 'webhook', 'store', 'infra', 'spec', 'tools'],
  spec: [],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** The layer of a source file or of an import's target (a module path without extension, or a folder's index). */
function layerOf(path: string): string {
  const rel = relative(SRC, path).replace(/\.ts$/, '');
  if (rel.startsWith('..')) return rel.split(sep).includes('generated') ? 'generated' : 'outside';
  if (rel === 'spec') return 'spec';
  const [first] = rel.split(sep);
  if (!rel.includes(sep) && !isFolder(join(SRC, first))) return 'root';
  return first;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.[^']+)'/gm)) out.push(m[1]);
  for (const m of text.matchAll(/^import\s+'(\.[^']+)'/gm)) out.push(m[1]);
  return out;
}

const edges = files(SRC).flatMap((file) => imports(file).map((spec) => ({ file, from: layerOf(file), to: layerOf(resolve(dirname(file), spec)), spec })));

test('the import graph was read (the check sees the files it checks)', () => {
  expect(edges.length).toBeGreaterThan(100);
  expect(new Set(edges.map((e) => e.from))).toEqual(new Set(['lib', 'model', 'store', 'config', 'app', 'webhook', 'infra', 'http', 'tools', 'root']));
});

test('no layer imports a layer above it', () => {
  const offenders = edges
    .filter((e) => e.from !== e.to && !(ALLOWED[e.from] ?? []).includes(e.to))
    .map((e) => `${relative(SRC, e.file)} (${e.from}) imports ${e.spec} (${e.to})`);
  expect(offenders).toEqual([]);
});

test('SQL stays in the store: no other layer imports knex or a database driver', () => {
  const drivers = /from\s+'(knex|mysql2|better-sqlite3)(\/[^']*)?'/;
  const offenders = files(SRC)
    .filter((f) => !['store'].includes(layerOf(f)) && drivers.test(readFileSync(f, 'utf8')))
    .map((f) => relative(SRC, f));
  expect(offenders).toEqual([]);
});
