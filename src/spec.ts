import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The project root, found from this file whether it runs from src/ (ts-jest) or dist/src/ (npm start). */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'generated'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the project root (package.json beside generated/)');
    dir = parent;
  }
  return dir;
}

let cached: Record<string, unknown> | undefined;

/** The bundled spec generated from openapi/ by `npm run gen`. */
export function loadSpec(): Record<string, unknown> {
  cached ??= JSON.parse(readFileSync(join(projectRoot(), 'generated', 'openapi.json'), 'utf8')) as Record<string, unknown>;
  return structuredClone(cached);
}
