// The client's modules form no import cycle (state → actions → components, helpers beside them), and none of them
// reaches back into the old single store. Imports are read from the source text (static, re-exports, side-effect and
// dynamic ones, type-only ones too: a cycle through types still ties two modules together).
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { projectRoot } from '../../src/spec';

const WEB = join(projectRoot(), 'web', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative imports of one source text, as written. */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith('.')) out.push(spec);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  return [base, `${base}.ts`, `${base}.tsx`, `${base}.d.ts`, join(base, 'index.ts'), join(base, 'index.tsx')].find((p) => existsSync(p) && statSync(p).isFile());
}

/** Every cycle's modules (one per strongly connected component with more than one module, or a self-import). */
export function findCycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iterative enough for a few hundred modules.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return cycles;
}

describe('web client: module structure', () => {
  test('the import reader sees every form of import', () => {
    const text = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      "import './styles.css';",
      "export { c } from './c';",
      "export * from './d';",
      "const e = await import('./e');",
      "import { render } from 'preact';",
      'import {\n  f,\n  g,\n} from "./fg";',
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a', '../b', './styles.css', './c', './d', './e', './fg']);
  });

  test('the cycle finder finds a cycle (and only the cycle)', () => {
    const graph = new Map([
      ['store', ['live', 'api']],
      ['live', ['store']],
      ['api', []],
      ['main', ['store']],
      ['self', ['self']],
    ]);
    expect(findCycles(graph)).toEqual([['live', 'store'], ['self']]);
    expect(findCycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });

  test('no module under web/src imports another in a cycle', () => {
    const files = sourceFiles(WEB);
    expect(files.length).toBeGreaterThan(20);
    const graph = new Map<string, string[]>();
    const unresolved: string[] = [];
    for (const file of files) {
      const deps: string[] = [];
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (spec.endsWith('.css')) continue;
        const target = resolveImport(file, spec);
        if (!target) unresolved.push(`${relative(WEB, file)} → ${spec}`);
        else if (target.startsWith(WEB)) deps.push(relative(WEB, target));
      }
      graph.set(relative(WEB, file), deps);
    }
    expect(unresolved).toEqual([]);
    expect(findCycles(graph)).toEqual([]);
  });
});
