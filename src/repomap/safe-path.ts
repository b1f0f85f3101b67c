import { realpathSync } from 'node:fs';
import path from 'node:path';
import { NavkernelError } from '../contracts/errors.js';

/** True when `child` (absolute, resolved) is `root` or inside it. */
export function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The absolute path of repo-relative `rel` under `root`, refusing anything that leaves the root:
 * absolute paths, `..` segments, and symlinks whose target is outside (checked on the real path).
 */
export function resolveInsideRoot(root: string, rel: string): string {
  const realRoot = realpathSync(root);
  if (path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) {
    throw new NavkernelError('PATH_OUTSIDE_ROOT', `refusing to read ${JSON.stringify(rel)}: not a path inside the repository`);
  }
  const abs = path.join(realRoot, rel);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch (err) {
    throw new NavkernelError('PATH_NOT_FOUND', `cannot read ${JSON.stringify(rel)}: ${(err as Error).message}`, { cause: err });
  }
  if (!isInside(realRoot, real)) {
    throw new NavkernelError('PATH_OUTSIDE_ROOT', `refusing to read ${JSON.stringify(rel)}: it resolves outside the repository`);
  }
  return real;
}
