import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder of navkernel's package.json, found from this file in `src/` (vitest) or `dist/src/` (built). */
export function packageRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'schemas'))) return (root = dir);
    dir = path.dirname(dir);
  }
  throw new Error('navkernel: cannot find the package root (package.json beside schemas/)');
}

/** The sample SDLC flows shipped with the package. */
export function sampleChartersDir(): string {
  return path.join(packageRoot(), 'charters');
}
